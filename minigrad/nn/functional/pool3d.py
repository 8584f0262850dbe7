"""Pooling over volumes: F.avg_pool3d, F.max_pool3d, the adaptive forms, lp_pool3d and
max_unpool3d, for (N, C, D, H, W) or (C, D, H, W).

No kernels of their own: a box window is separable. The mean over a kd x kh x kw box is
the mean over depth of the means over its kh x kw planes, and its maximum is the
maximum over depth of the planes' maxima; the divisor of an average (the box's size, or
the number of its elements inside the input) is a product of one count per axis too. So
each 3-d pooling is two 2-d poolings of minigrad/nn/functional/pool.py:

    1. the (h, w) windows of every depth slice:  (N, C D, H, W) -> (N, C D, OH, OW)
    2. the depth windows, (kd, 1) windows of the (D, OH OW) plane: -> (N, C, OD, OH OW)

and their gradients are the two poolings' backward passes, composed. Max pooling's index
of a winner is its flat position d H W + h W + w in its (D, H, W) volume, as torch's:
stage 2 says which depth slice won, stage 1 where in that slice.
"""

import numbers

import numpy as np

from minigrad._args import batched, int_tuple
from minigrad.creation import from_numpy
from minigrad.nn.functional.pool import (
    _avg_pool,
    _check_divisor,
    _max_pool,
    _unpool_output_size,
    _window_args,
    adaptive_avg_pool2d,
    adaptive_max_pool2d,
)
from minigrad.ops.pool import MaxUnpool2d
from minigrad.tensor import Tensor


def _volumes(input, op):
    """(x as (N, C, D, H, W), whether a batch dim was added), floating point."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}: input must be a Tensor, got {type(input).__name__}")
    x, unbatched = batched(input, 4, op, layout="(C, D, H, W)")
    if x.dtype.kind != "f":
        raise TypeError(f"{op}: input must be floating point, got {input.dtype}")
    if 0 in x.shape[1:]:
        raise RuntimeError(
            f"{op}: expected non-zero channel and spatial sizes, got shape {tuple(input.shape)}"
        )
    return x, unbatched


def _done(y, unbatched):
    return y.squeeze(0) if unbatched else y


def avg_pool3d(
    input,
    kernel_size,
    stride=None,
    padding=0,
    ceil_mode=False,
    count_include_pad=True,
    divisor_override=None,
):
    """The mean of each kd x kh x kw window (see F.avg_pool2d for the divisor at the
    borders, here a product of one count per axis): the planes' window means, then the
    mean of those over the depth window."""
    op = "avg_pool3d"
    x, unbatched = _volumes(input, op)
    k, s, p, _ = _window_args(op, x.shape[2:], kernel_size, stride, padding, 1, ceil_mode)
    _check_divisor(divisor_override, op)
    N, C, D, H, W = x.shape
    # divisor_override divides the whole window's sum once: stage 1 sums (a divisor of 1)
    planes = _avg_pool(
        x.reshape(N, C * D, H, W),
        k[1:],
        s[1:],
        p[1:],
        ceil_mode,
        count_include_pad,
        1 if divisor_override else None,
    )
    OH, OW = planes.shape[2:]
    y = _avg_pool(
        planes.reshape(N, C, D, OH * OW),
        (k[0], 1),
        (s[0], 1),
        (p[0], 0),
        ceil_mode,
        count_include_pad,
        divisor_override,
    )
    return _done(y.reshape(N, C, y.shape[2], OH, OW), unbatched)


def _max_pool3d(x, k, s, p, d, ceil_mode):
    """(values, indices) for x (N, C, D, H, W) and checked window arguments."""
    N, C, D, H, W = x.shape
    planes, plane_indices = _max_pool(
        x.reshape(N, C * D, H, W), k[1:], s[1:], p[1:], d[1:], ceil_mode
    )
    OH, OW = planes.shape[2:]
    y, depth_indices = _max_pool(
        planes.reshape(N, C, D, OH * OW), (k[0], 1), (s[0], 1), (p[0], 0), (d[0], 1), ceil_mode
    )
    # stage 2's index is depth * (OH OW) + q: its quotient is the winning slice, where
    # stage 1's index (h W + w) says where the maximum was
    depth = depth_indices.array // (OH * OW)
    in_plane = np.take_along_axis(plane_indices.array.reshape(N, C, D, OH * OW), depth, axis=2)
    indices = depth * (H * W) + in_plane
    OD = y.shape[2]
    return y.reshape(N, C, OD, OH, OW), from_numpy(indices.reshape(N, C, OD, OH, OW))


def max_pool3d(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    """The largest element of each kd x kh x kw window (padding -inf; the rules of
    F.max_pool2d per axis); with return_indices=True, also its flat index d H W + h W + w
    in its volume. The planes' window maxima, then the maximum of those over depth."""
    op = "max_pool3d"
    x, unbatched = _volumes(input, op)
    k, s, p, d = _window_args(op, x.shape[2:], kernel_size, stride, padding, dilation, ceil_mode)
    y, indices = _max_pool3d(x, k, s, p, d, ceil_mode)
    y, indices = _done(y, unbatched), _done(indices, unbatched)
    return (y, indices) if return_indices else y


