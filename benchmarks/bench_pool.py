"""Pooling benchmark: max and average pooling, 2x2 windows with stride 2, on a
(64, 32, 28, 28) float32 batch, the size of a small CNN's first pooling layer.

For each case, forward and forward + backward through the autograd (the input requires
grad, so max pooling also records its indices, in both frameworks), timed in one run:

- minigrad with the NumPy reference kernels (`mg.backends.use("numpy")`),
- minigrad with the Numba CPU kernels (`"numba"`),
- PyTorch on the CPU,

all on the same number of threads (--threads, default 2). Printed: the median time of
each, the ratios numba / PyTorch (target: <= 1.0, forward + backward) and numba speed-up
over the reference, and the effective memory bandwidth: the bytes the op must at least
read and write (input, output, indices, gradients) divided by the time.

The Numba kernels' compile time is kept out of those timings (every function is warmed
up first) and measured separately, in a fresh process with an empty cache directory
(NUMBA_CACHE_DIR): the first call of each kernel compiles it. A second fresh process
then shows what a later session pays to load them from the cache.

    python benchmarks/bench_pool.py [--quick] [--threads N] [--repeat R] [--no-compile-time]
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SHAPE = (64, 32, 28, 28)
QUICK_SHAPE = (4, 8, 8, 8)  # --quick: a smoke test of the script, not a measurement
CASES = ("max_pool2d", "avg_pool2d")
TARGET = 1.0  # numba / PyTorch, forward + backward


def median_ms(fn, repeat, warmup=2):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return 1e3 * statistics.median(times)


def bytes_moved(case, shape, itemsize=4):
    """The least memory traffic of (forward, backward), in bytes: every input read
    once, every output written once. Max pooling also writes, then reads, its int64
    indices."""
    n_in = 1
    for s in shape:
        n_in *= s
    n_out = n_in // 4  # 2x2 windows, stride 2
    index_bytes = 8 * n_out if case == "max_pool2d" else 0
    forward = itemsize * (n_in + n_out) + index_bytes
    backward = itemsize * (n_out + n_in) + index_bytes  # read dL/dy (and indices), write dL/dx
    return forward, backward


def time_minigrad(case, x_np, g_np, backend, repeat):
    import minigrad as mg
    import minigrad.nn.functional as F

    pool = getattr(F, case)
    x = mg.tensor(x_np, requires_grad=True)
    g = mg.tensor(g_np)

    def forward():
        return pool(x, 2)

    def forward_backward():
        pool(x, 2).backward(g)
        x.grad = None

    with mg.backends.use(backend):
        return median_ms(forward, repeat), median_ms(forward_backward, repeat)


def time_torch(case, x_np, g_np, repeat):
    import torch

    pool = getattr(torch.nn.functional, case)
    x = torch.tensor(x_np, requires_grad=True)
    g = torch.tensor(g_np)

    def forward():
        return pool(x, 2)

    def forward_backward():
        pool(x, 2).backward(g)
        x.grad = None

    return median_ms(forward, repeat), median_ms(forward_backward, repeat)


def run(repeat=20, threads=2, shape=SHAPE):
    """Time every case; returns a list of dicts (one per case) with the medians in ms."""
    import numpy as np
    import torch

    torch.set_num_threads(threads)
    import minigrad as mg

    mg.set_num_threads(threads)  # the kernels and the large products
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(np.float32)
    g = rng.standard_normal((shape[0], shape[1], shape[2] // 2, shape[3] // 2)).astype(np.float32)
    results = []
    for case in CASES:
        row = {"case": case, "shape": shape}
        # the reference is slow: fewer repeats keep the run short without changing its median much
        row["numpy"] = time_minigrad(case, x, g, "numpy", max(3, repeat // 4))
        row["numba"] = time_minigrad(case, x, g, "numba", repeat)
        row["torch"] = time_torch(case, x, g, repeat)
        row["bytes"] = bytes_moved(case, shape)
        results.append(row)
    return results


_COMPILE_SCRIPT = """
import json, time
import numpy as np
start = time.perf_counter()
from minigrad.kernels.cpu import pool
imported = time.perf_counter() - start
x = np.ones((2, 3, 8, 8), dtype=np.float32)
times = {}
def first_call(name, fn):
    start = time.perf_counter()
    out = fn()
    times[name] = time.perf_counter() - start
    return out
