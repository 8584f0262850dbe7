"""nn.utils against torch.nn.utils: gradient clipping by norm and by value, and the
parameters <-> flat vector conversions."""

import math

import numpy as np
import pytest
import torch
import torch.nn.utils as tutils

import minigrad as mg
import minigrad.nn as nn
from minigrad.nn import utils
from tests.helpers import assert_close, rand

# The torch names whose behaviour this file checks against torch (read by tools/api_coverage.py).
TORCH_API = [
    "torch.nn.utils.clip_grad_norm_",
    "torch.nn.utils.clip_grad_value_",
    "torch.nn.utils.parameters_to_vector",
    "torch.nn.utils.vector_to_parameters",
]

SHAPES = [(3, 4), (4,), (2, 2, 3), ()]
N = 12 + 4 + 12 + 1  # elements in all of SHAPES


def params_with_grads(scale=1.0, missing=(), dtype=np.float32):
    """minigrad and torch parameters with equal values and gradients; the indices in
    `missing` get no gradient."""
    mine, theirs = [], []
    for i, shape in enumerate(SHAPES):
        value, grad = (
            rand(*shape, seed=i, dtype=dtype),
            rand(*shape, seed=10 + i, dtype=dtype) * scale,
        )
        p, t = nn.Parameter(value.copy()), torch.nn.Parameter(torch.tensor(value.copy()))
        if i not in missing:
            p.grad, t.grad = mg.tensor(grad.copy()), torch.tensor(grad.copy())
        mine.append(p)
        theirs.append(t)
    return mine, theirs


def assert_same_grads(mine, theirs, rtol=1e-6):
    for p, t in zip(mine, theirs):
        if t.grad is None:
            assert p.grad is None
        else:
            assert_close(p.grad, t.grad, rtol=rtol, atol=1e-7)


# ---- clip_grad_norm_ ---------------------------------------------------------------------------
@pytest.mark.parametrize("norm_type", [2.0, 1, 3.0, 0.5, math.inf, "inf"], ids=str)
@pytest.mark.parametrize("max_norm", [0.5, 1000.0], ids=["clips", "leaves"])
def test_clip_grad_norm_matches_torch(max_norm, norm_type):
    mine, theirs = params_with_grads()
    total = utils.clip_grad_norm_(mine, max_norm, norm_type)
    expected = tutils.clip_grad_norm_(theirs, max_norm, norm_type)
    assert isinstance(total, mg.Tensor) and total.shape == () and total.dtype == np.float32
    assert_close(total, expected, rtol=1e-6)
    assert_same_grads(mine, theirs)


def test_clip_grad_norm_scales_to_max_norm_and_keeps_the_direction():
    mine, _ = params_with_grads(scale=10.0)
    before = np.concatenate([p.grad.array.reshape(-1) for p in mine]).astype(np.float64)
    total = utils.clip_grad_norm_(mine, 1.0)
    after = np.concatenate([p.grad.array.reshape(-1) for p in mine]).astype(np.float64)
    # the norm before clipping
    assert total.item() == pytest.approx(np.linalg.norm(before), rel=1e-6)
    assert np.linalg.norm(after) == pytest.approx(1.0, rel=1e-5)
    np.testing.assert_allclose(after * np.linalg.norm(before), before, rtol=1e-5)


def test_clip_grad_norm_skips_parameters_without_grad():
    mine, theirs = params_with_grads(missing=(1, 3))
    assert_close(utils.clip_grad_norm_(mine, 0.1), tutils.clip_grad_norm_(theirs, 0.1), rtol=1e-6)
    assert_same_grads(mine, theirs)
    assert mine[1].grad is None and mine[3].grad is None


def test_clip_grad_norm_takes_one_tensor_or_a_generator():
    mine, theirs = params_with_grads()
    assert_close(
        utils.clip_grad_norm_(mine[0], 0.1), tutils.clip_grad_norm_(theirs[0], 0.1), rtol=1e-6
    )
    assert_close(
        utils.clip_grad_norm_(iter(mine), 0.2), tutils.clip_grad_norm_(iter(theirs), 0.2), rtol=1e-6
    )
    assert_same_grads(mine, theirs)


