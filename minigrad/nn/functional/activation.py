"""Activation functions: F.relu, F.gelu, F.softmax, ... (torch.nn.functional's).

Each checks its arguments and applies a Function from `minigrad/ops/activation.py`, or
from `minigrad/ops/piecewise.py` for the piecewise-linear ones (hardtanh, hardswish,
threshold, the shrinks, prelu, rrelu), or a Tensor method, which does the same; mish,
selu, celu, glu, logsigmoid, softsign and tanhshrink are compositions of them. An integer
input is promoted to the default float dtype first (relu, relu6, hardtanh and threshold,
exact on integers, keep it).

`inplace=True` is accepted and ignored: minigrad never overwrites an input that autograd
may still need. The functions whose names end in `_` (relu_, elu_, hardtanh_, ...) are
torch's in-place forms, and they do write into their input: on a tensor in the graph the
write is recorded, as torch records it (see Tensor's in-place ops).
"""

import math
import warnings

import numpy as np

from minigrad._args import normalize_dim
from minigrad.array_module import array_module
from minigrad.creation import from_numpy
from minigrad.ops import activation as _act
from minigrad.ops import piecewise as _piecewise
from minigrad.ops.promotion import floating as _floating
from minigrad.ops.random_source import generator_for


def relu(input, inplace=False):
    """max(x, 0)."""
    return input.relu()


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """x if x > 0 else negative_slope * x."""
    return _act.LeakyRelu.apply(_floating(input), negative_slope=negative_slope)


def elu(input, alpha=1.0, inplace=False):
    """x if x > 0 else alpha * (exp(x) - 1)."""
    return _act.Elu.apply(_floating(input), alpha=alpha)


def check_approximate(approximate, op):
    """gelu's one rule for `approximate`, used by F.gelu and (at construction) nn.GELU."""
    if approximate not in ("none", "tanh"):
        raise ValueError(f"{op}: approximate must be 'none' or 'tanh', got {approximate!r}")


def gelu(input, approximate="none"):
    """x * Phi(x) with the exact normal CDF (erf), or its tanh approximation."""
    check_approximate(approximate, "gelu")
    return _act.Gelu.apply(_floating(input), approximate=approximate)


def silu(input, inplace=False):
    """x * sigmoid(x) (also called swish)."""
    return _act.Silu.apply(_floating(input))


def mish(input, inplace=False):
    """x * tanh(softplus(x))."""
    return input * softplus(input).tanh()


def sigmoid(input):
    return input.sigmoid()


def tanh(input):
    return input.tanh()


def softplus(input, beta=1.0, threshold=20.0):
    """log(1 + exp(beta x)) / beta, linear where beta x > threshold."""
    return _act.Softplus.apply(_floating(input), beta=beta, threshold=threshold)


def _softmax_dim(input, dim, op):
    if dim is None:
        # PyTorch's legacy rule for a missing dim, with its warning
        warnings.warn(
            f"{op}: implicit dimension choice is deprecated; pass dim explicitly", stacklevel=3
        )
        dim = 0 if input.ndim in (0, 1, 3) else 1
    return normalize_dim(dim, input.ndim, op)


def softmax(input, dim=None, dtype=None):
    """exp(x) / sum(exp(x)) along dim."""
    x = _floating(input if dtype is None else input.to(dtype))
    return _act.Softmax.apply(x, dim=_softmax_dim(x, dim, "softmax"))


def log_softmax(input, dim=None, dtype=None):
    """x - logsumexp(x) along dim (stable, unlike log(softmax(x)))."""
    x = _floating(input if dtype is None else input.to(dtype))
    return _act.LogSoftmax.apply(x, dim=_softmax_dim(x, dim, "log_softmax"))


def logsumexp(input, dim, keepdim=False):
    return input.logsumexp(dim, keepdim=keepdim)


