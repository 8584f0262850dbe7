"""Layer norm and RMS norm over the rows of a (rows, N) host array, the rows shared out
over the cores (the reference, with the formulas: kernels/reference/layer_norm.py).

    forward:  rstd = 1 / sqrt(mean((x - mean)^2) + eps),  xhat = (x - mean) * rstd,
              y = xhat * w + b                            (RMS norm: mean = 0)
    backward: dL/dx = rstd * (g - mean(g) - xhat * mean(g * xhat)),  g = dy * w,
              dL/dw = sum over rows of dy * xhat,  dL/db = sum over rows of dy

In NumPy each of these is several passes over the (rows, N) array, each on one core and
each writing a temporary. Here the loop takes a row at a time: the row (N numbers, a few
KB) stays in the core's cache while its mean, its variance and then xhat and y are
computed, so the array is read from memory once.

The kernels are serial loops over tasks [lo, hi), which kernels/cpu/workers.py cuts into
one block per thread from MIN_SPLIT elements on; below it the calling thread runs every
task itself, which costs less than waking a thread. The forward's task is a row. The
sums over rows of the backward (dL/dw, dL/db) would make every thread add into the same
N numbers; instead its task is a block of rows, summed into that block's own row of
`partial`, and the few partial rows are added at the end.

The statistics and the sums are accumulated in float64 whatever x's dtype (a row's mean
in float32 loses digits when N is large; in float64 it costs nothing here, the loop being
bound by memory). Arrays smaller than MIN_KERNEL elements, and dtypes other than float32
and float64, go to the reference: a process that never normalises a large array then
never compiles the kernels. benchmarks/RESULTS.md (issue #24, points 2 and 4) has the
measurements behind both thresholds.
"""

import numpy as np

from minigrad.kernels.cpu import workers
from minigrad.kernels.jit import FASTMATH, njit
from minigrad.kernels.reference import layer_norm as reference

# (see the module's docstring) below this many elements the reference runs; from MIN_SPLIT
# on the kernel's tasks are cut over the threads
MIN_KERNEL = 32768
MIN_SPLIT = 262144
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


@njit(nogil=True, cache=True, fastmath=FASTMATH, error_model="numpy")
def _forward(x, w, b, eps, rms, y, xhat, rstd, lo, hi):
    n = x.shape[1]
    for r in range(lo, hi):  # task r: row r
        mean = 0.0
        if not rms:
            for j in range(n):
                mean += x[r, j]
            mean /= n
        var = 0.0
        for j in range(n):
            c = x[r, j] - mean
            var += c * c
        s = 1.0 / np.sqrt(var / n + eps)
        rstd[r] = s
        for j in range(n):
            h = (x[r, j] - mean) * s
            xhat[r, j] = h
            y[r, j] = h * w[j] + b[j]


@njit(nogil=True, cache=True, fastmath=FASTMATH, error_model="numpy")
def _backward(dy, xhat, rstd, w, rms, need_x, dx, partial_w, partial_b, lo, hi):
    rows, n = dy.shape
    blocks = partial_w.shape[0]
    # task k: the k-th of `blocks` equal blocks of rows, summed into partial_*[k]; which
    # rows those are depends on `blocks` only, not on which thread runs the task
    for k in range(lo, hi):
        for r in range(k * rows // blocks, (k + 1) * rows // blocks):
            sum_g, sum_g_xhat = 0.0, 0.0
            for j in range(n):
                d, h = dy[r, j], xhat[r, j]
                partial_w[k, j] += d * h
                partial_b[k, j] += d
                g = d * w[j]
                sum_g += g
                sum_g_xhat += g * h
            if need_x:
                mean_g = 0.0 if rms else sum_g / n
                mean_g_xhat = sum_g_xhat / n
                s = rstd[r]
                for j in range(n):
                    dx[r, j] = (dy[r, j] * w[j] - mean_g - xhat[r, j] * mean_g_xhat) * s


def _on_kernel(*arrays):
    """Whether the compiled loops take these arrays (else the reference runs)."""
    x = arrays[0]
    return x.size >= MIN_KERNEL and x.shape[1] > 0 and all(a.dtype in _FLOATS for a in arrays)


def _vector(v, n, fill, dtype):
    """weight or bias as a contiguous (N,) array of dtype; `fill` for None."""
    if v is None:
        return np.full(n, fill, dtype)
    return np.ascontiguousarray(v, dtype=dtype).reshape(n)


def forward(x, weight, bias, eps, rms=False):
    """(y, xhat, rstd) for x (rows, N); rstd has shape (rows, 1). weight, bias: (N,) or None."""
    if not _on_kernel(x):
        return reference.forward(x, weight, bias, eps, rms)
    x = np.ascontiguousarray(x)
    rows, n = x.shape
    w, b = _vector(weight, n, 1.0, x.dtype), _vector(bias, n, 0.0, x.dtype)
    y, xhat = np.empty_like(x), np.empty_like(x)
    rstd = np.empty((rows, 1), x.dtype)
    args = (x, w, b, float(eps), bool(rms), y, xhat, rstd.reshape(rows))
    workers.run(_forward, rows, *args, split=x.size >= MIN_SPLIT)
    return y, xhat, rstd


def backward(dy, xhat, rstd, weight, rms=False, need_x=True, need_weight=True, need_bias=True):
    """(dL/dx, dL/dw, dL/db) for dy, xhat (rows, N) and rstd (rows, 1); None for what is
    not needed."""
    if not _on_kernel(dy, xhat, rstd):
        return reference.backward(dy, xhat, rstd, weight, rms, need_x, need_weight, need_bias)
    dy, xhat = np.ascontiguousarray(dy), np.ascontiguousarray(xhat, dtype=dy.dtype)
    rows, n = dy.shape
    w = _vector(weight, n, 1.0, dy.dtype)
    rstd = np.ascontiguousarray(rstd, dtype=dy.dtype).reshape(rows)
    # one block of rows per thread, even when this thread runs them all (under MIN_SPLIT):
    # then dL/dw and dL/db are the same sums either way
    blocks = max(1, min(workers.count(), rows))
    partial_w, partial_b = np.zeros((blocks, n)), np.zeros((blocks, n))
    dx = np.empty_like(dy) if need_x else np.empty((0, n), dy.dtype)
    args = (dy, xhat, rstd, w, bool(rms), bool(need_x), dx, partial_w, partial_b)
    workers.run(_backward, blocks, *args, split=dy.size >= MIN_SPLIT)
    grad_weight = partial_w.sum(axis=0).astype(dy.dtype) if need_weight else None
    grad_bias = partial_b.sum(axis=0).astype(dy.dtype) if need_bias else None
    return (dx if need_x else None), grad_weight, grad_bias
