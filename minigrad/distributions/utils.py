"""What every distribution file needs: parameters broadcast to one shape, probabilities
and logits converted into each other, lazily computed parameters, and sums over the
rightmost dims (the event dims of a log-density).
"""

import functools
import numbers

import numpy as np

from minigrad import dtypes
from minigrad.autograd import grad_mode
from minigrad.creation import randn, tensor
from minigrad.nn import functional as F
from minigrad.tensor import Tensor

euler_constant = 0.57721566490153286060  # the Euler-Mascheroni constant, gamma


def is_number(value):
    """A Python (or NumPy) number, which a distribution accepts for a parameter."""
    return isinstance(value, numbers.Number) and not isinstance(value, Tensor)


def broadcast_all(*values):
    """The values as tensors of one broadcast shape, as torch's `broadcast_all`.

    Numbers become tensors of the dtype of the first tensor among `values` (the default
    float dtype when all are numbers); tensors are expanded (views, no copies).
    """
    if not all(isinstance(v, Tensor) or is_number(v) for v in values):
        raise ValueError(
            "Input arguments must all be instances of Number or minigrad.Tensor, got "
            f"{[type(v).__name__ for v in values]}"
        )
    like = next((v for v in values if isinstance(v, Tensor)), None)
    dtype = like.dtype if like is not None else dtypes.get_default_dtype()
    tensors = [v if isinstance(v, Tensor) else tensor(v, dtype=dtype) for v in values]
    shape = np.broadcast_shapes(*[t.shape for t in tensors])
    return tuple(t if t.shape == shape else t.expand(shape) for t in tensors)


def standard_normal(shape, dtype):
    """Draws of N(0, 1) of `shape`: the noise of a reparameterised sample."""
    return randn(shape, dtype=dtype)


def sum_rightmost(value, dim):
    """Sum out the `dim` rightmost dims of `value` (the event dims of a log-density)."""
    if dim == 0:
        return value
    return value.reshape(value.shape[: value.ndim - dim] + (-1,)).sum(-1)


def logits_to_probs(logits, is_binary=False):
    """Probabilities from logits: sigmoid(logits) for one event (log-odds), else
    softmax over the last dim (unnormalised log-probabilities)."""
    if is_binary:
        return logits.sigmoid()
    return F.softmax(logits, dim=-1)


def clamp_probs(probs):
    """Probabilities clamped to [eps, 1 - eps], eps the dtype's machine epsilon, so that
    their logs are finite."""
    eps = float(np.finfo(probs.dtype).eps)
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    """Logits from probabilities: ln p - ln(1 - p) for one event, else ln p."""
    clamped = clamp_probs(probs)
    if is_binary:
        return clamped.log() - (-clamped).log1p()
    return clamped.log()


class lazy_property:
    """A parameter computed from another on first use, then stored on the instance.

    A Bernoulli made from `probs` computes its `logits` only when something reads them,
    and once: the value then sits in the instance's `__dict__`, where the descriptor
    (a non-data descriptor) no longer intercepts it. It is computed with grad mode on, so
    gradients reach the parameter it came from even if first read under `no_grad`.
    """

    def __init__(self, wrapped):
        self.wrapped = wrapped
        functools.update_wrapper(self, wrapped)

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        with grad_mode.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value
