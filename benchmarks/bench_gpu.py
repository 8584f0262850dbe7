"""A training step on the GPU and on the CPU, minigrad against PyTorch, in one process.

    python benchmarks/bench_gpu.py [--models gpt-baby,gpt-shakespeare,lenet,resnet]
        [--frameworks minigrad-cuda,minigrad-cpu,torch-cuda,torch-cpu]
        [--warmup 3] [--repeat 5] [--steps 10] [--cpu-warmup 1] [--cpu-steps 2]
        [--profile] [--json PATH] [--quick] [--cuda-backend numba|numpy]

The models (issue #21, point 6), each trained on random batches of its real shape:

- gpt-baby: `minigrad-train --model gpt`'s model, nanoGPT's "baby GPT": `models.GPT(65, 128,
  4, 4, 64, bias=False)` (d_model 128, 4 layers, 4 heads, context 64), batches of 12;
- gpt-shakespeare: nanoGPT's Shakespeare-char GPU config: `models.GPT(65, 384, 6, 6, 256,
  bias=False)`, batches of 64;
- lenet: `minigrad-train --model cnn`'s LeNet-5 on 32x32 images, batches of 32;
- resnet: `minigrad-train --model resnet`'s ResNet (1, 1, 1 blocks, widths 16, 32, 64) on the
  8x8 digits, batches of 32.

The frameworks: minigrad with CUDA tensors (`model.to("cuda")`: CuPy arrays, the @cuda.jit
kernels), minigrad on the CPU (Numba's CPU kernels, every core, minigrad's thread policy),
PyTorch CUDA, PyTorch CPU (its default threads: one per core). PyTorch runs the same
architectures (bench_transformer.torch_gpt, bench_load.torch_lenet5, `torch_resnet` below).

The step is the training job's: forward, cross-entropy, backward, gradient clipping at 1.0,
AdamW. How it is timed, and why:

- the first step is timed alone and printed apart ("first step"): it compiles or loads
  the Numba kernels, CuPy's element-wise kernels, cuBLAS's handles: once per process, not
  the speed of a step;
- then --warmup steps, untimed (memory pools fill, clocks rise);
- then --repeat measurements of --steps steps each: ms per step, min / median / max (on
  the CPU columns --cpu-warmup and --cpu-steps: a Shakespeare-char step takes seconds there);
- the GPU runs asynchronously (an op returns once its work is queued), so the clock is
  read only after `synchronize()` (mg.cuda.synchronize, torch.cuda.synchronize): without
  it a GPU step would seem to cost only the time taken to queue it.

Printed: a table of ms per step, the ratios (minigrad CUDA / PyTorch CUDA, minigrad CPU /
minigrad CUDA, minigrad CPU / PyTorch CPU) and the goals of issue #21: the Shakespeare-char
step within 5x PyTorch CUDA and at least 20x faster than minigrad on the CPU; the baby GPT
within 4x PyTorch CUDA. Without a GPU (no CuPy, or no NVIDIA GPU) the CUDA columns are
left out and the script says why. --profile: where minigrad CUDA's step spends its time
(cProfile of --steps steps, the 25 functions of most cumulative time), for a missed goal.
--json PATH writes every figure. --cuda-backend numpy runs minigrad CUDA's steps on the
NumPy references through CuPy (`mg.backends.use("numpy")`: attention as cuBLAS matrix
products, convolution as im2col products) instead of the @cuda.jit kernels. --quick: the
same script on tiny models, one timed step each, to check that it runs (the test suite runs
it on the CPU).
"""

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

