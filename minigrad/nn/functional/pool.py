"""Pooling as functions: F.max_pool1d/2d, F.avg_pool1d/2d, the adaptive poolings, the
power-average poolings lp_pool1d/2d, and max pooling's inverse, max_unpool1d/2d.

torch.nn.functional's signatures and argument checks. Each function checks its
arguments as PyTorch does, turns 1-d and unbatched inputs into a batch of (N, C, H, W)
planes, and applies the Functions of `minigrad/ops/pool.py`, which run the kernels.
The rules shared with convolution (int tuples, the batch dim, the output size of a
window) come from `minigrad/_args.py`.
"""

import math

import numpy as np

from minigrad._args import batched, int_tuple, window_output_size
from minigrad.array_module import array_module
from minigrad.creation import from_numpy
from minigrad.ops.pool import AvgPool2d, GatherPlanes, MaxPool2d, MaxUnpool2d
from minigrad.tensor import Tensor


# --8<-- [start:max_pool2d]
def max_pool2d(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    """The largest element of each kh x kw window of x (N, C, H, W) or (C, H, W).

    stride defaults to kernel_size; the input is padded with -inf on each side
    (padding may be at most half the kernel size); the window's elements are dilation
    apart; ceil_mode adds a last, partial window where floor mode would drop the
    leftover. return_indices=True also returns the flat position h * W + w of each
    max in its input plane (int64), as PyTorch does.
    """
    op = "max_pool2d"
    x, unbatched = _checked_input(input, 2, op)
    kernel_size, stride, padding, dilation = _window_args(
        op, x.shape[2:], kernel_size, stride, padding, dilation, ceil_mode
    )
    y, indices = _max_pool(x, kernel_size, stride, padding, dilation, ceil_mode)
    if unbatched:
        y, indices = y.squeeze(0), indices.squeeze(0)
    return (y, indices) if return_indices else y


def _max_pool(x, kernel_size, stride, padding, dilation, ceil_mode):
    """(values, indices) as Tensors, for x (N, C, H, W) and checked arguments."""
    window = dict(
        kernel_size=kernel_size,
        stride=stride,
        padding=padding,
        dilation=dilation,
        ceil_mode=bool(ceil_mode),
    )
    found = []  # MaxPool2d puts the kernel's indices here: they are not an output of the graph
    y = MaxPool2d.apply(_compute_dtype(x), **window, indices_out=found)
    return y.to(x.dtype), from_numpy(found[0])
    # --8<-- [end:max_pool2d]


def max_pool1d(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    """max_pool2d along the last axis of x (N, C, L) or (C, L): a 1 x k window."""
    op = "max_pool1d"
    x, unbatched = _checked_input(input, 1, op)
    kernel_size, stride, padding, dilation = _window_args(
        op, x.shape[2:], kernel_size, stride, padding, dilation, ceil_mode
    )
    # (N, C, L) is (N, C, 1, L): one row, and a window one row high
    y, indices = _max_pool(
        x.unsqueeze(2),
        (1,) + kernel_size,
        (1,) + stride,
        (0,) + padding,
        (1,) + dilation,
        ceil_mode,
    )
    y, indices = y.squeeze(2), indices.squeeze(2)  # h = 0, so the flat index h * L + w is w
    if unbatched:
        y, indices = y.squeeze(0), indices.squeeze(0)
    return (y, indices) if return_indices else y


# --8<-- [start:avg_pool2d]
def avg_pool2d(
    input,
    kernel_size,
    stride=None,
    padding=0,
    ceil_mode=False,
    count_include_pad=True,
    divisor_override=None,
):
    """The mean of each kh x kw window of x (N, C, H, W) or (C, H, W).

    The input is padded with zeros; the divisor of a window is its size including the
    padding it covers (count_include_pad=True), or the number of input elements in it
    (False), or divisor_override for every window. A ceil-mode window that runs past the
    padding counts only up to the end of the padding, as PyTorch.
    """
    op = "avg_pool2d"
    x, unbatched = _checked_input(input, 2, op)
    kernel_size, stride, padding, _ = _window_args(
        op, x.shape[2:], kernel_size, stride, padding, 1, ceil_mode
    )
    _check_divisor(divisor_override, op)
    y = _avg_pool(x, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
    return y.squeeze(0) if unbatched else y


def _avg_pool(x, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    args = (
        kernel_size,
        stride,
        padding,
        bool(ceil_mode),
        bool(count_include_pad),
        divisor_override,
    )
    return AvgPool2d.apply(_compute_dtype(x), args=args).to(x.dtype)
    # --8<-- [end:avg_pool2d]


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """avg_pool2d along the last axis of x (N, C, L) or (C, L). Like PyTorch's, it has
    no divisor_override."""
    op = "avg_pool1d"
    x, unbatched = _checked_input(input, 1, op)
    kernel_size, stride, padding, _ = _window_args(
        op, x.shape[2:], kernel_size, stride, padding, 1, ceil_mode
    )
    y = _avg_pool(
        x.unsqueeze(2),
        (1,) + kernel_size,
        (1,) + stride,
        (0,) + padding,
        ceil_mode,
        count_include_pad,
        None,
    )
    y = y.squeeze(2)
    return y.squeeze(0) if unbatched else y


# --8<-- [start:adaptive]
def adaptive_avg_pool2d(input, output_size):
    """Average x (N, C, H, W) or (C, H, W) over windows chosen so that the output has
    size output_size = (OH, OW) (an int for both; None keeps that input size).

    Output row i averages input rows floor(i * H / OH) <= h < ceil((i + 1) * H / OH):
    windows of (nearly) equal size that cover every row, overlapping by one row where
    H / OH is not whole. The mean over a rectangle is a mean over its rows of means over
    its columns, so the whole op is two matrix products, y = A_H x A_W^T, with a fixed
    averaging matrix per axis. Autograd differentiates that (to any order) on every
    backend. Two special cases are faster: output (1, 1) is the mean over each plane,
    and when OH divides H and OW divides W the windows are plain tiles, so the pooling
    kernels do it: average pooling with kernel = stride = (H / OH, W / OW).
    """
    op = "adaptive_avg_pool2d"
    x, unbatched = _checked_input(input, 2, op)
    H, W = x.shape[2:]
    OH, OW = _adaptive_size(output_size, (H, W), op)
    if OH == OW == 1:
        y = x.mean(dim=(2, 3), keepdim=True)
    elif OH and OW and H % OH == 0 and W % OW == 0:
        tile = (H // OH, W // OW)
        y = _avg_pool(x, tile, tile, (0, 0), False, True, None)
    else:
        xp = array_module(x.array)  # the matrices are made where x is
        A_h = from_numpy(averaging_matrix(H, OH, x.dtype, xp))  # (OH, H)
        A_w = from_numpy(averaging_matrix(W, OW, x.dtype, xp))  # (OW, W)
        y = A_h @ x @ A_w.T  # (OH, H) @ (N, C, H, W) @ (W, OW) -> (N, C, OH, OW)
    return y.squeeze(0) if unbatched else y


def averaging_matrix(size, out, dtype, xp=np):
    """(out, size): row i holds 1 / (its window's length) over the window
    floor(i * size / out) <= k < ceil((i + 1) * size / out), zeros elsewhere. Made by the
    array module `xp` (numpy, or cupy for a CUDA tensor), all rows at once."""
    i = xp.arange(out)[:, None]  # (out, 1): the row
    start = (i * size) // out
    end = -((-(i + 1) * size) // out)  # ceil division
    k = xp.arange(size)[None, :]  # (1, size): the column
    length = xp.maximum(end - start, 1)  # >= 1 but for an empty input, which has no columns
    return xp.where((start <= k) & (k < end), 1.0 / length, 0.0).astype(dtype)
    # --8<-- [end:adaptive]


# ---- argument checks -------------------------------------------------------------------------
def _checked_input(input, spatial, op):
    """(x with a batch dim, whether one was added): accepts (N, C, *spatial) and
    (C, *spatial), floating point, with non-empty channels and spatial dims."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}: input must be a Tensor, got {type(input).__name__}")
    x, unbatched = batched(input, spatial + 1, op, layout="(C, L)" if spatial == 1 else "(C, H, W)")
    if x.dtype.kind != "f":
        raise TypeError(f"{op}: input must be floating point, got {input.dtype}")
    if 0 in x.shape[1:]:
        raise RuntimeError(
            f"{op}: expected non-zero channel and spatial sizes (only the batch may be empty), got "
            f"shape {input.shape}"
        )
    return x, unbatched


def _compute_dtype(x):
    """float16 is pooled in float32 (the kernels are compiled for float32 and float64)."""
    return x.float() if x.dtype == np.float16 else x


def _window_args(op, spatial_shape, kernel_size, stride, padding, dilation, ceil_mode):
    """Check the window arguments as PyTorch does; return them as tuples, one int per
    spatial dim. stride None (or empty) means stride = kernel_size."""
    n = len(spatial_shape)
    kernel_size = int_tuple(kernel_size, n, "kernel_size", op)
    stride = (
        kernel_size
        if stride is None or stride == () or stride == []
        else int_tuple(stride, n, "stride", op)
    )
    padding = int_tuple(padding, n, "padding", op)
    dilation = int_tuple(dilation, n, "dilation", op)
    for name, value in (("kernel_size", kernel_size), ("stride", stride), ("dilation", dilation)):
        if min(value) <= 0:
            raise ValueError(f"{op}: {name} must be greater than zero, got {tuple(value)}")
    if min(padding) < 0:
        raise ValueError(f"{op}: padding must be non-negative, got {tuple(padding)}")
    if any(p > k // 2 for p, k in zip(padding, kernel_size)):
        raise ValueError(
            f"{op}: padding must be at most half of kernel_size, got padding={tuple(padding)} "
            f"and kernel_size={tuple(kernel_size)}"
        )
    out = [
        window_output_size(size, k, s, p, d, bool(ceil_mode))
        for size, k, s, p, d in zip(spatial_shape, kernel_size, stride, padding, dilation)
    ]
    if min(out) < 1:  # a RuntimeError, as PyTorch's "Output size is too small"
        raise RuntimeError(
            f"{op}: the input's spatial size {tuple(spatial_shape)} is too small for kernel_size="
            f"{tuple(kernel_size)}, stride={tuple(stride)}, padding={tuple(padding)}, dilation="
            f"{tuple(dilation)}: the output would have size {tuple(out)}"
        )
    for size, k, s, p, d, o in zip(spatial_shape, kernel_size, stride, padding, dilation, out):
        _check_windows_reach_input(op, size, k, s, p, d, o)
    return kernel_size, stride, padding, dilation


def _check_windows_reach_input(op, size, kernel, stride, padding, dilation, out):
    """With dilation, a window that starts in the padding can step over the whole input
    (kernel 2, dilation 3, padding 1 on a size-2 axis reads positions -1 and 2 only).
    PyTorch returns -inf there with an index outside the input, which its own backward
    then writes through; minigrad refuses. Without dilation this cannot happen, since
    padding <= kernel / 2. Only windows starting in the padding need a look."""
    if dilation == 1:
        return
    for o in range(out):
        start = o * stride - padding
        if start >= 0:
            break  # this window and all later ones start on an input element
        first_inside = start + math.ceil(-start / dilation) * dilation
        if first_inside > start + (kernel - 1) * dilation or first_inside >= size:
            raise ValueError(
                f"{op}: window {o} along an axis of size {size} holds only padding "
                f"(kernel_size={kernel}, stride={stride}, padding={padding}, dilation={dilation}); "
                "use less padding or dilation"
            )


def _check_divisor(divisor_override, op):
    if divisor_override is None:
        return
    if isinstance(divisor_override, bool) or not isinstance(divisor_override, (int, np.integer)):
        raise TypeError(f"{op}: divisor_override must be an int or None, got {divisor_override!r}")
    if divisor_override == 0:
        raise ValueError(f"{op}: divisor_override must not be zero")


def _adaptive_size(output_size, input_hw, op):
    """output_size as (OH, OW): an int for both, or a pair whose None entries keep the input
    size."""
    if isinstance(output_size, (int, np.integer)) and not isinstance(output_size, bool):
        sizes = (int(output_size),) * 2
    elif isinstance(output_size, (tuple, list)) and len(output_size) == 2:
        sizes = tuple(input_hw[d] if s is None else s for d, s in enumerate(output_size))
        if not all(isinstance(s, (int, np.integer)) and not isinstance(s, bool) for s in sizes):
            raise TypeError(f"{op}: output_size must hold ints or None, got {output_size!r}")
        sizes = tuple(int(s) for s in sizes)
    else:
        raise TypeError(
            f"{op}: output_size must be an int or a pair of ints (or None), got {output_size!r}"
        )
    if min(sizes) < 0:
        raise ValueError(f"{op}: output_size must be non-negative, got {output_size!r}")
    return sizes


# ---- the *_with_indices forms: torch's functions that always return (values, indices) ---------
def max_pool2d_with_indices(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    """max_pool2d returning (values, indices) whatever return_indices says, as torch's."""
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices=True)


def max_pool1d_with_indices(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    """max_pool1d returning (values, indices) whatever return_indices says, as torch's."""
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices=True)


# ---- adaptive pooling along one axis, and adaptive max pooling ----------------------------------
def _one_size(output_size, op):
    """A 1-d output_size: an int or a 1-tuple."""
    if isinstance(output_size, (tuple, list)):
        if len(output_size) != 1:
            raise RuntimeError(
                f"{op}: argument 'output_size' should contain one int (got {len(output_size)})"
            )
        output_size = output_size[0]
    if isinstance(output_size, bool) or not isinstance(output_size, (int, np.integer)):
        raise TypeError(f"{op}: output_size must be an int, got {output_size!r}")
    return int(output_size)


def adaptive_avg_pool1d(input, output_size):
    """Average x (N, C, L) or (C, L) over windows chosen to give length output_size:
    output i averages floor(i L / OL) <= l < ceil((i + 1) L / OL) (see adaptive_avg_pool2d)."""
    op = "adaptive_avg_pool1d"
    size = _one_size(output_size, op)
    x, unbatched = _checked_input(input, 1, op)
    y = adaptive_avg_pool2d(x.unsqueeze(2), (1, size)).squeeze(2)
    return y.squeeze(0) if unbatched else y


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """The largest element of each adaptive window of x (N, C, H, W) or (C, H, W): output
    (i, j) takes rows floor(i H / OH) <= h < ceil((i + 1) H / OH) and the columns alike,
    as adaptive_avg_pool2d. With return_indices=True, also where each max was (its flat
    position h * W + w in its plane, as max_pool2d's).

    The winners are found here, window by window (the first of equal maxima, and NaN
    wins, as torch); the values are then a gather at those positions (`GatherPlanes`),
    whose gradient scatters dL/dy back to them on the pooling kernels' backend.
    """
    op = "adaptive_max_pool2d"
    x, unbatched = _checked_input(input, 2, op)
    N, C, H, W = x.shape
    OH, OW = _adaptive_size(output_size, (H, W), op)
    indices = array_module(x.array).zeros((N, C, OH, OW), dtype=np.int64)  # where x is
    for i in range(OH):
        h0, h1 = (i * H) // OH, -((-(i + 1) * H) // OH)  # floor and ceil
        for j in range(OW):
            w0, w1 = (j * W) // OW, -((-(j + 1) * W) // OW)
            window = x.array[:, :, h0:h1, w0:w1].reshape(N, C, -1)
            # argmax of a window with a NaN gives the first NaN (NumPy orders NaN highest)
            h, w = np.divmod(np.argmax(window, axis=2), w1 - w0)
            indices[:, :, i, j] = (h0 + h) * W + (w0 + w)
    y = GatherPlanes.apply(x, indices=indices)
    indices = from_numpy(indices)
    if unbatched:
        y, indices = y.squeeze(0), indices.squeeze(0)
    return (y, indices) if return_indices else y


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    """adaptive_max_pool2d returning (values, indices), as torch's."""
    return adaptive_max_pool2d(input, output_size, return_indices=True)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """adaptive_max_pool2d along the last axis of x (N, C, L) or (C, L); indices are positions l."""
    op = "adaptive_max_pool1d"
    size = _one_size(output_size, op)
    x, unbatched = _checked_input(input, 1, op)
    y, indices = adaptive_max_pool2d(x.unsqueeze(2), (1, size), return_indices=True)
    y, indices = y.squeeze(2), indices.squeeze(2)  # one row: the flat index h * L + l is l
    if unbatched:
        y, indices = y.squeeze(0), indices.squeeze(0)
    return (y, indices) if return_indices else y


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    """adaptive_max_pool1d returning (values, indices), as torch's."""
    return adaptive_max_pool1d(input, output_size, return_indices=True)


# ---- power-average pooling -----------------------------------------------------------------------
def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """The p-norm of each window, (sum of x^p)^(1/p), p = norm_type: p = 1 is sum pooling,
    p -> infinity max pooling. Computed as torch does, from average pooling of x^p times
    the window's size (so a partial ceil-mode window is scaled as a whole one), with the
    sign kept before the root."""
    kh, kw = int_tuple(kernel_size, 2, "kernel_size", "lp_pool2d")
    out = avg_pool2d(input**norm_type, kernel_size, stride, 0, ceil_mode)
    return (out.sign() * out.abs().relu() * (kh * kw)) ** (1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """lp_pool2d along the last axis of (N, C, L) or (C, L)."""
    (k,) = int_tuple(kernel_size, 1, "kernel_size", "lp_pool1d")
    out = avg_pool1d(input**norm_type, kernel_size, stride, 0, ceil_mode)
    return (out.sign() * out.abs().relu() * k) ** (1.0 / norm_type)


# ---- max unpooling: max pooling's values put back where they were --------------------------------
def _unpool_output_size(spatial, kernel_size, stride, padding, output_size, op):
    """The unpooled spatial size: (size - 1) * stride - 2 * padding + kernel by default, or
    output_size (spatial, or with N and C in front), which must lie within a stride of it."""
    default = [
        (s - 1) * st + k - 2 * p for s, k, st, p in zip(spatial, kernel_size, stride, padding)
    ]
    if output_size is None:
        return tuple(default)
    output_size = tuple(int(s) for s in output_size)
    if len(output_size) == len(kernel_size) + 2:
        output_size = output_size[2:]
    if len(output_size) != len(kernel_size):
        raise ValueError(
            f"{op}: output_size should be a sequence containing {len(kernel_size)} or "
            f"{len(kernel_size) + 2} elements, but it has a length of '{len(output_size)}'"
        )
    for d, (size, dflt, st) in enumerate(zip(output_size, default, stride)):
        if not dflt - st < size < dflt + st:
            raise ValueError(
                f'{op}: invalid output_size "{output_size}" (dim {d} must be between {dflt - st} '
                f"and {dflt + st})"
            )
    return output_size


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of max_pool2d: an (N, C, OH, OW) tensor of zeros with each input value
    at its position `indices` (from max_pool2d(return_indices=True)). The default output
    size is the input size max pooling would have come from; pass output_size when that
    size was ambiguous (floor mode drops a remainder)."""
    op = "max_unpool2d"
    kernel_size = int_tuple(kernel_size, 2, "kernel_size", op)
    stride = kernel_size if stride is None else int_tuple(stride, 2, "stride", op)
    padding = int_tuple(padding, 2, "padding", op)
    if indices.dtype != np.int64:
        raise RuntimeError(
            f"{op}: elements in indices should be type int64 but got: {indices.dtype}"
        )
    if indices.shape != input.shape:
        raise RuntimeError(
            f"{op}: Expected shape of indices to be same as that of the input tensor "
            f"({list(input.shape)}) but got indices tensor with shape: {list(indices.shape)}"
        )
    x, unbatched = _checked_input(input, 2, op)
    OH, OW = _unpool_output_size(x.shape[2:], kernel_size, stride, padding, output_size, op)
    index = indices.array.reshape(x.shape)
    bad = (index < 0) | (index >= OH * OW)
    if bad.any():  # on the GPU, one bool copied to the host: the op must know whether to raise
        raise RuntimeError(
            f"{op}: Found an invalid max index: {int(index[bad][0])} (output volumes are of size "
            f"{OH}x{OW})"
        )
    y = MaxUnpool2d.apply(x, indices=index, out_shape=(*x.shape[:2], OH, OW))
    return y.squeeze(0) if unbatched else y


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of max_pool1d, on (N, C, L) or (C, L): max_unpool2d on one row."""
    op = "max_unpool1d"
    (k,) = int_tuple(kernel_size, 1, "kernel_size", op)
    (s,) = (k,) if stride is None else int_tuple(stride, 1, "stride", op)
    (p,) = int_tuple(padding, 1, "padding", op)
    if output_size is not None:
        (L,) = _unpool_output_size(input.shape[-1:], (k,), (s,), (p,), output_size, op)
        output_size = (1, L)
    y = max_unpool2d(
        input.unsqueeze(-2), indices.unsqueeze(-2), (1, k), (1, s), (0, p), output_size
    )
    return y.squeeze(-2)
