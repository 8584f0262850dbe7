"""The gamma function's family, which NumPy lacks: ln|Gamma(x)|, its derivatives digamma
and polygamma, the Hurwitz zeta function they are made of, and the regularized
incomplete gamma functions. Arrays in, float64 arrays out (the Functions in
special_functions.py round them to the input's dtype).

The derivatives of ln Gamma are sums over the poles of Gamma:

    digamma(x)      = d/dx ln Gamma(x)      = -gamma + sum_k (1/(k+1) - 1/(x+k))
    polygamma(n, x) = d^n/dx^n digamma(x)   = (-1)^(n+1) n! zeta(n+1, x),  n >= 1
    zeta(s, q)      = sum_{k>=0} (q+k)^-s   (the Hurwitz zeta function)

Each is computed as the classics do (Cephes, which torch's CPU kernels follow too): step
x up with a recurrence until it is large, then use an asymptotic series that is accurate
there to double precision.
"""

import math

import numpy as np

from minigrad.array_module import array_module
from minigrad.ops.special import host_only, polynomial

# ---- ln |Gamma(x)| ---------------------------------------------------------------------


def _lgamma_scalar(v):
    if v <= 0 and v.is_integer():  # a pole of Gamma: 0, -1, -2, ...
        return math.inf
    return math.lgamma(v)  # math.lgamma(+-inf) is inf, of NaN NaN


_lgamma = np.vectorize(_lgamma_scalar, otypes=[np.float64])


def lgamma(x):
    """ln |Gamma(x)|, elementwise (inf at the poles 0, -1, -2, ...)."""
    host_only(x, "lgamma", "it is Python's math.lgamma, element by element")
    with np.errstate(invalid="ignore"):  # NumPy warns of the NaN that lgamma(NaN) is
        return _lgamma(np.asarray(x, dtype=np.float64))


# ---- digamma ---------------------------------------------------------------------------
# digamma(x) ~ ln x - 1/(2x) - sum_k B_2k / (2k x^2k) for large x, a polynomial in
# z = 1/x^2: the coefficients B_2k / 2k, highest power first
_DIGAMMA_ASYMPTOTIC = (
    8.33333333333333333333e-2, -2.10927960927960927961e-2, 7.57575757575757575758e-3,
    -4.16666666666666666667e-3, 3.96825396825396825397e-3, -8.33333333333333333333e-3,
    8.33333333333333333333e-2,
)  # fmt: skip


def digamma(x):
    """digamma(x) = Gamma'(x) / Gamma(x), elementwise.

    Below 0, the reflection formula digamma(x) = digamma(1 - x) - pi / tan(pi x) (with
    tan of the fractional part of x, which keeps its digits); then the recurrence
    digamma(x) = digamma(x + 1) - 1/x lifts x to 10 or more, where the asymptotic series
    is exact to double precision. At 0 it is -inf (+inf at -0.0, the limit from the
    left), at the negative integers NaN, as in torch.
    """
    xp = array_module(x)
    x = x.astype(np.float64) if xp is not np else np.asarray(x, dtype=np.float64)
    result = np.zeros_like(x)
    negative = x < 0
    with np.errstate(divide="ignore", invalid="ignore"):
        fraction = np.modf(x)[0]
        result = np.where(negative, -math.pi / np.tan(math.pi * fraction), result)
        y = np.where(negative, 1.0 - x, x)
        # y >= 0 here, so ten steps lift every y to 10: a GPU takes all ten rather than ask
        # the host after each whether any y is still small; the CPU stops when none is
        for _ in range(10):
            small = y < 10.0  # NaN is not small: it stays NaN
            if xp is np and not small.any():
                break
            result = np.where(small, result - 1.0 / y, result)
            y = np.where(small, y + 1.0, y)
        z = 1.0 / (y * y)
        result = result + np.log(y) - 0.5 / y - z * polynomial(_DIGAMMA_ASYMPTOTIC, z)
    result = np.where(x == 0, np.copysign(np.inf, -x), result)
    return np.where(negative & (x == np.trunc(x)), np.nan, result)


# ---- the Hurwitz zeta function and polygamma ------------------------------------------
# The Euler-Maclaurin tail of zeta(s, q): its j-th term's coefficient B_2j / (2j)!, as the
# reciprocals (2j)! / B_2j (Cephes' table), j = 1 .. 12
_EULER_MACLAURIN = (
    12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9, 7.47242496e10,
    -2.950130727918164224e12, 1.1646782814350067249e14, -4.5979787224074726105e15,
    1.8152105401943546773e17, -7.1661652561756670113e18,
)  # fmt: skip