# ---- the piecewise-linear family ----------------------------------------------------------
def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """clamp(x, min_val, max_val), with no gradient at the bounds themselves (as torch)."""
    if min_val > max_val:
        raise ValueError(
            f"hardtanh: min_val cannot be greater than max_val, got min_val={min_val}, "
            f"max_val={max_val}"
        )
    return _piecewise.Hardtanh.apply(input, min_val=min_val, max_val=max_val)


def relu6(input, inplace=False):
    """min(max(x, 0), 6): hardtanh(x, 0, 6), the relu of MobileNet's low-precision era."""
    return hardtanh(input, 0.0, 6.0)


def hardsigmoid(input, inplace=False):
    """relu6(x + 3) / 6: a sigmoid made of three lines (0, a ramp, 1)."""
    return _piecewise.Hardsigmoid.apply(_floating(input))


def hardswish(input, inplace=False):
    """x * relu6(x + 3) / 6: silu (x * sigmoid(x)) with hardsigmoid in place of sigmoid."""
    return _piecewise.Hardswish.apply(_floating(input))


def threshold(input, threshold, value, inplace=False):
    """x where x > threshold, else value."""
    return _piecewise.Threshold.apply(input, threshold=threshold, value=value)


def softshrink(input, lambd=0.5):
    """x - lambd where x > lambd, x + lambd where x < -lambd, else 0 (lambd >= 0)."""
    if lambd < 0:
        raise RuntimeError(
            f"softshrink: lambda must be in range [0, inf) for the input, but found {lambd}"
        )
    return _piecewise.Softshrink.apply(_floating(input), lambd=lambd)


def hardshrink(input, lambd=0.5):
    """x where |x| > lambd, else 0."""
    return _piecewise.hardshrink(input, lambd)


def prelu(input, weight):
    """x where x > 0, else weight * x: a leaky relu whose slope is learned, one per
    channel (weight of shape (C,), C = input.shape[1]) or one for all (weight of one element)."""
    return _piecewise.prelu(input, weight)


