"""Pooling layers: MaxPool1d/2d/3d, AvgPool1d/2d/3d, the adaptive poolings
(AdaptiveAvgPool1d/2d/3d, AdaptiveMaxPool1d/2d/3d), GlobalAvgPool2d, LPPool1d/2d/3d, and
MaxUnpool1d/2d/3d.

They hold no parameters, only the window settings, and call the functional forms of
`minigrad/nn/functional/pool.py` (`F.max_pool2d`, ...), which check the settings at
each call, as PyTorch's do. Constructor arguments, the attributes they are stored in and
`repr` are PyTorch's.
"""

from minigrad.nn import functional as F
from minigrad.nn.module import Module


def _setting(value):
    """A window setting as given (an int or a tuple). A list, as a config read back
    from JSON holds, becomes a tuple, so the layer prints as it did when made."""
    return tuple(value) if isinstance(value, list) else value


class _MaxPoolNd(Module):
    def __init__(
        self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False
    ):
        super().__init__()
        self.kernel_size = _setting(kernel_size)
        self.stride = _setting(stride if stride is not None else kernel_size)
        self.padding = _setting(padding)
        self.dilation = _setting(dilation)
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def extra_repr(self):
        return (
            f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
            f"dilation={self.dilation}, ceil_mode={self.ceil_mode}"
        )


class MaxPool1d(_MaxPoolNd):
    """The largest value of each window of `kernel_size` along the last axis of
    (N, C, L) or (C, L); with return_indices=True, also where it was."""

    def forward(self, input):
        return F.max_pool1d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.dilation,
            self.ceil_mode,
            self.return_indices,
        )


class MaxPool2d(_MaxPoolNd):
    """The largest value of each kh x kw window of (N, C, H, W) or (C, H, W); with
    return_indices=True, also where it was (flat index h * W + w in its plane)."""

    def forward(self, input):
        return F.max_pool2d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.dilation,
            self.ceil_mode,
            self.return_indices,
        )


def _single(value):
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


class _AvgPoolNd(Module):
    _stored = staticmethod(_setting)  # how a window setting is kept (and printed)

    def __init__(
        self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True
    ):
        super().__init__()
        self.kernel_size = self._stored(kernel_size)
        self.stride = self._stored(stride if stride is not None else kernel_size)
        self.padding = self._stored(padding)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool1d(_AvgPoolNd):
    """The mean of each window of `kernel_size` along the last axis of (N, C, L) or (C, L).
    As in PyTorch, the settings are stored as 1-tuples."""

    _stored = staticmethod(_single)

    def forward(self, input):
        return F.avg_pool1d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
        )


class AvgPool2d(_AvgPoolNd):
    """The mean of each kh x kw window of (N, C, H, W) or (C, H, W); see
    `F.avg_pool2d` for the divisor at the borders."""

    def __init__(
        self,
        kernel_size,
        stride=None,
        padding=0,
        ceil_mode=False,
        count_include_pad=True,
        divisor_override=None,
    ):
        super().__init__(kernel_size, stride, padding, ceil_mode, count_include_pad)
        self.divisor_override = divisor_override

    def forward(self, input):
        return F.avg_pool2d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
            self.divisor_override,
        )


class AdaptiveAvgPool2d(Module):
    """Average pooling whose windows are chosen to give an output of `output_size`
    (an int, or a pair in which None keeps that input size), whatever the input size."""

    def __init__(self, output_size):
        super().__init__()
        self.output_size = _setting(output_size)

    def forward(self, input):
        return F.adaptive_avg_pool2d(input, self.output_size)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class GlobalAvgPool2d(Module):
    """The mean of each channel over all its positions: (N, C, H, W) -> (N, C, 1, 1)
    (and (C, H, W) -> (C, 1, 1)). The same as AdaptiveAvgPool2d(1); the usual last
    step of a convolutional network before its classifier."""

    def forward(self, input):
        return F.adaptive_avg_pool2d(input, 1)


class AdaptiveAvgPool1d(Module):
    """Average pooling of (N, C, L) or (C, L) whose windows are chosen to give length
    `output_size`, whatever the input length."""

    def __init__(self, output_size):
        super().__init__()
        self.output_size = _setting(output_size)

    def forward(self, input):
        return F.adaptive_avg_pool1d(input, self.output_size)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class _AdaptiveMaxPoolNd(Module):
    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size = _setting(output_size)
        self.return_indices = return_indices

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """The largest value of each adaptive window of (N, C, L) or (C, L), the windows chosen
    to give length `output_size`; with return_indices=True, also where it was."""

    def forward(self, input):
        return F.adaptive_max_pool1d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """The largest value of each adaptive window of (N, C, H, W) or (C, H, W), the windows
    chosen to give `output_size` (an int, or a pair in which None keeps that input size);
    with return_indices=True, also where it was (flat index h * W + w in its plane)."""

    def forward(self, input):
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)


