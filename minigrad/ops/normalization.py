"""Normalization: layer norm, RMS norm, group norm and batch norm, each one Function
whose backward is derived by hand.

All four do the same two steps. First they *standardize* x over some set of N
elements (one sample's features for layer norm, one channel across the whole batch
for batch norm, ...):

    xhat = (x - mean) * rstd,    rstd = 1 / sqrt(var + eps)

(RMS norm leaves out the mean). Then they scale and shift: y = xhat * weight + bias.

Built from small ops (mean, subtract, square, mean, add, rsqrt, multiply, ...),
autograd would get the gradient right by itself, but it would keep every intermediate
array alive and walk a node for each. Differentiating the whole of `xhat` once, on
paper, gives a closed form with three terms (derived in `standardize_backward`):

    dL/dx = rstd * (g - mean(g) - xhat * mean(g * xhat)),    g = dL/dxhat

Each backward below is that formula, written with a handful of Tensor ops so that
`create_graph=True` can differentiate it again. For that, the graph must also know
that xhat and rstd depend on x: when the backward pass is being recorded they are
recomputed from x with Tensor ops instead of read from what forward saved.

The functions at the end (`layer_norm`, `batch_norm`, ...) are the public functional
forms, re-exported by `minigrad.nn.functional`: they check their arguments and choose
the statistics, then call the Functions.
"""

import math

import numpy as np

from minigrad.autograd import grad_mode
from minigrad.autograd.function import Function
from minigrad.creation import from_numpy
from minigrad.ops.broadcast import unbroadcast
from minigrad.tensor import Tensor


# ---- the shared pieces ------------------------------------------------------------------
# --8<-- [start:standardize]
def moments(x, axes):
    """Mean and biased variance (divided by N, not N - 1) of the array x over `axes`,
    kept as size-1 dims so they broadcast against x."""
    mean = x.mean(axis=axes, keepdims=True)
    centred = x - mean
    return mean, (centred * centred).mean(axis=axes, keepdims=True)


def standardize(x, axes, eps):
    """xhat = (x - mean) * rstd over `axes`, and rstd = 1 / sqrt(var + eps) (NumPy)."""
    mean, var = moments(x, axes)
    rstd = 1.0 / np.sqrt(var + eps)
    return (x - mean) * rstd, rstd
    # --8<-- [end:standardize]


def standardize_recorded(x, axes, eps):
    """`standardize` again, with Tensor ops, for a backward pass that is being recorded
    (create_graph=True): the graph then knows how xhat and rstd depend on x."""
    centred = x - x.mean(dim=axes, keepdim=True)
    rstd = ((centred * centred).mean(dim=axes, keepdim=True) + eps).rsqrt()
    return centred * rstd, rstd


def _recording(x):
    """True when backward runs under create_graph and x needs a second derivative. Then
    the saved xhat and rstd will not do: they are constants to the graph."""
    return grad_mode.is_grad_enabled() and x.requires_grad


# --8<-- [start:standardize_backward]
def standardize_backward(g, xhat, rstd, axes):
    """dL/dx for xhat = (x - mean(x)) * rstd(x) over `axes` (N elements), g = dL/dxhat.

    d mean / dx_j = 1/N,  d rstd / dx_j = -rstd^2 xhat_j / N  (through the variance), so
    d xhat_i / dx_j = rstd * (delta_ij - 1/N - xhat_i xhat_j / N), and summing g_i times that:

        dL/dx = rstd * (g - mean(g) - xhat * mean(g * xhat))
    """
    mean_g = g.mean(dim=axes, keepdim=True)
    mean_g_xhat = (g * xhat).mean(dim=axes, keepdim=True)
    return (g - mean_g - xhat * mean_g_xhat) * rstd
    # --8<-- [end:standardize_backward]


# --8<-- [start:scale_shift]
def scale_shift(xhat, weight, bias):
    """y = xhat * weight + bias on arrays; weight and bias are optional."""
    y = xhat * weight.array if weight is not None else xhat.copy()  # a copy: xhat is saved
    return y + bias.array if bias is not None else y
    # --8<-- [end:scale_shift]


# --8<-- [start:scale_shift_backward]
def scale_shift_backward(ctx, grad, xhat, weight):
    """The gradients of y = xhat * weight + bias, for inputs (x, weight, bias, ...):
    dL/dxhat = dL/dy * weight, and weight and bias, broadcast over the other dims, get
    dL/dy * xhat and dL/dy summed over the positions they were copied to."""
    needs = ctx.needs_input_grad
    need_weight, need_bias = needs[1], len(needs) > 2 and needs[2]  # RMSNorm has no bias
    grad_weight = unbroadcast(grad * xhat, weight.shape) if need_weight else None
    grad_bias = unbroadcast(grad, ctx.bias_shape) if need_bias else None
    grad_xhat = grad * weight if weight is not None else grad
    return grad_xhat, grad_weight, grad_bias
    # --8<-- [end:scale_shift_backward]


