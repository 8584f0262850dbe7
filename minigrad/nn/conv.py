"""Convolution layers: Conv1d, Conv2d, Conv3d, ConvTranspose1d and ConvTranspose2d.

Each holds a weight of PyTorch's shape and a bias (out_channels,):

    Conv1d / 2d / 3d:  weight (out_channels, in_channels / groups, *kernel_size)
    ConvTranspose1d/2d: weight (in_channels, out_channels / groups, *kernel_size)

and initialises them as PyTorch does: kaiming_uniform_(weight, a=sqrt(5)), which works
out to U(-1/sqrt(fan_in), 1/sqrt(fan_in)), and the bias from the same range, with
fan_in = weight.shape[1] * kernel size. Attribute names, `repr` and state-dict keys
are PyTorch's, so PyTorch weights load unchanged. A layer checks only what shapes its
parameters and its settings (channels, groups, kernel size, padding, padding_mode); the
rest of the checking is `F.conv2d`'s (`minigrad/nn/functional/conv.py`), and the math is
in `minigrad/ops/conv.py`.

Each layer takes PyTorch's factory keywords `device` ('cpu', or 'cuda' where there is a
GPU) and `dtype` (the parameters'). The keyword-only `initializer=` is Keras's, not
PyTorch's: keras.py says what it does (it is here because `nn.Conv2D` is this very class).
"""

import math

from minigrad._args import int_tuple
from minigrad.creation import empty
from minigrad.devices import check_device
from minigrad.nn import functional as F
from minigrad.nn import init, keras
from minigrad.nn.functional.conv import _resolve_padding, _transposed_output_size
from minigrad.nn.module import Module
from minigrad.nn.parameter import Parameter

_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


