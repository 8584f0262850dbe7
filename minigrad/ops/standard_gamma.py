"""A Gamma(alpha, 1) draw that gradients flow through: what `Gamma.rsample` (and through it
`Beta` and `Dirichlet`) is made of, as torch's `_standard_gamma`.

There is no formula x = f(alpha, noise) for a Gamma draw (NumPy draws it by rejection),
but there is x = F^-1(u; alpha) for a uniform u, F being the Gamma CDF, the regularised
incomplete gamma function P(alpha, x). Holding u = P(alpha, x) fixed while alpha moves
gives the *implicit reparameterisation* gradient (Figurnov et al., 2018):

    dx/dalpha = -(dP/dalpha)(alpha, x) / p(x; alpha),   p(x; alpha) = x^(alpha-1) e^-x /
    Gamma(alpha)

torch differentiates its draws the same way, so the expected gradient of a Monte Carlo
estimate is the gradient of its expectation (the draws themselves come from a different
generator than torch's).

dP/dalpha has no closed form. It is the series of P differentiated term by term,

    P(a, x)     = sum_n t_n,                       t_n = x^(a+n) e^-x / Gamma(a + n + 1)
    dP/da(a, x) = sum_n t_n (ln x - digamma(a + n + 1))

each term following from the last: t_n = t_(n-1) x / (a + n), and digamma(a + n + 1) =
digamma(a + n) + 1 / (a + n). The terms grow while a + n < x, then shrink geometrically;
the sum stops when the last term no longer changes it. All terms of P are positive, so no
precision is lost to cancellation.

On a GPU (alpha a CUDA tensor) the draws are made there, by the GPU's generator, but the
gradient is computed on the CPU only: the series above takes as many terms as the largest
draw needs, which a GPU would have to report to the host after every term, and ln Gamma
is a CPU function here (see special_functions.py). Its backward says so.
"""

import numpy as np

from minigrad.array_module import array_module
from minigrad.autograd.function import Function
from minigrad.creation import from_numpy
from minigrad.ops import gamma
from minigrad.ops.random_source import generator_for


def lower_gamma_and_derivative(a, x):
    """(P(a, x), dP/da(a, x)) elementwise, in float64, for a > 0 and x >= 0 (see the module)."""
    a, x = np.broadcast_arrays(np.asarray(a, dtype=np.float64), np.asarray(x, dtype=np.float64))
    positive = x > 0
    # P(a, 0) = 0 and so is its derivative: computed at 1, masked below
    xs = np.where(positive, x, 1.0)
    log_x = np.log(xs)
    log_term = a * log_x - xs - gamma.lgamma(a + 1.0)  # ln t_0
    psi = gamma.digamma(a + 1.0)
    total, derivative = np.zeros_like(xs), np.zeros_like(xs)
    n = 0
    while True:
        term = np.exp(log_term)
        total = total + term
        derivative = derivative + term * (log_x - psi)
        n += 1
        if np.all((a + n > xs) & (term <= 1e-17 * total)) or n > 100_000:
            break
        log_term = log_term + log_x - np.log(a + n)
        psi = psi + 1.0 / (a + n)
    return np.where(positive, np.minimum(total, 1.0), 0.0), np.where(positive, derivative, 0.0)


class StandardGamma(Function):
    """x ~ Gamma(alpha, 1), one draw per element of alpha (never 0: at least the dtype's
    smallest normal number, as torch);  dL/dalpha = dL/dx * -(dP/dalpha)(alpha, x) / p(x; alpha)."""

    @staticmethod
    def forward(ctx, alpha):
        rng = generator_for(alpha.array, None, "standard_gamma")
        draws = rng.standard_gamma(alpha.array.astype(np.float64))
        x = np.maximum(draws, np.finfo(alpha.dtype).tiny).astype(alpha.dtype)
        ctx.x, ctx.alpha = x, alpha.array
        return x

    @staticmethod
    def backward(ctx, grad):
        if array_module(ctx.x) is not np:
            raise RuntimeError(
                "standard_gamma: the gradient with respect to alpha (of Gamma.rsample, "
                "Beta.rsample, Dirichlet.rsample) runs on the CPU only: its series stops when "
                "its terms stop changing the sum, a question a GPU must send to the host at "
                "every term. Draw with alpha on the CPU (alpha.cpu()), or sample without "
                "gradient (Gamma.sample) on the GPU"
            )
        alpha, x = ctx.alpha.astype(np.float64), ctx.x.astype(np.float64)
        _, dp_dalpha = lower_gamma_and_derivative(alpha, x)
        log_density = (alpha - 1.0) * np.log(x) - x - gamma.lgamma(alpha)
        dx_dalpha = -dp_dalpha * np.exp(-log_density)
        return grad * from_numpy(dx_dalpha.astype(grad.dtype))


def standard_gamma(alpha):
    """One Gamma(alpha, 1) draw per element of alpha, differentiable in alpha (see
    StandardGamma)."""
    return StandardGamma.apply(alpha)
