"""The CUDA kernels on a real GPU: convolution, pooling and causal attention, forward +
backward through minigrad's autograd on the "cuda" backend, against the Numba CPU
kernels, the NumPy reference and PyTorch (on the same GPU, and on the CPU), all in one
process on one machine.

    python benchmarks/bench_cuda.py [--repeat R] [--quick] [--only conv,pool,attention]

Needs an NVIDIA GPU with a driver (numba.cuda.is_available()) and, for the comparison,
a PyTorch built with CUDA. minigrad's CUDA kernels take NumPy arrays and hand back NumPy
arrays (tensors live in host memory, see minigrad/cuda.py): every kernel call copies its
inputs to the GPU and its result back. So each case also prints "copies", the time of
those host <-> device copies alone (the same bytes, moved with cuda.to_device and
copy_to_host, no kernel): what a version with tensors kept on the GPU would save.
PyTorch's CUDA tensors stay on the GPU; its times are taken after
torch.cuda.synchronize(), so they include the whole of its work.

The first call of each kernel family (the CUDA compile, in this process) is reported
apart from the steady-state medians, which are taken after a warm-up.
"""

import argparse
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


def median_ms(fn, repeat, sync=None):
    """Median wall time of fn in ms over `repeat` runs after one warm-up run; `sync`
    (PyTorch CUDA) waits for queued GPU work before each clock reading."""
    sync = sync or (lambda: None)
    fn()
    sync()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - start)
    return 1e3 * statistics.median(times)


