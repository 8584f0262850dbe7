"""Linear algebra: matmul (1-D, 2-D, batched with broadcasting), einsum, tril/triu, outer."""

import re

import numpy as np
import pytest
import torch

import minigrad as mg

from .helpers import assert_close, check_against_torch, check_grads, leaf, rand, tleaf

# The torch names whose behaviour this file checks against torch (read by tools/api_coverage.py).
TORCH_API = [
    "torch.Tensor.__matmul__",
    "torch.Tensor.__rmatmul__",
    "torch.Tensor.matmul",
    "torch.Tensor.tril",
    "torch.Tensor.triu",
    "torch.einsum",
    "torch.matmul",
    "torch.outer",
    "torch.tril",
    "torch.triu",
]

MATMUL_SHAPES = [
    ((3,), (3,)),  # dot product: 0-d result
    ((3,), (3, 4)),  # vector @ matrix
    ((2, 3), (3,)),  # matrix @ vector
    ((2, 3), (3, 4)),
    ((1, 1), (1, 1)),
    ((4, 2, 3), (4, 3, 5)),  # batched
    ((4, 2, 3), (3, 5)),  # batch on the left only
    ((2, 3), (4, 3, 5)),  # batch on the right only
    ((2, 1, 3, 4), (5, 4, 2)),  # broadcast batch dims
    ((1, 3, 2), (4, 2, 2)),  # size-1 batch broadcast
    ((3,), (2, 3, 4)),  # vector @ batch
    ((2, 4, 3), (3,)),  # batch @ vector
]


@pytest.mark.parametrize("shapes", MATMUL_SHAPES, ids=str)
@pytest.mark.parametrize("form", ["operator", "function", "method"])
def test_matmul_against_torch(shapes, form):
    fn = {
        "operator": (lambda a, b: a @ b, lambda a, b: a @ b),
        "function": (mg.matmul, torch.matmul),
        "method": (lambda a, b: a.matmul(b), lambda a, b: a.matmul(b)),
    }[form]
    check_against_torch(*fn, rand(*shapes[0], seed=1), rand(*shapes[1], seed=2))


# the first-derivative gradchecks are the linear exercise's (tests/test_exercise_linear.py)
@pytest.mark.parametrize(
    "shapes", [((3,), (3,)), ((2, 3), (3,)), ((2, 3), (3, 2)), ((2, 2, 3), (3, 2))], ids=str
)
def test_matmul_gradgradcheck(shapes):
    check_grads(lambda a, b: a @ b, rand(*shapes[0], seed=5), rand(*shapes[1], seed=6), second=True)


def test_matmul_with_one_side_constant_and_same_tensor_twice():
    a = rand(3, 3, seed=7)
    check_against_torch(lambda x: x @ x, lambda x: x @ x, a)
    x, tx = leaf(a), tleaf(a)
    c = rand(3, 2, seed=8)
    (x @ mg.tensor(c)).sum().backward()
    (tx @ torch.tensor(c)).sum().backward()
    assert_close(x.grad, tx.grad)


def test_matmul_reflected_with_numpy_array():
    a, b = rand(2, 3, seed=9), rand(3, 2, seed=10)
    out = a @ mg.tensor(b)
    assert isinstance(out, mg.Tensor)
    assert_close(out, torch.tensor(a) @ torch.tensor(b))


@pytest.mark.parametrize(
    "dtypes", [("float32", "float32"), ("float64", "float64"), ("int64", "int64")], ids=str
)
def test_matmul_dtypes(dtypes):
    a = (rand(2, 3, seed=11) * 4).astype(dtypes[0])
    b = (rand(3, 2, seed=12) * 4).astype(dtypes[1])
    out, tout = mg.tensor(a) @ mg.tensor(b), torch.tensor(a) @ torch.tensor(b)
    assert str(out.dtype) == str(tout.dtype).replace("torch.", "")
    assert_close(out, tout, rtol=1e-5)


