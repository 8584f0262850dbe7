"""Compiled kernels from several threads, on minigrad's pool (kernels/cpu/workers.py).

    python benchmarks/bench_threads.py [--quick] [--repeat 3] [--variants pool,one]

A kernel's tasks are cut into one block per thread and run on minigrad's pool of Python
threads; while one thread's kernel has the pool, a kernel from another thread runs all of
its blocks on its own thread. Each variant runs in its own process:

- pool: minigrad as shipped, kernels and large products on every core;
- one:  `mg.set_num_threads(1)`: everything on the calling thread.

Timed, in ms per training step (forward, loss, backward, AdamW; bench_load.py's steps):

- one: one model trained on the main thread;
- two: two models trained in two threads at once, wall time / steps of each (to compare
  with one step after the other, 2 x "one").

And "call": microseconds to hand a block to a helper thread and wait for it (two empty
jobs through `workers.run_jobs`), and to run both on the calling thread (best of 5 turns
each): what cutting a kernel costs before any work is done.

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
VARIANTS = ("pool", "one")


def worker(variant, workloads, quick=False):
    """Run in a subprocess: build two copies of each training step (on bench_load.py's
    --quick batches if `quick`), warm them up, say "ready", then answer each request
    "MODE WORKLOAD SECONDS" from stdin."""
    from bench_load import training_step

    import minigrad as mg

    if variant == "one":
        mg.set_num_threads(1)
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
    """Microseconds per pair of empty jobs, through the pool (one on a helper thread) and
    both on this thread: the best of 5 turns each, taken alternately."""
    from minigrad.kernels.cpu import workers

    def nothing():
        pass

    jobs = [nothing, nothing]
    best = {"pool": float("inf"), "here": float("inf")}
    for _ in range(5):
        for name, call in (("pool", lambda: workers.run_jobs(jobs)), ("here", nothing)):
            n, start = 0, time.perf_counter()
            while n < 20 or time.perf_counter() - start < seconds / 10:
                call()
                if name == "here":
                    call()
                n += 1
            best[name] = min(best[name], 1e6 * (time.perf_counter() - start) / n)
    return f"{best['pool']} {best['here']}"


def variant_env(variant):
    """This environment without the kernels' thread setting (the variant sets its own)."""
    return {k: v for k, v in os.environ.items() if k != "NUMBA_NUM_THREADS"}


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
                    for i, value in enumerate(worker_.ask(mode, w, args.seconds)):
                        results.setdefault(
                            (worker_.variant, mode + ("-straight" if i else ""), w), []
                        ).append(value)
            print(f"round {r + 1} done", flush=True)
    finally:
        for worker_ in workers:
            worker_.close()

    print(f"\n{os.cpu_count()} cores; median (range) over {args.repeat} rounds")
    print("\nus per two empty jobs: one handed to a helper thread; both on this thread")
    for v in variants:
        print(
            f"  {v:8s} through the pool {span(results[v, 'call', '-'], '{:.2f}')}"
            f"   on this thread {span(results[v, 'call-straight', '-'], '{:.2f}')}"
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
                f"  {w:12s} {v:8s} {span(one):>22s} {span(two) if two else '-':>22s} {ratio:>16s}"
            )


if __name__ == "__main__":
    sys.exit(main())
