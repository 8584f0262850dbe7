"""Normalization layers: LayerNorm, RMSNorm, GroupNorm, BatchNorm1d/2d/3d,
InstanceNorm1d/2d/3d and LocalResponseNorm.

Each module holds the learnable per-feature scale `weight` (ones at first) and shift
`bias` (zeros), and BatchNorm also the running statistics it uses in evaluation, as
buffers. A module checks only what shapes those (the channel count); its forward is
one call of `F.layer_norm`, `F.batch_norm`, ... (`minigrad/nn/functional/`), which
check the input, and the math is in `minigrad/ops/normalization.py`. BatchNorm decides
which statistics to use. Parameter and buffer names, shapes, defaults and `repr` are
PyTorch's, so PyTorch state dicts load unchanged. Each takes PyTorch's factory keywords
`device` ('cpu', or 'cuda' where there is a GPU) and `dtype` (of the parameters and running
statistics).
"""

import warnings

import numpy as np

from minigrad.autograd.grad_mode import no_grad
from minigrad.creation import from_numpy, ones, zeros
from minigrad.devices import check_device
from minigrad.nn import functional as F
from minigrad.nn.module import Module
from minigrad.nn.parameter import Parameter


def _as_shape(normalized_shape):
    if isinstance(normalized_shape, (int, np.integer)):
        return (int(normalized_shape),)
    return tuple(int(s) for s in normalized_shape)


def _reset(param, value):
    if param is not None:
        with no_grad():
            param.fill_(value)


