"""Normalization as functions: F.layer_norm, F.rms_norm, F.group_norm, F.batch_norm,
F.instance_norm (batch norm of one sample per channel) and F.local_response_norm.

torch.nn.functional's signatures. Each checks its arguments, chooses the statistics
(batch norm: the batch's own in training, which also move the running estimates, or
the running estimates in evaluation) and calls one Function of
`minigrad/ops/normalization.py`, where the math and the hand-derived backward passes are.
"""

import math

import numpy as np

from minigrad.array_module import array_module
from minigrad.creation import from_numpy
from minigrad.nn.functional.pool import avg_pool2d
from minigrad.nn.functional.shape import pad
from minigrad.ops.normalization import BatchNorm, GroupNorm, LayerNorm, RMSNorm, moments
from minigrad.ops.promotion import check_same_dtype
from minigrad.tensor import Tensor


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Standardize over the trailing dims `normalized_shape` of each sample, then
    y = xhat * weight + bias (weight and bias of shape normalized_shape)."""
    op = "layer_norm"
    shape = _trailing_shape(input, normalized_shape, op)
    _check_param(weight, "weight", shape, f"normalized_shape {shape}", op)
    _check_param(bias, "bias", shape, f"normalized_shape {shape}", op)
    check_same_dtype(op, input=input, weight=weight, bias=bias)
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
        raise RuntimeError(
            f"{op}: expected an input of shape (N, C, *) with at least 2 dims, got shape "
            f"{input.shape}"
        )
    channels = input.shape[1]
    if not isinstance(num_groups, (int, np.integer)) or num_groups <= 0 or channels % num_groups:
        raise RuntimeError(
            f"{op}: the number of channels must be divisible by num_groups, but got input of shape "
            f"{input.shape} ({channels} channels) and num_groups={num_groups}"
        )
    for name, param in (("weight", weight), ("bias", bias)):
        _check_param(
            param, name, (channels,), f"the {channels} channels of input shape {input.shape}", op
        )
    # the check PyTorch makes: at least 2 values among N * (C / G) * positions
    if input.shape[0] * (channels // num_groups) * math.prod(input.shape[2:]) == 1:
        raise ValueError(
            f"{op}: expected more than 1 value per group, got input of shape {input.shape}"
        )
    check_same_dtype(op, input=input, weight=weight, bias=bias)  # after that one, as torch
    weight, bias = _per_channel(weight, input.ndim), _per_channel(bias, input.ndim)
    return GroupNorm.apply(input, weight, bias, num_groups=int(num_groups), eps=eps)


# --8<-- [start:batch_norm_functional]
def batch_norm(
    input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5
):
    """Standardize each channel of x (N, C, *) over the batch and positions, then scale
    and shift per channel. training=True uses the batch's own statistics and, if running
    buffers are given, updates them in place; training=False uses the running buffers."""
    _check_batch_norm_args(input, running_mean, running_var, weight, bias, training, eps)
    axes = (0,) + tuple(range(2, input.ndim))  # every dim but the channels
    stats_shape = (1, input.shape[1]) + (1,) * (input.ndim - 2)
    # An empty batch has no statistics (its mean would be 0 / 0), and the output is empty
    # whatever it is normalized with: PyTorch leaves the running estimates as they are.
    batch_statistics = training and input.array.size > 0
    if batch_statistics:
        mean, var = moments(input.array, axes)
        if running_mean is not None:
            n = input.array.size // input.shape[1]  # values per channel
            update_running_stats(running_mean, running_var, mean, var, n, momentum)
    elif running_mean is not None:
        # copies: a later training step must not change what this output's backward uses
        mean, var = (
            running_mean.array.reshape(stats_shape).copy(),
            running_var.array.reshape(stats_shape).copy(),
        )
    else:  # an empty batch in training without running estimates: any constants will do
        xp = array_module(input.array)
        mean, var = xp.zeros(stats_shape, input.dtype), xp.ones(stats_shape, input.dtype)
    weight, bias = _per_channel(weight, input.ndim), _per_channel(bias, input.ndim)
    return BatchNorm.apply(
        input,
        weight,
        bias,
        mean=mean,
        var=var,
        axes=axes,
        batch_statistics=batch_statistics,
        eps=eps,
    )


def update_running_stats(running_mean, running_var, mean, var, n, momentum):
    """running = (1 - momentum) * running + momentum * batch value, in place.

    The batch is normalized with its biased variance (divided by n), but the running
    variance estimates the variance of the whole data set, so it gets the unbiased
    one, var * n / (n - 1), as in PyTorch.
    """
    unbiased_var = var * (n / (n - 1))
    # (arrays of the input's device; copy_ takes tensors)
    new_mean = running_mean.array * (1 - momentum) + mean.reshape(-1) * momentum
    new_var = running_var.array * (1 - momentum) + unbiased_var.reshape(-1) * momentum
    running_mean.copy_(from_numpy(new_mean))
    running_var.copy_(from_numpy(new_var))
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
    shape = (
        (int(normalized_shape),)
        if isinstance(normalized_shape, (int, np.integer))
        else tuple(normalized_shape)
    )
    if not shape:
        raise RuntimeError(f"{op}: normalized_shape must have at least one dimension, got {shape}")
    if input.shape[input.ndim - len(shape) :] != shape or input.ndim < len(shape):
        raise RuntimeError(
            f"{op}: normalized_shape={shape} expects an input of shape (*, "
            f"{', '.join(map(str, shape))}), but got input of shape {input.shape}"
        )
    return shape


def _check_param(param, name, shape, what, op):
    if param is not None and tuple(param.shape) != shape:
        raise RuntimeError(
            f"{op}: {name} must have shape {shape} to match {what}, but got shape {param.shape}"
        )


def _per_channel(param, ndim):
    """A (C,) weight or bias as (C, 1, ..., 1), to broadcast against x (N, C, *)."""
    if param is None or ndim <= 2:
        return param
    return param.reshape(param.shape + (1,) * (ndim - 2))


def _check_batch_norm_args(input, running_mean, running_var, weight, bias, training, eps):
    op = "batch_norm"
    _check_floating(input, op)
    if input.ndim < 2:
        raise RuntimeError(
            f"{op}: expected an input of shape (N, C, *) with at least 2 dims, got shape "
            f"{input.shape}"
        )
    if (running_mean is None) != (running_var is None):
        raise ValueError(
            f"{op}: running_mean and running_var must either both be None or neither be None"
        )
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
                f"{op}: expected more than 1 value per channel when training, got input of shape "
                f"{input.shape}"
            )
        if eps <= 0:
            raise ValueError(f"{op}: eps must be positive during training, but got {eps}")
    elif running_mean is None:
        raise RuntimeError(
            f"{op}: running_mean and running_var must be given in evaluation mode (training=False)"
        )
    elif eps < 0:
        raise ValueError(f"{op}: eps must be non-negative, but got {eps}")
    # last, as torch, which names one value per channel before the dtypes
    check_same_dtype(
        op,
        input=input,
        running_mean=running_mean,
        running_var=running_var,
        weight=weight,
        bias=bias,
    )


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """input / max(||input||_p, eps), the norm taken over `dim` (each vector along dim
    scaled to unit p-norm; a vector of norm below eps is divided by eps instead). The
    gradient is the division's and the norm's: the clamp passes none where it acts."""
    if not isinstance(input, Tensor):
        raise TypeError(f"normalize: input must be a Tensor, got {type(input).__name__}")
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    y = input / denom
    return y if out is None else out.copy_(y)


def instance_norm(
    input,
    running_mean=None,
    running_var=None,
    weight=None,
    bias=None,
    use_input_stats=True,
    momentum=0.1,
    eps=1e-5,
):
    """Standardize each channel of each sample of x (N, C, *) over its positions alone
    (Ulyanov et al. 2016, the normalization of style transfer), then scale and shift per
    channel: y = (x - mean) / sqrt(var + eps) * weight + bias.

    It is batch norm of a batch of one sample with N * C channels, and is computed so,
    as torch does: x viewed as (1, N C, *), weight, bias and the running statistics
    repeated N times. use_input_stats=False normalizes with the running statistics
    instead; when running buffers are given and the input's statistics are used, each
    buffer moves towards the mean over the batch of the per-sample statistics.
    """
    op = "instance_norm"
    _check_floating(input, op)
    if input.ndim < 3:
        raise ValueError(
            f"{op}: expected an input of shape (N, C, *) with spatial dims, got shape {input.shape}"
        )
    if use_input_stats and int(np.prod(input.shape[2:])) == 1:
        raise ValueError(
            f"{op}: Expected more than 1 spatial element when training, got input size "
            f"{input.shape}"
        )
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError(
            f"{op}: Expected running_mean and running_var to be defined when use_input_stats is "
            "false"
        )
    N, C = input.shape[:2]

    def repeated(t):  # (C,) -> (N C,): channel c of sample n is channel n C + c
        return None if t is None else t.repeat(N)

    # copies of the running statistics, one per sample, for batch_norm to update
    means, variances = repeated(running_mean), repeated(running_var)
    x = input.reshape((1, N * C) + input.shape[2:])
    y = batch_norm(
        x, means, variances, repeated(weight), repeated(bias), use_input_stats, momentum, eps
    )
    if running_mean is not None:
        running_mean.copy_(from_numpy(means.array.reshape(N, C).mean(0)))
        running_var.copy_(from_numpy(variances.array.reshape(N, C).mean(0)))
    return y.reshape(input.shape)


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """Divide each value by a power of the activity of its neighbouring channels at the
    same position (AlexNet, Krizhevsky et al. 2012):
    y_c = x_c / (k + alpha / size * sum over the `size` channels around c of x^2)^beta.

    The sum is an average pooling of x^2 across the channels, with zero padding so every
    channel has `size` neighbours counted (size // 2 before, (size - 1) // 2 after), as
    torch computes it: the trailing dims are flattened into one, and a (size, 1) window
    slides along the channels. x is (N, C, *), with at least one trailing dim."""
    op = "local_response_norm"
    if input.ndim < 3:
        raise ValueError(
            f"{op}: Expected 3D or higher dimensionality input (got {input.ndim} dimensions)"
        )
    if input.numel() == 0:
        return input
    N, C = input.shape[:2]
    squares = (input * input).reshape(N, 1, C, -1)  # channels as the rows of one plane
    squares = pad(squares, (0, 0, size // 2, (size - 1) // 2))
    mean_square = avg_pool2d(squares, (size, 1), stride=1).reshape(input.shape)
    return input / (mean_square * alpha + k) ** beta