class _ConvNd(Module):
    """What the three layers share: checking the arguments, the parameters, their
    initialisation and the repr. Conv1d and Conv2d take this constructor as it is (it
    has PyTorch's signature); `transposed` layers store the weight (in, out/groups, ...)."""

    _dims = 2
    transposed = False

    def __init__(
        self,
        in_channels,
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
        *,
        initializer=None,
    ):
        super().__init__()
        name, n = type(self).__name__, self._dims
        check_device(device, name)
        self._weight_init = keras.resolve_initializer(initializer, name)  # Keras's keyword
        if groups <= 0:
            raise ValueError(f"{name}: groups must be a positive integer, got {groups}")
        if in_channels % groups:
            raise ValueError(
                f"{name}: in_channels ({in_channels}) must be divisible by groups ({groups})"
            )
        if out_channels % groups:
            raise ValueError(
                f"{name}: out_channels ({out_channels}) must be divisible by groups ({groups})"
            )
        if padding_mode not in _PADDING_MODES:
            raise ValueError(
                f"{name}: padding_mode must be one of {list(_PADDING_MODES)}, got {padding_mode!r}"
            )
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = int_tuple(kernel_size, n, "kernel_size", name)
        self.stride = int_tuple(stride, n, "stride", name)
        self.dilation = int_tuple(dilation, n, "dilation", name)
        # F.conv2d's own reading of padding: checks 'same' and 'valid' now, as PyTorch's
        # layers do, and gives the amounts (per dim, and 'same''s extra zero at the end)
        amounts, extra = _resolve_padding(
            padding, self.kernel_size, self.stride, self.dilation, name
        )
        self.padding = padding if isinstance(padding, str) else amounts
        self.output_padding = (0,) * n  # a transposed layer's own setting
        self.groups = groups
        self.padding_mode = padding_mode
        # what F.pad needs for a padding_mode other than zeros: (left, right) per dim,
        # last dim first, as F.pad takes them
        self._reversed_padding_repeated_twice = tuple(
            side for p, e in reversed(list(zip(amounts, extra))) for side in (p, p + e)
        )
        if self.transposed:
            shape = (in_channels, out_channels // groups, *self.kernel_size)
        else:
            shape = (out_channels, in_channels // groups, *self.kernel_size)
        self.weight = Parameter(empty(*shape, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_channels, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        """PyTorch's default: W ~ kaiming_uniform_(a=sqrt(5)) = U(+-1/sqrt(fan_in)), and b
        from the same range."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)
        keras.initialize_weight(self)  # initializer= (Keras's), if given, replaces the default W

    def extra_repr(self):
        n = self._dims
        s = (
            f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
            f"stride={self.stride}"
        )
        if self.padding != (0,) * n:
            s += f", padding={self.padding}"
        if self.dilation != (1,) * n:
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * n:
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s

    def _padded(self, input):
        """(input, padding) for F: with a padding_mode other than zeros, the input padded
        by F.pad in that mode, to be convolved without padding."""
        if self.padding_mode == "zeros":
            return input, self.padding
        return F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode), 0


class Conv2d(_ConvNd):
    """2-d convolution layer: y = conv2d(x, W) + b for x (N, C_in, H, W) or (C_in, H, W).

    W: (out_channels, in_channels / groups, kH, kW), b: (out_channels,).
    padding: an int, a pair, 'valid' or 'same'; padding_mode: 'zeros', 'reflect',
    'replicate' or 'circular' (what the border is filled with).
    """

    def forward(self, input):
        x, padding = self._padded(input)
        return F.conv2d(x, self.weight, self.bias, self.stride, padding, self.dilation, self.groups)


class Conv1d(_ConvNd):
    """1-d convolution layer: y = conv1d(x, W) + b for x (N, C_in, L) or (C_in, L).

    W: (out_channels, in_channels / groups, k), b: (out_channels,).
    """

    _dims = 1

    def forward(self, input):
        x, padding = self._padded(input)
        return F.conv1d(x, self.weight, self.bias, self.stride, padding, self.dilation, self.groups)


class Conv3d(_ConvNd):
    """3-d convolution layer: y = conv3d(x, W) + b for x (N, C_in, D, H, W) or (C_in, D, H, W).

    W: (out_channels, in_channels / groups, kD, kH, kW), b: (out_channels,). F.conv3d
    sums kD 2-d convolutions, one per depth tap, on the 2-d kernels.
    """

    _dims = 3

    def forward(self, input):
        x, padding = self._padded(input)
        return F.conv3d(x, self.weight, self.bias, self.stride, padding, self.dilation, self.groups)


class ConvTranspose2d(_ConvNd):
    """Transposed 2-d convolution layer (sometimes called "deconvolution"): the
    gradient of a Conv2d for its input, used as a layer to upsample.

    W: (in_channels, out_channels / groups, kH, kW), b: (out_channels,). The output
    is (H - 1) stride - 2 padding + dilation (k - 1) + output_padding + 1 high (and
    wide); `forward(input, output_size)` picks output_padding to reach output_size.
    """

    transposed = True

    def __init__(
        self,
        in_channels,
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
        *,
        initializer=None,
    ):
        name = type(self).__name__
        if padding_mode != "zeros":
            raise ValueError(
                f'{name}: only "zeros" padding mode is supported, got {padding_mode!r}'
            )
        if isinstance(padding, str):
            raise ValueError(f"{name}: padding must be an int or a tuple of ints, got {padding!r}")
        super().__init__(
            in_channels,
            out_channels,
            kernel_size,
            stride,
            padding,
            dilation,
            groups,
            bias,
            padding_mode,
            device,
            dtype,
            initializer=initializer,
        )
        self.output_padding = int_tuple(output_padding, self._dims, "output_padding", name)

    def forward(self, input, output_size=None):
        output_padding = self._output_padding(input, output_size)
        return F.conv_transpose2d(
            input,
            self.weight,
            self.bias,
            self.stride,
            self.padding,
            output_padding,
            self.groups,
            self.dilation,
        )

    def _output_padding(self, input, output_size):
        """output_padding from a requested output size: each size from the smallest one
        up to stride - 1 (or dilation - 1) more is reachable."""
        if output_size is None:
            return self.output_padding
        n, name = self._dims, type(self).__name__
        output_size = tuple(int(s) for s in output_size)[-n:]
        if len(output_size) != n:
            raise ValueError(
                f"{name}: output_size must have {n} or {n + 2} elements, got {output_size}"
            )
        padding = []
        for d in range(n):
            smallest = _transposed_output_size(
                input.shape[-n + d],
                self.kernel_size[d],
                self.stride[d],
                self.padding[d],
                self.dilation[d],
            )
            largest = smallest + max(self.stride[d], self.dilation[d]) - 1
            if not smallest <= output_size[d] <= largest:
                raise ValueError(
                    f"{name}: requested an output size of {output_size}, but valid sizes for an "
                    f"input of shape {input.shape} range from {smallest} to {largest} in dim {d}"
                )
            padding.append(output_size[d] - smallest)
        return tuple(padding)


class ConvTranspose1d(ConvTranspose2d):
    """Transposed 1-d convolution layer, for (N, C_in, L) or (C_in, L): the gradient of a
    Conv1d for its input. W: (in_channels, out_channels / groups, k), b: (out_channels,);
    the output is (L - 1) stride - 2 padding + dilation (k - 1) + output_padding + 1 long."""

    _dims = 1

    def forward(self, input, output_size=None):
        output_padding = self._output_padding(input, output_size)
        return F.conv_transpose1d(
            input,
            self.weight,
            self.bias,
            self.stride,
            self.padding,
            output_padding,
            self.groups,
            self.dilation,
        )
