"""Where the row kernels pay, and where cutting their rows over the threads pays: layer
norm and softmax, the NumPy reference against the compiled kernel on one thread and on
every thread, by the size of the array (issue #24, points 2 and 4).

    python benchmarks/bench_row_kernels.py [--repeat 7] [--width 128] [--dtype float32]

For arrays of (rows, width) elements from 256 to 2^20, the shortest time of one call of
each (over --repeat runs of many calls: on a shared machine the fastest run is the one
least disturbed), forward and backward, in microseconds: `ref` is kernels/reference/*.py,
`one` kernels/cpu/*.py with MIN_KERNEL 0 and MIN_SPLIT out of reach (every row on the
calling thread), `all` with MIN_SPLIT 0 (the rows cut over every thread by
kernels/cpu/workers.py). The three take turns, so that load from elsewhere falls on all
alike. The smallest size from
which `one` stays faster than `ref` is the figure behind MIN_KERNEL, and from which `all`
stays faster than `one` the figure behind MIN_SPLIT (benchmarks/RESULTS.md).
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


def best_us(fn, module, repeat, inner, split=None):
    """The shortest time of one call; `split`: the cpu module's MIN_SPLIT meanwhile."""
    if split is not None:
        module.MIN_SPLIT = split
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
    cpu_ln.MIN_KERNEL = cpu_sm.MIN_KERNEL = 0
    rng = np.random.default_rng(0)
    n = args.width
    sizes = [2**k for k in range(8, 21, 1)]
    print(f"width {n}, {args.dtype}: µs per call, best of {args.repeat}, ref / one / all")
    header = None
    for size in sizes:
        rows = max(1, size // n)
        x = rng.standard_normal((rows, n)).astype(args.dtype)
        dy = rng.standard_normal((rows, n)).astype(args.dtype)
        w, b = np.ones(n, args.dtype), np.zeros(n, args.dtype)
        table = cases(x, w, b, dy)
        if header is None:
            header = "elements  " + "  ".join(f"{name:>24}" for name in table)
            print(header)
        inner = max(1, 20000 // max(rows * n // 64, 1))
        row = []
        for name, fn in table.items():
            mod_ref, mod_cpu = (ref_ln, cpu_ln) if "layer" in name else (ref_sm, cpu_sm)
            fn(mod_cpu)  # compile (or load) first
            r = best_us(fn, mod_ref, args.repeat, inner)
            one = best_us(fn, mod_cpu, args.repeat, inner, split=2**62)
            every = best_us(fn, mod_cpu, args.repeat, inner, split=0)
            row.append(f"{r:7.0f} /{one:7.0f} /{every:7.0f}{'*' if every < one else ' '}")
        print(f"{rows * n:8d}  " + "  ".join(f"{cell:>24}" for cell in row), flush=True)
    print("(* every thread faster than one)")


if __name__ == "__main__":
    main()
