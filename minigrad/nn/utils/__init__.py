"""nn.utils: gradient clipping, all parameters as one flat vector, fusing a batch norm
into the layer before it, skip_init; and the submodules rnn (padded and packed
sequences), parametrize and parametrizations (weights computed from other tensors).

Gradient clipping bounds the size of an update step. A single bad batch (or an
exploding RNN) can produce a gradient many times larger than usual, and one step
along it can undo hours of training. `clip_grad_norm_` rescales all gradients
together, so their direction is kept; `clip_grad_value_` clamps each element.
"""

import copy
import inspect
import math
import types
import warnings

import numpy as np

from minigrad.array_module import array_module
from minigrad.autograd.grad_mode import no_grad
from minigrad.creation import from_numpy, ones_like, zeros_like
from minigrad.linalg import vector_norm
from minigrad.nn.parameter import Parameter
from minigrad.ops.shape import cat
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
        warnings.warn(
            "`parameters` is an empty generator, no gradient clipping will occur.", stacklevel=2
        )
    grads = [p.grad for p in params if p.grad is not None]
    norm_type = float(norm_type)  # also accepts 'inf', an int, a 0-d tensor
    max_norm = float(max_norm)
    if not grads:
        return from_numpy(np.asarray(0.0, dtype=np.float32))
    # overflow, 0 ** -p and NaN are answers here, as in torch, not warnings
    with no_grad(), np.errstate(all="ignore"):
        total = _total_norm(grads, norm_type)
        if error_if_nonfinite and not math.isfinite(total.item()):
            raise RuntimeError(
                f"clip_grad_norm_: the total norm of order {norm_type} of the gradients is "
                f"non-finite ({total.item()}), so they cannot be clipped; set "
                "error_if_nonfinite=False to clip anyway"
            )
        # the 1e-6 keeps the factor finite when every gradient is 0
        scale = (max_norm / (total + 1e-6)).clamp(max=1.0)
        # A factor of exactly 1 changes nothing (and NaN != 1), so the host skips it. On a GPU
        # reading the factor would copy it to the host at every step: every gradient is
        # scaled there (as torch does everywhere), and the total stays a tensor on the GPU.
        if total.is_cuda or scale.item() != 1.0:
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


def _total_norm(tensors, norm_type):
    """The norm_type-norm of the vector of the tensors' norms, for a non-empty list (under
    no_grad: the callers' gradients are not differentiated). The per-tensor norms are put
    side by side as one array: `stack` of the 0-d tensors was one more op over all of them,
    half of the call's time on the baby GPT's 26 gradients."""
    norms = [vector_norm(t, norm_type).array for t in tensors]
    return vector_norm(from_numpy(array_module(norms[0]).stack(norms)), norm_type)


# ---- the two halves of clip_grad_norm_ (torch 2.6) -----------------------------------------------
def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The norm_type-norm of the vector of the tensors' norms (of all their elements, for
    p != 0): the total that clip_grad_norm_ measures, given the gradients themselves
    (`[p.grad for p in params if p.grad is not None]`). tensor(0.) for no tensors."""
    tensors = _as_list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return from_numpy(np.asarray(0.0, dtype=np.float32))
    with no_grad(), np.errstate(all="ignore"):
        total = _total_norm(tensors, norm_type)
    if error_if_nonfinite and not math.isfinite(total.item()):
        raise RuntimeError(
            f"get_total_norm: the total norm of order {norm_type} for gradients from `parameters` "
            f"is non-finite ({total.item()}), so it cannot be clipped. To disable this error and "
            "scale the gradients by the non-finite norm anyway, set `error_if_nonfinite=False`"
        )
    return total


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scale every gradient in place by min(1, max_norm / (total_norm + 1e-6)), total_norm
    given (from get_total_norm): clip_grad_norm_ in two steps, so that the norm can be
    computed (or all-reduced) elsewhere. Returns None."""
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    if not grads:
        return None
    with no_grad(), np.errstate(all="ignore"):
        scale = (float(max_norm) / (total_norm + 1e-6)).clamp(max=1.0)
        for g in grads:
            g.mul_(scale)
    return None


