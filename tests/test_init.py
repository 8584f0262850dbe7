"""nn.init: each distribution is sampled (fixed seed, tens of thousands of values) and
its bounds, mean and standard deviation compared with the formula, with PyTorch's
calculate_gain / fan computation as the oracle, and with a sample drawn by PyTorch."""

import math

import numpy as np
import pytest
import torch
import torch.nn as tnn

import minigrad as mg
import minigrad.nn as nn
from minigrad.nn import init
from tests.helpers import rand

# The torch names whose behaviour this file checks against torch (read by tools/api_coverage.py).
TORCH_API = [
    "torch.nn.init.calculate_gain",
    "torch.nn.init.constant_",
    "torch.nn.init.kaiming_normal_",
    "torch.nn.init.kaiming_uniform_",
    "torch.nn.init.normal_",
    "torch.nn.init.ones_",
    "torch.nn.init.orthogonal_",
    "torch.nn.init.trunc_normal_",
    "torch.nn.init.uniform_",
    "torch.nn.init.xavier_normal_",
    "torch.nn.init.xavier_uniform_",
    "torch.nn.init.zeros_",
]

SHAPES = [(300, 200), (200, 300), (128, 64, 3, 3), (64, 32, 5)]


def param(*shape, dtype=np.float32):
    return nn.Parameter(np.zeros(shape, dtype=dtype))


def torch_fans(shape):
    return tnn.init._calculate_fan_in_and_fan_out(torch.empty(shape))


def torch_sample(fn, shape, **kwargs):
    torch.manual_seed(0)
    return fn(torch.empty(shape), **kwargs).numpy()


def within_one_std(values, std):
    """The fraction of values within one std of 0: 0.683 for a normal, 0.577 for a uniform."""
    return np.mean(np.abs(values) < std)


# ---- gain and fans -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "nonlinearity, param_",
    [
        ("linear", None),
        ("conv1d", None),
        ("conv2d", None),
        ("conv_transpose2d", None),
        ("sigmoid", None),
        ("tanh", None),
        ("relu", None),
        ("leaky_relu", None),
        ("leaky_relu", 0.2),
        ("leaky_relu", 3),
        ("leaky_relu", math.sqrt(5)),
        ("selu", None),
    ],
)
def test_calculate_gain_matches_torch(nonlinearity, param_):
    assert init.calculate_gain(nonlinearity, param_) == pytest.approx(
        tnn.init.calculate_gain(nonlinearity, param_)
    )


@pytest.mark.parametrize("args", [("softsign",), ("leaky_relu", True), ("leaky_relu", "0.1")])
def test_calculate_gain_rejects_what_torch_rejects(args):
    with pytest.raises(ValueError):
        tnn.init.calculate_gain(*args)
    with pytest.raises(ValueError, match="calculate_gain"):
        init.calculate_gain(*args)


@pytest.mark.parametrize("shape", [(3, 4), (8, 3, 5, 5), (2, 3, 4), (5, 1)], ids=str)
def test_fans_match_torch(shape):
    assert init._calculate_fan_in_and_fan_out(mg.zeros(*shape)) == torch_fans(shape)


def test_fans_need_two_dimensions():
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        init.xavier_uniform_(param(5))
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        init.kaiming_normal_(param(5))


# ---- plain distributions -------------------------------------------------------------------------
def test_uniform_bounds_mean_and_std():
    mg.manual_seed(0)
    w = init.uniform_(param(300, 200), -0.5, 1.5).array
    assert w.min() >= -0.5 and w.max() <= 1.5 and w.min() < -0.49 and w.max() > 1.49
    assert w.mean() == pytest.approx(0.5, abs=0.01)
    assert w.std() == pytest.approx(2.0 / math.sqrt(12), rel=0.01)


def test_normal_mean_and_std():
    mg.manual_seed(0)
    w = init.normal_(param(300, 200), mean=2.0, std=0.5).array
    assert w.mean() == pytest.approx(2.0, abs=0.01)
    assert w.std() == pytest.approx(0.5, rel=0.01)
    assert within_one_std(w - 2.0, 0.5) == pytest.approx(0.6827, abs=0.01)


