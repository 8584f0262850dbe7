"""Pooling, the reference: every window of the input as a strided view, in NumPy.

A 2-D pooling layer slides a kh x kw window over each input plane (one channel of one
sample) and keeps one number per position: the largest element (max pooling) or the
mean (average pooling). The window moves by `stride`, the plane may be bordered by
`padding`, and max pooling may spread the window's elements `dilation` apart:

    window (i, j), element (a, b)  =  x[i * sh - ph + a * dh,  j * sw - pw + b * dw]

Backward sends each output's gradient back to the elements its window read:

- max: all of dL/dy[i, j] goes to the one element that was the largest, recorded in
  forward as `indices` (the flat position h * W + w in the input plane, PyTorch's
  `return_indices` convention). Windows that overlap may pick the same element, so the
  gradients are *added* there (a scatter-add).
- average: dL/dy[i, j] / divisor goes to every element of the window.

Arrays in, arrays out: x is (N, C, H, W); kernel_size, stride, padding and dilation are
(h, w) pairs of ints, checked by the caller (`minigrad.nn.functional.pool`). The CPU
and CUDA kernels have the same functions with the same signatures and reuse the shape
rules defined here (`pool_output_shape`, `avg_pool_divisor`).

Written with the array module of the inputs (`xp`: NumPy, or CuPy for CUDA tensors, see
`minigrad/array_module.py`), this code runs on the GPU unchanged.
"""

import numpy as np

from minigrad._args import window_output_size
from minigrad.array_module import array_module, scatter_add


# ---- shape rules shared by the three backends ------------------------------------------
def pool_output_shape(input_hw, kernel_size, stride, padding, dilation, ceil_mode):
    """(OH, OW) for an input plane (H, W): how many window positions fit along each axis,
    by the one formula convolution and pooling share (`minigrad._args.window_output_size`)."""
    return tuple(
        window_output_size(
            input_hw[d], kernel_size[d], stride[d], padding[d], dilation[d], ceil_mode
        )
        for d in (0, 1)
    )


# --8<-- [start:divisor]
def window_counts(size, kernel, stride, padding, out, count_include_pad, xp=np):
    """Along one axis: how many elements each of the `out` average-pooling windows counts.

    A window starts at o * stride - padding and is cut at the end of the right padding
    (a ceil-mode window may run past it: those positions are not even padding). With
    count_include_pad=False, only the elements inside the input are counted.
    """
    start = xp.arange(out) * stride - padding  # may be negative: in the left padding
    end = xp.minimum(start + kernel, size + padding)
    if count_include_pad:
        return end - start
    return xp.minimum(end, size) - xp.maximum(start, 0)


def avg_pool_divisor(
    input_hw,
    kernel_size,
    stride,
    padding,
    out_hw,
    count_include_pad,
    divisor_override,
    xp=np,
):
    """(OH, OW) array: what each window's sum is divided by, made with array module `xp`
    (where the sums are: dividing a GPU array by a host one would need a copy).

    A window is a rectangle, so it counts (its rows) x (its columns): the outer product
    of the two axes' counts. divisor_override replaces all of it by one number.
    """
    if divisor_override:
        return xp.full(out_hw, float(divisor_override))
    rows, cols = (
        window_counts(size, k, s, p, out, count_include_pad, xp)
        for size, k, s, p, out in zip(input_hw, kernel_size, stride, padding, out_hw)
    )
    return xp.outer(rows, cols).astype(np.float64)
    # --8<-- [end:divisor]


# ---- the windows ------------------------------------------------------------------------
# --8<-- [start:windows]
def padded(x, kernel_size, stride, padding, dilation, out_hw, fill):
    """x (N, C, H, W) bordered with `fill`: `padding` on the top and left, and on the
    bottom and right as far as the last window reaches (in ceil mode that can be more
    than `padding`; in floor mode the windows may also leave the end of x unused)."""
    N, C, H, W = x.shape
    (kh, kw), (sh, sw), (ph, pw), (dh, dw), (OH, OW) = (
        kernel_size,
        stride,
        padding,
        dilation,
        out_hw,
    )
    Hp = (OH - 1) * sh + dh * (kh - 1) + 1  # the first row past the last window's end
    Wp = (OW - 1) * sw + dw * (kw - 1) + 1
    x_pad = array_module(x).full((N, C, max(Hp, ph + H), max(Wp, pw + W)), fill, dtype=x.dtype)
    x_pad[:, :, ph : ph + H, pw : pw + W] = x
    return x_pad


