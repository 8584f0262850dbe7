"""The AdamW step and the rotary embedding as kernels: where they pay, and what they buy
the baby GPT's training step.

    python benchmarks/bench_adamw_rotary.py [--quick] [--repeat 5] [--cases sizes,gpt]

- sizes: µs per call, best of several turns, float32, of each way to run the two families
  at a range of sizes: the NumPy reference, the one-core compiled pass ("serial") and the
  pass cut over every core ("parallel"). The CPU modules' MIN_KERNEL and MIN_PARALLEL are
  read off this table. AdamW: a parameter of n elements, decoupled decay. Rotary: x a
  transposed (1, H, T, 32) view, as the GPT's q and k are. Each is timed through the
  CPU module's entry point, checks included, with the thresholds set to send every size
  one way.
- gpt: bench_transformer.py's baby GPT training step (`minigrad-train --model gpt`'s
  model and step: forward, cross-entropy, backward, clipping, AdamW), minigrad with the
  kernels ("kernels") and with both families on their references ("references", the code
  before the kernels: MIN_KERNEL set past every size), and PyTorch, in this process,
  on its default threads and on one ("torch-1"), taking turns of about --seconds each.
  ms per step, median (min-max) over --repeat turns.

The load average is printed before and after: on a shared machine the figures move with it.
--quick checks that the script runs, in seconds.
"""

import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def best_us(seconds, fn, *args):
    """µs per call of fn(*args): the best of five turns of about `seconds` / 5 each."""
    fn(*args)
    calls, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds / 50:
        fn(*args)
        calls += 1
    calls = max(calls * 10, 1)
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(calls):
            fn(*args)
        best = min(best, (time.perf_counter() - start) / calls)
    return best * 1e6


def forced(module, name, how):
    """module.name (its entry point) with its thresholds set so that every size runs `how`."""
    saved = module.MIN_KERNEL, module.MIN_PARALLEL
    big = sys.maxsize
    limits = {"reference": (big, big), "serial": (0, big), "parallel": (0, 0)}[how]

    def call(*args):
        module.MIN_KERNEL, module.MIN_PARALLEL = limits
        try:
            return getattr(module, name)(*args)
        finally:
            module.MIN_KERNEL, module.MIN_PARALLEL = saved

    return call


WAYS = ("reference", "serial", "parallel")


def sizes(quick):
    from minigrad.kernels.cpu import adamw, rotary

    seconds = 0.02 if quick else 0.5
    rng = np.random.default_rng(0)
    # each through the CPU module's entry point (its checks included), thresholds forced
    print("AdamW step, float32, µs per call (decoupled weight decay 0.1)")
    print(f"  {'elements':>9} {'reference':>10} {'serial':>8} {'parallel':>9}")
    for n in (256, 1024) if quick else (16, 256, 1024, 4096, 16384, 32768, 65536, 262144, 1048576):
        p, g = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
        m, v = np.zeros_like(p), np.zeros_like(p)
        args = (p, g, m, v, None, 1, 1e-3, 0.9, 0.99, 1e-8, 0.1, True, False)
        row = [best_us(seconds, forced(adamw, "adam_step", how), *args) for how in WAYS]
        print(f"  {n:>9} {row[0]:>10.1f} {row[1]:>8.1f} {row[2]:>9.1f}")
    print("rotary rotation, float32, x a transposed (B, H, T, 32) view, µs per call")
    print(f"  {'elements':>9} {'H':>4} {'T':>4} {'reference':>10} {'serial':>8} {'parallel':>9}")
    angles = rng.standard_normal((64, 32))
    cos, sin = np.cos(angles).astype(np.float32), np.sin(angles).astype(np.float32)
    shapes = [(1, 16), (4, 64)] if quick else [(1, 16), (1, 32), (1, 64), (2, 64), (4, 64)]
    if not quick:  # the baby GPT's q or k is (12, 4, 64, 32): 48 heads' worth
        shapes += [(8, 64), (16, 64), (48, 64), (192, 64)]
    for heads, length in shapes:
        x = rng.standard_normal((1, length, heads, 32), dtype=np.float32).transpose(0, 2, 1, 3)
        args = (x, cos[:length], sin[:length])
        row = [best_us(seconds, forced(rotary, "rotate", how), *args) for how in WAYS]
        print(f"  {x.size:>9} {heads:>4} {length:>4} {row[0]:>10.1f} {row[1]:>8.1f} {row[2]:>9.1f}")