def _saved(ctx, x, weight, xhat, rstd, bias):
    ctx.save_for_backward(x, weight, from_numpy(xhat), from_numpy(rstd))
    ctx.bias_shape = None if bias is None else bias.shape


# ---- the four Functions -------------------------------------------------------------------
# --8<-- [start:layer_norm]
class LayerNorm(Function):
    """y = (x - mean) / sqrt(var + eps) * weight + bias, the statistics taken over the
    trailing dims `axes` of each sample separately (so it acts the same in training and
    evaluation). weight and bias have the shape of those dims.

    dL/dx = rstd * (g - mean(g) - xhat * mean(g * xhat)) over `axes`, g = dL/dy * weight;
    dL/dweight = sum of dL/dy * xhat and dL/dbias = sum of dL/dy, over the leading dims.
    """

    @staticmethod
    def forward(ctx, x, weight, bias, axes, eps):
        xhat, rstd = standardize(x.array, axes, eps)
        _saved(ctx, x, weight, xhat, rstd, bias)
        ctx.axes, ctx.eps = axes, eps
        return scale_shift(xhat, weight, bias)

    @staticmethod
    def backward(ctx, grad):
        x, weight, xhat, rstd = ctx.saved_tensors
        if _recording(x):
            xhat, rstd = standardize_recorded(x, ctx.axes, ctx.eps)
        g, grad_weight, grad_bias = scale_shift_backward(ctx, grad, xhat, weight)
        grad_x = standardize_backward(g, xhat, rstd, ctx.axes) if ctx.needs_input_grad[0] else None
        return grad_x, grad_weight, grad_bias

    # --8<-- [end:layer_norm]


# --8<-- [start:rms_norm]
class RMSNorm(Function):
    """y = x * rrms * weight, rrms = 1 / sqrt(mean(x^2) + eps) over the trailing dims
    `axes`: layer norm without the centring, and without a bias.

    With xhat = x * rrms: d rrms / dx_j = -rrms^2 xhat_j / N, so
    d xhat_i / dx_j = rrms * (delta_ij - xhat_i xhat_j / N) and
    dL/dx = rrms * (g - xhat * mean(g * xhat)),  g = dL/dy * weight: the layer-norm
    formula without its mean(g) term, because nothing was subtracted.
    """

    @staticmethod
    def forward(ctx, x, weight, axes, eps):
        rrms = 1.0 / np.sqrt((x.array * x.array).mean(axis=axes, keepdims=True) + eps)
        xhat = x.array * rrms
        _saved(ctx, x, weight, xhat, rrms, None)
        ctx.axes, ctx.eps = axes, eps
        return scale_shift(xhat, weight, None)

    @staticmethod
    def backward(ctx, grad):
        x, weight, xhat, rrms = ctx.saved_tensors
        if _recording(x):
            rrms = ((x * x).mean(dim=ctx.axes, keepdim=True) + ctx.eps).rsqrt()
            xhat = x * rrms
        g, grad_weight, _ = scale_shift_backward(ctx, grad, xhat, weight)
        grad_x = None
        if ctx.needs_input_grad[0]:
            grad_x = (g - xhat * (g * xhat).mean(dim=ctx.axes, keepdim=True)) * rrms
        return grad_x, grad_weight

    # --8<-- [end:rms_norm]


class GroupNorm(Function):
    """Group norm of x (N, C, *): the C channels are split into `num_groups` groups of
    C/G, and each (sample, group) is standardized over its channels and positions; then
    y = xhat * weight + bias per channel (weight and bias given as (C, 1, ..., 1)).

    Viewing x as (N, G, C/G * positions), this is layer norm over the last axis, so
    dL/dx is the layer-norm formula on that view, with g = dL/dy * weight.
    """

    @staticmethod
    def forward(ctx, x, weight, bias, num_groups, eps):
        ctx.grouped = _grouped_shape(x.shape, num_groups)
        xhat, rstd = standardize(x.array.reshape(ctx.grouped), (2,), eps)
        _saved(ctx, x, weight, xhat.reshape(x.shape), rstd, bias)
        ctx.eps = eps
        return scale_shift(xhat.reshape(x.shape), weight, bias)

    @staticmethod
    def backward(ctx, grad):
        x, weight, xhat, rstd = ctx.saved_tensors
        if _recording(x):
            xhat, rstd = standardize_recorded(x.reshape(ctx.grouped), (2,), ctx.eps)
            xhat = xhat.reshape(x.shape)
        g, grad_weight, grad_bias = scale_shift_backward(ctx, grad, xhat, weight)
        grad_x = None
        if ctx.needs_input_grad[0]:
            grouped = standardize_backward(g.reshape(ctx.grouped), xhat.reshape(ctx.grouped), rstd, (2,))
            grad_x = grouped.reshape(x.shape)
        return grad_x, grad_weight, grad_bias


