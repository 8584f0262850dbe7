"""The error function erf, which NumPy lacks (GELU and the normal CDF need it).

`math.erf` is exact to double precision; a Numba loop applies it to a whole array at
compiled speed. Without Numba, NumPy's `vectorize` applies it element by element.
"""

import math

import numpy as np

try:
    from minigrad.kernels.jit import njit  # numba's, with a cache that never fails to find a home

    @njit(cache=True)
    def _erf_loop(x, out):
        for i in range(x.size):
            out[i] = math.erf(x[i])

    def erf(x):
        flat = np.ascontiguousarray(x).reshape(-1)
        out = np.empty_like(flat)
        _erf_loop(flat, out)
        # ascontiguousarray turns a 0-d array into shape (1,): restore the input's shape
        return out.reshape(np.shape(x))

except ImportError:  # pragma: no cover - numba is a runtime dependency
    _erf_vec = np.vectorize(math.erf)

    def erf(x):
        return _erf_vec(x).astype(x.dtype)
