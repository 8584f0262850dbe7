"""The Poisson distribution: the number of events in an interval where they arrive at `rate`.

    P(k) = rate^k e^(-rate) / k!,  k = 0, 1, 2, ...
    log P(k) = k ln rate - rate - lgamma(k + 1)
    mean = variance = rate,  mode = floor(rate)

Counts have no gradient: sample is cut from the graph (train through log_prob).
"""

import numpy as np

from minigrad import random as _random
from minigrad.creation import from_numpy
from minigrad.distributions import constraints
from minigrad.distributions.exp_family import ExponentialFamily
from minigrad.distributions.utils import broadcast_all, is_number


class Poisson(ExponentialFamily):
    """`Poisson(rate, validate_args=None)`: rate >= 0; samples are counts in rate's float dtype."""

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        batch_shape = () if is_number(rate) else self.rate.shape
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Poisson, _instance)
        batch_shape = tuple(batch_shape)
        new.rate = self.rate.expand(batch_shape)
        super(Poisson, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.rate

    @property
    def mode(self):
        return self.rate.floor()

    @property
    def variance(self):
        return self.rate

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        rate = np.broadcast_to(self.rate.detach().numpy(), shape)
        return from_numpy(_random.generator().poisson(rate).astype(self.rate.dtype))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return value.xlogy(rate) - rate - (value + 1).lgamma()

    @property
    def _natural_params(self):
        return (self.rate.log(),)

    def _log_normalizer(self, x):
        return x.exp()
