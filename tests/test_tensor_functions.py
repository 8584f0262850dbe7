"""The tensor functions everyday torch code calls (sort, topk, gather, scatter, mm, diag,
norm, ...), as `mg.fn` and `Tensor.fn`: values and gradients against PyTorch, float64
finite-difference gradient checks, and errors that name the op and the shapes."""

import inspect
import re
import warnings

import numpy as np
import pytest
import torch

import minigrad as mg

from .helpers import assert_close, check_against_torch, check_grads, leaf, rand, tleaf

# The torch names whose behaviour this file checks against torch (read by tools/api_coverage.py).
TORCH_API = [
    "torch.Tensor.__floordiv__",
    "torch.Tensor.__mod__",
    "torch.Tensor.__rfloordiv__",
    "torch.Tensor.__rmod__",
    "torch.Tensor.addmm",
    "torch.Tensor.all",
    "torch.Tensor.allclose",
    "torch.Tensor.any",
    "torch.Tensor.argsort",
    "torch.Tensor.baddbmm",
    "torch.Tensor.bernoulli_",
    "torch.Tensor.cumprod",
    "torch.Tensor.cumsum",
    "torch.Tensor.diag",
    "torch.Tensor.dim",
    "torch.Tensor.div",
    "torch.Tensor.equal",
    "torch.Tensor.exponential_",
    "torch.Tensor.flip",
    "torch.Tensor.gather",
    "torch.Tensor.index_fill",
    "torch.Tensor.index_select",
    "torch.Tensor.isclose",
    "torch.Tensor.isfinite",
    "torch.Tensor.isinf",
    "torch.Tensor.isnan",
    "torch.Tensor.masked_fill",
    "torch.Tensor.mm",
    "torch.Tensor.msort",
    "torch.Tensor.multinomial",
    "torch.Tensor.nelement",
    "torch.Tensor.norm",
    "torch.Tensor.numel",
    "torch.Tensor.roll",
    "torch.Tensor.scatter",
    "torch.Tensor.scatter_",
    "torch.Tensor.scatter_add",
    "torch.Tensor.sort",
    "torch.Tensor.sub",
    "torch.Tensor.topk",
    "torch.Tensor.trace",
    "torch.Tensor.unique",
    "torch.add",
    "torch.addmm",
    "torch.all",
    "torch.allclose",
    "torch.any",
    "torch.argsort",
    "torch.baddbmm",
    "torch.bernoulli",
    "torch.bmm",
    "torch.cumprod",
    "torch.cumsum",
    "torch.diag",
    "torch.div",
    "torch.equal",
    "torch.flip",
    "torch.gather",
    "torch.index_select",
    "torch.isclose",
    "torch.isfinite",
    "torch.isinf",
    "torch.isnan",
    "torch.linalg.matrix_norm",
    "torch.linalg.norm",
    "torch.linalg.vector_norm",
    "torch.masked_fill",
    "torch.matmul",
    "torch.mm",
    "torch.msort",
    "torch.mul",
    "torch.multinomial",
    "torch.norm",
    "torch.numel",
    "torch.pow",
    "torch.roll",
    "torch.scatter",
    "torch.scatter_add",
    "torch.sort",
    "torch.sub",
    "torch.topk",
    "torch.trace",
    "torch.unique",
]

IDX_ROWS = np.array([[2, 0, 1, 0], [1, 1, 0, 2]])  # gather/scatter index for dim 0 of a (3, 4)
IDX_COLS = np.array([[3, 0], [1, 1], [0, 2]])  # for dim 1 of a (3, 4): repeats in row 1
IDX_PERM = np.array([[3, 0], [1, 2], [0, 2]])  # for dim 1, no repeats within a row


def mgi(a):
    return mg.tensor(a)


def ti(a):
    return torch.tensor(a)


