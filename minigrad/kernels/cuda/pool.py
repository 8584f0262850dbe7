"""Pooling on an NVIDIA GPU: Numba CUDA kernels, the same functions and signatures as the
reference.

A GPU runs thousands of threads at once, so each kernel gives one thread one element
to compute:

- **forward**: one thread per output element (plane, i, j) walks its window and
  writes y[i, j] (and, for max, where the max was);
- **average backward**: one thread per *input* element (plane, h, w) gathers the
  gradient from the few windows that contain it. Every input gradient is written once,
  by one thread, so nothing needs to be zeroed first and no two threads collide.
- **max backward**: one thread per output element scatters its gradient to the input
  element its window chose. It cannot gather, because it is given only `indices`,
  not the window geometry that says which windows to look in. Overlapping windows
  may choose the same element, so the additions are atomic.

The threads are numbered along one axis, t = plane * (OH * OW) + i * OW + j for an
output element (plane * (H * W) + h * W + w for an input element), in blocks of 128
threads (8 on the simulator, below), as many blocks as that needs.

These functions take and return device arrays (CuPy's, the storage of CUDA tensors):
the kernels read and write them in GPU memory (`minigrad.array_module.kernel_view`),
the outputs are allocated with CuPy, and nothing crosses to the host. Sizes and window
parameters are passed as plain integer arguments of the launch. Given NumPy arrays (the
``"cuda"`` backend's demonstration on CPU tensors), Numba copies them to the GPU and
back around each launch. On a machine without a GPU, the same code runs on Numba's simulator
(NUMBA_ENABLE_CUDASIM=1), one Python thread per GPU thread: correct but slow, so the
tests use tiny shapes.
"""

import math

import numba
import numpy as np
from numba import cuda

from minigrad.array_module import array_module, kernel_view
from minigrad.kernels.reference.pool import pool_output_shape

# On the simulator every thread is a Python thread, started and joined one by one: there
# the blocks are small (which also makes the tests' tiny shapes span several blocks).
SIMULATED = bool(numba.config.ENABLE_CUDASIM)
THREADS_PER_BLOCK = 8 if SIMULATED else 128


def _blocks(n):
    """Blocks of THREADS_PER_BLOCK threads needed for n threads (the last one partly idle)."""
    return (n + THREADS_PER_BLOCK - 1) // THREADS_PER_BLOCK


# ---- max pooling --------------------------------------------------------------------------
@cuda.jit
def _max_pool2d_kernel(x, kh, kw, sh, sw, ph, pw, dh, dw, y, indices):
    """x (P, H, W) -> y, indices (P, OH, OW): thread t computes output t."""
    P, H, W = x.shape
    OH, OW = y.shape[1], y.shape[2]
    t = cuda.grid(1)  # this thread's number: blockIdx.x * blockDim.x + threadIdx.x
    if t >= P * OH * OW:
        return  # the spare threads of the last block
    p, rest = t // (OH * OW), t % (OH * OW)
    i, j = rest // OW, rest % OW
    m = -math.inf
    at = -1  # nothing seen yet: the window's first real element will be taken
    for a in range(kh):
        h = i * sh - ph + a * dh
        if h < 0 or h >= H:
            continue
        for b in range(kw):
            w = j * sw - pw + b * dw
            if w < 0 or w >= W:
                continue
            v = x[p, h, w]
            # larger wins, ties keep the earlier element, the first NaN wins and stays
            if at < 0 or v > m or (v != v and m == m):
                m = v
                at = h * W + w
    y[p, i, j] = m
    indices[p, i, j] = at


