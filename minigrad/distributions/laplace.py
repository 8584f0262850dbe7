"""The Laplace (double exponential) distribution: a sharp peak at `loc`, exponential tails.

    p(x) = exp(-|x - loc| / scale) / (2 scale)
    log p(x) = -ln(2 scale) - |x - loc| / scale
    cdf(x) = 1/2 - 1/2 sign(x - loc) (e^(-|x - loc| / scale) - 1)
    icdf(p) = loc - scale sign(p - 1/2) ln(1 - 2 |p - 1/2|)
    entropy = 1 + ln(2 scale),  mean = loc,  variance = 2 scale^2

rsample is the icdf of a uniform draw: x = loc - scale sign(u) ln(1 - |u|), u ~ U(-1, 1),
differentiable in loc and scale.
"""

import numpy as np

from minigrad.creation import empty
from minigrad.distributions import constraints
from minigrad.distributions.distribution import Distribution
from minigrad.distributions.utils import broadcast_all, is_number


class Laplace(Distribution):
    """`Laplace(loc, scale, validate_args=None)`: location `loc`, scale > 0."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        batch_shape = () if is_number(loc) and is_number(scale) else self.loc.shape
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Laplace, _instance)
        batch_shape = tuple(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        super(Laplace, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        return (2**0.5) * self.scale

    def rsample(self, sample_shape=()):
        """x = loc - scale sign(u) ln(1 - |u|), u ~ U(eps - 1, 1) (never -1, where the log is
        -inf)."""
        shape = self._extended_shape(sample_shape)
        eps = float(np.finfo(self.loc.dtype).eps)
        u = empty(shape, dtype=self.loc.dtype).uniform_(eps - 1, 1)
        return self.loc - self.scale * u.sign() * (-u.abs()).log1p()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -(2 * self.scale).log() - (value - self.loc).abs() / self.scale

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return (
            0.5 - 0.5 * (value - self.loc).sign() * (-(value - self.loc).abs() / self.scale).expm1()
        )

    def icdf(self, value):
        term = value - 0.5
        return self.loc - self.scale * term.sign() * (-2 * term.abs()).log1p()

    def entropy(self):
        return 1 + (2 * self.scale).log()
