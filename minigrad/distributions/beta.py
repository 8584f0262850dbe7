"""The Beta distribution: a random probability x in (0, 1) with concentrations alpha
(`concentration1`) and beta (`concentration0`):

    p(x) = x^(alpha-1) (1 - x)^(beta-1) / B(alpha, beta),   B = Gamma(alpha) Gamma(beta) /
    Gamma(alpha + beta) mean = alpha / (alpha + beta),  variance = alpha beta / ((alpha + beta)^2
    (alpha + beta + 1))

It is the two-class Dirichlet: (x, 1 - x) ~ Dirichlet(alpha, beta). log_prob, entropy and
rsample are the Dirichlet's, on that pair.
"""

from minigrad.creation import tensor
from minigrad.distributions import constraints
from minigrad.distributions.dirichlet import Dirichlet
from minigrad.distributions.exp_family import ExponentialFamily
from minigrad.distributions.utils import broadcast_all, is_number
from minigrad.ops.shape import stack


class Beta(ExponentialFamily):
    """`Beta(concentration1, concentration0, validate_args=None)`: alpha > 0 and beta > 0."""

    arg_constraints = {
        "concentration1": constraints.positive,
        "concentration0": constraints.positive,
    }
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        if is_number(concentration1) and is_number(concentration0):
            both = tensor([float(concentration1), float(concentration0)])
        else:
            concentration1, concentration0 = broadcast_all(concentration1, concentration0)
            both = stack([concentration1, concentration0], -1)
        self._dirichlet = Dirichlet(both, validate_args=validate_args)
        super().__init__(self._dirichlet._batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Beta, _instance)
        batch_shape = tuple(batch_shape)
        new._dirichlet = self._dirichlet.expand(batch_shape)
        super(Beta, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def concentration1(self):
        return self._dirichlet.concentration[..., 0]

    @property
    def concentration0(self):
        return self._dirichlet.concentration[..., 1]

    @property
    def mean(self):
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self):
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self):
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape=()):
        """The first coordinate of a Dirichlet(alpha, beta) draw."""
        return self._dirichlet.rsample(sample_shape)[..., 0]

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        heads_tails = stack([value, 1.0 - value], -1)
        return self._dirichlet.log_prob(heads_tails)

    def entropy(self):
        return self._dirichlet.entropy()

    @property
    def _natural_params(self):
        return (self.concentration1, self.concentration0)

    def _log_normalizer(self, x, y):
        return x.lgamma() + y.lgamma() - (x + y).lgamma()
