"""`mg.special`: torch.special's functions, the special functions of statistics and
physics under SciPy's names. Most are the same functions as the torch-level ones
(`special.expit` is `sigmoid`, `special.gammaln` is `lgamma`); the rest are short
compositions of them, each with its formula. Gradients come from the ops they are made
of, so every one is differentiable where its parts are.
"""

import math

from minigrad.creation import as_tensor
from minigrad.ops.explog import exp2, expm1, log1p, logit, xlogy
from minigrad.ops.reduce import logsumexp
from minigrad.ops.special_functions import (
    digamma,
    erfc,
    erfinv,
    i0,
    igamma,
    igammac,
    lgamma,
    mvlgamma,
    polygamma,
)
from minigrad.ops.trig import sinc
from minigrad.ops.unary_functions import (
    erf,
    exp,
    log,
    round,  # noqa: A004  (torch.special.round)
    sigmoid,
)

__all__ = [
    "digamma", "entr", "erf", "erfc", "erfinv", "exp2", "expit", "expm1", "gammainc",
    "gammaincc", "gammaln", "i0", "i0e", "log1p", "log_ndtr", "log_softmax", "logit",
    "logsumexp", "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "round", "sinc",
    "softmax", "xlog1py", "xlogy",
]  # fmt: skip

expit = sigmoid  # expit(x) = 1 / (1 + e^-x)
gammaln = lgamma  # ln |Gamma(x)|
psi = digamma  # d/dx ln Gamma(x)
multigammaln = mvlgamma  # ln of the multivariate gamma function
gammainc = igamma  # the regularised lower incomplete gamma function P(a, x)
gammaincc = igammac  # the regularised upper incomplete gamma function Q(a, x)


def entr(input):
    """-x ln x for x > 0, 0 at x = 0, -inf for x < 0 (the entropy of one probability);
    d/dx = -(ln x + 1) for x > 0."""
    x = as_tensor(input)
    # ln of 1 where x is not positive: no inf * 0 in the gradient
    positive = x.masked_fill(x <= 0, 1.0)
    return (-(x * log(positive))).masked_fill(x < 0, -math.inf)


def ndtr(input):
    """Phi(x) = (1 + erf(x / sqrt 2)) / 2, the standard normal's cumulative distribution;
    d/dx = e^(-x^2/2) / sqrt(2 pi)."""
    return 0.5 * (1.0 + erf(as_tensor(input) * (1.0 / math.sqrt(2.0))))


def log_ndtr(input):
    """ln Phi(x), written as ln(erfc(-x / sqrt 2) / 2) so that the left tail keeps its
    digits (1 + erf(x) would round to 0 long before Phi(x) does)."""
    return log(0.5 * erfc(as_tensor(input) * (-1.0 / math.sqrt(2.0))))


def ndtri(input):
    """Phi^-1(p) = sqrt 2 erfinv(2p - 1), the standard normal's quantile function."""
    return math.sqrt(2.0) * erfinv(2.0 * as_tensor(input) - 1.0)


def i0e(input):
    """The exponentially scaled modified Bessel function e^(-|x|) I0(x)."""
    x = as_tensor(input)
    return i0(x) * exp(-x.abs())


def xlog1py(input, other):
    """x ln(1 + y), taken as 0 where x = 0 even when ln(1 + y) is infinite (as xlogy): the
    log-likelihood term of a Bernoulli; d/dx = ln(1 + y), d/dy = x / (1 + y)."""
    x, y = as_tensor(input), as_tensor(other)
    term = log1p(y)
    return (x * term).masked_fill((x == 0) & ~term.isfinite(), 0.0)


def softmax(input, dim, *, dtype=None):
    """e^x_i / sum_j e^x_j along `dim` (the same function as F.softmax)."""
    x = as_tensor(input)
    return (x if dtype is None else x.to(dtype)).softmax(dim)


def log_softmax(input, dim, *, dtype=None):
    """x_i - ln sum_j e^x_j along `dim` (the same function as F.log_softmax)."""
    x = as_tensor(input)
    return (x if dtype is None else x.to(dtype)).log_softmax(dim)
