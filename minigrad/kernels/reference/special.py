"""erf and erfc as array expressions: the reference, and the form that runs on a GPU.

NumPy has no erf. Here it is written with array operations only, in the array module of
its input (NumPy's functions hand a CuPy array to CuPy), so the same lines run on NumPy and
on CuPy arrays:

- float32 (and float16): the rational function of Eigen and XLA (`generic_fast_erf`),
  erf(x) ~ x P(x^2) / Q(x^2) on [-4, 4] (past 4, erf(x) is 1 to float32 precision),
  evaluated in float32;
- float64: the Taylor series for |x| < 1.5, else 1 - the continued fraction of erfc,
  each with a fixed number of terms: within a few units in the last place of math.erf.

    erf(x) = 2/sqrt(pi) * integral_0^x exp(-t^2) dt,    erfc(x) = 1 - erf(x)

The CPU kernels (kernels/cpu/special.py) compute the same functions in compiled loops;
the GELU kernels and erf's float32 loop use the same P and Q (kernels/cpu/vecmath.py).
"""

import math

import numpy as np

# erf(x) ~ x P(x^2) / Q(x^2) on [-4, 4]: the coefficients of P and Q, highest power first
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

# A loop that stops when the terms stop changing the sum would, on a GPU, ask the host
# after every term. These formulas take a fixed number of terms, chosen (against
# math.erf and math.erfc) for double precision:
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


def _erf_or_erfc(x, complement=False):
    """erf(x) (or erfc(x), with `complement`) as array expressions of x's array module.
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


def erf(x):
    """erf(x), elementwise, in x's dtype (a float dtype), on x's device."""
    return _erf_or_erfc(x)


def erfc(x):
    """erfc(x) = 1 - erf(x), without the cancellation of 1 - erf(x) for large x
    (erfc(6) = 2.2e-17, which 1 - erf(6) rounds to 0), in x's dtype, on x's device."""
    return _erf_or_erfc(x, complement=True)
