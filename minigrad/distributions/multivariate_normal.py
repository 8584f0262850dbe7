"""The multivariate normal distribution N(loc, Sigma) of vectors of length n:

    p(x) = exp(-(x - loc)^T Sigma^-1 (x - loc) / 2) / sqrt((2 pi)^n det Sigma)
    log p(x) = -(n ln(2 pi) + M) / 2 - ln det L,   M = |L^-1 (x - loc)|^2 (Mahalanobis)
    entropy = n (1 + ln(2 pi)) / 2 + ln det L

Everything is computed from the Cholesky factor L of the covariance (Sigma = L L^T, L lower
triangular with a positive diagonal): ln det Sigma = 2 sum_i ln L_ii, and Sigma^-1 is never
formed, a triangular solve gives L^-1 (x - loc). Give the covariance, the precision
matrix (its inverse) or L itself (`scale_tril`): exactly one of them.

rsample is x = loc + L eps with eps ~ N(0, I), differentiable in loc and L (and through the
Cholesky factorisation, in the covariance).
"""

import math

import numpy as np

from minigrad.creation import eye
from minigrad.distributions import constraints
from minigrad.distributions.distribution import Distribution
from minigrad.distributions.utils import lazy_property, standard_normal
from minigrad.ops.cholesky import cholesky, solve_triangular


def batch_mv(matrices, vectors):
    """Matrix-vector products over broadcast batches: matrices (..., n, n), vectors (..., n)."""
    return (matrices @ vectors.unsqueeze(-1)).squeeze(-1)


def batch_mahalanobis(lower, x):
    """|L^-1 x|^2 = x^T (L L^T)^-1 x for a Cholesky factor L, batched (L's batch dims
    broadcast with x's)."""
    solved = solve_triangular(lower, x.unsqueeze(-1), upper=False).squeeze(-1)
    return solved.pow(2).sum(-1)


def diagonal(matrices):
    """The diagonals of (a batch of) square matrices, (..., n, n) -> (..., n)."""
    return (matrices * eye(matrices.shape[-1], dtype=matrices.dtype)).sum(-1)


def half_log_det(lower):
    """ln det L = sum_i ln L_ii = (ln det Sigma) / 2."""
    return diagonal(lower).log().sum(-1)


def precision_to_scale_tril(precision):
    """L with L L^T = P^-1, without inverting P. Factor P = U U^T with U *upper* triangular:
    U is the Cholesky factor of P with its rows and columns reversed, reversed back. Then
    P^-1 = U^-T U^-1, so L = U^-T, the lower-triangular solution of U^T L = I."""
    flipped = cholesky(precision.flip((-2, -1)))
    inverse_lower = flipped.flip((-2, -1)).mT
    identity = eye(precision.shape[-1], dtype=precision.dtype)
    return solve_triangular(inverse_lower, identity, upper=False)


class MultivariateNormal(Distribution):
    """`MultivariateNormal(loc, covariance_matrix=None, precision_matrix=None, scale_tril=None,
    validate_args=None)`: mean vector `loc` (..., n) and one of the covariance, the precision
    or the covariance's Cholesky factor (..., n, n); batch dims broadcast."""

    arg_constraints = {
        "loc": constraints.real_vector,
        "covariance_matrix": constraints.positive_definite,
        "precision_matrix": constraints.positive_definite,
        "scale_tril": constraints.lower_cholesky,
    }
    support = constraints.real_vector
    has_rsample = True

    def __init__(
        self,
        loc,
        covariance_matrix=None,
        precision_matrix=None,
        scale_tril=None,
        validate_args=None,
    ):
        if loc.ndim < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = [m is not None for m in (covariance_matrix, scale_tril, precision_matrix)]
        if sum(given) != 1:
            raise ValueError(
                "Exactly one of covariance_matrix or precision_matrix or scale_tril may be "
                "specified."
            )
        name, matrix = next(
            (n, m)
            for n, m in [
                ("scale_tril", scale_tril),
                ("covariance_matrix", covariance_matrix),
                ("precision_matrix", precision_matrix),
            ]
            if m is not None
        )
        if matrix.ndim < 2:
            raise ValueError(
                f"{name} matrix must be at least two-dimensional, with optional leading batch "
                "dimensions"
            )
        batch_shape = tuple(np.broadcast_shapes(matrix.shape[:-2], loc.shape[:-1]))
        setattr(self, name, matrix.expand(batch_shape + matrix.shape[-2:]))
        self.loc = loc.expand(batch_shape + loc.shape[-1:])
        super().__init__(batch_shape, self.loc.shape[-1:], validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = precision_to_scale_tril(precision_matrix)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(MultivariateNormal, _instance)
        batch_shape = tuple(batch_shape)
        cov_shape = batch_shape + self.event_shape + self.event_shape
        new.loc = self.loc.expand(batch_shape + self.event_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, getattr(self, name).expand(cov_shape))
        super(MultivariateNormal, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(
            self._batch_shape + self._event_shape + self._event_shape
        )

    @lazy_property
    def covariance_matrix(self):
        lower = self._unbroadcasted_scale_tril
        return (lower @ lower.mT).expand(self._batch_shape + self._event_shape + self._event_shape)

    @lazy_property
    def precision_matrix(self):
        """Sigma^-1 = L^-T L^-1."""
        lower = self._unbroadcasted_scale_tril
        inverse = solve_triangular(lower, eye(lower.shape[-1], dtype=lower.dtype), upper=False)
        return (inverse.mT @ inverse).expand(
            self._batch_shape + self._event_shape + self._event_shape
        )

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        """The diagonal of Sigma = L L^T: the squared lengths of L's rows."""
        return (
            self._unbroadcasted_scale_tril.pow(2)
            .sum(-1)
            .expand(self._batch_shape + self._event_shape)
        )

    def rsample(self, sample_shape=()):
        """x = loc + L eps, eps ~ N(0, I)."""
        shape = self._extended_shape(sample_shape)
        eps = standard_normal(shape, dtype=self.loc.dtype)
        return self.loc + batch_mv(self._unbroadcasted_scale_tril, eps)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        m = batch_mahalanobis(self._unbroadcasted_scale_tril, diff)
        n = self._event_shape[0]
        return -0.5 * (n * math.log(2 * math.pi) + m) - half_log_det(self._unbroadcasted_scale_tril)

    def entropy(self):
        n = self._event_shape[0]
        h = 0.5 * n * (1.0 + math.log(2 * math.pi)) + half_log_det(self._unbroadcasted_scale_tril)
        return h if len(self._batch_shape) == 0 else h.expand(self._batch_shape)
