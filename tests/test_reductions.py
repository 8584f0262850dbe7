"""Reductions: sum mean var std max min amax amin argmax argmin prod logsumexp norm cumsum.

Every `dim` form (None, int, negative, tuple) with and without keepdim, against PyTorch,
plus float64 gradchecks.
"""

import re

import numpy as np
import pytest
import torch

import minigrad as mg

from .helpers import assert_close, check_against_torch, check_grads, leaf, rand, tleaf

# The torch names whose behaviour this file checks against torch (read by tools/api_coverage.py).
TORCH_API = [
    "torch.Tensor.amax",
    "torch.Tensor.amin",
    "torch.Tensor.argmax",
    "torch.Tensor.argmin",
    "torch.Tensor.cumsum",
    "torch.Tensor.logsumexp",
    "torch.Tensor.max",
    "torch.Tensor.mean",
    "torch.Tensor.min",
    "torch.Tensor.norm",
    "torch.Tensor.prod",
    "torch.Tensor.std",
    "torch.Tensor.sum",
    "torch.Tensor.var",
    "torch.argmax",
    "torch.argmin",
    "torch.logsumexp",
    "torch.max",
    "torch.mean",
    "torch.min",
    "torch.norm",
    "torch.sum",
]

DIMS = [None, 0, 1, -1, (0, 2), (-1, 0), (0, 1, 2)]
INF = float("inf")


def _kw(dim, keepdim):
    return {} if dim is None and not keepdim else {"dim": dim, "keepdim": keepdim}


# ---- sum / mean ---------------------------------------------------------------------------
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dim", DIMS, ids=str)
@pytest.mark.parametrize("name", ["sum", "mean"])
def test_sum_mean_against_torch(name, dim, keepdim):
    if dim is None and keepdim:
        pytest.skip("torch.sum(x, keepdim=True) needs a dim")
    kw = _kw(dim, keepdim)
    check_against_torch(
        lambda x: getattr(x, name)(**kw), lambda x: getattr(x, name)(**kw), rand(2, 3, 4, seed=1)
    )


@pytest.mark.parametrize(
    "shape, dim", [((), None), ((), 0), ((), -1), ((1,), 0), ((3, 1), 1), ((1, 1), (0, 1))], ids=str
)
@pytest.mark.parametrize("name", ["sum", "mean"])
def test_sum_mean_odd_shapes(name, shape, dim):
    kw = {} if dim is None else {"dim": dim}
    check_against_torch(
        lambda x: getattr(x, name)(**kw), lambda x: getattr(x, name)(**kw), rand(*shape, seed=2)
    )


@pytest.mark.parametrize("name", ["sum", "mean"])
def test_sum_mean_function_forms_against_torch(name):
    """(Their gradchecks are the autograd exercise's, in tests/test_exercise_autograd.py.)"""
    check_against_torch(
        lambda x: getattr(mg, name)(x, 1), lambda x: getattr(torch, name)(x, 1), rand(2, 3, seed=3)
    )


def test_sum_of_int_and_bool_tensors_like_torch():
    for data in ([1, 2, 3], [True, True, False], [[1, 2], [3, 4]]):
        out, tout = mg.tensor(data).sum(), torch.tensor(data).sum()
        assert out.dtype == np.int64 == tout.numpy().dtype and out.item() == tout.item()
    out = mg.tensor(np.array([100, 100], dtype=np.int8)).sum()
    assert out.item() == 200  # no overflow of the input type, as torch
    assert mg.tensor([1, 2]).sum(dtype=mg.float64).dtype == np.float64


def test_mean_of_int_tensor_raises():
    with pytest.raises(RuntimeError, match="mean"):
        mg.tensor([1, 2]).mean()


def test_reduction_dim_out_of_range_raises():
    with pytest.raises(IndexError, match="sum"):
        mg.zeros(2, 3).sum(dim=2)
    with pytest.raises(IndexError, match="mean"):
        mg.zeros(2, 3).mean(dim=-3)


