"""The Kullback-Leibler divergence between two distributions, and its registry.

    KL(p || q) = E_p[ln p(X) - ln q(X)] = integral p(x) ln(p(x) / q(x)) dx  >= 0

`kl_divergence(p, q)` looks up a closed form registered for the pair of types with
`@register_kl(TypeP, TypeQ)`; the most specific match by subclass wins (ties warn), as in
torch. A pair with none registered raises NotImplementedError. The closed forms below are
torch's, for the distributions minigrad has; where q gives zero density to part of p's
support, the divergence is infinite.

For two members of one exponential family with no formula of their own, it is the
Bregman divergence of the log-normaliser F:
    KL(p || q) = F(theta_q) - F(theta_p) - <theta_q - theta_p, grad F(theta_p)>.
"""

import math
import warnings
from functools import total_ordering

import numpy as np

from minigrad.autograd.engine import grad
from minigrad.creation import full_like
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
from minigrad.distributions.laplace import Laplace
from minigrad.distributions.log_normal import LogNormal
from minigrad.distributions.multivariate_normal import (
    MultivariateNormal,
    batch_mahalanobis,
    half_log_det,
)
from minigrad.distributions.normal import Normal
from minigrad.distributions.one_hot_categorical import OneHotCategorical
from minigrad.distributions.poisson import Poisson
from minigrad.distributions.uniform import Uniform
from minigrad.distributions.utils import euler_constant, sum_rightmost
from minigrad.nn import functional as F
from minigrad.ops.cholesky import solve_triangular

_KL_REGISTRY = {}  # (type_p, type_q) -> function: what register_kl recorded
_KL_MEMOIZE = {}  # (type(p), type(q)) -> the function the lookup chose (or NotImplemented)


def register_kl(type_p, type_q):
    """Decorator: register `fun(p, q)` as KL(p || q) for p of type_p and q of type_q (or of
    their subclasses), as in `@register_kl(Normal, Normal)` over `def kl_normal_normal(p, q)`."""
    if not isinstance(type_p, type) or not issubclass(type_p, Distribution):
        raise TypeError(f"Expected type_p to be a Distribution subclass but got {type_p}")
    if not isinstance(type_q, type) or not issubclass(type_q, Distribution):
        raise TypeError(f"Expected type_q to be a Distribution subclass but got {type_q}")

    def decorator(fun):
        _KL_REGISTRY[type_p, type_q] = fun
        _KL_MEMOIZE.clear()  # the best match of a pair may have changed
        return fun

    return decorator


@total_ordering
class _Match:
    """A registered pair of types, ordered by specificity: (A, B) <= (C, D) when A is a
    subclass of C, and B of D if A is C (lexicographic by subclass)."""

    __slots__ = ["types"]

    def __init__(self, *types):
        self.types = types

    def __eq__(self, other):
        return self.types == other.types

    def __le__(self, other):
        for x, y in zip(self.types, other.types):
            if not issubclass(x, y):
                return False
            if x is not y:
                break
        return True


def _dispatch_kl(type_p, type_q):
    """The most specific registered function for the pair, or NotImplemented."""
    matches = [(p, q) for p, q in _KL_REGISTRY if issubclass(type_p, p) and issubclass(type_q, q)]
    if not matches:
        return NotImplemented
    left_p, left_q = min(_Match(*m) for m in matches).types
    right_q, right_p = min(_Match(*reversed(m)) for m in matches).types
    left_fun, right_fun = _KL_REGISTRY[left_p, left_q], _KL_REGISTRY[right_p, right_q]
    if left_fun is not right_fun:
        warnings.warn(
            f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). "
            f"Please register_kl({left_p.__name__}, {right_q.__name__})",
            RuntimeWarning,
            stacklevel=2,
        )
    return left_fun


def kl_divergence(p, q):
    """KL(p || q), one value per distribution of the batch (shape `batch_shape`)."""
    try:
        fun = _KL_MEMOIZE[type(p), type(q)]
    except KeyError:
        fun = _KL_MEMOIZE[type(p), type(q)] = _dispatch_kl(type(p), type(q))
    if fun is NotImplemented:
        raise NotImplementedError(
            f"No KL(p || q) is implemented for p type {p.__class__.__name__} and q type "
            f"{q.__class__.__name__}"
        )
    return fun(p, q)


def _infinite_like(tensor):
    return full_like(tensor, math.inf)


