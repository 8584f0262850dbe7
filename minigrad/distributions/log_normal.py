"""The log-normal distribution: Y = e^X for X ~ Normal(loc, scale).

    p(y) = N(ln y; loc, scale) / y,  y > 0           (the change of variables x = ln y)
    log p(y) = log N(ln y; loc, scale) - ln y
    cdf(y) = Normal cdf at ln y,   icdf(p) = exp(Normal icdf(p))
    mean = e^(loc + scale^2 / 2),  variance = (e^(scale^2) - 1) e^(2 loc + scale^2),
    mode = e^(loc - scale^2),  entropy = Normal entropy + loc

torch builds it as a TransformedDistribution of a Normal through exp; minigrad writes the
change of variables out. rsample is e^(loc + scale eps): differentiable in loc and scale.
"""

from minigrad.distributions import constraints
from minigrad.distributions.distribution import Distribution
from minigrad.distributions.normal import Normal


class LogNormal(Distribution):
    """`LogNormal(loc, scale, validate_args=None)`: the exp of a Normal(loc, scale);
    `base_dist` is that Normal."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.base_dist = Normal(loc, scale, validate_args=validate_args)
        super().__init__(self.base_dist.batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LogNormal, _instance)
        batch_shape = tuple(batch_shape)
        new.base_dist = self.base_dist.expand(batch_shape)
        super(LogNormal, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def loc(self):
        return self.base_dist.loc

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mean(self):
        return (self.loc + self.scale.pow(2) / 2).exp()

    @property
    def mode(self):
        return (self.loc - self.scale.square()).exp()

    @property
    def variance(self):
        scale_sq = self.scale.pow(2)
        return scale_sq.expm1() * (2 * self.loc + scale_sq).exp()

    def rsample(self, sample_shape=()):
        """y = e^x, x a reparameterised Normal draw."""
        return self.base_dist.rsample(sample_shape).exp()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        x = value.log()
        return self.base_dist.log_prob(x) - x  # ln |dx/dy| = -ln y

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self.base_dist.cdf(value.log())

    def icdf(self, value):
        return self.base_dist.icdf(value).exp()

    def entropy(self):
        return self.base_dist.entropy() + self.loc
