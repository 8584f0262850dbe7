"""GELU, forward and forward + backward: minigrad's fused loop against the NumPy passes it
replaced, the tanh approximation (the same kind of loop), and PyTorch (CPU).

    python benchmarks/bench_gelu.py [--quick] [--repeat 7] [--number 10]

On (768, 512) float32 (the baby GPT's MLP activation: 12 sequences x 64 tokens x 512
hidden units; bench_transformer.py's GPT applies it in 4 layers per step):

- minigrad, fused loop: `F.gelu(x)`, y and the slope s = Phi(x) + x phi(x) in one
  compiled pass (minigrad/kernels/cpu/gelu.py), the backward one multiply by s;
- minigrad, NumPy passes: the same Function written as before the loop, y from erf
  (compiled) and NumPy products, s in the backward from the kept Phi(x) and np.exp;
- minigrad, tanh: `F.gelu(x, approximate="tanh")`, a fused loop of the same shape;
- PyTorch: `torch.nn.functional.gelu`, on its default threads and on one thread.

The cases take turns (order reversed every round) so load from elsewhere falls on all
alike; a turn times --number calls. Printed: ms per call, median (min-max) over --repeat
turns, and each case's ratio to the fused loop's.
"""

import math

import numpy as np
from lesson_timing import one_thread, print_against, time_forward_backward, turns_main

SHAPE = (768, 512)


def numpy_passes_gelu():
    """GELU as a Function written with NumPy passes (minigrad's before the fused loop)."""
    from minigrad.autograd.function import Function
    from minigrad.ops.special import erf

    class Slope(Function):
        @staticmethod
        def forward(ctx, x, cdf):
            d = x.array
            return cdf + d * (np.exp(-0.5 * d * d) * (1.0 / math.sqrt(2.0 * math.pi)))

    class Gelu(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            ctx.cdf = 0.5 * (1.0 + erf(x.array / math.sqrt(2.0)))
            return x.array * ctx.cdf

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * Slope.apply(x, cdf=ctx.cdf)

    return Gelu.apply


def cases(shape=SHAPE):
    """{name: (forward, forward_backward)}, after checking that they agree."""
    import torch
    import torch.nn.functional as TF

    import minigrad as mg
    import minigrad.nn.functional as F

    rng = np.random.default_rng(0)
    x_np, g_np = (rng.standard_normal(shape, dtype=np.float32) for _ in range(2))
    x, g = mg.tensor(x_np, requires_grad=True), mg.tensor(g_np)
    tx, tg = torch.tensor(x_np, requires_grad=True), torch.tensor(g_np)
    plain = {"minigrad": mg.tensor(x_np), "torch": torch.tensor(x_np)}  # inputs without grad
    passes = numpy_passes_gelu()

    def timed(fn, lib):
        def forward():  # inference: an input without grad, so no slope is computed or kept
            with mg.no_grad() if lib == "minigrad" else torch.no_grad():
                return fn(plain[lib])

        def forward_backward():
            y = fn(x if lib == "minigrad" else tx)
            y.backward(g if lib == "minigrad" else tg)
            x.grad = tx.grad = None
            return y

        return forward, forward_backward

    found = {
        "minigrad, fused loop": timed(F.gelu, "minigrad"),
        "minigrad, NumPy passes": timed(passes, "minigrad"),
        "minigrad, tanh": timed(lambda t: F.gelu(t, approximate="tanh"), "minigrad"),
        "PyTorch": timed(TF.gelu, "torch"),
    }
    found["PyTorch, 1 thread"] = tuple(one_thread(fn) for fn in found["PyTorch"])
    reference = found["PyTorch"][1]().detach().numpy()
    for name, (_, forward_backward) in found.items():
        y = forward_backward()
        y = y.detach().numpy()
        if not np.allclose(y, reference, atol=1e-3 if "tanh" in name else 1e-5):
            raise RuntimeError(f"bench_gelu: {name} disagrees with PyTorch")
    return found


def run(repeat=7, number=10):
    """{'forward': {case: [ms]}, 'forward + backward': {case: [ms]}}, printed as a table."""
    results = time_forward_backward(cases(), repeat, number)
    print(f"GELU on {SHAPE} float32 ({math.prod(SHAPE):,} elements)")
    print_against(results, "minigrad, fused loop", repeat, number)
    return results


def main():
    turns_main(__doc__, run, default_repeat=7, default_number=10)


if __name__ == "__main__":
    main()
