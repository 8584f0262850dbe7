"""conv2d: minigrad's NumPy reference and Numba kernels against PyTorch, on the same machine.

For each case, forward and forward + backward (gradients of input, weight and bias) of
F.conv2d, through minigrad's autograd (what a model pays), as the median of several
runs, for

    reference   the NumPy reference kernels (mg.backends.use("numpy"))
    numba       the Numba CPU kernels (mg.backends.use("numba"))
    PyTorch     torch.nn.functional.conv2d, CPU

with the ratios numba / PyTorch and reference / numba, and the speed in GFLOP/s
(2 flops per multiply-add; forward + backward counts three convolutions' worth).
numba and PyTorch are timed alternately, in turns of a few calls (--block), so that both
see the same machine load.
The Numba compile time (the first call, with an empty cache) is measured separately,
in a fresh process with NUMBA_CACHE_DIR set to an empty folder, and so is the time to
load the compiled kernels from that cache.

    python benchmarks/bench_conv.py [--threads N] [--repeat R] [--block B] [--quick]
                                    [--no-compile-time]

Targets (forward + backward, numba / PyTorch): <= 1.5x on every case (issue #24; issue #4
had asked 2x of stride2 and depthwise), and numba faster than the reference. For a change
to the kernels, `bench_conv_versions.py` times two versions of them in one process.
"""

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# name: (N, C_in, C_out, H = W, kernel, stride, padding, groups)
CASES = {
    "lenet": (64, 1, 16, 28, 5, 1, 2, 1),
    "mid": (64, 16, 32, 14, 3, 1, 1, 1),
    "resnet": (32, 64, 64, 32, 3, 1, 1, 1),
    "stride2": (32, 64, 128, 32, 3, 2, 1, 1),
    "depthwise": (32, 64, 64, 32, 3, 1, 1, 64),
}
# issue #24: every case within 1.5x PyTorch (stride2 and depthwise had 2.0x before it)
TARGETS = dict.fromkeys(CASES, 1.5)
QUICK_BATCH = 2  # --quick: the same layers on 2 images


