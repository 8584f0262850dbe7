"""Optimizer benchmark: one `step()` of SGD with momentum, Adam and AdamW over a model's
parameter list, float32, the gradients already in `.grad`, timed in one run:

- minigrad's optimizers: per parameter, a few NumPy operations that update the weights
  and the state (m, v, momentum buffer) in place (`+=`, `*=`, `param.sub_`),
- the same update written as the textbook formula, out of place: every line makes new
  arrays (m = b1 m + (1 - b1) g, ...), and the weights are then copied back,
- PyTorch's optimizers with their default implementation on the CPU (`foreach`, which
  updates all parameters of a kind in a few multi-tensor calls) and with `foreach=False`
  (a loop over the parameters, as minigrad's),

on the same number of threads (--threads, default 1), for two parameter lists: the
digits MLP of `minigrad-train` (64-256-128-10, 51k parameters in 6 tensors) and a
784-1024-256-10 MLP (1.07M parameters in 6 tensors). Printed: the median time of a step
and its quartiles over the repeats, the parameter bytes updated per second, and the
ratio minigrad / PyTorch (default).

    python benchmarks/bench_optimizers.py [--quick] [--threads N] [--repeat R]
"""

from lesson_timing import blas_threads, lesson_main, quartiles_ms

MODELS = {"digits MLP (51k)": (64, 256, 128, 10), "MLP (1.07M)": (784, 1024, 256, 10)}
OPTIMIZERS = {
    "SGD(momentum=0.9)": ("SGD", dict(lr=0.01, momentum=0.9)),
    "Adam": ("Adam", dict(lr=1e-3)),
    "AdamW": ("AdamW", dict(lr=1e-3, weight_decay=0.01)),
}
IMPLEMENTATIONS = ("minigrad", "naive", "torch", "torch_loop")


def parameter_arrays(sizes, seed=0):
    """(weight, bias, weight grad, bias grad) float32 arrays for each layer of an MLP."""
    import numpy as np

    rng = np.random.default_rng(seed)
    arrays = []
    for n_in, n_out in zip(sizes[:-1], sizes[1:]):
        for shape in ((n_out, n_in), (n_out,)):
            arrays.append(
                (
                    rng.standard_normal(shape).astype(np.float32),
                    rng.standard_normal(shape).astype(np.float32),
                )
            )
    return arrays


class NaiveStep:
    """The update as the formulas read, every line making new arrays, for each parameter
    (a list of (param array, grad array)); the new weights are copied into the old ones."""

    def __init__(self, name, hyper, params):
        import numpy as np

        self.name, self.hyper, self.params, self.t = name, hyper, params, 0
        self.m = [np.zeros_like(p) for p, _ in params]
        self.v = [np.zeros_like(p) for p, _ in params]

    def __call__(self):
        import numpy as np

        self.t += 1
        h, t = self.hyper, self.t
        for i, (p, g) in enumerate(self.params):
            if self.name == "SGD":
                self.m[i] = h["momentum"] * self.m[i] + g if t > 1 else g.copy()
                new = p - h["lr"] * self.m[i]
            else:
                b1, b2, eps, lr = 0.9, 0.999, 1e-8, h["lr"]
                decayed = p - lr * h["weight_decay"] * p if self.name == "AdamW" else p
                self.m[i] = b1 * self.m[i] + (1 - b1) * g
                self.v[i] = b2 * self.v[i] + (1 - b2) * g * g
                m_hat = self.m[i] / (1 - b1**t)
                v_hat = self.v[i] / (1 - b2**t)
                new = decayed - lr * m_hat / (np.sqrt(v_hat) + eps)
            p[...] = new


def bench_minigrad(name, hyper, arrays, repeat):
    import minigrad as mg
    import minigrad.optim as optim

    params = []
    for value, grad in arrays:
        p = mg.nn.Parameter(mg.tensor(value.copy()))
        p.grad = mg.tensor(grad)
        params.append(p)
    return quartiles_ms(getattr(optim, name)(params, **hyper).step, repeat)