def zeta(s, q):
    """The Hurwitz zeta function sum_{k>=0} (q + k)^-s for s > 1, elementwise (s and q
    broadcast).

    The first N terms are added as they are, N >= 10 and q + N >= 10; the rest, a smooth
    sum of a decaying function, by the Euler-Maclaurin formula: the integral from q + N,
    half the first left-out term, and 12 derivative terms (each B_2j/(2j)! times the
    (2j-1)-th derivative of t^-s at q + N), which are exact to double precision there.
    At the poles q = 0, -1, -2, ... it is inf.

    On a GPU array N needs the smallest q on the host: one copy of one number, made only
    when q has elements.
    """
    if array_module(q) is np:
        s, q = np.broadcast_arrays(np.asarray(s, dtype=np.float64), np.asarray(q, dtype=np.float64))
    else:  # s is a number (polygamma's n + 1)
        q = q.astype(np.float64)
        s = np.full_like(q, s)
    finite = np.isfinite(q)
    q_ = np.where(finite, q, 1.0)  # +inf gives 0 and -inf NaN, set at the end
    n = 10 if not q_.size else max(10, math.ceil(10.0 - float(q_.min())))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        total = np.zeros_like(q_)
        for k in range(n):
            total = total + (q_ + k) ** -s
        a = q_ + n
        b = a**-s  # the first term left out
        total = total + b * a / (s - 1.0) + 0.5 * b
        rising = np.ones_like(a)  # s (s+1) ... (s + 2j - 2)
        power = b  # a^(-s - 2j + 1)
        for j, reciprocal in enumerate(_EULER_MACLAURIN):
            rising = rising * (s + 2 * j)
            power = power / a
            total = total + rising * power / reciprocal
            rising = rising * (s + 2 * j + 1)
            power = power / a
    total = np.where(finite, total, np.where(q > 0, 0.0, np.nan))
    return np.where((q <= 0) & (q == np.floor(q)), np.inf, total)


def polygamma(n, x):
    """The n-th derivative of digamma, elementwise: digamma itself for n = 0, and
    (-1)^(n+1) n! zeta(n + 1, x) for n >= 1."""
    if n == 0:
        return digamma(x)
    sign = 1.0 if n % 2 else -1.0
    return sign * math.factorial(n) * zeta(n + 1.0, x)


# ---- the regularized incomplete gamma functions ---------------------------------------
_EPS = np.finfo(np.float64).eps
_TINY = 1e-300


def _prefactor(a, x):
    """x^a e^-x / Gamma(a), in logs so that neither factor overflows on its own."""
    return math.exp(a * math.log(x) - x - math.lgamma(a))


def _lower_series(a, x):
    """P(a, x) by its series, x^a e^-x / Gamma(a + 1) * sum_n x^n / ((a+1) ... (a+n)),
    which converges fast for x < a + 1."""
    term = total = 1.0 / a
    for n in range(1, 100_000):
        term *= x / (a + n)
        total += term
        if abs(term) < abs(total) * _EPS:
            break
    return total * _prefactor(a, x)


def _upper_fraction(a, x):
    """Q(a, x) by Legendre's continued fraction, evaluated with the modified Lentz method
    (Numerical Recipes, 6.2), which converges fast for x >= a + 1."""
    b = x + 1.0 - a
    c = 1.0 / _TINY
    d = 1.0 / b
    h = d
    for i in range(1, 100_000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = d if abs(d) > _TINY else _TINY
        c = b + an / c
        c = c if abs(c) > _TINY else _TINY
        d = 1.0 / d
        h *= d * c
        if abs(d * c - 1.0) < _EPS:
            break
    return h * _prefactor(a, x)


def _igamma_scalar(a, x, upper):
    """P(a, x) (upper False) or Q(a, x) = 1 - P(a, x) (upper True) for floats a and x,
    with torch's answers at the edges of the domain."""
    if x < 0 or a < 0 or math.isnan(a) or math.isnan(x):
        return math.nan
    if a == 0:
        return (0.0 if upper else 1.0) if x > 0 else math.nan
    if x == 0:
        return 1.0 if upper else 0.0
    if math.isinf(a):
        return math.nan if math.isinf(x) else (1.0 if upper else 0.0)
    if math.isinf(x):
        return 0.0 if upper else 1.0
    if x < a + 1.0:
        p = _lower_series(a, x)
        return 1.0 - p if upper else p
    q = _upper_fraction(a, x)
    return q if upper else 1.0 - q


_igamma = np.vectorize(_igamma_scalar, otypes=[np.float64])


def igamma(a, x):
    """The regularized lower incomplete gamma function P(a, x) = (1 / Gamma(a)) *
    integral_0^x t^(a-1) e^-t dt, elementwise (a, x >= 0; broadcast)."""
    host_only(x, "igamma", "it sums a series or a continued fraction element by element")
    with np.errstate(invalid="ignore"):  # NaN outside the domain is the answer
        return _igamma(np.asarray(a, dtype=np.float64), np.asarray(x, dtype=np.float64), False)


def igammac(a, x):
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)."""
    host_only(x, "igammac", "it sums a series or a continued fraction element by element")
    with np.errstate(invalid="ignore"):
        return _igamma(np.asarray(a, dtype=np.float64), np.asarray(x, dtype=np.float64), True)
