"""Cross-entropy benchmark: forward + backward of the mean cross-entropy of (batch,
classes) float32 logits against class indices, for a few sizes, timed in one run:

- minigrad's `F.cross_entropy`: one fused Function (max-shifted log-softmax, the pick
  of the true class and the mean in one forward; softmax minus one-hot in one backward),
- the same loss composed from small minigrad Tensor ops (max, subtract, exp, sum, log,
  subtract, gather, mean: eight recorded nodes, each allocating its output and its
  gradient),
- PyTorch's `F.cross_entropy`, and the same small-op composition in PyTorch,

all on the same number of threads (--threads, default 1). Printed: the median time and
its quartiles over the repeats, and the ratios fused / composed and minigrad / PyTorch.

With --backward it times instead the backward alone of minigrad's `F.cross_entropy` on
large logits, two ways taking turns in one process: CrossEntropy.backward's Tensor
formula (its path before the softmax kernels had a cross-entropy backward) and the
kernels' `cross_entropy_backward` (one compiled pass per row), and PyTorch's backward.

    python benchmarks/bench_losses.py [--quick] [--threads N] [--repeat R] [--backward]
"""

import contextlib
import functools
import sys

from lesson_timing import blas_threads, lesson_main, quartiles_ms, span, turns

# (batch, classes): the digits MLP's batch, an ImageNet-sized classifier, and a
# character-level GPT's batch (64 sequences of 256 tokens, 65 characters)
SIZES = [(128, 10), (256, 1000), (16384, 65)]
IMPLEMENTATIONS = ("minigrad", "minigrad_composed", "torch", "torch_composed")


def composed_cross_entropy(logits, target):
    """The mean cross-entropy from small ops, with the max-shift that keeps it finite.
    Works on minigrad and PyTorch tensors alike (both have these methods)."""
    shifted = logits - logits.max(dim=1, keepdim=True)[0].detach()
    log_probs = shifted - shifted.exp().sum(dim=1, keepdim=True).log()
    return -log_probs.gather(1, target.unsqueeze(1)).mean()


def bench(lib, loss_fn, logits_np, target_np, repeat):
    x = lib.tensor(logits_np, requires_grad=True)
    t = lib.tensor(target_np)

    def step():
        loss_fn(x, t).backward()
        x.grad = None

    return quartiles_ms(step, repeat)


def check_agree(logits_np, target_np):
    """The four implementations compute the same loss and gradient (else the times mean nothing)."""
    import numpy as np
    import torch

    import minigrad as mg
    import minigrad.nn.functional as F

    values = []
    for lib, fn in (
        (mg, F.cross_entropy),
        (mg, composed_cross_entropy),
        (torch, torch.nn.functional.cross_entropy),
    ):
        x = lib.tensor(logits_np, requires_grad=True)
        loss = fn(x, lib.tensor(target_np))
        loss.backward()
        values.append((loss.item(), np.asarray(x.grad.numpy())))
    for loss, grad in values[1:]:
        assert np.isclose(loss, values[0][0], rtol=1e-4) and np.allclose(
            grad, values[0][1], atol=1e-6
        )


def run(repeat=10, threads=1, sizes=SIZES):
    """Time every size; returns one dict per size with (median, q1, q3) in ms per implementation."""
    import numpy as np
    import torch

    import minigrad as mg
    import minigrad.nn.functional as F

    torch.set_num_threads(threads)
    rng = np.random.default_rng(0)
    fns = {
        "minigrad": (mg, F.cross_entropy),
        "minigrad_composed": (mg, composed_cross_entropy),
        "torch": (torch, torch.nn.functional.cross_entropy),
        "torch_composed": (torch, composed_cross_entropy),
    }
    results = []
    with blas_threads(threads):
        for batch, classes in sizes:
            logits = (3 * rng.standard_normal((batch, classes))).astype(np.float32)
            target = rng.integers(0, classes, batch)
            check_agree(logits, target)
            r = max(repeat, int(repeat * 2e5 / (batch * classes)))  # small cases: more repeats
            row = {"size": (batch, classes)}
            for key in IMPLEMENTATIONS:
                lib, fn = fns[key]
                row[key] = bench(lib, fn, logits, target, r)
            results.append(row)
    return results