# name: (minigrad fn, torch fn (None: the same code), input shapes). Every entry is
# checked against torch (values and input gradients) and with gradcheck in float64.
OPS = {
    # ordering: values are the input gathered at the sorting permutation
    "sort": (lambda x: x.sort()[0], None, [(3, 5)]),
    "sort_desc_dim0": (lambda x: x.sort(dim=0, descending=True).values, None, [(4, 3)]),
    "mg.sort": (lambda x: mg.sort(x, 1, True)[0], lambda x: torch.sort(x, 1, True)[0], [(3, 5)]),
    "topk": (lambda x: x.topk(2).values, None, [(3, 5)]),
    "topk_smallest_dim0": (lambda x: x.topk(3, dim=0, largest=False)[0], None, [(4, 3)]),
    "mg.topk": (lambda x: mg.topk(x, 1, 0)[0], lambda x: torch.topk(x, 1, 0)[0], [(4, 3)]),
    "msort": (lambda x: x.msort(), None, [(4, 3)]),
    # gather / scatter / index_select
    "gather_dim0": (
        lambda x: x.gather(0, mgi(IDX_ROWS)),
        lambda x: x.gather(0, ti(IDX_ROWS)),
        [(3, 4)],
    ),
    "gather_dim1": (
        lambda x: mg.gather(x, 1, mgi(IDX_COLS)),
        lambda x: torch.gather(x, 1, ti(IDX_COLS)),
        [(3, 4)],
    ),
    "gather_small_index": (
        lambda x: x.gather(1, mgi([[1], [0]])),
        lambda x: x.gather(1, ti([[1], [0]])),
        [(3, 4)],
    ),
    "scatter": (
        lambda x, s: x.scatter(1, mgi(IDX_PERM), s),
        lambda x, s: x.scatter(1, ti(IDX_PERM), s),
        [(3, 4), (3, 2)],
    ),
    "scatter_value": (
        lambda x: x.scatter(1, mgi(IDX_PERM), 2.5),
        lambda x: x.scatter(1, ti(IDX_PERM), 2.5),
        [(3, 4)],
    ),
    "scatter_add": (
        lambda x, s: x.scatter_add(1, mgi(IDX_COLS), s),
        lambda x, s: x.scatter_add(1, ti(IDX_COLS), s),
        [(3, 4), (3, 2)],
    ),
    "scatter_add_dim0": (
        lambda x, s: mg.scatter_add(x, 0, mgi(IDX_ROWS), s),
        lambda x, s: torch.scatter_add(x, 0, ti(IDX_ROWS), s),
        [(3, 4), (2, 4)],
    ),
    "index_select": (
        lambda x: x.index_select(1, mgi([3, 0, 3])),
        lambda x: x.index_select(1, ti([3, 0, 3])),
        [(3, 4)],
    ),
    "mg.index_select_dim0": (
        lambda x: mg.index_select(x, 0, mgi([2, 2, 0])),
        lambda x: torch.index_select(x, 0, ti([2, 2, 0])),
        [(3, 4)],
    ),
    "masked_fill": (
        lambda x: x.masked_fill(mgi(rand(3, 4, seed=9) > 0), -1.5),
        lambda x: x.masked_fill(ti(rand(3, 4, seed=9) > 0), -1.5),
        [(3, 4)],
    ),
    "masked_fill_broadcast_mask": (
        lambda x: mg.masked_fill(x, mgi([True, False, False, True]), 0.0),
        lambda x: x.masked_fill(ti([True, False, False, True]), 0.0),
        [(3, 4)],
    ),
    "masked_fill_tensor_value": (
        lambda x, v: x.masked_fill(mgi(rand(3, 4, seed=9) > 0), v),
        lambda x, v: x.masked_fill(ti(rand(3, 4, seed=9) > 0), v),
        [(3, 4), ()],
    ),
    "index_fill": (
        lambda x: x.index_fill(1, mgi([0, -1]), 7.0),
        lambda x: x.index_fill(1, ti([0, -1]), 7.0),
        [(3, 4)],
    ),
    # running sums and products, reversal, rolling
    "cumsum": (lambda x: x.cumsum(1), None, [(3, 4)]),
    "mg.cumsum_dim0": (lambda x: mg.cumsum(x, 0), lambda x: torch.cumsum(x, 0), [(3, 4)]),
    "cumprod": (lambda x: x.cumprod(1), None, [(3, 4)]),
    "mg.cumprod_dim0": (
        lambda x: mg.cumprod(x, dim=0),
        lambda x: torch.cumprod(x, dim=0),
        [(3, 4)],
    ),
    "flip": (lambda x: mg.flip(x, (0, 1)), lambda x: torch.flip(x, (0, 1)), [(3, 4)]),
    "flip_dims_kw": (lambda x: x.flip(dims=[1]), None, [(3, 4)]),
    "roll": (lambda x: x.roll(1, 0), None, [(3, 4)]),
    "roll_flat": (lambda x: mg.roll(x, 5), lambda x: torch.roll(x, 5), [(3, 4)]),
    "roll_two_dims": (lambda x: x.roll((-1, 2), (1, 0)), None, [(3, 4)]),
    # diagonals
    "diag_vector": (lambda x: x.diag(), None, [(4,)]),
    "diag_vector_above": (lambda x: mg.diag(x, 2), lambda x: torch.diag(x, 2), [(3,)]),
    "diag_vector_below": (lambda x: x.diag(-1), None, [(3,)]),
    "diag_matrix": (lambda x: x.diag(), None, [(3, 4)]),
    "diag_matrix_above": (lambda x: mg.diag(x, 1), lambda x: torch.diag(x, 1), [(3, 4)]),
    "diag_matrix_below": (lambda x: x.diag(-1), None, [(4, 3)]),
    "trace": (lambda x: x.trace(), None, [(3, 3)]),
    "mg.trace_wide": (lambda x: mg.trace(x), lambda x: torch.trace(x), [(2, 4)]),
    # norms
    "norm": (lambda x: x.norm(), None, [(3, 4)]),
    "norm_p1_dim": (lambda x: mg.norm(x, 1, 1), lambda x: torch.norm(x, 1, 1), [(3, 4)]),
    "norm_p3_keepdim": (lambda x: x.norm(p=3, dim=0, keepdim=True), None, [(3, 4)]),
    "norm_inf": (lambda x: x.norm(p=float("inf"), dim=1), None, [(3, 4)]),
    "norm_neg": (lambda x: x.norm(p=-2, dim=1), None, [(3, 4)]),
    "norm_p0": (lambda x: x.norm(p=0, dim=1), None, [(3, 4)]),
    "norm_dims": (lambda x: x.norm(dim=(0, 2)), None, [(2, 3, 4)]),
    "linalg.norm": (lambda x: mg.linalg.norm(x), lambda x: torch.linalg.norm(x), [(3, 4)]),
    "linalg.norm_dim": (
        lambda x: mg.linalg.norm(x, dim=1),
        lambda x: torch.linalg.norm(x, dim=1),
        [(3, 4)],
    ),
    "linalg.norm_ord1_vector": (
        lambda x: mg.linalg.norm(x, 1),
        lambda x: torch.linalg.norm(x, 1),
        [(5,)],
    ),
    "linalg.norm_ord1_matrix": (
        lambda x: mg.linalg.norm(x, 1),
        lambda x: torch.linalg.norm(x, 1),
        [(3, 4)],
    ),
    "linalg.norm_inf_matrix": (
        lambda x: mg.linalg.norm(x, float("inf"), keepdim=True),
        lambda x: torch.linalg.norm(x, float("inf"), keepdim=True),
        [(3, 4)],
    ),
    "linalg.norm_fro_dims": (
        lambda x: mg.linalg.norm(x, "fro", dim=(0, 2)),
        lambda x: torch.linalg.norm(x, "fro", dim=(0, 2)),
        [(2, 3, 4)],
    ),
    "linalg.vector_norm": (
        lambda x: mg.linalg.vector_norm(x),
        lambda x: torch.linalg.vector_norm(x),
        [(3, 4)],
    ),
    "linalg.vector_norm_ord": (
        lambda x: mg.linalg.vector_norm(x, ord=1.5, dim=(0, 1), keepdim=True),
        lambda x: torch.linalg.vector_norm(x, ord=1.5, dim=(0, 1), keepdim=True),
        [(3, 4, 2)],
    ),
    "linalg.vector_norm_-inf": (
        lambda x: mg.linalg.vector_norm(x, float("-inf"), 0),
        lambda x: torch.linalg.vector_norm(x, float("-inf"), 0),
        [(3, 4)],
    ),
    "linalg.matrix_norm_-1": (
        lambda x: mg.linalg.matrix_norm(x, -1),
        lambda x: torch.linalg.matrix_norm(x, -1),
        [(2, 3, 4)],
    ),
    "linalg.matrix_norm_-inf_dims": (
        lambda x: mg.linalg.matrix_norm(x, float("-inf"), dim=(2, 0)),
        lambda x: torch.linalg.matrix_norm(x, float("-inf"), dim=(2, 0)),
        [(2, 3, 4)],
    ),
    # matrix products
    "mm": (lambda a, b: a.mm(b), None, [(3, 4), (4, 2)]),
    "mg.mm": (lambda a, b: mg.mm(a, b), lambda a, b: torch.mm(a, b), [(3, 4), (4, 2)]),
    "bmm": (lambda a, b: mg.bmm(a, b), lambda a, b: torch.bmm(a, b), [(2, 3, 4), (2, 4, 5)]),
    "addmm": (
        lambda c, a, b: mg.addmm(c, a, b),
        lambda c, a, b: torch.addmm(c, a, b),
        [(3, 2), (3, 4), (4, 2)],
    ),
    "addmm_beta_alpha_broadcast": (
        lambda c, a, b: c.addmm(a, b, beta=0.5, alpha=-2.0),
        None,
        [(2,), (3, 4), (4, 2)],
    ),
    "baddbmm": (
        lambda c, a, b: mg.baddbmm(c, a, b, beta=2.0, alpha=0.5),
        lambda c, a, b: torch.baddbmm(c, a, b, beta=2.0, alpha=0.5),
        [(2, 3, 5), (2, 3, 4), (2, 4, 5)],
    ),
    "baddbmm_broadcast_input": (
        lambda c, a, b: c.baddbmm(a, b),
        None,
        [(1, 5), (2, 3, 4), (2, 4, 5)],
    ),
    "mg.matmul_keywords": (
        lambda a, b: mg.matmul(input=a, other=b),
        lambda a, b: torch.matmul(input=a, other=b),
        [(2, 3, 4), (4,)],
    ),
    # arithmetic with torch's keywords
    "add_alpha": (
        lambda a, b: mg.add(a, b, alpha=3),
        lambda a, b: torch.add(a, b, alpha=3),
        [(3, 4), (4,)],
    ),
    "add_keywords": (
        lambda a, b: mg.add(input=a, other=b, alpha=-0.5),
        lambda a, b: torch.add(input=a, other=b, alpha=-0.5),
        [(3, 4), (3, 4)],
    ),
    "sub_alpha": (lambda a, b: a.sub(b, alpha=2.0), None, [(3, 4), (3, 1)]),
    "mul": (lambda a, b: mg.mul(a, b), lambda a, b: torch.mul(a, b), [(3, 4), (4,)]),
    "div": (lambda a, b: mg.div(a, b), lambda a, b: torch.div(a, b), [(3, 4), (4,)]),
    "pow": (lambda a: mg.pow(a, 3), lambda a: torch.pow(a, 3), [(3, 4)]),
    "pow_number_base": (lambda a: mg.pow(2.0, a), lambda a: torch.pow(2.0, a), [(3, 4)]),
}