# Every call that takes a list of dims refuses one named twice, as torch does
# ("dim 0 appears multiple times in the list of dims"); NumPy would reduce it once.
REPEATED_DIMS = {
    "sum": lambda lib, x, d: x.sum(d),
    "mean": lambda lib, x, d: x.mean(d),
    "var": lambda lib, x, d: x.var(d),
    "std": lambda lib, x, d: x.std(d),
    "amax": lambda lib, x, d: x.amax(d),
    "amin": lambda lib, x, d: x.amin(d),
    "logsumexp": lambda lib, x, d: x.logsumexp(d),
    "norm": lambda lib, x, d: x.norm(dim=d),
    "norm p=1": lambda lib, x, d: x.norm(p=1, dim=d),
    "any": lambda lib, x, d: x.any(d),
    "all": lambda lib, x, d: x.all(d),
    "linalg.vector_norm": lambda lib, x, d: lib.linalg.vector_norm(x, dim=d),
    "squeeze": lambda lib, x, d: x.squeeze(d),
    "flip": lambda lib, x, d: x.flip(d),
}


@pytest.mark.parametrize(
    "dims, shape, repeated", [((0, 0), (2, 1, 3), 0), ((1, -2), (2, 1, 3), 1), ((0, -1), (), 0)]
)
@pytest.mark.parametrize("name", list(REPEATED_DIMS))
def test_a_dim_named_twice_raises_like_torch(name, dims, shape, repeated):
    op = REPEATED_DIMS[name]
    with pytest.raises(
        RuntimeError, match=f"dim {repeated} appears multiple times in the list of dims"
    ):
        op(torch, torch.ones(shape), dims)
    op_name = name.split()[0]
    message = (
        rf"{op_name}: dim {repeated} appears multiple times in the list of dims "
        rf"{re.escape(str(dims))}"
    )
    with pytest.raises(RuntimeError, match=message):
        op(mg, mg.ones(shape), dims)


# ---- var / std ------------------------------------------------------------------------------
@pytest.mark.parametrize("correction", [None, 0, 1, 2])
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dim", [None, 1, -1, (0, 2)], ids=str)
@pytest.mark.parametrize("name", ["var", "std"])
def test_var_std_against_torch(name, dim, keepdim, correction):
    kw = {"dim": dim, "keepdim": keepdim}
    if correction is not None:
        kw["correction"] = correction
    check_against_torch(
        lambda x: getattr(x, name)(**kw), lambda x: getattr(x, name)(**kw), rand(3, 4, 3, seed=4)
    )


def test_var_default_is_bessel_corrected():
    x = mg.tensor([1.0, 2.0, 3.0, 4.0])
    assert x.var().item() == pytest.approx(5.0 / 3.0)
    assert x.var(correction=0).item() == pytest.approx(1.25)
    assert x.var(unbiased=False).item() == pytest.approx(1.25)
    assert x.std().item() == pytest.approx(np.sqrt(5.0 / 3.0))


@pytest.mark.parametrize("name", ["var", "std"])
def test_var_std_gradcheck(name):
    a = rand(2, 3, seed=5)
    check_grads(lambda x: getattr(x, name)(dim=1), a)
    check_grads(lambda x: getattr(x, name)(correction=0), a)
    check_grads(lambda x: getattr(x, name)(dim=0, keepdim=True), a, second=True)


@pytest.mark.parametrize("dim", [None, 0], ids=str)
def test_std_gradient_of_constant_input_is_zero_like_torch(dim):
    """std = sqrt(var) has gradient 0/0 where var == 0; PyTorch (and minigrad) give 0."""
    a = np.array([[1.0, 2.0], [1.0, 3.0], [1.0, -1.0]])  # column 0 constant
    if dim is None:
        a = np.full((2, 3), 4.0)
    check_against_torch(lambda x: x.std(dim=dim), lambda x: x.std(dim=dim), a)
    x = leaf(a)
    x.std(dim=dim).sum().backward()
    assert np.all(np.isfinite(x.grad.array))


def test_std_repr_names_the_op():
    assert "StdBackward" in repr(leaf([1.0, 2.0]).std())


def test_var_of_single_element_is_nan_like_torch():
    with np.errstate(all="ignore"), pytest.warns(UserWarning):
        expected = torch.tensor([[1.0, 2.0]]).var(dim=0)
    with np.errstate(all="ignore"):
        out = mg.tensor([[1.0, 2.0]]).var(dim=0)
    assert np.all(np.isnan(out.array)) and torch.isnan(expected).all()


