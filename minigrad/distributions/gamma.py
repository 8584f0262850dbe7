"""The Gamma distribution with shape `concentration` (alpha) and `rate` (beta):

    p(x) = beta^alpha x^(alpha-1) e^(-beta x) / Gamma(alpha),  x > 0
    log p(x) = alpha ln beta + (alpha - 1) ln x - beta x - lgamma(alpha)
    cdf(x) = P(alpha, beta x), the regularised lower incomplete gamma function
    entropy = alpha - ln beta + lgamma(alpha) + (1 - alpha) digamma(alpha)
    mean = alpha / beta,  variance = alpha / beta^2,  mode = max(alpha - 1, 0) / beta

rsample is x = g / beta with g ~ Gamma(alpha, 1). A Gamma draw is made by rejection, not by
a formula of the noise, so the gradient with respect to alpha is the *implicit* one
(`minigrad.ops.standard_gamma.StandardGamma`): dg/dalpha = -(dP/dalpha) / p(g; alpha), the change of
g that keeps its CDF value fixed. torch differentiates its draws the same way; the draws
themselves come from NumPy's generator, so only their statistics match torch's.
"""

import numpy as np

from minigrad.distributions import constraints
from minigrad.distributions.exp_family import ExponentialFamily
from minigrad.distributions.utils import broadcast_all, is_number
from minigrad.ops.standard_gamma import standard_gamma
from minigrad.tensor import Tensor


class Gamma(ExponentialFamily):
    """`Gamma(concentration, rate, validate_args=None)`: shape alpha > 0, rate beta > 0
    (rate = 1 / scale)."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        batch_shape = (
            () if is_number(concentration) and is_number(rate) else self.concentration.shape
        )
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Gamma, _instance)
        batch_shape = tuple(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        new.rate = self.rate.expand(batch_shape)
        super(Gamma, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape=()):
        """x = g / rate, g ~ Gamma(concentration, 1) with its implicit gradient."""
        shape = self._extended_shape(sample_shape)
        value = standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        # never 0 (as torch), outside the graph
        value.detach().clamp_(min=float(np.finfo(value.dtype).tiny))
        return value

    def log_prob(self, value):
        if not isinstance(value, Tensor):
            value = Tensor._from_data(value, dtype=self.rate.dtype)
        if self._validate_args:
            self._validate_sample(value)
        return (
            self.concentration.xlogy(self.rate)
            + (self.concentration - 1).xlogy(value)
            - self.rate * value
            - self.concentration.lgamma()
        )

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        # P(alpha, rate x), torch.special.gammainc
        return self.concentration.igamma(self.rate * value)

    def entropy(self):
        alpha = self.concentration
        return alpha - self.rate.log() + alpha.lgamma() + (1.0 - alpha) * alpha.digamma()

    @property
    def _natural_params(self):
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x, y):
        return (x + 1).lgamma() + (x + 1) * (-y.reciprocal()).log()
