"""The CUDA kernels on CUDA tensors: convolution, pooling and causal attention, forward +
backward through minigrad's autograd, against PyTorch CUDA, in one process on one GPU.

    python benchmarks/bench_cuda.py [--repeat R] [--quick] [--only conv,pool,attention]
                                    [--impl im2col|direct|both]
                                    [--attention blocked|lanes|both]

The tensors live on the GPU (`mg.tensor(..., device="cuda")`, CuPy arrays underneath),
as PyTorch's do: a step copies nothing between host and device. The clock is read after
`mg.cuda.synchronize()` / `torch.cuda.synchronize()`, so a time includes all the GPU work
queued by the step. Each case prints its first call apart (in this process: compiling
the kernels, CuPy's element-wise kernels and cuBLAS's handles), then the median of
`--repeat` steps after one warm-up step, PyTorch CUDA's median, the ratio, and the goal of
issue #22 for the case (causal attention at (4, 8, 512, 64) and (1, 8, 2048, 64) within
4x PyTorch CUDA, the five convolutions within 5x, pooling within 3x).

Convolution has two CUDA implementations: `im2col` (minigrad/kernels/cuda/conv.py:
im2col and col2im kernels, products on cuBLAS; what the backends use) and `direct`
(minigrad/kernels/cuda/conv_direct.py: the naive kernels of the lesson). `--impl both`
(the default) times each, one row apiece; the goals are judged on `im2col`. Attention
has two tiled implementations: `blocked` (minigrad/kernels/cuda/attention.py: a block of
scores per thread; what the backends use) and `lanes` (minigrad/kernels/cuda/
attention_lanes.py: a few threads per row, one score at a time); `--attention both` (the
default) times each, and the goals are judged on `blocked`.

Needs an NVIDIA GPU that both CuPy (CUDA tensors) and Numba (the kernels) can use; for
the comparison, a PyTorch built with CUDA. Without a GPU it stops and says so: there is
nothing to time on the simulator (it runs every GPU thread as Python).
"""

import argparse
import contextlib
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_attention  # noqa: E402
import bench_conv  # noqa: E402

POOL_SHAPE = (64, 32, 28, 28)
ATTENTION_CASES = [(8, 4, 128, 32), (4, 8, 512, 64), (1, 8, 2048, 64), (8, 8, 1024, 64)]
CONV_CASES = ["lenet", "mid", "resnet", "stride2", "depthwise"]
IMPLS = {  # (family, implementation) -> the module CUDA tensors' ops call
    ("conv", "im2col"): "minigrad.kernels.cuda.conv",
    ("conv", "direct"): "minigrad.kernels.cuda.conv_direct",
    ("attention", "blocked"): "minigrad.kernels.cuda.attention",
    ("attention", "lanes"): "minigrad.kernels.cuda.attention_lanes",
}
JUDGED = {"conv": "im2col", "attention": "blocked"}  # the implementations the backends use
# issue #22's goals: minigrad CUDA / PyTorch CUDA at most this, on these cases
GOALS = {"conv": 5.0, "pool": 3.0, "attention": 4.0}
ATTENTION_GOAL_CASES = [(4, 8, 512, 64), (1, 8, 2048, 64)]


def no_gpu_reason():
    """Why this machine cannot run the benchmark (None when it can)."""
    import numba
    from numba import cuda

    from minigrad.cuda import runtime

    if numba.config.ENABLE_CUDASIM:
        return "Numba's CUDA simulator is on (NUMBA_ENABLE_CUDASIM=1)"
    if runtime.cupy() is None or runtime.simulated():
        return "CUDA tensors need CuPy and an NVIDIA GPU (none found, or only the simulated GPU)"
    if not cuda.is_available():
        return "numba.cuda.is_available() is False"
    return None


def median_ms(step, repeat, sync):
    """Median wall time of `step` in ms over `repeat` runs after one warm-up run, the clock
    read after `sync()` (which waits for the queued GPU work)."""
    step()
    sync()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        step()
        sync()
        times.append(time.perf_counter() - start)
    return 1e3 * statistics.median(times)


def first_call_s(step, sync):
    start = time.perf_counter()
    step()
    sync()
    return time.perf_counter() - start


@contextlib.contextmanager
def implementation(family, name):
    """Inside the block, CUDA tensors' `family` ops run the `name` implementation (None:
    the backends' own)."""
    from minigrad import backends

    before = backends._CUDA[family]
    if name is not None:
        backends._CUDA[family] = IMPLS[family, name]
    try:
        yield
    finally:
        backends._CUDA[family] = before