def max_pool2d_forward(x, kernel_size, stride, padding, dilation, ceil_mode):
    """(y, indices), both (N, C, OH, OW), as the reference, for a device array x: one
    thread per output, writing into y and indices, allocated on the device."""
    xp = array_module(x)
    N, C, H, W = x.shape
    OH, OW = pool_output_shape((H, W), kernel_size, stride, padding, dilation, ceil_mode)
    y = xp.empty((N * C, OH, OW), dtype=x.dtype)  # every element is written by its thread
    indices = xp.empty((N * C, OH, OW), dtype=np.int64)
    if N * C * OH * OW:  # a launch of zero blocks is an error
        planes = xp.ascontiguousarray(x).reshape(N * C, H, W)
        window = (*kernel_size, *stride, *padding, *dilation)
        _max_pool2d_kernel[_blocks(N * C * OH * OW), THREADS_PER_BLOCK](
            kernel_view(planes), *window, kernel_view(y), kernel_view(indices)
        )
    return y.reshape(N, C, OH, OW), indices.reshape(N, C, OH, OW)


@cuda.jit
def _max_pool2d_backward_kernel(grad_y, indices, grad_x):
    """grad_x (P, H * W), zeroed: thread t = output (p, i, j) adds its gradient at the
    input element its window chose. Overlapping windows may choose the same element at
    the same moment, so the addition is atomic (done by the memory as one step)."""
    P, OH, OW = grad_y.shape
    t = cuda.grid(1)
    if t >= P * OH * OW:
        return
    p, rest = t // (OH * OW), t % (OH * OW)
    i, j = rest // OW, rest % OW
    k = indices[p, i, j]
    if 0 <= k < grad_x.shape[1]:  # a stray index would write outside the array: skip it
        cuda.atomic.add(grad_x, (p, k), grad_y[p, i, j])


def max_pool2d_backward(grad_y, indices, x_shape):
    """dL/dx (x_shape), as the reference: zeros on the device, then one thread per output
    scatters its gradient.

    This backward scatters where the average one gathers: a gather needs to know which
    windows could contain an element, and this function is given only `indices`, not the
    window geometry. With overlapping windows the atomic additions land in an order that
    changes from run to run, so the last bit of a sum may too; with stride >= kernel
    size (no overlap) every element receives at most one gradient and the result is exact.
    """
    xp = array_module(grad_y)
    N, C, H, W = x_shape
    OH, OW = grad_y.shape[2:]
    grad_x = xp.zeros((N * C, H * W), dtype=grad_y.dtype)  # the threads only add to it
    if N * C * OH * OW and H * W:
        grad_y = xp.ascontiguousarray(grad_y).reshape(N * C, OH, OW)
        indices = xp.ascontiguousarray(indices, dtype=np.int64).reshape(N * C, OH, OW)
        _max_pool2d_backward_kernel[_blocks(N * C * OH * OW), THREADS_PER_BLOCK](
            kernel_view(grad_y), kernel_view(indices), kernel_view(grad_x)
        )
    return grad_x.reshape(x_shape)


# ---- average pooling ------------------------------------------------------------------------
# --8<-- [start:divisor]
@cuda.jit(device=True)
def _window_count(o, stride, pad, kernel, size, count_include_pad):
    """How many elements average-pooling window o counts along one axis (the
    reference's `window_counts` for one window)."""
    start = o * stride - pad
    end = min(start + kernel, size + pad)  # a ceil-mode window stops at the padding's end
    if count_include_pad:
        return end - start
    return min(end, size) - max(start, 0)


@cuda.jit(device=True)
def _divisor(i, j, H, W, kh, kw, sh, sw, ph, pw, count_include_pad, divisor_override):
    if divisor_override != 0:
        return divisor_override
    rows = _window_count(i, sh, ph, kh, H, count_include_pad)
    cols = _window_count(j, sw, pw, kw, W, count_include_pad)
    return rows * cols
    # --8<-- [end:divisor]


