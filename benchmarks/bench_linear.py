"""Linear-layer benchmark: forward + backward of `nn.Linear` (x requires grad, so all
three matrix products of the backward run: dX = G W, dW = G^T X, db = sum of G) for a
few (batch, in_features, out_features) sizes, float32, timed in one run:

- minigrad's `nn.Linear` (one `Linear` op recorded by autograd, the bias added inside the
  product's kernel; its backward records the three products' tensor ops),
- the same three products written in NumPy by hand, with no autograd: the floor that
  minigrad's BLAS calls cannot beat, so the gap to it is minigrad's own overhead,
- PyTorch's `nn.Linear` (one fused `addmm` node),

all on the same number of threads (--threads, default 1: minigrad's own BLAS policy,
see minigrad/threads.py). Printed: the median time and its quartiles over the repeats,
the rate in GFLOP/s (6 N in out floating-point operations: three products of
N in out multiply-adds) and the ratio minigrad / PyTorch.

    python benchmarks/bench_linear.py [--quick] [--threads N] [--repeat R]
"""

from lesson_timing import blas_threads, lesson_main, quartiles_ms

# (batch, in_features, out_features): the digits MLP's first layer, a square layer, and
# a transformer's MLP expansion (width 768, four times wider inside)
SIZES = [(128, 64, 256), (512, 512, 512), (256, 768, 3072)]


def flops(batch, n_in, n_out):
    """Forward + backward: three products of batch * n_in * n_out multiply-adds (2 flops each)."""
    return 6 * batch * n_in * n_out


def bench_minigrad(x_np, w_np, b_np, g_np, repeat):
    import minigrad as mg
    import minigrad.nn as nn

    layer = nn.Linear(w_np.shape[1], w_np.shape[0])
    layer.weight.array[...] = w_np
    layer.bias.array[...] = b_np
    x = mg.tensor(x_np, requires_grad=True)
    g = mg.tensor(g_np)

    def step():
        layer(x).backward(g)
        x.grad = layer.weight.grad = layer.bias.grad = None

    return quartiles_ms(step, repeat)


def bench_numpy(x, w, b, g, repeat):
    import numpy as np

    def step():
        y = x @ w.T + b  # forward
        dx = g @ w  # backward: the three formulas of the lesson
        dw = g.T @ x
        db = g.sum(axis=0)
        return y, dx, dw, db

    assert np.allclose(step()[0], x @ w.T + b)
    return quartiles_ms(step, repeat)


def bench_torch(x_np, w_np, b_np, g_np, repeat):
    import torch

    layer = torch.nn.Linear(w_np.shape[1], w_np.shape[0])
    with torch.no_grad():
        layer.weight.copy_(torch.from_numpy(w_np))
        layer.bias.copy_(torch.from_numpy(b_np))
    x = torch.tensor(x_np, requires_grad=True)
    g = torch.from_numpy(g_np)

    def step():
        layer(x).backward(g)
        x.grad = layer.weight.grad = layer.bias.grad = None

    return quartiles_ms(step, repeat)


def run(repeat=10, threads=1, sizes=SIZES):
    """Time every size; returns one dict per size with (median, q1, q3) in ms per implementation."""
    import numpy as np
    import torch

    torch.set_num_threads(threads)
    rng = np.random.default_rng(0)
    results = []
    with blas_threads(threads):
        for batch, n_in, n_out in sizes:
            x = rng.standard_normal((batch, n_in)).astype(np.float32)
            w = (rng.standard_normal((n_out, n_in)) / np.sqrt(n_in)).astype(np.float32)
            b = rng.standard_normal(n_out).astype(np.float32)
            g = rng.standard_normal((batch, n_out)).astype(np.float32)
            # small layers take microseconds: more repeats for the same wall time
            r = max(repeat, int(repeat * 2e8 / flops(batch, n_in, n_out)))
            results.append(
                {
                    "size": (batch, n_in, n_out),
                    "flops": flops(batch, n_in, n_out),
                    "minigrad": bench_minigrad(x, w, b, g, r),
                    "numpy": bench_numpy(x, w, b, g, r),
                    "torch": bench_torch(x, w, b, g, r),
                }
            )
    return results


def report(results, threads):
    print(
        f"\nnn.Linear forward + backward, float32, {threads} thread(s): median ms [quartiles], "
        "GFLOP/s"
    )
    print(
        f"{'(batch, in, out)':20s} {'minigrad':>22s} {'NumPy by hand':>22s} {'PyTorch':>22s} "
        f"{'minigrad/PT':>12s}"
    )
    for row in results:
        cells = []
        for key in ("minigrad", "numpy", "torch"):
            med, q1, q3 = row[key]
            cells.append(f"{med:7.3f} [{q1:.3f}-{q3:.3f}] {row['flops'] / med / 1e6:5.1f}")
        ratio = row["minigrad"][0] / row["torch"][0]
        print(
            f"{str(row['size']):20s} {cells[0]:>22s} {cells[1]:>22s} {cells[2]:>22s} {ratio:11.2f}x"
        )


def main(argv=None):
    return lesson_main(__doc__, run, report, argv)


if __name__ == "__main__":
    main()