def _x_log_x(tensor):
    return tensor.xlogy(tensor)  # 0 at 0


# ---- the same family ---------------------------------------------------------------------
@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    # p ln(p/q) + (1-p) ln((1-p)/(1-q)), with ln p = -softplus(-logit), ln(1-p) = -softplus(logit)
    t1 = p.probs * (F.softplus(-q.logits) - F.softplus(-p.logits))
    t1[q.probs == 0] = math.inf
    t1[p.probs == 0] = 0
    t2 = (1 - p.probs) * (F.softplus(q.logits) - F.softplus(p.logits))
    t2[q.probs == 1] = math.inf
    t2[p.probs == 1] = 0
    return t1 + t2


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    sum_params_p = p.concentration1 + p.concentration0
    sum_params_q = q.concentration1 + q.concentration0
    t1 = q.concentration1.lgamma() + q.concentration0.lgamma() + sum_params_p.lgamma()
    t2 = p.concentration1.lgamma() + p.concentration0.lgamma() + sum_params_q.lgamma()
    t3 = (p.concentration1 - q.concentration1) * p.concentration1.digamma()
    t4 = (p.concentration0 - q.concentration0) * p.concentration0.digamma()
    t5 = (sum_params_q - sum_params_p) * sum_params_p.digamma()
    return t1 - t2 + t3 + t4 + t5


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p, q):
    if bool((p.total_count < q.total_count).any()):
        raise NotImplementedError(
            "KL between Binomials where q.total_count > p.total_count is not implemented"
        )
    kl = p.total_count * (p.probs * (p.logits - q.logits) + (-p.probs).log1p() - (-q.probs).log1p())
    kl[p.total_count > q.total_count] = math.inf  # q gives no mass to p's largest counts
    return kl


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    t = p.probs * (p.logits - q.logits)
    t[(q.probs == 0).expand_as(t)] = math.inf
    t[(p.probs == 0).expand_as(t)] = 0
    return t.sum(-1)


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    sum_p_concentration = p.concentration.sum(-1)
    sum_q_concentration = q.concentration.sum(-1)
    t1 = sum_p_concentration.lgamma() - sum_q_concentration.lgamma()
    t2 = (p.concentration.lgamma() - q.concentration.lgamma()).sum(-1)
    t3 = p.concentration - q.concentration
    t4 = p.concentration.digamma() - sum_p_concentration.digamma().unsqueeze(-1)
    return t1 - t2 + (t3 * t4).sum(-1)


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    rate_ratio = q.rate / p.rate
    return -rate_ratio.log() + rate_ratio - 1


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p, q):
    """The Bregman divergence of the log-normaliser, by autograd (see the module)."""
    if type(p) is not type(q):
        raise NotImplementedError(
            "The cross KL-divergence between different exponential families cannot be computed "
            "using Bregman divergences"
        )
    p_nparams = [theta.detach().requires_grad_() for theta in p._natural_params]
    q_nparams = q._natural_params
    lg_normal = p._log_normalizer(*p_nparams)
    gradients = grad(lg_normal.sum(), p_nparams, create_graph=True)
    result = q._log_normalizer(*q_nparams) - lg_normal
    for pnp, qnp, g in zip(p_nparams, q_nparams, gradients):
        result = result - sum_rightmost((qnp - pnp) * g, len(q.event_shape))
    return result


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p, q):
    t1 = q.concentration * (p.rate / q.rate).log()
    t2 = q.concentration.lgamma() - p.concentration.lgamma()
    t3 = (p.concentration - q.concentration) * p.concentration.digamma()
    t4 = (q.rate - p.rate) * (p.concentration / p.rate)
    return t1 + t2 + t3 + t4


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p, q):
    scale_ratio = p.scale / q.scale
    loc_abs_diff = (p.loc - q.loc).abs()
    t1 = -scale_ratio.log()
    t2 = loc_abs_diff / q.scale
    t3 = scale_ratio * (-loc_abs_diff / p.scale).exp()
    return t1 + t2 + t3 - 1


