"""minigrad.distributions against torch.distributions.

The table rows (tests/surface.py's machinery) run one expression on both libraries with
the same float64 inputs and compare everything it returns: log-densities, entropies, CDFs,
means and variances, KL divergences, and, where torch's results require grad, the input
gradients and a float64 gradient check of minigrad's. Samples cannot be compared draw for
draw (the generators differ): their shapes and dtypes are compared with torch's, their
means and variances with the distribution's (within a few standard errors of a fixed-seed
Monte Carlo estimate), and the gradients of reparameterised samples with the formula of
the reparameterisation, or, for the Gamma family's implicit gradients, in expectation.
Last, the programs that use distributions (a REINFORCE policy step, a VAE's loss) run
unchanged on both libraries and agree.
"""

import math

import numpy as np
import pytest
import torch

import minigrad as mg
from minigrad.autograd import gradcheck, gradgradcheck
from minigrad.ops import cholesky as mg_cholesky
from minigrad.ops import standard_gamma as mg_standard_gamma

from .surface import case, ids, ints, pos, run, unit

TORCH_API = [
    "torch.distributions",
    "torch.distributions.Distribution",
    "torch.distributions.ExponentialFamily",
    "torch.distributions.Normal",
    "torch.distributions.Bernoulli",
    "torch.distributions.Categorical",
    "torch.distributions.OneHotCategorical",
    "torch.distributions.Uniform",
    "torch.distributions.Exponential",
    "torch.distributions.Laplace",
    "torch.distributions.LogNormal",
    "torch.distributions.Gamma",
    "torch.distributions.Beta",
    "torch.distributions.Dirichlet",
    "torch.distributions.Poisson",
    "torch.distributions.Binomial",
    "torch.distributions.MultivariateNormal",
    "torch.distributions.Independent",
    "torch.distributions.kl_divergence",
]


# ---- what the rows ask of a distribution ------------------------------------------------------
def moments(d):
    return d.batch_shape, d.event_shape, d.mean, d.variance, d.stddev


def scored(d, x):
    """Everything a continuous distribution answers about a value and itself."""
    return (*moments(d), d.mode, d.log_prob(x), d.entropy(), d.perplexity())


def prob(u):
    """A probability in (0.05, 0.95) from an input in (-0.9, 0.9)."""
    return (u + 1) / 2


def spd(lib, a):
    """A symmetric positive-definite matrix from any square one: A A^T + I."""
    return a @ a.mT + lib.eye(a.shape[-1], dtype=a.dtype)


def cholesky_factor(lib, a):
    """A lower-triangular matrix with a positive diagonal from any square one."""
    return a.tril(-1) + lib.eye(a.shape[-1], dtype=a.dtype) * (a * a + 0.5)


def D(lib):
    return lib.distributions


# discrete values are made inside the rows, not passed as inputs: the gradient check would
# nudge an input off the support
def counts(lib):
    return lib.tensor([0.0, 1.0, 3.0, 2.0], dtype=lib.float64)


def flips(lib):
    return lib.tensor([0.0, 1.0, 1.0, 0.0], dtype=lib.float64)


def one_hot(lib):
    return lib.tensor([[0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]], dtype=lib.float64)


def constant(lib, values):
    """float64 parameters that take no part in the gradient check."""
    return lib.tensor(values, dtype=lib.float64)


def infinite_pairs(lib, a, b):
    kl, D = lib.distributions.kl_divergence, lib.distributions
    return (
        kl(D.Uniform(a - 1, a + b), D.Uniform(a, a + b)),
        kl(D.Normal(a, b), D.Uniform(a - 1, a + b)),
        kl(D.Normal(a, b), D.Gamma(b, b)),
        kl(D.Exponential(b), D.Uniform(a - 1, a + b)),
        kl(D.Gamma(b, b), D.Beta(b, b)),
        kl(D.Laplace(a, b), D.Exponential(b)),
        kl(D.Poisson(b), D.Bernoulli(b.sigmoid())),
        kl(D.Uniform(a - 3, a), D.Exponential(b)),
        kl(D.Beta(b, b), D.Uniform(a - 5, a + 0.6)),
        kl(
            D.Bernoulli(lib.tensor([0.0, 1.0, 0.5], dtype=a.dtype)),
            D.Bernoulli(lib.tensor([0.0, 0.5, 1.0], dtype=a.dtype)),
        ),
        kl(
            D.Categorical(lib.tensor([0.5, 0.5, 0.0], dtype=a.dtype)),
            D.Categorical(lib.tensor([0.0, 0.5, 0.5], dtype=a.dtype)),
        ),
        kl(
            D.Binomial(5, b.sigmoid()),
            D.Binomial(lib.tensor([5.0, 3.0, 4.0], dtype=a.dtype), b.sigmoid()),
        ),
    )


