"""nn.utils: gradient clipping, and all parameters as one flat vector.

Gradient clipping bounds the size of an update step. A single bad batch (or an
exploding RNN) can produce a gradient many times larger than usual, and one step
along it can undo hours of training. `clip_grad_norm_` rescales all gradients
together, so their direction is kept; `clip_grad_value_` clamps each element.
"""

import math
import types
import warnings

import numpy as np

from minigrad.autograd.grad_mode import no_grad
from minigrad.creation import from_numpy
from minigrad.linalg import vector_norm
from minigrad.ops.shape import cat, stack
from minigrad.tensor import Tensor


def _as_list(parameters):
    """A single tensor or any iterable of tensors (a generator is read once)."""
    return [parameters] if isinstance(parameters, Tensor) else list(parameters)


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scale all gradients in place by min(1, max_norm / (total_norm + 1e-6)) and return
    total_norm, measured before clipping, as a 0-d tensor of the gradients' dtype.

    total_norm is the p-norm (p = norm_type) of the vector of per-parameter p-norms, as torch
    (for p != 0 the same as the p-norm of all gradients concatenated; p=0 counts the
    parameters with a non-zero gradient), measured in the gradients' dtype (float32 squares
    of |g| ~ 1e20 overflow to inf, as in torch). Parameters without a gradient are skipped;
    with none the total is tensor(0.). The factor is a tensor op, not Python's min (which
    turns NaN into 1), so a NaN total makes every gradient NaN and an inf total makes them 0
    (NaN where they were inf), as torch; error_if_nonfinite=True raises instead, before any
    gradient is touched. `foreach` is accepted for torch's signature; there is one loop.
    """
    params = _as_list(parameters)
    if not params and isinstance(parameters, types.GeneratorType):
        # as torch: an exhausted generator (model.parameters() read twice) is a likely mistake
        warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.", stacklevel=2)
    grads = [p.grad for p in params if p.grad is not None]
    norm_type = float(norm_type)  # also accepts 'inf', an int, a 0-d tensor
    max_norm = float(max_norm)
    if not grads:
        return from_numpy(np.asarray(0.0, dtype=np.float32))
    # overflow, 0 ** -p and NaN are answers here, as in torch, not warnings
    with no_grad(), np.errstate(all="ignore"):
        total = vector_norm(stack([vector_norm(g, norm_type) for g in grads]), norm_type)
        if error_if_nonfinite and not math.isfinite(total.item()):
            raise RuntimeError(
                f"clip_grad_norm_: the total norm of order {norm_type} of the gradients is "
                f"non-finite ({total.item()}), so they cannot be clipped; set "
                "error_if_nonfinite=False to clip anyway"
            )
        # the 1e-6 keeps the factor finite when every gradient is 0
        scale = (max_norm / (total + 1e-6)).clamp(max=1.0)
        if scale.item() != 1.0:  # a factor of exactly 1 changes nothing (and NaN != 1)
            for g in grads:
                g.mul_(scale)
    return total


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every gradient element into [-clip_value, clip_value], in place, as torch's clamp:
    NaN stays NaN, a negative clip_value (an empty range) sets every element to -|clip_value|,
    a NaN clip_value makes every element NaN. `foreach` is accepted for torch's signature."""
    clip_value = float(clip_value)
    with no_grad():
        for p in _as_list(parameters):
            if p.grad is not None:
                p.grad.clamp_(-clip_value, clip_value)


def parameters_to_vector(parameters):
    """All parameters flattened and concatenated into one 1-D tensor (differentiable)."""
    params = _as_list(parameters)
    if not params:
        raise ValueError("parameters_to_vector: got no parameters")
    return cat([p.reshape(-1) for p in params])


def vector_to_parameters(vec, parameters):
    """Copy consecutive slices of the 1-D `vec` into `parameters` (the inverse of
    parameters_to_vector); the parameters keep their identity and dtype."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"vector_to_parameters: expected a Tensor, got {type(vec).__name__}")
    params = _as_list(parameters)
    total = sum(p.array.size for p in params)
    if vec.ndim != 1 or vec.shape[0] != total:
        raise ValueError(
            f"vector_to_parameters: vec must be 1-D with {total} elements (the parameters' total), "
            f"got shape {vec.shape}"
        )
    start = 0
    with no_grad():
        for p in params:
            n = p.array.size
            p.copy_(vec.array[start : start + n].reshape(p.shape))
            start += n