ONE_THREAD_TORCH = False  # --one-thread-torch: leave PyTorch on its default threads out


def take_turns(steps, repeat, seconds, setup=None):
    """{name: [ms per call, one per turn]}: the steps take turns (A B C C B A ...) of about
    `seconds` each; setup(name), if given, runs before each turn."""
    if ONE_THREAD_TORCH:
        steps = {name: step for name, step in steps.items() if name != "torch"}
    times = {name: [] for name in steps}
    order = list(steps)
    for r in range(repeat):
        for name in order if r % 2 == 0 else order[::-1]:
            if setup is not None:
                setup(name)
            step = steps[name]
            step()
            n, start = 0, time.perf_counter()
            while n < 2 or time.perf_counter() - start < seconds:
                step()
                n += 1
            times[name].append((time.perf_counter() - start) / n * 1e3)
    return times


def report(title, times, base, against):
    print(f"{title}, ms, median (min-max) of {len(times[base])} turns")
    for name, ts in times.items():
        print(f"  {name:<11} {statistics.median(ts):8.3f} ({min(ts):.3f}-{max(ts):.3f})")
    for name in (name for name in against if name in times):
        ratios = [a / b for a, b in zip(times[base], times[name])]
        print(f"  {base} / {name}  {statistics.median(ratios):.2f}x")


