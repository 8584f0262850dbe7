"""Softmax, log-softmax and cross-entropy along the last axis of a host array, the rows
shared out over the cores (the reference, with the formulas: kernels/reference/softmax.py).

    softmax:      y = e^(x - m) / sum(e^(x - m)),  dL/dx = y * (g - sum(g * y))
    log-softmax:  y = (x - m) - log(sum(e^(x - m))),  dL/dx = g - e^y * sum(g)
    cross-entropy: loss = -sum(A * log_softmax(x)), the terms with A = 0 left out,
                   dL/dx = g * (softmax(x) * sum(A) - A)  (g = dL/dloss, one per row)

(m the row's max, g = dL/dy.) In NumPy each is four to six passes over the array (the
max, the shift, exp, the sum, the division), each on one core and each writing a
temporary; cross-entropy's backward as Tensor ops (ops/loss.py) is six more after the
log-softmax. Here the loop takes a row at a time and the row stays in its core's cache
for all of them. The kernels are serial loops over rows [lo, hi), which
kernels/cpu/workers.py cuts into one block per thread from MIN_SPLIT elements on; below
it the calling thread runs every row itself, which costs less than waking a thread. The
exponentials of float32 rows are the vectorisable e^t (t <= 0) of vecmath.py, of float64
rows the C library's; the sums are kept in float64.

Arrays smaller than MIN_KERNEL elements, another axis than the last, and dtypes other
than float32 and float64 go to the reference: a process that never takes the softmax of
a large array then never compiles the kernels. benchmarks/RESULTS.md (issue #24, points
2 and 4) has the measurements behind both thresholds.

NaN and infinities come out as in the reference: a row with a NaN, or with +inf, or all
-inf, is NaN throughout; a -inf logit (a masked class) has probability 0.
"""

import math

import numpy as np

from minigrad.kernels.cpu import workers
from minigrad.kernels.cpu.vecmath import exp_nonpositive32
from minigrad.kernels.jit import FASTMATH, njit
from minigrad.kernels.reference import softmax as reference

# (see the module's docstring) below this many elements the reference runs; from MIN_SPLIT
# on the rows are cut over the threads
MIN_KERNEL = 131072
MIN_SPLIT = 262144
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


LANES = 16  # running maxima side by side in `_row_max`: two AVX2 vectors of float32


@njit(cache=True, fastmath=FASTMATH, error_model="numpy", inner=True)
def _row_max(x, r, lanes):
    """The max of row r of x, or any of its values if it holds a NaN (the exp pass then
    makes the row NaN). `lanes` (LANES numbers, the thread's scratch) holds LANES running
    maxima, each over every LANES-th number: one vector compare for LANES numbers. A
    single running max is a chain of scalar compares, which LLVM does not vectorise
    (with NaN possible, a max may not be reordered)."""
    n = x.shape[1]
    for k in range(LANES):
        lanes[k] = x[r, 0]
    j = 0
    while j + LANES <= n:
        for k in range(LANES):
            v = x[r, j + k]
            lanes[k] = v if v > lanes[k] else lanes[k]
        j += LANES
    m = x[r, 0]
    for k in range(LANES):
        m = lanes[k] if lanes[k] > m else m
    for k in range(j, n):
        m = x[r, k] if x[r, k] > m else m
    return m


@njit(cache=True, fastmath=FASTMATH, error_model="numpy", inner=True)
def _exp_row(x, r, m, out):
    """out[j] = e^(x[r, j] - m) for row r (t <= 0, m the row's max), NaN where x - m is
    NaN (a NaN in the row, or m = +inf), and their sum, in float64."""
    s = 0.0
    if x.itemsize == 4:  # a compile-time constant: one branch is compiled per dtype
        for j in range(x.shape[1]):
            t = x[r, j] - m
            e = exp_nonpositive32(t)  # (which gives 0 for NaN)
            e = e if t == t else t
            out[j] = e
            s += e
    else:
        for j in range(x.shape[1]):
            e = math.exp(x[r, j] - m)
            out[j] = e
            s += e
    return s


# In each kernel task r is row r, and a call takes a block of rows [lo, hi) (workers.py):
# the scratch (the lanes, a row of exponentials) is made once per block, not once per row.
@njit(nogil=True, cache=True, fastmath=FASTMATH, error_model="numpy")
def _softmax(x, log, y, lo, hi):
    n = x.shape[1]
    lanes = np.empty(LANES, x.dtype)
    for r in range(lo, hi):
        m = _row_max(x, r, lanes)
        s = _exp_row(x, r, m, y[r])
        if log:  # y = x - m - log(s): y held the exponentials, now overwritten
            shift = m + math.log(s)
            for j in range(n):
                y[r, j] = x[r, j] - shift
        else:
            inv = 1.0 / s
            for j in range(n):
                y[r, j] *= inv


@njit(nogil=True, cache=True, fastmath=FASTMATH, error_model="numpy")
def _softmax_backward(y, grad, log, dx, lo, hi):
    n = y.shape[1]
    for r in range(lo, hi):
        s = 0.0
        if log:  # dx = g - e^y * sum(g); y <= 0, a log-probability
            for j in range(n):
                s += grad[r, j]
            if y.itemsize == 4:
                for j in range(n):
                    dx[r, j] = grad[r, j] - exp_nonpositive32(y[r, j]) * s
            else:
                for j in range(n):
                    dx[r, j] = grad[r, j] - math.exp(y[r, j]) * s
        else:  # dx = y * (g - sum(g * y))
            for j in range(n):
                s += grad[r, j] * y[r, j]
            for j in range(n):
                dx[r, j] = y[r, j] * (grad[r, j] - s)


