"""Activation functions: F.relu, F.gelu, F.softmax, ... (torch.nn.functional's).

Each checks its arguments and applies a Function from `minigrad/ops/activation.py` (or a
Tensor method, which does the same); mish is a composition of two of them. An integer
input is promoted to the default float dtype first (relu, exact on integers, keeps it).
`inplace=True` is accepted and ignored: minigrad never overwrites an input that
autograd may still need.
"""

import warnings

from minigrad._args import normalize_dim
from minigrad.ops import activation as _act
from minigrad.ops.promotion import floating as _floating


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
        warnings.warn(f"{op}: implicit dimension choice is deprecated; pass dim explicitly", stacklevel=3)
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