CASES = [
    # -- continuous distributions: density, entropy, cdf/icdf, moments and their gradients --
    case(
        "torch.distributions.Normal",
        lambda lib, loc, scale, x, u: (
            *scored(D(lib).Normal(loc, scale), x),
            D(lib).Normal(loc, scale).cdf(x),
            D(lib).Normal(loc, scale).icdf(prob(u)),
        ),
        (3,),
        pos(3),
        (3,),
        unit(3),
    ),
    case("torch.distributions.Normal", lambda lib, x: scored(D(lib).Normal(0.0, 1.0), x), (4,)),
    case(
        "torch.distributions.Normal",
        lambda lib, loc, scale, x: scored(D(lib).Normal(loc, scale), x),
        (2, 1),
        pos(3),
        (4, 2, 3),
    ),
    case(
        "torch.distributions.Normal",
        lambda lib, loc, x: D(lib).Normal(loc, 2.0).log_prob(x),
        (3,),
        (),
    ),
    case(
        "torch.distributions.Laplace",
        lambda lib, loc, scale, x, u: (
            *scored(D(lib).Laplace(loc, scale), x),
            D(lib).Laplace(loc, scale).cdf(x),
            D(lib).Laplace(loc, scale).icdf(prob(u)),
        ),
        (3,),
        pos(3),
        (3,),
        unit(3),
    ),
    case(
        "torch.distributions.LogNormal",
        lambda lib, loc, scale, x, u: (
            *scored(D(lib).LogNormal(loc, scale), x),
            D(lib).LogNormal(loc, scale).cdf(x),
            D(lib).LogNormal(loc, scale).icdf(prob(u)),
        ),
        (3,),
        pos(3),
        pos(3),
        unit(3),
    ),
    case(
        "torch.distributions.Uniform",
        lambda lib, low, width, v, u: (
            *moments(D(lib).Uniform(low, low + width)),
            D(lib).Uniform(low, low + width).log_prob(low + width * v.sigmoid()),
            D(lib).Uniform(low, low + width).entropy(),
            D(lib).Uniform(low, low + width).cdf(low + width * v.sigmoid()),
            D(lib).Uniform(low, low + width).icdf(prob(u)),
        ),
        (3,),
        pos(3),
        (3,),
        unit(3),
    ),
    case("torch.distributions.Uniform", lambda lib, x: D(lib).Uniform(-1.0, 2.0).cdf(x), unit(5)),
    case(
        "torch.distributions.Exponential",
        lambda lib, rate, x, u: (
            *scored(D(lib).Exponential(rate), x),
            D(lib).Exponential(rate).cdf(x),
            D(lib).Exponential(rate).icdf(prob(u)),
        ),
        pos(3),
        pos(3),
        unit(3),
    ),
    case(
        "torch.distributions.Gamma",
        lambda lib, c, r, x: scored(D(lib).Gamma(c, r), x),
        pos(4),
        pos(4),
        pos(4),
    ),
    case(  # no gradient with respect to the concentration, in torch either
        "torch.distributions.Gamma",
        lambda lib, r, x: D(lib).Gamma(constant(lib, [0.3, 1.0, 2.5, 9.0]), r).cdf(x),
        pos(4),
        pos(4),
    ),
    case(
        "torch.distributions.Gamma",
        lambda lib, c, x: D(lib).Gamma(c, 2.0).log_prob(x),
        pos(3),
        pos(2, 3),
    ),
    case(
        "torch.distributions.Beta",
        lambda lib, c1, c0, v: scored(D(lib).Beta(c1, c0), v.sigmoid()),
        pos(4),
        pos(4),
        (4,),
    ),
    case(
        "torch.distributions.Beta", lambda lib, v: D(lib).Beta(2.0, 3.0).log_prob(v.sigmoid()), (3,)
    ),
    case(
        "torch.distributions.Dirichlet",
        lambda lib, c, v: scored(D(lib).Dirichlet(c), lib.softmax(v, -1)),
        pos(2, 3),
        (2, 3),
    ),
    case(
        "torch.distributions.MultivariateNormal",
        lambda lib, loc, a, x: scored(
            D(lib).MultivariateNormal(loc, covariance_matrix=spd(lib, a)), x
        ),
        (2, 3),
        (3, 3),
        (4, 2, 3),
    ),
    case(
        "torch.distributions.MultivariateNormal",
        lambda lib, loc, a, x: (
            *scored(D(lib).MultivariateNormal(loc, precision_matrix=spd(lib, a)), x),
            D(lib).MultivariateNormal(loc, precision_matrix=spd(lib, a)).scale_tril,
        ),
        (3,),
        (3, 3),
        (2, 3),
    ),
    case(
        "torch.distributions.MultivariateNormal",
        lambda lib, loc, a, x: (
            *scored(D(lib).MultivariateNormal(loc, scale_tril=cholesky_factor(lib, a)), x),
            D(lib).MultivariateNormal(loc, scale_tril=cholesky_factor(lib, a)).covariance_matrix,
            D(lib).MultivariateNormal(loc, scale_tril=cholesky_factor(lib, a)).precision_matrix,
        ),
        (3,),
        (2, 3, 3),
        (3,),
    ),
    # -- discrete distributions --
    case(
        "torch.distributions.Bernoulli",
        lambda lib, u: (
            *scored(D(lib).Bernoulli(prob(u)), flips(lib)),
            D(lib).Bernoulli(prob(u)).logits,
        ),
        unit(4),
    ),
    case(
        "torch.distributions.Bernoulli",
        lambda lib, logits: (
            *scored(D(lib).Bernoulli(logits=logits), flips(lib)),
            D(lib).Bernoulli(logits=logits).probs,
        ),
        (4,),
    ),
    case("torch.distributions.Bernoulli", lambda lib: D(lib).Bernoulli(0.3).enumerate_support()),
    case(
        "torch.distributions.Bernoulli", lambda lib: D(lib).Bernoulli(lib.tensor([0.5, 0.2])).mode
    ),
    case(
        "torch.distributions.Categorical",
        lambda lib, p, x: (
            D(lib).Categorical(p).batch_shape,
            D(lib).Categorical(p).probs,
            D(lib).Categorical(p).logits,
            D(lib).Categorical(p).log_prob(x),
            D(lib).Categorical(p).entropy(),
            D(lib).Categorical(p).mode,
            D(lib).Categorical(p).enumerate_support(),
            D(lib).Categorical(p).enumerate_support(expand=False),
        ),
        pos(2, 4),
        ints(2, high=4),
    ),
    case(
        "torch.distributions.Categorical",
        lambda lib, logits, x: (
            D(lib).Categorical(logits=logits).probs,
            D(lib).Categorical(logits=logits).log_prob(x),
            D(lib).Categorical(logits=logits).entropy(),
        ),
        (4,),
        ints(3, 2, high=4),
    ),
    case(
        "torch.distributions.Categorical",
        lambda lib: D(lib).Categorical(lib.tensor([0.0, 0.5, 0.5], dtype=lib.float64)).entropy(),
    ),
    case(
        "torch.distributions.OneHotCategorical",
        lambda lib, p: (
            D(lib).OneHotCategorical(p).event_shape,
            D(lib).OneHotCategorical(p).log_prob(one_hot(lib)),
            D(lib).OneHotCategorical(p).entropy(),
            D(lib).OneHotCategorical(p).mean,
            D(lib).OneHotCategorical(p).variance,
            D(lib).OneHotCategorical(p).mode,
            D(lib).OneHotCategorical(p).enumerate_support(),
        ),
        pos(2, 4),
    ),
    case(
        "torch.distributions.OneHotCategorical",
        lambda lib, logits: D(lib).OneHotCategorical(logits=logits).log_prob(one_hot(lib)),
        (4,),
    ),
    case(
        "torch.distributions.Poisson",
        lambda lib, rate: (
            *moments(D(lib).Poisson(rate)),
            D(lib).Poisson(rate).mode,
            D(lib).Poisson(rate).log_prob(counts(lib)),
        ),
        pos(4),
    ),
    case(
        "torch.distributions.Binomial",
        lambda lib, u: (
            *moments(D(lib).Binomial(5, prob(u))),
            D(lib).Binomial(5, prob(u)).mode,
            D(lib).Binomial(5, prob(u)).log_prob(counts(lib)),
            D(lib).Binomial(5, prob(u)).entropy(),
            D(lib).Binomial(5, prob(u)).logits,
            D(lib).Binomial(5, prob(u)).enumerate_support(),
        ),
        unit(4),
    ),
    case(
        "torch.distributions.Binomial",
        lambda lib, logits: (
            D(lib).Binomial(lib.tensor([3.0, 4.0, 5.0, 6.0]), logits=logits).log_prob(counts(lib))
        ),
        (4,),
    ),
    # -- reinterpreting batch dims, expanding, the exponential family's entropy by autograd --
    case(
        "torch.distributions.Independent",
        lambda lib, loc, scale, x: (
            *moments(D(lib).Independent(D(lib).Normal(loc, scale), 1)),
            D(lib).Independent(D(lib).Normal(loc, scale), 1).log_prob(x),
            D(lib).Independent(D(lib).Normal(loc, scale), 1).entropy(),
        ),
        (2, 3),
        pos(2, 3),
        (4, 2, 3),
    ),
    case(
        "torch.distributions.Independent",
        lambda lib, p: (
            D(lib).Independent(D(lib).Bernoulli(p.sigmoid()), 2).log_prob(flips(lib).reshape(2, 2))
        ),
        (2, 2),
    ),
    case(
        "torch.distributions.Distribution",
        lambda lib, loc, x: (
            D(lib).Normal(loc, 1.0).expand((2, 3)).batch_shape,
            D(lib).Normal(loc, 1.0).expand((2, 3)).log_prob(x),
            D(lib).Categorical(logits=loc).expand((2,)).log_prob(lib.tensor([0, 2])),
            D(lib).Gamma(loc.exp(), 1.0).expand((2, 3)).entropy(),
            D(lib).MultivariateNormal(loc, lib.eye(3, dtype=loc.dtype)).expand((2,)).log_prob(x),
            D(lib).Independent(D(lib).Normal(loc, 1.0), 1).expand((2,)).log_prob(x),
        ),
        (3,),
        (2, 3),
    ),
    case(
        "torch.distributions.Distribution", lambda lib, x: D(lib).Normal(x, 1.0).perplexity(), (3,)
    ),
    case(  # values only: the base class differentiates detached copies of the natural parameters
        "torch.distributions.ExponentialFamily",
        lambda lib: (
            D(lib)
            .ExponentialFamily.entropy(
                D(lib).Normal(constant(lib, [0.3, -1.0]), constant(lib, [0.5, 2.0]))
            )
            .detach(),
            D(lib)
            .ExponentialFamily.entropy(
                D(lib).Gamma(constant(lib, [0.3, 4.0]), constant(lib, [0.5, 2.0]))
            )
            .detach(),
            D(lib)
            .ExponentialFamily.entropy(D(lib).Exponential(constant(lib, [0.5, 2.0])))
            .detach(),
            D(lib).ExponentialFamily.entropy(D(lib).Bernoulli(constant(lib, [0.1, 0.7]))).detach(),
        ),
    ),
    case(  # no closed form of its own: the Bregman divergence of the log-normaliser
        "torch.distributions.ExponentialFamily",
        lambda lib: (
            D(lib)
            .kl._kl_expfamily_expfamily(
                D(lib).Gamma(constant(lib, [0.3, 4.0]), constant(lib, [0.5, 2.0])),
                D(lib).Gamma(constant(lib, [1.3, 2.0]), constant(lib, [1.5, 0.2])),
            )
            .detach()
        ),  # the result of autograd.grad(create_graph=True) on detached leaves: values only
    ),
    case(
        "torch.distributions.Categorical",
        lambda lib: (
            D(lib).Categorical(constant(lib, [[0.2, 0.8], [0.5, 0.5]])).mean,
            D(lib).Categorical(constant(lib, [[0.2, 0.8], [0.5, 0.5]])).variance,
        ),
    ),
    # -- KL divergences: every registered pair of the same family, and across families --
    case(
        "torch.distributions.kl_divergence",
        lambda lib, a, b, c, d: lib.distributions.kl_divergence(
            D(lib).Normal(a, b), D(lib).Normal(c, d)
        ),
        (3,),
        pos(3),
        (3,),
        pos(3),
    ),
    case(
        "torch.distributions.kl_divergence",
        lambda lib, u, v: lib.distributions.kl_divergence(
            D(lib).Bernoulli(prob(u)), D(lib).Bernoulli(logits=v)
        ),
        unit(4),
        (4,),
    ),
    case(
        "torch.distributions.kl_divergence",
        lambda lib, p, q: lib.distributions.kl_divergence(
            D(lib).Categorical(p), D(lib).Categorical(logits=q)
        ),
        pos(2, 4),
        (2, 4),
    ),
    case(
        "torch.distributions.kl_divergence",
        lambda lib, p, q: lib.distributions.kl_divergence(
            D(lib).OneHotCategorical(p), D(lib).OneHotCategorical(q)
        ),
        pos(2, 4),
        pos(2, 4),
    ),
    case(
        "torch.distributions.kl_divergence",
        lambda lib, a, w, v: lib.distributions.kl_divergence(
            D(lib).Uniform(a, a + w), D(lib).Uniform(a - v, a + w + v)
        ),
        (3,),
        pos(3),
        pos(3),
    ),
    case(
        "torch.distributions.kl_divergence",
        lambda lib, a, b, c, d: (
            lib.distributions.kl_divergence(D(lib).Exponential(a), D(lib).Exponential(b)),
            lib.distributions.kl_divergence(D(lib).Laplace(c, a), D(lib).Laplace(d, b)),
            lib.distributions.kl_divergence(D(lib).LogNormal(c, a), D(lib).LogNormal(d, b)),
            lib.distributions.kl_divergence(D(lib).Poisson(a), D(lib).Poisson(b)),
            lib.distributions.kl_divergence(D(lib).Gamma(a, b), D(lib).Gamma(b, a)),
            lib.distributions.kl_divergence(D(lib).Beta(a, b), D(lib).Beta(b, a)),
        ),
        pos(3),
        pos(3),
        (3,),
        (3,),
    ),
    case(
        "torch.distributions.kl_divergence",
        lambda lib, p, q: lib.distributions.kl_divergence(D(lib).Dirichlet(p), D(lib).Dirichlet(q)),
        pos(2, 3),
        pos(2, 3),
    ),
    case(
        "torch.distributions.kl_divergence",
        lambda lib, u, v: lib.distributions.kl_divergence(
            D(lib).Binomial(5, prob(u)), D(lib).Binomial(5, prob(v))
        ),
        unit(3),
        unit(3),
    ),
    case(
        "torch.distributions.kl_divergence",
        lambda lib, m1, a, m2, b: lib.distributions.kl_divergence(
            D(lib).MultivariateNormal(m1, scale_tril=cholesky_factor(lib, a)),
            D(lib).MultivariateNormal(m2, covariance_matrix=spd(lib, b)),
        ),
        (2, 3),
        (3, 3),
        (3,),
        (2, 3, 3),
    ),
    case(
        "torch.distributions.kl_divergence",
        lambda lib, m, s, n, t: lib.distributions.kl_divergence(
            D(lib).Independent(D(lib).Normal(m, s), 1), D(lib).Independent(D(lib).Normal(n, t), 1)
        ),
        (2, 3),
        pos(2, 3),
        (2, 3),
        pos(2, 3),
    ),
    case(
        "torch.distributions.kl_divergence",
        lambda lib, a, b, c, d: (
            lib.distributions.kl_divergence(D(lib).Normal(c, a), D(lib).Laplace(d, b)),
            lib.distributions.kl_divergence(D(lib).Laplace(c, a), D(lib).Normal(d, b)),
            lib.distributions.kl_divergence(D(lib).Exponential(a), D(lib).Normal(d, b)),
            lib.distributions.kl_divergence(D(lib).Exponential(a), D(lib).Gamma(b, a)),
            lib.distributions.kl_divergence(D(lib).Gamma(a, b), D(lib).Normal(d, a)),
            lib.distributions.kl_divergence(D(lib).Gamma(a, b), D(lib).Exponential(a)),
            lib.distributions.kl_divergence(D(lib).Beta(a, b), D(lib).Normal(c, b)),
            lib.distributions.kl_divergence(D(lib).Beta(a, b), D(lib).Gamma(b, a)),
            lib.distributions.kl_divergence(D(lib).Beta(a, b), D(lib).Exponential(a)),
            lib.distributions.kl_divergence(D(lib).Uniform(c, c + a), D(lib).Normal(d, b)),
            lib.distributions.kl_divergence(D(lib).Uniform(a, a + b), D(lib).Gamma(b, a)),
            lib.distributions.kl_divergence(D(lib).Uniform(a, a + b), D(lib).Exponential(b)),
            lib.distributions.kl_divergence(
                D(lib).Uniform(b.sigmoid() / 2, b.sigmoid()), D(lib).Beta(a, b)
            ),
            lib.distributions.kl_divergence(D(lib).Bernoulli(a.sigmoid()), D(lib).Poisson(b)),
        ),
        pos(3),
        pos(3),
        (3,),
        (3,),
    ),
    case(  # infinite where q misses part of p's support (constants: no finite differences of inf)
        "torch.distributions.kl_divergence",
        lambda lib: infinite_pairs(
            lib, constant(lib, [-0.5, 0.2, 1.5]), constant(lib, [0.6, 1.3, 2.0])
        ),
    ),
    # -- samples: the draws differ, their shapes and dtypes must not --
    case(
        "torch.distributions.Normal",
        lambda lib, m, s: D(lib).Normal(m, s).sample((5, 2)),
        (3,),
        pos(3),
        values=False,
    ),
    case(
        "torch.distributions.Normal",
        lambda lib, m, s: D(lib).Normal(m, s).rsample(),
        (3,),
        pos(3),
        values=False,
    ),
    case("torch.distributions.Normal", lambda lib: D(lib).Normal(0.0, 1.0).sample(), values=False),
    case(
        "torch.distributions.Bernoulli",
        lambda lib, u: D(lib).Bernoulli(prob(u)).sample((4,)),
        unit(3),
        values=False,
    ),
    case(
        "torch.distributions.Categorical",
        lambda lib, p: D(lib).Categorical(p).sample((4,)),
        pos(2, 3),
        values=False,
    ),
    case(
        "torch.distributions.Categorical",
        lambda lib, p: D(lib).Categorical(p).sample(),
        pos(3),
        values=False,
    ),
    case(
        "torch.distributions.OneHotCategorical",
        lambda lib, p: D(lib).OneHotCategorical(p).sample((4,)),
        pos(2, 3),
        values=False,
    ),
    case(
        "torch.distributions.Uniform",
        lambda lib, a: D(lib).Uniform(a, a + 1).rsample((2,)),
        (3,),
        values=False,
    ),
    case(
        "torch.distributions.Exponential",
        lambda lib, r: D(lib).Exponential(r).rsample((2,)),
        pos(3),
        values=False,
    ),
    case(
        "torch.distributions.Laplace",
        lambda lib, m: D(lib).Laplace(m, 1.0).rsample((2,)),
        (3,),
        values=False,
    ),
    case(
        "torch.distributions.LogNormal",
        lambda lib, m: D(lib).LogNormal(m, 1.0).rsample((2,)),
        (3,),
        values=False,
    ),
    case(
        "torch.distributions.Gamma",
        lambda lib, c: D(lib).Gamma(c, 1.0).rsample((2,)),
        pos(3),
        values=False,
    ),
    case(
        "torch.distributions.Beta",
        lambda lib, c: D(lib).Beta(c, c).rsample((2,)),
        pos(3),
        values=False,
    ),
    case(
        "torch.distributions.Dirichlet",
        lambda lib, c: D(lib).Dirichlet(c).rsample((2,)),
        pos(3),
        values=False,
    ),
    case(
        "torch.distributions.Poisson",
        lambda lib, r: D(lib).Poisson(r).sample((2,)),
        pos(3),
        values=False,
    ),
    case(
        "torch.distributions.Binomial",
        lambda lib, u: D(lib).Binomial(10, prob(u)).sample((2,)),
        unit(3),
        values=False,
    ),
    case(
        "torch.distributions.MultivariateNormal",
        lambda lib, m: D(lib).MultivariateNormal(m, lib.eye(3, dtype=m.dtype)).rsample((4,)),
        (2, 3),
        values=False,
    ),
    case(
        "torch.distributions.Independent",
        lambda lib, m: D(lib).Independent(D(lib).Normal(m, 1.0), 1).sample((4,)),
        (2, 3),
        values=False,
    ),
    case(
        "torch.distributions.Normal",
        lambda lib: D(lib).Normal(lib.zeros(2), 1.0).sample((3,)),
        values=False,
    ),  # float32
    case(
        "torch.distributions.Categorical",
        lambda lib, p: D(lib).Categorical(p).sample((0,)),
        pos(3),
        raises=RuntimeError,
    ),
    # -- bad parameters and values: ValueError, as torch's validation --
    case(
        "torch.distributions.Normal",
        lambda lib, m, s: D(lib).Normal(m, -s),
        (3,),
        pos(3),
        raises=ValueError,
    ),
    case(
        "torch.distributions.Normal",
        lambda lib, m: D(lib).Normal(m, 1.0).log_prob(lib.tensor([math.nan])),
        (3,),
        raises=ValueError,
    ),
    case(
        "torch.distributions.Normal",
        lambda lib, m: D(lib).Normal(m, 1.0).log_prob(lib.zeros(2)),
        (3,),
        raises=ValueError,
    ),
    case(
        "torch.distributions.Bernoulli",
        lambda lib, u: D(lib).Bernoulli(prob(u) + 1),
        unit(3),
        raises=ValueError,
    ),
    case(
        "torch.distributions.Bernoulli",
        lambda lib, u: D(lib).Bernoulli(prob(u)).log_prob(prob(u)),
        unit(3),
        raises=ValueError,
    ),
    case(
        "torch.distributions.Bernoulli",
        lambda lib, u: D(lib).Bernoulli(prob(u), logits=u),
        unit(3),
        raises=ValueError,
    ),
    case(
        "torch.distributions.Categorical",
        lambda lib: D(lib).Categorical(lib.tensor([0.5, -0.2, 0.7])),
        raises=ValueError,
    ),
    case(
        "torch.distributions.Categorical",
        lambda lib, p: D(lib).Categorical(p).log_prob(lib.tensor([3])),
        pos(3),
        raises=ValueError,
    ),
    case(
        "torch.distributions.Categorical",
        lambda lib: D(lib).Categorical(lib.tensor(0.5)),
        raises=ValueError,
    ),
    case(
        "torch.distributions.Uniform",
        lambda lib, a: D(lib).Uniform(a, a - 1),
        (3,),
        raises=ValueError,
    ),
    case(
        "torch.distributions.Uniform",
        lambda lib, a: D(lib).Uniform(a, a + 1).log_prob(a + 2),
        (3,),
        raises=ValueError,
    ),
    case(
        "torch.distributions.Exponential",
        lambda lib, r: D(lib).Exponential(-r),
        pos(3),
        raises=ValueError,
    ),
    case(
        "torch.distributions.Exponential",
        lambda lib, r: D(lib).Exponential(r).log_prob(-r),
        pos(3),
        raises=ValueError,
    ),
    case(
        "torch.distributions.Gamma", lambda lib, c: D(lib).Gamma(c, -c), pos(3), raises=ValueError
    ),
    case(
        "torch.distributions.Beta",
        lambda lib, c: D(lib).Beta(c, c).log_prob(c + 1),
        pos(3),
        raises=ValueError,
    ),
    case(
        "torch.distributions.Dirichlet",
        lambda lib, c: D(lib).Dirichlet(c).log_prob(c),
        pos(3),
        raises=ValueError,
    ),
    case(
        "torch.distributions.Poisson",
        lambda lib, r: D(lib).Poisson(r).log_prob(r),
        pos(3),
        raises=ValueError,
    ),
    case(
        "torch.distributions.Binomial",
        lambda lib, u: D(lib).Binomial(2, prob(u)).log_prob(lib.tensor(3.0)),
        unit(3),
        raises=ValueError,
    ),
    case(
        "torch.distributions.Binomial",
        lambda lib, u: D(lib).Binomial(-2, prob(u)),
        unit(3),
        raises=ValueError,
    ),
    case(
        "torch.distributions.Laplace",
        lambda lib, m: D(lib).Laplace(m, 0.0),
        (3,),
        raises=ValueError,
    ),
    case(
        "torch.distributions.LogNormal",
        lambda lib, m: D(lib).LogNormal(m, 1.0).log_prob(-m.abs()),
        (3,),
        raises=ValueError,
    ),
    case(
        "torch.distributions.MultivariateNormal",
        lambda lib, m, a: D(lib).MultivariateNormal(m, covariance_matrix=a),
        (3,),
        (3, 3),
        raises=ValueError,
    ),
    case(
        "torch.distributions.MultivariateNormal",
        lambda lib, m: D(lib).MultivariateNormal(m),
        (3,),
        raises=ValueError,
    ),
    case(
        "torch.distributions.Independent",
        lambda lib, m: D(lib).Independent(D(lib).Normal(m, 1.0), 2),
        (3,),
        raises=ValueError,
    ),
    case(
        "torch.distributions.kl_divergence",
        lambda lib, m: lib.distributions.kl_divergence(
            D(lib).Normal(m, 1.0), D(lib).Categorical(m.exp())
        ),
        (3,),
        raises=NotImplementedError,
    ),
    # validation off: no checks, the formula's value (log of a negative scale: NaN)
    case(
        "torch.distributions.Normal",
        lambda lib, m: D(lib).Normal(m, -1.0, validate_args=False).entropy(),
        (3,),
    ),
]