@pytest.mark.parametrize(
    "shapes",
    [((3,), (4,)), ((2, 3), (4, 5)), ((2, 1, 3, 4), (5, 3, 2)), ((2, 3), (2,)), ((3,), (2, 3))],
    ids=str,
)
def test_matmul_shape_mismatch_names_both_shapes(shapes):
    a, b = mg.zeros(*shapes[0]), mg.zeros(*shapes[1])
    with pytest.raises(RuntimeError) as info:
        a @ b
    message = str(info.value)
    assert "matmul" in message
    assert str(shapes[0]) in message and str(shapes[1]) in message, message


def test_matmul_of_0d_raises():
    with pytest.raises(RuntimeError, match=re.escape("()")):
        mg.matmul(mg.tensor(2.0), mg.zeros(2))


def test_matmul_incompatible_batch_dims_raise():
    with pytest.raises((RuntimeError, ValueError)):
        mg.zeros(2, 2, 3) @ mg.zeros(3, 3, 2)


# ---- einsum ----------------------------------------------------------------------------
EINSUM = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("bij,bjk->bik", [(2, 2, 3), (2, 3, 4)]),
    ("bhqd,bhkd->bhqk", [(2, 2, 3, 4), (2, 2, 5, 4)]),
    ("bhqk,bhkd->bhqd", [(1, 2, 3, 5), (1, 2, 5, 4)]),
    ("i,j->ij", [(3,), (4,)]),
    ("i,i->", [(3,), (3,)]),
    ("ij->i", [(2, 3)]),
    ("ij->j", [(2, 3)]),
    ("ij->", [(2, 3)]),
    ("ij->ji", [(2, 3)]),
    ("ij,jk", [(2, 3), (3, 4)]),  # implicit output: 'ik'
    ("ba", [(2, 3)]),  # implicit output sorts the letters: a transpose
    ("ij,ij", [(2, 3), (2, 3)]),  # implicit: full contraction
    ("ij,ij->ij", [(2, 3), (2, 3)]),
    ("ik,kj,jl->il", [(2, 3), (3, 4), (4, 2)]),
    ("i,j,k->ijk", [(2,), (3,), (2,)]),
    ("bi,bj->bij", [(2, 3), (2, 4)]),
    ("ij,k->ijk", [(2, 1), (3,)]),  # a size-1 dim
    (" ij , jk -> ik ", [(2, 3), (3, 2)]),  # spaces
]


@pytest.mark.parametrize("equation, shapes", EINSUM, ids=[e[0] for e in EINSUM])
def test_einsum_against_torch(equation, shapes):
    arrays = [rand(*s, seed=20 + i) for i, s in enumerate(shapes)]
    check_against_torch(
        lambda *xs: mg.einsum(equation, *xs), lambda *xs: torch.einsum(equation, *xs), *arrays
    )


def test_einsum_accepts_a_list_of_operands():
    a, b = rand(2, 3, seed=30), rand(3, 2, seed=31)
    check_against_torch(
        lambda x, y: mg.einsum("ij,jk->ik", [x, y]),
        lambda x, y: torch.einsum("ij,jk->ik", [x, y]),
        a,
        b,
    )


@pytest.mark.parametrize("equation, shapes", [EINSUM[i] for i in (0, 2, 4, 6, 8, 12, 14)], ids=str)
def test_einsum_gradcheck(equation, shapes):
    arrays = [rand(*s, seed=40 + i) for i, s in enumerate(shapes)]
    check_grads(lambda *xs: mg.einsum(equation, *xs), *arrays)


@pytest.mark.parametrize("equation, shapes", [EINSUM[i] for i in (0, 1, 8)], ids=str)
def test_einsum_gradgradcheck(equation, shapes):
    arrays = [rand(*s, seed=50 + i) for i, s in enumerate(shapes)]
    check_grads(lambda *xs: mg.einsum(equation, *xs) * 1.0, *arrays, second=True)


def test_einsum_mixed_dtypes_and_float32():
    a, b = rand(2, 3, seed=60).astype(np.float32), rand(3, 2, seed=61).astype(np.float32)
    out = mg.einsum("ij,jk->ik", mg.tensor(a), mg.tensor(b))
    assert out.dtype == np.float32
    assert_close(out, torch.einsum("ij,jk->ik", torch.tensor(a), torch.tensor(b)), rtol=1e-5)