MODELS = {
    "gpt-baby": {
        "kind": "gpt",
        "vocab": 65,
        "d_model": 128,
        "layers": 4,
        "heads": 4,
        "T": 64,
        "batch": 12,
    },
    "gpt-shakespeare": {
        "kind": "gpt",
        "vocab": 65,
        "d_model": 384,
        "layers": 6,
        "heads": 6,
        "T": 256,
        "batch": 64,
    },
    "lenet": {"kind": "lenet", "image": 32, "batch": 32},
    "resnet": {"kind": "resnet", "image": 8, "batch": 32},
}
QUICK = {
    "gpt-baby": {"d_model": 32, "layers": 1, "heads": 2, "T": 16, "batch": 2},
    "gpt-shakespeare": {"d_model": 48, "layers": 1, "heads": 2, "T": 16, "batch": 2},
    "lenet": {"batch": 2},
    "resnet": {"batch": 2},
}
FRAMEWORKS = ["minigrad-cuda", "minigrad-cpu", "torch-cuda", "torch-cpu"]
GOALS = [  # (model, description, numerator, denominator, bound): numerator / denominator <= bound
    ("gpt-shakespeare", "minigrad CUDA within 5x PyTorch CUDA", "minigrad-cuda", "torch-cuda", 5.0),
    (
        "gpt-shakespeare",
        "minigrad CUDA at least 20x faster than minigrad CPU",
        "minigrad-cuda",
        "minigrad-cpu",
        1 / 20,
    ),
    ("gpt-baby", "minigrad CUDA within 4x PyTorch CUDA", "minigrad-cuda", "torch-cuda", 4.0),
]


# ---- the models, in both frameworks -------------------------------------------------------
def torch_resnet(num_classes=10):
    """minigrad.models.ResNet((1, 1, 1), (16, 32, 64)) in PyTorch."""
    from torch import nn

    class BasicBlock(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.conv1 = nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False)
            self.bn1, self.relu = nn.BatchNorm2d(cout), nn.ReLU()
            self.conv2 = nn.Conv2d(cout, cout, 3, padding=1, bias=False)
            self.bn2 = nn.BatchNorm2d(cout)
            self.downsample = None
            if stride != 1 or cin != cout:
                self.downsample = nn.Sequential(
                    nn.Conv2d(cin, cout, 1, stride=stride, bias=False), nn.BatchNorm2d(cout)
                )

        def forward(self, x):
            identity = x if self.downsample is None else self.downsample(x)
            return self.relu(self.bn2(self.conv2(self.relu(self.bn1(self.conv1(x))))) + identity)

    widths = (16, 32, 64)
    blocks = [
        BasicBlock(16 if i == 0 else widths[i - 1], w, 1 if i == 0 else 2)
        for i, w in enumerate(widths)
    ]
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1, bias=False),
        nn.BatchNorm2d(16),
        nn.ReLU(),
        *blocks,
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(64, num_classes),
    )


def build(framework, c, device):
    """(library, model on `device`) for config `c` in `framework` ('minigrad' or 'torch')."""
    if framework == "torch":
        import torch as lib
        import torch.nn.functional  # noqa: F401  (lib.nn.functional in the step)
        from bench_load import torch_lenet5
        from bench_transformer import torch_gpt

        lib.manual_seed(0)
        if c["kind"] == "gpt":
            model = torch_gpt(
                c["vocab"], c["d_model"], c["layers"], c["heads"], c["T"], bias=False, device=device
            )
        else:
            model = torch_lenet5() if c["kind"] == "lenet" else torch_resnet()
    else:
        import minigrad as lib
        from minigrad.models import GPT, LeNet5, ResNet

        lib.manual_seed(0)
        if c["kind"] == "gpt":
            model = GPT(c["vocab"], c["d_model"], c["layers"], c["heads"], c["T"], bias=False)
        elif c["kind"] == "lenet":
            model = LeNet5(num_classes=10, image_size=c["image"])
        else:
            model = ResNet(blocks=(1, 1, 1), widths=(16, 32, 64), num_classes=10)
    return lib, model.to(device)


