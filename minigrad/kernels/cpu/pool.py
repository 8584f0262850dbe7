"""Pooling on the CPU: Numba kernels, the same functions and signatures as the reference.

A task is one input plane (one channel of one sample): each kernel is serial
(``nogil=True``) and loops over a block [lo, hi) of planes, its last two arguments, and
`workers.run` (kernels/cpu/workers.py) cuts the N * C planes into one block per thread,
run on all cores at once; no two threads write to the same memory. The kernels see x as
(N * C, H, W), the max-pool forward as (N * C, H * W): a reshape by the host, not a copy.
The one exception is the max-pool backward, a scatter that only moves memory: two threads
did it no faster than one, so it runs whole on the calling thread.

Inside a plane, two loop orders are used, each the faster one for its job (measured on
max and average 2x2 pooling of (64, 32, 28, 28)):

- **Sums go offset by offset** (average forward and backward). For a fixed window
  offset (a, b), the inputs the windows read are evenly spaced: the strided slice
  x[a - ph :: sh, b - pw :: sw] of the plane, one element per window. So the forward
  adds kh * kw strided slices into the output plane, and the backward adds the output
  gradients into kh * kw strided slices of the input gradient. The kernel takes each
  slice first and then indexes it with loop counters that start at 0. Written with the
  computed index x[i * sh - ph + a, ...] in the innermost loop instead, Numba must
  allow for a negative index (Python's wrap-around) on every element: a test and a
  branch per element, which made the loop about a third slower here.
- **The max goes window by window**, keeping the running max and its position in
  registers. Which element wins is data-dependent: an `if v > m:` branch is taken at
  random on real data and the CPU mispredicts it about every other time, so the update
  is written without a branch (an integer 0/1 times the change of position). That was
  twice as fast as the branchy loop, and faster than the offset-by-offset order, where
  the running max and position must be loaded and stored for every offset. A window
  that lies wholly inside the input, nearly all of them, is walked as one loop over a
  table of kh * kw offsets in the flattened plane, worked out once per block, instead of
  two nested loops only kh and kw steps long (benchmarks/RESULTS.md has the timings).

Which windows and which offsets touch the input (and not the padding) is worked out
before the innermost loops (`valid_range`), so they never test for padding: padded
elements are simply not visited, which is -inf padding for the max and zero padding
for the sum. The shape rules (output size, average divisor) are the reference's.
"""

import numpy as np

from minigrad.kernels.cpu import workers
from minigrad.kernels.jit import njit
from minigrad.kernels.reference.pool import avg_pool_divisor, pool_output_shape