def test_constant_zeros_ones():
    w = param(3, 4)
    assert init.constant_(w, 0.25) is w and np.all(w.array == 0.25)
    assert np.all(init.ones_(w).array == 1) and not init.zeros_(w).array.any()


def truncated_normal_moments(mean, std, a, b):
    """Mean and std of N(mean, std^2) restricted to [a, b] (the textbook formulas)."""
    alpha, beta = (a - mean) / std, (b - mean) / std
    pdf = lambda z: math.exp(-z * z / 2) / math.sqrt(2 * math.pi)  # noqa: E731
    cdf = lambda z: 0.5 * (1 + math.erf(z / math.sqrt(2)))  # noqa: E731
    mass = cdf(beta) - cdf(alpha)
    shift = (pdf(alpha) - pdf(beta)) / mass
    variance = 1 + (alpha * pdf(alpha) - beta * pdf(beta)) / mass - shift**2
    return mean + std * shift, std * math.sqrt(variance)


@pytest.mark.parametrize(
    "mean, std, a, b", [(0.0, 1.0, -2.0, 2.0), (1.0, 2.0, -1.0, 6.0), (0.0, 0.02, -0.04, 0.04)]
)
def test_trunc_normal_stays_in_bounds_with_the_truncated_moments(mean, std, a, b):
    mg.manual_seed(0)
    w = init.trunc_normal_(param(300, 200, dtype=np.float64), mean, std, a, b).array
    assert w.min() >= a and w.max() <= b
    assert w.min() < a + 0.01 * (b - a) and w.max() > b - 0.01 * (b - a)  # the tails reach the cut
    expected_mean, expected_std = truncated_normal_moments(mean, std, a, b)
    assert w.mean() == pytest.approx(expected_mean, abs=0.01 * std)
    assert w.std() == pytest.approx(expected_std, rel=0.01)
    theirs = torch_sample(tnn.init.trunc_normal_, (300, 200), mean=mean, std=std, a=a, b=b)
    assert w.std() == pytest.approx(theirs.std(), rel=0.02)


def test_trunc_normal_rejects_an_empty_interval():
    with pytest.raises(ValueError, match="a < b"):
        init.trunc_normal_(param(2, 2), a=1.0, b=-1.0)
    with pytest.raises(ValueError, match="almost none"):
        init.trunc_normal_(param(2, 2), mean=0.0, std=1.0, a=20.0, b=21.0)


# ---- fan-scaled initialisations ------------------------------------------------------------------
@pytest.mark.parametrize("gain", [1.0, 2.5])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_xavier_uniform(shape, gain):
    mg.manual_seed(0)
    w = init.xavier_uniform_(param(*shape), gain=gain).array
    fan_in, fan_out = torch_fans(shape)
    bound = gain * math.sqrt(6.0 / (fan_in + fan_out))
    assert np.abs(w).max() <= bound * (1 + 1e-6) and np.abs(w).max() > 0.99 * bound
    assert w.std() == pytest.approx(bound / math.sqrt(3), rel=0.02)
    assert w.std() == pytest.approx(
        torch_sample(tnn.init.xavier_uniform_, shape, gain=gain).std(), rel=0.03
    )


@pytest.mark.parametrize("gain", [1.0, 0.5])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_xavier_normal(shape, gain):
    mg.manual_seed(0)
    w = init.xavier_normal_(param(*shape), gain=gain).array
    fan_in, fan_out = torch_fans(shape)
    std = gain * math.sqrt(2.0 / (fan_in + fan_out))
    assert abs(w.mean()) < 0.02 * std
    assert w.std() == pytest.approx(std, rel=0.02)
    assert within_one_std(w, std) == pytest.approx(0.6827, abs=0.015)
    assert w.std() == pytest.approx(
        torch_sample(tnn.init.xavier_normal_, shape, gain=gain).std(), rel=0.03
    )


KAIMING = [
    dict(),
    dict(mode="fan_out"),
    dict(nonlinearity="relu"),
    dict(a=0.2, nonlinearity="leaky_relu", mode="fan_out"),
    dict(a=math.sqrt(5)),
    dict(nonlinearity="tanh"),
]