def windows(x_pad, kernel_size, stride, dilation, out_hw):
    """Every window of the padded x_pad (N, C, Hp, Wp) as a view (N, C, OH, OW, kh, kw),
    without copying a byte.

    Element (a, b) of window (i, j) is x_pad[n, c, i * sh + a * dh, j * sw + b * dw]; a
    step in i moves sh rows, a step in a moves dh rows. NumPy finds an element by
    adding (index x stride in bytes) for each axis, so the view only needs those steps.
    Many windows share an element: the view is only ever read (NumPy's as_strided could
    enforce that with writeable=False; CuPy's, which this also runs on, cannot).
    """
    N, C = x_pad.shape[:2]
    (kh, kw), (sh, sw), (dh, dw), (OH, OW) = kernel_size, stride, dilation, out_hw
    bytes_n, bytes_c, bytes_h, bytes_w = x_pad.strides
    return array_module(x_pad).lib.stride_tricks.as_strided(
        x_pad,
        shape=(N, C, OH, OW, kh, kw),
        strides=(bytes_n, bytes_c, bytes_h * sh, bytes_w * sw, bytes_h * dh, bytes_w * dw),
    )
    # --8<-- [end:windows]


# ---- max pooling --------------------------------------------------------------------------
def max_pool2d_forward(x, kernel_size, stride, padding, dilation, ceil_mode):
    """y[n, c, i, j] = the largest element of window (i, j); `indices` says where it was.

    Returns (y, indices), both (N, C, OH, OW); indices (int64) is the flat position
    h * W + w of the chosen element in its input plane. Ties go to the first element in
    row-major window order, and NaN counts as the largest (NaN propagates).
    """
    xp = array_module(x)
    N, C, H, W = x.shape
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = kernel_size, stride, padding, dilation
    OH, OW = out_hw = pool_output_shape((H, W), kernel_size, stride, padding, dilation, ceil_mode)

    # padding is -inf: never larger than a real element
    x_pad = padded(x, kernel_size, stride, padding, dilation, out_hw, fill=-np.inf)
    win = windows(x_pad, kernel_size, stride, dilation, out_hw)  # (N, C, OH, OW, kh, kw)
    flat = win.reshape(N, C, OH, OW, kh * kw)  # a copy: the windows become rows
    k = flat.argmax(axis=-1)  # (N, C, OH, OW): position of the max in its window
    y = np.take_along_axis(flat, k[..., None], axis=-1)[..., 0]

    # If a window's real elements are all -inf, they tie with its padding and argmax may
    # have chosen the padding: choose the window's first real element instead.
    stuck = y == -np.inf
    # On the GPU, asking whether any window is stuck would copy the answer to the host:
    # there the choice is made for every window, which costs less than the wait.
    if xp is not np or stuck.any():
        first = first_real_position(kernel_size, stride, padding, dilation, (H, W), out_hw, xp)
        k = xp.where(stuck, first, k)

    # window position k -> window row a and column b -> input row h and column w
    a, b = np.divmod(k, kw)
    h = xp.arange(OH)[:, None] * sh - ph + a * dh  # (N, C, OH, OW), broadcast over j
    w = xp.arange(OW)[None, :] * sw - pw + b * dw  # (N, C, OH, OW), broadcast over i
    indices = h * W + w
    return y, indices.astype(np.int64)


def first_real_position(kernel_size, stride, padding, dilation, input_hw, out_hw, xp=np):
    """(OH, OW): the position, in row-major window order, of each window's first element
    that lies inside the input (the windows of an all-ones plane padded with zeros)."""
    ones = xp.ones((1, 1) + tuple(input_hw))
    inside = windows(
        padded(ones, kernel_size, stride, padding, dilation, out_hw, 0.0),
        kernel_size,
        stride,
        dilation,
        out_hw,
    )
    return inside.reshape(out_hw + (-1,)).argmax(axis=-1)


