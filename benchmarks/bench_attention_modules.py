"""nn.MultiheadAttention, forward and forward + backward: minigrad's two paths against
PyTorch's (CPU), in one process.

    python benchmarks/bench_attention_modules.py [--quick] [--repeat 5] [--number 5]

Self-attention of a causal batch (16, 128, 128) float32, 4 heads of 32, through
`nn.MultiheadAttention(128, 4, batch_first=True)` in both frameworks, called two ways:

- need_weights=False: the packed projection, then `F.scaled_dot_product_attention`,
  whose kernel (Numba on the CPU) never forms the (T, T) probabilities;
- need_weights=True: the same projections, then the attention spelled out with Tensor
  operations (scores, mask, softmax, weights @ values), because the caller asked for
  the probabilities, which the kernel does not keep.

PyTorch runs the same module with the same weights both ways, on its default threads
(one per core) and on one thread ("torch-1": on a busy 2-core machine its two threads
contend with other programs, and its backward pass suffers most). The cases take turns
(order reversed every round) so load from elsewhere on a shared machine falls on all
alike; a turn times --number calls. Printed: ms per call, median (min-max) over
--repeat turns, and the ratios of each minigrad path to PyTorch's and to each other.
"""

import numpy as np
from lesson_timing import one_thread, span, time_forward_backward, turns_main

SHAPE = {"batch": 16, "T": 128, "embed": 128, "heads": 4}


def cases():
    """{name: (forward, forward_backward)} for minigrad's and PyTorch's module, each
    with need_weights False and True, on the same weights and input."""
    import torch

    import minigrad as mg

    c = SHAPE
    mg.manual_seed(0)
    mine = mg.nn.MultiheadAttention(c["embed"], c["heads"], batch_first=True)
    theirs = torch.nn.MultiheadAttention(c["embed"], c["heads"], batch_first=True)
    theirs.load_state_dict(
        {k: torch.from_numpy(v.numpy().copy()) for k, v in mine.state_dict().items()}
    )
    x_np = np.random.default_rng(0).standard_normal(
        (c["batch"], c["T"], c["embed"]), dtype=np.float32
    )
    hidden = np.triu(np.ones((c["T"], c["T"]), dtype=bool), k=1)  # True = masked: causal
    inputs = {
        "minigrad": (mine, mg.tensor(x_np, requires_grad=True), mg.tensor(hidden)),
        "torch": (theirs, torch.tensor(x_np, requires_grad=True), torch.tensor(hidden)),
    }

    def make(lib, need_weights):
        module, x, mask = inputs[lib]

        def forward():
            with mg.no_grad() if lib == "minigrad" else torch.no_grad():
                return module(x, x, x, attn_mask=mask, need_weights=need_weights, is_causal=True)[0]

        def forward_backward():
            out = module(x, x, x, attn_mask=mask, need_weights=need_weights, is_causal=True)[0]
            out.sum().backward()
            x.grad = None
            module.zero_grad()

        return forward, forward_backward

    found = {}
    for lib in ("minigrad", "torch"):
        for need_weights in (False, True):
            found[f"{lib}, need_weights={need_weights}"] = make(lib, need_weights)
    for need_weights in (False, True):
        found[f"torch-1, need_weights={need_weights}"] = tuple(
            one_thread(fn) for fn in found[f"torch, need_weights={need_weights}"]
        )
    with mg.no_grad(), torch.no_grad():  # the two frameworks compute the same function
        a = found["minigrad, need_weights=False"][0]().numpy()
        b = found["torch, need_weights=False"][0]().numpy()
    if not np.allclose(a, b, atol=1e-4):
        raise RuntimeError(
            f"bench_attention_modules: minigrad and PyTorch disagree by {np.abs(a - b).max():.2g}"
        )
    return found


def run(repeat=5, number=5):
    """{'forward': {case: [ms]}, 'forward + backward': {case: [ms]}}, printed as a table."""
    import minigrad as mg

    results = time_forward_backward(cases(), repeat, number)
    c = SHAPE
    print(
        f"nn.MultiheadAttention({c['embed']}, {c['heads']}), causal self-attention on "
        f"({c['batch']}, {c['T']}, {c['embed']}) float32; minigrad threads {mg.threads.info()}"
    )
    for part, ms in results.items():
        print(f"\n{part}: ms per call, median (min-max) of {repeat} turns of {number} calls")
        for name, values in ms.items():
            print(f"  {name:32s} {span(values):>22s}")
        for w in (False, True):
            for lib in ("torch", "torch-1"):
                ratio = [
                    a / b
                    for a, b in zip(
                        ms[f"minigrad, need_weights={w}"], ms[f"{lib}, need_weights={w}"]
                    )
                ]
                print(f"  {f'minigrad / {lib}, weights={w}':32s} {span(ratio, '{:.2f}x'):>22s}")
        ratio = [
            a / b
            for a, b in zip(ms["minigrad, need_weights=True"], ms["minigrad, need_weights=False"])
        ]
        print(f"  {'minigrad: spelled out / kernel':32s} {span(ratio, '{:.2f}x'):>22s}")
    return results


def main():
    turns_main(__doc__, run, default_repeat=5, default_number=5)


if __name__ == "__main__":
    main()
