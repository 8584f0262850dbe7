"""Recurrent layers benchmark: forward + backward (the input and every weight require grad)
of one RNN, LSTM and GRU layer over a sequence, float32, timed in one run:

- minigrad's `nn.RNN` / `nn.LSTM` / `nn.GRU`: the input's product for all steps at once,
  then one Function for the whole sequence whose backward is backpropagation through
  time written out (minigrad/ops/recurrent.py),
- the same recurrence as a Python loop over `nn.RNNCell` / `nn.LSTMCell` / `nn.GRUCell`:
  about ten small Tensor ops per step, and autograd does backpropagation through time,
- PyTorch's `nn.RNN` / `nn.LSTM` / `nn.GRU` (one fused op per layer) and a loop over
  PyTorch's cells,

all with the same weights, on the same number of threads (--threads, default 1), at the
size of a small character model: 64 steps, batch 32, 64 input features, hidden size 128.
Printed: the median time and its quartiles over the repeats, and the ratios
cells / layer and minigrad / PyTorch.

    python benchmarks/bench_recurrent.py [--quick] [--threads N] [--repeat R]
"""

from lesson_timing import blas_threads, lesson_main, quartiles_ms

T, B, I, H = 64, 32, 64, 128  # steps, batch, input features, hidden size
CASES = [("RNN", "RNNCell"), ("LSTM", "LSTMCell"), ("GRU", "GRUCell")]
IMPLEMENTATIONS = ("minigrad", "minigrad_cells", "torch", "torch_cells")


def modules(lib_nn, layer, cell, state_dict):
    """(the layer, a cell holding the same weights) of one library, from a PyTorch state dict."""
    import numpy as np

    arrays = {k: v.detach().numpy().copy() for k, v in state_dict.items()}
    the_layer = getattr(lib_nn, layer)(I, H)
    the_cell = getattr(lib_nn, cell)(I, H)
    if lib_nn.__name__.startswith("torch"):
        import torch

        arrays = {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in arrays.items()}
    the_layer.load_state_dict(arrays)
    # weight_ih_l0 -> weight_ih
    the_cell.load_state_dict({k[: -len("_l0")]: v for k, v in arrays.items()})
    return the_layer, the_cell


def run_layer(layer):
    return lambda x: layer(x)[0]


def run_cells(cell, stack):
    """The loop a user writes with a cell: one step at a time, the outputs stacked."""

    def run(x):
        state, outputs = None, []
        for t in range(x.shape[0]):
            state = cell(x[t], state)
            outputs.append(state[0] if isinstance(state, tuple) else state)
        return stack(outputs)

    return run


def bench(lib, fn, params, x_np, g_np, repeat):
    import numpy as np

    x = lib.tensor(x_np, requires_grad=True)
    g = lib.tensor(g_np)

    def step():
        fn(x).backward(g)
        x.grad = None
        for p in params:
            p.grad = None

    fn(x).backward(g)
    grads = [np.asarray(t.grad.numpy()) for t in (x, *params)]
    x.grad = None
    for p in params:
        p.grad = None
    return quartiles_ms(step, repeat), grads


def run(repeat=10, threads=1, cases=CASES):
    """Time every case; returns one dict per case with (median, q1, q3) in ms per implementation."""
    import numpy as np
    import torch

    import minigrad as mg
    import minigrad.nn as nn

    torch.set_num_threads(threads)
    rng = np.random.default_rng(0)
    results = []
    with blas_threads(threads):
        for layer, cell in cases:
            torch.manual_seed(0)
            state_dict = getattr(torch.nn, layer)(I, H).state_dict()
            x = rng.standard_normal((T, B, I)).astype(np.float32)
            g = rng.standard_normal((T, B, H)).astype(np.float32)
            row = {"case": layer, "shape": (T, B, I, H)}
            reference = None
            for lib, lib_nn, framework in ((mg, nn, "minigrad"), (torch, torch.nn, "torch")):
                the_layer, the_cell = modules(lib_nn, layer, cell, state_dict)
                for key, fn, params in (
                    (framework, run_layer(the_layer), list(the_layer.parameters())),
                    (
                        framework + "_cells",
                        run_cells(the_cell, lib.stack),
                        list(the_cell.parameters()),
                    ),
                ):
                    row[key], grads = bench(lib, fn, params, x, g, repeat)
                    if reference is None:
                        reference = grads
                    # the four compute the same gradients (else the times mean nothing)
                    for got, want in zip(grads, reference):
                        assert np.allclose(got, want, rtol=1e-3, atol=1e-3 * np.abs(want).max()), (
                            layer,
                            key,
                        )
            results.append(row)
    return results


def report(results, threads):
    print(
        f"\nRecurrent layer forward + backward, {T} steps, batch {B}, input {I}, hidden {H}, "
        f"float32, {threads} thread(s): median ms [quartiles]"
    )
    names = ("minigrad, one Function", "minigrad, cell loop", "PyTorch", "PyTorch, cell loop")
    header = " ".join(f"{name:>23s}" for name in names)
    print(f"{'layer':8s} {header} {'cells/layer':>12s} {'minigrad/PT':>12s}")
    for row in results:
        cells = " ".join(
            f"{row[k][0]:8.2f} [{row[k][1]:.2f}-{row[k][2]:.2f}]".rjust(23) for k in IMPLEMENTATIONS
        )
        gain = row["minigrad_cells"][0] / row["minigrad"][0]
        ratio = row["minigrad"][0] / row["torch"][0]
        print(f"{row['case']:8s} {cells} {gain:11.1f}x {ratio:11.2f}x")


def main(argv=None):
    return lesson_main(__doc__, run, report, argv)


if __name__ == "__main__":
    main()
