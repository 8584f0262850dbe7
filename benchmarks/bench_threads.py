"""Compiled kernels from several threads: what the lock that makes them safe costs.

    python benchmarks/bench_threads.py [--quick] [--repeat 3] [--variants lock,nolock,omp]

Numba's `workqueue` pool aborts the process when two threads launch parallel kernels at
once, so minigrad calls each one under a lock (`minigrad.kernels.jit.ParallelKernel`).
The other way out is a threading layer that is thread-safe itself: `omp` (GNU OpenMP,
whose threads spin and which is not fork-safe) or `tbb` (a pip package minigrad does
not depend on). Each variant runs in its own process:

- lock:   minigrad as shipped, the workqueue layer and the lock;
- nolock: the workqueue layer without the lock, as before it (one thread only: two crash);
- omp:    NUMBA_THREADING_LAYER=omp, without the lock.

Timed, in ms per training step (forward, loss, backward, AdamW; bench_load.py's steps):

- one: one model trained on the main thread (what the lock costs a program that never
  uses threads);
- two: two models trained in two threads at once, wall time / steps of each (to compare
  with one step after the other, 2 x "one").

And "call": microseconds per call of a small parallel kernel (max pooling of a 2 x 3 x 8 x 8
batch) through the lock, and straight to Numba's dispatcher (best of 5 turns each).

The variants take turns (A B C C B A ...) so that load from elsewhere falls on all alike;
median (range) over --repeat rounds. --quick checks that the script runs, in seconds: one
round of short timings, on bench_load.py's smaller --quick batches.
"""

import argparse
import os
import statistics
import subprocess
import sys
import threading
import time

WORKLOADS = ("lenet", "transformer")
VARIANTS = ("lock", "nolock", "omp")


def worker(variant, workloads, quick=False):
    """Run in a subprocess: build two copies of each training step (on bench_load.py's
    --quick batches if `quick`), warm them up, say "ready", then answer each request
    "MODE WORKLOAD SECONDS" from stdin."""
    import contextlib

    from bench_load import training_step

    from minigrad.kernels import jit

    if variant != "lock":
        jit.parallel_kernel_lock = contextlib.nullcontext()  # read at every call
    steps = {
        w: (training_step("minigrad", w, quick), training_step("minigrad", w, quick))
        for w in workloads
    }
    for pair in steps.values():
        for step in pair:
            step(), step()
    print("ready", flush=True)
    for line in sys.stdin:
        mode, workload, seconds = line.split()
        if mode == "call":
            print(us_per_call(float(seconds)), flush=True)
        elif mode == "one":
            print(ms_per_step(steps[workload][0], float(seconds)), flush=True)
        else:
            print(ms_per_step_side_by_side(steps[workload], float(seconds)), flush=True)


def ms_per_step(step, seconds):
    n, start = 0, time.perf_counter()
    while n == 0 or time.perf_counter() - start < seconds:
        step()
        n += 1
    return 1e3 * (time.perf_counter() - start) / n


def ms_per_step_side_by_side(pair, seconds):
    """The two steps in two threads, n steps each (as many as one step alone takes about
    `seconds` for, twice over): wall time / n."""
    n = max(2, int(seconds / ms_per_step(pair[0], 0) * 1e3 / 2))
    threads = [
        threading.Thread(target=lambda step=step: [step() for _ in range(n)]) for step in pair
    ]
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return 1e3 * (time.perf_counter() - start) / n


def us_per_call(seconds):
    """Microseconds per call of a small parallel kernel, through the lock and straight to
    the dispatcher: the best of 5 turns each, taken alternately."""
    import numpy as np

    from minigrad.kernels.cpu import pool

    x = np.random.default_rng(0).standard_normal((6, 8, 8)).astype(np.float32)
    y, idx = np.empty((6, 4, 4), np.float32), np.empty((6, 4, 4), np.int64)
    args = (x, 2, 2, 2, 2, 0, 0, 1, 1, y, idx)
    kernel = pool._max_pool2d_planes
    best = {"lock": float("inf"), "straight": float("inf")}
    for _ in range(5):
        for name, call in (("lock", kernel), ("straight", kernel.dispatcher)):
            n, start = 0, time.perf_counter()
            while n < 20 or time.perf_counter() - start < seconds / 10:
                call(*args)
                n += 1
            best[name] = min(best[name], 1e6 * (time.perf_counter() - start) / n)
    return f"{best['lock']} {best['straight']}"


