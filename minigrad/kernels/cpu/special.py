"""erf and erfc on host arrays, in compiled loops (the reference: kernels/reference/special.py).

erf, two loops by dtype:

- float64: `math.erf`, exact to double precision, one element at a time.
- float32: the rational function erf(x) ~ x P(x^2) / Q(x^2) (`erf_rational`, in
  vecmath.py), evaluated in float64: within 2 units in the last place of float32
  (PyTorch's float32 erf: within 1). `math.erf` calls a C function per element, which no
  compiler can turn into vector instructions; a polynomial and a division can be. A
  transformer's GELU applies erf to every hidden unit of its 4x wide MLP, forward and
  backward (benchmarks/RESULTS.md has the two loops' timings).

erfc: `math.erfc` per element, in float64 (rarer than erf, so written for clarity:
NumPy's `vectorize`, nothing compiled).
"""

import math

import numpy as np

from minigrad.kernels.cpu.vecmath import erf_rational
from minigrad.kernels.jit import FASTMATH, njit


@njit(cache=True)
def _exact(x, out):
    for i in range(x.size):
        out[i] = math.erf(x[i])


# error_model="numpy": a division by zero gives inf, as in NumPy, instead of raising as in
# Python; the check Python's rule needs before each division stops the vector loop
@njit(cache=True, fastmath=FASTMATH, error_model="numpy")
def _rational(x, out):
    for i in range(x.size):
        out[i] = erf_rational(np.float64(x[i]))


_LOOPS = {np.dtype(np.float32): _rational, np.dtype(np.float64): _exact}


def erf(x):
    """erf(x) = 2/sqrt(pi) * integral_0^x exp(-t^2) dt, elementwise, in x's dtype."""
    flat = np.ascontiguousarray(x).reshape(-1)
    out = np.empty_like(flat)
    _LOOPS.get(flat.dtype, _exact)(flat, out)
    # ascontiguousarray turns a 0-d array into shape (1,): restore the input's shape
    return out.reshape(np.shape(x))


_erfc = np.vectorize(math.erfc, otypes=[np.float64])


def erfc(x):
    """erfc(x) = 1 - erf(x), without the cancellation of 1 - erf(x) for large x
    (erfc(6) = 2.2e-17, which 1 - erf(6) rounds to 0), in x's dtype."""
    x = np.asarray(x)
    return _erfc(x).astype(x.dtype, copy=False)
