"""The categorical distribution: one of K classes {0, ..., K-1}, class k with probability p_k.

    P(x = k) = p_k,   log P(k) = logits_k - logsumexp(logits)
    entropy = -sum_k p_k ln p_k

Give it `probs` (non-negative weights, normalised to sum to 1 along the last dim) or
`logits` (unnormalised log-probabilities, normalised by subtracting their logsumexp);
the leading dims are a batch of distributions. `Categorical(probs).sample()` and
`.log_prob(action)` are the two calls of a policy-gradient (REINFORCE) agent: the loss
-log_prob(action) * return sends its gradient to the network through log_prob.
"""

import math

import numpy as np

from minigrad.autograd import grad_mode
from minigrad.creation import arange, full
from minigrad.distributions import constraints
from minigrad.distributions.distribution import Distribution
from minigrad.distributions.utils import lazy_property, logits_to_probs, probs_to_logits
from minigrad.ops.sampling import multinomial


class Categorical(Distribution):
    """`Categorical(probs=None, logits=None, validate_args=None)`: classes 0..K-1, K the
    last dim of `probs` or `logits`; samples are int64."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            if probs.ndim < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
        else:
            if logits.ndim < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
        self._param = self.probs if probs is not None else self.logits
        self._num_events = self._param.shape[-1]
        batch_shape = self._param.shape[:-1] if self._param.ndim > 1 else ()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Categorical, _instance)
        batch_shape = tuple(batch_shape)
        param_shape = batch_shape + (self._num_events,)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(param_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(param_shape)
            new._param = new.logits
        new._num_events = self._num_events
        super(Categorical, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self._num_events - 1)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits)

    @property
    def param_shape(self):
        return self._param.shape

    @property
    def mean(self):
        """NaN: class labels have no mean (as torch)."""
        return full(self._extended_shape(), math.nan, dtype=self.probs.dtype)

    @property
    def mode(self):
        return self.probs.argmax(dim=-1)

    @property
    def variance(self):
        """NaN: class labels have no variance (as torch)."""
        return full(self._extended_shape(), math.nan, dtype=self.probs.dtype)

    def sample(self, sample_shape=()):
        shape = tuple(sample_shape)
        with grad_mode.no_grad():
            # one row per distribution of the batch
            probs_2d = self.probs.reshape(-1, self._num_events)
            samples_2d = multinomial(probs_2d, math.prod(shape), True).T
            return samples_2d.reshape(self._extended_shape(shape))

    def log_prob(self, value):
        """logits[value]: the normalised log-probability of each class index in `value`."""
        if self._validate_args:
            self._validate_sample(value)
        value = value.long().unsqueeze(-1)
        shape = np.broadcast_shapes(value.shape, self.logits.shape)  # value's last dim, 1, meets K
        log_pmf = self.logits.expand(shape)
        return log_pmf.gather(-1, value.expand(shape[:-1] + (1,))).squeeze(-1)

    def entropy(self):
        """-sum p ln p, with ln 0 clamped to the dtype's lowest value (so 0 * ln 0 = 0)."""
        min_real = float(np.finfo(self.logits.dtype).min)
        logits = self.logits.clamp(min=min_real)
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand=True):
        values = arange(self._num_events).reshape((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + self._batch_shape)
        return values