# ---- fusing a batch norm into the layer before it (for inference) --------------------------------
def fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, transpose=False):
    """(weight, bias) of one convolution that computes conv then batch norm in evaluation:
    BN(y) = (y - mean) / sqrt(var + eps) * gamma + beta is affine in y, so it folds into
    the convolution: W' = W * gamma / sqrt(var + eps) per output channel (dim 0, or dim 1
    of a transposed convolution's weight), b' = (b - mean) * gamma / sqrt(var + eps) + beta.
    Returns two new Parameters."""
    weight_dtype = conv_w.dtype
    bias_dtype = conv_b.dtype if conv_b is not None else weight_dtype
    conv_b = zeros_like(bn_rm) if conv_b is None else conv_b
    bn_w = ones_like(bn_rm) if bn_w is None else bn_w
    bn_b = zeros_like(bn_rm) if bn_b is None else bn_b
    scale = (bn_rv + bn_eps).rsqrt()
    shape = ([1, -1] if transpose else [-1, 1]) + [1] * (conv_w.ndim - 2)
    fused_w = (conv_w * (bn_w * scale).reshape(shape)).to(weight_dtype)
    fused_b = ((conv_b - bn_rm) * scale * bn_w + bn_b).to(bias_dtype)
    return Parameter(fused_w.detach(), conv_w.requires_grad), Parameter(
        fused_b.detach(), conv_b.requires_grad
    )


def fuse_conv_bn_eval(conv, bn, transpose=False):
    """A copy of `conv` (in eval mode, as `bn`) whose output is bn(conv(x)): the batch norm
    folded into its weight and bias (fuse_conv_bn_weights). One layer instead of two at
    inference time."""
    if conv.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("fuse_conv_bn_eval: the batch norm must track running statistics")
    fused = copy.deepcopy(conv)
    fused.weight, fused.bias = fuse_conv_bn_weights(
        fused.weight,
        fused.bias,
        bn.running_mean,
        bn.running_var,
        bn.eps,
        bn.weight,
        bn.bias,
        transpose,
    )
    return fused


def fuse_linear_bn_weights(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b):
    """(weight, bias) of one Linear that computes linear then batch norm in evaluation:
    W' = W * gamma / sqrt(var + eps) per output feature, b' = (b - mean) * gamma /
    sqrt(var + eps) + beta. Returns two new Parameters."""
    weight_dtype = linear_w.dtype
    bias_dtype = linear_b.dtype if linear_b is not None else weight_dtype
    linear_b = zeros_like(bn_rm) if linear_b is None else linear_b
    scale = bn_w * (bn_rv + bn_eps).rsqrt()
    fused_w = linear_w * scale.unsqueeze(-1).to(weight_dtype)
    fused_b = ((linear_b - bn_rm) * scale + bn_b).to(bias_dtype)
    return Parameter(fused_w.detach(), linear_w.requires_grad), Parameter(
        fused_b.detach(), linear_b.requires_grad
    )


def fuse_linear_bn_eval(linear, bn):
    """A copy of `linear` (in eval mode, as `bn`) whose output is bn(linear(x))."""
    if linear.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    if not (linear.out_features == bn.num_features or bn.num_features == 1):
        raise AssertionError(
            "To fuse, linear.out_features == bn.num_features or bn.num_features == 1"
        )
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("fuse_linear_bn_eval: the batch norm must track running statistics")
    fused = copy.deepcopy(linear)
    fused.weight, fused.bias = fuse_linear_bn_weights(
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias
    )
    return fused


def skip_init(module_cls, *args, **kwargs):
    """Make a `module_cls(*args, **kwargs)` whose parameters and buffers are left
    uninitialised (torch builds it on the meta device, then gives it empty storage):
    their shapes and dtypes are the layer's, their values are not its initialisation
    (minigrad's empty storage is zeros). For a layer about to be loaded from a
    checkpoint. The class must take a `device` argument, as torch requires."""
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    device = kwargs.pop("device", "cpu")
    return module_cls(*args, **kwargs).to_empty(device=device)


from minigrad.nn.utils import parametrizations, parametrize, rnn  # noqa: E402, F401  (they import from here)
from minigrad.nn.utils.spectral_norm import remove_spectral_norm, spectral_norm  # noqa: E402, F401
