"""Pooling on an NVIDIA GPU: Numba CUDA kernels, the same functions and signatures as the
reference.

A GPU runs thousands of threads at once, so each kernel gives one thread one element
to compute:

- **forward**: one thread per output element (n, c, i, j) walks its window and
  writes y[n, c, i, j] (and, for max, where the max was);
- **average backward**: one thread per *input* element (n, c, h, w) gathers the
  gradient from the few windows that contain it. Every input gradient is written once,
  by one thread, so nothing needs to be zeroed first and no two threads collide.
- **max backward**: one thread per output element scatters its gradient to the input
  element its window chose. It cannot gather, because it is given only `indices`,
  not the window geometry that says which windows to look in. Overlapping windows
  may choose the same element, so the additions are atomic.

The threads are numbered along one axis with the last index fastest,
t = ((n C + c) OH + i) OW + j for an output element ((n C + c) H + h) W + w for an input
one), in blocks of 256 threads (8 on the simulator, below), as many blocks as that
needs. Neighbouring threads therefore read and write neighbouring addresses, which the
GPU serves as a few wide memory transactions (coalesced accesses).

A pooling layer moves a few megabytes, which an H100 does in microseconds, so the time of
a call is mostly the Python around its launch. Each call is one kernel launch (the max
backward also zero-fills its output, a `cudaMemset` by CuPy); the arrays are passed as
they come, 4-d, with no reshaping or copying of a contiguous input; a kernel is typed
once per dtype and then launched specialized (`minigrad/kernels/cuda/launch.py`); and
the window's sizes go as plain ints, which Numba converts in a microsecond each (packing
them into one device array would cost more: an array argument is the expensive kind).

These functions take and return device arrays (CuPy's, the storage of CUDA tensors):
the kernels read and write them in GPU memory (`minigrad.array_module.kernel_view`),
the outputs are allocated with CuPy, and nothing crosses to the host. Given NumPy arrays
(the ``"cuda"`` backend's demonstration on CPU tensors), Numba copies them to the GPU and
back around each launch. On a machine without a GPU, the same code runs on Numba's
simulator (NUMBA_ENABLE_CUDASIM=1), one Python thread per GPU thread: correct but slow,
so the tests use tiny shapes.
"""

import math

import numba
import numpy as np
from numba import cuda

from minigrad.array_module import array_module, kernel_view
from minigrad.kernels.cuda.launch import Launcher, blocks
from minigrad.kernels.reference.pool import pool_output_shape

# On the simulator every thread is a Python thread, started and joined one by one: there
# the blocks are small (which also makes the tests' tiny shapes span several blocks).
SIMULATED = bool(numba.config.ENABLE_CUDASIM)
THREADS = 8 if SIMULATED else 256


