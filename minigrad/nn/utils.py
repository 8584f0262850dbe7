"""nn.utils: gradient clipping, and all parameters as one flat vector.

Gradient clipping bounds the size of an update step. A single bad batch (or an
exploding RNN) can produce a gradient many times larger than usual, and one step
along it can undo hours of training. `clip_grad_norm_` rescales all gradients
together, so their direction is kept; `clip_grad_value_` clamps each element.
"""

import math

import numpy as np

from minigrad.autograd.grad_mode import no_grad
from minigrad.creation import from_numpy
from minigrad.ops.shape import cat
from minigrad.tensor import Tensor


def _as_list(parameters):
    """A single tensor or any iterable of tensors (a generator is read once)."""
    return [parameters] if isinstance(parameters, Tensor) else list(parameters)


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """Scale all gradients in place by min(1, max_norm / (total_norm + 1e-6)), where
    total_norm is the norm of all gradients concatenated into one vector (the p-norm
    of the per-parameter p-norms is the same number). Returns total_norm, measured
    before clipping, as a 0-d tensor. norm_type=inf uses the largest |g|. Parameters
    without a gradient are skipped."""
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    norm_type = float(norm_type)  # also accepts 'inf'
    if not grads:
        return from_numpy(np.asarray(0.0, dtype=np.float32))
    if norm_type == math.inf:
        per_param = [np.max(np.abs(g.array), initial=0.0) for g in grads]
        total = max(per_param)
    elif norm_type == 2.0:  # the usual case: a dot product per gradient, no abs and no power
        flats = (g.array.reshape(-1).astype(np.float64) for g in grads)  # in float64, as below
        total = math.sqrt(sum(float(np.dot(f, f)) for f in flats))
    else:
        per_param = [np.sum(np.abs(g.array.astype(np.float64)) ** norm_type) for g in grads]
        total = sum(per_param) ** (1.0 / norm_type)
    if error_if_nonfinite and not math.isfinite(total):
        raise RuntimeError(
            f"clip_grad_norm_: the total norm of order {norm_type} of the gradients is {total}, so they cannot be "
            "clipped; set error_if_nonfinite=False to clip anyway"
        )
    # the 1e-6 keeps the factor finite when every gradient is 0
    scale = min(1.0, max_norm / (total + 1e-6))
    if scale < 1.0:  # a factor of 1 would change nothing: skip the pass over every gradient
        with no_grad():
            for g in grads:
                g.mul_(scale)
    return from_numpy(np.asarray(total, dtype=grads[0].dtype))


def clip_grad_value_(parameters, clip_value):
    """Clamp every gradient element into [-clip_value, clip_value], in place."""
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