# NumPy's, on ln(-1) with validation off
@pytest.mark.filterwarnings("ignore:invalid value encountered in log")
@pytest.mark.parametrize("row", CASES, ids=list(ids(CASES)))
def test_behaves_as_torch(row):
    run(row)


# ---- the distributions' own attributes -----------------------------------------------------------
def test_flags_and_supports_as_torch():
    tensor = np.array([0.3, 0.6])
    for name, args in [
        ("Normal", (tensor, tensor)),
        ("Laplace", (tensor, tensor)),
        ("LogNormal", (tensor, tensor)),
        ("Uniform", (tensor, tensor + 1)),
        ("Exponential", (tensor,)),
        ("Gamma", (tensor, tensor)),
        ("Beta", (tensor, tensor)),
        ("Dirichlet", (tensor,)),
        ("Poisson", (tensor,)),
        ("Bernoulli", (tensor,)),
        ("Categorical", (tensor,)),
        ("OneHotCategorical", (tensor,)),
        ("Binomial", (3, tensor)),
    ]:
        mine = getattr(mg.distributions, name)(
            *[mg.tensor(a) if isinstance(a, np.ndarray) else a for a in args]
        )
        theirs = getattr(torch.distributions, name)(
            *[torch.tensor(a) if isinstance(a, np.ndarray) else a for a in args]
        )
        assert mine.has_rsample == theirs.has_rsample, name
        assert mine.has_enumerate_support == theirs.has_enumerate_support, name
        assert repr(mine.support).replace("minigrad.", "") == repr(theirs.support).replace(
            "torch.", ""
        ), name
        assert isinstance(mine, mg.distributions.ExponentialFamily) == isinstance(
            theirs, torch.distributions.ExponentialFamily
        ), name
        assert sorted(
            type(mine).arg_constraints if name != "Uniform" else mine.arg_constraints
        ) == sorted(
            type(theirs).arg_constraints if name != "Uniform" else theirs.arg_constraints
        ), name