# ---- max / min ---------------------------------------------------------------------------
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dim", [0, 1, -1, 2], ids=str)
@pytest.mark.parametrize("name", ["max", "min"])
def test_max_min_with_dim_return_values_and_indices(name, dim, keepdim):
    a = rand(2, 3, 4, seed=6)  # no ties
    x, tx = leaf(a), tleaf(a)
    out, tout = (
        getattr(x, name)(dim=dim, keepdim=keepdim),
        getattr(tx, name)(dim=dim, keepdim=keepdim),
    )
    values, indices = out  # unpacks as a pair
    assert out.values is values and out.indices is indices
    assert_close(values, tout.values)
    assert indices.dtype == np.int64
    np.testing.assert_array_equal(indices.array, tout.indices.numpy())
    assert not indices.requires_grad
    g = rand(*tout.values.shape, seed=7)
    values.backward(mg.tensor(g))
    tout.values.backward(torch.tensor(g))
    assert_close(x.grad, tx.grad)


@pytest.mark.parametrize("name", ["max", "min"])
def test_max_min_with_dim_gradcheck_and_function_form(name):
    a = rand(3, 4, seed=8)
    check_grads(lambda x: getattr(x, name)(dim=1)[0], a)
    check_grads(lambda x: getattr(x, name)(dim=0, keepdim=True).values, a)
    values, indices = getattr(mg, name)(leaf(a), 1)
    tvalues, tindices = getattr(torch, name)(tleaf(a), 1)
    assert_close(values, tvalues)
    np.testing.assert_array_equal(indices.array, tindices.numpy())


@pytest.mark.parametrize("name", ["max", "min"])
def test_max_min_with_dim_ties_send_the_gradient_to_the_returned_index(name):
    a = np.array([[1.0, 3.0, 3.0], [2.0, 0.0, 2.0], [-1.0, -1.0, -1.0]])
    x = leaf(a)
    values, indices = getattr(x, name)(dim=1)
    values.sum().backward()
    assert_close(values, getattr(tleaf(a), name)(dim=1).values)
    expected = np.zeros_like(a)
    expected[np.arange(3), indices.array] = 1.0
    np.testing.assert_array_equal(x.grad.array, expected)
    assert np.all(x.grad.array.sum(axis=1) == 1.0)


@pytest.mark.parametrize(
    "a",
    [
        np.array([[1.0, 3.0, 3.0], [2.0, 0.0, 2.0]]),  # ties for max (3, 3) and for min (0 alone)
        np.array([[-1.0, 5.0], [5.0, -1.0]]),  # ties at both ends
        np.array([2.0, 2.0, 2.0, 2.0]),  # all equal
        np.array(4.0),  # 0-d
        rand(2, 3, seed=9),
    ],
    ids=["ties", "ties2", "all_equal", "0d", "random"],
)
@pytest.mark.parametrize("name", ["max", "min", "amax", "amin"])
def test_full_max_min_ties_split_the_gradient_like_torch(name, a):
    check_against_torch(lambda x: getattr(x, name)(), lambda x: getattr(x, name)(), a)


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dim", [0, -1, (0, 1)], ids=str)
@pytest.mark.parametrize("name", ["amax", "amin"])
def test_amax_amin_with_dims_and_ties_like_torch(name, dim, keepdim):
    a = np.array([[1.0, 3.0, 3.0], [1.0, 0.0, 0.0]])
    check_against_torch(
        lambda x: getattr(x, name)(dim, keepdim), lambda x: getattr(x, name)(dim, keepdim), a
    )


def test_max_gradcheck_without_ties():
    check_grads(lambda x: x.max(), rand(2, 3, seed=10))
    check_grads(lambda x: x.amin(dim=1), rand(2, 3, seed=11))


def test_max_min_of_two_tensors_is_elementwise():
    a, b = mg.tensor([1.0, 5.0]), mg.tensor([3.0, 2.0])
    assert a.max(b).tolist() == [3.0, 5.0] and a.min(b).tolist() == [1.0, 2.0]


