"""Time per epoch of the digits MLP (the `minigrad-train` default) in minigrad and in
PyTorch, same model, same initial weights, same batches, same run.

    python benchmarks/bench_training.py [--epochs 20] [--threads N]
"""

import argparse
import os
import statistics
import time

import numpy as np


def batches(n, batch_size, rng):
    order = rng.permutation(n)
    return [order[i : i + batch_size] for i in range(0, n, batch_size)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    args = parser.parse_args()

    import torch

    import minigrad as mg
    import minigrad.nn.functional as F
    import minigrad.optim as optim
    from minigrad.data import Digits
    from minigrad.models import MLP

    torch.set_num_threads(args.threads)
    train, test = Digits(train=True), Digits(train=False)
    x_train = (train.data / 16).astype(np.float32).reshape(-1, 64)
    x_test = (test.data / 16).astype(np.float32).reshape(-1, 64)
    y_train, y_test = train.targets, test.targets

    mg.manual_seed(0)
    model = MLP(64, (256, 128), 10)
    t_model = torch.nn.Sequential(
        torch.nn.Linear(64, 256),
        torch.nn.ReLU(),
        torch.nn.Linear(256, 128),
        torch.nn.ReLU(),
        torch.nn.Linear(128, 10),
    )
    # identical starting weights: minigrad's layers.0.weight is torch's 0.weight, ...
    names = {f"{2 * i}.{p}": f"layers.{i}.{p}" for i in range(3) for p in ("weight", "bias")}
    t_model.load_state_dict(
        {k: torch.from_numpy(model.state_dict()[v].numpy().copy()) for k, v in names.items()}
    )
    opt = optim.AdamW(model.parameters(), lr=3e-3)
    t_opt = torch.optim.AdamW(t_model.parameters(), lr=3e-3)

    rng = np.random.default_rng(0)
    epochs = [batches(len(y_train), args.batch_size, rng) for _ in range(args.epochs)]
    times = {"minigrad": [], "PyTorch": []}
    for order in epochs:
        start = time.perf_counter()
        for idx in order:
            opt.zero_grad()
            loss = F.cross_entropy(model(mg.tensor(x_train[idx])), mg.tensor(y_train[idx]))
            loss.backward()
            opt.step()
        times["minigrad"].append(time.perf_counter() - start)
        start = time.perf_counter()
        for idx in order:
            t_opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(
                t_model(torch.from_numpy(x_train[idx])), torch.from_numpy(y_train[idx])
            )
            loss.backward()
            t_opt.step()
        times["PyTorch"].append(time.perf_counter() - start)

    with mg.no_grad():
        acc = (model(mg.tensor(x_test)).argmax(dim=1).numpy() == y_test).mean()
    with torch.no_grad():
        t_acc = (t_model(torch.from_numpy(x_test)).argmax(dim=1).numpy() == y_test).mean()
    med = {k: statistics.median(v[1:]) for k, v in times.items()}  # epoch 1 includes warm-up
    print(
        f"digits MLP 64-256-128-10, AdamW, batch {args.batch_size}, {len(epochs[0])} steps/epoch, "
        f"{args.epochs} epochs, {args.threads} threads"
    )
    print(f"{'':10s} {'median epoch':>13s} {'test accuracy':>14s}")
    for name, a in (("minigrad", acc), ("PyTorch", t_acc)):
        print(f"{name:10s} {med[name] * 1e3:10.1f} ms {a:13.1%}")
    print(f"ratio minigrad / PyTorch: {med['minigrad'] / med['PyTorch']:.2f}x")


if __name__ == "__main__":
    main()
