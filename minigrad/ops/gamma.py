"""The gamma function's family: log-gamma, digamma, polygamma, the incomplete gamma
function, and a Gamma sample that gradients flow through.

    lgamma(x)      = ln |Gamma(x)|                     d/dx = digamma(x)
    digamma(x)     = d/dx lgamma(x)                    d/dx = polygamma(1, x)
    polygamma(n,x) = d^n/dx^n digamma(x)               d/dx = polygamma(n + 1, x)
    gammainc(a, x) = P(a, x) = 1/Gamma(a) int_0^x t^(a-1) e^-t dt     (the Gamma CDF)

Each derivative is the next member of the family, so the chain of Functions can be
differentiated as often as you like. The distributions need them: the Gamma, Beta,
Dirichlet, Poisson and Binomial densities hold Gamma functions, their entropies digammas.

NumPy has none of these. `lgamma` is Python's `math.lgamma`, one element at a time; the
others are written here from their series, in float64:

- digamma(x) for x >= 10 from its asymptotic series
      ln x - 1/(2x) - sum_k B_2k / (2k x^2k)             (B_2k the Bernoulli numbers),
  and below 10 from the recurrence digamma(x) = digamma(x + 1) - 1/x (x < 0: reflection,
  digamma(x) = digamma(1 - x) - pi / tan(pi x));
- polygamma(n, x) = (-1)^(n+1) n! zeta(n + 1, x), Hurwitz's zeta function
      zeta(s, x) = sum_k>=0 (x + k)^-s,
  whose first terms are summed until x + k >= 10, and whose tail is the Euler-Maclaurin
  formula;
- P(a, x) = sum_n>=0 x^(a+n) e^-x / Gamma(a + n + 1), summed in log space until the
  terms are negligible (all of them are positive, so no precision is lost to cancellation).
"""

import math

import numpy as np

from minigrad import random as _random
from minigrad.autograd.function import Function
from minigrad.creation import from_numpy

# B_2k / (2k)! for k = 1..7: the coefficients of the Euler-Maclaurin tail of zeta(s, x)
# (B_2 = 1/6, B_4 = -1/30, B_6 = 1/42, B_8 = -1/30, B_10 = 5/66, B_12 = -691/2730, B_14 = 7/6)
_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6)
_SHIFT_TO = 10.0  # the recurrences move x up to here, where the asymptotic series are exact


def _float64(x):
    return np.asarray(x, dtype=np.float64)


def _is_pole(x):
    """0, -1, -2, ...: where Gamma(x) is infinite."""
    return (x <= 0) & (x == np.floor(x))


_lgamma_loop = np.vectorize(math.lgamma, otypes=[np.float64])


def lgamma_array(x):
    """ln |Gamma(x)|, elementwise; +inf at the poles 0, -1, -2, ... (as torch)."""
    x = _float64(x)
    special = _is_pole(x) | np.isinf(x) | np.isnan(x)
    value = _lgamma_loop(np.where(special, 1.0, x))  # math.lgamma raises at the poles
    return np.where(np.isnan(x), np.nan, np.where(special, np.inf, value))


def digamma_array(x):
    """digamma(x) = Gamma'(x) / Gamma(x), elementwise; -inf at 0 and NaN at the negative
    integers, as torch."""
    x = _float64(x)
    negative = x < 0
    y = np.where(negative, 1.0 - x, x)  # reflection: digamma(x) = digamma(1 - x) - pi / tan(pi x)
    y = np.where(_is_pole(x), np.nan, y)
    total = np.zeros_like(y)
    small = y < _SHIFT_TO
    while np.any(small):  # digamma(y) = digamma(y + 1) - 1/y
        total = np.where(small, total - 1.0 / np.where(small, y, 1.0), total)
        y = np.where(small, y + 1.0, y)
        small = y < _SHIFT_TO
    inv2 = 1.0 / (y * y)
    series = np.zeros_like(y)
    for k in range(len(_BERNOULLI), 0, -1):  # sum_k B_2k / (2k y^2k), Horner's rule in 1/y^2
        series = (series + _BERNOULLI[k - 1] / (2 * k)) * inv2
    result = total + np.log(y) - 0.5 / y - series
    with np.errstate(invalid="ignore", divide="ignore"):  # tan at -inf: NaN, as it should be
        reflected = result - np.pi / np.tan(np.pi * np.where(negative, x, 0.5))
    return np.where(x == 0, -np.inf, np.where(negative, reflected, result))