def batches(c, n=4, seed=0):
    """`n` random (input, target) batches of config `c`, as NumPy arrays."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        if c["kind"] == "gpt":
            ids = rng.integers(0, c["vocab"], (c["batch"], c["T"] + 1))
            out.append((ids[:, :-1].copy(), ids[:, 1:].copy()))
        else:
            x = rng.standard_normal((c["batch"], 1, c["image"], c["image"])).astype(np.float32)
            out.append((x, rng.integers(0, 10, c["batch"])))
    return out


def training_step(framework, c, device):
    """(step, synchronize): a closure running one training step of config `c` on `device`,
    and the function that waits for the device to finish what was queued."""
    lib, model = build(framework, c, device)
    opt = lib.optim.AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.99), weight_decay=0.1)
    data = [(lib.tensor(x, device=device), lib.tensor(y, device=device)) for x, y in batches(c)]
    state = {"i": 0}

    def step():
        x, y = data[state["i"] % len(data)]
        state["i"] += 1
        out = model(x)
        loss = lib.nn.functional.cross_entropy(out.reshape(-1, out.shape[-1]), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        lib.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()

    def synchronize():
        if device == "cuda":  # the GPU works asynchronously: wait for it before reading a clock
            lib.cuda.synchronize()

    return step, synchronize


def measure(step, synchronize, warmup, repeat, steps):
    """{'first': ms of the first step, 'ms': [ms per step of each repeat]}."""
    start = time.perf_counter()
    step()
    synchronize()
    first = 1e3 * (time.perf_counter() - start)
    for _ in range(warmup):
        step()
    synchronize()
    ms = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(steps):
            step()
        synchronize()
        ms.append(1e3 * (time.perf_counter() - start) / steps)
    return {"first": first, "ms": ms}


def profile(step, synchronize, steps, out=sys.stdout):
    """Where `steps` steps spend their time (cProfile): the 25 functions of most cumulative
    time, then the 15 of most time of their own (with CUDA_LAUNCH_BLOCKING=1, a launch
    waits for its kernel, so the kernels' time is the launching function's own)."""
    import cProfile
    import pstats

    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(steps):
        step()
    synchronize()
    profiler.disable()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats("cumulative").print_stats(25)
    stats.sort_stats("tottime").print_stats(15)


# ---- what can run here ---------------------------------------------------------------------
def why_not(framework):
    """None if `framework` can run on this machine, else why not."""
    if framework == "minigrad-cuda":
        import minigrad as mg
        from minigrad.cuda import runtime

        if not mg.cuda.is_available():
            return f"needs a GPU: {runtime._why_not or 'no CUDA device'}"
        if runtime.simulated():
            return (
                "needs a GPU: the simulated GPU (MINIGRAD_CUDA_SIMULATOR=1) runs in host "
                "memory, it has no speed"
            )
    if framework == "torch-cuda":
        import torch

        if not torch.cuda.is_available():
            return f"needs a GPU: this PyTorch ({torch.__version__}) sees no CUDA device"
    return None


def device_names():
    """A line naming the machine: CPU cores, GPU, library versions."""
    import os

    import torch

    import minigrad as mg

    parts = [
        f"{os.cpu_count()} CPU cores",
        f"PyTorch {torch.__version__} ({torch.get_num_threads()} threads)",
    ]
    if torch.cuda.is_available():
        parts.append(f"GPU (PyTorch): {torch.cuda.get_device_name(0)}")
    if mg.cuda.is_available():
        parts.append(f"GPU (minigrad): {mg.cuda.get_device_name()}")
    return "; ".join(parts)


def span(values):
    return f"{min(values):9.2f} {statistics.median(values):9.2f} {max(values):9.2f}"


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--models", default=",".join(MODELS), help=f"comma-separated, of: {', '.join(MODELS)}"
    )
    parser.add_argument(
        "--frameworks", default=",".join(FRAMEWORKS), help=f"of: {', '.join(FRAMEWORKS)}"
    )
    parser.add_argument(
        "--warmup", type=int, default=3, help="untimed steps after the first (default 3)"
    )
    parser.add_argument("--repeat", type=int, default=5, help="timed measurements (default 5)")
    parser.add_argument("--steps", type=int, default=10, help="steps per measurement (default 10)")
    parser.add_argument(
        "--cpu-warmup", type=int, default=1, help="--warmup of the CPU columns (default 1)"
    )
    parser.add_argument(
        "--cpu-steps", type=int, default=2, help="--steps of the CPU columns (default 2)"
    )
    parser.add_argument(
        "--profile", action="store_true", help="profile minigrad CUDA's steps of each model"
    )
    parser.add_argument("--json", default=None, help="write the figures to this file")
    parser.add_argument(
        "--cuda-backend",
        default=None,
        choices=("numba", "numpy"),
        help="minigrad CUDA's kernels: the @cuda.jit ones (numba) or the references (numpy)",
    )
    parser.add_argument(
        "--quick", action="store_true", help="tiny models, one timed step: checks that it runs"
    )
    args = parser.parse_args(argv)
    args.models, args.frameworks = args.models.split(","), args.frameworks.split(",")
    for name in args.models:
        if name not in MODELS:
            parser.error(f"unknown model {name!r} (choose from {', '.join(MODELS)})")
    for name in args.frameworks:
        if name not in FRAMEWORKS:
            parser.error(f"unknown framework {name!r} (choose from {', '.join(FRAMEWORKS)})")
    if args.quick:
        args.warmup = args.cpu_warmup = args.repeat = args.steps = args.cpu_steps = 1
    return args


def main(argv=None):
    from minigrad import backends

    args = parse_args(argv)
    print(device_names())
    runnable = []
    for framework in args.frameworks:
        reason = why_not(framework)
        if reason:
            print(f"{framework}: left out, {reason}")
        else:
            runnable.append(framework)
    results = {}
    print(
        f"\nms per training step: the first step apart, then {args.repeat} x {args.steps} steps "
        f"after {args.warmup} warm-up steps (on the CPU {args.repeat} x {args.cpu_steps} after "
        f"{args.cpu_warmup})"
    )
    print(f"{'model':16} {'framework':14} {'first':>9} {'min':>9} {'median':>9} {'max':>9}")
    for name in args.models:
        c = {**MODELS[name], **(QUICK[name] if args.quick else {})}
        results[name] = {}
        for framework in runnable:
            lib, device = framework.split("-")
            step, synchronize = training_step(lib, c, device)
            steps, warmup = (
                (args.steps, args.warmup) if device == "cuda" else (args.cpu_steps, args.cpu_warmup)
            )
            chosen = framework == "minigrad-cuda" and args.cuda_backend
            with backends.use(chosen or backends.current()):
                r = measure(step, synchronize, warmup, args.repeat, steps)
                results[name][framework] = r
                print(f"{name:16} {framework:14} {r['first']:9.1f} {span(r['ms'])}", flush=True)
                if args.profile and framework == "minigrad-cuda":
                    profile(step, synchronize, steps)
    print_ratios(results)
    print_goals(results, args.quick)
    if args.json:
        Path(args.json).write_text(
            json.dumps({"machine": device_names(), "results": results}, indent=1)
        )


def median(results, model, framework):
    r = results.get(model, {}).get(framework)
    return None if r is None else statistics.median(r["ms"])


def print_ratios(results):
    print("\nratios of the median times")
    pairs = [
        ("minigrad-cuda", "torch-cuda", "minigrad CUDA / PyTorch CUDA"),
        ("minigrad-cpu", "minigrad-cuda", "minigrad CPU / minigrad CUDA (the GPU's speed-up)"),
        ("minigrad-cpu", "torch-cpu", "minigrad CPU / PyTorch CPU"),
        ("torch-cpu", "torch-cuda", "PyTorch CPU / PyTorch CUDA"),
    ]
    for model in results:
        for a, b, label in pairs:
            ma, mb = median(results, model, a), median(results, model, b)
            if ma is not None and mb is not None:
                print(f"{model:16} {label:50} {ma / mb:8.2f}")


def print_goals(results, quick):
    print(
        "\nissue #21's goals"
        + (" (--quick: tiny models, the verdicts mean nothing)" if quick else "")
    )
    for model, text, a, b, bound in GOALS:
        ma, mb = median(results, model, a), median(results, model, b)
        if ma is None or mb is None:
            print(f"{model:16} {text}: not measured (needs {a} and {b})")
            continue
        ratio = ma / mb
        verdict = "met" if ratio <= bound else "MISSED"
        shown = f"{ratio:.2f}x" if bound >= 1 else f"{1 / ratio:.1f}x faster"
        print(f"{model:16} {text}: {shown}: {verdict}")


if __name__ == "__main__":
    main()
