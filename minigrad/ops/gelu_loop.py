"""GELU and its slope in one compiled pass over the array (Gelu in activation.py calls it).

    y = x Phi(x),    s = GELU'(x) = Phi(x) + x phi(x),
    Phi(x) = (1 + erf(x / sqrt 2)) / 2,    phi(x) = e^(-x^2/2) / sqrt(2 pi)

(approximate='tanh': Phi(x) ~ (1 + tanh(u)) / 2, u = sqrt(2/pi) (x + 0.044715 x^3), and s
its derivative, in loops of the same shape.)

Gelu's forward computes s along with y, so that the ordinary backward is one multiply,
dL/dx = dL/dy * s. Written with NumPy, y and s take about ten passes over the array
(erf, e^(-x^2/2) and the products and sums around them, each a temporary as big as x);
in one loop x is read once and y and s are written once.

- float32 (and float16, computed in float32): every step in float32, 8 numbers per
  AVX2 instruction. erf is the rational function of minigrad/ops/special.py, and
  e^t (t <= 0) is written out as in the attention kernel (kernels/cpu/attention.py,
  `exp_nonpositive`): Numba's own exp calls the C library once per number, which no
  compiler can vectorise. Both y and s stay within 2 eps |x| and 2 eps max(1, |x|) of the
  exact values (eps = 2^-23), as close as PyTorch's float32 GELU (within 2.5 of each).
  For x < 0, Phi(x) = (1 + erf) / 2 loses digits to cancellation in float32, as in PyTorch.
- float64 (and any other dtype, returned in it): `math.erf` and `math.exp`, exact to
  double precision, one call per element: the gradient checks run in float64.

Without Numba, the same formulas run as NumPy expressions, and so they do on a GPU
array (a CUDA tensor's), in its own array module: a Numba CPU loop cannot read GPU memory.

Numba is imported on the first call, not when this module is imported (as for erf).
"""

import math

import numpy as np

from minigrad.array_module import array_module
from minigrad.ops.special import ERF_P, ERF_Q, erf

SQRT1_2 = 1.0 / math.sqrt(2.0)
INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
# e^t = 2^n e^r, n = round(t / ln 2), r = t - n ln 2 in [-0.35, 0.35]: e^r by its Taylor
# series to r^7 (error below 1e-8 relative, under float32's 6e-8), highest power first
EXP_TAYLOR = tuple(1.0 / math.factorial(i) for i in range(7, -1, -1))
LOWEST = -87.3  # below this, e^t is not a normal float32: phi(x) counts as 0
LOG2E = 1.4426950408889634  # 1 / ln 2
LN2_HI, LN2_LO = 0.693145751953125, 1.4286068203094173e-06  # ln 2 = HI + LO; n * HI is exact
TANH_K, TANH_C = math.sqrt(2.0 / math.pi), 0.044715  # approximate='tanh': u = K (x + C x^3)

_loops = None  # {(approximate, dtype): loop(x, y, s)}, made on first use