# flat regions of these make finite differences meaningless at ties; values are random
NO_GRADCHECK = {"norm_p0"}  # piecewise constant: gradient 0, checked against torch


def _inputs(shapes, seed):
    return [rand(*s, seed=seed + k) for k, s in enumerate(shapes)]


@pytest.mark.parametrize("name", list(OPS))
def test_against_torch(name):
    fn, tfn, shapes = OPS[name]
    check_against_torch(fn, tfn or fn, *_inputs(shapes, seed=2))


@pytest.mark.parametrize("name", [n for n in OPS if n not in NO_GRADCHECK])
def test_gradcheck(name):
    fn, _, shapes = OPS[name]
    check_grads(fn, *_inputs(shapes, seed=5))


@pytest.mark.parametrize(
    "name",
    [
        "sort",
        "topk",
        "gather_dim1",
        "scatter",
        "scatter_add",
        "index_select",
        "cumsum",
        "diag_matrix",
        "roll",
    ],
)
def test_gradgradcheck(name):
    fn, _, shapes = OPS[name]
    # x * x makes the second derivative non-zero
    check_grads(lambda x, *rest: fn(x * x, *rest), *_inputs(shapes, seed=6), second=True)


def test_scatter_with_src_larger_than_index():
    # torch computes this forward but its backward fails on the shape ("got [3, 2] but
    # expected shape compatible with [4, 3]"): the forward is held against torch, the
    # gradient (0 for the unused part of src) against finite differences
    x, src = rand(3, 4, seed=1), rand(4, 3, seed=2)
    out = mg.scatter(mg.tensor(x), 1, mgi(IDX_PERM), mg.tensor(src))
    assert_close(out, torch.scatter(ti(x), 1, ti(IDX_PERM), ti(src)))
    check_grads(lambda a, s: mg.scatter(a, 1, mgi(IDX_PERM), s), x, src)
    check_grads(lambda a, s: mg.scatter_add(a, 1, mgi(IDX_COLS), s), x, src)
    s = leaf(src)
    mg.scatter(mg.tensor(x), 1, mgi(IDX_PERM), s).sum().backward()
    assert np.all(s.grad.array[3] == 0) and np.all(s.grad.array[:, 2] == 0)


@pytest.mark.parametrize("dim", [0, 1])
def test_cumprod_with_zeros_against_torch_and_gradcheck(dim):
    a = rand(3, 5, seed=1)
    a[0, 2] = 0.0  # one zero
    a[1, 1] = a[1, 3] = 0.0  # two zeros
    a[2, 0] = 0.0  # a zero first
    check_against_torch(lambda x: x.cumprod(dim), lambda x: x.cumprod(dim), a)
    check_grads(lambda x: x.cumprod(dim), a)


