"""The continuous uniform distribution on the half-open interval [low, high):

    p(x) = 1 / (high - low) for low <= x < high, else 0
    log p(x) = -ln(high - low) inside (and -inf outside)
    cdf(x) = clamp((x - low) / (high - low), 0, 1),   icdf(p) = low + p (high - low)
    entropy = ln(high - low),  mean = (low + high) / 2,  variance = (high - low)^2 / 12

rsample is x = low + u (high - low) with u ~ U[0, 1): differentiable in low and high.
"""

import math

from minigrad.creation import rand
from minigrad.distributions import constraints
from minigrad.distributions.distribution import Distribution
from minigrad.distributions.utils import broadcast_all, is_number


class Uniform(Distribution):
    """`Uniform(low, high, validate_args=None)`: uniform on [low, high), low < high."""

    has_rsample = True

    @property
    def arg_constraints(self):
        return {"low": constraints.less_than(self.high), "high": constraints.greater_than(self.low)}

    def __init__(self, low, high, validate_args=None):
        self.low, self.high = broadcast_all(low, high)
        batch_shape = () if is_number(low) and is_number(high) else self.low.shape
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Uniform, _instance)
        batch_shape = tuple(batch_shape)
        new.low = self.low.expand(batch_shape)
        new.high = self.high.expand(batch_shape)
        super(Uniform, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return constraints.interval(self.low, self.high)

    @property
    def mean(self):
        return (self.high + self.low) / 2

    @property
    def mode(self):
        """NaN: every point of the interval is as likely (as torch)."""
        return math.nan * self.high

    @property
    def stddev(self):
        return (self.high - self.low) / 12**0.5

    @property
    def variance(self):
        return (self.high - self.low).pow(2) / 12

    def rsample(self, sample_shape=()):
        """x = low + u (high - low), u ~ U[0, 1)."""
        shape = self._extended_shape(sample_shape)
        u = rand(shape, dtype=self.low.dtype)
        return self.low + u * (self.high - self.low)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        # log(0) = -inf outside
        inside = ((self.low <= value) & (self.high > value)).to(self.low.dtype)
        return inside.log() - (self.high - self.low).log()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return ((value - self.low) / (self.high - self.low)).clamp(min=0, max=1)

    def icdf(self, value):
        return value * (self.high - self.low) + self.low

    def entropy(self):
        return (self.high - self.low).log()
