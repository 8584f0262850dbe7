"""Where the parallel row kernels start to pay: layer norm and softmax, the NumPy
reference against the compiled kernel, by the size of the array (issue #24, point 2).

    python benchmarks/bench_row_kernels.py [--repeat 7] [--width 128] [--dtype float32]

For arrays of (rows, width) elements from 256 to 2^20, the shortest time of one call of
each (over --repeat runs of many calls: on a shared machine the fastest run is the one
least disturbed), forward and backward, in microseconds: `ref` is kernels/reference/*.py, `cpu`
kernels/cpu/*.py with its threshold (PARALLEL_MIN) set to 0, so that it always runs the
compiled loops. The two take turns, call by call, so that load from elsewhere falls on
both alike. The smallest size from which `cpu` stays faster is the figure behind
PARALLEL_MIN (benchmarks/RESULTS.md).
"""

import argparse
import time

import numpy as np

from minigrad.kernels.cpu import layer_norm as cpu_ln
from minigrad.kernels.cpu import softmax as cpu_sm
from minigrad.kernels.reference import layer_norm as ref_ln
from minigrad.kernels.reference import softmax as ref_sm


def cases(x, w, b, dy):
    """{name: (reference call, cpu call)}, each a function of the module."""
    y, xhat, rstd = ref_ln.forward(x, w, b, 1e-5)
    p = ref_sm.softmax(x, -1)
    return {
        "layer_norm fwd": lambda m: m.forward(x, w, b, 1e-5),
        "layer_norm bwd": lambda m: m.backward(dy, xhat, rstd, w),
        "softmax fwd": lambda m: m.softmax(x, -1),
        "log_softmax fwd": lambda m: m.softmax(x, -1, log=True),
        "softmax bwd": lambda m: m.softmax_backward(p, dy, -1),
    }


def best_us(fn, module, repeat, inner):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(inner):
            fn(module)
        times.append((time.perf_counter() - start) / inner * 1e6)
    return min(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--width", type=int, default=128, help="row length N (default 128)")
    parser.add_argument("--dtype", default="float32")
    args = parser.parse_args()
    cpu_ln.PARALLEL_MIN = cpu_sm.PARALLEL_MIN = 0
    rng = np.random.default_rng(0)
    n = args.width
    sizes = [2**k for k in range(8, 21, 1)]
    print(f"width {n}, {args.dtype}: microseconds per call, best of {args.repeat}, ref / cpu")
    header = None
    for size in sizes:
        rows = max(1, size // n)
        x = rng.standard_normal((rows, n)).astype(args.dtype)
        dy = rng.standard_normal((rows, n)).astype(args.dtype)
        w, b = np.ones(n, args.dtype), np.zeros(n, args.dtype)
        table = cases(x, w, b, dy)
        if header is None:
            header = "elements  " + "  ".join(f"{name:>22}" for name in table)
            print(header)
        inner = max(1, 20000 // max(rows * n // 64, 1))
        row = []
        for name, fn in table.items():
            mod_ref, mod_cpu = (ref_ln, cpu_ln) if "layer" in name else (ref_sm, cpu_sm)
            fn(mod_cpu)  # compile (or load) first
            r = best_us(fn, mod_ref, args.repeat, inner)
            c = best_us(fn, mod_cpu, args.repeat, inner)
            row.append(f"{r:9.1f} / {c:9.1f}{'*' if c < r else ' '}")
        print(f"{rows * n:8d}  " + "  ".join(f"{cell:>22}" for cell in row), flush=True)
    print("(* the compiled kernel faster)")


if __name__ == "__main__":
    main()