def bench_naive(name, hyper, arrays, repeat):
    return quartiles_ms(
        NaiveStep(name, hyper, [(value.copy(), grad) for value, grad in arrays]), repeat
    )


def bench_torch(name, hyper, arrays, repeat, foreach):
    import torch

    params = []
    for value, grad in arrays:
        p = torch.nn.Parameter(torch.tensor(value))
        p.grad = torch.tensor(grad)
        params.append(p)
    return quartiles_ms(getattr(torch.optim, name)(params, foreach=foreach, **hyper).step, repeat)


def check_agree(name, hyper, arrays, steps=3):
    """minigrad's and PyTorch's steps, and the naive formula, move the weights alike."""
    import numpy as np
    import torch

    import minigrad as mg
    import minigrad.optim as optim

    mg_params = []
    for value, grad in arrays:
        p = mg.nn.Parameter(mg.tensor(value.copy()))
        p.grad = mg.tensor(grad)
        mg_params.append(p)
    pt_params = []
    for value, grad in arrays:
        p = torch.nn.Parameter(torch.tensor(value))
        p.grad = torch.tensor(grad)
        pt_params.append(p)
    naive = NaiveStep(name, hyper, [(value.copy(), grad) for value, grad in arrays])
    mg_opt, pt_opt = (
        getattr(optim, name)(mg_params, **hyper),
        getattr(torch.optim, name)(pt_params, **hyper),
    )
    for _ in range(steps):
        mg_opt.step()
        pt_opt.step()
        naive()
    for a, b, (c, _) in zip(mg_params, pt_params, naive.params):
        a = a.detach().numpy()
        assert np.allclose(a, b.detach().numpy(), atol=1e-6) and np.allclose(c, a, atol=1e-6), name


def run(repeat=20, threads=1, models=MODELS):
    """Time every (model, optimizer); returns one dict each with (median, q1, q3) in ms per
    implementation."""
    import torch

    torch.set_num_threads(threads)
    results = []
    with blas_threads(threads):
        for model, sizes in models.items():
            arrays = parameter_arrays(sizes)
            n_params = sum(value.size for value, _ in arrays)
            for label, (name, hyper) in OPTIMIZERS.items():
                check_agree(name, hyper, arrays)
                row = {"model": model, "optimizer": label, "params": n_params}
                row["minigrad"] = bench_minigrad(name, hyper, arrays, repeat)
                row["naive"] = bench_naive(name, hyper, arrays, repeat)
                row["torch"] = bench_torch(name, hyper, arrays, repeat, foreach=None)
                row["torch_loop"] = bench_torch(name, hyper, arrays, repeat, foreach=False)
                results.append(row)
    return results


def report(results, threads):
    print(f"\nOne optimizer step, float32, {threads} thread(s): median ms [quartiles]")
    names = (
        "minigrad (in place)",
        "textbook, out of place",
        "PyTorch (foreach)",
        "PyTorch (for loop)",
    )
    header = " ".join(f"{name:>23s}" for name in names)
    print(f"{'model, optimizer':38s} {header} {'GB/s minigrad':>14s} {'minigrad/PT':>12s}")
    for row in results:
        cells = " ".join(
            f"{row[k][0]:8.3f} [{row[k][1]:.3f}-{row[k][2]:.3f}]".rjust(23) for k in IMPLEMENTATIONS
        )
        rate = 4 * row["params"] / row["minigrad"][0] / 1e6  # parameter bytes per second
        ratio = row["minigrad"][0] / row["torch"][0]
        print(f"{row['model'] + ', ' + row['optimizer']:38s} {cells} {rate:14.1f} {ratio:11.2f}x")


def main(argv=None):
    return lesson_main(__doc__, run, report, argv, default_repeat=30)


if __name__ == "__main__":
    main()
