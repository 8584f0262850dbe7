"""minigrad.nn.functional activations against torch.nn.functional (values and gradients),
float64 gradient checks (first and second order) and numerical stability."""

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import minigrad as mg
import minigrad.nn.functional as F
from tests.helpers import assert_close, check_against_torch, check_grads, leaf, rand

# The torch names whose behaviour this file checks against torch (read by tools/api_coverage.py).
TORCH_API = [
    "torch.nn.functional.elu",
    "torch.nn.functional.gelu",
    "torch.nn.functional.leaky_relu",
    "torch.nn.functional.log_softmax",
    "torch.nn.functional.mish",
    "torch.nn.functional.relu",
    "torch.nn.functional.sigmoid",
    "torch.nn.functional.silu",
    "torch.nn.functional.softmax",
    "torch.nn.functional.softplus",
    "torch.nn.functional.tanh",
]


def away_from(x, points=(0.0,), margin=0.1):
    """Move every element of `x` at least `margin` away from each kink in `points`, so
    finite differences never straddle one."""
    x = np.array(x, dtype=np.float64)
    for p in points:
        near = np.abs(x - p) < margin
        x = np.where(near, p + np.where(x >= p, 1.0, -1.0) * (margin + np.abs(x - p)), x)
    return x


# name -> (minigrad fn, torch fn, kinks to keep away from, second derivative checked)
ACTIVATIONS = {
    "relu": (F.relu, TF.relu, (0.0,), False),
    "leaky_relu": (F.leaky_relu, TF.leaky_relu, (0.0,), False),
    "leaky_relu_0.2": (
        lambda x: F.leaky_relu(x, negative_slope=0.2),
        lambda x: TF.leaky_relu(x, negative_slope=0.2),
        (0.0,),
        False,
    ),
    "elu": (F.elu, TF.elu, (0.0,), True),
    "elu_alpha": (lambda x: F.elu(x, alpha=0.7), lambda x: TF.elu(x, alpha=0.7), (0.0,), True),
    "gelu": (F.gelu, TF.gelu, (), True),
    "gelu_tanh": (
        lambda x: F.gelu(x, approximate="tanh"),
        lambda x: TF.gelu(x, approximate="tanh"),
        (),
        True,
    ),
    "silu": (F.silu, TF.silu, (), True),
    "mish": (F.mish, TF.mish, (), True),
    "sigmoid": (F.sigmoid, torch.sigmoid, (), True),
    "tanh": (F.tanh, torch.tanh, (), True),
    "softplus": (F.softplus, TF.softplus, (), True),
    "softplus_beta": (
        lambda x: F.softplus(x, beta=2.5, threshold=3.0),
        lambda x: TF.softplus(x, beta=2.5, threshold=3.0),
        (3.0 / 2.5,),  # the switch to the identity is a (tiny) kink
        True,
    ),
}
SHAPES = [(), (1,), (5,), (2, 3), (1, 4, 1), (2, 1, 3, 2)]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("name", ACTIVATIONS)
def test_activation_matches_torch(name, shape):
    fn, tfn, kinks, _ = ACTIVATIONS[name]
    x = away_from(rand(*shape, seed=len(shape)) * 2, kinks)
    check_against_torch(fn, tfn, x)


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_activation_gradcheck(name):
    fn, _, kinks, second = ACTIVATIONS[name]
    x = away_from(rand(2, 3, seed=3) * 2, kinks)
    check_grads(fn, x, second=second)


@pytest.mark.parametrize(
    "name", ["relu", "leaky_relu", "elu", "gelu", "silu", "softplus", "sigmoid", "tanh"]
)
def test_activation_keeps_float32(name):
    fn = ACTIVATIONS[name][0]
    x = mg.tensor(rand(3, 2).astype(np.float32), requires_grad=True)
    y = fn(x)
    assert y.dtype == np.float32
    y.sum().backward()
    assert x.grad.dtype == np.float32


def test_activation_wide_range_matches_torch():
    """Large |x| exercises the saturating branches (exp overflow, softplus threshold)."""
    x = np.array([-800.0, -60.0, -19.5, -3.0, 0.5, 4.0, 21.0, 60.0, 800.0])
    for name in [
        "relu",
        "leaky_relu",
        "elu",
        "gelu",
        "gelu_tanh",
        "silu",
        "mish",
        "sigmoid",
        "tanh",
        "softplus",
    ]:
        fn, tfn, _, _ = ACTIVATIONS[name]
        with np.errstate(over="raise"):
            check_against_torch(fn, tfn, x, atol=1e-12)


