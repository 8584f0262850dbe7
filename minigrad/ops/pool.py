"""Pooling: max and average pooling over windows, as differentiable ops.

The arithmetic is in the kernels (`minigrad/kernels/{reference,cpu,cuda}/pool.py`,
chosen by `mg.backends`); this file holds the Functions that put them in the graph and
the functional forms, with PyTorch's signatures and argument checks.

Both poolings are, for a fixed window geometry, *linear* in what they route:

- max pooling, once the winners are known, just copies x[indices] to y. Its backward
  adds dL/dy at those positions (a scatter-add), and the derivative of that backward
  with respect to dL/dy is a copy from the same positions again (a gather).
- average pooling is y = A x for a fixed matrix A (each row holds 1/divisor over one
  window). Its backward is dL/dx = A^T dL/dy, and the derivative of *that* is A again.

So every backward below is itself a Function whose backward is the forward (or the
gather): a backward pass recorded with create_graph=True can be differentiated again,
on every backend, without any new kernel.
"""

import math

import numpy as np

from minigrad import backends
from minigrad.autograd.function import Function
from minigrad.creation import from_numpy
from minigrad.kernels.reference.pool import pool_output_size
from minigrad.tensor import Tensor


# ---- max pooling --------------------------------------------------------------------------
# --8<-- [start:max_function]
class MaxPool2d(Function):
    """y[n, c, i, j] = max of window (i, j) of x[n, c], x (N, C, H, W).

    dL/dx[n, c, k] = sum of dL/dy[n, c, i, j] over the windows (i, j) whose max was
    element k (indices[n, c, i, j] == k), and 0 for an element no window chose.

    The kernel runs in `max_pool2d`, which needs both its outputs (the values, and the
    indices it may return to the user); this Function receives them and records how
    the gradient is routed.
    """

    @staticmethod
    def forward(ctx, x, y, indices):
        ctx.indices, ctx.x_shape = indices, x.shape
        return y

    @staticmethod
    def backward(ctx, grad):
        return ScatterPlanes.apply(grad, indices=ctx.indices, x_shape=ctx.x_shape)


class ScatterPlanes(Function):
    """The backward of max pooling: start from zeros of x's shape and add each
    g[n, c, i, j] = dL/dy[n, c, i, j] at position indices[n, c, i, j] of plane (n, c).

    It is linear in g, and its own gradient (for a recorded backward) picks the
    incoming gradient back up at the same positions: `GatherPlanes`."""

    @staticmethod
    def forward(ctx, grad_y, indices, x_shape):
        ctx.indices, ctx.x_shape = indices, x_shape
        return backends.kernels("pool").max_pool2d_backward(grad_y.array, indices, x_shape)

    @staticmethod
    def backward(ctx, grad):
        return GatherPlanes.apply(grad, indices=ctx.indices)


class GatherPlanes(Function):
    """y[n, c, i, j] = x[n, c].flat[indices[n, c, i, j]]: max pooling with the winners
    held fixed. Its gradient is the scatter-add `ScatterPlanes`."""

    @staticmethod
    def forward(ctx, x, indices):
        ctx.indices, ctx.x_shape = indices, x.shape
        N, C, H, W = x.shape
        planes = x.array.reshape(N * C, H * W)
        picked = np.take_along_axis(planes, indices.reshape(N * C, indices[0, 0].size), axis=1)
        return picked.reshape(indices.shape)

    @staticmethod
    def backward(ctx, grad):
        return ScatterPlanes.apply(grad, indices=ctx.indices, x_shape=ctx.x_shape)
        # --8<-- [end:max_function]


# ---- average pooling ------------------------------------------------------------------------
# --8<-- [start:avg_function]
class AvgPool2d(Function):
    """y[n, c, i, j] = sum of window (i, j) of x[n, c] / divisor[i, j].

    dL/dx[n, c, h, w] = sum over the windows (i, j) that contain (h, w) of
    dL/dy[n, c, i, j] / divisor[i, j]; padding takes part in the divisor (when
    count_include_pad) but receives no gradient.
    """

    @staticmethod
    def forward(ctx, x, args):
        # args = (kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
        ctx.args, ctx.x_shape = args, x.shape
        return backends.kernels("pool").avg_pool2d_forward(x.array, *args)

    @staticmethod
    def backward(ctx, grad):
        return AvgPool2dTransposed.apply(grad, x_shape=ctx.x_shape, args=ctx.args)


class AvgPool2dTransposed(Function):
    """dL/dx = A^T g for the averaging matrix A of the forward, g = dL/dy. Linear in g,
    and its own gradient is A v: the average pooling forward again."""

    @staticmethod
    def forward(ctx, grad_y, x_shape, args):
        ctx.args = args
        return backends.kernels("pool").avg_pool2d_backward(grad_y.array, x_shape, *args)

    @staticmethod
    def backward(ctx, grad):
        return AvgPool2d.apply(grad, args=ctx.args)
        # --8<-- [end:avg_function]