def first_call_s(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def copies_ms(inputs, outputs, repeat):
    """Median ms to copy `inputs` to the device and arrays shaped as `outputs` back."""
    from numba import cuda

    outs = [cuda.device_array(a.shape, a.dtype) for a in outputs]

    def move():
        for a in inputs:
            cuda.to_device(a)
        for d in outs:
            d.copy_to_host()

    return median_ms(move, repeat)


# ---- the three families: closures for minigrad (backend chosen by the caller) and torch -----
def conv_case(name):
    import minigrad as mg
    import minigrad.nn.functional as F

    n, c, o, h, k, s, p, g = bench_conv.CASES[name]
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, c, h, h), dtype=np.float32)
    w = (rng.standard_normal((o, c // g, k, k), dtype=np.float32) * 0.1).astype(np.float32)
    b = rng.standard_normal(o, dtype=np.float32)
    xm, wm, bm = (mg.tensor(a, requires_grad=True) for a in (x, w, b))

    def minigrad_step():
        F.conv2d(xm, wm, bm, stride=s, padding=p, groups=g).sum().backward()
        xm.grad = wm.grad = bm.grad = None

    def torch_step(device):
        import torch

        xt, wt, bt = (torch.tensor(a, device=device, requires_grad=True) for a in (x, w, b))

        def step():
            torch.nn.functional.conv2d(xt, wt, bt, stride=s, padding=p, groups=g).sum().backward()
            xt.grad = wt.grad = bt.grad = None

        return step

    out = (h + 2 * p - k) // s + 1
    y = np.empty((n, o, out, out), np.float32)
    # forward: x, w in, y out; input grad: dy, w in, dx out; weight grad: dy, x in, dw out
    moved = ([x, w, y, w, y, x], [y, x, w])
    return (
        f"conv {name} {x.shape}*{w.shape}",
        minigrad_step,
        torch_step,
        moved,
        bench_conv.flops(bench_conv.CASES[name]) * 3,
    )


def pool_case(kind):
    import minigrad as mg
    import minigrad.nn.functional as F

    rng = np.random.default_rng(0)
    x = rng.standard_normal(POOL_SHAPE, dtype=np.float32)
    gy = rng.standard_normal(
        POOL_SHAPE[:2] + (POOL_SHAPE[2] // 2, POOL_SHAPE[3] // 2), dtype=np.float32
    )
    xm, gm = mg.tensor(x, requires_grad=True), mg.tensor(gy)

    def minigrad_step():
        getattr(F, kind)(xm, 2).backward(gm)
        xm.grad = None

    def torch_step(device):
        import torch

        xt, gt = torch.tensor(x, device=device, requires_grad=True), torch.tensor(gy, device=device)

        def step():
            getattr(torch.nn.functional, kind)(xt, 2).backward(gt)
            xt.grad = None

        return step

    indices = [np.empty(gy.shape, np.int64)] if kind == "max_pool2d" else []
    moved = ([x, gy] + indices, [gy, x] + indices)
    return f"{kind} {POOL_SHAPE}", minigrad_step, torch_step, moved, None


def attention_case(shape):
    import minigrad as mg
    import minigrad.nn.functional as F

    q, k, v, dout = bench_attention.make_inputs(*shape)
    qm, km, vm = (mg.tensor(a, requires_grad=True) for a in (q, k, v))
    gm = mg.tensor(dout)

    def minigrad_step():
        F.scaled_dot_product_attention(qm, km, vm, is_causal=True).backward(gm)
        qm.grad = km.grad = vm.grad = None

    def torch_step(device):
        import torch

        qt, kt, vt = (torch.tensor(a, device=device, requires_grad=True) for a in (q, k, v))
        gt = torch.tensor(dout, device=device)

        def step():
            torch.nn.functional.scaled_dot_product_attention(qt, kt, vt, is_causal=True).backward(
                gt
            )
            qt.grad = kt.grad = vt.grad = None

        return step

    B, H, T, d = shape
    lse = np.empty((B * H, T), np.float32)
    # forward: q, k, v in; out, lse out; backward: dout, q, k, v, out, lse in; dq, dk, dv out
    moved = ([q, k, v, dout, q, k, v, q, lse], [q, lse, q, k, v])
    return (
        f"attention (B,H,T,d)={shape}",
        minigrad_step,
        torch_step,
        moved,
        bench_attention.causal_flops(*shape)[1],
    )


def cases(families, quick):
    if "conv" in families:
        for name in CONV_CASES[:2] if quick else CONV_CASES:
            yield "conv", lambda name=name: conv_case(name)
    if "pool" in families:
        for kind in ("max_pool2d", "avg_pool2d"):
            yield "pool", lambda kind=kind: pool_case(kind)
    if "attention" in families:
        for shape in ATTENTION_CASES[:2] if quick else ATTENTION_CASES:
            yield "attention", lambda shape=shape: attention_case(shape)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--quick", action="store_true", help="two cases per family, 3 runs each")
    parser.add_argument("--only", default="conv,pool,attention", help="comma-separated families")
    args = parser.parse_args(argv)
    repeat = 3 if args.quick else args.repeat

    import numba
    from numba import cuda

    import minigrad as mg

    if not cuda.is_available() or numba.config.ENABLE_CUDASIM:
        raise SystemExit(
            "bench_cuda: no CUDA GPU here (numba.cuda.is_available() is False); nothing to time"
        )
    try:
        import torch

        torch_cuda = torch.cuda.is_available()
        torch.set_num_threads(os.cpu_count())
    except ImportError:
        torch, torch_cuda = None, False
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    gpu = cuda.get_current_device()
    print(
        f"GPU: {gpu.name.decode() if isinstance(gpu.name, bytes) else gpu.name} (compute "
        f"capability {'.'.join(map(str, gpu.compute_capability))}); CPU: {platform.machine()}, "
        f"{os.cpu_count()} cores; Python {platform.python_version()}, NumPy {np.__version__}, "
        f"Numba {numba.__version__}, torch {torch.__version__ if torch else '-'}; float32; median "
        f"of {repeat} runs; forward + "
        "backward, ms"
    )
    print(
        f"minigrad: numba on {numba.get_num_threads()} threads; PyTorch CPU on {os.cpu_count()} "
        "threads\n"
    )

    families = args.only.split(",")
    compiled = set()
    header = (
        f"{'case':44s} {'reference':>9s} {'numba':>8s} {'cuda':>8s} {'copies':>7s} "
        f"{'torch-cpu':>9s} {'torch-cuda':>10s} {'cuda/torch-cuda':>15s} {'numba/cuda':>10s} "
        f"{'cuda GFLOP/s':>12s}"
    )
    print(header)
    for family, make in cases(families, args.quick):
        label, minigrad_step, torch_step, (ins, outs), flops = make()
        with mg.backends.use("cuda"):
            if family not in compiled:  # the first call compiles this family's kernels
                compiled.add(family)
                print(
                    f"  ({family}: first cuda call, compiling its kernels: "
                    f"{first_call_s(minigrad_step):.1f} s)"
                )
            t_cuda = median_ms(minigrad_step, repeat)
        with mg.backends.use("numba"):
            t_numba = median_ms(minigrad_step, repeat)
        big = family == "attention" and label.endswith("2048, 64)")
        with mg.backends.use("numpy"):
            t_ref = median_ms(minigrad_step, max(2, repeat // (10 if big else 4)))
        t_copies = copies_ms(ins, outs, repeat)
        t_tcpu = median_ms(torch_step("cpu"), repeat) if torch else float("nan")
        t_tgpu = (
            median_ms(torch_step("cuda"), repeat, sync=torch.cuda.synchronize)
            if torch_cuda
            else float("nan")
        )
        gflops = f"{flops / t_cuda / 1e6:12.0f}" if flops else f"{'':12s}"
        print(
            f"{label:44s} {t_ref:9.2f} {t_numba:8.2f} {t_cuda:8.2f} {t_copies:7.2f} {t_tcpu:9.2f} "
            f"{t_tgpu:10.3f} {t_cuda / t_tgpu:14.1f}x {t_numba / t_cuda:9.2f}x {gflops}"
        )


if __name__ == "__main__":
    main()