def hurwitz_zeta_array(s, x):
    """zeta(s, x) = sum_k>=0 (x + k)^-s for an int s >= 2, elementwise in x."""
    x = _float64(x)
    total = np.zeros_like(x)
    small = x < _SHIFT_TO
    while np.any(small):  # peel off the first terms until x is large
        total = total + np.where(small, np.where(small, x, 1.0) ** -s, 0.0)
        x = np.where(small, x + 1.0, x)
        small = x < _SHIFT_TO
    # Euler-Maclaurin: x^(1-s)/(s-1) + x^-s/2 + sum_k B_2k/(2k)! s(s+1)..(s+2k-2) x^(-s-2k+1)
    tail = x ** (1 - s) / (s - 1) + 0.5 * x**-s
    rising, power = float(s), x ** (-s - 1)  # s(s+1)...(s+2k-2) and x^(-s-2k+1), for k = 1
    for k, b in enumerate(_BERNOULLI, start=1):
        tail = tail + b / math.factorial(2 * k) * rising * power
        rising *= (s + 2 * k - 1) * (s + 2 * k)
        power = power / (x * x)
    return total + tail


def polygamma_array(n, x):
    """The n-th derivative of digamma, n >= 1: (-1)^(n+1) n! zeta(n + 1, x)."""
    x = _float64(x)
    pole = _is_pole(x)
    value = (-1) ** (n + 1) * math.factorial(n) * hurwitz_zeta_array(n + 1, np.where(pole, 1.0, x))
    return np.where(pole, np.inf if n % 2 == 1 else -np.inf, value)  # torch's values at the poles


def _log_series_terms(a, x):
    """ln of the first term of P(a, x)'s series, x^a e^-x / Gamma(a + 1), elementwise."""
    with np.errstate(divide="ignore"):
        return a * np.log(x) - x - lgamma_array(a + 1.0)


def gammainc_array(a, x, with_derivative=False):
    """P(a, x), the regularised lower incomplete gamma function, elementwise (a > 0, x >= 0),
    and with `with_derivative` also dP/da, the series differentiated term by term:

        P(a, x)     = sum_n t_n,                        t_n = x^(a+n) e^-x / Gamma(a + n + 1)
        dP/da(a, x) = sum_n t_n (ln x - digamma(a + n + 1))

    Each term follows from the last: t_n = t_(n-1) x / (a + n), and
    digamma(a + n + 1) = digamma(a + n) + 1 / (a + n). The terms grow while a + n < x,
    then shrink geometrically; the sum stops when the last term no longer changes it.
    """
    a, x = np.broadcast_arrays(_float64(a), _float64(x))
    positive = x > 0
    xs = np.where(positive, x, 1.0)  # P(a, 0) = 0: computed at 1, masked below
    log_term = _log_series_terms(a, xs)
    psi = digamma_array(a + 1.0)
    log_x = np.log(xs)
    total = np.zeros_like(xs)
    derivative = np.zeros_like(xs)
    n = 0
    while True:
        term = np.exp(log_term)
        total = total + term
        derivative = derivative + term * (log_x - psi)
        n += 1
        past_peak = a + n > xs
        if np.all(past_peak & (term <= 1e-17 * total)) or n > 100_000:
            break
        log_term = log_term + log_x - np.log(a + n)
        psi = psi + 1.0 / (a + n)
    total = np.where(positive, np.minimum(total, 1.0), 0.0)
    total = np.where(np.isnan(a) | np.isnan(x), np.nan, total)
    if not with_derivative:
        return total
    return total, np.where(positive, derivative, 0.0)


# ---- the Functions ---------------------------------------------------------------------
def _like(array, x):
    """A float64 result in the dtype of tensor x, as a Tensor."""
    return from_numpy(np.asarray(array, dtype=x.dtype))