# --8<-- [start:max_backward]
def max_pool2d_backward(grad_y, indices, x_shape):
    """dL/dx: each dL/dy[n, c, i, j] is added to the input element that won window
    (i, j), whose flat position in plane (n, c) is indices[n, c, i, j]. Elements that
    won no window get 0; elements that won several windows get the sum."""
    xp = array_module(grad_y)
    # BEGIN SOLUTION hint: a zero gradient per input plane (N*C, H*W); add each dL/dy at its window's winning flat position indices[n, c, i, j] with scatter_add (np.add.at; a plain += writes a repeated index once, but overlapping windows can pick the same element)
    N, C, H, W = x_shape
    OH, OW = grad_y.shape[2:]
    grad_x = xp.zeros((N * C, H * W), dtype=grad_y.dtype)  # one row per input plane
    plane = xp.arange(N * C)[:, None]  # (N*C, 1): the row of each gradient
    # np.add.at (CuPy: cupyx.scatter_add), not grad_x[...] += ...: `+=` would write a
    # repeated index only once
    scatter_add(grad_x, (plane, indices.reshape(N * C, OH * OW)), grad_y.reshape(N * C, OH * OW))
    return grad_x.reshape(x_shape)
    # END SOLUTION
    # --8<-- [end:max_backward]


# ---- average pooling ----------------------------------------------------------------------
def avg_pool2d_forward(
    x, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override=None
):
    """y[n, c, i, j] = sum of window (i, j) / divisor[i, j] (see `avg_pool_divisor`)."""
    N, C, H, W = x.shape
    no_dilation = (1, 1)
    out_hw = pool_output_shape((H, W), kernel_size, stride, padding, no_dilation, ceil_mode)
    x_pad = padded(x, kernel_size, stride, padding, no_dilation, out_hw, fill=0.0)  # padding adds 0
    win = windows(x_pad, kernel_size, stride, no_dilation, out_hw)  # (N, C, OH, OW, kh, kw)
    sums = win.sum(axis=(-2, -1))  # (N, C, OH, OW)
    window = (kernel_size, stride, padding, out_hw, count_include_pad, divisor_override)
    divisor = avg_pool_divisor((H, W), *window, array_module(x))
    return (sums / divisor).astype(x.dtype)  # divisor (OH, OW) broadcasts over N and C


def avg_pool2d_backward(
    grad_y,
    x_shape,
    kernel_size,
    stride,
    padding,
    ceil_mode,
    count_include_pad,
    divisor_override=None,
):
    """dL/dx: every element of window (i, j) receives dL/dy[i, j] / divisor[i, j], and an
    element inside several windows receives the sum.

    One pass per window offset (a, b): the elements at offset (a, b) of all the windows
    form the strided slice x_pad[a::sh, b::sw] (one element per window, no two alike), so
    a plain `+=` on that slice is safe. kh * kw vectorized adds cover every window.
    """
    xp = array_module(grad_y)
    N, C, H, W = x_shape
    (kh, kw), (sh, sw), (ph, pw) = kernel_size, stride, padding
    OH, OW = out_hw = grad_y.shape[2:]
    window = (kernel_size, stride, padding, out_hw, count_include_pad, divisor_override)
    divisor = avg_pool_divisor((H, W), *window, xp)
    share = (grad_y / divisor).astype(grad_y.dtype)  # (N, C, OH, OW): each element's part

    # the gradient of the padded input, then cut to the input: padding gets no gradient
    zeros = xp.zeros(x_shape, dtype=grad_y.dtype)
    grad_x_pad = padded(zeros, kernel_size, stride, padding, (1, 1), out_hw, 0.0)
    # BEGIN SOLUTION hint: every element of window (i, j) gets share[i, j]: for each offset (a, b) in the window, the elements at that offset of all windows are the strided slice of grad_x_pad starting at (a, b) with steps (sh, sw); add share there
    for a in range(kh):
        for b in range(kw):
            rows, cols = slice(a, a + (OH - 1) * sh + 1, sh), slice(b, b + (OW - 1) * sw + 1, sw)
            grad_x_pad[:, :, rows, cols] += share
    # END SOLUTION
    return xp.ascontiguousarray(grad_x_pad[:, :, ph : ph + H, pw : pw + W])