# ---- the cases: the same numbers as CUDA tensors of minigrad and of PyTorch ---------------
# Each returns (label, make_step): make_step(framework) -> a step function.
def conv_case(name):
    n, c, o, h, k, s, p, g = bench_conv.CASES[name]
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, c, h, h), dtype=np.float32)
    w = rng.standard_normal((o, c // g, k, k), dtype=np.float32) * np.float32(0.1)
    b = rng.standard_normal(o, dtype=np.float32)

    def make_step(framework):
        mod, F = _framework(framework)
        xt, wt, bt = (mod.tensor(a, device="cuda", requires_grad=True) for a in (x, w, b))

        def step():
            F.conv2d(xt, wt, bt, stride=s, padding=p, groups=g).sum().backward()
            xt.grad = wt.grad = bt.grad = None

        return step

    return f"conv {name} {x.shape}*{w.shape}", make_step


def pool_case(kind):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(POOL_SHAPE, dtype=np.float32)
    gy = rng.standard_normal((*POOL_SHAPE[:2], POOL_SHAPE[2] // 2, POOL_SHAPE[3] // 2))
    gy = gy.astype(np.float32)

    def make_step(framework):
        mod, F = _framework(framework)
        xt = mod.tensor(x, device="cuda", requires_grad=True)
        gt = mod.tensor(gy, device="cuda")

        def step():
            getattr(F, kind)(xt, 2).backward(gt)
            xt.grad = None

        return step

    return f"{kind} {POOL_SHAPE}", make_step


def attention_case(shape):
    q, k, v, dout = bench_attention.make_inputs(*shape)

    def make_step(framework):
        mod, F = _framework(framework)
        qt, kt, vt = (mod.tensor(a, device="cuda", requires_grad=True) for a in (q, k, v))
        gt = mod.tensor(dout, device="cuda")

        def step():
            F.scaled_dot_product_attention(qt, kt, vt, is_causal=True).backward(gt)
            qt.grad = kt.grad = vt.grad = None

        return step

    return f"attention (B,H,T,d)={shape}", make_step


def _framework(name):
    """(module, its functional module) of minigrad or torch."""
    if name == "torch":
        import torch

        return torch, torch.nn.functional
    import minigrad as mg
    import minigrad.nn.functional as F

    return mg, F


def cases(families, quick):
    """(family, goal or None, make_case) for each case to time."""
    if "conv" in families:
        for name in CONV_CASES[:2] if quick else CONV_CASES:
            yield "conv", GOALS["conv"], lambda name=name: conv_case(name)
    if "pool" in families:
        for kind in ("max_pool2d", "avg_pool2d"):
            yield "pool", GOALS["pool"], lambda kind=kind: pool_case(kind)
    if "attention" in families:
        for shape in ATTENTION_CASES[:2] if quick else ATTENTION_CASES:
            goal = GOALS["attention"] if shape in ATTENTION_GOAL_CASES else None
            yield "attention", goal, lambda shape=shape: attention_case(shape)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--quick", action="store_true", help="two cases per family, 3 runs each")
    parser.add_argument("--only", default="conv,pool,attention", help="comma-separated families")
    parser.add_argument(
        "--impl", choices=["im2col", "direct", "both"], default="both", help="convolution kernels"
    )
    parser.add_argument(
        "--attention", choices=["blocked", "lanes", "both"], default="both", help="attention"
    )
    args = parser.parse_args(argv)
    repeat = 3 if args.quick else args.repeat
    impls = {
        "conv": ["im2col", "direct"] if args.impl == "both" else [args.impl],
        "attention": ["blocked", "lanes"] if args.attention == "both" else [args.attention],
        "pool": [None],
    }

    reason = no_gpu_reason()
    if reason:
        raise SystemExit(f"bench_cuda: no CUDA GPU here ({reason}); nothing to time")

    import numba
    from numba import cuda

    import minigrad as mg
    from minigrad.cuda import runtime

    try:
        import torch

        torch_cuda = torch.cuda.is_available()
    except ImportError:
        torch, torch_cuda = None, False
    gpu = cuda.get_current_device()
    name = gpu.name.decode() if isinstance(gpu.name, bytes) else gpu.name
    cupy = runtime.cupy()
    print(
        f"GPU: {name} (compute capability {'.'.join(map(str, gpu.compute_capability))}); "
        f"CPU: {platform.machine()}, {os.cpu_count()} cores; Python "
        f"{platform.python_version()}, NumPy {np.__version__}, CuPy {cupy.__version__}, "
        f"Numba {numba.__version__}, torch {torch.__version__ if torch else '-'}"
    )
    print(
        f"CUDA tensors, float32, forward + backward; median of {repeat} steps after a warm-up, "
        "ms; 'first' is the first call in this process (compiling), s\n"
    )
    if not torch_cuda:
        print("PyTorch CUDA: not available here; the ratios and goals are left out\n")

    families = args.only.split(",")
    header = (
        f"{'case':46s} {'impl':>7s} {'first':>7s} {'cuda':>9s} {'torch-cuda':>10s} "
        f"{'cuda/torch-cuda':>15s} {'goal':>6s}"
    )
    print(header)
    verdicts = []
    for family, goal, make in cases(families, args.quick):
        label, make_step = make()
        t_torch = float("nan")
        if torch_cuda:
            torch_step = make_step("torch")
            torch_step()  # PyTorch's first call (cuDNN's choice of algorithm) is not timed
            t_torch = median_ms(torch_step, repeat, torch.cuda.synchronize)
        for impl in impls[family]:
            with implementation(family, impl), mg.backends.use("numba"):
                step = make_step("minigrad")
                first = first_call_s(step, mg.cuda.synchronize)
                t_cuda = median_ms(step, repeat, mg.cuda.synchronize)
            ratio = t_cuda / t_torch
            judged = goal is not None and impl in (None, JUDGED.get(family)) and torch_cuda
            mark = f"{goal:5.0f}x" if goal else f"{'':6s}"
            print(
                f"{label:46s} {impl or '-':>7s} {first:7.2f} {t_cuda:9.3f} {t_torch:10.3f} "
                f"{ratio:14.1f}x {mark}"
            )
            if judged:
                verdicts.append((label, ratio, goal))
    if verdicts:
        print("\nissue #22's goals (minigrad CUDA / PyTorch CUDA):")
        for label, ratio, goal in verdicts:
            print(f"  {label:46s} {ratio:6.1f}x  within {goal:.0f}x: {ratio <= goal}")


if __name__ == "__main__":
    main()
