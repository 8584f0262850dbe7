"""Property tests (hypothesis): broadcasting backwards and reductions, over random
shapes, dims and keepdim, against NumPy and PyTorch."""

import numpy as np
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minigrad as mg
from minigrad.ops.broadcast import unbroadcast

from .helpers import assert_close, leaf, rand, tleaf

SETTINGS = settings(max_examples=60, deadline=None)

broadcast_pairs = hnp.mutually_broadcastable_shapes(
    num_shapes=2, min_dims=0, max_dims=4, min_side=1, max_side=4
)
seeds = st.integers(0, 2**16)


# ---- (1) broadcasting, backwards ----------------------------------------------------------
@SETTINGS
@given(shapes=broadcast_pairs, seed=seeds)
def test_unbroadcast_sums_a_gradient_back_to_the_input_shape(shapes, seed):
    (shape, _), out_shape = shapes.input_shapes, shapes.result_shape
    g = rand(*out_shape, seed=seed)
    result = unbroadcast(mg.tensor(g), shape)
    assert result.shape == shape
    assert_close(result, torch.tensor(g).sum_to_size(shape), rtol=1e-12, atol=1e-12)


@SETTINGS
@given(shapes=broadcast_pairs, seed=seeds)
def test_unbroadcast_is_the_adjoint_of_broadcasting(shapes, seed):
    # <unbroadcast(g), v> == <g, broadcast(v)> for every g and v: the defining property
    (shape, _), out_shape = shapes.input_shapes, shapes.result_shape
    g, v = rand(*out_shape, seed=seed), rand(*shape, seed=seed + 1)
    lhs = np.sum(unbroadcast(mg.tensor(g), shape).array * v)
    rhs = np.sum(g * np.broadcast_to(v, out_shape))
    np.testing.assert_allclose(lhs, rhs, rtol=1e-10, atol=1e-10)


@SETTINGS
@given(shapes=broadcast_pairs, seed=seeds)
def test_unbroadcast_is_differentiable(shapes, seed):
    (shape, _), out_shape = shapes.input_shapes, shapes.result_shape
    g = leaf(rand(*out_shape, seed=seed))
    v = rand(*shape, seed=seed + 1)
    (unbroadcast(g, shape) * mg.tensor(v)).sum().backward()
    np.testing.assert_allclose(g.grad.array, np.broadcast_to(v, out_shape))


BINARY = {
    "add": (lambda a, b: a + b),
    "sub": (lambda a, b: a - b),
    "mul": (lambda a, b: a * b),
    "div": (lambda a, b: a / b),
}


@SETTINGS
@given(shapes=broadcast_pairs, op=st.sampled_from(sorted(BINARY)), seed=seeds)
def test_broadcasting_binary_op_gradients_match_torch(shapes, op, seed):
    shape_a, shape_b = shapes.input_shapes
    a = rand(*shape_a, seed=seed)
    b = rand(*shape_b, seed=seed + 1, positive=op == "div")
    fn = BINARY[op]
    x, y, tx, ty = leaf(a), leaf(b), tleaf(a), tleaf(b)
    out, tout = fn(x, y), fn(tx, ty)
    assert out.shape == shapes.result_shape
    assert_close(out, tout)
    g = rand(*shapes.result_shape, seed=seed + 2)
    out.backward(mg.tensor(g))
    tout.backward(torch.tensor(g))
    assert x.grad.shape == shape_a and y.grad.shape == shape_b
    assert_close(x.grad, tx.grad)
    assert_close(y.grad, ty.grad)


@SETTINGS
@given(shapes=broadcast_pairs, seed=seeds)
def test_broadcast_with_itself_accumulates(shapes, seed):
    # x used on both sides (x * x + x): every path's gradient arrives, in x's shape
    shape_a, _ = shapes.input_shapes
    a = rand(*shape_a, seed=seed)
    x, tx = leaf(a), tleaf(a)
    c = rand(*shapes.result_shape, seed=seed + 1)
    (x * x * mg.tensor(c) + x).sum().backward()
    (tx * tx * torch.tensor(c) + tx).sum().backward()
    assert x.grad.shape == shape_a
    assert_close(x.grad, tx.grad)


# ---- (2) reductions ---------------------------------------------------------------------------
@st.composite
def reduction_cases(draw, dims=("none", "int", "tuple")):
    """(shape, dim, keepdim, seed) with dim None, an int or a tuple, possibly negative."""
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=4, min_side=1, max_side=4))
    ndim = len(shape)
    kind = draw(st.sampled_from(dims))
    if kind == "none":
        dim = None
    elif kind == "int" or ndim == 0:
        dim = draw(st.integers(-max(ndim, 1), max(ndim, 1) - 1))
    else:
        axes = draw(st.lists(st.integers(0, ndim - 1), min_size=1, max_size=ndim, unique=True))
        dim = tuple(a - ndim if draw(st.booleans()) else a for a in axes)
    return shape, dim, draw(st.booleans()), draw(seeds)


