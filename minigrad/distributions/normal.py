"""The normal (Gaussian) distribution N(loc, scale^2):

    p(x) = exp(-(x - loc)^2 / (2 scale^2)) / (scale sqrt(2 pi))
    log p(x) = -(x - loc)^2 / (2 scale^2) - ln scale - ln sqrt(2 pi)
    cdf(x) = (1 + erf((x - loc) / (scale sqrt 2))) / 2,   icdf(p) = loc + scale sqrt(2) erfinv(2p -
    1) entropy = 1/2 + ln(2 pi) / 2 + ln scale

rsample is the reparameterisation trick: x = loc + scale * eps with eps ~ N(0, 1) drawn
on its own, so dx/dloc = 1 and dx/dscale = eps, and a VAE's loss differentiates through
its samples.
"""

import math

from minigrad.distributions import constraints
from minigrad.distributions.exp_family import ExponentialFamily
from minigrad.distributions.utils import broadcast_all, is_number, standard_normal


class Normal(ExponentialFamily):
    """`Normal(loc, scale, validate_args=None)`: mean `loc`, standard deviation `scale` > 0
    (numbers or tensors, broadcast together)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        batch_shape = () if is_number(loc) and is_number(scale) else self.loc.shape
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Normal, _instance)
        batch_shape = tuple(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        super(Normal, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def rsample(self, sample_shape=()):
        """x = loc + scale * eps, eps ~ N(0, 1): differentiable in loc and scale."""
        shape = self._extended_shape(sample_shape)
        eps = standard_normal(shape, dtype=self.loc.dtype)
        return self.loc + eps * self.scale

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        var = self.scale**2
        return (
            -((value - self.loc) ** 2) / (2 * var)
            - self.scale.log()
            - math.log(math.sqrt(2 * math.pi))
        )

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + ((value - self.loc) * self.scale.reciprocal() / math.sqrt(2)).erf())

    def icdf(self, value):
        return self.loc + self.scale * (2 * value - 1).erfinv() * math.sqrt(2)

    def entropy(self):
        return 0.5 + 0.5 * math.log(2 * math.pi) + self.scale.log()

    @property
    def _natural_params(self):
        return (self.loc / self.scale.pow(2), -0.5 * self.scale.pow(2).reciprocal())

    def _log_normalizer(self, x, y):
        return -0.25 * x.pow(2) / y + 0.5 * (-math.pi / y).log()
