"""Probability distributions, as `torch.distributions`: sample from them, score values with
`log_prob`, and differentiate both (a VAE through `rsample`, a policy gradient through
`log_prob`).

    import minigrad.distributions as D
    d = D.Normal(mu, sigma)            # batch_shape = mu's shape
    z = d.rsample()                    # z = mu + sigma * eps: gradients reach mu and sigma
    kl = D.kl_divergence(d, D.Normal(0.0, 1.0))

One distribution per file (`normal.py`, `categorical.py`, ...), each with its density,
its entropy and how it samples; `distribution.py` holds the base class and its shapes,
`kl.py` the closed-form divergences. Values, log-densities, entropies, CDFs and
divergences are torch's (and so are their gradients); samples come from minigrad's
generator, NumPy's, so they match torch's in distribution, not draw for draw.
"""

from minigrad.distributions import constraints
from minigrad.distributions.bernoulli import Bernoulli
from minigrad.distributions.beta import Beta
from minigrad.distributions.binomial import Binomial
from minigrad.distributions.categorical import Categorical
from minigrad.distributions.dirichlet import Dirichlet
from minigrad.distributions.distribution import Distribution
from minigrad.distributions.exp_family import ExponentialFamily
from minigrad.distributions.exponential import Exponential
from minigrad.distributions.gamma import Gamma
from minigrad.distributions.independent import Independent
from minigrad.distributions.kl import kl_divergence, register_kl
from minigrad.distributions.laplace import Laplace
from minigrad.distributions.log_normal import LogNormal
from minigrad.distributions.multivariate_normal import MultivariateNormal
from minigrad.distributions.normal import Normal
from minigrad.distributions.one_hot_categorical import OneHotCategorical
from minigrad.distributions.poisson import Poisson
from minigrad.distributions.uniform import Uniform

__all__ = [
    "Bernoulli",
    "Beta",
    "Binomial",
    "Categorical",
    "Dirichlet",
    "Distribution",
    "Exponential",
    "ExponentialFamily",
    "Gamma",
    "Independent",
    "Laplace",
    "LogNormal",
    "MultivariateNormal",
    "Normal",
    "OneHotCategorical",
    "Poisson",
    "Uniform",
    "constraints",
    "kl_divergence",
    "register_kl",
]
