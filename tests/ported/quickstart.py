"""A first classifier, written for this project in the style of the PyTorch tutorials'
"Learn the Basics: Quickstart": data in DataLoaders, a `NeuralNetwork` module with
`nn.Flatten` and a `linear_relu_stack`, a `train` loop that reports the loss every few
batches and a `test` loop that counts correct predictions, the weights saved as a state_dict
and loaded into a new model that makes one prediction.

On the bundled 8x8 digits instead of FashionMNIST, with a smaller network and a larger
learning rate. `main(data)` takes the digits, a folder to save into and a NumPy seed.
"""

import os

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

device = torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else "cpu"


class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(8 * 8, 128),
            nn.ReLU(),
            nn.Linear(128, 128),
            nn.ReLU(),
            nn.Linear(128, 10),
        )

    def forward(self, x):
        x = self.flatten(x)
        logits = self.linear_relu_stack(x)
        return logits


def train(dataloader, model, loss_fn, optimizer, losses):
    size = len(dataloader.dataset)
    model.train()
    for batch, (X, y) in enumerate(dataloader):
        X, y = X.to(device), y.to(device)

        # the prediction error
        pred = model(X)
        loss = loss_fn(pred, y)

        # backpropagation
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()

        losses.append(loss.item())
        if batch % 5 == 0:
            loss, current = loss.item(), (batch + 1) * len(X)
            print(f"loss: {loss:>7f}  [{current:>5d}/{size:>5d}]")


def test(dataloader, model, loss_fn):
    size = len(dataloader.dataset)
    num_batches = len(dataloader)
    model.eval()
    test_loss, correct = 0, 0
    with torch.no_grad():
        for X, y in dataloader:
            X, y = X.to(device), y.to(device)
            pred = model(X)
            test_loss += loss_fn(pred, y).item()
            correct += (pred.argmax(1) == y).type(torch.float).sum().item()
    test_loss /= num_batches
    correct /= size
    print(f"Test Error: \n Accuracy: {(100 * correct):>0.1f}%, Avg loss: {test_loss:>8f} \n")
    return correct, test_loss


def main(data):
    # the images as [N, C, H, W] floats in [0, 1], as ToTensor() gives them
    training_data = TensorDataset(
        torch.tensor(data["x_train"]).reshape(-1, 1, 8, 8) / 16.0, torch.tensor(data["y_train"])
    )
    test_data = TensorDataset(
        torch.tensor(data["x_test"]).reshape(-1, 1, 8, 8) / 16.0, torch.tensor(data["y_test"])
    )

    batch_size = 64
    train_dataloader = DataLoader(training_data, batch_size=batch_size)
    test_dataloader = DataLoader(test_data, batch_size=batch_size)
    for X, y in test_dataloader:
        print(f"Shape of X [N, C, H, W]: {X.shape}")
        print(f"Shape of y: {y.shape} {y.dtype}")
        break

    print(f"Using {device} device")
    model = NeuralNetwork().to(device)
    print(model)
    # port: the tutorial starts from torch's random initialisation; here from NumPy's draws
    # (seed in data), uniform in +-1/sqrt(fan_in) as nn.Linear's, so both frameworks agree
    rng = np.random.default_rng(data["seed"])
    with torch.no_grad():
        for name, p in model.named_parameters():
            fan_in = (
                p.shape[1]
                if p.dim() == 2
                else model.get_parameter(name.replace("bias", "weight")).shape[1]
            )
            bound = 1 / np.sqrt(fan_in)
            p.copy_(
                torch.from_numpy(rng.uniform(-bound, bound, size=tuple(p.shape)).astype(np.float32))
            )

    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)

    epochs = 5
    losses, scores = [], []
    for t in range(epochs):
        print(f"Epoch {t + 1}\n-------------------------------")
        train(train_dataloader, model, loss_fn, optimizer, losses)
        scores.append(test(test_dataloader, model, loss_fn))
    print("Done!")

    path = os.path.join(data["out_dir"], "model.pth")
    torch.save(model.state_dict(), path)
    print(f"Saved PyTorch Model State to {os.path.basename(path)}")

    model = NeuralNetwork().to(device)
    model.load_state_dict(torch.load(path, weights_only=True))

    classes = [str(digit) for digit in range(10)]
    model.eval()
    x, y = test_data[0][0], test_data[0][1]
    with torch.no_grad():
        x = x.to(device)
        pred = model(x)
        predicted, actual = classes[pred[0].argmax(0)], classes[y]
        print(f'Predicted: "{predicted}", Actual: "{actual}"')
    return {"losses": losses, "scores": scores, "predicted": predicted, "actual": actual}
