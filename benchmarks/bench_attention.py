"""Causal attention: minigrad's NumPy reference and Numba backends against PyTorch (CPU).

    python benchmarks/bench_attention.py [--quick] [--threads N] [--no-memory] [--omp-passive]

For each case, F.scaled_dot_product_attention(q, k, v, is_causal=True) on float32
(B, H, T, d) inputs, forward alone (no graph) and forward + backward, all in one run and
one process: the median time of each framework (they take turns, so that load from
elsewhere on a shared machine hits them alike), the ratio numba / PyTorch, the speed-up
of numba over the reference, and GFLOP/s. FLOPs count the useful work of a causal
attention: T (T + 1) / 2 visible (query, key) pairs per head, 4 d FLOPs per pair for the
forward (q k^T and P v) and 2.5 times that for the backward (5 products instead of 2,
the usual convention for FlashAttention-style kernels, which recompute the scores).

PyTorch's OpenMP threads keep spinning for a while after each of its calls (GNU OpenMP's
default wait policy), on the cores that the next call, minigrad's, needs: on 2 cores the
short cases' first calls after a PyTorch turn ran 2-3x slower for it (benchmarks/RESULTS.md).
`--omp-passive` sets OMP_WAIT_POLICY=PASSIVE before PyTorch is imported, so that its idle
threads sleep at once: each framework is then timed without the other's leftovers (PyTorch's
own calls ran as fast or faster so). The default keeps PyTorch's default.

Numba's compile time is measured separately, in a subprocess with an empty, fresh
NUMBA_CACHE_DIR, so it is a cold compile (every later process loads the cache in ms).

Peak extra memory of forward + backward at T = 4096 (B 1, H 8, d 64, float32): one
(H, T, T) float32 matrix is 512 MiB, and the reference holds about four at its peak.
Each framework runs in its own subprocess, which makes its inputs, runs a small warm-up
call (so that compiling, loading kernels and starting thread pools is not counted), and
then reports its peak resident memory during the run (VmHWM, reset just before it
through /proc/self/clear_refs) minus its resident memory just before: the same yardstick
for NumPy, Numba and PyTorch, which allocate through different allocators. For minigrad
it also reports tracemalloc's peak, which counts exactly the NumPy arrays allocated
during the run (not Numba's small per-thread tiles, about 100 KiB per thread).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

# (B, H, T, d); the first two are the small transformers' (benchmarks/bench_transformer.py:
# baby GPT, encoder), on the short-sequence kernel (kernels/cpu/attention_short.py)
CASES = [(12, 4, 64, 32), (32, 4, 64, 32), (8, 4, 128, 32), (4, 8, 512, 64), (1, 8, 2048, 64)]
# issue #24: forward + backward within 1.5x PyTorch at every length (the target once held
# for T = 512 and 2048 only)
TARGET = 1.5
MEMORY_CASE = (1, 8, 4096, 64)


def interleaved_median_ms(fns, repeat):
    """{name: median ms} of the functions `fns` ({name: fn}), timed in turns (a, b, c,
    a, b, c, ...) so that a burst of load from elsewhere on a shared machine hits them
    all alike. Each turn first runs its function once untimed: the thread pools of the
    previous framework (OpenBLAS, PyTorch's OpenMP) keep spinning for a moment after
    they finish, and measured this way nobody pays for the one that ran before."""
    for fn in fns.values():
        fn()  # warm-up: compiles or loads Numba kernels, fills caches
    times = {name: [] for name in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            fn()
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    return {name: 1e3 * statistics.median(t) for name, t in times.items()}


def causal_flops(B, H, T, d):
    """Useful FLOPs of causal attention: (forward, forward + backward)."""
    forward = 4.0 * d * B * H * T * (T + 1) / 2
    return forward, 3.5 * forward


def make_inputs(B, H, T, d, seed=0):
    import numpy as np

    rng = np.random.default_rng(seed)
    return [rng.standard_normal((B, H, T, d), dtype=np.float32) for _ in range(4)]  # q, k, v, dout


def minigrad_runners(arrays):
    """(forward, forward + backward) closures on minigrad tensors; the backend is chosen
    by the caller with mg.backends.use."""
    import minigrad as mg
    import minigrad.nn.functional as F

    q, k, v = (mg.tensor(a, requires_grad=True) for a in arrays[:3])
    grad = mg.tensor(arrays[3])

    def forward():
        with mg.no_grad():
            F.scaled_dot_product_attention(q, k, v, is_causal=True)

    def forward_backward():
        F.scaled_dot_product_attention(q, k, v, is_causal=True).backward(grad)
        q.grad = k.grad = v.grad = None

    return forward, forward_backward


def torch_runners(arrays):
    import torch

    q, k, v = (torch.from_numpy(a).requires_grad_() for a in arrays[:3])
    grad = torch.from_numpy(arrays[3])

    def forward():
        with torch.no_grad():
            torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)

    def forward_backward():
        torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True).backward(grad)
        q.grad = k.grad = v.grad = None

    return forward, forward_backward


def time_case(case, repeat, frameworks=("numpy", "numba", "torch"), passes=(0, 1)):
    """{framework: (forward ms, forward + backward ms)} for one (B, H, T, d); `passes`
    (0: forward, 1: forward + backward) says which to time, the other is None."""
    arrays = make_inputs(*case)
    runners = {}
    for name in frameworks:
        if name == "torch":
            runners[name] = torch_runners(arrays)
        else:
            forward, forward_backward = minigrad_runners(arrays)
            runners[name] = (_on_backend(name, forward), _on_backend(name, forward_backward))
    results = {name: [None, None] for name in frameworks}
    for i in passes:
        fns = {name: pair[i] for name, pair in runners.items()}
        # The reference runs on its own (fewer turns when slow): OpenBLAS's threads keep
        # spinning for a while after each matrix product, and would slow down the others.
        reference = {"numpy": fns.pop("numpy")} if "numpy" in fns else {}
        reps = max(1, repeat // 5) if case[2] >= 2048 else repeat
        for part, n in ((reference, reps), (fns, repeat)):
            for name, ms in (interleaved_median_ms(part, n) if part else {}).items():
                results[name][i] = ms
            time.sleep(0.3)  # let the spinning threads go to sleep
    return {name: tuple(r) for name, r in results.items()}


def _on_backend(backend, fn):
    import minigrad as mg

    def run():
        with mg.backends.use(backend):
            fn()

    return run


# ---- Numba compile time, in a fresh process with an empty cache ------------------------------
COMPILE_SNIPPET = """
import time
t0 = time.perf_counter()
import numpy as np
from minigrad.kernels.cpu import attention as cpu
t1 = time.perf_counter()
q = np.ones((1, 3, 2), dtype=np.float32)
out, lse = cpu.attention_forward(q, q, q, 1.0, True, None)
t2 = time.perf_counter()
cpu.attention_backward(out, q, q, q, out, lse, 1.0, True, None)
t3 = time.perf_counter()
print(t2 - t1, t3 - t2)
"""


def compile_seconds():
    """(forward, backward) seconds of the first call in a process with an empty cache."""
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        out = subprocess.run(
            [sys.executable, "-c", COMPILE_SNIPPET], env=env, capture_output=True, text=True
        )
        if out.returncode != 0:
            raise RuntimeError(out.stderr)
        return tuple(float(x) for x in out.stdout.split())


# ---- peak memory, each framework in its own process ----------------------------------------------
def _status_bytes(field):
    """A memory field of /proc/self/status (Linux), in bytes."""
    with open("/proc/self/status") as status:
        return 1024 * next(int(line.split()[1]) for line in status if line.startswith(field + ":"))


def _reset_peak_rss():
    """Make the kernel's record of this process's peak resident memory (VmHWM) start again
    from the current value, so that the peak of one run can be read afterwards."""
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")


def _release_free_memory():
    """Hand memory that malloc keeps for reuse back to the system (glibc), so that the
    resident size before a run counts only what is in use."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc: the measurement is only less tight
        pass


def memory_child(framework, cases):
    """Run in a subprocess: peak extra memory of one forward + backward for each case,
    smallest first, printed as a JSON list."""
    import gc
    import tracemalloc

    small = make_inputs(1, 2, 64, cases[0][3], seed=1)
    if framework == "torch":
        import torch

        torch.set_num_threads(int(os.environ.get("BENCH_THREADS", "2")))
        make_runners = torch_runners
    else:
        import minigrad as mg

        mg.backends.use(framework)
        make_runners = minigrad_runners
    make_runners(small)[1]()  # warm-up: load the compiled kernels, start the thread pools
    results = []
    for case in cases:
        _, run = make_runners(make_inputs(*case))
        gc.collect()
        _release_free_memory()
        _reset_peak_rss()
        before = _status_bytes("VmRSS")
        tracemalloc.start()
        run()
        traced = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        result = {"rss": _status_bytes("VmHWM") - before}
        if framework != "torch":
            result["tracemalloc"] = traced
        results.append(result)
        del run
    print(json.dumps(results))


def peak_memory(framework, threads, cases=(MEMORY_CASE,)):
    """[{'rss': bytes, 'tracemalloc': bytes (minigrad only)}, ...]: one forward + backward
    of `framework` ('numpy', 'numba' or 'torch') for each case, in one fresh process."""
    env = {**os.environ, "BENCH_THREADS": str(threads)}
    command = [sys.executable, os.path.abspath(__file__), "--memory-child", framework]
    cases = ";".join(",".join(map(str, case)) for case in cases)
    out = subprocess.run(
        command + ["--memory-cases", cases], env=env, capture_output=True, text=True
    )
    if out.returncode != 0:
        raise RuntimeError(out.stderr)
    return json.loads(out.stdout.strip().splitlines()[-1])


# ---- the report ----------------------------------------------------------------------------------
def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="small cases, few repeats, no compile or memory runs"
    )
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument(
        "--no-memory", action="store_true", help="skip the T = 4096 memory measurement"
    )
    parser.add_argument(
        "--omp-passive",
        action="store_true",
        help="OMP_WAIT_POLICY=PASSIVE for PyTorch's threads (see the docstring)",
    )
    parser.add_argument("--memory-child", help=argparse.SUPPRESS)
    parser.add_argument("--memory-cases", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.memory_child:
        cases = [tuple(int(x) for x in case.split(",")) for case in args.memory_cases.split(";")]
        return memory_child(args.memory_child, cases)

    if args.omp_passive:  # read once, when PyTorch loads its OpenMP library
        os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
    import numba
    import numpy as np
    import torch

    torch.set_num_threads(args.threads)
    import minigrad as mg

    mg.set_num_threads(args.threads)  # the kernels and the large products
    print(
        f"causal scaled_dot_product_attention, float32, {args.threads} threads; NumPy "
        f"{np.__version__}, Numba {numba.__version__}, PyTorch {torch.__version__}; "
        f"OMP_WAIT_POLICY={os.environ.get('OMP_WAIT_POLICY', 'unset')}"
    )
    repeat = 3 if args.quick else 15
    cases = [(2, 2, 64, 16), (1, 2, 128, 32)] if args.quick else CASES
    all_results = {}
    for case in cases:
        B, H, T, d = case
        results = time_case(case, repeat)
        all_results[case] = results
        flops = causal_flops(*case)
        print(
            f"\nB{B} H{H} T{T} d{d}        reference      numba    PyTorch   numba/PyTorch  "
            "numba/reference  GFLOP/s numba  PyTorch"
        )
        for i, label in enumerate(("forward", "fwd+bwd")):
            ref, nb, pt = results["numpy"][i], results["numba"][i], results["torch"][i]
            ratio = nb / pt
            verdict = ""
            if i == 1:
                verdict = f"  target <= {TARGET}x: {'met' if ratio <= TARGET else 'MISSED'}"
            print(
                f"  {label:14s} {ref:9.2f} ms {nb:8.2f} ms {pt:8.2f} ms {ratio:12.2f}x "
                f"{ref / nb:14.1f}x {flops[i] / nb / 1e6:12.1f} {flops[i] / pt / 1e6:8.1f}{verdict}"
            )

    if not args.quick:  # a cold compile takes tens of seconds: not for a smoke test
        fwd_s, bwd_s = compile_seconds()
        print(
            f"\nNumba compile time, cold cache (float32): forward {fwd_s:.1f} s, backward "
            f"{bwd_s:.1f} s"
        )
        all_results["compile"] = (fwd_s, bwd_s)

    if not args.no_memory and not args.quick:
        B, H, T, d = MEMORY_CASE
        square = H * T * T * 4
        print(
            f"\nPeak extra memory, forward + backward, B{B} H{H} T{T} d{d} (one (H, T, T) float32 "
            f"matrix: {square / 2**20:.0f} MiB)"
        )
        memory = {name: peak_memory(name, args.threads)[0] for name in ("numba", "torch", "numpy")}
        for name, label in (("numpy", "reference"), ("numba", "numba"), ("torch", "PyTorch")):
            m = memory[name]
            traced = (
                f", tracemalloc {m['tracemalloc'] / 2**20:8.1f} MiB" if "tracemalloc" in m else ""
            )
            print(f"  {label:10s} peak RSS growth {m['rss'] / 2**20:8.1f} MiB{traced}")
        ratio = memory["numba"]["rss"] / max(memory["torch"]["rss"], 1)
        print(f"  numba / PyTorch {ratio:.2f}x (target <= 2x: {'met' if ratio <= 2 else 'MISSED'})")
        all_results["memory"] = memory
    return all_results


if __name__ == "__main__":
    main()