# ---- the functional forms (torch.nn.functional's signatures) ---------------------------------
# --8<-- [start:max_pool2d]
def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """The largest element of each kh x kw window of x (N, C, H, W) or (C, H, W).

    stride defaults to kernel_size; the input is padded with -inf on each side
    (padding may be at most half the kernel size); the window's elements are dilation
    apart; ceil_mode adds a last, partial window where floor mode would drop the
    leftover. return_indices=True also returns the flat position h * W + w of each
    max in its input plane (int64), as PyTorch does.
    """
    op = "max_pool2d"
    x, unbatched = _batched(input, 2, op)
    kernel_size, stride, padding, dilation = _window_args(
        op, x.shape[2:], kernel_size, stride, padding, dilation, ceil_mode
    )
    y, indices = _max_pool(x, kernel_size, stride, padding, dilation, ceil_mode)
    if unbatched:
        y, indices = y.squeeze(0), indices.squeeze(0)
    return (y, indices) if return_indices else y


def _max_pool(x, kernel_size, stride, padding, dilation, ceil_mode):
    """(values, indices) as Tensors, for x (N, C, H, W) and checked arguments."""
    compute = _compute_dtype(x)
    y, indices = backends.kernels("pool").max_pool2d_forward(
        compute.array, kernel_size, stride, padding, dilation, ceil_mode
    )
    out = MaxPool2d.apply(compute, y=y, indices=indices)
    return out.to(x.dtype), from_numpy(indices)
    # --8<-- [end:max_pool2d]


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """max_pool2d along the last axis of x (N, C, L) or (C, L): a 1 x k window."""
    op = "max_pool1d"
    x, unbatched = _batched(input, 1, op)
    kernel_size, stride, padding, dilation = _window_args(
        op, x.shape[2:], kernel_size, stride, padding, dilation, ceil_mode
    )
    # (N, C, L) is (N, C, 1, L): one row, and a window one row high
    y, indices = _max_pool(
        x.unsqueeze(2), (1,) + kernel_size, (1,) + stride, (0,) + padding, (1,) + dilation, ceil_mode
    )
    y, indices = y.squeeze(2), indices.squeeze(2)  # h = 0, so the flat index h * L + w is w
    if unbatched:
        y, indices = y.squeeze(0), indices.squeeze(0)
    return (y, indices) if return_indices else y