def test_validation_messages_name_the_parameter_and_the_constraint():
    with pytest.raises(
        ValueError,
        match=r"Expected parameter scale \(Tensor of shape \(\)\) of distribution Normal\(loc: "
        r"0.0, scale: -1.0\) to satisfy the constraint GreaterThan\(lower_bound=0.0\), but found "
        r"invalid values:\n-1.0",
    ):
        mg.distributions.Normal(0.0, -1.0)
    with pytest.raises(
        ValueError, match=r"Expected parameter scale .* GreaterThan\(lower_bound=0.0\)"
    ):
        torch.distributions.Normal(0.0, -1.0)  # the same words from torch
    with pytest.raises(
        ValueError,
        match=r"Expected value argument \(Tensor of shape \(2,\)\) to be within the support "
        r"\(Boolean\(\)\)",
    ):
        mg.distributions.Bernoulli(0.5).log_prob(mg.tensor([0.5, 1.0]))
    with pytest.raises(
        ValueError, match="Either `probs` or `logits` must be specified, but not both."
    ):
        mg.distributions.Categorical()


@pytest.mark.filterwarnings("ignore:invalid value encountered in log")
def test_validation_can_be_switched_off_by_default():
    try:
        mg.distributions.Distribution.set_default_validate_args(False)
        torch.distributions.Distribution.set_default_validate_args(False)
        mine = mg.distributions.Normal(0.0, -1.0).log_prob(mg.tensor(1.0))
        theirs = torch.distributions.Normal(0.0, -1.0).log_prob(torch.tensor(1.0))
        assert np.isnan(mine.item()) and np.isnan(theirs.item())
    finally:
        mg.distributions.Distribution.set_default_validate_args(True)
        torch.distributions.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError):
        mg.distributions.Normal(0.0, -1.0)
    with pytest.raises(ValueError):
        mg.distributions.Distribution.set_default_validate_args("yes")