@pytest.mark.parametrize("mode", ["trunc", "floor"])
def test_div_rounding_modes_against_torch_with_zero_gradient(mode):
    a = np.array([[5.0, -5.0, 7.5, -7.5, 0.5], [3.0, -3.0, 1.0, -0.1, 9.0]])
    b = np.array([2.0, 2.0, -2.0, 2.0, 0.3])
    check_against_torch(
        lambda x, y: mg.div(x, y, rounding_mode=mode),
        lambda x, y: torch.div(x, y, rounding_mode=mode),
        a,
        b,
    )
    x, y = leaf(a), leaf(b)
    x.div(y, rounding_mode=mode).sum().backward()
    assert np.all(x.grad.array == 0) and np.all(y.grad.array == 0)


@pytest.mark.parametrize("mode", ["trunc", "floor"])
def test_div_rounding_of_integers_and_by_zero_like_torch(mode):
    a, b = np.array([7, -7, 6, -1, 0]), np.array([2, 2, -4, 3, 5])
    out, tout = (
        mg.div(mg.tensor(a), mg.tensor(b), rounding_mode=mode),
        torch.div(ti(a), ti(b), rounding_mode=mode),
    )
    assert out.dtype == np.int64 and out.tolist() == tout.tolist()
    out, tout = mg.tensor(a).div(2.5, rounding_mode=mode), ti(a).div(2.5, rounding_mode=mode)
    assert out.dtype == np.float32 and out.tolist() == tout.tolist()
    f = np.array([5.0, -5.0, 0.0])
    assert_close(
        mg.div(mg.tensor(f), 0.0, rounding_mode=mode), torch.div(ti(f), 0.0, rounding_mode=mode)
    )
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        mg.div(mg.tensor(a), 0, rounding_mode=mode)
    with pytest.raises(RuntimeError, match="rounding_mode"):
        mg.div(mg.tensor(a), 2, rounding_mode="round")


# `//` and `%` on integers by zero: torch raises RuntimeError("ZeroDivisionError"), where
# NumPy would warn and return 0. Each case: a function of (lib, make) -> the division.
INTEGER_DIVISIONS_BY_ZERO = {
    "x // 0": lambda lib, t: t([7, -7, 0]) // 0,
    "x % 0": lambda lib, t: t([7, -7, 0]) % 0,
    "x // y, y holding a 0": lambda lib, t: t([7, -7, 6]) // t([2, 0, 3]),
    "x % y, y holding a 0": lambda lib, t: t([7, -7, 6]) % t([2, 0, 3]),
    "7 // y": lambda lib, t: 7 // t([2, 0, 3]),
    "7 % y": lambda lib, t: 7 % t([2, 0, 3]),
    "int32 % 0-d 0": lambda lib, t: t([7, 1], dtype=lib.int32) % t(0),
    "uint8 // 0": lambda lib, t: t([7, 1], dtype=lib.uint8) // 0,
}


@pytest.mark.parametrize("name", list(INTEGER_DIVISIONS_BY_ZERO))
def test_integer_floor_divide_and_remainder_by_zero_raise_like_torch(name):
    case = INTEGER_DIVISIONS_BY_ZERO[name]
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        case(torch, torch.tensor)
    op = "floor_divide" if "//" in name else "remainder"
    with np.errstate(all="raise"):  # no NumPy warning on the way
        with pytest.raises(
            RuntimeError, match=rf"ZeroDivisionError: {op} of (u)?int(8|32|64) values by 0"
        ):
            case(mg, mg.tensor)


FLOAT_DIVISIONS = {
    "f // 0": lambda t: t([5.0, -5.0, 0.0, 2.5]) // 0,
    "f % 0": lambda t: t([5.0, -5.0, 0.0, 2.5]) % 0,
    "f // 0.0": lambda t: t([5.0, -5.0, 0.0, 2.5]) // 0.0,
    "-f % 0.0": lambda t: -t([5.0, -5.0, 0.0, 2.5]) % 0.0,
    "int // 0.0": lambda t: t([7, -7, 0]) // 0.0,
    "int % 0.0": lambda t: t([7, -7, 0]) % 0.0,
    "f // y": lambda t: t([5.0, -5.0, 7.5, -7.5]) // t([2.0, 2.0, -2.0, 0.0]),
    "f % y": lambda t: t([5.0, -5.0, 7.5, -7.5]) % t([2.0, 2.0, -2.0, 0.0]),
    "int // int": lambda t: t([7, -7, 6, -1, 0]) // t([2, 2, -4, 3, 5]),
    "int % int": lambda t: t([7, -7, 6, -1, 0]) % t([2, 2, -4, 3, 5]),
    "int % 2.5": lambda t: t([7, -7, 6]) % 2.5,
    "7.5 // y": lambda t: 7.5 // t([2, 3, -4]),
    "7 % y": lambda t: 7 % t([2, 3, -4]),
    "int32 % 0-d int64": lambda t: t([7, -7], dtype=getattr(t, "int32", None)) % t(3),
}


@pytest.mark.parametrize("name", list(FLOAT_DIVISIONS))
def test_floor_divide_and_remainder_values_and_dtypes_like_torch(name):
    """Floats divided by zero give inf and nan, silently, as torch; the rest as torch too
    (the sign of a remainder follows the divisor, Python's rule)."""
    case = FLOAT_DIVISIONS[name]

    def mg_tensor(data, dtype=None):
        return mg.tensor(data, dtype=dtype)

    def torch_tensor(data, dtype=None):
        return torch.tensor(data, dtype=dtype)

    mg_tensor.int32, torch_tensor.int32 = mg.int32, torch.int32
    expected = case(torch_tensor)
    with np.errstate(all="raise"):  # inf and nan without a NumPy warning
        out = case(mg_tensor)
    assert str(out.dtype) == str(expected.dtype).removeprefix("torch.")
    np.testing.assert_array_equal(out.numpy(), expected.numpy())


def test_remainder_gradient_like_torch():
    """a % b = a - floor(a / b) * b: dL/da = dL/dy, dL/db = -dL/dy * floor(a / b)."""
    # a / b off the integers
    a = np.array([[5.0, -5.0, 7.5, -7.5, 0.5], [3.0, -3.0, 1.0, -0.1, 8.9]])
    b = np.array([2.0, 2.0, -2.0, 2.0, 0.3])
    check_against_torch(lambda x, y: x % y, lambda x, y: x % y, a, b)
    check_against_torch(lambda x: x % 1.5, lambda x: x % 1.5, a)
    check_grads(lambda x, y: x % y, a, b)
    check_grads(lambda y: 7.0 % y, b)  # torch has no derivative for a number % a tensor


