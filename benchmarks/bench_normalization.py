"""Normalization benchmark: forward + backward (input, weight and bias all require grad)
of layer norm and of batch norm in training mode, float32, timed in one run:

- minigrad's `F.layer_norm` / `F.batch_norm`: one Function each, whose backward is the
  hand-derived r (g - mean(g) - x_hat mean(g x_hat)) of the lesson,
- the same normalization composed from small minigrad Tensor ops (mean, subtract,
  multiply, mean, add, rsqrt, multiply, multiply, add: nine recorded nodes, each with
  its own backward, and each allocating its output and its gradient),
- PyTorch's `F.layer_norm` / `F.batch_norm`, and the same small-op composition in PyTorch,

all on the same number of threads (--threads, default 1). Printed: the median time and
its quartiles over the repeats, and the ratios composed / one-Function and minigrad / PyTorch.

    python benchmarks/bench_normalization.py [--quick] [--threads N] [--repeat R]
"""

from lesson_timing import blas_threads, lesson_main, quartiles_ms

EPS = 1e-5
# (case, input shape): a transformer's activations (batch 32 x 128 tokens, width 256)
# through layer norm, and a small CNN's first feature maps through BatchNorm2d
CASES = [("layer_norm", (4096, 256)), ("batch_norm", (64, 32, 28, 28))]
IMPLEMENTATIONS = ("minigrad", "minigrad_composed", "torch", "torch_composed")


def composed(x, weight, bias, dims, param_shape):
    """(x - mean) / sqrt(var + eps) * weight + bias over `dims`, from small ops; works
    on minigrad and PyTorch tensors alike."""
    mean = x.mean(dim=dims, keepdim=True)
    centred = x - mean
    var = (centred * centred).mean(dim=dims, keepdim=True)  # biased, as normalization uses
    x_hat = centred * (var + EPS).rsqrt()
    return x_hat * weight.reshape(param_shape) + bias.reshape(param_shape)


def make_functions(lib, functional):
    """{case: f(x, weight, bias)} for one framework: the library's op and the composition."""
    return {
        ("layer_norm", "op"): lambda x, w, b: functional.layer_norm(
            x, (x.shape[-1],), w, b, eps=EPS
        ),
        ("layer_norm", "composed"): lambda x, w, b: composed(x, w, b, (-1,), (x.shape[-1],)),
        ("batch_norm", "op"): lambda x, w, b: functional.batch_norm(
            x, None, None, w, b, training=True, eps=EPS
        ),
        ("batch_norm", "composed"): lambda x, w, b: composed(
            x, w, b, (0, 2, 3), (1, x.shape[1], 1, 1)
        ),
    }


def bench(lib, fn, x_np, g_np, repeat):
    import numpy as np

    channels = x_np.shape[-1] if x_np.ndim == 2 else x_np.shape[1]
    x = lib.tensor(x_np, requires_grad=True)
    w = lib.tensor(np.linspace(0.5, 1.5, channels, dtype=np.float32), requires_grad=True)
    b = lib.tensor(np.linspace(-1, 1, channels, dtype=np.float32), requires_grad=True)
    g = lib.tensor(g_np)

    def step():
        fn(x, w, b).backward(g)
        x.grad = w.grad = b.grad = None

    fn(x, w, b).backward(g)
    grads = [np.asarray(t.grad.numpy()) for t in (x, w, b)]
    x.grad = w.grad = b.grad = None
    return quartiles_ms(step, repeat), grads


def run(repeat=10, threads=1, cases=CASES):
    """Time every case; returns one dict per case with (median, q1, q3) in ms per implementation."""
    import numpy as np
    import torch

    import minigrad as mg
    import minigrad.nn.functional as F

    torch.set_num_threads(threads)
    rng = np.random.default_rng(0)
    libs = {
        "minigrad": (mg, make_functions(mg, F)),
        "torch": (torch, make_functions(torch, torch.nn.functional)),
    }
    results = []
    with blas_threads(threads):
        for case, shape in cases:
            x = (2 * rng.standard_normal(shape) + 1).astype(np.float32)
            g = rng.standard_normal(shape).astype(np.float32)
            row = {"case": case, "shape": shape}
            reference = None
            for key in IMPLEMENTATIONS:
                framework, variant = key.partition("_")[::2]
                lib, fns = libs[framework]
                row[key], grads = bench(lib, fns[(case, variant or "op")], x, g, repeat)
                if reference is None:
                    reference = grads
                # the four compute the same gradients (else the times mean nothing)
                for got, want in zip(grads, reference):
                    assert np.allclose(got, want, rtol=1e-3, atol=1e-3 * np.abs(want).max()), (
                        case,
                        key,
                    )
            results.append(row)
    return results


def report(results, threads):
    print(
        f"\nNormalization forward + backward, float32, {threads} thread(s): median ms [quartiles]"
    )
    header = " ".join(
        f"{name:>23s}"
        for name in ("minigrad, one Function", "minigrad composed", "PyTorch", "PyTorch composed")
    )
    print(f"{'case':30s} {header} {'composed/one':>13s} {'minigrad/PT':>12s}")
    for row in results:
        cells = " ".join(
            f"{row[k][0]:8.3f} [{row[k][1]:.3f}-{row[k][2]:.3f}]".rjust(23) for k in IMPLEMENTATIONS
        )
        gain = row["minigrad_composed"][0] / row["minigrad"][0]
        ratio = row["minigrad"][0] / row["torch"][0]
        print(f"{row['case'] + ' ' + str(row['shape']):30s} {cells} {gain:12.1f}x {ratio:11.2f}x")


def main(argv=None):
    return lesson_main(__doc__, run, report, argv)


if __name__ == "__main__":
    main()
