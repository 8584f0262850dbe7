"""`python -m minigrad`: the demo. Train a small network on two interleaved spirals
using nothing but tensors, autograd and a hand-written SGD step.

Everything a framework does for a training loop is visible here: parameters are
leaf tensors with requires_grad=True, the forward pass builds a graph, `backward`
fills `.grad`, and the update runs under `no_grad` so it is not recorded.
"""

import argparse
import math
import time

import numpy as np

import minigrad as mg
import minigrad.nn.functional as F


def spirals(n_per_class, rng):
    """Two spirals of 2-D points, one per class, with a little noise."""
    t = np.sqrt(rng.random(n_per_class)) * 3 * math.pi
    arm = np.stack([t * np.cos(t), t * np.sin(t)], axis=1) / (3 * math.pi)
    points = np.concatenate([arm, -arm]) + rng.normal(0, 0.02, (2 * n_per_class, 2))
    labels = np.repeat([0, 1], n_per_class)
    return points.astype(np.float32), labels.astype(np.int64)


def init_layer(fan_in, fan_out):
    """PyTorch's default Linear init: U(-1/sqrt(fan_in), 1/sqrt(fan_in))."""
    bound = 1 / math.sqrt(fan_in)
    w = (mg.rand(fan_in, fan_out) * 2 - 1) * bound
    b = (mg.rand(fan_out) * 2 - 1) * bound
    return w.requires_grad_(), b.requires_grad_()


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Train a small MLP on two spirals with raw minigrad tensors."
    )
    parser.add_argument("--steps", type=int, default=1500)
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--momentum", type=float, default=0.9)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    mg.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    x_np, y_np = spirals(500, rng)
    order = rng.permutation(len(y_np))
    train, test = order[:800], order[800:]
    x_train, y_train = mg.tensor(x_np[train]), mg.tensor(y_np[train])
    x_test, y_test = mg.tensor(x_np[test]), mg.tensor(y_np[test])

    params = [*init_layer(2, 64), *init_layer(64, 64), *init_layer(64, 2)]
    velocity = [mg.zeros_like(p) for p in params]

    def model(x):
        w1, b1, w2, b2, w3, b3 = params
        h = (x @ w1 + b1).tanh()
        h = (h @ w2 + b2).tanh()
        return h @ w3 + b3

    start = time.perf_counter()
    for step in range(args.steps + 1):
        loss = F.cross_entropy(model(x_train), y_train)
        for p in params:
            p.grad = None
        loss.backward()
        with mg.no_grad():  # SGD with momentum: v = mu v + g;  p = p - lr v
            for p, v in zip(params, velocity):
                v *= args.momentum
                v += p.grad
                p -= args.lr * v
        if step % (args.steps // 6 or 1) == 0:
            print(f"step {step:4d}  loss {loss.item():.4f}")

    with mg.no_grad():
        accuracy = (model(x_test).argmax(dim=1) == y_test).float().mean().item()
    print(f"test accuracy: {accuracy:.1%}  ({time.perf_counter() - start:.1f}s)")
    return accuracy


if __name__ == "__main__":
    main()