@pytest.mark.parametrize(
    "equation, shapes, error, pattern",
    [
        ("ij,jk->ik", [(2, 3), (4, 2)], ValueError, r"'j'.*3.*4"),
        ("ij->ik", [(2, 3)], ValueError, r"'k'"),
        ("ijk->i", [(2, 3)], ValueError, r"\(2, 3\)"),
        ("ij,jk->ik", [(2, 3)], ValueError, r"2 operands"),
        ("ii->i", [(2, 2)], NotImplementedError, r"repeated"),
        ("...ij->...ji", [(2, 2)], NotImplementedError, r"ellipsis"),
    ],
    ids=["size_mismatch", "unknown_output", "wrong_ndim", "operand_count", "diagonal", "ellipsis"],
)
def test_einsum_errors_are_clear(equation, shapes, error, pattern):
    with pytest.raises(error, match=pattern):
        mg.einsum(equation, *[mg.zeros(*s) for s in shapes])


# ---- tril / triu -------------------------------------------------------------------------
@pytest.mark.parametrize("diagonal", [0, 1, -1, 2, -3, 5])
@pytest.mark.parametrize("shape", [(3, 3), (3, 5), (4, 2), (2, 3, 4), (1, 1)], ids=str)
@pytest.mark.parametrize("name", ["tril", "triu"])
def test_tril_triu_against_torch(name, shape, diagonal):
    a = rand(*shape, seed=70)
    check_against_torch(
        lambda x: getattr(mg, name)(x, diagonal), lambda x: getattr(torch, name)(x, diagonal), a
    )
    check_against_torch(
        lambda x: getattr(x, name)(diagonal=diagonal),
        lambda x: getattr(x, name)(diagonal=diagonal),
        a,
    )


@pytest.mark.parametrize("name", ["tril", "triu"])
def test_tril_triu_gradcheck_and_errors(name):
    check_grads(lambda x: getattr(mg, name)(x, 1), rand(3, 4, seed=71))
    check_grads(lambda x: getattr(mg, name)(x * x, -1), rand(3, 3, seed=72), second=True)
    with pytest.raises(RuntimeError, match=rf"{name}.*\(3,\)"):
        getattr(mg, name)(mg.zeros(3))


def test_tril_of_int_and_bool_tensors():
    ones = mg.ones(3, 3, dtype=mg.bool)
    out, tout = mg.tril(ones), torch.tril(torch.ones(3, 3, dtype=torch.bool))
    assert out.dtype == np.bool_ and out.tolist() == tout.tolist()
    assert mg.triu(mg.ones(2, 2, dtype=mg.int64)).tolist() == [[1, 1], [0, 1]]


# ---- outer ----------------------------------------------------------------------------------
@pytest.mark.parametrize("shapes", [((3,), (4,)), ((1,), (2,)), ((2,), (1,))], ids=str)
def test_outer_against_torch(shapes):
    a, b = rand(*shapes[0], seed=80), rand(*shapes[1], seed=81)
    check_against_torch(mg.outer, torch.outer, a, b)
    check_grads(mg.outer, a, b, second=True)


def test_outer_needs_vectors():
    with pytest.raises(RuntimeError, match=r"outer.*\(2, 2\)"):
        mg.outer(mg.zeros(2, 2), mg.zeros(2))


# ---- float32 end to end -----------------------------------------------------------------------
@pytest.mark.parametrize(
    "shapes", [((2, 3), (3, 4)), ((2, 1, 3, 4), (5, 4, 2)), ((3,), (3,))], ids=str
)
def test_matmul_float32_forward_and_backward(shapes):
    a, b = (
        rand(*shapes[0], seed=90).astype(np.float32),
        rand(*shapes[1], seed=91).astype(np.float32),
    )
    x, y = mg.tensor(a, requires_grad=True), mg.tensor(b, requires_grad=True)
    tx, ty = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    out, tout = x @ y, tx @ ty
    assert out.dtype == np.float32
    assert_close(out, tout, rtol=1e-5, atol=1e-6)
    out.sum().backward()
    tout.sum().backward()
    assert x.grad.dtype == y.grad.dtype == np.float32
    assert_close(x.grad, tx.grad, rtol=1e-5, atol=1e-6)
    assert_close(y.grad, ty.grad, rtol=1e-5, atol=1e-6)
