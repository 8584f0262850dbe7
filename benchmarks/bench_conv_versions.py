"""Two versions of the CPU convolution kernels (kernels/cpu/conv.py), timed in one process,
taking turns: the working copy's file and the file at a git revision.

    python benchmarks/bench_conv_versions.py [--rev HEAD] [--threads 2] [--repeat 30]
                                             [--cases mid stride2 ...] [--quick]

Why one process, and turns: on the shared 2-core VM the same kernel's time moved by half
between runs of `bench_conv.py` half an hour apart (benchmarks/RESULTS.md, 2026-11-28),
more than most changes to a kernel. Here both files are loaded as modules of their own
(as `bench_versions.py` does for the attention's short kernels), each with its own Numba
dispatchers, and their calls alternate: whatever the machine does falls on both alike.
Everything else (workers, the shared product) is the working copy's.

For each `bench_conv.py` case, each of the three kernels: the forward pass (without a
bias, the signature every version has), the input gradient and the weight gradient, after
checking that both versions give the same numbers (float32). Each turn times each version
twice in a row, after a call that is not counted; printed are the median times and the
median of the turns' ratios, working copy / revision, with its quartiles (below 1: the
working copy is faster). The revision's kernels compile on their first call (seconds:
the copy is a new file, so Numba's cache has nothing for it).
"""

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_conv  # noqa: E402
from versions import load, sources  # noqa: E402

FILE = "minigrad/kernels/cpu/conv.py"
QUICK_BATCH = 2


def calls(module, case, seed=0):
    """{pass: a function of no arguments} running `module`'s three kernels on `case`."""
    n, c, o, h, k, s, p, g = case
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, c, h, h), dtype=np.float32)
    w = rng.standard_normal((o, c // g, k, k), dtype=np.float32) * 0.1
    ho = (h + 2 * p - k) // s + 1
    gy = rng.standard_normal((n, o, ho, ho), dtype=np.float32)
    settings = ((s, s), (p, p), (1, 1), g)
    return {
        "forward": lambda: module.conv2d_forward(x, w, *settings),
        "input grad": lambda: module.conv2d_backward_input(gy, w, x.shape, *settings),
        "weight grad": lambda: module.conv2d_backward_weight(gy, x, w.shape, *settings),
    }


def turns(old, new, repeat):
    """Times of `old` and `new` (seconds, each the mean of two calls after an uncounted
    one), in `repeat` turns."""
    times = ([], [])
    for _ in range(repeat):
        for fn, t in zip((old, new), times):
            fn()
            start = time.perf_counter()
            fn()
            fn()
            t.append((time.perf_counter() - start) / 2)
    return times


def compare(modules, case_names, batch, repeat, out=print):
    """Print, for every case and kernel, both versions' medians and the ratio's quartiles;
    return {(case, pass): median ratio}."""
    (rev, old), (_, new) = modules.items()
    out(f"{'case':10s} {'kernel':12s} {rev:>12s} {'working copy':>13s}  working copy / {rev}")
    ratios = {}
    for name in case_names:
        case = bench_conv.CASES[name]
        if batch is not None:
            case = (batch,) + case[1:]
        old_calls, new_calls = calls(old, case), calls(new, case)
        for kernel in old_calls:
            np.testing.assert_allclose(
                new_calls[kernel](), old_calls[kernel](), rtol=1e-3, atol=1e-3, err_msg=kernel
            )
            t_old, t_new = turns(old_calls[kernel], new_calls[kernel], repeat)
            each = [b / a for a, b in zip(t_old, t_new)]
            q1, q2, q3 = statistics.quantiles(each, n=4) if len(each) > 1 else each * 3
            ratios[name, kernel] = q2
            out(
                f"{name:10s} {kernel:12s} {statistics.median(t_old) * 1e3:10.2f}ms "
                f"{statistics.median(t_new) * 1e3:11.2f}ms  {q2:.3f} ({q1:.3f}-{q3:.3f})"
            )
    return ratios


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rev", default="HEAD", help="the git revision to compare against")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=30, help="turns per kernel")
    cases = list(bench_conv.CASES)
    parser.add_argument("--cases", nargs="*", default=cases, choices=cases)
    parser.add_argument("--quick", action="store_true", help="batch 2, 3 turns")
    args = parser.parse_args(argv)
    import minigrad as mg

    mg.set_num_threads(args.threads)
    folder = tempfile.mkdtemp()
    modules = {
        name: load(text, f"conv_{i}", folder)
        for i, (name, text) in enumerate(sources(args.rev, FILE).items())
    }
    batch, repeat = (QUICK_BATCH, 3) if args.quick else (None, args.repeat)
    print(f"{FILE} at {args.rev} and in the working copy, {args.threads} threads, {repeat} turns")
    return compare(modules, args.cases, batch, repeat)


if __name__ == "__main__":
    main()