def test_add_alpha_rules_like_torch():
    ints = mg.tensor([1, 2])
    assert mg.add(ints, ints, alpha=3).tolist() == [4, 8]
    with pytest.raises(RuntimeError, match="alpha"):
        mg.add(ints, ints, alpha=0.5)
    with pytest.raises(RuntimeError):
        torch.add(ti([1, 2]), ti([1, 2]), alpha=0.5)


# ---- ordering: indices, ties, NaN, unique -------------------------------------------------------
TIES = np.array([[3.0, 1.0, 3.0, 2.0, 1.0, 3.0], [0.0, 0.0, -1.0, 0.0, 5.0, -1.0]])
WITH_NAN = np.array([1.0, np.nan, 0.0, np.inf, -np.inf, np.nan, 2.0])


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize(
    "data", [TIES, WITH_NAN, rand(4, 5, seed=3)], ids=["ties", "nan", "random"]
)
def test_stable_sort_values_and_indices_like_torch(data, descending):
    values, indices = mg.sort(mg.tensor(data), descending=descending, stable=True)
    tvalues, tindices = torch.sort(ti(data), descending=descending, stable=True)
    np.testing.assert_array_equal(values.array, tvalues.numpy())
    np.testing.assert_array_equal(indices.array, tindices.numpy())
    assert indices.dtype == np.int64
    np.testing.assert_array_equal(
        mg.tensor(data).argsort(descending=descending).array, tindices.numpy()
    )


def test_sort_along_dim0_and_of_ints_and_0d():
    a = np.array([[3, 1], [1, 2], [2, 0]])
    for mine, theirs in zip(mg.tensor(a).sort(0), ti(a).sort(0)):
        assert mine.tolist() == theirs.tolist()
    v, i = mg.tensor(4.0).sort()
    assert v.shape == () and v.item() == 4.0 and i.item() == 0
    assert mg.argsort(mg.tensor(a), dim=0).tolist() == torch.argsort(ti(a), dim=0).tolist()


@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("k", [0, 1, 3, 6])
def test_topk_values_indices_like_torch(k, largest):
    data = rand(3, 6, seed=8)
    out, tout = mg.tensor(data).topk(k, largest=largest), ti(data).topk(k, largest=largest)
    np.testing.assert_array_equal(out.values.array, tout.values.numpy())
    np.testing.assert_array_equal(out.indices.array, tout.indices.numpy())
    values, indices = out  # a pair, as torch.return_types.topk
    assert values is out.values and indices is out.indices


def test_topk_puts_nan_first_like_torch():
    out, tout = mg.topk(mg.tensor(WITH_NAN), 3), torch.topk(ti(WITH_NAN), 3)
    np.testing.assert_array_equal(out.values.array, tout.values.numpy())


def test_topk_rejects_k_out_of_range():
    with pytest.raises(RuntimeError, match=r"topk.*k=4.*size 3"):
        mg.zeros(2, 3).topk(4)
    with pytest.raises(IndexError, match="topk"):
        mg.zeros(2, 3).topk(1, dim=2)


def test_sort_and_topk_send_the_gradient_to_where_each_value_came_from():
    x = mg.tensor([3.0, 1.0, 2.0], requires_grad=True)
    values, _ = x.topk(2)
    (values * mg.tensor([10.0, 1.0])).sum().backward()
    assert x.grad.tolist() == [10.0, 0.0, 1.0]


@pytest.mark.parametrize("inverse", [False, True])
@pytest.mark.parametrize("counts", [False, True])
@pytest.mark.parametrize("dim", [None, 0, 1])
def test_unique_like_torch(inverse, counts, dim):
    data = np.array([[2, 1, 2], [0, 5, 0], [2, 1, 2], [0, 5, 0], [1, 1, 1]])
    out = mg.unique(mg.tensor(data), return_inverse=inverse, return_counts=counts, dim=dim)
    tout = torch.unique(ti(data), return_inverse=inverse, return_counts=counts, dim=dim)
    if not (inverse or counts):
        out, tout = (out,), (tout,)
    assert len(out) == len(tout)
    for mine, theirs in zip(out, tout):
        assert mine.shape == tuple(theirs.shape) and mine.tolist() == theirs.tolist()


def test_unique_method_and_nans_stay_distinct():
    assert mg.tensor([3, 1, 3]).unique().tolist() == [1, 3]
    got = mg.unique(mg.tensor([np.nan, np.nan, 1.0]))
    np.testing.assert_array_equal(got.array, torch.unique(ti([np.nan, np.nan, 1.0])).numpy())


# ---- multinomial and bernoulli -------------------------------------------------------------------
def test_multinomial_is_reproducible_with_manual_seed():
    probs = mg.tensor([[0.1, 0.2, 0.7], [0.5, 0.5, 0.0]])
    mg.manual_seed(3)
    a = mg.multinomial(probs, 2)
    b = probs.multinomial(5, replacement=True)
    mg.manual_seed(3)
    assert mg.multinomial(probs, 2).tolist() == a.tolist()
    assert probs.multinomial(5, replacement=True).tolist() == b.tolist()
    assert a.shape == (2, 2) and a.dtype == np.int64


@pytest.mark.parametrize("replacement", [True, False])
def test_multinomial_frequencies_follow_the_weights(replacement):
    weights = np.array([1.0, 0.0, 3.0, 6.0])  # unnormalised, with a zero
    mg.manual_seed(0)
    rows = mg.tensor(np.tile(weights, (20000, 1)))
    first = rows.multinomial(1, replacement=replacement).array[:, 0]
    freq = np.bincount(first, minlength=4) / first.size
    np.testing.assert_allclose(freq, weights / weights.sum(), atol=0.015)
    assert freq[1] == 0