k, s, p, ceil, inc = (2, 2), (2, 2), (0, 0), False, True  # inc: count_include_pad
y, i = first_call("max_pool2d forward", lambda: pool.max_pool2d_forward(x, k, s, p, (1, 1), ceil))
first_call("max_pool2d backward", lambda: pool.max_pool2d_backward(y, i, x.shape))
y = first_call("avg_pool2d forward", lambda: pool.avg_pool2d_forward(x, k, s, p, ceil, inc))
first_call("avg_pool2d backward", lambda: pool.avg_pool2d_backward(y, x.shape, k, s, p, ceil, inc))
print(json.dumps({"import": imported, "first_calls": times}))
"""


def compile_times():
    """First-call times of the four float32 kernels in a fresh process: with an empty
    Numba cache (a compile), then again with the cache that run filled (a load)."""
    root = Path(__file__).resolve().parents[1]
    out = {}
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        for label in ("cold cache (compile)", "warm cache (load)"):
            result = subprocess.run(
                [sys.executable, "-c", _COMPILE_SCRIPT],
                cwd=root,
                env=env,
                capture_output=True,
                text=True,
                check=True,
            )
            out[label] = json.loads(result.stdout.strip().splitlines()[-1])
    return out


def report(results, threads):
    print(
        f"\nPooling 2x2, stride 2, on {results[0]['shape']} float32, {threads} threads (median ms)"
    )
    print(
        f"{'case':24s} {'reference':>10s} {'numba':>9s} {'PyTorch':>9s} {'numba/PT':>9s} "
        f"{'vs ref':>7s} {'GB/s numba':>11s} {'GB/s PT':>8s}  target"
    )
    for row in results:
        fwd_bytes, bwd_bytes = row["bytes"]
        for k, (label, nbytes) in enumerate(
            (("forward", fwd_bytes), ("forward+backward", fwd_bytes + bwd_bytes))
        ):
            ref, fast, theirs = row["numpy"][k], row["numba"][k], row["torch"][k]
            ratio = fast / theirs
            target = f"<= {TARGET:.1f}x {'met' if ratio <= TARGET else 'MISSED'}" if k == 1 else ""
            print(
                f"{row['case'] + ' ' + label:24s} {ref:10.2f} {fast:9.2f} {theirs:9.2f} "
                f"{ratio:8.2f}x {ref / fast:6.1f}x {nbytes / fast / 1e6:11.1f} "
                f"{nbytes / theirs / 1e6:8.1f}  {target}"
            )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"few repeats on a {QUICK_SHAPE} batch: a smoke test, not a measurement",
    )
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument(
        "--repeat", type=int, default=None, help="timed runs per case (default 30, quick 3)"
    )
    parser.add_argument(
        "--no-compile-time", action="store_true", help="skip the cold-cache compile measurement"
    )
    args = parser.parse_args(argv)
    repeat = args.repeat or (3 if args.quick else 30)

    import numpy as np
    import torch

    print(
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, NumPy {np.__version__}, torch {torch.__version__}"
    )
    results = run(repeat=repeat, threads=args.threads, shape=QUICK_SHAPE if args.quick else SHAPE)
    report(results, args.threads)
    if not args.no_compile_time:
        print("\nNumba compile time, float32 kernels, first call in a fresh process:")
        for label, measured in compile_times().items():
            calls = ", ".join(
                f"{name} {1e3 * t:.0f} ms" for name, t in measured["first_calls"].items()
            )
            total = 1e3 * sum(measured["first_calls"].values())
            print(
                f"  {label}: {calls} (total {total:.0f} ms; import {1e3 * measured['import']:.0f} "
                "ms)"
            )
    return results


if __name__ == "__main__":
    main()