def max_pool3d_with_indices(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    """max_pool3d returning (values, indices) whatever return_indices says, as torch's."""
    return max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices=True)


def _adaptive_size3(output_size, input_dhw, op):
    """output_size as (OD, OH, OW): an int for all three, or a triple whose None entries
    keep the input's size."""
    if isinstance(output_size, numbers.Integral) and not isinstance(output_size, bool):
        return (int(output_size),) * 3
    if isinstance(output_size, (tuple, list)) and len(output_size) == 3:
        sizes = tuple(size if s is None else s for s, size in zip(output_size, input_dhw))
        if all(
            isinstance(s, numbers.Integral) and not isinstance(s, bool) and s >= 0 for s in sizes
        ):
            return tuple(int(s) for s in sizes)
    raise TypeError(
        f"{op}: output_size must be an int or a triple of ints (or None), got {output_size!r}"
    )


def adaptive_avg_pool3d(input, output_size):
    """Average over windows chosen to give `output_size` (OD, OH, OW) (see
    F.adaptive_avg_pool2d): the planes' adaptive means, then adaptive means over depth."""
    op = "adaptive_avg_pool3d"
    x, unbatched = _volumes(input, op)
    N, C, D, H, W = x.shape
    OD, OH, OW = _adaptive_size3(output_size, (D, H, W), op)
    planes = adaptive_avg_pool2d(x.reshape(N, C * D, H, W), (OH, OW))
    y = adaptive_avg_pool2d(planes.reshape(N, C, D, OH * OW), (OD, OH * OW))
    return _done(y.reshape(N, C, OD, OH, OW), unbatched)


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """The largest element of each adaptive window (see F.adaptive_max_pool2d); with
    return_indices=True, also its flat index d H W + h W + w in its volume."""
    op = "adaptive_max_pool3d"
    x, unbatched = _volumes(input, op)
    N, C, D, H, W = x.shape
    OD, OH, OW = _adaptive_size3(output_size, (D, H, W), op)
    planes, plane_indices = adaptive_max_pool2d(
        x.reshape(N, C * D, H, W), (OH, OW), return_indices=True
    )
    y, depth_indices = adaptive_max_pool2d(
        planes.reshape(N, C, D, OH * OW), (OD, OH * OW), return_indices=True
    )
    depth = depth_indices.array // (OH * OW)
    in_plane = np.take_along_axis(plane_indices.array.reshape(N, C, D, OH * OW), depth, axis=2)
    y = _done(y.reshape(N, C, OD, OH, OW), unbatched)
    indices = _done(from_numpy((depth * (H * W) + in_plane).reshape(N, C, OD, OH, OW)), unbatched)
    return (y, indices) if return_indices else y


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    """adaptive_max_pool3d returning (values, indices), as torch's."""
    return adaptive_max_pool3d(input, output_size, return_indices=True)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """The p-norm (sum of x^p)^(1/p) of each kd x kh x kw window, computed as torch does
    (see F.lp_pool2d)."""
    kd, kh, kw = int_tuple(kernel_size, 3, "kernel_size", "lp_pool3d")
    out = avg_pool3d(input**norm_type, kernel_size, stride, 0, ceil_mode)
    return (out.sign() * out.abs().relu() * (kd * kh * kw)) ** (1.0 / norm_type)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of max_pool3d: zeros of the pooled-from size (or output_size), each
    value put back at its flat index d H W + h W + w (see F.max_unpool2d)."""
    op = "max_unpool3d"
    k = int_tuple(kernel_size, 3, "kernel_size", op)
    s = k if stride is None else int_tuple(stride, 3, "stride", op)
    p = int_tuple(padding, 3, "padding", op)
    if indices.dtype != np.int64:
        raise RuntimeError(
            f"{op}: elements in indices should be type int64 but got: {indices.dtype}"
        )
    if indices.shape != input.shape:
        raise RuntimeError(
            f"{op}: Expected shape of indices to be same as that of the input tensor "
            f"({list(input.shape)}) but got indices tensor with shape: {list(indices.shape)}"
        )
    x, unbatched = _volumes(input, op)
    N, C = x.shape[:2]
    OD, OH, OW = _unpool_output_size(x.shape[2:], k, s, p, output_size, op)
    index = indices.array.reshape(N, C, 1, -1)
    bad = (index < 0) | (index >= OD * OH * OW)
    if bad.any():
        raise RuntimeError(
            f"{op}: Found an invalid max index: {int(index[bad][0])} (output volumes are of size "
            f"{OD}x{OH}x{OW})"
        )
    # one flat row per volume: the 2-d unpooling's plane index h W + w is then d H W + h W + w
    y = MaxUnpool2d.apply(x.reshape(N, C, 1, -1), indices=index, out_shape=(N, C, 1, OD * OH * OW))
    return _done(y.reshape(N, C, OD, OH, OW), unbatched)