def flops(case):
    """Multiply-adds of one forward pass, times 2."""
    n, c, o, h, k, s, p, g = case
    out = (h + 2 * p - k) // s + 1
    return 2 * n * o * out * out * (c // g) * k * k


def _time_once(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def median_ms(fns, repeat, warmup=1, block=1, settle=0.0):
    """Median time in ms of each function over `repeat` counted calls. The functions take
    turns of `block` calls each; with block > 1 the first call of a turn is not counted.
    After each turn the process sleeps `settle` seconds.

    Why turns of several calls, and the sleep: after a PyTorch call its OpenMP threads go
    on spinning, waiting for more work (GNU OpenMP's default wait policy), and a minigrad
    call made then shares the cores with them. Call by call, that put a `mid` forward at
    6.6 ms where the same kernel takes 1.6-1.9 ms in a run of calls; and the spinning
    lasts longer than a turn of four calls: minigrad's calls were still 1.4x slower 12
    calls (15 ms) into their turn, and as fast as alone only 50-100 ms after PyTorch's
    last call (benchmarks/RESULTS.md). A training loop calls one framework only, so the
    steady state, a run of calls with the other framework's threads asleep, is what a
    model pays: the sleep lets them fall asleep (minigrad's helper threads block at once,
    PyTorch's after their spin), and the first call of a turn, which pays for waking
    them, is dropped, for both."""
    for fn in fns:
        for _ in range(warmup):
            fn()
    times = [[] for _ in fns]
    counted = block - 1 if block > 1 else 1
    for _ in range(-(-repeat // counted)):
        for t, fn in zip(times, fns):
            turn = [_time_once(fn) for _ in range(block)]
            t.extend(turn[1:] if block > 1 else turn)
            time.sleep(settle)
    return [statistics.median(t) * 1e3 for t in times]


def minigrad_runs(case, backend, seed=0):
    """(forward, forward + backward) closures for minigrad on `backend`."""
    import numpy as np

    import minigrad as mg
    import minigrad.nn.functional as F

    n, c, o, h, k, s, p, g = case
    rng = np.random.default_rng(seed)
    x = mg.tensor(rng.standard_normal((n, c, h, h), dtype=np.float32), requires_grad=True)
    w = mg.tensor(
        rng.standard_normal((o, c // g, k, k), dtype=np.float32) * 0.1, requires_grad=True
    )
    b = mg.tensor(rng.standard_normal(o, dtype=np.float32), requires_grad=True)

    def forward():
        with mg.backends.use(backend), mg.no_grad():
            F.conv2d(x, w, b, stride=s, padding=p, groups=g)

    def forward_backward():
        with mg.backends.use(backend):
            F.conv2d(x, w, b, stride=s, padding=p, groups=g).sum().backward()
        x.grad = w.grad = b.grad = None

    return forward, forward_backward


def torch_runs(case, seed=0):
    import numpy as np
    import torch

    n, c, o, h, k, s, p, g = case
    rng = np.random.default_rng(seed)
    x = torch.tensor(rng.standard_normal((n, c, h, h), dtype=np.float32), requires_grad=True)
    w = torch.tensor(
        rng.standard_normal((o, c // g, k, k), dtype=np.float32) * 0.1, requires_grad=True
    )
    b = torch.tensor(rng.standard_normal(o, dtype=np.float32), requires_grad=True)

    def forward():
        with torch.no_grad():
            torch.nn.functional.conv2d(x, w, b, stride=s, padding=p, groups=g)

    def forward_backward():
        torch.nn.functional.conv2d(x, w, b, stride=s, padding=p, groups=g).sum().backward()
        x.grad = w.grad = b.grad = None

    return forward, forward_backward


# what the compile-time process runs: every Numba conv kernel once, float32, both designs
_COMPILE_SCRIPT = """
import time
start = time.perf_counter()
import numpy as np
from minigrad.kernels.cpu import conv
imported = time.perf_counter()
for c, o in ((1, 1), (8, 8), (8, 32)):
    x, w = np.ones((1, c, 6, 6), np.float32), np.ones((o, c, 3, 3), np.float32)
    for s in ((1, 1), (2, 2)):
        y = conv.conv2d_forward(x, w, s, (1, 1), (1, 1), 1)
        conv.conv2d_backward_input(y, w, x.shape, s, (1, 1), (1, 1), 1)
        conv.conv2d_backward_weight(y, x, w.shape, s, (1, 1), (1, 1), 1)
print(imported - start, time.perf_counter() - imported)
"""


def compile_times():
    """(seconds for the first calls with an empty cache, seconds with the cache filled),
    each in a fresh process, with the import of NumPy and Numba left out."""
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache, "PYTHONPATH": str(ROOT)}
        results = []
        for _ in range(2):  # the first run compiles, the second loads what it stored
            out = subprocess.run(
                [sys.executable, "-c", _COMPILE_SCRIPT],
                env=env,
                capture_output=True,
                text=True,
                check=True,
            )
            results.append(float(out.stdout.split()[1]))
    return results


def run(case_names, batch, repeat, threads, measure_compile, out=print, block=4, settle=0.1):
    """Time every case; print a table and return the rows as dicts."""
    import numba
    import numpy as np
    import torch

    torch.set_num_threads(threads)
    import minigrad as mg

    mg.set_num_threads(threads)  # the kernels and the large products
    out(
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores; Python "
        f"{platform.python_version()}, NumPy {np.__version__}, Numba {numba.__version__}, torch "
        f"{torch.__version__}; {threads} threads (PyTorch and Numba), float32, {repeat} runs per "
        f"median, numba and PyTorch in turns of {block} calls (the first of each not counted), "
        f"{settle:g} s apart"
    )
    if measure_compile:
        cold, cached = compile_times()
        out(
            f"Numba compile time, all conv kernels (first calls, empty cache): {cold:.1f} s; from "
            f"the cache: {cached * 1e3:.0f} ms"
        )
    header = (
        f"{'case':10s} {'pass':8s} {'reference':>10s} {'numba':>9s} {'PyTorch':>9s} "
        f"{'ratio numba/PyTorch':>20s} {'target':>7s} {'ref/numba':>10s} {'numba GFLOP/s':>14s} "
        f"{'PyTorch GFLOP/s':>16s}"
    )
    out(header)
    rows = []
    for name in case_names:
        case = CASES[name]
        if batch is not None:
            case = (batch,) + case[1:]
        ref_runs, numba_runs, th_runs = (
            minigrad_runs(case, "numpy"),
            minigrad_runs(case, "numba"),
            torch_runs(case),
        )
        for i, label in enumerate(("fwd", "fwd+bwd")):
            work = flops(case) * (1 if i == 0 else 3) / 1e9
            # the reference alone (OpenBLAS's threads spin after its products, too)
            t_ref = median_ms([ref_runs[i]], max(2, repeat // 4), settle=settle)[0]
            pair = [numba_runs[i], th_runs[i]]
            t_numba, t_torch = median_ms(pair, repeat, block=block, settle=settle)
            row = dict(case=name, pass_=label, reference=t_ref, numba=t_numba, torch=t_torch)
            target = TARGETS[name] if i == 1 else None
            out(
                f"{name:10s} {label:8s} {t_ref:8.2f}ms {t_numba:7.2f}ms {t_torch:7.2f}ms "
                f"{t_numba / t_torch:19.2f}x {(f'{target:.1f}x' if target else ''):>7s} "
                f"{t_ref / t_numba:9.1f}x {work / t_numba * 1e3:14.0f} {work / t_torch * 1e3:16.0f}"
            )
            rows.append(row)
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=21)
    parser.add_argument("--cases", nargs="*", default=list(CASES), choices=list(CASES))
    parser.add_argument(
        "--quick", action="store_true", help=f"a smoke test: batch {QUICK_BATCH}, 2 runs"
    )
    parser.add_argument(
        "--no-compile-time", action="store_true", help="skip the compile-time processes"
    )
    parser.add_argument(
        "--block",
        type=int,
        default=4,
        help="calls per turn, numba and PyTorch taking turns; the first of each turn is "
        "not counted (1: call by call, every call counted)",
    )
    parser.add_argument(
        "--settle",
        type=float,
        default=None,
        help="seconds of sleep after each turn, for the other framework's spinning threads "
        "to fall asleep (0: none; default 0.1, and 0 with --quick, which only shows that "
        "the script runs)",
    )
    args = parser.parse_args(argv)
    # NumPy's BLAS (the reference's matrix products) reads this when NumPy is imported
    os.environ.setdefault("OPENBLAS_NUM_THREADS", str(args.threads))
    batch, repeat = (QUICK_BATCH, 2) if args.quick else (None, args.repeat)
    settle = args.settle if args.settle is not None else (0.0 if args.quick else 0.1)
    measure_compile = not args.no_compile_time
    return run(
        args.cases,
        batch,
        repeat,
        args.threads,
        measure_compile,
        block=args.block,
        settle=settle,
    )


if __name__ == "__main__":
    main()