def torch_dim(dim, ndim):
    """PyTorch spells "all dims" as the full tuple for amax/logsumexp/var."""
    return tuple(range(ndim)) if dim is None else dim


def reduced_shape(shape, dim, keepdim):
    """The expected output shape, computed with NumPy."""
    axes = None if dim is None else tuple(d % max(len(shape), 1) for d in np.atleast_1d(dim))
    if len(shape) == 0:
        return ()
    return np.sum(np.zeros(shape), axis=axes, keepdims=keepdim).shape


def check_reduction(out, tout, x, tx, seed):
    assert_close(out, tout, rtol=1e-10, atol=1e-12)
    g = rand(*tout.shape, seed=seed + 1)
    out.backward(mg.tensor(g))
    tout.backward(torch.tensor(g))
    assert x.grad.shape == x.shape
    assert_close(x.grad, tx.grad, rtol=1e-10, atol=1e-12)


@SETTINGS
@given(case=reduction_cases(), op=st.sampled_from(["sum", "mean"]))
def test_sum_and_mean(case, op):
    shape, dim, keepdim, seed = case
    a = rand(*shape, seed=seed)
    x, tx = leaf(a), tleaf(a)
    out = getattr(x, op)(dim=dim, keepdim=keepdim)
    tout = getattr(tx, op)(dim=dim, keepdim=keepdim)
    assert out.shape == reduced_shape(shape, dim, keepdim)
    np_axes = (
        None if dim is None or not shape else tuple(d % len(shape) for d in np.atleast_1d(dim))
    )
    np.testing.assert_allclose(
        out.array, getattr(np, op)(a, axis=np_axes, keepdims=keepdim and bool(shape))
    )
    check_reduction(out, tout, x, tx, seed)


@SETTINGS
@given(case=reduction_cases(), correction=st.sampled_from([0, 1]))
def test_var(case, correction):
    shape, dim, keepdim, seed = case
    a = rand(*shape, seed=seed)
    count = a.size // int(np.prod(reduced_shape(shape, dim, False), dtype=int))
    assume(count > correction)  # otherwise the variance is 0/0
    x, tx = leaf(a), tleaf(a)
    out = x.var(dim=dim, correction=correction, keepdim=keepdim)
    tout = tx.var(dim=torch_dim(dim, len(shape)), correction=correction, keepdim=keepdim)
    assert out.shape == reduced_shape(shape, dim, keepdim)
    check_reduction(out, tout, x, tx, seed)


@SETTINGS
@given(case=reduction_cases())
def test_amax(case):
    shape, dim, keepdim, seed = case
    a = rand(*shape, seed=seed)
    x, tx = leaf(a), tleaf(a)
    out = x.amax(dim=dim, keepdim=keepdim)
    tout = tx.amax(dim=torch_dim(dim, len(shape)), keepdim=keepdim)
    assert out.shape == reduced_shape(shape, dim, keepdim)
    check_reduction(out, tout, x, tx, seed)


@SETTINGS
@given(case=reduction_cases(dims=("none", "int")))
def test_max(case):
    shape, dim, keepdim, seed = case
    a = rand(*shape, seed=seed)
    x, tx = leaf(a), tleaf(a)
    if dim is None:
        out, tout = x.max(), tx.max()
        assert out.shape == ()
        np.testing.assert_allclose(out.array, np.max(a))
    else:
        out, indices = x.max(dim=dim, keepdim=keepdim)
        tout, tindices = tx.max(dim=dim, keepdim=keepdim)
        assert out.shape == reduced_shape(shape, dim, keepdim)
        assert indices.dtype == mg.int64
        np.testing.assert_array_equal(indices.array, tindices.numpy())
    check_reduction(out, tout, x, tx, seed)


@SETTINGS
@given(case=reduction_cases(dims=("int", "tuple")))
def test_logsumexp(case):
    shape, dim, keepdim, seed = case
    a = rand(*shape, seed=seed) * 3.0
    x, tx = leaf(a), tleaf(a)
    out = x.logsumexp(dim=dim, keepdim=keepdim)
    tout = tx.logsumexp(dim=dim, keepdim=keepdim)
    assert out.shape == reduced_shape(shape, dim, keepdim)
    check_reduction(out, tout, x, tx, seed)


@SETTINGS
@given(case=reduction_cases(dims=("int", "tuple")), shift=st.sampled_from([0.0, 800.0, -800.0]))
def test_logsumexp_is_stable_for_large_inputs(case, shift):
    shape, dim, keepdim, seed = case
    a = rand(*shape, seed=seed)
    out = leaf(a + shift).logsumexp(dim=dim, keepdim=keepdim)
    expected = leaf(a).logsumexp(dim=dim, keepdim=keepdim).array + shift
    assert np.all(np.isfinite(out.array))
    np.testing.assert_allclose(out.array, expected, rtol=1e-12, atol=1e-9)
