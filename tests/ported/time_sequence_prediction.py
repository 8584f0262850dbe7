"""Sine waves continued by two stacked LSTM cells, written for this project in the style of
the PyTorch examples' time_sequence_prediction (its generate_sine_wave.py and train.py): waves
of random phase made with NumPy, a model that steps `nn.LSTMCell`s through time by hand and
then feeds its own output back in to predict the future, everything in float64 (`.double()`),
trained with L-BFGS and a closure, and a prediction of future steps under `torch.no_grad()`.

Sized for a test: fewer, shorter waves, a smaller hidden state, a few L-BFGS steps, and no
plots (the original draws each step's prediction with matplotlib).
"""

import argparse

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=15, help="steps to run")
parser.add_argument("--waves", type=int, default=100, help="number of sine waves")
parser.add_argument("--length", type=int, default=1000, help="samples per wave")
parser.add_argument("--period", type=int, default=20, help="samples per radian")
parser.add_argument("--hidden", type=int, default=51, help="LSTM units")
parser.add_argument(
    "--future", type=int, default=1000, help="steps to predict past the end of the input"
)


def sine_waves(n, length, period):
    """n sine waves of `length` samples, each shifted by a random whole number of samples."""
    shifts = np.random.randint(-4 * period, 4 * period, n).reshape(n, 1)
    t = np.arange(length) + shifts
    return np.sin(t / 1.0 / period).astype("float64")


class Sequence(nn.Module):
    def __init__(self, hidden=51):
        super().__init__()
        self.hidden = hidden
        self.lstm1 = nn.LSTMCell(1, hidden)
        self.lstm2 = nn.LSTMCell(hidden, hidden)
        self.linear = nn.Linear(hidden, 1)

    def forward(self, input, future=0):
        outputs = []
        h_t = torch.zeros(input.size(0), self.hidden, dtype=torch.double)
        c_t = torch.zeros(input.size(0), self.hidden, dtype=torch.double)
        h_t2 = torch.zeros(input.size(0), self.hidden, dtype=torch.double)
        c_t2 = torch.zeros(input.size(0), self.hidden, dtype=torch.double)

        # Teacher forcing: each step sees the true sample.
        for input_t in input.split(1, dim=1):
            h_t, c_t = self.lstm1(input_t, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        # Past the end: each step sees the model's own last prediction.
        for _ in range(future):
            h_t, c_t = self.lstm1(output, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        outputs = torch.cat(outputs, dim=1)
        return outputs


def main(data):
    opt = parser.parse_args(data["argv"])
    # set the random seeds: NumPy's for the waves, torch's for the initial weights
    np.random.seed(2)
    torch.manual_seed(0)

    waves = sine_waves(opt.waves, opt.length, opt.period)
    input = torch.from_numpy(waves[3:, :-1])
    target = torch.from_numpy(waves[3:, 1:])
    test_input = torch.from_numpy(waves[:3, :-1])
    test_target = torch.from_numpy(waves[:3, 1:])

    seq = Sequence(opt.hidden)
    seq.double()
    # port: torch.manual_seed(0) fixes the initial weights only within one framework; the
    # same uniform draws as nn.LSTMCell's and nn.Linear's own, from NumPy (seed in data),
    # give torch and minigrad the same model
    rng = np.random.default_rng(data["seed"])
    with torch.no_grad():
        for p in seq.parameters():
            bound = 1.0 / np.sqrt(opt.hidden)
            p.copy_(torch.from_numpy(rng.uniform(-bound, bound, size=tuple(p.shape))))
    criterion = nn.MSELoss()
    # L-BFGS can use all the data at once to train the final model
    optimizer = optim.LBFGS(seq.parameters(), lr=0.8)

    train_losses, test_losses, predictions = [], [], []
    for i in range(opt.steps):
        print("STEP: ", i)

        def closure():
            optimizer.zero_grad()
            out = seq(input)
            loss = criterion(out, target)
            print("loss:", loss.item())
            train_losses.append(loss.item())
            loss.backward()
            return loss

        optimizer.step(closure)
        # predict the future, no gradients needed
        with torch.no_grad():
            future = opt.future
            pred = seq(test_input, future=future)
            loss = criterion(pred[:, :-future], test_target)
            print("test loss:", loss.item())
            test_losses.append(loss.item())
            y = pred.detach().numpy()
        predictions.append(y)
    return {
        "train_losses": train_losses,
        "test_losses": test_losses,
        "prediction": predictions[-1],
        "dtype": str(next(seq.parameters()).dtype).replace("torch.", "").replace("minigrad.", ""),
    }