class Lgamma(Function):
    """y = ln |Gamma(x)|;  dL/dx = dL/dy * digamma(x)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return np.asarray(lgamma_array(x.array), dtype=x.dtype)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * Digamma.apply(x)


class Digamma(Function):
    """y = digamma(x) = d/dx ln Gamma(x);  dL/dx = dL/dy * polygamma(1, x)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return np.asarray(digamma_array(x.array), dtype=x.dtype)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * Polygamma.apply(x, n=1)


class Polygamma(Function):
    """y = polygamma(n, x), the n-th derivative of digamma;  dL/dx = dL/dy * polygamma(n + 1, x)."""

    @staticmethod
    def forward(ctx, x, n):
        ctx.save_for_backward(x)
        ctx.n = n
        return np.asarray(polygamma_array(n, x.array), dtype=x.dtype)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * Polygamma.apply(x, n=ctx.n + 1)


class Gammainc(Function):
    """y = P(a, x), the Gamma(a, 1) CDF at x;  dL/dx = dL/dy * x^(a-1) e^-x / Gamma(a).

    The gradient with respect to a is not defined here, as in torch (whose backward raises):
    a distribution's cdf is differentiated with respect to the value and the rate.
    """

    @staticmethod
    def forward(ctx, a, x):
        ctx.save_for_backward(a, x)
        dtype = np.result_type(a.dtype, x.dtype)
        return np.asarray(gammainc_array(a.array, x.array), dtype=dtype)

    @staticmethod
    def backward(ctx, grad):
        a, x = ctx.saved_tensors
        if ctx.needs_input_grad[0]:
            raise RuntimeError("gammainc: the derivative with respect to a (the first argument) is not implemented")
        density = ((a - 1.0) * x.log() - x - Lgamma.apply(a)).exp()
        return None, grad * density


class StandardGamma(Function):
    """x ~ Gamma(alpha, 1), one draw per element of alpha, with the *implicit
    reparameterisation* gradient (Figurnov et al., 2018):

        dx/dalpha = -(dP/dalpha)(alpha, x) / p(x; alpha),   p(x; alpha) = x^(alpha-1) e^-x / Gamma(alpha)

    There is no formula x = f(alpha, noise) for a Gamma draw (NumPy draws it by rejection),
    but x = F^-1(u; alpha) for a uniform u, F the CDF P(alpha, .). Holding u = F(x; alpha)
    fixed while alpha moves gives the derivative above. It is what torch's `rsample` of a
    Gamma differentiates too, so the expected gradient of a Monte Carlo estimate is the
    gradient of its expectation (the draws themselves come from a different generator).
    """

    @staticmethod
    def forward(ctx, alpha):
        draws = _random.generator().standard_gamma(alpha.array.astype(np.float64))
        x = np.maximum(draws, np.finfo(alpha.dtype).tiny).astype(alpha.dtype)  # as torch: never 0
        ctx.x, ctx.alpha = x, alpha.array
        return x

    @staticmethod
    def backward(ctx, grad):
        alpha, x = _float64(ctx.alpha), _float64(ctx.x)
        _, dp_dalpha = gammainc_array(alpha, x, with_derivative=True)
        log_density = (alpha - 1.0) * np.log(x) - x - lgamma_array(alpha)
        dx_dalpha = -dp_dalpha * np.exp(-log_density)
        return grad * _like(dx_dalpha, grad)


# ---- the functions the distributions call -------------------------------------------
def lgamma(x):
    """ln |Gamma(x)| of a tensor, elementwise (see Lgamma)."""
    return Lgamma.apply(x)


def digamma(x):
    """digamma(x) of a tensor, elementwise (see Digamma)."""
    return Digamma.apply(x)


def polygamma(n, x):
    """polygamma(n, x) of a tensor, elementwise, n >= 1 (see Polygamma)."""
    if not isinstance(n, int) or n < 1:
        raise ValueError(f"polygamma: n must be an int >= 1 (digamma is n = 0), got {n!r}")
    return Polygamma.apply(x, n=n)


def gammainc(a, x):
    """P(a, x), the regularised lower incomplete gamma function (see Gammainc)."""
    return Gammainc.apply(a, x)


def standard_gamma(alpha):
    """One Gamma(alpha, 1) draw per element of alpha, differentiable in alpha (see StandardGamma)."""
    return StandardGamma.apply(alpha)