@register_kl(LogNormal, LogNormal)
def _kl_lognormal_lognormal(p, q):
    # exp is one-to-one: the divergence of the logs (torch: TransformedDistribution's rule)
    return _kl_normal_normal(p.base_dist, q.base_dist)


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_multivariatenormal_multivariatenormal(p, q):
    # (ln det Sigma_q - ln det Sigma_p + tr(Sigma_q^-1 Sigma_p) + M_q(mu_q - mu_p) - n) / 2
    if p.event_shape != q.event_shape:
        raise ValueError(
            "KL-divergence between two Multivariate Normals with different event shapes cannot be "
            "computed"
        )
    p_tril, q_tril = p._unbroadcasted_scale_tril, q._unbroadcasted_scale_tril
    half_term1 = half_log_det(q_tril) - half_log_det(p_tril)
    n = p.event_shape[0]
    batch = tuple(np.broadcast_shapes(q_tril.shape[:-2], p_tril.shape[:-2]))
    # tr(Sigma_q^-1 Sigma_p) = |L_q^-1 L_p|_F^2
    solved = solve_triangular(
        q_tril.expand(batch + (n, n)), p_tril.expand(batch + (n, n)), upper=False
    )
    term2 = solved.pow(2).sum((-2, -1))
    term3 = batch_mahalanobis(q_tril, q.loc - p.loc)
    return half_term1 + 0.5 * (term2 + term3 - n)


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical_onehotcategorical(p, q):
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p, q):
    return p.rate * (p.rate.log() - q.rate.log()) - (p.rate - q.rate)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    result = ((q.high - q.low) / (p.high - p.low)).log()
    result[(q.low > p.low) | (q.high < p.high)] = math.inf  # p's support sticks out of q's
    return result


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    return sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)


# ---- different families: infinite where q's support misses part of p's ---------------------
@register_kl(Bernoulli, Poisson)
def _kl_bernoulli_poisson(p, q):
    return -p.entropy() - (p.probs * q.rate.log() - q.rate)


@register_kl(Beta, Exponential)
def _kl_beta_exponential(p, q):
    return (
        -p.entropy()
        - q.rate.log()
        + q.rate * (p.concentration1 / (p.concentration1 + p.concentration0))
    )


@register_kl(Beta, Gamma)
def _kl_beta_gamma(p, q):
    t1 = -p.entropy()
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (q.concentration - 1) * (
        p.concentration1.digamma() - (p.concentration1 + p.concentration0).digamma()
    )
    t4 = q.rate * p.concentration1 / (p.concentration1 + p.concentration0)
    return t1 + t2 - t3 + t4


@register_kl(Beta, Normal)
def _kl_beta_normal(p, q):
    e_beta = p.concentration1 / (p.concentration1 + p.concentration0)
    var_normal = q.scale.pow(2)
    t1 = -p.entropy()
    t2 = 0.5 * (var_normal * 2 * math.pi).log()
    t3 = (e_beta * (1 - e_beta) / (p.concentration1 + p.concentration0 + 1) + e_beta.pow(2)) * 0.5
    t4 = q.loc * e_beta
    t5 = q.loc.pow(2) * 0.5
    return t1 + t2 + (t3 - t4 + t5) / var_normal


@register_kl(Beta, Uniform)
def _kl_beta_uniform(p, q):
    result = -p.entropy() + (q.high - q.low).log()
    result[(q.low > 0) | (q.high < 1)] = math.inf  # p's support is [0, 1]
    return result


@register_kl(Exponential, Beta)
@register_kl(Exponential, Uniform)
def _kl_exponential_infinity(p, q):
    return _infinite_like(p.rate)


@register_kl(Exponential, Gamma)
def _kl_exponential_gamma(p, q):
    ratio = q.rate / p.rate
    t1 = -q.concentration * ratio.log()
    return (
        t1
        + ratio
        + q.concentration.lgamma()
        + q.concentration * euler_constant
        - (1 + euler_constant)
    )


@register_kl(Exponential, Normal)
def _kl_exponential_normal(p, q):
    var_normal = q.scale.pow(2)
    rate_sqr = p.rate.pow(2)
    t1 = 0.5 * (rate_sqr * var_normal * 2 * math.pi).log()
    t2 = rate_sqr.reciprocal()
    t3 = q.loc / p.rate
    t4 = q.loc.pow(2) * 0.5
    return t1 - 1 + (t2 - t3 + t4) / var_normal


@register_kl(Gamma, Beta)
@register_kl(Gamma, Uniform)
def _kl_gamma_infinity(p, q):
    return _infinite_like(p.concentration)


@register_kl(Gamma, Exponential)
def _kl_gamma_exponential(p, q):
    return -p.entropy() - q.rate.log() + q.rate * p.concentration / p.rate