def variant_env(variant):
    """This environment without Numba's thread settings, plus the variant's own."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("NUMBA_NUM_THREADS", "NUMBA_THREADING_LAYER")
    }
    if variant == "omp":
        env["NUMBA_THREADING_LAYER"] = "omp"
    return env


class Worker:
    """A subprocess holding one variant's warmed-up training steps."""

    def __init__(self, variant, workloads, quick=False):
        self.variant = variant
        cmd = [sys.executable, __file__, "--worker", variant, "--workloads", ",".join(workloads)]
        cmd += ["--quick"] if quick else []
        self.proc = subprocess.Popen(
            cmd, env=variant_env(variant), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        if self.proc.stdout.readline().strip() != "ready":
            raise RuntimeError(
                f"bench_threads: the {variant} worker failed to start (its error is above)"
            )

    def ask(self, mode, workload, seconds):
        self.proc.stdin.write(f"{mode} {workload} {seconds}\n")
        self.proc.stdin.flush()
        return [float(v) for v in self.proc.stdout.readline().split()]

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def span(values, fmt="{:.1f}"):
    """'median (lo–hi)' of `values`."""
    mid, lo, hi = (fmt.format(x) for x in (statistics.median(values), min(values), max(values)))
    return mid if lo == hi else f"{mid} ({lo}–{hi})"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="one short round: checks that the script runs"
    )
    parser.add_argument("--repeat", type=int, default=3, help="rounds (default: 3)")
    parser.add_argument(
        "--seconds", type=float, default=2.0, help="length of one timing (default: 2)"
    )
    parser.add_argument(
        "--workloads", default=",".join(WORKLOADS), help=f"comma-separated, from {WORKLOADS}"
    )
    parser.add_argument(
        "--variants", default=",".join(VARIANTS), help=f"comma-separated, from {VARIANTS}"
    )
    parser.add_argument("--worker", choices=VARIANTS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    workloads = args.workloads.split(",")
    if args.worker:
        return worker(args.worker, workloads, args.quick)
    if args.quick:
        args.repeat, args.seconds = 1, 0.05
    variants = args.variants.split(",")

    workers = [Worker(v, workloads, args.quick) for v in variants]
    # results[variant, mode, workload] = one number per round
    results = {}
    try:
        for r in range(args.repeat):
            for t, (mode, w) in enumerate(
                [("call", "-")] + [(m, w) for w in workloads for m in ("one", "two")]
            ):
                for worker_ in workers if (r + t) % 2 == 0 else workers[::-1]:
                    if mode == "two" and worker_.variant == "nolock":
                        continue  # it would abort the worker: the crash this lock prevents
                    for i, value in enumerate(worker_.ask(mode, w, args.seconds)):
                        results.setdefault(
                            (worker_.variant, mode + ("-straight" if i else ""), w), []
                        ).append(value)
            print(f"round {r + 1} done", flush=True)
    finally:
        for worker_ in workers:
            worker_.close()

    print(f"\n{os.cpu_count()} cores; median (range) over {args.repeat} rounds")
    print("\nus per call of a small parallel kernel (max pooling, 2 x 3 x 8 x 8)")
    for v in variants:
        print(
            f"  {v:8s} through the lock {span(results[v, 'call', '-'], '{:.2f}')}"
            f"   straight to Numba {span(results[v, 'call-straight', '-'], '{:.2f}')}"
        )
    print(
        "\nms per training step: one model on the main thread; two models in two threads (wall / "
        "steps)"
    )
    print(f"  {'workload':12s} {'variant':8s} {'one':>22s} {'two':>22s} {'two / (2 x one)':>16s}")
    for w in workloads:
        for v in variants:
            one = results[v, "one", w]
            two = results.get((v, "two", w))
            ratio = f"{statistics.median(two) / (2 * statistics.median(one)):.2f}" if two else "-"
            print(
                f"  {w:12s} {v:8s} {span(one):>22s} {span(two) if two else 'crashes':>22s} "
                f"{ratio:>16s}"
            )


if __name__ == "__main__":
    sys.exit(main())