def _grouped_shape(shape, num_groups):
    """(N, C, *) -> (N, G, C/G * positions): one row per (sample, group)."""
    return (shape[0], num_groups, (shape[1] // num_groups) * math.prod(shape[2:]))


# --8<-- [start:batch_norm]
class BatchNorm(Function):
    """y = (x - mean) * rstd * weight + bias per channel, rstd = 1 / sqrt(var + eps),
    for x (N, C, *) and given statistics `mean`, `var` of shape (1, C, 1, ...).

    batch_statistics=True (training): mean and var are this batch's own, over
    `axes` = N and the positions, so they move when x moves. The gradient is the
    layer-norm formula taken over those axes:
        dL/dx = rstd * (g - mean(g) - xhat * mean(g * xhat)),  g = dL/dy * weight.
    batch_statistics=False (evaluation): they are running estimates, constants, so
    y is an affine function of x and dL/dx = g * rstd.
    dL/dweight and dL/dbias sum dL/dy * xhat and dL/dy over `axes` in both modes.
    """

    @staticmethod
    def forward(ctx, x, weight, bias, mean, var, axes, batch_statistics, eps):
        rstd = 1.0 / np.sqrt(var + eps)
        xhat = (x.array - mean) * rstd
        _saved(ctx, x, weight, xhat, rstd, bias)
        ctx.mean, ctx.axes, ctx.batch_statistics, ctx.eps = mean, axes, batch_statistics, eps
        return scale_shift(xhat, weight, bias)

    @staticmethod
    def backward(ctx, grad):
        x, weight, xhat, rstd = ctx.saved_tensors
        if _recording(x):
            if ctx.batch_statistics:
                xhat, rstd = standardize_recorded(x, ctx.axes, ctx.eps)
            else:  # constant statistics: only the subtraction involves x
                xhat = (x - from_numpy(ctx.mean)) * rstd
        g, grad_weight, grad_bias = scale_shift_backward(ctx, grad, xhat, weight)
        grad_x = None
        if ctx.needs_input_grad[0]:
            grad_x = standardize_backward(g, xhat, rstd, ctx.axes) if ctx.batch_statistics else g * rstd
        return grad_x, grad_weight, grad_bias

    # --8<-- [end:batch_norm]


# ---- the functional forms (torch.nn.functional's signatures) --------------------------------
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Standardize over the trailing dims `normalized_shape` of each sample, then
    y = xhat * weight + bias (weight and bias of shape normalized_shape)."""
    op = "layer_norm"
    shape = _trailing_shape(input, normalized_shape, op)
    _check_param(weight, "weight", shape, f"normalized_shape {shape}", op)
    _check_param(bias, "bias", shape, f"normalized_shape {shape}", op)
    axes = tuple(range(input.ndim - len(shape), input.ndim))
    return LayerNorm.apply(input, weight, bias, axes=axes, eps=eps)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """y = x / sqrt(mean(x^2) + eps) * weight over the trailing dims `normalized_shape`;
    eps=None means the machine epsilon of the input's dtype (float32's for float16)."""
    op = "rms_norm"
    shape = _trailing_shape(input, normalized_shape, op)
    _check_param(weight, "weight", shape, f"normalized_shape {shape}", op)
    if eps is None:
        eps = float(np.finfo(np.promote_types(input.dtype, np.float32)).eps)
    axes = tuple(range(input.ndim - len(shape), input.ndim))
    return RMSNorm.apply(input, weight, axes=axes, eps=eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Standardize each group of C / num_groups channels of each sample of x (N, C, *),
    then scale and shift per channel."""
    op = "group_norm"
    _check_floating(input, op)
    if input.ndim < 2:
        raise RuntimeError(f"{op}: expected an input of shape (N, C, *) with at least 2 dims, got shape {input.shape}")
    channels = input.shape[1]
    if not isinstance(num_groups, (int, np.integer)) or num_groups <= 0 or channels % num_groups:
        raise RuntimeError(
            f"{op}: the number of channels must be divisible by num_groups, but got input of shape "
            f"{input.shape} ({channels} channels) and num_groups={num_groups}"
        )
    for name, param in (("weight", weight), ("bias", bias)):
        _check_param(param, name, (channels,), f"the {channels} channels of input shape {input.shape}", op)
    # the check PyTorch makes: at least 2 values among N * (C / G) * positions
    if input.shape[0] * (channels // num_groups) * math.prod(input.shape[2:]) == 1:
        raise ValueError(f"{op}: expected more than 1 value per group, got input of shape {input.shape}")
    weight, bias = _per_channel(weight, input.ndim), _per_channel(bias, input.ndim)
    return GroupNorm.apply(input, weight, bias, num_groups=int(num_groups), eps=eps)


# --8<-- [start:batch_norm_functional]
def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    """Standardize each channel of x (N, C, *) over the batch and positions, then scale
    and shift per channel. training=True uses the batch's own statistics and, if running
    buffers are given, updates them in place; training=False uses the running buffers."""
    _check_batch_norm_args(input, running_mean, running_var, weight, bias, training, eps)
    axes = (0,) + tuple(range(2, input.ndim))  # every dim but the channels
    if training:
        mean, var = moments(input.array, axes)
        if running_mean is not None:
            n = input.array.size // input.shape[1]  # values per channel
            update_running_stats(running_mean, running_var, mean, var, n, momentum)
    else:
        stats_shape = (1, input.shape[1]) + (1,) * (input.ndim - 2)
        # copies: a later training step must not change what this output's backward uses
        mean, var = running_mean.array.reshape(stats_shape).copy(), running_var.array.reshape(stats_shape).copy()
    weight, bias = _per_channel(weight, input.ndim), _per_channel(bias, input.ndim)
    return BatchNorm.apply(input, weight, bias, mean=mean, var=var, axes=axes, batch_statistics=training, eps=eps)


def update_running_stats(running_mean, running_var, mean, var, n, momentum):
    """running = (1 - momentum) * running + momentum * batch value, in place.

    The batch is normalized with its biased variance (divided by n), but the running
    variance estimates the variance of the whole data set, so it gets the unbiased
    one, var * n / (n - 1), as in PyTorch.
    """
    unbiased_var = var * (n / (n - 1))
    running_mean.copy_(running_mean.array * (1 - momentum) + mean.reshape(-1) * momentum)
    running_var.copy_(running_var.array * (1 - momentum) + unbiased_var.reshape(-1) * momentum)
    # --8<-- [end:batch_norm_functional]


# ---- argument checks -------------------------------------------------------------------------
def _check_floating(input, op):
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}: input must be a Tensor, got {type(input).__name__}")
    if input.dtype.kind != "f":
        raise TypeError(f"{op}: input must be floating point, got {input.dtype}")


def _trailing_shape(input, normalized_shape, op):
    """normalized_shape as a tuple, checked against the input's trailing dims."""
    _check_floating(input, op)
    shape = (int(normalized_shape),) if isinstance(normalized_shape, (int, np.integer)) else tuple(normalized_shape)
    if not shape:
        raise RuntimeError(f"{op}: normalized_shape must have at least one dimension, got {shape}")
    if input.shape[input.ndim - len(shape) :] != shape or input.ndim < len(shape):
        raise RuntimeError(
            f"{op}: normalized_shape={shape} expects an input of shape (*, {', '.join(map(str, shape))}), "
            f"but got input of shape {input.shape}"
        )
    return shape


def _check_param(param, name, shape, what, op):
    if param is not None and tuple(param.shape) != shape:
        raise RuntimeError(f"{op}: {name} must have shape {shape} to match {what}, but got shape {param.shape}")


def _per_channel(param, ndim):
    """A (C,) weight or bias as (C, 1, ..., 1), to broadcast against x (N, C, *)."""
    if param is None or ndim <= 2:
        return param
    return param.reshape(param.shape + (1,) * (ndim - 2))


def _check_batch_norm_args(input, running_mean, running_var, weight, bias, training, eps):
    op = "batch_norm"
    _check_floating(input, op)
    if input.ndim < 2:
        raise RuntimeError(f"{op}: expected an input of shape (N, C, *) with at least 2 dims, got shape {input.shape}")
    if (running_mean is None) != (running_var is None):
        raise ValueError(f"{op}: running_mean and running_var must either both be None or neither be None")
    channels = input.shape[1]
    what = f"the {channels} channels of input shape {input.shape}"
    for name, param in (
        ("running_mean", running_mean),
        ("running_var", running_var),
        ("weight", weight),
        ("bias", bias),
    ):
        _check_param(param, name, (channels,), what, op)
    if training:
        if input.array.size // max(channels, 1) == 1:
            # one value: its variance is 0 and every output would be `bias`
            raise ValueError(
                f"{op}: expected more than 1 value per channel when training, got input of shape {input.shape}"
            )
        if eps <= 0:
            raise ValueError(f"{op}: eps must be positive during training, but got {eps}")
    elif running_mean is None:
        raise RuntimeError(f"{op}: running_mean and running_var must be given in evaluation mode (training=False)")
    elif eps < 0:
        raise ValueError(f"{op}: eps must be non-negative, but got {eps}")
