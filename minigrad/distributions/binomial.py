"""The binomial distribution: the number of successes in `total_count` independent trials
that each succeed with probability p.

    P(k) = C(n, k) p^k (1 - p)^(n - k),  k = 0..n
    log P(k) = lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1) + k logit - n softplus(logit)

where logit = ln(p / (1 - p)) and softplus(logit) = ln(1 + e^logit) = -ln(1 - p): written
with the logits, the log-probability stays finite for p near 0 or 1.
mean = n p,  variance = n p (1 - p),  mode = min(floor((n + 1) p), n).
"""

import numpy as np

from minigrad import random as _random
from minigrad.creation import arange, from_numpy
from minigrad.distributions import constraints
from minigrad.distributions.distribution import Distribution
from minigrad.distributions.utils import (
    broadcast_all,
    lazy_property,
    logits_to_probs,
    probs_to_logits,
)
from minigrad.nn import functional as F


def _clamp_by_zero(x):
    """max(x, 0), with the gradient 1/2 at 0 (as torch's)."""
    return (x.clamp(min=0) + x - x.clamp(max=0)) / 2


class Binomial(Distribution):
    """`Binomial(total_count=1, probs=None, logits=None, validate_args=None)`: `total_count`
    trials (an int or a tensor of them, broadcast with the probabilities), success probability
    `probs` or log-odds `logits` (not both). Samples are counts in the parameter's float dtype."""

    arg_constraints = {
        "total_count": constraints.nonnegative_integer,
        "probs": constraints.unit_interval,
        "logits": constraints.real,
    }
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            self.total_count, self.probs = broadcast_all(total_count, probs)
            self.total_count = self.total_count.type_as(self.probs)
        else:
            self.total_count, self.logits = broadcast_all(total_count, logits)
            self.total_count = self.total_count.type_as(self.logits)
        self._param = self.probs if probs is not None else self.logits
        super().__init__(self._param.shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Binomial, _instance)
        batch_shape = tuple(batch_shape)
        new.total_count = self.total_count.expand(batch_shape)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(batch_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(batch_shape)
            new._param = new.logits
        super(Binomial, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        return self._param.shape

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def mode(self):
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        n = np.broadcast_to(self.total_count.detach().numpy(), shape).astype(np.int64)
        p = np.broadcast_to(self.probs.detach().numpy(), shape)
        return from_numpy(_random.generator().binomial(n, p).astype(self._param.dtype))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        n = self.total_count
        log_factorial_n = (n + 1).lgamma()
        log_factorial_k = (value + 1).lgamma()
        log_factorial_nmk = (n - value + 1).lgamma()
        # n ln(1 + e^logit) = n max(logit, 0) + n ln(1 + e^-|logit|): no overflow either way
        normalize_term = (
            n * _clamp_by_zero(self.logits) + n * F.softplus(-self.logits.abs()) - log_factorial_n
        )
        return value * self.logits - log_factorial_k - log_factorial_nmk - normalize_term

    def entropy(self):
        """-sum_k P(k) ln P(k) over k = 0..n (one n for the whole batch, as torch)."""
        total_count = int(self.total_count.max())
        if not self.total_count.min() == total_count:
            raise NotImplementedError("Inhomogeneous total count not supported by `entropy`.")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(log_prob.exp() * log_prob).sum(0)

    def enumerate_support(self, expand=True):
        total_count = int(self.total_count.max())
        if not self.total_count.min() == total_count:
            raise NotImplementedError(
                "Inhomogeneous total count not supported by `enumerate_support`."
            )
        values = arange(1 + total_count, dtype=self._param.dtype).reshape(
            (-1,) + (1,) * len(self._batch_shape)
        )
        if expand:
            values = values.expand((-1,) + self._batch_shape)
        return values
