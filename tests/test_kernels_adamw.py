"""The AdamW / Adam step as a kernel family (issue #24): the one-pass CPU kernel
(kernels/cpu/adamw.py) gives the NumPy reference's result (kernels/reference/adamw.py) to
the last bit, at odd sizes, in float32 and float64, with every option; the optimizers on
the kernel follow PyTorch's; small, strided or other-dtype parameters go to the reference;
and the "numpy" backend hands out the reference.
"""

import numpy as np
import pytest
import torch

import minigrad as mg
from minigrad import backends
from minigrad.kernels.cpu import adamw as cpu
from minigrad.kernels.reference import adamw as reference

# (decoupled, weight_decay, amsgrad, maximize): AdamW, Adam with L2, and without decay
OPTIONS = [
    (True, 0.1, False, False),
    (False, 0.1, True, False),
    (True, 0.05, True, True),
    (False, 0.0, False, True),
]


def state(n, dtype, seed=0):
    """param, grad, m, v, max_v after a few steps' worth of history."""
    rng = np.random.default_rng(seed)
    param, grad = rng.standard_normal(n), rng.standard_normal(n)
    m, v = 0.1 * rng.standard_normal(n), 0.01 * rng.random(n)
    max_v = v + 0.01 * rng.random(n)
    return [a.astype(dtype) for a in (param, grad, m, v, max_v)]


def run(module, arrays, decoupled, weight_decay, amsgrad, maximize, steps=(1, 2, 7)):
    param, grad, m, v, max_v = arrays
    for step in steps:
        module.adam_step(
            param, grad, m, v, max_v if amsgrad else None, step, 1e-2, 0.9, 0.99, 1e-8,
            weight_decay, decoupled, maximize,
        )  # fmt: skip
    return arrays


@pytest.mark.parametrize("options", OPTIONS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n, min_parallel", [(1, 10**9), (1031, 10**9), (4099, 1)])
def test_kernel_equals_the_reference_to_the_bit(monkeypatch, options, dtype, n, min_parallel):
    # every size on the kernel: one core, or every core (the elements cut into one block per
    # thread, the blocks' edges at odd places)
    monkeypatch.setattr(cpu, "MIN_KERNEL", 0)
    monkeypatch.setattr(cpu, "MIN_PARALLEL", min_parallel)
    want = run(reference, state(n, dtype), *options)
    got = run(cpu, state(n, dtype), *options)
    for name, a, b in zip(("param", "grad", "m", "v", "max_v"), got, want):
        assert a.dtype == dtype
        np.testing.assert_array_equal(a, b, err_msg=name)
    assert not np.array_equal(want[0], state(n, dtype)[0])  # the step moved the parameter


def test_amsgrad_keeps_nan_as_np_maximum_does(monkeypatch):
    monkeypatch.setattr(cpu, "MIN_KERNEL", 0)
    arrays = [state(9, np.float64), state(9, np.float64)]
    for arrays_ in arrays:
        arrays_[4][2] = np.nan  # a NaN already in max_v
        arrays_[1][5] = np.nan  # a NaN gradient: v, then max_v, become NaN
    want = run(reference, arrays[0], False, 0.0, True, False)
    got = run(cpu, arrays[1], False, 0.0, True, False)
    assert np.isnan(got[4][[2, 5]]).all() and np.isnan(got[0][[2, 5]]).all()
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("case", ["strided", "float16", "small"])
def test_other_arrays_take_the_reference(monkeypatch, case):
    step = reference.adam_step
    calls = []

    def counted(*args):
        calls.append(args)
        return step(*args)

    monkeypatch.setattr(reference, "adam_step", counted)
    arrays = state(4096, np.float16 if case == "float16" else np.float32)
    if case == "strided":
        arrays[0] = np.repeat(arrays[0], 2)[::2]  # the same values, every other element
        assert not arrays[0].flags.c_contiguous
    if case == "small":
        arrays = [a[: cpu.MIN_KERNEL - 1] for a in arrays]
    expected = [a.copy() for a in arrays]
    run(cpu, arrays, True, 0.1, False, False, steps=(1,))
    assert len(calls) == 1  # the CPU module handed the step on
    step(*expected[:4], None, 1, 1e-2, 0.9, 0.99, 1e-8, 0.1, True, False)
    np.testing.assert_array_equal(arrays[0], expected[0])


@pytest.mark.parametrize(
    "name, kwargs",
    [
        ("AdamW", {"weight_decay": 0.1}),
        ("AdamW", {"weight_decay": 0.1, "amsgrad": True, "maximize": True}),
        ("Adam", {"weight_decay": 0.05}),
        ("Adam", {"amsgrad": True}),
    ],
)
def test_optimizer_on_the_kernel_follows_pytorch(monkeypatch, name, kwargs):
    monkeypatch.setattr(cpu, "MIN_KERNEL", 0)
    monkeypatch.setattr(cpu, "MIN_PARALLEL", 1)  # the elements cut over every thread
    rng = np.random.default_rng(3)
    w0 = rng.standard_normal((4097,)).astype(np.float32)
    grads = [rng.standard_normal(w0.shape).astype(np.float32) for _ in range(3)]
    mine, theirs = mg.nn.Parameter(mg.tensor(w0.copy())), torch.nn.Parameter(torch.tensor(w0))
    opts = (
        getattr(mg.optim, name)([mine], lr=1e-2, betas=(0.9, 0.99), **kwargs),
        getattr(torch.optim, name)([theirs], lr=1e-2, betas=(0.9, 0.99), **kwargs),
    )
    asked = []
    real = backends.kernels
    monkeypatch.setattr(
        backends, "kernels", lambda *a, **k: asked.append(real(*a, **k).__name__) or real(*a, **k)
    )
    for g in grads:
        mine.grad, theirs.grad = mg.tensor(g), torch.tensor(g)
        for opt in opts:
            opt.step()
    assert set(asked) == {"minigrad.kernels.cpu.adamw"}
    np.testing.assert_allclose(mine.detach().numpy(), theirs.detach().numpy(), rtol=1e-5, atol=1e-6)
    assert np.abs(mine.detach().numpy() - w0).max() > 1e-3  # the steps moved it


def test_numpy_backend_hands_out_the_reference():
    assert backends.kernels("adamw", backend="numpy") is reference
    assert backends.kernels("adamw", backend="numba") is cpu