def _make_loops():
    try:
        from minigrad.kernels.jit import FASTMATH, njit
    except ImportError:  # pragma: no cover - numba is a runtime dependency
        return {(a, np.dtype(t)): _numpy_loop(a) for a in ("none", "tanh") for t in (np.float32, np.float64)}

    # The float32 loops' constants, as float32: with Python floats Numba would compute
    # in float64, at half the vector width
    f32 = np.float32
    sqrt1_2, inv_sqrt_2pi, lowest, log2e = f32(SQRT1_2), f32(INV_SQRT_2PI), f32(LOWEST), f32(LOG2E)
    ln2_hi, ln2_lo, half, one, two, four, zero = (f32(c) for c in (LN2_HI, LN2_LO, 0.5, 1.0, 2.0, 4.0, 0.0))
    k, k3 = f32(TANH_K), f32(TANH_K * 3 * TANH_C)
    c_cubic = f32(TANH_C)
    inf, nan = f32(np.inf), f32(np.nan)
    P, Q, T = (tuple(f32(c) for c in cs) for cs in (ERF_P, ERF_Q, EXP_TAYLOR))

    # error_model="numpy": a division by zero gives inf instead of raising, so no check
    # before each division stops the vector loop. s is None for a forward without grad:
    # Numba compiles that case separately, without the slope's half of the loop
    @njit(cache=True, fastmath=FASTMATH, error_model="numpy")
    def single(x, y, s):
        for i in range(x.size):
            v = x[i]
            # Phi(x) = (1 + erf(z)) / 2, z = x / sqrt 2, erf(z) ~ z P(z^2) / Q(z^2)
            z = v * sqrt1_2
            z = four if z > four else z  # comparisons, not min/max: a NaN passes through
            z = -four if z < -four else z
            z2 = z * z
            p = (((((P[0] * z2 + P[1]) * z2 + P[2]) * z2 + P[3]) * z2 + P[4]) * z2 + P[5]) * z2 + P[6]
            q = (((Q[0] * z2 + Q[1]) * z2 + Q[2]) * z2 + Q[3]) * z2 + Q[4]
            e = z * p / q
            e = min(e, one) if e > zero else max(e, -one)  # |erf| <= 1, which rounding could break
            cdf = half + half * e
            y[i] = v * cdf
            if s is not None:
                # phi(x) = e^t / sqrt(2 pi), t = -x^2 / 2 <= 0, as 2^n e^r (written out in
                # each loop: a call to another compiled function would keep Numba from
                # caching this one)
                t = -half * v * v
                tc = max(t, lowest)
                n = np.floor(tc * log2e + half)  # round(t / ln 2), still a float
                r = (tc - n * ln2_hi) - n * ln2_lo
                er = ((((((T[0] * r + T[1]) * r + T[2]) * r + T[3]) * r + T[4]) * r + T[5]) * r + T[6]) * r + T[7]
                two_n = np.int32((np.int32(n) + 127) << 23).view(np.float32)  # exponent field n + 127
                pdf = er * two_n * inv_sqrt_2pi if t >= lowest else zero  # NaN or tiny: 0
                # at x = +-inf the slope is inf * 0 = NaN, as in PyTorch; said outright, because
                # with reassociation allowed the vector loop gave inf on some CPUs
                s[i] = cdf + v * pdf if abs(v) != inf else nan

    # tanh form: (1 + tanh u) / 2 = 1 / (1 + e^(-2u)), u = k (x + c x^3), computed with
    # e = e^(-2|u|) <= 1 so that nothing overflows and, for u < 0, as e / (1 + e): no
    # 1 + tanh(u) cancelling. Its slope: cdf + 2 x cdf (1 - cdf) du/dx, cdf (1 - cdf) =
    # e / (1 + e)^2 for either sign (d tanh/du = 1 - tanh^2 = 4 cdf (1 - cdf)).
    @njit(cache=True, fastmath=FASTMATH, error_model="numpy")
    def single_tanh(x, y, s):
        for i in range(x.size):
            v = x[i]
            u = k * (v + c_cubic * v * v * v)
            t = -two * abs(u)  # e = e^t, as in `single`
            tc = max(t, lowest)
            n = np.floor(tc * log2e + half)
            r = (tc - n * ln2_hi) - n * ln2_lo
            er = ((((((T[0] * r + T[1]) * r + T[2]) * r + T[3]) * r + T[4]) * r + T[5]) * r + T[6]) * r + T[7]
            e = er * np.int32((np.int32(n) + 127) << 23).view(np.float32) if t >= lowest else zero
            inv = one / (one + e)
            cdf = inv if u >= zero else e * inv
            y[i] = v * cdf
            if s is not None:
                s[i] = cdf + two * v * (e * inv * inv) * (k + k3 * v * v)

    @njit(cache=True)
    def double(x, y, s):
        for i in range(x.size):
            v = x[i]
            cdf = 0.5 * (1.0 + math.erf(v * SQRT1_2))
            y[i] = v * cdf
            if s is not None:
                s[i] = cdf + v * (math.exp(-0.5 * v * v) * INV_SQRT_2PI)

    @njit(cache=True)
    def double_tanh(x, y, s):  # the same formulas as single_tanh, with the library's exp
        for i in range(x.size):
            v = x[i]
            u = TANH_K * (v + TANH_C * v * v * v)
            e = math.exp(-2.0 * abs(u))
            cdf = 1.0 / (1.0 + e) if u >= 0 else e / (1.0 + e)
            y[i] = v * cdf
            if s is not None:
                s[i] = cdf + 2.0 * v * (e / ((1.0 + e) * (1.0 + e))) * (TANH_K * (1.0 + 3.0 * TANH_C * v * v))

    f4, f8 = np.dtype(np.float32), np.dtype(np.float64)
    return {("none", f4): single, ("none", f8): double, ("tanh", f4): single_tanh, ("tanh", f8): double_tanh}


def formulas(x, slope, approximate):
    """(y, s) as array expressions: for GPU arrays, and on the CPU without Numba."""
    if approximate == "tanh":
        t = np.tanh(TANH_K * (x + TANH_C * x * x * x))
        cdf = 0.5 * (1.0 + t)
        du_dx = TANH_K * (1.0 + 3.0 * TANH_C * x * x)
        s = cdf + 0.5 * x * (1.0 - t * t) * du_dx if slope else None
    else:
        cdf = 0.5 * (1.0 + erf(x * x.dtype.type(SQRT1_2)))
        s = cdf + x * (np.exp(-0.5 * x * x) * x.dtype.type(INV_SQRT_2PI)) if slope else None
    return x * cdf, s


def _numpy_loop(approximate):  # pragma: no cover - without numba
    def loop(x, y, s):
        y[...], slope = formulas(x, s is not None, approximate)
        if s is not None:
            s[...] = slope

    return loop


def gelu_and_slope(x, slope=True, approximate="none"):
    """(y, s) for the array x: y = GELU(x) and s = GELU'(x) (None unless `slope`), in
    x's shape and dtype; approximate='tanh' for the tanh form."""
    global _loops
    if array_module(x) is not np:  # a GPU array: no CPU loop can read it
        work = np.float32 if x.dtype in (np.float32, np.float16) else np.float64
        y, s = formulas(x.astype(work, copy=False), slope, approximate)
        return y.astype(x.dtype, copy=False), (s.astype(x.dtype, copy=False) if slope else None)
    if _loops is None:
        _loops = _make_loops()
    work = np.float32 if x.dtype in (np.float32, np.float16) else np.float64
    flat = np.ascontiguousarray(x, dtype=work).reshape(-1)
    y = np.empty_like(flat)
    s = np.empty_like(flat) if slope else None
    _loops[approximate, flat.dtype](flat, y, s)
    # ascontiguousarray turns a 0-d array into shape (1,): restore the input's shape
    shape, dtype = np.shape(x), x.dtype
    y = y.reshape(shape).astype(dtype, copy=False)
    return y, (s.reshape(shape).astype(dtype, copy=False) if slope else None)
