"""Lazy layers: their input size is read from the first input they see.

`LazyLinear(out_features)` is a Linear whose in_features is not given: until the first
call its weight and bias are `UninitializedParameter`s, whose shape is unknown. A
forward pre-hook runs before the first forward: it reads the size from the input
(the last dim for LazyLinear, the channels for the convolutions and normalizations),
materializes the parameters and buffers, initialises them as the ordinary layer would,
and then turns the layer into that ordinary layer (`cls_to_become`: a LazyLinear *is*
a Linear afterwards, type and repr included), as torch's lazy modules do. Run one batch
through a model before making its optimizer, which must see the real parameters.

Loading a state dict into a lazy layer materializes it with the loaded shapes instead.
minigrad's own `Dense` (keras.py) is the Keras-style lazy Linear (it stays a Dense).
"""

import numpy as np

from minigrad.autograd.grad_mode import no_grad
from minigrad.creation import from_numpy
from minigrad.nn.conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d
from minigrad.nn.linear import Linear
from minigrad.nn.normalization import (
    BatchNorm1d,
    BatchNorm2d,
    BatchNorm3d,
    InstanceNorm1d,
    InstanceNorm2d,
    InstanceNorm3d,
)
from minigrad.nn.parameter import (
    UninitializedBuffer,
    UninitializedParameter,
    UninitializedTensorMixin,
)


def _infer_parameters(module, args):
    """The forward pre-hook of a lazy layer: initialise from the input, then become the
    ordinary layer and remove this hook."""
    module.initialize_parameters(*args)
    if module.has_uninitialized_params():
        raise RuntimeError(f"module {module._get_name()} has not been fully initialized")
    module._initialize_hook.remove()
    del module._initialize_hook
    if module.cls_to_become is not None:
        module.__class__ = module.cls_to_become


class LazyModuleMixin:
    """What every lazy layer shares: the hook that initialises it at the first call,
    `has_uninitialized_params()`, and the materialization on load_state_dict. A subclass
    defines `initialize_parameters(input)` and `_sizes_from_parameters()` (the sizes to
    record when a state dict, not an input, gave the shapes)."""

    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._initialize_hook = self.register_forward_pre_hook(_infer_parameters)

    def has_uninitialized_params(self):
        """True while a parameter or buffer of this layer is still uninitialized."""
        tensors = list(self._parameters.values()) + list(self._buffers.values())
        return any(isinstance(t, UninitializedTensorMixin) for t in tensors)

    def _load_from_state_dict(self, state_dict, prefix, *args):
        materialized = False
        for name, t in list(self._parameters.items()) + list(self._buffers.items()):
            key = prefix + name
            if isinstance(t, UninitializedTensorMixin) and key in state_dict:
                value = state_dict[key]
                t.materialize(np.shape(getattr(value, "array", value)))
                materialized = True
        if materialized and not self.has_uninitialized_params():
            self._sizes_from_parameters()
        super()._load_from_state_dict(state_dict, prefix, *args)