def test_clip_grad_norm_of_a_model():
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))
    model(mg.tensor(rand(5, 4, dtype=np.float32))).sum().backward()
    grads = np.concatenate([p.grad.array.reshape(-1) for p in model.parameters()])
    total = utils.clip_grad_norm_(model.parameters(), 0.01)
    assert total.item() == pytest.approx(float(np.linalg.norm(grads.astype(np.float64))), rel=1e-6)


def test_clip_grad_norm_without_any_grad_returns_zero():
    mine, theirs = params_with_grads(missing=(0, 1, 2, 3))
    assert (
        utils.clip_grad_norm_(mine, 1.0).item() == tutils.clip_grad_norm_(theirs, 1.0).item() == 0.0
    )
    assert utils.clip_grad_norm_([], 1.0).item() == 0.0


def test_clip_grad_norm_zero_gradients_stay_finite():
    p = nn.Parameter(np.ones(3, dtype=np.float32))
    p.grad = mg.zeros(3)
    assert utils.clip_grad_norm_([p], 1.0).item() == 0.0
    assert np.all(p.grad.array == 0)


def test_clip_grad_norm_non_finite():
    mine, theirs = params_with_grads()
    mine[0].grad.array[0, 0] = np.nan
    theirs[0].grad[0, 0] = float("nan")
    with pytest.raises(RuntimeError, match="nan"):
        utils.clip_grad_norm_(mine, 1.0, error_if_nonfinite=True)
    with pytest.raises(RuntimeError):
        tutils.clip_grad_norm_(theirs, 1.0, error_if_nonfinite=True)
    assert math.isnan(utils.clip_grad_norm_(mine, 1.0).item())


def test_clip_grad_norm_float64():
    mine, theirs = params_with_grads(dtype=np.float64)
    total = utils.clip_grad_norm_(mine, 0.3)
    assert total.dtype == np.float64
    assert_close(total, tutils.clip_grad_norm_(theirs, 0.3), rtol=1e-12)
    assert_same_grads(mine, theirs, rtol=1e-12)


# ---- clip_grad_norm_: every norm type and non-finite case, as torch ------------------------------
NORM_TYPES = [2.0, 2, 1, 3.0, 0.5, 0, 0.0, -1, -2.0, -math.inf, "-inf", math.inf, "inf"]
DTYPES = [np.float32, np.float64]


def grads_like_torch(values, dtype):
    """minigrad and torch parameters whose gradients are the arrays in `values` (None: no grad)."""
    mine, theirs = [], []
    for v in values:
        p = nn.Parameter(np.zeros(np.shape(v) if v is not None else (2,), dtype=dtype))
        t = torch.nn.Parameter(
            torch.zeros(p.shape, dtype=torch.float64 if dtype == np.float64 else torch.float32)
        )
        if v is not None:
            grad = np.asarray(v, dtype=dtype)
            p.grad, t.grad = mg.tensor(grad.copy()), torch.tensor(grad.copy())
        mine.append(p)
        theirs.append(t)
    return mine, theirs


def clip_both(values, dtype, max_norm, norm_type, **kwargs):
    """Clip the same gradients with minigrad and with torch; check the totals (value, shape,
    dtype; NaN where torch has NaN) and the clipped gradients agree."""
    mine, theirs = grads_like_torch(values, dtype)
    total = utils.clip_grad_norm_(mine, max_norm, norm_type, **kwargs)
    expected = tutils.clip_grad_norm_(theirs, max_norm, norm_type, **kwargs)
    assert isinstance(total, mg.Tensor) and total.shape == ()
    assert total.dtype == np.dtype(str(expected.dtype).removeprefix("torch."))
    rtol = 1e-6 if dtype == np.float32 else 1e-12
    assert_close(total, expected, rtol=rtol, atol=0)  # NaN must be NaN, inf must be inf
    for p, t in zip(mine, theirs):
        if t.grad is not None:
            assert p.grad.dtype == dtype
            assert_close(p.grad, t.grad, rtol=rtol, atol=1e-30)
    return total


