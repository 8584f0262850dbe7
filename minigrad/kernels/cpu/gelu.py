"""GELU and its slope in one compiled pass over a host array (the reference, with the
formulas: kernels/reference/gelu.py).

    y = x Phi(x),    s = GELU'(x) = Phi(x) + x phi(x),
    Phi(x) = (1 + erf(x / sqrt 2)) / 2,    phi(x) = e^(-x^2/2) / sqrt(2 pi)

(approximate='tanh': Phi(x) ~ (1 + tanh(u)) / 2, u = sqrt(2/pi) (x + 0.044715 x^3), and s
its derivative, in loops of the same shape.)

Written with NumPy, y and s take about ten passes over the array (erf, e^(-x^2/2) and the
products and sums around them, each a temporary as big as x); in one loop x is read once
and y and s are written once. From MIN_SPLIT elements on, the loop's chunks of the array
are shared out over the cores (kernels/cpu/workers.py); below it one thread runs them all.

- float32 (and float16, computed in float32): every step in float32, 8 numbers per
  AVX2 instruction. erf is the rational function and e^t (t <= 0) the written-out
  exponential of vecmath.py (`erf_rational32`, `exp_nonpositive32`): Numba's own erf and
  exp call the C library once per number, which no compiler can vectorise. Both y and s
  stay within 2 eps |x| and 2 eps max(1, |x|) of the exact values (eps = 2^-23), as close
  as PyTorch's float32 GELU (within 2.5 of each). For x < 0, Phi(x) = (1 + erf) / 2 loses
  digits to cancellation in float32, as in PyTorch.
- float64 (and any other dtype, returned in it): `math.erf` and `math.exp`, exact to
  double precision, one call per element: the gradient checks run in float64.
"""

import functools
import math

import numpy as np

from minigrad.kernels.cpu import workers
from minigrad.kernels.cpu.vecmath import erf_rational32, exp_nonpositive32
from minigrad.kernels.jit import FASTMATH, njit
from minigrad.kernels.reference import gelu as reference
from minigrad.kernels.reference.gelu import INV_SQRT_2PI, SQRT1_2, TANH_C, TANH_K

# The float32 loops' constants, as float32: with Python floats Numba would compute in
# float64, at half the vector width
_F = np.float32
_SQRT1_2, _INV_SQRT_2PI = _F(SQRT1_2), _F(INV_SQRT_2PI)
_HALF, _ONE, _TWO = _F(0.5), _F(1.0), _F(2.0)
_K, _K3, _C = _F(TANH_K), _F(TANH_K * 3 * TANH_C), _F(TANH_C)
_ZERO, _INF, _NAN = _F(0.0), _F(np.inf), _F(np.nan)

# The loops' tasks are chunks of CHUNK elements of the flat array: task k is elements
# [k CHUNK, (k + 1) CHUNK), and a call of a loop runs the chunks lo .. hi - 1 (workers.py
# cuts the chunks into one block per thread). Chunks, not single elements: a block then
# starts on a multiple of CHUNK, so every element but the array's last few is computed by
# the vector loop, as in one pass over the whole array, and the result is the same to the
# last bit however the work is cut. A block edge anywhere would put the elements before it
# through the loop's scalar remainder, which fastmath allows to round differently (on the
# workplace's Xeon it happens not to: chunks of 255 gave the same bits, but nothing says so).
CHUNK = 16384  # elements: a multiple of any vector width
MIN_SPLIT = 262144  # elements; fewer: one block, on the calling thread


@njit(cache=True, inner=True)
def _chunk(task, chunk, size):
    """Elements start .. stop - 1 of task `task`, unsigned: with a signed index Numba tests
    each access for a negative one (counted from the end), which stops the vector loop."""
    start = np.uint64(task) * np.uint64(chunk)
    return start, min(start + np.uint64(chunk), np.uint64(size))


# error_model="numpy": a division by zero gives inf instead of raising, so no check before
# each division stops the vector loop. s is empty for a forward without grad: a test made at
# run time, not a None (which Numba would compile as a second kernel, in a student's
# first run); it is the same for the whole loop, and LLVM takes it out of the
# loop, making one loop with the slope's half and one without
@njit(nogil=True, cache=True, fastmath=FASTMATH, error_model="numpy")
def _single(x, y, s, chunk, lo, hi):
    slope = s.size > 0
    for task in range(lo, hi):
        start, stop = _chunk(task, chunk, x.size)
        for i in range(start, stop):
            v = x[i]
            # Phi(x) = (1 + erf(x / sqrt 2)) / 2
            cdf = _HALF + _HALF * erf_rational32(v * _SQRT1_2)
            y[i] = v * cdf
            if slope:
                pdf = exp_nonpositive32(-_HALF * v * v) * _INV_SQRT_2PI  # phi(x); 0 for NaN
                # at x = +-inf the slope is inf * 0 = NaN, as in PyTorch; said outright, because
                # with reassociation allowed the vector loop gave inf on some CPUs
                s[i] = cdf + v * pdf if abs(v) != _INF else _NAN