def kaiming_std(shape, a=0, mode="fan_in", nonlinearity="leaky_relu"):
    fan_in, fan_out = torch_fans(shape)
    return tnn.init.calculate_gain(nonlinearity, a) / math.sqrt(
        fan_in if mode == "fan_in" else fan_out
    )


@pytest.mark.parametrize("kwargs", KAIMING, ids=str)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_kaiming_uniform(shape, kwargs):
    mg.manual_seed(0)
    w = init.kaiming_uniform_(param(*shape), **kwargs).array
    bound = math.sqrt(3.0) * kaiming_std(shape, **kwargs)
    assert np.abs(w).max() <= bound * (1 + 1e-6) and np.abs(w).max() > 0.99 * bound
    assert w.std() == pytest.approx(bound / math.sqrt(3), rel=0.02)
    assert w.std() == pytest.approx(
        torch_sample(tnn.init.kaiming_uniform_, shape, **kwargs).std(), rel=0.03
    )


@pytest.mark.parametrize("kwargs", KAIMING, ids=str)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_kaiming_normal(shape, kwargs):
    mg.manual_seed(0)
    w = init.kaiming_normal_(param(*shape), **kwargs).array
    std = kaiming_std(shape, **kwargs)
    assert abs(w.mean()) < 0.02 * std
    assert w.std() == pytest.approx(std, rel=0.02)
    assert within_one_std(w, std) == pytest.approx(0.6827, abs=0.015)
    assert w.std() == pytest.approx(
        torch_sample(tnn.init.kaiming_normal_, shape, **kwargs).std(), rel=0.03
    )


def test_kaiming_rejects_an_unknown_mode():
    for fn in (init.kaiming_uniform_, init.kaiming_normal_):
        with pytest.raises(ValueError, match="mode"):
            fn(param(3, 3), mode="fan_avg")


def test_empty_tensors_are_left_alone():
    for fn in (
        init.xavier_uniform_,
        init.xavier_normal_,
        init.kaiming_uniform_,
        init.kaiming_normal_,
        init.orthogonal_,
    ):
        w = param(0, 3)
        assert fn(w) is w and w.shape == (0, 3)


# ---- orthogonal ---------------------------------------------------------------------------------
@pytest.mark.parametrize("gain", [1.0, 2.0])
@pytest.mark.parametrize("shape", [(6, 6), (3, 7), (7, 3), (4, 2, 3, 3), (1, 5)], ids=str)
def test_orthogonal_rows_or_columns_are_orthonormal(shape, gain):
    mg.manual_seed(0)
    w = init.orthogonal_(param(*shape, dtype=np.float64), gain=gain).array
    flat = w.reshape(shape[0], -1)
    small = flat @ flat.T if flat.shape[0] <= flat.shape[1] else flat.T @ flat
    np.testing.assert_allclose(small, gain**2 * np.eye(small.shape[0]), atol=1e-12)


def test_orthogonal_is_random_and_unbiased_in_sign():
    """Without the sign fix of Q by R's diagonal, QR of a Gaussian gives Q's with a
    biased diagonal; with it, each diagonal entry is positive or negative equally often."""
    diagonals = []
    mg.manual_seed(0)
    for _ in range(400):
        diagonals.append(np.diag(init.orthogonal_(param(3, 3, dtype=np.float64)).array))
    positive = np.mean(np.array(diagonals) > 0)
    assert positive == pytest.approx(0.5, abs=0.05)


def test_orthogonal_needs_two_dimensions():
    with pytest.raises(ValueError, match="2 or more dimensions"):
        init.orthogonal_(param(4))


# ---- behaviour common to every initialiser -------------------------------------------------------
INITIALISERS = [
    lambda w: init.uniform_(w),
    lambda w: init.normal_(w),
    lambda w: init.trunc_normal_(w),
    lambda w: init.xavier_uniform_(w),
    lambda w: init.xavier_normal_(w),
    lambda w: init.kaiming_uniform_(w),
    lambda w: init.kaiming_normal_(w),
    lambda w: init.orthogonal_(w),
]