# gradients with exact zeros, a parameter whose gradient is all zero, and one with no gradient:
# the 0-"norm" counts non-zeros, -inf finds the smallest |g|
GRADS = [[[0.0, -1.5, 2.0], [0.25, 0.0, -3.0]], [0.0, 0.0], None, [[4.0]], [-0.5, 0.125, 7.0]]


@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("norm_type", NORM_TYPES, ids=repr)
@pytest.mark.parametrize("max_norm", [0.5, 1000.0], ids=["clips", "leaves"])
def test_clip_grad_norm_every_norm_type_as_torch(max_norm, norm_type, dtype):
    clip_both(GRADS, dtype, max_norm, norm_type)
    clip_both([g for g in GRADS if g != [0.0, 0.0]], dtype, max_norm, norm_type)  # no zero gradient


@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("norm_type", NORM_TYPES, ids=repr)
@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf], ids=["nan", "inf", "-inf"])
def test_clip_grad_norm_non_finite_gradient_as_torch(bad, norm_type, dtype):
    """A NaN or inf in one gradient: the total and every clipped gradient as torch (a NaN total
    makes every gradient NaN: the factor is min(1, max_norm / (total + 1e-6)) as a tensor op)."""
    values = [[[0.0, 1.0, bad], [0.5, -2.0, 3.0]], [1.0, -1.0], [[0.0]]]
    clip_both(values, dtype, 1.0, norm_type)


@pytest.mark.parametrize("norm_type", NORM_TYPES, ids=repr)
@pytest.mark.parametrize("bad", [math.nan, math.inf], ids=["nan", "inf"])
def test_clip_grad_norm_error_if_nonfinite_as_torch(bad, norm_type):
    mine, theirs = grads_like_torch([[1.0, bad], [2.0, 3.0]], np.float32)
    try:
        tutils.clip_grad_norm_(theirs, 1.0, norm_type, error_if_nonfinite=True)
        torch_raised = False
    except RuntimeError:
        torch_raised = True
    before = [p.grad.array.copy() for p in mine]
    if torch_raised:
        with pytest.raises(RuntimeError, match="non-finite|nan|inf"):
            utils.clip_grad_norm_(mine, 1.0, norm_type, error_if_nonfinite=True)
        for p, b in zip(mine, before):  # raised before touching any gradient
            np.testing.assert_array_equal(p.grad.array, b)
    else:
        clip_both([[1.0, bad], [2.0, 3.0]], np.float32, 1.0, norm_type, error_if_nonfinite=True)


def test_clip_grad_norm_nan_reaches_every_gradient():
    """The bug this guards against: min(1.0, nan) is 1.0 in Python, so a NaN total left the
    other gradients unclipped; torch makes them all NaN."""
    mine, _ = grads_like_torch([[math.nan, 1.0], [30.0, 40.0]], np.float32)
    assert math.isnan(utils.clip_grad_norm_(mine, 1.0).item())
    assert np.isnan(mine[1].grad.array).all()


def test_clip_grad_norm_overflowing_float32_total_as_torch():
    """torch measures the norm in the gradients' dtype: float32 squares of 1e20 overflow to inf,
    the factor is 0 and the gradients become 0."""
    clip_both([[1e20, 1.0], [2.0]], np.float32, 1.0, 2.0)
    clip_both([[1e20, 1.0], [2.0]], np.float64, 1.0, 2.0)
    clip_both([[1e-30, 1e-30]], np.float32, 1.0, 2.0)  # underflow to 0 as torch


@pytest.mark.parametrize("foreach", [None, True, False])
def test_clip_grad_norm_accepts_foreach(foreach):
    clip_both(GRADS, np.float32, 0.5, 2.0, foreach=foreach)
    mine, theirs = grads_like_torch(GRADS, np.float32)
    utils.clip_grad_value_(mine, 0.5, foreach=foreach)
    tutils.clip_grad_value_(theirs, 0.5, foreach=foreach)
    assert_same_grads(mine, theirs)


