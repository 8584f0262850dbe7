"""The timing helpers the lesson benchmarks share (bench_linear, bench_losses, bench_recurrent,
bench_normalization, bench_optimizers, bench_attention_modules, bench_positional,
bench_tokenizers): how a call is timed, how turns are taken, how a range is printed,
and the command line every lesson benchmark has.

    quartiles_ms(fn, repeat)   (median, 25th, 75th percentile) ms of `repeat` calls
    turns(fns, repeat, number) the functions timed in alternating turns, ms per call
    span(values)               'median (min-max)' of a list of numbers
    one_thread(fn)             fn with PyTorch on one thread
    lesson_main(doc, run, report)  --quick / --threads / --repeat, a machine line, the table
"""

import argparse
import contextlib
import os
import platform
import statistics
import time


def quartiles_ms(fn, repeat, warmup=2):
    """(median, 25th percentile, 75th percentile) of `repeat` timed calls, in ms."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(1e3 * (time.perf_counter() - start))
    q1, _, q3 = statistics.quantiles(times, n=4) if len(times) > 1 else (times[0],) * 3
    return statistics.median(times), q1, q3


def turns(fns, repeat, number):
    """{name: [ms per call of each turn]}: every fn called `number` times per turn, the
    fns taking turns in an order reversed every round, so that load from elsewhere on a
    shared machine falls on all of them alike."""
    for fn in fns.values():  # warm-up: kernels compiled, thread pools started
        fn()
        fn()
    ms = {k: [] for k in fns}
    order = list(fns)
    for r in range(repeat):
        for k in order if r % 2 == 0 else order[::-1]:
            start = time.perf_counter()
            for _ in range(number):
                fns[k]()
            ms[k].append(1e3 * (time.perf_counter() - start) / number)
    return ms


def span(values, fmt="{:.2f}"):
    """'median (min-max)' of `values`."""
    return (
        f"{fmt.format(statistics.median(values))} "
        f"({fmt.format(min(values))}-{fmt.format(max(values))})"
    )


def one_thread(fn):
    """`fn` run with PyTorch on one thread (its thread count restored afterwards)."""
    import torch

    def run():
        before = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            return fn()
        finally:
            torch.set_num_threads(before)

    return run


@contextlib.contextmanager
def blas_threads(threads):
    """NumPy's products on `threads` BLAS threads and nothing else: minigrad cuts no
    product over the cores itself meanwhile (minigrad/kernels/cpu/matmul.py), so that
    minigrad, NumPy and PyTorch (torch.set_num_threads) run on the same threads."""
    from threadpoolctl import threadpool_limits

    import minigrad as mg

    before = mg.threads.MATMUL_SPLIT_THREADS
    mg.threads.MATMUL_SPLIT_THREADS = 1
    try:
        with threadpool_limits(threads, user_api="blas"):
            yield
    finally:
        mg.threads.MATMUL_SPLIT_THREADS = before


def lesson_main(doc, run, report, argv=None, default_repeat=20):
    """The command line of a lesson benchmark: parse --quick/--threads/--repeat, print
    the machine, run(repeat=, threads=), print report(results, threads); the results."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="few repeats: a smoke test, not a measurement"
    )
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument(
        "--repeat",
        type=int,
        default=None,
        help=f"timed runs per case (default {default_repeat}, quick 3)",
    )
    args = parser.parse_args(argv)
    repeat = args.repeat or (3 if args.quick else default_repeat)

    import numpy as np
    import torch

    print(
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, NumPy {np.__version__}, torch {torch.__version__}"
    )
    results = run(repeat=repeat, threads=args.threads)
    report(results, args.threads)
    return results


# ---- the forward / forward + backward benchmarks (gelu, positional, attention modules) ----
def time_forward_backward(found, repeat, number):
    """{'forward': {case: [ms]}, 'forward + backward': {case: [ms]}}: `found` maps each case
    to its (forward, forward_backward) pair of functions, timed in turns."""
    return {
        part: turns({name: fns[index] for name, fns in found.items()}, repeat, number)
        for part, index in (("forward", 0), ("forward + backward", 1))
    }


def print_against(results, base, repeat, number, unit="ms per call", width=24):
    """Print each part's cases, median (min-max), and each case's time over `base`'s."""
    for part, ms in results.items():
        print(f"\n{part}: {unit}, median (min-max) of {repeat} turns of {number} calls")
        for name, values in ms.items():
            ratio = span([a / b for a, b in zip(values, ms[base])], "{:.2f}x")
            print(f"  {name:{width}s} {span(values):>22s}   / {base.split(', ', 1)[-1]} {ratio}")


def turns_main(doc, run, default_repeat, default_number):
    """The command line of those benchmarks: --quick (one call: does it run), --repeat, --number."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="one short turn each: checks that the script runs"
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=default_repeat,
        help=f"turns per case (default: {default_repeat})",
    )
    parser.add_argument(
        "--number",
        type=int,
        default=default_number,
        help=f"calls per turn (default: {default_number})",
    )
    args = parser.parse_args()
    if args.quick:
        args.repeat, args.number = 1, 1
    run(args.repeat, args.number)
