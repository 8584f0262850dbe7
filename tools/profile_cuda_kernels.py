"""Where the CUDA kernels' time goes, for the goals of issue #22 that a GPU run misses:
causal attention (4, 8, 512, 64) and the two poolings of `benchmarks/bench_cuda.py`, one
forward + backward each on CUDA tensors, minigrad's and then PyTorch's.

    python tools/profile_cuda_kernels.py --host     # the host's side: cProfile of 100 steps
    ncu --clock-control none --profile-from-start off --section SpeedOfLight \\
        --section Occupancy --section LaunchStats python tools/profile_cuda_kernels.py

Under Nsight Compute (`ncu`), only the kernels launched between CuPy's profiler start and
stop are measured: each case runs once first (compiling, allocating), then once inside
the window, so ncu reports each kernel of one step (its duration, the share of the GPU's
compute and memory throughput it reached, its occupancy, registers and shared memory per
block), minigrad's kernels and PyTorch's side by side. `--host` says instead how much of a
step is Python around the launches (the poolings' kernels take microseconds). Needs an
NVIDIA GPU, CuPy and a CUDA build of PyTorch.
"""

import argparse
import cProfile
import pstats
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench_cuda  # noqa: E402

CASES = {
    "attention": lambda: bench_cuda.attention_case((4, 8, 512, 64)),
    "max_pool2d": lambda: bench_cuda.pool_case("max_pool2d"),
    "avg_pool2d": lambda: bench_cuda.pool_case("avg_pool2d"),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", action="store_true", help="cProfile of 100 steps per case")
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