def shifted_class(lib):
    """A distribution written as users write one, by subclassing Distribution."""

    class Shifted(lib.distributions.Distribution):
        arg_constraints = {"shift": lib.distributions.constraints.real}
        support = lib.distributions.constraints.real
        has_rsample = True

        def __init__(self, shift, validate_args=None):
            self.shift = shift
            super().__init__(tuple(shift.shape), validate_args=validate_args)

        def rsample(self, sample_shape=()):
            return self.shift + lib.zeros(
                self._extended_shape(sample_shape), dtype=self.shift.dtype
            )

        @property
        def variance(self):
            return self.shift * 0 + 4.0

        def entropy(self):
            return self.shift * 0 + 1.0

    return Shifted


def test_a_distribution_of_ones_own():
    """The base class gives shapes, sample, stddev, perplexity, validation and a repr from
    arg_constraints to a subclass."""
    for lib in (torch, mg):
        Shifted = shifted_class(lib)
        shift = lib.tensor([1.0, 2.0], requires_grad=True)
        d = Shifted(shift)
        assert tuple(d.batch_shape) == (2,) and tuple(d.event_shape) == ()
        assert tuple(d.sample((3,)).shape) == (3, 2) and not d.sample().requires_grad
        assert d.rsample().requires_grad
        np.testing.assert_allclose(d.stddev.detach().numpy(), [2.0, 2.0])
        np.testing.assert_allclose(d.perplexity().detach().numpy(), [math.e, math.e])
        assert (
            repr(d) == "Shifted(shift: torch.Size([2]))"
            if lib is torch
            else repr(d) == "Shifted(shift: (2,))"
        )
        with pytest.raises(ValueError, match="Expected parameter shift"):
            Shifted(lib.tensor([math.nan]))
        with pytest.raises(NotImplementedError):
            d.log_prob(lib.tensor([0.0, 0.0]))
        with pytest.raises(NotImplementedError):  # expand is each distribution's own
            d.expand((3, 2))