# --8<-- [start:avg_pool2d]
def avg_pool2d(
    input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None
):
    """The mean of each kh x kw window of x (N, C, H, W) or (C, H, W).

    The input is padded with zeros; the divisor of a window is its size including the
    padding it covers (count_include_pad=True), or the number of input elements in it
    (False), or divisor_override for every window. A ceil-mode window that runs past the
    padding counts only up to the end of the padding, as PyTorch.
    """
    op = "avg_pool2d"
    x, unbatched = _batched(input, 2, op)
    kernel_size, stride, padding, _ = _window_args(op, x.shape[2:], kernel_size, stride, padding, 1, ceil_mode)
    _check_divisor(divisor_override, op)
    y = _avg_pool(x, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
    return y.squeeze(0) if unbatched else y


def _avg_pool(x, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    compute = _compute_dtype(x)
    args = (kernel_size, stride, padding, bool(ceil_mode), bool(count_include_pad), divisor_override)
    return AvgPool2d.apply(compute, args=args).to(x.dtype)
    # --8<-- [end:avg_pool2d]


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """avg_pool2d along the last axis of x (N, C, L) or (C, L). Like PyTorch's, it has
    no divisor_override."""
    op = "avg_pool1d"
    x, unbatched = _batched(input, 1, op)
    kernel_size, stride, padding, _ = _window_args(op, x.shape[2:], kernel_size, stride, padding, 1, ceil_mode)
    y = _avg_pool(x.unsqueeze(2), (1,) + kernel_size, (1,) + stride, (0,) + padding, ceil_mode, count_include_pad, None)
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
    x, unbatched = _batched(input, 2, op)
    H, W = x.shape[2:]
    OH, OW = _adaptive_size(output_size, (H, W), op)
    if OH == OW == 1:
        y = x.mean(dim=(2, 3), keepdim=True)
    elif OH and OW and H % OH == 0 and W % OW == 0:
        tile = (H // OH, W // OW)
        y = _avg_pool(x, tile, tile, (0, 0), False, True, None)
    else:
        A_h = from_numpy(averaging_matrix(H, OH, x.dtype))  # (OH, H)
        A_w = from_numpy(averaging_matrix(W, OW, x.dtype))  # (OW, W)
        y = A_h @ x @ A_w.T  # (OH, H) @ (N, C, H, W) @ (W, OW) -> (N, C, OH, OW)
    return y.squeeze(0) if unbatched else y


def averaging_matrix(size, out, dtype):
    """(out, size): row i holds 1 / (its window's length) over the window
    floor(i * size / out) <= k < ceil((i + 1) * size / out), zeros elsewhere."""
    A = np.zeros((out, size), dtype=dtype)
    for i in range(out):
        start = (i * size) // out
        end = -((-(i + 1) * size) // out)  # ceil division
        A[i, start:end] = 1.0 / (end - start)
    return A
    # --8<-- [end:adaptive]


# ---- argument checks -------------------------------------------------------------------------
def _batched(input, spatial, op):
    """(x with a batch dim, whether one was added): accepts (N, C, *spatial) and
    (C, *spatial), floating point, with non-empty channels and spatial dims."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}: input must be a Tensor, got {type(input).__name__}")
    names = "(C, L)" if spatial == 1 else "(C, H, W)"
    batched_names = "(N, C, L)" if spatial == 1 else "(N, C, H, W)"
    if input.ndim not in (spatial + 1, spatial + 2):
        raise RuntimeError(
            f"{op}: expected a {spatial + 1}-D {names} or {spatial + 2}-D {batched_names} input, "
            f"got shape {input.shape}"
        )
    if input.dtype.kind != "f":
        raise TypeError(f"{op}: input must be floating point, got {input.dtype}")
    if 0 in input.shape[-spatial - 1 :]:
        raise RuntimeError(
            f"{op}: expected non-zero channel and spatial sizes (only the batch may be empty), got shape {input.shape}"
        )
    unbatched = input.ndim == spatial + 1
    return (input.unsqueeze(0) if unbatched else input), unbatched


def _compute_dtype(x):
    """float16 is pooled in float32 (the kernels are compiled for float32 and float64)."""
    return x.float() if x.dtype == np.float16 else x


def _ints(value, n, name, op):
    """An int, or a tuple/list of n ints, as a tuple of n Python ints."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return (int(value),) * n
    if isinstance(value, (tuple, list)) and len(value) in (1, n):
        if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in value):
            return tuple(int(v) for v in value) * (n // len(value))
    shape = "an int" if n == 1 else f"an int or a tuple of {n} ints"
    raise TypeError(f"{op}: {name} must be {shape}, got {value!r}")


# --8<-- [start:window_args]
def _window_args(op, spatial_shape, kernel_size, stride, padding, dilation, ceil_mode):
    """Check the window arguments as PyTorch does; return them as tuples, one int per
    spatial dim. stride None (or empty) means stride = kernel_size."""
    n = len(spatial_shape)
    kernel_size = _ints(kernel_size, n, "kernel_size", op)
    stride = kernel_size if stride is None or stride == () or stride == [] else _ints(stride, n, "stride", op)
    padding = _ints(padding, n, "padding", op)
    dilation = _ints(dilation, n, "dilation", op)
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
        pool_output_size(size, k, s, p, d, bool(ceil_mode))
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
    # --8<-- [end:window_args]


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
                f"{op}: window {o} along an axis of size {size} holds only padding (kernel_size={kernel}, "
                f"stride={stride}, padding={padding}, dilation={dilation}); use less padding or dilation"
            )


def _check_divisor(divisor_override, op):
    if divisor_override is None:
        return
    if isinstance(divisor_override, bool) or not isinstance(divisor_override, (int, np.integer)):
        raise TypeError(f"{op}: divisor_override must be an int or None, got {divisor_override!r}")
    if divisor_override == 0:
        raise ValueError(f"{op}: divisor_override must not be zero")


def _adaptive_size(output_size, input_hw, op):
    """output_size as (OH, OW): an int for both, or a pair whose None entries keep the input size."""
    if isinstance(output_size, (int, np.integer)) and not isinstance(output_size, bool):
        sizes = (int(output_size),) * 2
    elif isinstance(output_size, (tuple, list)) and len(output_size) == 2:
        sizes = tuple(input_hw[d] if s is None else s for d, s in enumerate(output_size))
        if not all(isinstance(s, (int, np.integer)) and not isinstance(s, bool) for s in sizes):
            raise TypeError(f"{op}: output_size must hold ints or None, got {output_size!r}")
        sizes = tuple(int(s) for s in sizes)
    else:
        raise TypeError(f"{op}: output_size must be an int or a pair of ints (or None), got {output_size!r}")
    if min(sizes) < 0:
        raise ValueError(f"{op}: output_size must be non-negative, got {output_size!r}")
    return sizes