@njit(cache=True, inner=True)
def valid_range(count, step, offset, size):
    """The range [first, last) of k in [0, count) for which offset + k * step lies inside
    [0, size): the outputs whose window offset lands in the input, or the offsets of one
    window that do. `offset` may be negative (in the left padding)."""
    first = 0
    if offset < 0:
        first = (-offset + step - 1) // step  # ceil(-offset / step)
    last = 0
    if offset <= size - 1:
        last = min(count, (size - 1 - offset) // step + 1)
    return first, max(first, last)


# ---- max pooling --------------------------------------------------------------------------
@njit(inline="always")
def _max_step(plane, k, m, at):
    """The running (max, position) once element k of the flat plane is seen.

    v wins if larger, or if it is the first NaN (NaN propagates); ties keep the earlier
    element. `not v <= m` holds for both a larger v and a NaN v, and `m == m` fails once
    m is a NaN: two comparisons, not the three of (v > m) | (v != v) & (m == m). No
    branch: at moves by 0 or 1 times the step to k, and np.maximum keeps a
    NaN once it has one."""
    v = plane[k]
    wins = (m == m) & (not v <= m)
    return np.maximum(m, v), at + np.int64(wins) * (k - at)


@njit(nogil=True, cache=True)
def _max_pool2d_planes(x, H, W, kh, kw, sh, sw, ph, pw, dh, dw, y, indices, lo, hi):
    """x (P, H * W), planes of H x W flat -> y and indices (P, OH, OW) for the planes p in
    [lo, hi)."""
    OH, OW = y.shape[1], y.shape[2]
    # the window columns b inside the input, for each output column j: the same in every
    # plane, so worked out once per block of planes (OW pairs, next to nothing)
    col_first = np.empty(OW, dtype=np.int64)
    col_last = np.empty(OW, dtype=np.int64)
    for j in range(OW):
        col_first[j], col_last[j] = valid_range(kw, dw, j * sw - pw, W)
    # offsets[a * kw + b]: how far element (a, b) of a window is from its element (0, 0),
    # in the flattened plane. A window that lies wholly in the input (all of them but
    # those touching the padding) is then one loop over kh * kw offsets, not two nested
    # loops over a and b each only kh or kw steps long, whose starts cost more than their
    # work
    offsets = np.empty(kh * kw, dtype=np.int64)
    for a in range(kh):
        for b in range(kw):
            offsets[a * kw + b] = a * dh * W + b * dw
    for p in range(lo, hi):
        # flat positions h * W + w, what indices holds: flattened by the host, a view (a
        # reshape in the kernel would compile Numba's general reshape routine into it)
        plane = x[p]
        for i in range(OH):
            top = i * sh - ph  # the window's first row (maybe in the padding)
            a0, a1 = valid_range(kh, dh, top, H)
            for j in range(OW):
                left = j * sw - pw
                b0, b1 = col_first[j], col_last[j]
                if a0 >= a1 or b0 >= b1:  # a window of padding only (the ops refuse these)
                    y[p, i, j] = -np.inf
                    indices[p, i, j] = -1
                    continue
                # start from the window's first real element, as PyTorch does, so that a
                # window of -inf values still points into the input
                first = (top + a0 * dh) * W + left + b0 * dw
                m, at = plane[first], first
                if a1 - a0 == kh and b1 - b0 == kw:  # the whole window is in the input
                    for q in range(kh * kw):
                        m, at = _max_step(plane, first + offsets[q], m, at)
                else:  # the rows [a0, a1) and columns [b0, b1) of the window are real
                    for a in range(a1 - a0):
                        for b in range(b1 - b0):
                            m, at = _max_step(plane, first + offsets[a * kw + b], m, at)
                y[p, i, j] = m
                indices[p, i, j] = at


def max_pool2d_forward(x, kernel_size, stride, padding, dilation, ceil_mode):
    """(y, indices), both (N, C, OH, OW): the max of each window and its flat position
    h * W + w in the input plane (int64), as the reference."""
    N, C, H, W = x.shape
    OH, OW = pool_output_shape((H, W), kernel_size, stride, padding, dilation, ceil_mode)
    y = np.empty((N * C, OH, OW), dtype=x.dtype)
    indices = np.empty((N * C, OH, OW), dtype=np.int64)
    planes = np.ascontiguousarray(x).reshape(N * C, H * W)
    args = (planes, H, W, *kernel_size, *stride, *padding, *dilation, y, indices)
    workers.run(_max_pool2d_planes, N * C, *args)  # a task per plane
    return y.reshape(N, C, OH, OW), indices.reshape(N, C, OH, OW)


@njit(cache=True)
def _max_pool2d_backward_planes(grad_y, indices, grad_x):
    """grad_x (P, H * W) = 0, then grad_x[p, indices[p, i, j]] += grad_y[p, i, j]."""
    P, OH, OW = grad_y.shape
    HW = grad_x.shape[1]
    for p in range(P):  # one thread: this only moves memory, and two were no faster
        row = grad_x[p]
        for q in range(HW):  # a loop: a slice assignment compiles a general routine
            row[q] = 0.0
        for i in range(OH):
            for j in range(OW):
                k = indices[p, i, j]
                if 0 <= k < HW:  # a stray index would write outside the array: skip it
                    grad_x[p, k] += grad_y[p, i, j]


def max_pool2d_backward(grad_y, indices, x_shape):
    """dL/dx (x_shape): each gradient added at the position its window chose."""
    N, C, H, W = x_shape
    OH, OW = grad_y.shape[2:]
    # allocated in x's shape and handed to the kernel as a view: the array returned owns
    # its memory, so the engine keeps it as x.grad as it is (a view it would copy)
    grad_x = np.empty(x_shape, dtype=grad_y.dtype)
    _max_pool2d_backward_planes(
        np.ascontiguousarray(grad_y).reshape(N * C, OH, OW),
        np.ascontiguousarray(indices, dtype=np.int64).reshape(N * C, OH, OW),
        grad_x.reshape(N * C, H * W),
    )
    return grad_x


# ---- average pooling ------------------------------------------------------------------------
@njit(nogil=True, cache=True)
def _avg_pool2d_planes(x, kh, kw, sh, sw, ph, pw, scale, y, lo, hi):
    """x (P, H, W) -> y (P, OH, OW): window sums times scale = 1 / divisor, (OH, OW),
    for the planes p in [lo, hi)."""
    H, W = x.shape[1], x.shape[2]
    OH, OW = y.shape[1], y.shape[2]
    for p in range(lo, hi):
        total = y[p]  # (OH, OW): the running window sums
        total[:] = 0.0
        for a in range(kh):
            i0, i1 = valid_range(OH, sh, a - ph, H)  # output rows whose row a is real
            h0 = i0 * sh - ph + a  # the input row read by output row i0
            for b in range(kw):
                j0, j1 = valid_range(OW, sw, b - pw, W)
                w0 = j0 * sw - pw + b
                # the (i1 - i0, j1 - j0) inputs at offset (a, b) of those windows
                src = x[
                    p, h0 : h0 + (i1 - i0 - 1) * sh + 1 : sh, w0 : w0 + (j1 - j0 - 1) * sw + 1 : sw
                ]
                dst = total[i0:i1, j0:j1]
                for r in range(i1 - i0):
                    for t in range(j1 - j0):
                        dst[r, t] += src[r, t]
        for i in range(OH):
            for j in range(OW):
                total[i, j] *= scale[i, j]


def avg_pool2d_forward(
    x, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override=None
):
    """y (N, C, OH, OW): the sum of each window over its divisor, as the reference."""
    N, C, H, W = x.shape
    OH, OW = pool_output_shape((H, W), kernel_size, stride, padding, (1, 1), ceil_mode)
    divisor = avg_pool_divisor(
        (H, W), kernel_size, stride, padding, (OH, OW), count_include_pad, divisor_override
    )
    y = np.empty((N * C, OH, OW), dtype=x.dtype)
    planes = np.ascontiguousarray(x).reshape(N * C, H, W)
    scale = (1.0 / divisor).astype(x.dtype)
    workers.run(_avg_pool2d_planes, N * C, planes, *kernel_size, *stride, *padding, scale, y)
    return y.reshape(N, C, OH, OW)


@njit(nogil=True, cache=True)
def _avg_pool2d_backward_planes(grad_y, kh, kw, sh, sw, ph, pw, scale, grad_x, lo, hi):
    """grad_x (P, H, W): every element of window (i, j) receives grad_y[p, i, j] * scale[i, j],
    summed over the windows that hold it: the forward's loops, the data flowing back.
    For the planes p in [lo, hi)."""
    OH, OW = grad_y.shape[1], grad_y.shape[2]
    H, W = grad_x.shape[1], grad_x.shape[2]
    for p in range(lo, hi):
        total = grad_x[p]
        total[:] = 0.0
        share = grad_y[p] * scale  # (OH, OW): what each element of window (i, j) gets
        for a in range(kh):
            i0, i1 = valid_range(OH, sh, a - ph, H)
            h0 = i0 * sh - ph + a
            for b in range(kw):
                j0, j1 = valid_range(OW, sw, b - pw, W)
                w0 = j0 * sw - pw + b
                dst = total[
                    h0 : h0 + (i1 - i0 - 1) * sh + 1 : sh, w0 : w0 + (j1 - j0 - 1) * sw + 1 : sw
                ]
                src = share[i0:i1, j0:j1]
                for r in range(i1 - i0):
                    for t in range(j1 - j0):
                        dst[r, t] += src[r, t]


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
    """dL/dx (x_shape): each window's gradient over its divisor, spread over the window."""
    N, C, H, W = x_shape
    OH, OW = grad_y.shape[2:]
    divisor = avg_pool_divisor(
        (H, W), kernel_size, stride, padding, (OH, OW), count_include_pad, divisor_override
    )
    grad_x = np.empty(x_shape, dtype=grad_y.dtype)  # owns its memory, as max pooling's
    workers.run(
        _avg_pool2d_backward_planes,
        N * C,  # a task per plane
        np.ascontiguousarray(grad_y).reshape(N * C, OH, OW),
        *kernel_size,
        *stride,
        *padding,
        (1.0 / divisor).astype(grad_y.dtype),
        grad_x.reshape(N * C, H, W),
    )
    return grad_x
