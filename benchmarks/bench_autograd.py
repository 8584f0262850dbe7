"""Per-op overhead of minigrad's autograd against PyTorch eager, on the same machine.

(a) forward + backward of a chain of 1,000 elementwise ops on a 16-element tensor:
    almost pure interpreter overhead (creating tensors and graph nodes);
(b) forward + backward of a 784-256-128-10 MLP at batch 64 written with raw tensor
    ops: dominated by the matrix products, so it shows the cost of what surrounds them.

Prints the median of several repetitions for each framework and the ratio
minigrad / PyTorch. Both use the same number of threads (--threads, default: all cores).

    python benchmarks/bench_autograd.py [--threads N] [--repeat R]
"""

import argparse
import os
import platform
import statistics
import time

CHAIN_OPS = 1000  # case (a): ops in the chain


def _median_time(fn, repeat, warmup=2):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def chain_minigrad(mg, n_ops):
    x = mg.randn(16, requires_grad=True)

    def run():
        y = x
        for i in range(n_ops):
            # cycle through a few cheap, stable elementwise ops
            k = i % 4
            if k == 0:
                y = y * 0.999
            elif k == 1:
                y = y + 0.001
            elif k == 2:
                y = y.tanh()
            else:
                y = y - 0.001
        y.sum().backward()
        x.grad = None

    return run


def chain_torch(torch, n_ops):
    x = torch.randn(16, requires_grad=True)

    def run():
        y = x
        for i in range(n_ops):
            k = i % 4
            if k == 0:
                y = y * 0.999
            elif k == 1:
                y = y + 0.001
            elif k == 2:
                y = y.tanh()
            else:
                y = y - 0.001
        y.sum().backward()
        x.grad = None

    return run


def mlp_params(lib, rng, sizes):
    params = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        bound = 1.0 / fan_in**0.5
        w = rng.uniform(-bound, bound, (fan_in, fan_out)).astype("float32")
        b = rng.uniform(-bound, bound, (fan_out,)).astype("float32")
        params.append((lib(w), lib(b)))
    return params


def mlp_step(params, x, y_onehot):
    def run():
        h = x
        for i, (w, b) in enumerate(params):
            h = h @ w + b
            if i < len(params) - 1:
                h = h.relu()
        # softmax cross-entropy written with raw ops (max-shifted log-sum-exp)
        shifted = h - h.max(dim=1, keepdim=True)[0].detach()
        log_probs = shifted - shifted.exp().sum(dim=1, keepdim=True).log()
        loss = -(log_probs * y_onehot).sum() / x.shape[0]
        loss.backward()
        for w, b in params:
            w.grad = None
            b.grad = None

    return run


def run(repeat=20, threads=None):
    """Time both cases; a list of (case, minigrad seconds, PyTorch seconds, target ratio)."""
    import numpy as np
    import torch

    import minigrad as mg

    torch.set_num_threads(threads or os.cpu_count())
    rng = np.random.default_rng(0)

    results = []
    t_mg = _median_time(chain_minigrad(mg, CHAIN_OPS), repeat)
    t_pt = _median_time(chain_torch(torch, CHAIN_OPS), repeat)
    results.append(("(a) 1,000-op elementwise chain, 16 elements, fwd+bwd", t_mg, t_pt, 3.0))

    x = rng.standard_normal((64, 784)).astype("float32")
    labels = rng.integers(0, 10, 64)
    onehot = np.eye(10, dtype="float32")[labels]
    sizes = (784, 256, 128, 10)
    mg_params = [
        (mg.tensor(w, requires_grad=True), mg.tensor(b, requires_grad=True))
        for w, b in mlp_params(np.asarray, np.random.default_rng(1), sizes)
    ]
    pt_params = [
        (torch.tensor(w, requires_grad=True), torch.tensor(b, requires_grad=True))
        for w, b in mlp_params(np.asarray, np.random.default_rng(1), sizes)
    ]
    t_mg = _median_time(mlp_step(mg_params, mg.tensor(x), mg.tensor(onehot)), repeat * 5)
    t_pt = _median_time(mlp_step(pt_params, torch.tensor(x), torch.tensor(onehot)), repeat * 5)
    results.append(("(b) MLP 784-256-128-10, batch 64, fwd+bwd", t_mg, t_pt, 1.5))
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()

    import numpy as np
    import torch

    print(
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, NumPy {np.__version__}, torch {torch.__version__}, "
        f"threads {args.threads}"
    )
    results = run(args.repeat, args.threads)
    print(f"{'case':58s} {'minigrad':>10s} {'PyTorch':>10s} {'ratio':>7s} {'target':>7s}")
    for name, a, b, target in results:
        ratio = a / b
        flag = "ok" if ratio <= target else "MISSED"
        print(f"{name:58s} {a * 1e3:8.2f}ms {b * 1e3:8.2f}ms {ratio:6.2f}x {target:5.1f}x  {flag}")


if __name__ == "__main__":
    main()
