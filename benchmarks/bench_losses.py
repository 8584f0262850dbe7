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

    python benchmarks/bench_losses.py [--quick] [--threads N] [--repeat R]
"""

from lesson_timing import blas_threads, lesson_main, quartiles_ms

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


def main(argv=None):
    return lesson_main(__doc__, run, report, argv)


if __name__ == "__main__":
    main()
