"""RoPE, forward and forward + backward: minigrad's RotaryEmbedding (one Function, cached
cos/sin) against the same rotation written other ways, and against PyTorch (CPU).

    python benchmarks/bench_positional.py [--quick] [--repeat 5] [--number 10]

Rotates a query and a key of (12, 4, 256, 32) float32 each (a batch of the baby GPT's
heads at a context of 256) at positions 0..255, as one attention layer does per step:

- minigrad, RotaryEmbedding: `rope(q, k)`, one `Rotate` Function per tensor, its
  backward the same rotation with -sin, and cos/sin read from the module's cache;
- minigrad, uncached: the same Function, but cos and sin computed again at every call
  (`rope_cos_sin`: an outer product, a concatenation, cos and sin of 256 x 32 angles);
- minigrad, small ops: x * cos + rotate_half(x) * sin written with Tensor operations
  (two slices, a negation, a cat, two products and a sum, each recorded by autograd and
  each with its own backward), cos/sin cached;
- PyTorch: the same formula with torch operations (as bench_transformer.py's GPT), cos/sin
  cached, on its default threads (one per core) and on one thread ("PyTorch, 1 thread":
  on a busy 2-core machine its two threads contend with other programs).

The cases take turns (order reversed every round) so load from elsewhere falls on all
alike; a turn times --number calls. Printed: ms per call, median (min-max) over --repeat
turns, and each case's ratio to minigrad's RotaryEmbedding.
"""

import numpy as np
from lesson_timing import one_thread, print_against, time_forward_backward, turns_main

SHAPE = (12, 4, 256, 32)


def cases(shape=SHAPE):
    """{name: (forward, forward_backward)}, after checking that all four agree."""
    import torch

    import minigrad as mg
    from minigrad.nn.rotary import Rotate, rope_cos_sin, rotate_half

    T, d = shape[-2], shape[-1]
    rope = mg.nn.RotaryEmbedding(d)
    rng = np.random.default_rng(0)
    q_np, k_np = (rng.standard_normal(shape, dtype=np.float32) for _ in range(2))
    q, k = mg.tensor(q_np, requires_grad=True), mg.tensor(k_np, requires_grad=True)
    cos_np, sin_np = (a.astype(np.float32) for a in rope_cos_sin(rope.inv_freq, np.arange(T)))
    cos, sin = mg.tensor(cos_np), mg.tensor(sin_np)
    tq, tk = torch.tensor(q_np, requires_grad=True), torch.tensor(k_np, requires_grad=True)
    tcos, tsin = torch.tensor(cos_np), torch.tensor(sin_np)

    def module():
        return rope(q, k)

    def uncached():
        c, s = (a.astype(np.float32) for a in rope_cos_sin(rope.inv_freq, np.arange(T)))
        return Rotate.apply(q, cos=c, sin=s), Rotate.apply(k, cos=c, sin=s)

    def small_ops():
        return q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin

    def torch_rotate(x):
        half = x.shape[-1] // 2
        return x * tcos + torch.cat([-x[..., half:], x[..., :half]], dim=-1) * tsin

    def pytorch():
        return torch_rotate(tq), torch_rotate(tk)

    def timed(fn, lib):
        def forward():
            with mg.no_grad() if lib == "minigrad" else torch.no_grad():
                return fn()

        def forward_backward():
            a, b = fn()
            (a.sum() + b.sum()).backward()
            for x in (q, k, tq, tk):
                x.grad = None

        return forward, forward_backward

    found = {
        "minigrad, RotaryEmbedding": timed(module, "minigrad"),
        "minigrad, uncached cos/sin": timed(uncached, "minigrad"),
        "minigrad, small ops": timed(small_ops, "minigrad"),
        "PyTorch": timed(pytorch, "torch"),
    }
    found["PyTorch, 1 thread"] = tuple(one_thread(fn) for fn in found["PyTorch"])
    reference = found["minigrad, RotaryEmbedding"][0]()[0].numpy()
    for name, (forward, _) in found.items():
        out = forward()[0]
        out = out.numpy() if hasattr(out, "numpy") else out
        if not np.allclose(np.asarray(out), reference, atol=1e-5):
            raise RuntimeError(f"bench_positional: {name} disagrees with RotaryEmbedding")
    return found


def run(repeat=5, number=10):
    """{'forward': {case: [ms]}, 'forward + backward': {case: [ms]}}, printed as a table."""
    results = time_forward_backward(cases(), repeat, number)
    print(f"RoPE on q and k of {SHAPE} float32 each, positions 0..{SHAPE[-2] - 1}")
    print_against(
        results, "minigrad, RotaryEmbedding", repeat, number, unit="ms per call (q and k)", width=28
    )
    return results


def main():
    turns_main(__doc__, run, default_repeat=5, default_number=10)


if __name__ == "__main__":
    main()