def test_register_kl_refuses_what_is_not_a_distribution():
    # minigrad checks both types (torch's check has a precedence slip and lets int through)
    with pytest.raises(TypeError, match="Expected type_p to be a Distribution subclass"):
        mg.distributions.register_kl(int, mg.distributions.Normal)


def test_register_kl_picks_the_most_specific_pair():
    """A user's registration, as in torch: the subclass pair wins over the base pair."""
    for lib in (torch, mg):

        class Wide(lib.distributions.Normal):
            pass

        @lib.distributions.register_kl(Wide, lib.distributions.Normal)
        def _kl_wide(p, q):
            return p.loc * 0 + 42.0

        p, q = Wide(lib.tensor([0.0]), 2.0), lib.distributions.Normal(lib.tensor([1.0]), 1.0)
        assert lib.distributions.kl_divergence(p, q).item() == 42.0
        exact = lib.distributions.kl_divergence(
            lib.distributions.Normal(lib.tensor([0.0]), 2.0), q
        ).item()
        assert exact == pytest.approx(math.log(1 / 2) + (4 + 1) / 2 - 0.5)


def test_lazy_parameters_are_computed_once_and_keep_their_gradient():
    u = mg.tensor([0.2, 0.7], requires_grad=True)
    d = mg.distributions.Bernoulli(u)
    assert "logits" not in d.__dict__
    with mg.no_grad():
        logits = d.logits  # computed with grad mode on, even here (as torch)
    assert d.logits is logits and logits.requires_grad
    logits.sum().backward()
    np.testing.assert_allclose(
        u.grad.numpy(), 1 / (u.detach().numpy() * (1 - u.detach().numpy())), rtol=1e-6
    )


# ---- sampling statistics -------------------------------------------------------------------------
N = 20_000  # draws per test: standard errors of about 1% of a standard deviation

SAMPLED = [
    (
        "Normal",
        lambda lib: lib.distributions.Normal(lib.tensor([0.5, -2.0]), lib.tensor([1.5, 0.3])),
    ),
    (
        "Laplace",
        lambda lib: lib.distributions.Laplace(lib.tensor([0.5, -2.0]), lib.tensor([1.5, 0.3])),
    ),
    (
        "LogNormal",
        lambda lib: lib.distributions.LogNormal(lib.tensor([0.1, -1.0]), lib.tensor([0.5, 0.3])),
    ),
    (
        "Uniform",
        lambda lib: lib.distributions.Uniform(lib.tensor([0.5, -2.0]), lib.tensor([1.5, 3.0])),
    ),
    ("Exponential", lambda lib: lib.distributions.Exponential(lib.tensor([0.5, 4.0]))),
    (
        "Gamma",
        lambda lib: lib.distributions.Gamma(
            lib.tensor([0.3, 1.0, 7.5]), lib.tensor([1.0, 2.0, 0.5])
        ),
    ),
    ("Beta", lambda lib: lib.distributions.Beta(lib.tensor([0.5, 2.0]), lib.tensor([0.7, 5.0]))),
    (
        "Dirichlet",
        lambda lib: lib.distributions.Dirichlet(lib.tensor([[0.5, 2.0, 1.0], [3.0, 3.0, 3.0]])),
    ),
    ("Poisson", lambda lib: lib.distributions.Poisson(lib.tensor([0.5, 3.0, 40.0]))),
    (
        "Binomial",
        lambda lib: lib.distributions.Binomial(lib.tensor([10.0, 3.0]), lib.tensor([0.3, 0.9])),
    ),
    ("Bernoulli", lambda lib: lib.distributions.Bernoulli(lib.tensor([0.1, 0.5, 0.8]))),
    ("Categorical", lambda lib: lib.distributions.OneHotCategorical(lib.tensor([0.1, 0.6, 0.3]))),
    (
        "MultivariateNormal",
        lambda lib: lib.distributions.MultivariateNormal(
            lib.tensor([1.0, -1.0]), covariance_matrix=lib.tensor([[2.0, 0.6], [0.6, 0.5]])
        ),
    ),
]


@pytest.mark.parametrize("make", [m for _, m in SAMPLED], ids=[n for n, _ in SAMPLED])
def test_samples_have_the_distributions_mean_and_variance(make):
    mg.manual_seed(0)
    mine, theirs = make(mg), make(torch)
    draws = mine.sample((N,))
    reference = theirs.sample((N,))
    assert tuple(draws.shape) == tuple(reference.shape) and str(draws.dtype) == str(
        reference.dtype
    ).replace("torch.", "")
    x = draws.numpy().astype(np.float64)
    mean, var = theirs.mean.numpy().astype(np.float64), theirs.variance.numpy().astype(np.float64)
    # the sample mean is within 5 standard errors sqrt(var / N) of the mean; the sample
    # variance within 5 of its own (~ var sqrt(2 / N) for light tails, more for heavy: 10%)
    np.testing.assert_array_less(np.abs(x.mean(0) - mean), 5 * np.sqrt(var / N) + 1e-12)
    np.testing.assert_allclose(x.var(0), var, rtol=0.1)
    assert bool(np.all(mine.support.check(draws).numpy()))


def test_multivariate_normal_samples_have_its_covariance():
    mg.manual_seed(1)
    cov = np.array([[2.0, 0.6], [0.6, 0.5]])
    loc, lower = mg.tensor([1.0, -1.0], dtype=mg.float64), mg.tensor(np.linalg.cholesky(cov))
    d = mg.distributions.MultivariateNormal(loc, scale_tril=lower)
    x = d.sample((N,)).numpy().astype(np.float64)
    np.testing.assert_allclose(np.cov(x.T), cov, atol=0.05)