def test_max_of_empty_raises():
    with pytest.raises((RuntimeError, IndexError)):
        mg.zeros(0).max()
    with pytest.raises((RuntimeError, IndexError)):
        mg.zeros(2, 0).max(dim=1)


def test_max_on_0d_with_dim_like_torch():
    values, indices = mg.tensor(5.0).max(dim=0)
    t = torch.tensor(5.0).max(dim=0)
    assert values.item() == t.values.item() and indices.item() == t.indices.item() == 0


# ---- argmax / argmin ------------------------------------------------------------------
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dim", [None, 0, 1, -1], ids=str)
@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_argmax_argmin_against_torch(name, dim, keepdim):
    a = rand(3, 4, seed=12)
    out = getattr(mg.tensor(a), name)(dim=dim, keepdim=keepdim)
    tout = getattr(torch.tensor(a), name)(dim=dim, keepdim=keepdim)
    assert out.dtype == np.int64 and out.shape == tuple(tout.shape)
    np.testing.assert_array_equal(out.array, tout.numpy())
    assert not out.requires_grad


@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_argmax_argmin_ties_pick_the_first_like_torch(name):
    a = np.array([[1.0, 3.0, 3.0], [0.0, 0.0, 2.0]])
    for dim in (None, 1):
        out, tout = getattr(mg.tensor(a), name)(dim), getattr(torch.tensor(a), name)(dim)
        np.testing.assert_array_equal(out.array, tout.numpy())
    assert (
        getattr(mg, name)(mg.tensor([2, 7, 1])).item()
        == getattr(torch, name)(torch.tensor([2, 7, 1])).item()
    )


# ---- prod ----------------------------------------------------------------------------------
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dim", [None, 0, 1, -1], ids=str)
@pytest.mark.parametrize(
    "a",
    [
        rand(3, 4, seed=13),
        np.array([[1.5, 0.0, 2.0], [3.0, -1.0, 0.5]]),  # one zero
        np.array([[0.0, 0.0, 2.0], [3.0, -1.0, 0.0]]),  # two zeros in a row
        np.array([[0.0, 2.0, 3.0], [0.0, 4.0, 5.0]]),  # zeros in one column
    ],
    ids=["random", "one_zero", "two_zeros", "zero_column"],
)
def test_prod_against_torch(a, dim, keepdim):
    if dim is None and keepdim:
        pytest.skip("torch.prod(x, keepdim=True) needs a dim")
    kw = _kw(dim, keepdim)
    check_against_torch(lambda x: x.prod(**kw), lambda x: x.prod(**kw), a)


@pytest.mark.parametrize(
    "a",
    [np.array([[1.5, 0.5, 2.0], [0.7, -1.2, 0.9]]), np.array([[1.5, 0.0, 2.0], [0.0, 0.0, 3.0]])],
)
def test_prod_gradcheck(a):
    check_grads(lambda x: x.prod(), a)
    check_grads(lambda x: x.prod(dim=1), a)
    check_grads(lambda x: mg.prod(x, 0), a)


def test_prod_gradgradcheck_without_zeros():
    check_grads(lambda x: x.prod(dim=1), np.array([[1.5, 0.5, 2.0], [0.7, -1.2, 0.9]]), second=True)


def test_prod_odd_shapes():
    check_against_torch(lambda x: x.prod(), lambda x: x.prod(), np.array(3.0))
    check_against_torch(lambda x: x.prod(0), lambda x: x.prod(0), np.array([2.5]))
    assert mg.tensor([2, 3, 4]).prod().item() == 24


# ---- logsumexp -------------------------------------------------------------------------
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dim", [0, 1, -1, (0, 2)], ids=str)
def test_logsumexp_against_torch(dim, keepdim):
    a = rand(2, 3, 4, seed=14)
    check_against_torch(lambda x: x.logsumexp(dim, keepdim), lambda x: x.logsumexp(dim, keepdim), a)
    check_against_torch(lambda x: mg.logsumexp(x, dim), lambda x: torch.logsumexp(x, dim), a)


