"""The Bernoulli distribution: a coin that shows 1 with probability p and 0 with 1 - p.

    P(x) = p^x (1 - p)^(1 - x),  x in {0, 1}
    log P(x) = x ln p + (1 - x) ln(1 - p) = -BCEWithLogits(logits, x)
    entropy = -p ln p - (1 - p) ln(1 - p)

Give it `probs` (p) or `logits` (the log-odds ln(p / (1 - p)), p = sigmoid(logits)), not
both; the other is computed on first use. The log-probability is computed from the
logits, as binary cross-entropy with logits, which stays finite where ln p would not.
A 0/1 draw has no gradient: train through log_prob (REINFORCE) instead.
"""

import math

from minigrad.autograd import grad_mode
from minigrad.creation import arange
from minigrad.distributions import constraints
from minigrad.distributions.exp_family import ExponentialFamily
from minigrad.distributions.utils import (
    broadcast_all,
    is_number,
    lazy_property,
    logits_to_probs,
    probs_to_logits,
)
from minigrad.nn import functional as F
from minigrad.ops.sampling import bernoulli


class Bernoulli(ExponentialFamily):
    """`Bernoulli(probs=None, logits=None, validate_args=None)`: 1 with probability `probs`
    (or sigmoid(`logits`)), else 0. Samples have the parameter's float dtype."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            is_scalar = is_number(probs)
            (self.probs,) = broadcast_all(probs)
        else:
            is_scalar = is_number(logits)
            (self.logits,) = broadcast_all(logits)
        self._param = self.probs if probs is not None else self.logits
        batch_shape = () if is_scalar else self._param.shape
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Bernoulli, _instance)
        batch_shape = tuple(batch_shape)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(batch_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(batch_shape)
            new._param = new.logits
        super(Bernoulli, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

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
        return self.probs

    @property
    def mode(self):
        """1 where p > 1/2, 0 where p < 1/2, NaN at a tie (as torch)."""
        mode = (self.probs >= 0.5).to(self.probs.dtype)
        mode[self.probs == 0.5] = math.nan
        return mode

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with grad_mode.no_grad():
            return bernoulli(self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -F.binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self):
        return F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand=True):
        values = arange(2, dtype=self._param.dtype).reshape((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + self._batch_shape)
        return values

    @property
    def _natural_params(self):
        return (self.probs.logit(),)

    def _log_normalizer(self, x):
        return F.softplus(x, threshold=math.inf)  # ln(1 + e^x)
