"""The error function erf, which NumPy lacks (GELU and the normal CDF need it).

Two compiled loops, by dtype:

- float64: `math.erf`, exact to double precision, one element at a time.
- float32: a rational function, erf(x) ~ x P(x^2) / Q(x^2) on [-4, 4] (past 4, erf(x)
  is 1 to float32 precision), the approximation of Eigen and XLA (`generic_fast_erf`).
  `math.erf` calls a C function per element, which no compiler can turn into vector
  instructions; a polynomial and a division can be: 8 elements at a time on AVX2. A
  transformer's GELU applies erf to every hidden unit of the 4x wide MLP, forward and
  backward: on 393,216 float32 elements (a batch of 12 x 64 tokens x 512 units) the
  polynomial takes 0.6 ms, `math.erf` 6-12 ms. It is evaluated in float64, so the result
  is within 2 units in the last place of float32 (PyTorch's float32 erf: within 1).

Without Numba, NumPy's `vectorize` applies `math.erf` element by element.

Numba is imported on the first call, not when this module is imported: importing Numba
takes longer than importing all of minigrad, and most programs never call erf.

On a GPU array (a CUDA tensor's) the compiled loops cannot run: erf and erfc are then
array expressions of the array's own module (`_erf_on_device`), the same rational
function in float32, and in float64 a series and a continued fraction with a fixed number
of terms, accurate to a few units in the last place.
"""

import math

import numpy as np

from minigrad.array_module import array_module

# erf(x) ~ x P(x^2) / Q(x^2) on [-4, 4]: the coefficients of P and Q, highest power first
# (the fused GELU loop, minigrad/ops/gelu_loop.py, evaluates the same function)
ERF_P = (
    -2.72614225801306e-10,
    2.77068142495902e-08,
    -2.10102402082508e-06,
    -5.69250639462346e-05,
    -7.34990630326855e-04,
    -2.95459980854025e-03,
    -1.60960333262415e-02,
)
ERF_Q = (
    -1.45660718464996e-05,
    -2.13374055278905e-04,
    -1.68282697438203e-03,
    -7.37332916720468e-03,
    -1.42647390514189e-02,
)

_loops = None  # {dtype: the compiled loop (or the NumPy fallback)}, made on first use


def _make_loops():
    try:
        from minigrad.kernels.jit import FASTMATH, njit  # numba's, with a cache that never fails to find a home
    except ImportError:  # pragma: no cover - numba is a runtime dependency
        vectorized = np.vectorize(math.erf, otypes=[np.float64])

        def loop(x, out):
            out[...] = vectorized(x)

        return {np.dtype(np.float32): loop, np.dtype(np.float64): loop}

    @njit(cache=True)
    def exact(x, out):
        for i in range(x.size):
            out[i] = math.erf(x[i])

    # error_model="numpy": a division by zero gives inf, as in NumPy, instead of raising as
    # in Python; the check Python's rule needs before each division stops the vector loop
    @njit(cache=True, fastmath=FASTMATH, error_model="numpy")
    def rational(x, out):
        for i in range(x.size):
            v = np.float64(x[i])
            v = 4.0 if v > 4.0 else v  # comparisons, not min/max: a NaN passes through as NaN
            v = -4.0 if v < -4.0 else v
            v2 = v * v
            # numerator x P(x^2), Horner's rule from the highest power
            p = ERF_P[0]
            p = p * v2 + ERF_P[1]
            p = p * v2 + ERF_P[2]
            p = p * v2 + ERF_P[3]
            p = p * v2 + ERF_P[4]
            p = p * v2 + ERF_P[5]
            p = p * v2 + ERF_P[6]
            q = ERF_Q[0]  # denominator Q(x^2)
            q = q * v2 + ERF_Q[1]
            q = q * v2 + ERF_Q[2]
            q = q * v2 + ERF_Q[3]
            q = q * v2 + ERF_Q[4]
            r = v * p / q
            out[i] = min(r, 1.0) if r > 0 else max(r, -1.0)  # |erf| <= 1, which rounding could break near 4

    return {np.dtype(np.float32): rational, np.dtype(np.float64): exact}


def erf(x):
    """erf(x) = 2/sqrt(pi) * integral_0^x exp(-t^2) dt, elementwise, in x's dtype."""
    global _loops
    if array_module(x) is not np:
        return _erf_on_device(x)
    if _loops is None:
        _loops = _make_loops()
    flat = np.ascontiguousarray(x).reshape(-1)
    out = np.empty_like(flat)
    _loops.get(flat.dtype, _loops[np.dtype(np.float64)])(flat, out)
    # ascontiguousarray turns a 0-d array into shape (1,): restore the input's shape
    return out.reshape(np.shape(x))


def host_only(x, op, why):
    """Raise the error of a special function with no GPU form here when x is a GPU array:
    it names the op, says why, and what to do."""
    if array_module(x) is not np:
        raise RuntimeError(
            f"{op}: runs on the CPU only ({why}); move the tensor to the CPU first (x.cpu()), "
            "and back with .cuda() after"
        )


# ---- erf and erfc on a GPU array --------------------------------------------------------
# A GPU cannot run the Numba CPU loops above, and a loop that stops when the terms stop
# changing the sum would ask the host after every term. These formulas take a fixed
# number of terms, chosen (against math.erf and math.erfc) for double precision:
SERIES_TERMS = 40  # erf(x) for |x| < 1.5: within 1e-15 relative
FRACTION_TERMS = 80  # erfc(x) for x >= 1.5: within 4e-15 relative
SERIES_LIMIT = 1.5