@register_kl(Gamma, Normal)
def _kl_gamma_normal(p, q):
    var_normal = q.scale.pow(2)
    beta_sqr = p.rate.pow(2)
    t1 = (
        0.5 * (beta_sqr * var_normal * 2 * math.pi).log()
        - p.concentration
        - p.concentration.lgamma()
    )
    t2 = 0.5 * (p.concentration.pow(2) + p.concentration) / beta_sqr
    t3 = q.loc * p.concentration / p.rate
    t4 = 0.5 * q.loc.pow(2)
    return t1 + (p.concentration - 1) * p.concentration.digamma() + (t2 - t3 + t4) / var_normal


@register_kl(Laplace, Beta)
@register_kl(Laplace, Exponential)
@register_kl(Laplace, Gamma)
@register_kl(Laplace, Uniform)
def _kl_laplace_infinity(p, q):
    return _infinite_like(p.loc)


@register_kl(Laplace, Normal)
def _kl_laplace_normal(p, q):
    var_normal = q.scale.pow(2)
    scale_sqr_var_ratio = p.scale.pow(2) / var_normal
    t1 = 0.5 * (2 * scale_sqr_var_ratio / math.pi).log()
    t2 = 0.5 * p.loc.pow(2)
    t3 = p.loc * q.loc
    t4 = 0.5 * q.loc.pow(2)
    return -t1 + scale_sqr_var_ratio + (t2 - t3 + t4) / var_normal - 1


@register_kl(Normal, Beta)
@register_kl(Normal, Exponential)
@register_kl(Normal, Gamma)
@register_kl(Normal, Uniform)
def _kl_normal_infinity(p, q):
    return _infinite_like(p.loc)


@register_kl(Normal, Laplace)
def _kl_normal_laplace(p, q):
    loc_diff = p.loc - q.loc
    scale_ratio = p.scale / q.scale
    loc_diff_scale_ratio = loc_diff / p.scale
    t1 = scale_ratio.log()
    t2 = math.sqrt(2 / math.pi) * p.scale * (-0.5 * loc_diff_scale_ratio.pow(2)).exp()
    t3 = loc_diff * (math.sqrt(0.5) * loc_diff_scale_ratio).erf()
    return -t1 + (t2 + t3) / q.scale - (0.5 * (1 + math.log(0.5 * math.pi)))


@register_kl(Poisson, Bernoulli)
@register_kl(Poisson, Binomial)
def _kl_poisson_infinity(p, q):
    return _infinite_like(p.rate)


@register_kl(Uniform, Beta)
def _kl_uniform_beta(p, q):
    common_term = p.high - p.low
    t1 = common_term.log()
    t2 = (q.concentration1 - 1) * (_x_log_x(p.high) - _x_log_x(p.low) - common_term) / common_term
    t3 = (
        (q.concentration0 - 1)
        * (_x_log_x(1 - p.high) - _x_log_x(1 - p.low) + common_term)
        / common_term
    )
    t4 = (
        q.concentration1.lgamma()
        + q.concentration0.lgamma()
        - (q.concentration1 + q.concentration0).lgamma()
    )
    result = t3 + t4 - t1 - t2
    result[(p.high > 1) | (p.low < 0)] = math.inf  # outside q's support [0, 1]
    return result


@register_kl(Uniform, Exponential)
def _kl_uniform_exponential(p, q):
    result = q.rate * (p.high + p.low) / 2 - ((p.high - p.low) * q.rate).log()
    result[p.low < 0] = math.inf
    return result


@register_kl(Uniform, Gamma)
def _kl_uniform_gamma(p, q):
    common_term = p.high - p.low
    t1 = common_term.log()
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (1 - q.concentration) * (_x_log_x(p.high) - _x_log_x(p.low) - common_term) / common_term
    t4 = q.rate * (p.high + p.low) / 2
    result = -t1 + t2 + t3 + t4
    result[p.low < 0] = math.inf
    return result


@register_kl(Uniform, Normal)
def _kl_uniform_normal(p, q):
    common_term = p.high - p.low
    t1 = (math.sqrt(math.pi * 2) * q.scale / common_term).log()
    t2 = common_term.pow(2) / 12
    t3 = ((p.high + p.low - 2 * q.loc) / 2).pow(2)
    return t1 + 0.5 * (t2 + t3) / q.scale.pow(2)