def test_multinomial_without_replacement_draws_distinct_categories():
    mg.manual_seed(1)
    draws = mg.multinomial(mg.tensor(np.tile([1.0, 2.0, 0.0, 3.0, 4.0], (500, 1))), 4).array
    assert all(len(set(row)) == 4 and 2 not in row for row in draws)
    full = mg.multinomial(mg.tensor([1.0, 1.0, 1.0]), 3)
    assert sorted(full.tolist()) == [0, 1, 2]


def test_multinomial_draws_zero_weights_only_after_the_others_like_torch():
    weights = [1.0, 0.0, 0.0, 2.0]
    for draws in (
        mg.multinomial(mg.tensor(weights), 3).tolist(),
        torch.multinomial(ti(weights), 3).tolist(),
    ):
        assert sorted(draws[:2]) == [0, 3] and draws[2] in (1, 2)


def test_multinomial_with_replacement_1d_and_a_generator():
    g = np.random.default_rng(5)
    draws = mg.multinomial(mg.tensor([0.0, 1.0]), 50, replacement=True, generator=g)
    assert draws.shape == (50,) and set(draws.tolist()) == {1}


@pytest.mark.parametrize(
    "weights, n, replacement, pattern",
    [
        ([1.0, 2.0], 3, False, "without replacement"),
        ([0.0, 0.0], 1, True, "sum of probabilities"),
        ([-1.0, 2.0], 1, True, "element < 0"),
        ([1.0, float("nan")], 1, True, "nan"),
        ([1, 2], 1, True, "floating-point"),
        ([1.0, 2.0], 0, True, "n_sample <= 0"),
        ([[[1.0]]], 1, True, "1 or 2 dim"),
    ],
)
def test_multinomial_errors_like_torch(weights, n, replacement, pattern):
    with pytest.raises(RuntimeError, match=pattern):
        mg.multinomial(mg.tensor(weights), n, replacement)
    with pytest.raises(RuntimeError):
        torch.multinomial(torch.tensor(weights), n, replacement)


def test_bernoulli_samples_and_in_place_forms():
    mg.manual_seed(0)
    p = mg.tensor(np.linspace(0, 1, 5))
    mean = np.mean([mg.bernoulli(p).array for _ in range(2000)], axis=0)
    np.testing.assert_allclose(mean, p.array, atol=0.04)
    assert mean[0] == 0 and mean[-1] == 1
    t = mg.zeros(10000).bernoulli_(0.25)
    assert set(np.unique(t.array)) <= {0.0, 1.0} and abs(t.array.mean() - 0.25) < 0.02
    e = mg.zeros(20000, dtype=mg.float64).exponential_(4.0)
    assert e.array.min() > 0 and abs(e.array.mean() - 0.25) < 0.01
    with pytest.raises(RuntimeError, match=r"\[0, 1\]"):
        mg.bernoulli(mg.tensor([1.5]))


# ---- integer and bool inputs ---------------------------------------------------------------------
def test_integer_results_like_torch():
    a = np.array([[1, 2, 3], [4, 5, 6]])
    for fn in (
        lambda t, lib: lib.cumsum(t, 1),
        lambda t, lib: lib.cumprod(t, 0),
        lambda t, lib: t.cumsum(0, dtype=lib.float64),
        lambda t, lib: lib.trace(t[:, :2]),
        lambda t, lib: lib.diag(t, 1),
        lambda t, lib: lib.roll(t, 1, 1),
        lambda t, lib: (t > 2).cumsum(1),
    ):
        mine, theirs = fn(mg.tensor(a), mg), fn(ti(a), torch)
        assert mine.tolist() == theirs.tolist()
        assert str(mine.dtype) == str(theirs.dtype).replace("torch.", "")


def test_cumsum_of_0d_like_torch():
    assert mg.tensor(3.0).cumsum(0).shape == () and mg.cumprod(mg.tensor(2), 0).item() == 2


