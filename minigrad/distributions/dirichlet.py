"""The Dirichlet distribution: a random probability vector x on the simplex (x_i > 0,
sum x_i = 1), with concentration alpha:

    p(x) = Gamma(alpha_0) / prod_i Gamma(alpha_i) * prod_i x_i^(alpha_i - 1),  alpha_0 = sum_i
    alpha_i log p(x) = sum_i (alpha_i - 1) ln x_i + lgamma(alpha_0) - sum_i lgamma(alpha_i)
    entropy = sum_i lgamma(alpha_i) - lgamma(alpha_0) - (K - alpha_0) digamma(alpha_0)
              - sum_i (alpha_i - 1) digamma(alpha_i)
    mean = alpha / alpha_0

rsample normalises independent Gamma draws, x_i = g_i / sum_j g_j with g_i ~ Gamma(alpha_i, 1),
which is a Dirichlet draw; gradients flow through the Gamma draws' implicit gradients and
the normalisation. (torch differentiates its draws with a formula of its own; the two
per-draw gradients differ, their expectations agree.)
"""

import numpy as np

from minigrad.distributions import constraints
from minigrad.distributions.exp_family import ExponentialFamily
from minigrad.nn import functional as F
from minigrad.ops.elementwise import where
from minigrad.ops.standard_gamma import standard_gamma


class Dirichlet(ExponentialFamily):
    """`Dirichlet(concentration, validate_args=None)`: concentration of shape
    batch_shape + (K,), every entry > 0."""

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        if concentration.ndim < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        batch_shape, event_shape = concentration.shape[:-1], concentration.shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Dirichlet, _instance)
        batch_shape = tuple(batch_shape)
        new.concentration = self.concentration.expand(batch_shape + self.event_shape)
        super(Dirichlet, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=()):
        """x = g / sum(g), g_i ~ Gamma(alpha_i, 1)."""
        shape = self._extended_shape(sample_shape)
        gammas = standard_gamma(self.concentration.expand(shape))
        x = gammas / gammas.sum(-1, keepdim=True)
        finfo = np.finfo(x.dtype)
        # inside the simplex, outside the graph
        x.detach().clamp_(min=float(finfo.tiny), max=1 - float(finfo.eps))
        return x

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        alpha = self.concentration
        return (alpha - 1.0).xlogy(value).sum(-1) + alpha.sum(-1).lgamma() - alpha.lgamma().sum(-1)

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def mode(self):
        """(alpha - 1) / (alpha_0 - K) where every alpha_i > 1; where all are < 1, the corner
        of the largest (as torch)."""
        concentrationm1 = (self.concentration - 1).clamp(min=0.0)
        mask = (self.concentration < 1).all(dim=-1)
        # rows with every alpha_i < 1 would divide 0 by 0: divide by 1 there (they are overwritten
        # below), so that no NaN reaches their gradient
        total = where(mask.unsqueeze(-1), 1.0, concentrationm1.sum(-1, True))
        mode = concentrationm1 / total
        if bool(mask.any()):
            mode[mask] = F.one_hot(mode[mask].argmax(dim=-1), concentrationm1.shape[-1]).to(
                mode.dtype
            )
        return mode

    @property
    def variance(self):
        con0 = self.concentration.sum(-1, True)
        return self.concentration * (con0 - self.concentration) / (con0.pow(2) * (con0 + 1))

    def entropy(self):
        alpha = self.concentration
        k = alpha.shape[-1]
        a0 = alpha.sum(-1)
        return (
            alpha.lgamma().sum(-1)
            - a0.lgamma()
            - (k - a0) * a0.digamma()
            - ((alpha - 1.0) * alpha.digamma()).sum(-1)
        )

    @property
    def _natural_params(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return x.lgamma().sum(-1) - x.sum(-1).lgamma()