def _erf_series(x):
    """erf(x) = 2/sqrt(pi) e^(-x^2) sum_n x (2x^2)^n / (1 3 5 ... (2n+1)): every term has
    x's sign, so nothing cancels (for |x| < 1.5 here)."""
    x2 = x * x
    term, total = x, x
    for n in range(1, SERIES_TERMS):
        term = term * (2.0 * x2) / (2 * n + 1)
        total = total + term
    return (2.0 / math.sqrt(math.pi)) * np.exp(-x2) * total


def _erfc_fraction(x):
    """erfc(x) = e^(-x^2) / sqrt(pi) / (x + (1/2) / (x + 1 / (x + (3/2) / (x + ...)))), the
    continued fraction, summed from its tail (for x >= 1.5 here; at inf it is 0)."""
    tail = np.zeros_like(x)
    for k in range(FRACTION_TERMS, 0, -1):
        tail = (k / 2.0) / (x + tail)
    return np.exp(-x * x) / math.sqrt(math.pi) / (x + tail)


def _erf_on_device(x, complement=False):
    """erf(x) (or erfc(x), with `complement`) as array expressions that run on x's device.
    float32 (and float16): the rational function of the CPU loop, in float32. float64:
    the series for |x| < 1.5, else 1 - the continued fraction (erfc there is under 0.04,
    so the subtraction loses nothing)."""
    if x.dtype in (np.float32, np.float16) and not complement:
        v = np.clip(x.astype(np.float32), -4.0, 4.0)  # a NaN passes through clip as NaN
        v2 = v * v
        p, q = np.float32(ERF_P[0]), np.float32(ERF_Q[0])
        for c in ERF_P[1:]:
            p = p * v2 + np.float32(c)
        for c in ERF_Q[1:]:
            q = q * v2 + np.float32(c)
        return np.clip(v * p / q, -1.0, 1.0).astype(x.dtype)
    v = x.astype(np.float64)
    a = np.abs(v)
    small = a < SERIES_LIMIT
    series = _erf_series(np.where(small, v, 0.0))  # each branch on values it is meant for
    tail = _erfc_fraction(np.where(small, 2.0, a))  # erfc(|x|)
    if complement:  # erfc(x) = 1 - erf(x); for x < 0, 2 - erfc(|x|)
        result = np.where(small, 1.0 - series, np.where(v > 0, tail, 2.0 - tail))
    else:
        result = np.where(small, series, np.where(v > 0, 1.0 - tail, tail - 1.0))
    return result.astype(x.dtype)


# ---- erfc and erfinv ---------------------------------------------------------------------
# Both are computed in float64 and rounded to the input's dtype: these are rarer than erf,
# so they are written for clarity rather than for speed.
_erfc = np.vectorize(math.erfc, otypes=[np.float64])

# erfinv's first guess: Giles's single-precision approximation ("Approximating the erfinv
# function", GPU Computing Gems, 2011), a polynomial in w = -ln(1 - p^2), one for the
# centre (w < 5) and one, in sqrt(w), for the tails. Highest power first.
_ERFINV_CENTRE = (
    2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
    -0.00125372503, -0.00417768164, 0.246640727, 1.50140941,
)  # fmt: skip
_ERFINV_TAIL = (
    -0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
    -0.0076224613, 0.00943887047, 1.00167406, 2.83297682,
)  # fmt: skip


def erfc(x):
    """erfc(x) = 1 - erf(x), without the cancellation of 1 - erf(x) for large x
    (erfc(6) = 2.2e-17, which 1 - erf(6) rounds to 0), in x's dtype."""
    if array_module(x) is not np:
        return _erf_on_device(x, complement=True)
    x = np.asarray(x)
    return _erfc(x).astype(x.dtype, copy=False)


def erfinv(p):
    """The x with erf(x) = p, for p in [-1, 1] (+-inf at +-1, NaN outside), in p's dtype.

    Giles's polynomial guesses x to about 1e-7 where float32 can tell p from 1 (its
    range); then Newton's method, x <- x - f(x) / f'(x), which doubles the correct digits
    at each step, until the steps stop moving x (two or three steps; more from the rough
    guesses beyond float32's range). Where |p| > 0.5 it solves erfc(x) = 1 - |p| rather
    than erf(x) = |p|: 1 - |p| is exact there, and the small erfc(x) keeps the digits that
    erf(x), close to 1, would have rounded away.
    """
    on_device = array_module(p) is not np
    p = p if on_device else np.asarray(p)
    a = np.abs(p.astype(np.float64))  # erfinv is odd: solve for |p|, give back p's sign
    with np.errstate(divide="ignore", invalid="ignore"):
        w = -np.log((1.0 - a) * (1.0 + a))
        centre = np.polyval(_ERFINV_CENTRE, w - 2.5)
        tail = np.polyval(_ERFINV_TAIL, np.sqrt(w) - 3.0)
        x = np.where(w < 5.0, centre, tail) * a
        x = np.where(a < 1.0, x, 0.0)  # the guesses at |p| >= 1 are replaced below
        near_one = a > 0.5
        # on a GPU, a fixed number of steps: asking whether to stop is a copy to the host
        # after every step; the guess is within 1e-7 but in the far tails, and six steps
        # from there reach double precision
        for _ in range(6 if on_device else 100):
            slope = 2.0 / math.sqrt(math.pi) * np.exp(-x * x)  # d erf(x) / dx
            gap = np.where(near_one, (1.0 - a) - erfc(x), erf(x) - a)  # f(x); erfc's slope is -erf's
            step = np.where(a < 1.0, gap / slope, 0.0)
            x = x - step
            if not on_device and not np.any(np.abs(step) > 1e-16 * np.abs(x)):
                break
        x = np.where(a == 1.0, np.inf, np.where(a > 1.0, np.nan, x))
    return (np.sign(p) * x).astype(p.dtype if p.dtype.kind == "f" else np.float64, copy=False)