def report(results, threads):
    print(
        f"\nCross-entropy (mean, class indices) forward + backward, float32, {threads} thread(s): "
        "median ms [quartiles]"
    )
    header = " ".join(
        f"{name:>23s}"
        for name in ("minigrad fused", "minigrad composed", "PyTorch", "PyTorch composed")
    )
    print(f"{'(batch, classes)':17s} {header} {'composed/fused':>15s} {'minigrad/PT':>12s}")
    for row in results:
        cells = " ".join(
            f"{row[k][0]:8.3f} [{row[k][1]:.3f}-{row[k][2]:.3f}]".rjust(23) for k in IMPLEMENTATIONS
        )
        fused_gain = row["minigrad_composed"][0] / row["minigrad"][0]
        ratio = row["minigrad"][0] / row["torch"][0]
        print(f"{str(row['size']):17s} {cells} {fused_gain:14.1f}x {ratio:11.2f}x")


# (batch, classes) for --backward: a character-level GPT's logits (65 characters) at two
# batches, and an ImageNet-sized classifier's batch of 256 (all past the kernels' MIN_SPLIT)
BACKWARD_SIZES = [(8192, 65), (16384, 65), (256, 1000)]
BACKWARD_WAYS = ("formula", "kernel", "torch")


@contextlib.contextmanager
def formula_backward(on):
    """While `on`, CrossEntropy.backward runs its Tensor formula at every size: the CPU
    softmax kernels say they take no array (`compiled`), which is all it asks."""
    from minigrad.kernels.cpu import softmax as cpu_softmax

    compiled = cpu_softmax.compiled
    if on:
        cpu_softmax.compiled = lambda x, axis: False
    try:
        yield
    finally:
        cpu_softmax.compiled = compiled


def _backward(way, tensor, loss):
    """loss's backward (the graph kept), the gradient it gave `tensor`, and tensor.grad cleared."""
    with formula_backward(way == "formula"):
        loss.backward(retain_graph=True)
    grad, tensor.grad = tensor.grad, None
    return grad


def run_backward(repeat=10, threads=1, sizes=BACKWARD_SIZES):
    """{size: {way: [ms per backward in each turn]}}, the ways taking turns (lesson_timing)."""
    import numpy as np
    import torch

    import minigrad as mg
    import minigrad.nn.functional as F

    torch.set_num_threads(threads)
    mg.set_num_threads(threads)
    rng = np.random.default_rng(0)
    results = {}
    with blas_threads(threads):
        for batch, classes in sizes:
            logits = (3 * rng.standard_normal((batch, classes))).astype(np.float32)
            target = rng.integers(0, classes, batch)
            x, x_t = mg.tensor(logits, requires_grad=True), torch.tensor(logits, requires_grad=True)
            # one forward each, then its backward again and again
            loss = F.cross_entropy(x, mg.tensor(target))
            loss_t = torch.nn.functional.cross_entropy(x_t, torch.tensor(target))
            pairs = {"formula": (x, loss), "kernel": (x, loss), "torch": (x_t, loss_t)}
            fns = {way: functools.partial(_backward, way, *pairs[way]) for way in BACKWARD_WAYS}
            grads = [np.asarray(fns[way]().numpy()) for way in BACKWARD_WAYS]
            for grad in grads[1:]:  # the same gradient three ways, else the times mean nothing
                assert np.allclose(grad, grads[0], rtol=1e-4, atol=1e-8)
            results[batch, classes] = turns(fns, repeat, number=5)
    return results


def report_backward(results, threads):
    print(
        f"\nCross-entropy (mean, class indices) backward alone, float32, {threads} thread(s): "
        "ms, median (min-max) of the turns"
    )
    print(
        f"{'(batch, classes)':17s}"
        + "".join(f"{w:>24s}" for w in BACKWARD_WAYS)
        + "  formula / kernel"
    )
    for size, ms in results.items():
        ratios = [f / k for f, k in zip(ms["formula"], ms["kernel"])]
        cells = "".join(f"{span(ms[w], '{:.3f}'):>24s}" for w in BACKWARD_WAYS)
        print(f"{str(size):17s}{cells}  {span(ratios)}x")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if "--backward" in argv:
        argv.remove("--backward")
        return lesson_main(__doc__, run_backward, report_backward, argv, default_repeat=11)
    return lesson_main(__doc__, run, report, argv)


if __name__ == "__main__":
    main()