# ---- errors that name the op and the shapes -----------------------------------------------------
@pytest.mark.parametrize(
    "fn, pattern",
    [
        (lambda: mg.mm(mg.zeros(2, 3), mg.zeros(2, 3)), r"mm.*2x3 and 2x3"),
        (lambda: mg.mm(mg.zeros(2, 3, 1), mg.zeros(1, 3)), r"mm.*\(2, 3, 1\)"),
        (
            lambda: mg.bmm(mg.zeros(2, 2, 3), mg.zeros(3, 3, 3)),
            r"bmm.*batch.*\(2, 2, 3\).*\(3, 3, 3\)",
        ),
        (lambda: mg.bmm(mg.zeros(2, 3), mg.zeros(3, 3)), r"bmm.*3-D"),
        (lambda: mg.addmm(mg.zeros(3), mg.zeros(2, 3), mg.zeros(3, 2)), r"addmm.*\(3,\).*\(2, 2\)"),
        (
            lambda: mg.baddbmm(mg.zeros(2, 2), mg.zeros(1, 2, 3), mg.zeros(1, 4, 2)),
            r"baddbmm.*1x2x3 and 1x4x2",
        ),
        (
            lambda: mg.gather(mg.zeros(2, 3), 1, mg.tensor([[0, 5]])),
            r"gather.*index 5.*dimension 1.*size 3",
        ),
        (lambda: mg.gather(mg.zeros(2, 3), 1, mg.tensor([[0, -1]])), r"gather.*index -1"),
        (
            lambda: mg.gather(mg.zeros(2, 3), 1, mg.tensor([0, 1])),
            r"gather.*dimensions.*\(2,\).*\(2, 3\)",
        ),
        (lambda: mg.gather(mg.zeros(2, 3), 1, mg.tensor([[0.0]])), r"gather.*integer.*float"),
        (
            lambda: mg.gather(mg.zeros(2, 3), 1, mg.zeros(3, 1, dtype=mg.int64)),
            r"gather.*\(3, 1\).*\(2, 3\)",
        ),
        (
            lambda: mg.scatter(mg.zeros(2, 3), 1, mg.tensor([[0, 1]]), mg.ones(1, 1)),
            r"scatter.*\(1, 2\).*src \(1, 1\)",
        ),
        (
            lambda: mg.scatter(mg.zeros(2, 3), 1, mg.tensor([[0]]), mg.ones(1, 1, dtype=mg.int64)),
            r"scatter.*dtype",
        ),
        (
            lambda: mg.scatter_add(mg.zeros(2, 3), 0, mg.tensor([[2]]), mg.ones(1, 1)),
            r"scatter_add.*index 2",
        ),
        (
            lambda: mg.index_select(mg.zeros(2, 3), 1, mg.tensor([[0]])),
            r"index_select.*vector.*\(1, 1\)",
        ),
        (
            lambda: mg.index_select(mg.zeros(2, 3), 1, mg.tensor([3])),
            r"index_select.*index 3.*size 3",
        ),
        (lambda: mg.index_fill(mg.zeros(2, 3), 1, mg.tensor([-4]), 1.0), r"index_fill.*index -4"),
        (
            lambda: mg.masked_fill(mg.zeros(3), mg.tensor([1, 0, 0]), 1.0),
            r"masked_fill.*boolean.*int64",
        ),
        (
            lambda: mg.masked_fill(mg.zeros(3), mg.tensor([True, False]), 1.0),
            r"masked_fill.*\(2,\).*\(3,\)",
        ),
        (
            lambda: mg.zeros(3).masked_fill(mg.tensor([True, False, True]), mg.ones(2)),
            r"masked_fill.*0-dim",
        ),
        (lambda: mg.diag(mg.zeros(2, 3, 4)), r"diag.*\(2, 3, 4\)"),
        (lambda: mg.trace(mg.zeros(3)), r"trace.*matrix.*\(3,\)"),
        (lambda: mg.roll(mg.zeros(2, 3), (1, 2), 0), r"roll.*shifts: 2, dims: 1"),
        (lambda: mg.roll(mg.zeros(2, 3), (1, 2)), r"roll.*dims=None"),
        (lambda: mg.flip(mg.zeros(2, 3), (0, -2)), r"flip: dim 0 appears multiple times"),
        (lambda: mg.norm(mg.zeros(2, 3), p="nuc"), r"norm.*'nuc'"),
        (lambda: mg.norm(mg.tensor([1, 2])), r"norm.*floating point.*int64"),
        (lambda: mg.linalg.norm(mg.zeros(2, 3, 4), 2), r"linalg.norm.*1D or 2D.*\(2, 3, 4\)"),
        (lambda: mg.linalg.matrix_norm(mg.zeros(2, 3), 2), r"matrix_norm.*SVD"),
        (lambda: mg.linalg.matrix_norm(mg.zeros(3)), r"matrix_norm.*\(3,\)"),
        (lambda: mg.linalg.vector_norm(mg.tensor([1, 2])), r"vector_norm.*floating point.*int64"),
        (lambda: mg.isclose(mg.tensor([1, 2]), mg.tensor([1.0, 2.0])), r"isclose.*int64.*float32"),
        (lambda: mg.unique(mg.tensor(1.0), dim=0), r"unique.*0-d"),
    ],
)
def test_bad_input_raises_naming_the_op_and_shapes(fn, pattern):
    with pytest.raises((RuntimeError, IndexError, ValueError, NotImplementedError)) as info:
        fn()
    assert re.search(pattern, str(info.value)), str(info.value)


def test_scatter_reduce_argument_like_torch_and_not_differentiable():
    idx, src = np.array([[0, 1], [2, 2]]), np.array([[2.0, 3.0], [4.0, 5.0]], dtype=np.float32)
    for reduce in ("add", "multiply"):
        mine = mg.ones(2, 3).scatter(1, mg.tensor(idx), mg.tensor(src), reduce=reduce)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch: "The reduce argument ... is deprecated"
            theirs = torch.ones(2, 3).scatter(1, ti(idx), ti(src), reduce=reduce)
        np.testing.assert_allclose(mine.array, theirs.numpy())
    mine = mg.ones(2, 3).scatter_(1, mg.tensor(idx), 4.0, reduce="add")
    assert mine.tolist() == torch.ones(2, 3).scatter_(1, ti(idx), 4.0, reduce="add").tolist()
    with pytest.raises(RuntimeError, match="derivative"):
        mg.ones(2, 3, requires_grad=True).scatter(
            1, mg.tensor(idx), mg.tensor(src), reduce="multiply"
        )
    with pytest.raises(RuntimeError, match="'add' or 'multiply'"):
        mg.ones(2, 3).scatter(1, mg.tensor(idx), mg.tensor(src), reduce="max")


# ---- comparisons and logical reductions -------------------------------------------------------
CLOSE_A = np.array([1.0, 2.0, np.nan, np.inf, -np.inf, 1e-9, 100.0])
CLOSE_B = np.array([1.0 + 1e-6, 2.1, np.nan, np.inf, np.inf, 0.0, 100.001])


@pytest.mark.parametrize("equal_nan", [False, True])
@pytest.mark.parametrize("tol", [{}, {"rtol": 1e-3}, {"atol": 0.2}])
def test_isclose_allclose_like_torch(equal_nan, tol):
    a, b, ta, tb = mg.tensor(CLOSE_A), mg.tensor(CLOSE_B), ti(CLOSE_A), ti(CLOSE_B)
    expected = torch.isclose(ta, tb, equal_nan=equal_nan, **tol)
    assert mg.isclose(a, b, equal_nan=equal_nan, **tol).tolist() == expected.tolist()
    assert a.isclose(b, equal_nan=equal_nan, **tol).tolist() == expected.tolist()
    finite = slice(0, 2)
    for x, y, tx, ty in [(a, b, ta, tb), (a[finite], b[finite], ta[finite], tb[finite])]:
        want = torch.allclose(tx, ty, equal_nan=equal_nan, **tol)
        assert mg.allclose(x, y, equal_nan=equal_nan, **tol) is want
        assert x.allclose(y, equal_nan=equal_nan, **tol) is want


def test_equal_like_torch():
    a = mg.tensor([1.0, 2.0])
    assert mg.equal(a, mg.tensor([1.0, 2.0])) is True and a.equal(mg.tensor([1, 2])) is True
    assert mg.equal(a, mg.tensor([[1.0, 2.0]])) is False and a.equal(mg.tensor([1.0, 3.0])) is False
    assert torch.equal(ti([1.0, 2.0]), ti([1, 2])) is True


