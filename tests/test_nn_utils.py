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

SHAPES = [(3, 4), (4,), (2, 2, 3), ()]
N = 12 + 4 + 12 + 1  # elements in all of SHAPES


def params_with_grads(scale=1.0, missing=(), dtype=np.float32):
    """minigrad and torch parameters with equal values and gradients; the indices in
    `missing` get no gradient."""
    mine, theirs = [], []
    for i, shape in enumerate(SHAPES):
        value, grad = rand(*shape, seed=i, dtype=dtype), rand(*shape, seed=10 + i, dtype=dtype) * scale
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
    assert total.item() == pytest.approx(np.linalg.norm(before), rel=1e-6)  # the norm before clipping
    assert np.linalg.norm(after) == pytest.approx(1.0, rel=1e-5)
    np.testing.assert_allclose(after * np.linalg.norm(before), before, rtol=1e-5)


def test_clip_grad_norm_skips_parameters_without_grad():
    mine, theirs = params_with_grads(missing=(1, 3))
    assert_close(utils.clip_grad_norm_(mine, 0.1), tutils.clip_grad_norm_(theirs, 0.1), rtol=1e-6)
    assert_same_grads(mine, theirs)
    assert mine[1].grad is None and mine[3].grad is None


def test_clip_grad_norm_takes_one_tensor_or_a_generator():
    mine, theirs = params_with_grads()
    assert_close(utils.clip_grad_norm_(mine[0], 0.1), tutils.clip_grad_norm_(theirs[0], 0.1), rtol=1e-6)
    assert_close(utils.clip_grad_norm_(iter(mine), 0.2), tutils.clip_grad_norm_(iter(theirs), 0.2), rtol=1e-6)
    assert_same_grads(mine, theirs)


def test_clip_grad_norm_of_a_model():
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))
    model(mg.tensor(rand(5, 4, dtype=np.float32))).sum().backward()
    grads = np.concatenate([p.grad.array.reshape(-1) for p in model.parameters()])
    total = utils.clip_grad_norm_(model.parameters(), 0.01)
    assert total.item() == pytest.approx(float(np.linalg.norm(grads.astype(np.float64))), rel=1e-6)


def test_clip_grad_norm_without_any_grad_returns_zero():
    mine, theirs = params_with_grads(missing=(0, 1, 2, 3))
    assert utils.clip_grad_norm_(mine, 1.0).item() == tutils.clip_grad_norm_(theirs, 1.0).item() == 0.0
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


# ---- clip_grad_value_ ------------------------------------------------------------------------------
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
        np.testing.assert_array_equal(p.grad.array, weights.array[start : start + n].reshape(p.shape))
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