def parts(repeat, seconds, quick):
    """The two families alone, in the baby GPT's shapes: its AdamW step (every parameter,
    gradients set) and RoPE's forward and backward on q and k."""
    import torch
    import torch.optim  # noqa: F401
    from bench_transformer import GPT, QUICK, gpt_models, with_torch_threads

    import minigrad as mg
    import minigrad.optim  # noqa: F401
    from minigrad.kernels.cpu import adamw, rotary

    c = {**GPT, **QUICK} if quick else GPT
    mine, theirs = gpt_models(c)
    rng = np.random.default_rng(0)
    for p, q in zip(mine.parameters(), theirs.parameters()):
        g = rng.standard_normal(p.shape).astype(np.float32)
        p.grad, q.grad = mg.from_numpy(g), torch.from_numpy(g.copy())
    kw = {"lr": 1e-3, "betas": (0.9, 0.99), "weight_decay": 0.1}
    opt_mine = mg.optim.AdamW(mine.parameters(), **kw)
    opt_theirs = torch.optim.AdamW(theirs.parameters(), **kw)
    saved = adamw.MIN_KERNEL, rotary.MIN_KERNEL

    def switch(name):  # the references: the code before the kernels
        off = name == "references"
        adamw.MIN_KERNEL, rotary.MIN_KERNEL = (sys.maxsize, sys.maxsize) if off else saved

    steps = {"kernels": opt_mine.step, "references": opt_mine.step, "torch": opt_theirs.step}
    steps["torch-1"] = with_torch_threads(opt_theirs.step, 1)
    n_params = sum(p.numel() for p in mine.parameters())
    times = take_turns(steps, repeat, seconds / 4, switch)
    title = f"AdamW step on the baby GPT's {n_params} parameters"
    report(title, times, "kernels", ("references", "torch", "torch-1"))

    shape = (c["batch"], c["T"], c["heads"], c["d_model"] // c["heads"])
    x = rng.standard_normal(shape, dtype=np.float32)
    g = rng.standard_normal(shape, dtype=np.float32).transpose(0, 2, 1, 3)
    rope = mg.nn.RotaryEmbedding(shape[-1])
    leaf, gm = mg.from_numpy(x).requires_grad_(), mg.from_numpy(g.copy())
    # PyTorch's rotation as bench_transformer's TorchGPT does it
    head_dim = shape[-1]
    inv_freq = 10000.0 ** (-np.arange(0, head_dim, 2) / head_dim)
    angles = np.outer(np.arange(c["T"]), inv_freq)
    angles = np.concatenate([angles, angles], axis=-1).astype(np.float32)
    cos_t, sin_t = torch.from_numpy(np.cos(angles)), torch.from_numpy(np.sin(angles))
    qt = torch.from_numpy(x.copy()).requires_grad_()
    gt = torch.from_numpy(g.copy())

    def rope_mine():
        rope.rotate(leaf.transpose(1, 2)).backward(gm)  # q: (B, H, T, d), a transposed view

    def rope_theirs():
        q = qt.transpose(1, 2)
        half = q.shape[-1] // 2
        y = q * cos_t + torch.cat([-q[..., half:], q[..., :half]], dim=-1) * sin_t
        y.backward(gt)

    steps = {"kernels": rope_mine, "references": rope_mine, "torch": rope_theirs}
    steps["torch-1"] = with_torch_threads(rope_theirs, 1)
    times = take_turns(steps, repeat, seconds / 4, switch)
    switch("kernels")
    title = f"RoPE forward and backward of one q {g.shape} (a transposed view)"
    report(title, times, "kernels", ("references", "torch", "torch-1"))


def gpt(repeat, seconds, quick):
    import torch
    import torch.optim  # noqa: F401  (lib.optim)
    from bench_transformer import GPT, QUICK, gpt_models, gpt_step, with_torch_threads

    import minigrad as mg
    import minigrad.optim  # noqa: F401
    from minigrad.kernels.cpu import adamw, rotary

    c = {**GPT, **QUICK} if quick else GPT
    mine, theirs = gpt_models(c)
    steps = {"kernels": gpt_step(mg, mine, c), "torch": gpt_step(torch, theirs, c)}
    steps["references"] = steps["kernels"]  # the same model, with the kernels switched off
    # PyTorch on one thread too, a copy of its own (on a busy machine its threads wait)
    steps["torch-1"] = with_torch_threads(gpt_step(torch, gpt_models(c)[1], c), 1)
    saved = adamw.MIN_KERNEL, rotary.MIN_KERNEL

    def switch(name):  # the references: the code before the kernels
        off = name == "references"
        adamw.MIN_KERNEL, rotary.MIN_KERNEL = (sys.maxsize, sys.maxsize) if off else saved

    times = take_turns(steps, repeat, seconds, switch)
    switch("kernels")
    report("baby GPT training step", times, "kernels", ("references", "torch", "torch-1"))
    ratios = [a / b for a, b in zip(times["references"], times["torch-1"])]
    print(f"  references / torch-1  {statistics.median(ratios):.2f}x")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="checks that the script runs")
    parser.add_argument("--repeat", type=int, default=5, help="turns per variant (default 5)")
    parser.add_argument("--seconds", type=float, default=2.0, help="length of a turn (gpt)")
    parser.add_argument(
        "--one-thread-torch",
        action="store_true",
        help="PyTorch on one thread only (on a busy shared machine its threads spin and wait)",
    )
    parser.add_argument(
        "--cases", default="sizes,parts,gpt", help="comma-separated: sizes, parts, gpt"
    )
    args = parser.parse_args()
    if args.quick:
        args.repeat, args.seconds = 1, 0.01
    global ONE_THREAD_TORCH
    ONE_THREAD_TORCH = args.one_thread_torch
    import torch

    print(
        f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}; torch {torch.__version__}"
    )
    for case in args.cases.split(","):
        {
            "sizes": lambda: sizes(args.quick),
            "parts": lambda: parts(args.repeat, args.seconds, args.quick),
            "gpt": lambda: gpt(args.repeat, args.seconds, args.quick),
        }[case]()
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