@pytest.mark.parametrize("beta,threshold", [(1.0, 20.0), (0.5, 1.0), (3.0, 10.0), (1.0, 0.0)])
def test_softplus_beta_threshold(beta, threshold):
    x = np.array([-4.0, -1.3, -0.2, 0.3, 0.7, 2.9, 3.6, 9.0, 25.0])
    check_against_torch(
        lambda t: F.softplus(t, beta=beta, threshold=threshold),
        lambda t: TF.softplus(t, beta=beta, threshold=threshold),
        x,
    )


def test_leaky_relu_gradient_on_negative_side_is_the_slope():
    x = leaf([-2.0, -0.5, 0.5, 2.0])
    F.leaky_relu(x, 0.1).sum().backward()
    np.testing.assert_allclose(x.grad.array, [0.1, 0.1, 1.0, 1.0])


def test_gelu_rejects_unknown_approximation():
    with pytest.raises(ValueError, match="approximate"):
        F.gelu(leaf([1.0]), approximate="erf")


# ---- softmax, log_softmax, logsumexp ----------------------------------------------------
SOFTMAX_CASES = [((), 0), ((), -1), ((5,), 0), ((5,), -1), ((1, 4), 0), ((1, 4), 1)]
SOFTMAX_CASES += [((2, 3, 4), d) for d in (0, 1, 2, -1, -2, -3)]
SOFTMAX_CASES += [((2, 1, 3, 2), 1), ((2, 1, 3, 2), -2)]


@pytest.mark.parametrize("shape,dim", SOFTMAX_CASES, ids=str)
@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_softmax_matches_torch(op, shape, dim):
    fn, tfn = getattr(F, op), getattr(TF, op)
    check_against_torch(
        lambda x: fn(x, dim=dim), lambda x: tfn(x, dim=dim), rand(*shape, seed=7) * 3
    )


# softmax's and log_softmax's gradchecks are the losses exercise's (tests/test_exercise_losses.py)
@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_softmax_is_stable_for_huge_logits(op):
    x = np.array([[1e4, 0.0, -1e4], [1e4, 1e4, 1e4 - 1.0], [-1e4, -1e4 - 2.0, -1e4]])
    check_against_torch(lambda t: getattr(F, op)(t, dim=1), lambda t: getattr(TF, op)(t, dim=1), x)


def test_softmax_rows_sum_to_one_and_dtype_argument():
    x = mg.tensor(rand(3, 5).astype(np.float32))
    y = F.softmax(x, dim=-1)
    assert y.dtype == np.float32
    np.testing.assert_allclose(y.array.sum(axis=-1), 1.0, rtol=1e-6)
    y64 = F.log_softmax(x, dim=1, dtype=mg.float64)
    assert y64.dtype == np.float64
    assert_close(y64, TF.log_softmax(torch.tensor(x.array), dim=1, dtype=torch.float64))


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_softmax_bad_dim_raises(op):
    with pytest.raises((IndexError, ValueError), match="3"):
        getattr(F, op)(leaf(rand(2, 3)), dim=3)


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_softmax_implicit_dim_warns_and_follows_torch(op):
    x = rand(2, 3)
    with pytest.warns(UserWarning, match="dim"):
        y = getattr(F, op)(leaf(x))
    with pytest.warns(UserWarning):
        expected = getattr(TF, op)(torch.tensor(x))
    assert_close(y, expected)


@pytest.mark.parametrize(
    "shape,dim,keepdim",
    [
        ((5,), 0, False),
        ((), 0, False),
        ((2, 3), 1, True),
        ((2, 3, 4), -1, False),
        ((2, 3, 4), (0, 2), False),
    ],
    ids=str,
)
def test_logsumexp_matches_torch(shape, dim, keepdim):
    check_against_torch(
        lambda x: F.logsumexp(x, dim, keepdim=keepdim),
        lambda x: torch.logsumexp(x, dim, keepdim=keepdim),
        rand(*shape, seed=2),
    )


def test_logsumexp_gradcheck_and_stability():
    check_grads(lambda x: F.logsumexp(x, 1), rand(2, 3), second=True)
    x = np.array([[1e4, 1e4], [-1e4, 0.0]])
    check_against_torch(lambda t: F.logsumexp(t, 1), lambda t: torch.logsumexp(t, 1), x)


def test_sigmoid_tanh_do_not_overflow():
    x = leaf([-1000.0, 1000.0])
    with np.errstate(over="raise"):
        s = F.sigmoid(x)
        t = F.tanh(x)
    np.testing.assert_array_equal(s.array, [0.0, 1.0])
    np.testing.assert_array_equal(t.array, [-1.0, 1.0])