def test_categorical_draws_each_class_as_often_as_its_probability():
    mg.manual_seed(2)
    probs = np.array([[0.1, 0.6, 0.3], [0.5, 0.0, 0.5]])
    draws = mg.distributions.Categorical(mg.tensor(probs)).sample((N,)).numpy()
    assert draws.dtype == np.int64 and draws.shape == (N, 2)
    for row in range(2):
        freq = np.bincount(draws[:, row], minlength=3) / N
        np.testing.assert_array_less(
            np.abs(freq - probs[row]), 5 * np.sqrt(probs[row] * (1 - probs[row]) / N) + 1e-12
        )


def test_seeding_makes_samples_repeatable():
    d = mg.distributions.Gamma(mg.tensor([0.5, 2.0]), 1.0)
    mg.manual_seed(7)
    a = d.sample((3,))
    mg.manual_seed(7)
    b = d.sample((3,))
    np.testing.assert_array_equal(a.numpy(), b.numpy())


# ---- gradients of reparameterised samples --------------------------------------------------------
def _rsample_with_grads(make, *params):
    leaves = [mg.tensor(p, requires_grad=True) for p in params]
    x = make(*leaves).rsample()
    x.backward(mg.ones_like(x))
    return x.detach().numpy(), [leaf.grad.numpy() for leaf in leaves]


def test_pathwise_gradients_are_the_reparameterisations():
    mg.manual_seed(3)
    loc, scale = np.array([0.5, -1.0, 2.0]), np.array([0.4, 1.5, 2.0])
    x, (g_loc, g_scale) = _rsample_with_grads(mg.distributions.Normal, loc, scale)
    np.testing.assert_allclose(g_loc, 1.0)
    np.testing.assert_allclose(g_scale, (x - loc) / scale)  # x = loc + scale eps: dx/dscale = eps
    x, (g_loc, g_scale) = _rsample_with_grads(mg.distributions.Laplace, loc, scale)
    np.testing.assert_allclose(g_scale, (x - loc) / scale)
    x, (g_loc, g_scale) = _rsample_with_grads(mg.distributions.LogNormal, loc, scale)
    np.testing.assert_allclose(g_loc, x)  # y = e^(loc + scale eps): dy/dloc = y
    np.testing.assert_allclose(g_scale, x * (np.log(x) - loc) / scale)
    low, high = np.array([0.0, 1.0]), np.array([2.0, 5.0])
    x, (g_low, g_high) = _rsample_with_grads(mg.distributions.Uniform, low, high)
    u = (x - low) / (high - low)
    np.testing.assert_allclose(g_low, 1 - u)
    np.testing.assert_allclose(g_high, u)
    rate = np.array([0.5, 3.0])
    x, (g_rate,) = _rsample_with_grads(mg.distributions.Exponential, rate)
    np.testing.assert_allclose(g_rate, -x / rate)


def test_multivariate_normal_rsample_passes_a_gradient_check():
    def sample(loc, a):
        mg.manual_seed(4)  # the same noise at every evaluation
        return mg.distributions.MultivariateNormal(loc, covariance_matrix=spd(mg, a)).rsample((2,))

    rng = np.random.default_rng(0)
    loc, a = (
        mg.tensor(rng.standard_normal(3), requires_grad=True),
        mg.tensor(rng.standard_normal((3, 3)), requires_grad=True),
    )
    assert gradcheck(sample, [loc, a])


def test_normal_rsample_passes_a_gradient_check():
    def sample(loc, scale):
        mg.manual_seed(5)
        return mg.distributions.Normal(loc, scale).rsample((4,))

    loc = mg.tensor([0.3, -1.0], dtype=mg.float64, requires_grad=True)
    scale = mg.tensor([0.5, 2.0], dtype=mg.float64, requires_grad=True)
    assert gradcheck(sample, [loc, scale])


@pytest.mark.parametrize(
    "name, make, d_mean",
    [
        # dE[x]/dalpha for Gamma(alpha, beta): 1/beta; for dE[x]/dbeta: -alpha/beta^2
        (
            "Gamma alpha",
            lambda c: mg.distributions.Gamma(c, 2.0),
            lambda c: np.full_like(c, 1 / 2.0),
        ),
        (
            "Gamma small alpha",
            lambda c: mg.distributions.Gamma(c, 1.0),
            lambda c: np.full_like(c, 1.0),
        ),
        # Beta(a, 2): E[x] = a / (a + 2), dE/da = 2 / (a + 2)^2
        ("Beta", lambda c: mg.distributions.Beta(c, 2.0), lambda c: 2 / (c + 2) ** 2),
        # Dirichlet([a, 1, 1])_0: E = a / (a + 2), the same derivative
        (
            "Dirichlet",
            lambda c: mg.distributions.Dirichlet(
                mg.stack([c, mg.ones_like(c), mg.ones_like(c)], -1)
            ),
            lambda c: 2 / (c + 2) ** 2,
        ),
    ],
)
def test_implicit_gradients_of_gamma_draws_are_unbiased(name, make, d_mean):
    """The expected gradient of a draw is the gradient of the expected draw: for each of N
    independent distributions (one parameter each), d(draw)/d(parameter); their average
    must be within 5 standard errors of dE[x]/d(parameter)."""
    mg.manual_seed(6)
    alpha = 0.2 if "small" in name else 1.7
    c = mg.full((N,), alpha, dtype=mg.float64, requires_grad=True)
    x = make(c).rsample()
    first = x if x.ndim == 1 else x[:, 0]
    first.sum().backward()
    g = c.grad.numpy()
    expected = d_mean(np.array([alpha]))[0]
    assert abs(g.mean() - expected) < 5 * g.std() / math.sqrt(N), (g.mean(), expected)
    assert np.all(np.isfinite(g))


def test_gamma_rsample_gradient_is_the_implicit_one():
    """Per draw: moving alpha by h moves the draw to keep its CDF value, dx = -(dF/dalpha) / p(x)
    h."""
    mg.manual_seed(8)
    alpha = mg.tensor([0.4, 1.0, 3.0, 12.0], dtype=mg.float64, requires_grad=True)
    x = mg.distributions.Gamma(alpha, 1.0).rsample()
    x.sum().backward()
    a, v, h = alpha.detach().numpy(), x.detach().numpy(), 1e-6
    tv = torch.tensor(v)
    dF = (
        torch.special.gammainc(torch.tensor(a + h), tv)
        - torch.special.gammainc(torch.tensor(a - h), tv)
    ).numpy() / (2 * h)
    density = torch.distributions.Gamma(torch.tensor(a), 1.0).log_prob(tv).exp().numpy()
    np.testing.assert_allclose(alpha.grad.numpy(), -dF / density, rtol=1e-5)