# ---- max pooling --------------------------------------------------------------------------
@cuda.jit
def _max_pool2d_kernel(x, kh, kw, sh, sw, ph, pw, dh, dw, y, indices):
    """x (N, C, H, W) -> y, indices (N, C, OH, OW): thread t computes output t."""
    N, C, H, W = x.shape
    OH, OW = y.shape[2], y.shape[3]
    t = cuda.grid(1)  # this thread's number: blockIdx.x * blockDim.x + threadIdx.x
    if t >= N * C * OH * OW:
        return  # the spare threads of the last block
    j, i, plane = t % OW, (t // OW) % OH, t // (OW * OH)
    n, c = plane // C, plane % C
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
            v = x[n, c, h, w]
            # larger wins, ties keep the earlier element, the first NaN wins and stays
            if at < 0 or v > m or (v != v and m == m):
                m = v
                at = h * W + w
    y[n, c, i, j] = m
    indices[n, c, i, j] = at


_max_pool2d = Launcher(_max_pool2d_kernel)


def max_pool2d_forward(x, kernel_size, stride, padding, dilation, ceil_mode):
    """(y, indices), both (N, C, OH, OW), as the reference, for a device array x: one
    thread per output, writing into y and indices, allocated on the device."""
    xp = array_module(x)
    N, C, H, W = x.shape
    OH, OW = pool_output_shape((H, W), kernel_size, stride, padding, dilation, ceil_mode)
    y = xp.empty((N, C, OH, OW), dtype=x.dtype)  # every element is written by its thread
    indices = xp.empty((N, C, OH, OW), dtype=np.int64)
    if y.size:  # a launch of zero blocks is an error
        x = xp.ascontiguousarray(x)  # the kernel is specialized to C-contiguous arrays
        _max_pool2d(
            x.dtype,
            blocks(y.size, THREADS),
            THREADS,
            kernel_view(x),
            *kernel_size,
            *stride,
            *padding,
            *dilation,
            kernel_view(y),
            kernel_view(indices),
        )
    return y, indices


@cuda.jit
def _max_pool2d_backward_kernel(grad_y, indices, grad_x):
    """grad_x (N, C, H, W), zeroed: thread t = output (n, c, i, j) adds its gradient at the
    input element its window chose. Overlapping windows may choose the same element at
    the same moment, so the addition is atomic (done by the memory as one step)."""
    N, C, OH, OW = grad_y.shape
    H, W = grad_x.shape[2], grad_x.shape[3]
    t = cuda.grid(1)
    if t >= N * C * OH * OW:
        return
    j, i, plane = t % OW, (t // OW) % OH, t // (OW * OH)
    n, c = plane // C, plane % C
    k = indices[n, c, i, j]
    if 0 <= k < H * W:  # a stray index would write outside the array: skip it
        cuda.atomic.add(grad_x, (n, c, k // W, k % W), grad_y[n, c, i, j])


_max_pool2d_backward = Launcher(_max_pool2d_backward_kernel)


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
    grad_x = xp.zeros(tuple(x_shape), dtype=grad_y.dtype)  # the threads only add to it
    if grad_y.size and grad_x.size:
        grad_y = xp.ascontiguousarray(grad_y)
        indices = xp.ascontiguousarray(indices, dtype=np.int64)
        _max_pool2d_backward(
            grad_y.dtype,
            blocks(grad_y.size, THREADS),
            THREADS,
            kernel_view(grad_y),
            kernel_view(indices),
            kernel_view(grad_x),
        )
    return grad_x


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
    """x (N, C, H, W) -> y (N, C, OH, OW): thread t sums window t and divides."""
    N, C, H, W = x.shape
    OH, OW = y.shape[2], y.shape[3]
    t = cuda.grid(1)
    if t >= N * C * OH * OW:
        return
    j, i, plane = t % OW, (t // OW) % OH, t // (OW * OH)
    n, c = plane // C, plane % C
    total = 0.0  # summed in float64, rounded once when stored
    for h in range(max(i * sh - ph, 0), min(i * sh - ph + kh, H)):  # the window's real rows
        for w in range(max(j * sw - pw, 0), min(j * sw - pw + kw, W)):
            total += x[n, c, h, w]
    y[n, c, i, j] = total / _divisor(
        i, j, H, W, kh, kw, sh, sw, ph, pw, count_include_pad, divisor_override
    )


_avg_pool2d = Launcher(_avg_pool2d_kernel)


def avg_pool2d_forward(
    x, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override=None
):
    """y (N, C, OH, OW), as the reference: one thread per output."""
    xp = array_module(x)
    N, C, H, W = x.shape
    OH, OW = pool_output_shape((H, W), kernel_size, stride, padding, (1, 1), ceil_mode)
    y = xp.empty((N, C, OH, OW), dtype=x.dtype)  # every element is written by its thread
    if y.size:
        x = xp.ascontiguousarray(x)
        _avg_pool2d(
            x.dtype,
            blocks(y.size, THREADS),
            THREADS,
            kernel_view(x),
            *kernel_size,
            *stride,
            *padding,
            int(bool(count_include_pad)),
            int(divisor_override or 0),
            kernel_view(y),
        )
    return y


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
    """grad_x (N, C, H, W): thread t = input element (n, c, h, w) sums grad_y / divisor
    over the windows that contain it."""
    N, C, H, W = grad_x.shape
    OH, OW = grad_y.shape[2], grad_y.shape[3]
    t = cuda.grid(1)
    if t >= N * C * H * W:
        return
    w, h, plane = t % W, (t // W) % H, t // (W * H)
    n, c = plane // C, plane % C
    i0, i1 = _covering(h, OH, sh, ph, kh)
    j0, j1 = _covering(w, OW, sw, pw, kw)
    total = 0.0
    for i in range(i0, i1):
        for j in range(j0, j1):
            divisor = _divisor(
                i, j, H, W, kh, kw, sh, sw, ph, pw, count_include_pad, divisor_override
            )
            total += grad_y[n, c, i, j] / divisor
    grad_x[n, c, h, w] = total


_avg_pool2d_backward = Launcher(_avg_pool2d_backward_kernel)


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
    if grad_y.size == 0 or math.prod(x_shape) == 0:  # an empty batch: no kernel to launch
        return xp.zeros(tuple(x_shape), dtype=grad_y.dtype)
    grad_x = xp.empty(tuple(x_shape), dtype=grad_y.dtype)  # each element is written by its thread
    grad_y = xp.ascontiguousarray(grad_y)
    _avg_pool2d_backward(
        grad_y.dtype,
        blocks(grad_x.size, THREADS),
        THREADS,
        kernel_view(grad_y),
        *kernel_size,
        *stride,
        *padding,
        int(bool(count_include_pad)),
        int(divisor_override or 0),
        kernel_view(grad_x),
    )
    return grad_x
