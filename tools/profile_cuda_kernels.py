"""Where the CUDA kernels' time goes, for the goals of issue #22 that a GPU run misses:
causal attention (4, 8, 512, 64) and the two poolings of `benchmarks/bench_cuda.py`, one
forward + backward each on CUDA tensors, minigrad's and then PyTorch's.

    python tools/profile_cuda_kernels.py --host     # the host's side: cProfile of 100 steps
    python tools/profile_cuda_kernels.py --parts    # each step's wall time against its host time
    ncu --clock-control none --profile-from-start off --section SpeedOfLight \\
        --section Occupancy --section LaunchStats python tools/profile_cuda_kernels.py

Under Nsight Compute (`ncu`), only the kernels launched between CuPy's profiler start and
stop are measured: each case runs once first (compiling, allocating), then once inside
the window, so ncu reports each kernel of one step (its duration, the share of the GPU's
compute and memory throughput it reached, its occupancy, registers and shared memory per
block), minigrad's kernels and PyTorch's side by side. `--host` says instead how much of a
step is Python around the launches (the poolings' kernels take microseconds), and
`--parts` how the wall time of a step compares with its host time alone (steps queued
without waiting for the GPU): where the two are close, the host decides the step, and a
faster kernel changes nothing. For attention it also times the kernel functions called
directly on CuPy arrays, and the array expressions around their launches. Needs an
NVIDIA GPU, CuPy and a CUDA build of PyTorch.
"""

import argparse
import cProfile
import pstats
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench_attention  # noqa: E402
import bench_cuda  # noqa: E402

CASES = {
    "attention": lambda: bench_cuda.attention_case((4, 8, 512, 64)),
    "max_pool2d": lambda: bench_cuda.pool_case("max_pool2d"),
    "avg_pool2d": lambda: bench_cuda.pool_case("avg_pool2d"),
}


def host_ms(step, sync, n=30):
    """The host's time per `step`: n steps queued without waiting for the GPU, timed until
    the last one is queued, divided by n."""
    step()
    sync()
    start = time.perf_counter()
    for _ in range(n):
        step()
    elapsed = time.perf_counter() - start
    sync()
    return 1e3 * elapsed / n


def attention_parts(shape=(4, 8, 512, 64)):
    """The kernel functions of causal attention at `shape` (B, H, T, d) on device arrays,
    and the array expressions around their launches: (label, step) pairs."""
    from minigrad.cuda import runtime
    from minigrad.kernels.cuda import attention
    from minigrad.kernels.cuda.attention_args import all_finite, saved_lse

    B, H, T, d = shape
    cupy = runtime.cupy()  # CuPy (or, for a check of this script, the simulated GPU's)
    inputs = bench_attention.make_inputs(*shape)
    q, k, v, g = (cupy.asarray(a.reshape(B * H, T, d)) for a in inputs)  # (B H, T, d)
    scale = d**-0.5
    out, lse = attention.attention_forward(q, k, v, scale, True, None)
    return [
        ("attention_forward", lambda: attention.attention_forward(q, k, v, scale, True, None)),
        (
            "attention_backward",
            lambda: attention.attention_backward(g, q, k, v, out, lse, scale, True, None),
        ),
        ("  its finiteness flag (5 sums)", lambda: all_finite(q, k, v, g, out)),
        ("  its saved lse", lambda: saved_lse(lse, q.dtype)),
        ("  its delta", lambda: (g * out).sum(axis=-1)),
    ]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", action="store_true", help="cProfile of 100 steps per case")
    parser.add_argument("--parts", action="store_true", help="wall time against host time")
    parser.add_argument("--cases", default=",".join(CASES), help="comma-separated")
    args = parser.parse_args()
    reason = bench_cuda.no_gpu_reason()
    if reason:
        sys.exit(f"profile_cuda_kernels.py: needs a GPU: {reason}")
    import cupy
    import torch

    import minigrad as mg

    def sync():
        mg.cuda.synchronize()
        torch.cuda.synchronize()

    if args.parts:
        print(f"{'step':52s} {'wall ms':>8s} {'host ms':>8s}")
        for name in args.cases.split(","):
            label, make_step = CASES[name]()
            steps = [(f"{label}, {f}", make_step(f)) for f in ("minigrad", "torch")]
            if name == "attention":
                steps += attention_parts()
            for what, step in steps:
                wall, host = bench_cuda.median_ms(step, 20, sync), host_ms(step, sync)
                print(f"{what:52s} {wall:8.3f} {host:8.3f}", flush=True)
        return
    for name in args.cases.split(","):
        label, make_step = CASES[name]()
        for framework in ("minigrad", "torch"):
            step = make_step(framework)
            step()  # compiling and allocating, outside the measured window
            sync()
            if args.host:
                profiler = cProfile.Profile()
                profiler.enable()
                for _ in range(100):
                    step()
                sync()
                profiler.disable()
                print(f"\n{label}, {framework}: cProfile of 100 forward + backward steps")
                pstats.Stats(profiler).strip_dirs().sort_stats("tottime").print_stats(12)
            else:
                print(f"{label}, {framework}: one step in ncu's window", flush=True)
                cupy.cuda.runtime.profilerStart()
                step()
                sync()
                cupy.cuda.runtime.profilerStop()


if __name__ == "__main__":
    main()
