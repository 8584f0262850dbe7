"""Padding layers: F.pad as a Module, one per mode and number of padded dims.

`ZeroPad2d(padding)` pads the last two dims of its input with zeros; `padding` is an int
(the same amount on every side) or a tuple (left, right, top, bottom) for 2d, (left,
right) for 1d, (left, right, top, bottom, front, back) for 3d: the last dim first, as
F.pad reads it. The modes:

- constant (`ConstantPad*d(padding, value)`, `ZeroPad*d`): the new border holds `value`;
- reflection: the border mirrors the input without repeating its edge
  (1 2 3 -> 3 2 | 1 2 3 | 2 1), so each amount must be smaller than that dim's size;
- replication: the edge element is repeated (1 1 | 1 2 3 | 3 3);
- circular: the input wraps around (2 3 | 1 2 3 | 1 2), as for a periodic signal.

They hold no parameters; the work, and the gradients (the slice over the input for
constant padding, a scatter-add for the others), are F.pad's
(`minigrad/nn/functional/shape.py`). As torch's, the non-constant layers take a batched
or unbatched input only: (N, C, W) or (C, W) for 1d, and so on.
"""

import numbers

from minigrad.nn import functional as F
from minigrad.nn.module import Module


def _amounts(padding, dims, layer):
    """padding as a tuple of 2 * dims ints: an int repeated, or a tuple of that length."""
    if isinstance(padding, numbers.Integral) and not isinstance(padding, bool):
        return (int(padding),) * (2 * dims)
    padding = tuple(padding)
    if len(padding) != 2 * dims or not all(isinstance(p, numbers.Integral) for p in padding):
        raise ValueError(
            f"{layer}: padding must be an int or a tuple of {2 * dims} ints, got {padding!r}"
        )
    return tuple(int(p) for p in padding)


class _PadNd(Module):
    mode = "constant"
    dims = 1

    def __init__(self, padding):
        super().__init__()
        self.padding = _amounts(padding, self.dims, type(self).__name__)

    def forward(self, input):
        if self.mode != "constant" and input.ndim not in (self.dims + 1, self.dims + 2):
            layout = "(N, C, " + ", ".join("DHW"[3 - self.dims :]) + ")"
            # torch's exception types: F.pad's NotImplementedError, the circular layers' ValueError
            error = ValueError if self.mode == "circular" else NotImplementedError
            raise error(
                f"{type(self).__name__}: expected {self.dims + 1}D (unbatched) or {self.dims + 2}D "
                f"{layout} input, got {input.ndim}D input of shape {tuple(input.shape)}"
            )
        return F.pad(input, self.padding, self.mode)

    def extra_repr(self):
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding, value):
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pad the last dim with `value`: padding = int or (left, right)."""

    dims = 1


class ConstantPad2d(_ConstantPadNd):
    """Pad the last two dims with `value`: padding = int or (left, right, top, bottom)."""

    dims = 2


class ConstantPad3d(_ConstantPadNd):
    """Pad the last three dims with `value`: padding = int or (left, right, top, bottom, front,
    back)."""

    dims = 3


class ZeroPad1d(ConstantPad1d):
    """Pad the last dim with zeros: padding = int or (left, right)."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    """Pad the last two dims with zeros: padding = int or (left, right, top, bottom)."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    """Pad the last three dims with zeros: padding = int or (left, right, top, bottom, front,
    back)."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ReflectionPad1d(_PadNd):
    """Mirror the last dim at its ends, without repeating the edge (each amount < its size)."""

    mode, dims = "reflect", 1


class ReflectionPad2d(_PadNd):
    """Mirror the last two dims at their ends, without repeating the edges."""

    mode, dims = "reflect", 2


class ReflectionPad3d(_PadNd):
    """Mirror the last three dims at their ends, without repeating the edges."""

    mode, dims = "reflect", 3


class ReplicationPad1d(_PadNd):
    """Repeat the edge elements of the last dim."""

    mode, dims = "replicate", 1


class ReplicationPad2d(_PadNd):
    """Repeat the edge elements of the last two dims."""

    mode, dims = "replicate", 2


class ReplicationPad3d(_PadNd):
    """Repeat the edge elements of the last three dims."""

    mode, dims = "replicate", 3


class CircularPad1d(_PadNd):
    """Wrap the last dim around: the left border is the input's end (each amount <= its size)."""

    mode, dims = "circular", 1


class CircularPad2d(_PadNd):
    """Wrap the last two dims around, as a periodic (toroidal) image."""

    mode, dims = "circular", 2


class CircularPad3d(_PadNd):
    """Wrap the last three dims around."""

    mode, dims = "circular", 3