def _check_rrelu_bounds(lower, upper, op):
    if lower > upper:
        raise RuntimeError(
            f"{op}: Lower bound should be less than or equal to the upper bound, got {lower} > "
            f"{upper}"
        )


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Randomized leaky relu (Xu et al. 2015): in training, x * a where x <= 0 with a
    slope a ~ U(lower, upper) drawn per element from the global generator; in
    evaluation (training=False, the default here, as torch's) the mean slope
    (lower + upper) / 2, a plain leaky relu."""
    _check_rrelu_bounds(lower, upper, "rrelu")
    x = _floating(input)
    if not training:
        return leaky_relu(x, (lower + upper) / 2)
    slope = generator_for(x.array, None, "rrelu").uniform(lower, upper, size=x.shape)
    return _piecewise.RandomLeakyRelu.apply(x, slope=slope)


# ---- compositions -----------------------------------------------------------------------------
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def selu(input, inplace=False):
    """scale * elu(x, alpha) with the constants of Klambauer et al. 2017 (alpha ~ 1.6733,
    scale ~ 1.0507), chosen so that activations keep mean 0 and variance 1 layer after layer."""
    return elu(input, SELU_ALPHA) * SELU_SCALE


def celu(input, alpha=1.0, inplace=False):
    """max(0, x) + min(0, alpha (exp(x / alpha) - 1)) = alpha * elu(x / alpha): an elu whose
    derivative is continuous at 0 for every alpha."""
    if alpha == 0:
        raise RuntimeError("celu: ZeroDivisionError: alpha cannot be 0 for CELU")
    return elu(_floating(input) / alpha) * alpha


def glu(input, dim=-1):
    """The gated linear unit (Dauphin et al. 2017): split x in halves a, b along dim and
    return a * sigmoid(b)."""
    if input.ndim == 0:
        raise RuntimeError("glu: glu does not support scalars because halving size must be even")
    d = normalize_dim(dim, input.ndim, "glu")
    if input.shape[d] % 2:
        raise RuntimeError(
            f"glu: Halving dimension must be even, but dimension {d} is size {input.shape[d]} "
            f"(input of shape {tuple(input.shape)})"
        )
    a, b = _floating(input).chunk(2, d)
    return a * b.sigmoid()


def logsigmoid(input):
    """log(sigmoid(x)) = -softplus(-x), computed without forming sigmoid (which underflows
    to 0 for very negative x, making the log -inf); dL/dx = dL/dy * sigmoid(-x)."""
    return -_act.Softplus.apply(-_floating(input), beta=1.0, threshold=math.inf)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """softmax(-x) along dim: each slice becomes a distribution that favours its smallest values."""
    x = _floating(input if dtype is None else input.to(dtype))
    return _act.Softmax.apply(-x, dim=_softmax_dim(x, dim, "softmin"))


def softsign(input):
    """x / (1 + |x|): tanh's shape, approached polynomially rather than exponentially."""
    x = _floating(input)
    return x / (x.abs() + 1.0)


def tanhshrink(input):
    """x - tanh(x)."""
    x = _floating(input)
    return x - x.tanh()


# ---- torch's in-place forms: they write into `input` (recorded when it is in the graph) -----
def relu_(input):
    """relu, in place: input <- max(input, 0); returns input."""
    return input.relu_()


def elu_(input, alpha=1.0):
    """elu, in place; returns input."""
    return input._inplace("elu_", lambda t: elu(t, alpha))


def leaky_relu_(input, negative_slope=0.01):
    """leaky_relu, in place; returns input."""
    return input._inplace("leaky_relu_", lambda t: leaky_relu(t, negative_slope))


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    """hardtanh, in place; returns input."""
    return input._inplace("hardtanh_", lambda t: hardtanh(t, min_val, max_val))


def selu_(input):
    """selu, in place; returns input."""
    return input._inplace("selu_", selu)


def celu_(input, alpha=1.0):
    """celu, in place; returns input."""
    return input._inplace("celu_", lambda t: celu(t, alpha))


def threshold_(input, threshold, value):
    """threshold, in place; returns input."""
    return input._inplace(
        "threshold_", lambda t: _piecewise.Threshold.apply(t, threshold=threshold, value=value)
    )


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    """rrelu, in place; returns input."""
    return input._inplace("rrelu_", lambda t: rrelu(t, lower, upper, training))


# ---- sampling a category, differentiably ------------------------------------------------------
def _gumbel_noise(x):
    """Standard Gumbel draws, -log(E) with E ~ Exp(1), in x's shape and dtype, from the
    generator where x lives (the global one, or the GPU's for a CUDA tensor)."""
    draws = generator_for(x.array, None, "gumbel_softmax").standard_exponential(x.shape)
    return -np.log(draws).astype(x.dtype)


def gumbel_softmax(logits, tau=1.0, hard=False, eps=1e-10, dim=-1):
    """A sample of the categorical distribution softmax(logits) along dim that gradients
    can pass (Jang et al. 2017; Maddison et al. 2017): y = softmax((logits + g) / tau),
    g standard Gumbel noise. argmax(logits + g) is an exact sample (the Gumbel-max trick);
    the softmax relaxes it, towards one-hot as the temperature tau -> 0.

    hard=True returns the one-hot vector of that argmax, with the soft sample's gradient
    (the straight-through estimator: y_hard - y_soft.detach() + y_soft). `eps` is
    accepted for torch's signature and unused, as in torch.
    """
    x = _floating(logits)
    gumbels = (x + from_numpy(_gumbel_noise(x))) / tau
    y_soft = softmax(gumbels, dim)
    if not hard:
        return y_soft
    d = normalize_dim(dim, x.ndim, "gumbel_softmax")
    index = np.expand_dims(np.argmax(y_soft.array, axis=d), d)
    # one-hot along d: position i is 1 where i is the argmax (compared, not scattered:
    # the same code on the CPU and on a GPU)
    positions = array_module(index).arange(x.shape[d]).reshape((-1,) + (1,) * (x.ndim - 1 - d))
    y_hard = (positions == index).astype(x.dtype)
    return from_numpy(y_hard) - y_soft.detach() + y_soft
