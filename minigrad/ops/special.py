"""The error function erf, which NumPy lacks (GELU and the normal CDF need it).

`math.erf` is exact to double precision; a Numba loop applies it to a whole array at
compiled speed. Without Numba, NumPy's `vectorize` applies it element by element.

Numba is imported on the first call, not when this module is imported: importing Numba
takes longer than importing all of minigrad, and most programs never call erf.
"""

import math

import numpy as np

_erf_loop = None  # the compiled loop (or the NumPy fallback), made on first use


def _make_loop():
    try:
        from minigrad.kernels.jit import njit  # numba's, with a cache that never fails to find a home
    except ImportError:  # pragma: no cover - numba is a runtime dependency
        vectorized = np.vectorize(math.erf, otypes=[np.float64])

        def loop(x, out):
            out[...] = vectorized(x)

        return loop

    @njit(cache=True)
    def loop(x, out):
        for i in range(x.size):
            out[i] = math.erf(x[i])

    return loop


def erf(x):
    """erf(x) = 2/sqrt(pi) * integral_0^x exp(-t^2) dt, elementwise, in x's dtype."""
    global _erf_loop
    if _erf_loop is None:
        _erf_loop = _make_loop()
    flat = np.ascontiguousarray(x).reshape(-1)
    out = np.empty_like(flat)
    _erf_loop(flat, out)
    # ascontiguousarray turns a 0-d array into shape (1,): restore the input's shape
    return out.reshape(np.shape(x))