# ---- linear -----------------------------------------------------------------------------------
class LazyLinear(LazyModuleMixin, Linear):
    """A Linear whose in_features is the last dim of its first input; then a Linear."""

    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        super().__init__(0, 0, False, device=device, dtype=dtype)
        self.weight = UninitializedParameter(dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(dtype=dtype)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        """in_features = input.shape[-1]; W (out, in) and b (out,), initialised as Linear's."""
        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()

    def _sizes_from_parameters(self):
        self.in_features = self.weight.shape[1]


# ---- convolution --------------------------------------------------------------------------------
class _LazyConvNd(LazyModuleMixin):
    """in_channels from the first input: dim 1 of a batched input, 0 of an unbatched one."""

    def _make_uninitialized(self, bias, dtype):
        self.weight = UninitializedParameter(dtype=dtype)
        self.out_channels = self._lazy_out_channels
        if bias:
            self.bias = UninitializedParameter(dtype=dtype)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        """in_channels from the input; the weight and bias shaped and initialised as the
        ordinary layer's."""
        if not self.has_uninitialized_params():
            return
        n = self._dims
        if input.ndim not in (n + 1, n + 2):
            raise RuntimeError(
                f"{type(self).__name__}: Expected {n + 1}D (unbatched) or {n + 2}D (batched) input "
                f"to {self.cls_to_become.__name__}, but got input of size: {list(input.shape)}"
            )
        self.in_channels = input.shape[1] if input.ndim == n + 2 else input.shape[0]
        if self.in_channels % self.groups:
            raise ValueError(f"{type(self).__name__}: in_channels must be divisible by groups")
        if self.transposed:
            shape = (self.in_channels, self.out_channels // self.groups, *self.kernel_size)
        else:
            shape = (self.out_channels, self.in_channels // self.groups, *self.kernel_size)
        with no_grad():
            self.weight.materialize(shape)
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()

    def _sizes_from_parameters(self):
        w = self.weight.shape
        self.in_channels = w[0] if self.transposed else w[1] * self.groups


class LazyConv1d(_LazyConvNd, Conv1d):
    """A Conv1d whose in_channels is read from its first input; then a Conv1d."""

    cls_to_become = Conv1d

    def __init__(
        self,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        dilation=1,
        groups=1,
        bias=True,
        padding_mode="zeros",
        device=None,
        dtype=None,
    ):
        self._lazy_out_channels = out_channels
        super().__init__(
            0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode, device, dtype
        )
        self._make_uninitialized(bias, dtype)


class LazyConv2d(_LazyConvNd, Conv2d):
    """A Conv2d whose in_channels is read from its first input; then a Conv2d."""

    cls_to_become = Conv2d

    def __init__(
        self,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        dilation=1,
        groups=1,
        bias=True,
        padding_mode="zeros",
        device=None,
        dtype=None,
    ):
        self._lazy_out_channels = out_channels
        super().__init__(
            0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode, device, dtype
        )
        self._make_uninitialized(bias, dtype)


class LazyConv3d(_LazyConvNd, Conv3d):
    """A Conv3d whose in_channels is read from its first input; then a Conv3d."""

    cls_to_become = Conv3d

    def __init__(
        self,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        dilation=1,
        groups=1,
        bias=True,
        padding_mode="zeros",
        device=None,
        dtype=None,
    ):
        self._lazy_out_channels = out_channels
        super().__init__(
            0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode, device, dtype
        )
        self._make_uninitialized(bias, dtype)


class LazyConvTranspose1d(_LazyConvNd, ConvTranspose1d):
    """A ConvTranspose1d whose in_channels is read from its first input; then a ConvTranspose1d."""

    cls_to_become = ConvTranspose1d

    def __init__(
        self,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        output_padding=0,
        groups=1,
        bias=True,
        dilation=1,
        padding_mode="zeros",
        device=None,
        dtype=None,
    ):
        self._lazy_out_channels = out_channels
        super().__init__(
            0,
            0,
            kernel_size,
            stride,
            padding,
            output_padding,
            groups,
            False,
            dilation,
            padding_mode,
            device,
            dtype,
        )
        self._make_uninitialized(bias, dtype)


class LazyConvTranspose2d(_LazyConvNd, ConvTranspose2d):
    """A ConvTranspose2d whose in_channels is read from its first input; then a ConvTranspose2d."""

    cls_to_become = ConvTranspose2d

    def __init__(
        self,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        output_padding=0,
        groups=1,
        bias=True,
        dilation=1,
        padding_mode="zeros",
        device=None,
        dtype=None,
    ):
        self._lazy_out_channels = out_channels
        super().__init__(
            0,
            0,
            kernel_size,
            stride,
            padding,
            output_padding,
            groups,
            False,
            dilation,
            padding_mode,
            device,
            dtype,
        )
        self._make_uninitialized(bias, dtype)


# ---- normalization -------------------------------------------------------------------------------
class _LazyNormBase(LazyModuleMixin):
    """num_features from the first input's channels; weight, bias and the running
    statistics uninitialized until then (num_batches_tracked is a plain counter)."""

    def __init__(
        self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None
    ):
        super().__init__(0, eps, momentum, False, False, device, dtype)
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            self.weight = UninitializedParameter(dtype=dtype)
            self.bias = UninitializedParameter(dtype=dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(dtype=dtype)
            self.running_var = UninitializedBuffer(dtype=dtype)
            self.num_batches_tracked = from_numpy(np.array(0, dtype=np.int64))

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def _channel_dim(self, input):
        return 1

    def initialize_parameters(self, input):
        """num_features = the input's channels; weight 1, bias 0, running mean 0 and var 1."""
        if not self.has_uninitialized_params():
            return
        self.num_features = input.shape[self._channel_dim(input)]
        with no_grad():
            for t in (self.weight, self.bias, self.running_mean, self.running_var):
                if isinstance(t, UninitializedTensorMixin):
                    t.materialize((self.num_features,))
            self.reset_parameters()

    def _sizes_from_parameters(self):
        stats = self.weight if self.weight is not None else self.running_mean
        self.num_features = stats.shape[0]


class LazyBatchNorm1d(_LazyNormBase, BatchNorm1d):
    """A BatchNorm1d whose num_features is read from its first input; then a BatchNorm1d."""

    cls_to_become = BatchNorm1d


class LazyBatchNorm2d(_LazyNormBase, BatchNorm2d):
    """A BatchNorm2d whose num_features is read from its first input; then a BatchNorm2d."""

    cls_to_become = BatchNorm2d


class LazyBatchNorm3d(_LazyNormBase, BatchNorm3d):
    """A BatchNorm3d whose num_features is read from its first input; then a BatchNorm3d."""

    cls_to_become = BatchNorm3d


class _LazyInstanceNorm(_LazyNormBase):
    def _channel_dim(self, input):
        # an unbatched input has its channels first
        return 0 if input.ndim == self.expected_dims[0] else 1


class LazyInstanceNorm1d(_LazyInstanceNorm, InstanceNorm1d):
    """An InstanceNorm1d whose num_features is read from its first input (note torch's
    defaults here: affine=True, track_running_stats=True); then an InstanceNorm1d."""

    cls_to_become = InstanceNorm1d


class LazyInstanceNorm2d(_LazyInstanceNorm, InstanceNorm2d):
    """An InstanceNorm2d whose num_features is read from its first input (affine=True and
    track_running_stats=True by default, as torch's); then an InstanceNorm2d."""

    cls_to_become = InstanceNorm2d


class LazyInstanceNorm3d(_LazyInstanceNorm, InstanceNorm3d):
    """An InstanceNorm3d whose num_features is read from its first input (affine=True and
    track_running_stats=True by default, as torch's); then an InstanceNorm3d."""

    cls_to_become = InstanceNorm3d