class _LPPoolNd(Module):
    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size, self.stride = _setting(kernel_size), _setting(stride)
        self.ceil_mode = ceil_mode

    def extra_repr(self):
        return (
            f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, stride={self.stride}, "
            f"ceil_mode={self.ceil_mode}"
        )


class LPPool1d(_LPPoolNd):
    """The p-norm (sum of x^p)^(1/p) of each window along the last axis of (N, C, L) or
    (C, L), p = norm_type."""

    def forward(self, input):
        return F.lp_pool1d(input, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)


class LPPool2d(_LPPoolNd):
    """The p-norm (sum of x^p)^(1/p) of each kh x kw window of (N, C, H, W) or (C, H, W),
    p = norm_type: 1 is sum pooling, large p approaches max pooling."""

    def forward(self, input):
        return F.lp_pool2d(input, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)


def _pair(value):
    return tuple(value) if isinstance(value, (tuple, list)) else (value, value)


class MaxUnpool1d(Module):
    """The inverse of MaxPool1d: zeros, with each value put back at the position its
    index says (forward(input, indices, output_size=None)). Settings are stored as 1-tuples."""

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)

    def forward(self, input, indices, output_size=None):
        return F.max_unpool1d(
            input, indices, self.kernel_size, self.stride, self.padding, output_size
        )

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool2d(MaxUnpool1d):
    """The inverse of MaxPool2d: zeros of the pooled-from size, with each value put back at
    the flat position h * W + w its index says (forward(input, indices, output_size=None)).
    Settings are stored as pairs."""

    def __init__(self, kernel_size, stride=None, padding=0):
        Module.__init__(self)
        self.kernel_size = _pair(kernel_size)
        self.stride = _pair(stride if stride is not None else kernel_size)
        self.padding = _pair(padding)

    def forward(self, input, indices, output_size=None):
        return F.max_unpool2d(
            input, indices, self.kernel_size, self.stride, self.padding, output_size
        )


# ---- over volumes (F in minigrad/nn/functional/pool3d.py) ----------------------------------------
class MaxPool3d(_MaxPoolNd):
    """The largest value of each kd x kh x kw window of (N, C, D, H, W) or (C, D, H, W); with
    return_indices=True, also where it was (flat index d H W + h W + w in its volume)."""

    def forward(self, input):
        return F.max_pool3d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.dilation,
            self.ceil_mode,
            self.return_indices,
        )


class AvgPool3d(AvgPool2d):
    """The mean of each kd x kh x kw window of (N, C, D, H, W) or (C, D, H, W)."""

    def forward(self, input):
        return F.avg_pool3d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
            self.divisor_override,
        )


class AdaptiveAvgPool3d(AdaptiveAvgPool2d):
    """Average pooling of volumes with windows chosen to give `output_size` (an int, or a
    triple in which None keeps that input size)."""

    def forward(self, input):
        return F.adaptive_avg_pool3d(input, self.output_size)


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    """The largest value of each adaptive window of a volume; with return_indices=True,
    also its flat index d H W + h W + w."""

    def forward(self, input):
        return F.adaptive_max_pool3d(input, self.output_size, self.return_indices)


class LPPool3d(_LPPoolNd):
    """The p-norm (sum of x^p)^(1/p) of each kd x kh x kw window, p = norm_type."""

    def forward(self, input):
        return F.lp_pool3d(input, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)


def _triple(value):
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * 3


class MaxUnpool3d(MaxUnpool1d):
    """The inverse of MaxPool3d (forward(input, indices, output_size=None)). Settings are
    stored as triples."""

    def __init__(self, kernel_size, stride=None, padding=0):
        Module.__init__(self)
        self.kernel_size = _triple(kernel_size)
        self.stride = _triple(stride if stride is not None else kernel_size)
        self.padding = _triple(padding)

    def forward(self, input, indices, output_size=None):
        return F.max_unpool3d(
            input, indices, self.kernel_size, self.stride, self.padding, output_size
        )