def test_logsumexp_is_stable_for_large_inputs():
    a = np.array([[1000.0, 1000.0, -1000.0], [-1e4, -1e4, -1e4]])
    check_against_torch(lambda x: x.logsumexp(1), lambda x: x.logsumexp(1), a)
    a32 = np.array([100.0, 90.0], dtype=np.float32)
    assert_close(mg.tensor(a32).logsumexp(0), torch.tensor(a32).logsumexp(0), rtol=1e-6)


def test_logsumexp_gradcheck():
    check_grads(lambda x: x.logsumexp(dim=1), rand(2, 3, seed=15), second=True)
    check_grads(lambda x: x.logsumexp(dim=(0, 1)), rand(2, 3, seed=16))


# ---- norm ------------------------------------------------------------------------------------
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dim", [None, 1, -1, (0, 1)], ids=str)
@pytest.mark.parametrize("p", [2, "fro", 1, INF, -INF, 3, 0.5], ids=str)
def test_norm_against_torch(p, dim, keepdim):
    if dim is None and keepdim:
        pytest.skip("keepdim needs a dim")
    if p == "fro" and isinstance(dim, int):
        pytest.skip("torch's 'fro' wants two dims")
    a = rand(3, 4, seed=17)
    kw = {"p": p, **_kw(dim, keepdim)}
    check_against_torch(lambda x: x.norm(**kw), lambda x: x.norm(**kw), a)


def test_norm_default_is_2_norm():
    a = np.array([3.0, 4.0])
    assert mg.tensor(a).norm().item() == pytest.approx(5.0)
    assert mg.norm(mg.tensor(a)).item() == pytest.approx(5.0)


@pytest.mark.parametrize("p", [2, 1], ids=str)
def test_norm_gradient_at_zero_vector_is_zero_like_torch(p):
    a = np.zeros(3)
    check_against_torch(lambda x: x.norm(p=p), lambda x: x.norm(p=p), a)
    x = leaf(a)
    x.norm(p=p).backward()
    np.testing.assert_array_equal(x.grad.array, 0.0)
    # a row of zeros next to a row that is not
    check_against_torch(
        lambda x: x.norm(p=p, dim=1),
        lambda x: x.norm(p=p, dim=1),
        np.array([[0.0, 0.0], [3.0, 4.0]]),
    )


@pytest.mark.parametrize("p", [2, 1, INF, 3], ids=str)
def test_norm_gradcheck(p):
    a = rand(2, 3, seed=18)
    check_grads(lambda x: x.norm(p=p), a)
    check_grads(lambda x: x.norm(p=p, dim=1), a)


def test_norm_2_gradgradcheck():
    check_grads(lambda x: x.norm(dim=1), rand(2, 3, seed=19), second=True)


def test_norm_errors():
    with pytest.raises(RuntimeError, match="norm"):
        mg.tensor([1, 2]).norm()
    with pytest.raises(ValueError, match="norm"):
        mg.tensor([1.0, 2.0]).norm(p="nuc")


# ---- cumsum ----------------------------------------------------------------------------------
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cumsum_against_torch(dim):
    a = rand(3, 4, seed=20)
    check_against_torch(lambda x: x.cumsum(dim), lambda x: x.cumsum(dim), a)
    check_grads(lambda x: x.cumsum(dim), a, second=True)


# ---- float32 stays float32 ------------------------------------------------------------------
@pytest.mark.parametrize(
    "name, kw",
    [
        ("sum", {"dim": 1}),
        ("mean", {}),
        ("var", {"dim": 0}),
        ("std", {}),
        ("amax", {"dim": 1}),
        ("prod", {"dim": 1}),
    ]
    + [("logsumexp", {"dim": 1}), ("norm", {}), ("norm", {"p": 1, "dim": 0})],
    ids=str,
)
def test_float32_reductions_keep_float32(name, kw):
    a = rand(2, 3, seed=21).astype(np.float32)
    x = mg.tensor(a, requires_grad=True)
    tx = torch.tensor(a, requires_grad=True)
    out, tout = getattr(x, name)(**kw), getattr(tx, name)(**kw)
    assert out.dtype == np.float32
    assert_close(out, tout, rtol=1e-5, atol=1e-6)
    out.sum().backward()
    tout.sum().backward()
    assert x.grad.dtype == np.float32
    assert_close(x.grad, tx.grad, rtol=1e-4, atol=1e-5)
