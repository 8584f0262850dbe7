"""`ExponentialFamily`: distributions whose density has the form

    p(x; theta) = exp(<t(x), theta> - F(theta) + k(x))

with natural parameters theta, sufficient statistic t(x), log-normaliser F and carrier
measure k. The family's identity E[t(X)] = grad F(theta) turns the entropy into

    H = F(theta) - <theta, grad F(theta)> - E[k(X)],

which this base class computes with autograd from a subclass's `_natural_params` and
`_log_normalizer` (Nielsen & Nock, "Entropies and cross-entropies of exponential
families", 2010). The KL divergence between two members of one family is the Bregman
divergence of F, computed the same way (minigrad.distributions.kl).
"""

from minigrad.autograd.engine import grad
from minigrad.distributions.distribution import Distribution


class ExponentialFamily(Distribution):
    """The abstract base class of exponential-family distributions (Normal, Bernoulli,
    Exponential, Gamma, Beta, Dirichlet, Poisson): subclasses give `_natural_params`,
    `_log_normalizer(*natural_params)` and `_mean_carrier_measure`."""

    @property
    def _natural_params(self):
        """The natural parameters theta, a tuple of tensors."""
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        """F(theta), the log of the normalising constant."""
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        """E[k(X)], the expected carrier measure."""
        raise NotImplementedError

    def entropy(self):
        """H = F(theta) - <theta, grad F(theta)> - E[k(X)], grad F by autograd."""
        result = -self._mean_carrier_measure
        thetas = [p.detach().requires_grad_() for p in self._natural_params]
        log_normalizer = self._log_normalizer(*thetas)
        gradients = grad(log_normalizer.sum(), thetas, create_graph=True)
        result = result + log_normalizer
        for theta, g in zip(thetas, gradients):
            result = result - (theta * g).reshape(self._batch_shape + (-1,)).sum(-1)
        return result