@pytest.mark.parametrize("fn", ["isnan", "isinf", "isfinite"])
def test_isnan_isinf_isfinite_like_torch(fn):
    assert getattr(mg, fn)(mg.tensor(CLOSE_A)).tolist() == getattr(torch, fn)(ti(CLOSE_A)).tolist()
    assert getattr(mg.tensor([1, 2]), fn)().tolist() == getattr(ti([1, 2]), fn)().tolist()


@pytest.mark.parametrize("fn", ["all", "any"])
@pytest.mark.parametrize(
    "dim, keepdim", [(None, False), (0, False), (1, True), ((0, 2), False), (-1, True)]
)
@pytest.mark.parametrize("dtype", [np.bool_, np.float64, np.int64, np.uint8])
def test_all_any_like_torch(fn, dim, keepdim, dtype):
    data = (rand(3, 4, 2, seed=4) > 0.3).astype(dtype)
    data[1] = 1  # a slice that is all true
    if dim is None:
        mine, theirs = getattr(mg, fn)(mg.tensor(data)), getattr(torch, fn)(ti(data))
    else:
        mine = getattr(mg.tensor(data), fn)(dim, keepdim)
        theirs = getattr(torch, fn)(ti(data), dim, keepdim)
    assert mine.shape == tuple(theirs.shape) and mine.tolist() == theirs.tolist()
    assert str(mine.dtype) == str(theirs.dtype).replace("torch.", "")


# ---- every mg.* function here has torch's parameter names and defaults ---------------------------
SIGNATURES = {
    "topk": torch.topk,
    "sort": torch.sort,
    "argsort": torch.argsort,
    "multinomial": torch.multinomial,
    "unique": None,  # torch.unique is a Python function: inspect it directly
    "mm": torch.mm,
    "bmm": torch.bmm,
    "addmm": torch.addmm,
    "baddbmm": torch.baddbmm,
    "matmul": torch.matmul,
    "add": torch.add,
    "sub": torch.sub,
    "mul": torch.mul,
    "div": torch.div,
    "pow": torch.pow,
    "gather": torch.gather,
    "scatter_add": torch.scatter_add,
    "index_select": torch.index_select,
    "cumsum": torch.cumsum,
    "cumprod": torch.cumprod,
    "flip": torch.flip,
    "roll": torch.roll,
    "diag": torch.diag,
    "trace": torch.trace,
    "isclose": torch.isclose,
    "allclose": torch.allclose,
    "equal": torch.equal,
}


def _torch_parameters(fn):
    """Parameter names and defaults from the first line of a torch docstring, e.g.
    'topk(input, k, dim=None, largest=True, sorted=True, *, out=None) -> ...'."""
    line = fn.__doc__.strip().splitlines()[0]
    inside = line[
        line.index("(") + 1 : line.rindex(")", 0, line.index("->") if "->" in line else None)
    ]
    params = []
    for part in (p.strip() for p in inside.split(",")):
        if part in ("*", ""):
            continue
        name, _, default = part.partition("=")
        params.append((name.split(":")[0].strip(), default.strip() or None))
    return params


def _mg_parameters(fn):
    out = []
    for p in inspect.signature(fn).parameters.values():
        default = None if p.default is inspect.Parameter.empty else repr(p.default)
        out.append((p.name, default))
    return out


@pytest.mark.parametrize("name", list(SIGNATURES))
def test_signature_matches_torch(name):
    mine = _mg_parameters(getattr(mg, name))
    theirs = _torch_parameters(SIGNATURES[name] or getattr(torch, name))
    assert [n for n, _ in mine] == [n for n, _ in theirs], (mine, theirs)
    for (n, d), (_, td) in zip(mine, theirs):
        if td is not None:
            # numbers compare by value ('1' == '1', '1e-05' == '1e-05'), None/True by name
            assert d is not None and (d == td or float(eval(d)) == float(eval(td))), (n, d, td)


def test_keyword_calls_like_torch():
    a, b = mg.tensor(rand(2, 3)), mg.tensor(rand(3, 2))
    ta, tb = ti(rand(2, 3)), ti(rand(3, 2))
    assert_close(mg.mm(input=a, mat2=b), torch.mm(input=ta, mat2=tb))
    assert_close(mg.sub(input=a, other=1.0, alpha=2), torch.sub(input=ta, other=1.0, alpha=2))
    assert_close(
        mg.gather(input=a, dim=1, index=mg.tensor([[0], [2]])), torch.gather(ta, 1, ti([[0], [2]]))
    )
    assert_close(
        mg.topk(input=a, k=2, dim=0, largest=False).values,
        torch.topk(input=ta, k=2, dim=0, largest=False).values,
    )
    assert_close(mg.linalg.vector_norm(a, ord=3), torch.linalg.vector_norm(ta, ord=3))


def test_method_forms_exist_for_every_function():
    x = mg.tensor(rand(3, 3))
    for name in [
        "topk", "sort", "argsort", "msort", "unique", "multinomial", "mm", "bmm", "addmm",
        "baddbmm",
        "gather", "scatter", "scatter_add", "index_select", "index_fill", "masked_fill", "cumsum",
        "cumprod", "flip", "roll", "diag", "trace", "norm", "allclose", "isclose", "equal", "all",
        "any", "add", "sub", "mul", "div", "pow", "nelement", "numel", "dim",
    ]:  # fmt: skip
        assert callable(getattr(x, name)), name
        assert hasattr(torch.Tensor, name), name  # the same name exists in torch
    assert x.nelement() == 9 and x.dim() == 2 and mg.numel(x) == 9


def test_values_of_leaf_gradients_for_gather_with_repeats_accumulate():
    x = leaf([[1.0, 2.0, 3.0]])
    tx = tleaf([[1.0, 2.0, 3.0]])
    x.gather(1, mg.tensor([[2, 2, 0, 2]])).sum().backward()
    tx.gather(1, ti([[2, 2, 0, 2]])).sum().backward()
    assert x.grad.tolist() == tx.grad.tolist() == [[1.0, 0.0, 3.0]]
