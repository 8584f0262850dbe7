"""Pooling layers: MaxPool1d/2d, AvgPool1d/2d, AdaptiveAvgPool2d and GlobalAvgPool2d.

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
    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
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
            input, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode, self.return_indices
        )


class MaxPool2d(_MaxPoolNd):
    """The largest value of each kh x kw window of (N, C, H, W) or (C, H, W); with
    return_indices=True, also where it was (flat index h * W + w in its plane)."""

    def forward(self, input):
        return F.max_pool2d(
            input, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode, self.return_indices
        )


def _single(value):
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


class _AvgPoolNd(Module):
    _stored = staticmethod(_setting)  # how a window setting is kept (and printed)

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
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
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad)


class AvgPool2d(_AvgPoolNd):
    """The mean of each kh x kw window of (N, C, H, W) or (C, H, W); see
    `F.avg_pool2d` for the divisor at the borders."""

    def __init__(
        self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None
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


# Keras spells them with a capital D
MaxPool2D = MaxPool2d
AvgPool2D = AvgPool2d
GlobalAvgPool2D = GlobalAvgPool2d