@pytest.mark.parametrize("max_norm", [1, 0.5, np.float64(0.5), np.float32(0.5), "tensor"], ids=repr)
def test_clip_grad_norm_max_norm_types(max_norm):
    mine, theirs = grads_like_torch(GRADS, np.float32)
    m_max = mg.tensor(0.5) if max_norm == "tensor" else max_norm
    t_max = torch.tensor(0.5) if max_norm == "tensor" else max_norm
    assert_close(utils.clip_grad_norm_(mine, m_max), tutils.clip_grad_norm_(theirs, t_max))
    assert_same_grads(mine, theirs)


def test_clip_grad_norm_without_grads_returns_float32_zero():
    """torch returns tensor(0.) (the default dtype, 0-d) when no parameter has a gradient, even for
    float64 parameters."""
    mine, theirs = grads_like_torch([None, None], np.float64)
    total, expected = utils.clip_grad_norm_(mine, 1.0), tutils.clip_grad_norm_(theirs, 1.0)
    assert total.shape == () and total.dtype == np.float32 and expected.dtype == torch.float32
    assert total.item() == expected.item() == 0.0
    assert all(p.grad is None for p in mine)


def test_clip_grad_norm_empty_generator_warns_as_torch():
    with pytest.warns(UserWarning, match="empty generator"):
        tutils.clip_grad_norm_((p for p in []), 1.0)
    with pytest.warns(UserWarning, match="empty generator"):
        assert utils.clip_grad_norm_((p for p in []), 1.0).item() == 0.0


def test_clip_grad_norm_single_tensor_and_generator_as_torch():
    mine, theirs = grads_like_torch(GRADS, np.float64)
    assert_close(utils.clip_grad_norm_(mine[0], 0.1), tutils.clip_grad_norm_(theirs[0], 0.1))
    total = utils.clip_grad_norm_((p for p in mine), 0.2, -math.inf)
    assert_close(total, tutils.clip_grad_norm_((t for t in theirs), 0.2, -math.inf))
    assert_same_grads(mine, theirs)


def test_clip_grad_norm_mixed_dtypes_give_the_wider_total():
    mine32, theirs32 = grads_like_torch([[3.0, 4.0]], np.float32)
    mine64, theirs64 = grads_like_torch([[6.0, 8.0]], np.float64)
    total = utils.clip_grad_norm_(mine32 + mine64, 1.0)
    expected = tutils.clip_grad_norm_(theirs32 + theirs64, 1.0)
    assert total.dtype == np.float64 and expected.dtype == torch.float64
    assert_close(total, expected, rtol=1e-12)
    assert_same_grads(mine32 + mine64, theirs32 + theirs64)
    assert mine32[0].grad.dtype == np.float32


@pytest.mark.parametrize("norm_type", [math.inf, -math.inf])
def test_clip_grad_norm_empty_gradient_with_inf_norm_raises_as_torch(norm_type):
    mine, theirs = grads_like_torch([np.zeros(0), [2.0, 3.0]], np.float32)
    with pytest.raises(RuntimeError):
        tutils.clip_grad_norm_(theirs, 1.0, norm_type)
    with pytest.raises(RuntimeError, match="empty"):
        utils.clip_grad_norm_(mine, 1.0, norm_type)
    clip_both([np.zeros(0), [2.0, 3.0]], np.float32, 1.0, 2.0)  # the 2-norm of nothing is 0