@pytest.mark.parametrize("fill", INITIALISERS)
def test_seeding_makes_every_initialiser_reproducible(fill):
    mg.manual_seed(42)
    a = fill(param(20, 10)).array.copy()
    mg.manual_seed(42)
    b = fill(param(20, 10)).array.copy()
    c = fill(param(20, 10)).array
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(b, c)


@pytest.mark.parametrize("fill", INITIALISERS)
def test_initialisers_fill_in_place_outside_the_graph_keeping_dtype(fill):
    w = param(6, 5, dtype=np.float64)
    x = mg.tensor(rand(5, 6), requires_grad=True)
    y = (x @ w).sum()  # saved w for backward; init changes it in place afterwards
    assert fill(w) is w
    assert w.is_leaf and w.requires_grad and w.grad_fn is None and w.dtype == np.float64
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        y.backward()


# ---- init_weights --------------------------------------------------------------------------------
def model(width):
    """Linear layers big enough (width=100: 20k to 75k weights) for the statistics to be tight."""
    m = nn.Sequential(
        nn.Linear(2 * width, 3 * width),
        nn.ReLU(),
        nn.Sequential(nn.Linear(3 * width, 5 * width // 2)),
        nn.Embedding(10, 4),
        nn.Dense(width),
    )
    m[4].build(3 * width)
    return m


def linear_layers(m):
    return [layer for layer in m.modules() if isinstance(layer, nn.Linear)]


def check_weight(w, init_type, gain):
    fan_out, fan_in = w.shape[0], int(np.prod(w.shape[1:]))
    if init_type == "xavier":
        bound = gain * math.sqrt(6 / (fan_in + fan_out))
        assert np.abs(w).max() <= bound * (1 + 1e-6) and np.abs(w).max() > 0.99 * bound
    elif init_type == "kaiming":
        assert w.std() == pytest.approx(gain * math.sqrt(2 / fan_in), rel=0.03)
        assert within_one_std(w, w.std()) == pytest.approx(0.6827, abs=0.02)
    elif init_type == "normal":
        assert w.std() == pytest.approx(gain, rel=0.03)
        assert within_one_std(w, gain) == pytest.approx(0.6827, abs=0.02)
    elif init_type == "uniform":
        assert np.abs(w).max() <= gain * (1 + 1e-6) and np.abs(w).max() > 0.99 * gain
        assert w.std() == pytest.approx(gain / math.sqrt(3), rel=0.03)
    else:
        flat = w.reshape(fan_out, -1).astype(np.float64)
        small = flat @ flat.T if fan_out <= flat.shape[1] else flat.T @ flat
        np.testing.assert_allclose(small, gain**2 * np.eye(len(small)), atol=1e-4)


@pytest.mark.parametrize(
    "init_type, gain, expected_gain",
    [
        ("xavier", None, 1.0),
        ("xavier", 2.0, 2.0),
        ("kaiming", None, 1.0),
        ("normal", None, 0.02),
        ("normal", 0.1, 0.1),
        ("uniform", None, 0.05),
        ("orthogonal", 1.5, 1.5),
    ],
)
def test_init_weights_initialises_every_linear_and_zeroes_biases(init_type, gain, expected_gain):
    mg.manual_seed(0)
    # orthogonality is exact, so a small model will do (and QR of big ones is slow)
    m = model(10 if init_type == "orthogonal" else 100)
    embedding = m[3].weight.array.copy()
    assert init.init_weights(m, init_type, gain) is m
    layers = linear_layers(m)
    assert len(layers) == 3  # two Linear and one (built) Dense
    for layer in layers:
        check_weight(layer.weight.array, init_type, expected_gain)
        assert not layer.bias.array.any()
    # not a Linear/Conv weight: untouched
    np.testing.assert_array_equal(m[3].weight.array, embedding)


def test_init_weights_skips_an_unbuilt_dense_and_rejects_unknown_types():
    m = nn.Sequential(nn.Dense(3), nn.Linear(2, 2))
    init.init_weights(m, "normal")
    assert m[0].weight.shape == (3, 0)
    with pytest.raises(ValueError, match="init_type"):
        init.init_weights(m, "he")