@cuda.jit
def _avg_pool2d_kernel(x, kh, kw, sh, sw, ph, pw, count_include_pad, divisor_override, y):
    """x (P, H, W) -> y (P, OH, OW): thread t sums window t and divides."""
    P, H, W = x.shape
    OH, OW = y.shape[1], y.shape[2]
    t = cuda.grid(1)
    if t >= P * OH * OW:
        return
    p, rest = t // (OH * OW), t % (OH * OW)
    i, j = rest // OW, rest % OW
    total = 0.0  # summed in float64, rounded once when stored
    for h in range(max(i * sh - ph, 0), min(i * sh - ph + kh, H)):  # the window's real rows
        for w in range(max(j * sw - pw, 0), min(j * sw - pw + kw, W)):
            total += x[p, h, w]
    y[p, i, j] = total / _divisor(
        i, j, H, W, kh, kw, sh, sw, ph, pw, count_include_pad, divisor_override
    )


def avg_pool2d_forward(
    x, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override=None
):
    """y (N, C, OH, OW), as the reference: one thread per output."""
    xp = array_module(x)
    N, C, H, W = x.shape
    OH, OW = pool_output_shape((H, W), kernel_size, stride, padding, (1, 1), ceil_mode)
    y = xp.empty((N * C, OH, OW), dtype=x.dtype)  # every element is written by its thread
    if N * C * OH * OW:
        planes = xp.ascontiguousarray(x).reshape(N * C, H, W)
        _avg_pool2d_kernel[_blocks(N * C * OH * OW), THREADS_PER_BLOCK](
            kernel_view(planes),
            *kernel_size,
            *stride,
            *padding,
            int(bool(count_include_pad)),
            int(divisor_override or 0),
            kernel_view(y),
        )
    return y.reshape(N, C, OH, OW)


@cuda.jit(device=True)
def _covering(pos, n_out, stride, pad, kernel):
    """The range [first, last) of outputs o whose window, from o * stride - pad over
    `kernel` input elements, contains input position `pos`:
    o * stride - pad <= pos <= o * stride - pad + kernel - 1."""
    lowest = pos + pad - kernel + 1  # o * stride must be at least this ...
    first = 0 if lowest <= 0 else (lowest + stride - 1) // stride  # (ceil division)
    last = min(n_out, (pos + pad) // stride + 1)  # ... and at most pos + pad
    return first, max(first, last)


@cuda.jit
def _avg_pool2d_backward_kernel(
    grad_y, kh, kw, sh, sw, ph, pw, count_include_pad, divisor_override, grad_x
):
    """grad_x (P, H, W): thread t = input element (p, h, w) sums grad_y / divisor over
    the windows that contain it."""
    P, H, W = grad_x.shape
    OH, OW = grad_y.shape[1], grad_y.shape[2]
    t = cuda.grid(1)
    if t >= P * H * W:
        return
    p, rest = t // (H * W), t % (H * W)
    h, w = rest // W, rest % W
    i0, i1 = _covering(h, OH, sh, ph, kh)
    j0, j1 = _covering(w, OW, sw, pw, kw)
    total = 0.0
    for i in range(i0, i1):
        for j in range(j0, j1):
            divisor = _divisor(
                i, j, H, W, kh, kw, sh, sw, ph, pw, count_include_pad, divisor_override
            )
            total += grad_y[p, i, j] / divisor
    grad_x[p, h, w] = total


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
    """dL/dx (x_shape), as the reference: one thread per input element."""
    xp = array_module(grad_y)
    N, C, H, W = x_shape
    OH, OW = grad_y.shape[2:]
    if N * C * H * W == 0:
        return xp.zeros(x_shape, dtype=grad_y.dtype)
    grad_y = xp.ascontiguousarray(grad_y).reshape(N * C, OH, OW)
    grad_x = xp.empty((N * C, H, W), dtype=grad_y.dtype)  # every element is written by its thread
    _avg_pool2d_backward_kernel[_blocks(N * C * H * W), THREADS_PER_BLOCK](
        kernel_view(grad_y),
        *kernel_size,
        *stride,
        *padding,
        int(bool(count_include_pad)),
        int(divisor_override or 0),
        kernel_view(grad_x),
    )
    return grad_x.reshape(x_shape)
