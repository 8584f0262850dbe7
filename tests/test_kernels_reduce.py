"""The sum of every element as a kernel family: the compiled sum (kernels/cpu/reduce.py)
agrees with the exact sum (float64 of the float64 values) at least as closely as NumPy's,
at odd sizes, in float32 and float64, on one core and on every core, with NumPy's result
types and shapes; NaN and infinities propagate; every other call is NumPy's; and
`Tensor.sum()` reaches the kernel and matches PyTorch.
"""

import numpy as np
import pytest
import torch

import minigrad as mg
from minigrad import backends
from minigrad.kernels.cpu import reduce as cpu
from minigrad.kernels.reference import reduce as reference
from tests.helpers import check_grads


@pytest.fixture(params=["serial", "parallel"])
def on_kernel(request, monkeypatch):
    """Every size on the kernel, on one core or in one block per thread."""
    monkeypatch.setattr(cpu, "MIN_KERNEL", 0)
    monkeypatch.setattr(cpu, "SPLIT", 0 if request.param == "parallel" else 10**12)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(1,), (7,), (3, 5, 7), (2, 3, 1, 11), (1001,)])
def test_kernel_sum_is_as_close_to_the_exact_sum_as_numpys(on_kernel, dtype, shape):
    x = np.random.default_rng(3).standard_normal(shape).astype(dtype) + 0.5
    exact = sum(sorted(x.astype(np.float64).ravel().tolist(), key=abs))  # near exact
    got, numpy_sum = cpu.sum(x), np.sum(x)
    assert type(got) is type(numpy_sum) is dtype  # a NumPy scalar of x's dtype
    if dtype == np.float32:
        # float32 numbers added in float64 lose nothing: one rounding, at the end
        assert abs(float(got) - exact) <= np.finfo(dtype).eps * abs(exact)
        assert abs(float(got) - exact) <= abs(float(numpy_sum) - exact) + 1e-12
    else:  # a float64 sum: the usual bound, n eps times the sum of the magnitudes
        bound = x.size * np.finfo(dtype).eps * np.abs(x).sum()
        assert abs(float(got) - exact) <= bound


def test_a_large_float32_sum_keeps_its_precision():
    """400,001 numbers of 0.1 (float32): the float64 partial sums lose nothing a float32
    running sum would; at the default sizes (the kernel, in one block and in several)."""
    for size in (400_001, cpu.SPLIT + 3):
        x = np.full(size, 0.1, dtype=np.float32)
        exact = size * float(np.float32(0.1))
        got = cpu.sum(x)
        assert abs(float(got) - exact) <= np.finfo(np.float32).eps * exact
        assert abs(float(got) - exact) <= abs(float(np.sum(x)) - exact)


def test_keepdims_gives_numpys_shape(on_kernel):
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    got, expected = cpu.sum(x, keepdims=True), np.sum(x, keepdims=True)
    assert got.shape == expected.shape == (1, 1, 1) and got.dtype == expected.dtype
    assert got[0, 0, 0] == 276


@pytest.mark.parametrize("special,expected", [(np.nan, np.nan), (np.inf, np.inf)])
def test_nan_and_infinity_propagate(on_kernel, special, expected):
    x = np.ones(100, dtype=np.float32)
    x[57] = special
    got = cpu.sum(x)
    assert np.isnan(got) if np.isnan(expected) else got == expected
    x[3] = -np.inf
    assert np.isnan(cpu.sum(x))  # inf + (-inf)


@pytest.mark.parametrize(
    "x, kwargs",
    [
        (np.arange(12.0).reshape(3, 4), {"axis": 0}),  # over some axes
        (np.arange(12.0).reshape(3, 4).T, {}),  # not in C order
        (np.arange(12, dtype=np.int32), {}),  # not a float
        (np.ones(6, dtype=np.complex64), {}),
        (np.zeros(0, dtype=np.float32), {}),  # empty: 0.0, as NumPy
    ],
    ids=["axis", "transposed", "int", "complex", "empty"],
)
def test_everything_else_is_numpys(on_kernel, x, kwargs):
    got, expected = cpu.sum(x, **kwargs), np.sum(x, **kwargs)
    assert np.asarray(got).dtype == np.asarray(expected).dtype
    np.testing.assert_array_equal(got, expected)


def test_tensor_sum_reaches_the_kernel_and_matches_torch(monkeypatch):
    asked = []
    kernels = backends.kernels

    def spy(family, *args, **kwargs):
        module = kernels(family, *args, **kwargs)
        if family == "reduce":
            asked.append(module.__name__)
        return module

    x = np.random.default_rng(5).standard_normal((64, 32, 14, 14)).astype(np.float32)
    monkeypatch.setattr(backends, "kernels", spy)
    t = mg.tensor(x, requires_grad=True)
    total = t.sum()
    total.backward()
    assert asked == ["minigrad.kernels.cpu.reduce"]
    expected = torch.tensor(x).sum()
    np.testing.assert_allclose(total.item(), expected.item(), rtol=1e-6)
    np.testing.assert_array_equal(t.grad.numpy(), np.ones_like(x))


def test_float64_gradcheck_through_the_kernel(on_kernel):
    x = np.random.default_rng(6).standard_normal((3, 4, 5))
    check_grads(lambda t: t.sum() * t.sum(), x, second=True)


def test_numpy_backend_hands_out_the_reference():
    assert backends.kernels("reduce", backend="numpy") is reference
    assert backends.kernels("reduce", backend="numba") is cpu
    x = np.arange(10.0)
    assert reference.sum(x) == 45.0 and reference.sum(x.reshape(2, 5), axis=1).tolist() == [
        10.0,
        35.0,
    ]