# ---- programs that use distributions, unchanged --------------------------------------------------
def reinforce_step(lib, weights, states, actions=None):
    """The PyTorch examples' reinforce.py, one episode's update: a policy network gives
    action probabilities, Categorical samples the actions and scores them, and the loss
    -sum(log_prob * return) is minimised."""
    torch_like = lib
    policy = torch_like.nn.Sequential(
        torch_like.nn.Linear(4, 8), torch_like.nn.ReLU(), torch_like.nn.Linear(8, 2)
    )
    with torch_like.no_grad():
        for p, w in zip(policy.parameters(), weights):
            p.copy_(torch_like.tensor(w, dtype=p.dtype))
    optimizer = torch_like.optim.Adam(policy.parameters(), lr=1e-2)
    probs = torch_like.nn.functional.softmax(
        policy(torch_like.tensor(states, dtype=torch_like.float32)), dim=1
    )
    m = torch_like.distributions.Categorical(probs)
    sampled = m.sample()
    action = sampled if actions is None else torch_like.tensor(actions)
    returns = torch_like.tensor([1.0, 0.5, -0.2, 2.0, 0.1])
    returns = (returns - returns.mean()) / (returns.std() + 1e-8)
    loss = (-m.log_prob(action) * returns).sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return sampled, loss.item(), [p.detach().numpy().copy() for p in policy.parameters()]


def test_reinforce_runs_unchanged_and_agrees_with_torch():
    rng = np.random.default_rng(0)
    weights = [
        rng.standard_normal(s).astype(np.float32) * 0.5 for s in [(8, 4), (8,), (2, 8), (2,)]
    ]
    states = rng.standard_normal((5, 4))
    sampled, _, _ = reinforce_step(mg, weights, states)
    assert sampled.dtype == mg.int64 and sampled.shape == (5,) and set(sampled.tolist()) <= {0, 1}
    actions = np.array([0, 1, 1, 0, 1])
    _, loss_mg, params_mg = reinforce_step(mg, weights, states, actions)
    _, loss_torch, params_torch = reinforce_step(torch, weights, states, actions)
    assert loss_mg == pytest.approx(loss_torch, rel=1e-5)
    for a, b in zip(params_mg, params_torch):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def vae_loss(lib, mu, logvar, x_logits, x):
    """A VAE's negative ELBO as the d2l and PyTorch examples write it with distributions:
    q(z|x) = N(mu, sigma) against the prior N(0, 1), and a Bernoulli decoder."""
    D = lib.distributions
    q = D.Independent(D.Normal(mu, (0.5 * logvar).exp()), 1)
    prior = D.Independent(D.Normal(lib.zeros_like(mu), lib.ones_like(mu)), 1)
    z = q.rsample()
    kl = D.kl_divergence(q, prior)
    reconstruction = D.Independent(D.Bernoulli(logits=x_logits), 1).log_prob(x)
    return (kl - reconstruction).mean(), z


def test_a_vae_loss_runs_unchanged_and_agrees_with_torch():
    rng = np.random.default_rng(1)
    arrays = [rng.standard_normal((4, 2)), rng.standard_normal((4, 2)), rng.standard_normal((4, 6))]
    x = (rng.random((4, 6)) > 0.5).astype(np.float64)
    results = {}
    for lib in (torch, mg):
        leaves = [lib.tensor(a, requires_grad=True) for a in arrays]
        loss, z = vae_loss(lib, *leaves, lib.tensor(x))
        assert tuple(z.shape) == (4, 2) and z.requires_grad
        # the gradient of the loss without its random part (the KL and the reconstruction)
        loss.backward()
        results[lib.__name__] = loss.item(), [leaf.grad.numpy() for leaf in leaves]
    assert results["minigrad"][0] == pytest.approx(results["torch"][0], rel=1e-10)
    for a, b in zip(results["minigrad"][1], results["torch"][1]):
        np.testing.assert_allclose(a, b, rtol=1e-10)


# ---- the special functions the distributions are made of ----------------------------------------
def test_the_lower_gamma_series_and_its_derivative_in_alpha():
    """P(a, x) from the series matches torch's gammainc, and the series' term-by-term
    derivative matches the finite differences of torch's gammainc in a."""
    a = np.array([0.1, 0.5, 1.0, 2.5, 10.0, 100.0, 0.3, 7.0, 1e4])
    x = np.array([0.01, 3.0, 1.0, 2.5, 30.0, 95.0, 50.0, 0.0, 1.01e4])
    value, derivative = mg_standard_gamma.lower_gamma_and_derivative(a, x)
    np.testing.assert_allclose(
        value, torch.special.gammainc(torch.tensor(a), torch.tensor(x)).numpy(), atol=1e-9
    )
    h = 1e-5
    numeric = (
        torch.special.gammainc(torch.tensor(a + h), torch.tensor(x))
        - torch.special.gammainc(torch.tensor(a - h), torch.tensor(x))
    ).numpy() / (2 * h)
    np.testing.assert_allclose(derivative, numeric, rtol=1e-4, atol=1e-8)
    assert derivative[7] == 0.0 and value[7] == 0.0  # P(a, 0) = 0 for every a


def test_gamma_cdf_has_no_gradient_in_the_concentration_as_torch():
    for lib in (torch, mg):
        c = lib.tensor([1.5, 2.0], dtype=lib.float64, requires_grad=True)
        with pytest.raises((RuntimeError, NotImplementedError)):
            lib.distributions.Gamma(c, 1.0).cdf(
                lib.tensor([0.5, 1.0], dtype=lib.float64)
            ).sum().backward()


def test_cholesky_and_triangular_solve_against_torch():
    rng = np.random.default_rng(2)
    a = rng.standard_normal((2, 4, 4))
    spd_ = a @ a.transpose(0, 2, 1) + np.eye(4)
    mine, theirs = mg.tensor(spd_, requires_grad=True), torch.tensor(spd_, requires_grad=True)
    grad = rng.standard_normal((2, 4, 4))
    mg_cholesky.cholesky(mine).backward(mg.tensor(grad))
    torch.linalg.cholesky(theirs).backward(torch.tensor(grad))
    np.testing.assert_allclose(mine.grad.numpy(), theirs.grad.numpy(), rtol=1e-9, atol=1e-12)
    lower, b = np.tril(a[0]) + 3 * np.eye(4), rng.standard_normal((2, 4, 3))
    for upper in (False, True):
        m = lower.T if upper else lower
        np.testing.assert_allclose(
            mg_cholesky.solve_triangular(mg.tensor(m), mg.tensor(b), upper=upper).numpy(),
            torch.linalg.solve_triangular(torch.tensor(m), torch.tensor(b), upper=upper).numpy(),
            rtol=1e-12,
        )
    assert gradgradcheck(
        lambda s: mg_cholesky.cholesky(0.5 * (s + s.mT)), [mg.tensor(spd_[0], requires_grad=True)]
    )
    assert gradcheck(
        lambda m, v: mg_cholesky.solve_triangular(m, v, upper=False),
        [mg.tensor(lower, requires_grad=True), mg.tensor(b, requires_grad=True)],
    )
    with pytest.raises(RuntimeError, match="not positive-definite"):
        mg_cholesky.cholesky(mg.tensor(-np.eye(3)))


def test_the_package_is_reachable_as_torchs():
    """`import minigrad` reaches mg.distributions, as `import torch` reaches torch.distributions,
    and it holds torch's names for the distributions minigrad has."""
    import importlib

    for lib in (torch, mg):
        assert importlib.import_module(f"{lib.__name__}.distributions") is lib.distributions
    for name in TORCH_API[1:]:
        attribute = name.split(".")[-1]
        assert hasattr(torch.distributions, attribute) and hasattr(mg.distributions, attribute), (
            name
        )