@njit(nogil=True, cache=True, fastmath=FASTMATH, error_model="numpy")
def _cross_entropy(x, coeff, losses, lo, hi):
    n = x.shape[1]
    lanes, e = np.empty(LANES, x.dtype), np.empty(n, x.dtype)
    for r in range(lo, hi):
        m = _row_max(x, r, lanes)
        shift = m + math.log(_exp_row(x, r, m, e))  # log-softmax = x - shift
        total = 0.0
        for j in range(n):
            c = coeff[r, j]
            if c != 0:  # a 0 coefficient leaves the term out, even at a -inf logit
                total += c * (x[r, j] - shift)
        losses[r] = -total


@njit(nogil=True, cache=True, fastmath=FASTMATH, error_model="numpy")
def _cross_entropy_backward(x, coeff, g, dx, lo, hi):
    n = x.shape[1]
    lanes = np.empty(LANES, x.dtype)
    for r in range(lo, hi):
        m = _row_max(x, r, lanes)
        s = _exp_row(x, r, m, dx[r])  # dx holds e^(x - m) until the last loop
        total = 0.0  # sum(A), in float64
        for j in range(n):
            total += coeff[r, j]
        # g * (e / s * sum(A) - A): one division per row. A -inf logit has e = 0, so a
        # masked class gets -g * A = 0; a NaN in the row made s NaN, and the row NaN.
        gr = g[r]
        scale = gr * total / s
        for j in range(n):
            dx[r, j] = dx[r, j] * scale - gr * coeff[r, j]


def _last(axis, ndim):
    return ndim >= 1 and axis % ndim == ndim - 1


def compiled(x, axis):
    """Whether the compiled loops take x along `axis` (else the reference runs): the
    callers that have a cheaper path of their own for small arrays ask first
    (CrossEntropy.backward, ops/loss.py)."""
    return _on_kernel(axis, x)


def _on_kernel(axis, *arrays):
    """Whether the compiled loops take these arrays (else the reference runs)."""
    x = arrays[0]
    return (
        _last(axis, x.ndim)
        and x.size >= MIN_KERNEL
        and x.shape[-1] > 0
        and all(a.dtype in _FLOATS and a.shape == x.shape for a in arrays)
    )


def _run(kernel, rows, *args):
    """kernel(*args, lo, hi) over `rows` rows, on every thread from MIN_SPLIT elements on."""
    workers.run(kernel, rows, *args, split=rows * args[0].shape[1] >= MIN_SPLIT)


def _rows(a, dtype=None):
    return np.ascontiguousarray(a, dtype=dtype).reshape(-1, a.shape[-1])


def softmax(x, axis, log=False):
    """softmax(x) (log-softmax with `log`) along `axis`, in x's shape and dtype."""
    if not _on_kernel(axis, x):
        return reference.softmax(x, axis, log)
    y = np.empty(x.shape, x.dtype)
    # a shift by +inf or -inf is NaN, which is meant (see the module's docstring)
    rows = _rows(x)
    _run(_softmax, rows.shape[0], rows, bool(log), y.reshape(rows.shape))
    return y


def softmax_backward(y, grad, axis, log=False):
    """dL/dx from y = softmax(x) (log-softmax with `log`) and grad = dL/dy."""
    if not _on_kernel(axis, y, grad) or y.dtype != grad.dtype:
        return reference.softmax_backward(y, grad, axis, log)
    dx = np.empty(y.shape, y.dtype)
    rows = _rows(y)
    _run(_softmax_backward, rows.shape[0], rows, _rows(grad), bool(log), dx.reshape(rows.shape))
    return dx


def cross_entropy(x, coeff, axis):
    """-sum(coeff * log_softmax(x)) along `axis` (terms with coeff 0 left out), in
    float64 (the reference's dtype for float64 coefficients); coeff has x's shape."""
    if not _on_kernel(axis, x, coeff):
        return reference.cross_entropy(x, coeff, axis)
    losses = np.empty(x.shape[:-1], np.float64)
    rows = _rows(x)
    _run(_cross_entropy, rows.shape[0], rows, _rows(coeff), losses.reshape(-1))
    return losses


def cross_entropy_backward(x, coeff, g, axis):
    """dL/dx = g * (softmax(x) * sum(coeff) - coeff) along `axis`, in x's dtype; coeff
    has x's shape, g = dL/dloss is an array of the losses' shape or a number."""
    if not _on_kernel(axis, x, coeff) or x.dtype != coeff.dtype:
        return reference.cross_entropy_backward(x, coeff, g, axis)
    rows = _rows(x)
    # one g per row, in x's dtype: N numbers beside the N * C of the logits
    g_rows = np.ascontiguousarray(np.broadcast_to(g, x.shape[:-1]), dtype=x.dtype).reshape(-1)
    dx = np.empty(x.shape, x.dtype)
    _run(_cross_entropy_backward, rows.shape[0], rows, _rows(coeff), g_rows, dx.reshape(rows.shape))
    return dx