class LayerNorm(Module):
    """Standardize each sample over its last len(normalized_shape) dims, then scale and
    shift elementwise: y = (x - mean) / sqrt(var + eps) * weight + bias.

    weight and bias have shape normalized_shape (no bias if bias=False, neither if
    elementwise_affine=False). The statistics come from the sample itself, so training
    and evaluation behave the same.
    """

    def __init__(
        self,
        normalized_shape,
        eps=1e-5,
        elementwise_affine=True,
        bias=True,
        device=None,
        dtype=None,
    ):
        super().__init__()
        check_device(device, "LayerNorm")
        self.normalized_shape = _as_shape(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(ones(self.normalized_shape, dtype=dtype))
            if bias:
                self.bias = Parameter(zeros(self.normalized_shape, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def reset_parameters(self):
        _reset(self.weight, 1.0)
        _reset(self.bias, 0.0)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (
            f"{self.normalized_shape}, eps={self.eps}, "
            f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}"
        )


class RMSNorm(Module):
    """y = x / sqrt(mean(x^2) + eps) * weight over the last len(normalized_shape) dims
    (Zhang & Sennrich 2019): LayerNorm without the centring and without a bias.

    eps=None uses the machine epsilon of the input's dtype, as PyTorch.
    """

    def __init__(
        self, normalized_shape, eps=None, elementwise_affine=True, device=None, dtype=None
    ):
        super().__init__()
        check_device(device, "RMSNorm")
        self.normalized_shape = _as_shape(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(ones(self.normalized_shape, dtype=dtype))
        else:
            self.register_parameter("weight", None)

    def reset_parameters(self):
        _reset(self.weight, 1.0)

    def forward(self, input):
        return F.rms_norm(input, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return (
            f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"
        )


class GroupNorm(Module):
    """Split the C channels of x (N, C, *) into num_groups groups and standardize each
    group of each sample on its own; then scale and shift per channel (Wu & He 2018).

    num_groups=1 normalizes like LayerNorm over (C, *); num_groups=C is instance norm.
    Like LayerNorm, it uses no batch statistics, so it works at any batch size.
    """

    def __init__(
        self, num_groups, num_channels, eps=1e-5, affine=True, device=None, dtype=None, *, bias=True
    ):
        super().__init__()
        check_device(device, "GroupNorm")
        if num_groups <= 0 or num_channels % num_groups != 0:
            raise ValueError(
                f"GroupNorm: num_channels ({num_channels}) must be divisible by num_groups "
                f"({num_groups})"
            )
        self.num_groups, self.num_channels = num_groups, num_channels
        self.eps = eps
        self.affine = affine
        if affine:
            self.weight = Parameter(ones(num_channels, dtype=dtype))
            if bias:
                self.bias = Parameter(zeros(num_channels, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def reset_parameters(self):
        _reset(self.weight, 1.0)
        _reset(self.bias, 0.0)

    def forward(self, input):
        if input.ndim >= 2 and input.shape[1] != self.num_channels:
            raise RuntimeError(
                f"GroupNorm: expected input with {self.num_channels} channels (num_channels, dim "
                f"1), got shape {input.shape}"
            )
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (
            f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
            f"bias={self.bias is not None}"
        )


# --8<-- [start:batchnorm_module]
class _BatchNorm(Module):
    """Batch normalization over every dim of x (N, C, *) but the channels (Ioffe &
    Szegedy 2015); BatchNorm1d and BatchNorm2d differ only in the input dims accepted.

    Training: each channel is standardized with the mean and variance of the current
    batch, and the buffers running_mean / running_var move towards them:
    running = (1 - momentum) * running + momentum * batch (the unbiased variance);
    momentum=None averages all batches so far equally (momentum = 1 / batches seen).
    Evaluation: the running statistics are used, so one sample's output does not
    depend on the rest of its batch. track_running_stats=False keeps no buffers and
    uses batch statistics in both modes.
    """

    expected_dims = ()

    def __init__(
        self,
        num_features,
        eps=1e-5,
        momentum=0.1,
        affine=True,
        track_running_stats=True,
        device=None,
        dtype=None,
        *,
        bias=True,
    ):
        super().__init__()
        check_device(device, type(self).__name__)
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = Parameter(ones(num_features, dtype=dtype))
            if bias:
                self.bias = Parameter(zeros(num_features, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", zeros(num_features, dtype=dtype))
            self.register_buffer("running_var", ones(num_features, dtype=dtype))
            self.register_buffer("num_batches_tracked", from_numpy(np.array(0, dtype=np.int64)))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)

    def forward(self, input):
        self._check_input_dim(input)
        momentum = self.momentum
        if self.training and self.track_running_stats:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:  # cumulative average: batch k gets weight 1/k
                momentum = 1.0 / int(self.num_batches_tracked.item())
        # batch statistics in training, and in evaluation when there are no running ones
        use_batch_stats = self.training or self.running_mean is None
        # the running buffers are passed only where they are read or updated
        track = not self.training or self.track_running_stats
        return F.batch_norm(
            input,
            self.running_mean if track else None,
            self.running_var if track else None,
            self.weight,
            self.bias,
            training=use_batch_stats,
            momentum=0.0 if momentum is None else momentum,
            eps=self.eps,
        )

    # --8<-- [end:batchnorm_module]

    def _check_input_dim(self, input):
        if input.ndim not in self.expected_dims:
            dims = " or ".join(f"{d}D" for d in self.expected_dims)
            raise ValueError(
                f"{type(self).__name__}: expected {dims} input (got {input.ndim}D input of shape "
                f"{input.shape})"
            )
        if input.shape[1] != self.num_features:  # RuntimeError, as PyTorch's
            raise RuntimeError(
                f"{type(self).__name__}: expected input with {self.num_features} channels "
                f"(num_features, dim 1), got shape {input.shape}"
            )

    def reset_running_stats(self):
        if self.track_running_stats:
            with no_grad():
                self.running_mean.zero_()
                self.running_var.fill_(1.0)
                self.num_batches_tracked.zero_()

    def reset_parameters(self):
        self.reset_running_stats()
        _reset(self.weight, 1.0)
        _reset(self.bias, 0.0)

    def extra_repr(self):
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
            f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}"
        )


class BatchNorm1d(_BatchNorm):
    """Batch norm of (N, C) features or (N, C, L) sequences, per channel C."""

    expected_dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch norm of (N, C, H, W) images, per channel C."""

    expected_dims = (4,)


class BatchNorm3d(_BatchNorm):
    """Batch norm of (N, C, D, H, W) volumes, per channel C."""

    expected_dims = (5,)


class _InstanceNorm(_BatchNorm):
    """Instance normalization: each channel of each sample standardized over its own
    positions (F.instance_norm). Defaults as torch's: no affine parameters and no running
    statistics. With track_running_stats=True the buffers follow the batch means of the
    per-sample statistics in training and replace them in evaluation. An input without
    its batch dim (one dim fewer) is taken as one sample."""

    def __init__(
        self,
        num_features,
        eps=1e-5,
        momentum=0.1,
        affine=False,
        track_running_stats=False,
        device=None,
        dtype=None,
        *,
        bias=True,
    ):
        super().__init__(
            num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias
        )

    def forward(self, input):
        if input.ndim not in self.expected_dims:
            dims = " or ".join(f"{d}D" for d in self.expected_dims)
            raise ValueError(
                f"{type(self).__name__}: expected {dims} input (got {input.ndim}D input)"
            )
        unbatched = input.ndim == self.expected_dims[0]
        channel_dim = 0 if unbatched else 1
        if input.shape[channel_dim] != self.num_features:
            message = (
                f"{type(self).__name__}: expected input's size at dim={channel_dim} to match "
                f"num_features ({self.num_features}), but got: {input.shape[channel_dim]}."
            )
            if self.affine:
                raise ValueError(message)
            warnings.warn(message + " num_features is not used because affine=False", stacklevel=2)
        x = input.unsqueeze(0) if unbatched else input
        y = F.instance_norm(
            x,
            self.running_mean,
            self.running_var,
            self.weight,
            self.bias,
            self.training or not self.track_running_stats,
            self.momentum if self.momentum is not None else 0.0,
            self.eps,
        )
        return y.squeeze(0) if unbatched else y


class InstanceNorm1d(_InstanceNorm):
    """Instance norm of (N, C, L) sequences (or (C, L)), per sample and channel."""

    expected_dims = (2, 3)


class InstanceNorm2d(_InstanceNorm):
    """Instance norm of (N, C, H, W) images (or (C, H, W)), per sample and channel."""

    expected_dims = (3, 4)


class InstanceNorm3d(_InstanceNorm):
    """Instance norm of (N, C, D, H, W) volumes (or (C, D, H, W)), per sample and channel."""

    expected_dims = (4, 5)


class LocalResponseNorm(Module):
    """y_c = x_c / (k + alpha / size * sum of x^2 over the `size` channels around c)^beta,
    at each position of (N, C, *) (AlexNet's normalization)."""

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