# tanh form: (1 + tanh u) / 2 = 1 / (1 + e^(-2u)), u = k (x + c x^3), computed with
# e = e^(-2|u|) <= 1 so that nothing overflows and, for u < 0, as e / (1 + e): no
# 1 + tanh(u) cancelling. Its slope: cdf + 2 x cdf (1 - cdf) du/dx, cdf (1 - cdf) =
# e / (1 + e)^2 for either sign (d tanh/du = 1 - tanh^2 = 4 cdf (1 - cdf)).
@njit(nogil=True, cache=True, fastmath=FASTMATH, error_model="numpy")
def _single_tanh(x, y, s, chunk, lo, hi):
    slope = s.size > 0
    for task in range(lo, hi):
        start, stop = _chunk(task, chunk, x.size)
        for i in range(start, stop):
            v = x[i]
            u = _K * (v + _C * v * v * v)
            e = exp_nonpositive32(-_TWO * abs(u))
            inv = _ONE / (_ONE + e)
            cdf = inv if u >= _ZERO else e * inv  # a float32 zero, like every constant here
            y[i] = v * cdf
            if slope:
                s[i] = cdf + _TWO * v * (e * inv * inv) * (_K + _K3 * v * v)


@njit(nogil=True, cache=True)
def _double(x, y, s, chunk, lo, hi):
    slope = s.size > 0
    for task in range(lo, hi):
        start, stop = _chunk(task, chunk, x.size)
        for i in range(start, stop):
            v = x[i]
            cdf = 0.5 * (1.0 + math.erf(v * SQRT1_2))
            y[i] = v * cdf
            if slope:
                s[i] = cdf + v * (math.exp(-0.5 * v * v) * INV_SQRT_2PI)


@njit(nogil=True, cache=True)
def _double_tanh(x, y, s, chunk, lo, hi):  # _single_tanh's formulas, the library's exp
    slope = s.size > 0
    for task in range(lo, hi):
        start, stop = _chunk(task, chunk, x.size)
        for i in range(start, stop):
            v = x[i]
            u = TANH_K * (v + TANH_C * v * v * v)
            e = math.exp(-2.0 * abs(u))
            cdf = 1.0 / (1.0 + e) if u >= 0 else e / (1.0 + e)
            y[i] = v * cdf
            if slope:
                du_dx = TANH_K * (1.0 + 3.0 * TANH_C * v * v)
                s[i] = cdf + 2.0 * v * (e / ((1.0 + e) * (1.0 + e))) * du_dx


_F4, _F8 = np.dtype(np.float32), np.dtype(np.float64)
_LOOPS = {("none", _F4): _single, ("none", _F8): _double}
_LOOPS.update({("tanh", _F4): _single_tanh, ("tanh", _F8): _double_tanh})


def gelu_and_slope(x, slope=True, approximate="none"):
    """(y, s) for the array x: y = GELU(x) and s = GELU'(x) (None unless `slope`), in
    x's shape and dtype; approximate='tanh' for the tanh form."""
    work = np.float32 if x.dtype in (np.float32, np.float16) else np.float64
    flat = np.ascontiguousarray(x, dtype=work).reshape(-1)
    y = np.empty_like(flat)
    s = np.empty_like(flat) if slope else flat[:0]  # empty: no slope
    loop, tasks = _LOOPS[approximate, flat.dtype], -(-flat.size // CHUNK)
    # the chunks cut into one block per thread, from MIN_SPLIT elements on
    workers.run(loop, tasks, flat, y, s, CHUNK, split=flat.size >= MIN_SPLIT)
    # ascontiguousarray turns a 0-d array into shape (1,): restore the input's shape
    shape, dtype = np.shape(x), x.dtype
    y = y.reshape(shape).astype(dtype, copy=False)
    return y, (s.reshape(shape).astype(dtype, copy=False) if slope else None)


def gelu_backward(grad, slope):
    """dL/dx = dL/dy * s, from the slope s that the forward kept: NumPy's product, from
    MIN_SPLIT elements on cut into one block of the flat arrays per thread (NumPy lets go
    of Python's lock while it multiplies, so the blocks run at once; on one core a
    memory-bound pass over nanoGPT's (64, 256, 1536) activations would keep the other
    cores waiting). The same numbers as one product: each element is one multiply."""
    if (
        type(grad) is not np.ndarray
        or grad.size < MIN_SPLIT
        or grad.shape != slope.shape
        or grad.dtype != slope.dtype
        or not (grad.flags.c_contiguous and slope.flags.c_contiguous)
    ):
        return reference.gelu_backward(grad, slope)
    dx = np.empty(grad.shape, grad.dtype)
    g, s, out = grad.reshape(-1), slope.reshape(-1), dx.reshape(-1)
    cuts = workers.blocks(g.size, workers.count())
    workers.run_jobs(
        [functools.partial(np.multiply, g[a:b], s[a:b], out=out[a:b]) for a, b in cuts]
    )
    return dx
