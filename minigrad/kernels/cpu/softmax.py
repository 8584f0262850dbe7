"""Softmax, log-softmax and cross-entropy along the last axis of a host array, the rows
shared out over the cores (the reference, with the formulas: kernels/reference/softmax.py).

    softmax:      y = e^(x - m) / sum(e^(x - m)),  dL/dx = y * (g - sum(g * y))
    log-softmax:  y = (x - m) - log(sum(e^(x - m))),  dL/dx = g - e^y * sum(g)
    cross-entropy: loss = -sum(A * log_softmax(x)), the terms with A = 0 left out

(m the row's max, g = dL/dy.) In NumPy each is four to six passes over the array (the
max, the shift, exp, the sum, the division), each on one core and each writing a
temporary. Here one thread takes a row at a time and the row stays in its core's cache
for all of them. The exponentials of float32 rows are the vectorisable e^t (t <= 0) of
vecmath.py, of float64 rows the C library's; the sums are kept in float64.

Arrays smaller than `PARALLEL_MIN` elements, another axis than the last, and dtypes
other than float32 and float64 go to the reference (benchmarks/RESULTS.md, issue #24
point 2, has the measurement behind the threshold).

NaN and infinities come out as in the reference: a row with a NaN, or with +inf, or all
-inf, is NaN throughout; a -inf logit (a masked class) has probability 0.
"""

import math

import numpy as np
from numba import prange

from minigrad.kernels.cpu.vecmath import exp_nonpositive32
from minigrad.kernels.jit import FASTMATH, njit
from minigrad.kernels.reference import softmax as reference

# below this many elements the reference runs (see the module's docstring)
PARALLEL_MIN = 16384
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


@njit(cache=True, fastmath=FASTMATH, error_model="numpy")
def _row_max_and_sum(x, r):
    """(m, sum(e^(x[r] - m))) of row r; m is NaN if the row holds a NaN, as np.max."""
    n = x.shape[1]
    m = x[r, 0]
    for j in range(1, n):
        v = x[r, j]
        if v > m or v != v:  # once m is NaN, no v is greater: it stays NaN
            m = v
    s = 0.0
    if x.itemsize == 4:  # a compile-time constant: one branch is compiled per dtype
        for j in range(n):
            s += exp_nonpositive32(x[r, j] - m)
    else:
        for j in range(n):
            s += math.exp(x[r, j] - m)
    return m, s


@njit(parallel=True, cache=True, fastmath=FASTMATH, error_model="numpy")
def _softmax(x, log, y):
    rows, n = x.shape
    for r in prange(rows):
        m, s = _row_max_and_sum(x, r)
        if log:
            # (a NaN m or s gives NaN; exp_nonpositive32 of NaN is 0, so a NaN row of
            # float32 has s counting only the rest, and m, NaN, makes every y NaN)
            shift = m + math.log(s)
            for j in range(n):
                y[r, j] = x[r, j] - shift
        else:
            inv = 1.0 / s if m == m else math.nan
            if x.itemsize == 4:
                for j in range(n):
                    y[r, j] = exp_nonpositive32(x[r, j] - m) * inv
            else:
                for j in range(n):
                    y[r, j] = math.exp(x[r, j] - m) * inv


@njit(parallel=True, cache=True, fastmath=FASTMATH, error_model="numpy")
def _softmax_backward(y, grad, log, dx):
    rows, n = y.shape
    for r in prange(rows):
        s = 0.0
        if log:
            for j in range(n):
                s += grad[r, j]
            if y.itemsize == 4:
                for j in range(n):
                    dx[r, j] = grad[r, j] - exp_nonpositive32(y[r, j]) * s
            else:
                for j in range(n):
                    dx[r, j] = grad[r, j] - math.exp(y[r, j]) * s
        else:
            for j in range(n):
                s += grad[r, j] * y[r, j]
            for j in range(n):
                dx[r, j] = y[r, j] * (grad[r, j] - s)


@njit(parallel=True, cache=True, fastmath=FASTMATH, error_model="numpy")
def _cross_entropy(x, coeff, losses):
    rows, n = x.shape
    for r in prange(rows):
        m, s = _row_max_and_sum(x, r)
        shift = m + math.log(s)
        total = 0.0
        for j in range(n):
            c = coeff[r, j]
            if c != 0:
                total += c * (x[r, j] - shift)
        losses[r] = -total


def _last(axis, ndim):
    return ndim >= 1 and axis % ndim == ndim - 1


def _on_kernel(axis, *arrays):
    """Whether the compiled loops take these arrays (else the reference runs)."""
    x = arrays[0]
    return (
        _last(axis, x.ndim)
        and x.size >= PARALLEL_MIN
        and x.shape[-1] > 0
        and all(a.dtype in _FLOATS and a.shape == x.shape for a in arrays)
    )


def _rows(a, dtype=None):
    return np.ascontiguousarray(a, dtype=dtype).reshape(-1, a.shape[-1])


def softmax(x, axis, log=False):
    """softmax(x) (log-softmax with `log`) along `axis`, in x's shape and dtype."""
    if not _on_kernel(axis, x):
        return reference.softmax(x, axis, log)
    y = np.empty(x.shape, x.dtype)
    # a shift by +inf or -inf is NaN, which is meant (see the module's docstring)
    _softmax(_rows(x), bool(log), y.reshape(-1, x.shape[-1]))
    return y


def softmax_backward(y, grad, axis, log=False):
    """dL/dx from y = softmax(x) (log-softmax with `log`) and grad = dL/dy."""
    if not _on_kernel(axis, y, grad) or y.dtype != grad.dtype:
        return reference.softmax_backward(y, grad, axis, log)
    dx = np.empty(y.shape, y.dtype)
    _softmax_backward(_rows(y), _rows(grad), bool(log), dx.reshape(-1, y.shape[-1]))
    return dx


def cross_entropy(x, coeff, axis):
    """-sum(coeff * log_softmax(x)) along `axis` (terms with coeff 0 left out), in
    float64 (the reference's dtype for float64 coefficients); coeff has x's shape."""
    if not _on_kernel(axis, x, coeff):
        return reference.cross_entropy(x, coeff, axis)
    losses = np.empty(x.shape[:-1], np.float64)
    _cross_entropy(_rows(x), _rows(coeff), losses.reshape(-1))
    return losses