@pytest.mark.parametrize("clip_value", [-1.0, 0, 0.5, math.inf, -math.inf, math.nan], ids=repr)
def test_clip_grad_value_non_finite_and_negative_as_torch(clip_value):
    """NaN gradients stay NaN, inf ones are clamped; a negative clip_value gives an empty range
    [-c, c] where torch's clamp returns its max (-|c|) everywhere; a NaN clip_value makes all
    NaN."""
    values = [[math.nan, -3.0, 0.5, math.inf, -math.inf, 0.0], None, [[2.0, -0.25]]]
    mine, theirs = grads_like_torch(values, np.float32)
    utils.clip_grad_value_(mine, clip_value)
    tutils.clip_grad_value_(theirs, clip_value)
    assert_same_grads(mine, theirs)
    mine, theirs = grads_like_torch(values, np.float32)
    utils.clip_grad_value_((p for p in mine), mg.tensor(clip_value))
    tutils.clip_grad_value_((t for t in theirs), torch.tensor(clip_value))
    assert_same_grads(mine, theirs)


# ---- clip_grad_value_ ----------------------------------------------------------------------------
@pytest.mark.parametrize("clip_value", [0.1, 0.5, 10.0])
def test_clip_grad_value_matches_torch(clip_value):
    mine, theirs = params_with_grads(missing=(2,))
    assert utils.clip_grad_value_(mine, clip_value) is None
    tutils.clip_grad_value_(theirs, clip_value)
    assert_same_grads(mine, theirs)
    assert all(np.abs(p.grad.array).max() <= clip_value for p in mine if p.grad is not None)


def test_clip_grad_value_takes_one_tensor():
    p = nn.Parameter(np.zeros(4, dtype=np.float32))
    p.grad = mg.tensor([-3.0, -0.5, 0.5, 3.0])
    utils.clip_grad_value_(p, 1)
    np.testing.assert_array_equal(p.grad.array, [-1.0, -0.5, 0.5, 1.0])


# ---- parameters_to_vector / vector_to_parameters -------------------------------------------------
def test_parameters_to_vector_matches_torch():
    mine, theirs = params_with_grads()
    vec = utils.parameters_to_vector(mine)
    assert_close(vec, tutils.parameters_to_vector(theirs))
    assert vec.shape == (sum(p.array.size for p in mine),)


def test_parameters_to_vector_is_differentiable():
    mine, _ = params_with_grads(missing=(0, 1, 2, 3))
    weights = mg.tensor(rand(N, seed=3, dtype=np.float32))
    (utils.parameters_to_vector(mine) * weights).sum().backward()
    start = 0
    for p in mine:
        n = p.array.size
        np.testing.assert_array_equal(
            p.grad.array, weights.array[start : start + n].reshape(p.shape)
        )
        start += n


def test_vector_to_parameters_matches_torch_and_keeps_the_parameters():
    mine, theirs = params_with_grads()
    before = list(mine)
    vec = rand(N, seed=4, dtype=np.float32)
    utils.vector_to_parameters(mg.tensor(vec), mine)
    tutils.vector_to_parameters(torch.tensor(vec), theirs)
    for p, t, b in zip(mine, theirs, before):
        assert p is b and p.dtype == np.float32 and p.requires_grad
        assert_close(p, t)
    np.testing.assert_array_equal(utils.parameters_to_vector(mine).array, vec)


def test_vector_to_parameters_errors():
    mine, theirs = params_with_grads()
    with pytest.raises(TypeError):
        tutils.vector_to_parameters(np.zeros(N), theirs)
    with pytest.raises(TypeError, match="Tensor"):
        utils.vector_to_parameters(np.zeros(N), mine)
    with pytest.raises(ValueError, match=f"{N} elements.*got shape \\({N - 1},\\)"):
        utils.vector_to_parameters(mg.zeros(N - 1), mine)
    with pytest.raises(ValueError, match="no parameters"):
        utils.parameters_to_vector([])


def test_flat_vector_round_trip_through_a_model():
    a = nn.Sequential(nn.Linear(3, 4), nn.Linear(4, 2))
    b = nn.Sequential(nn.Linear(3, 4), nn.Linear(4, 2))
    utils.vector_to_parameters(utils.parameters_to_vector(a.parameters()).detach(), b.parameters())
    x = mg.tensor(rand(2, 3, dtype=np.float32))
    np.testing.assert_array_equal(a(x).array, b(x).array)
