"""Constraints: the set a parameter or a value must lie in, as torch.distributions'.

Each distribution declares `arg_constraints` (parameter name -> constraint) and `support`
(the values it gives probability to). With validation on (the default, as torch's), the
constructor checks every parameter and `log_prob` checks its value, and a value outside
raises ValueError naming the parameter, the constraint and the bad values.

`check(value)` returns a bool tensor of the value's shape less the constraint's
`event_dim` rightmost dims: one verdict per event (a simplex is checked a vector at a time).
The checks compare numbers only: nothing here is differentiated.
"""

import numpy as np

from minigrad.creation import from_numpy


def _array(value):
    return value.detach().numpy() if hasattr(value, "detach") else np.asarray(value)


class Constraint:
    """A region of values. `is_discrete`: a set of integers; `event_dim`: how many
    rightmost dims make one event (0 for a scalar, 1 for a vector, 2 for a matrix)."""

    is_discrete = False
    event_dim = 0

    def check(self, value):
        """A bool tensor: does each event of `value` satisfy the constraint?"""
        raise NotImplementedError

    def __repr__(self):
        return type(self).__name__[1:] + "()"


class _Dependent(Constraint):
    """A placeholder for a region that depends on other parameters (Uniform's support
    depends on low and high); it cannot be checked on its own, so validation skips it."""

    def __init__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        self._is_discrete = is_discrete
        self._event_dim = event_dim

    @property
    def is_discrete(self):
        if self._is_discrete is NotImplemented:
            raise NotImplementedError(".is_discrete cannot be determined statically")
        return self._is_discrete

    @property
    def event_dim(self):
        if self._event_dim is NotImplemented:
            raise NotImplementedError(".event_dim cannot be determined statically")
        return self._event_dim

    def __call__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        return _Dependent(
            is_discrete=self._is_discrete if is_discrete is NotImplemented else is_discrete,
            event_dim=self._event_dim if event_dim is NotImplemented else event_dim,
        )

    def check(self, value):
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint):
    """True for a dependent constraint (one that validation cannot check)."""
    return isinstance(constraint, _Dependent)


class _DependentProperty(property, _Dependent):
    """`@dependent_property`: on the class, a dependent constraint (so validation skips
    it); on an instance, a property that builds the real constraint from its parameters."""

    def __init__(self, fn=None, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        property.__init__(self, fn)
        self._is_discrete = is_discrete
        self._event_dim = event_dim

    def __call__(self, fn):
        return _DependentProperty(fn, is_discrete=self._is_discrete, event_dim=self._event_dim)


class _IndependentConstraint(Constraint):
    """`base_constraint` on each element, with the `reinterpreted_batch_ndims` rightmost
    dims gathered into one event, which is valid when all its elements are."""

    def __init__(self, base_constraint, reinterpreted_batch_ndims):
        self.base_constraint = base_constraint
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    @property
    def is_discrete(self):
        return self.base_constraint.is_discrete

    @property
    def event_dim(self):
        return self.base_constraint.event_dim + self.reinterpreted_batch_ndims

    def check(self, value):
        result = _array(self.base_constraint.check(value))
        n = self.reinterpreted_batch_ndims
        if result.ndim < n:
            raise ValueError(
                f"Expected value.dim() >= {self.event_dim} but got {np.ndim(_array(value))}"
            )
        return from_numpy(result.reshape(result.shape[: result.ndim - n] + (-1,)).all(-1))

    def __repr__(self):
        return (
            f"{type(self).__name__[1:]}({self.base_constraint!r}, {self.reinterpreted_batch_ndims})"
        )


class _Elementwise(Constraint):
    """A constraint checked element by element with a NumPy predicate."""

    def check(self, value):
        with np.errstate(invalid="ignore"):
            return from_numpy(np.asarray(self.holds(_array(value))))

    def holds(self, x):
        raise NotImplementedError


class _Boolean(_Elementwise):
    """The two values {0, 1}."""

    is_discrete = True

    def holds(self, x):
        return (x == 0) | (x == 1)


class _OneHot(Constraint):
    """One-hot vectors: 0s and a single 1."""

    is_discrete = True
    event_dim = 1

    def check(self, value):
        x = _array(value)
        return from_numpy(np.asarray(((x == 0) | (x == 1)).all(-1) & (x.sum(-1) == 1)))


def _bound(bound):
    return _array(bound)


class _IntegerInterval(_Elementwise):
    """The integers in [lower_bound, upper_bound]."""

    is_discrete = True

    def __init__(self, lower_bound, upper_bound):
        self.lower_bound, self.upper_bound = lower_bound, upper_bound

    def holds(self, x):
        return (x % 1 == 0) & (_bound(self.lower_bound) <= x) & (x <= _bound(self.upper_bound))

    def __repr__(self):
        return (
            f"{type(self).__name__[1:]}(lower_bound={self.lower_bound}, "
            f"upper_bound={self.upper_bound})"
        )


class _IntegerGreaterThan(_Elementwise):
    """The integers >= lower_bound."""

    is_discrete = True

    def __init__(self, lower_bound):
        self.lower_bound = lower_bound

    def holds(self, x):
        return (x % 1 == 0) & (x >= _bound(self.lower_bound))

    def __repr__(self):
        return f"{type(self).__name__[1:]}(lower_bound={self.lower_bound})"


class _Real(_Elementwise):
    """The extended real line [-inf, inf]: everything but NaN."""

    def holds(self, x):
        return x == x


class _GreaterThan(_Elementwise):
    """(lower_bound, inf]."""

    def __init__(self, lower_bound):
        self.lower_bound = lower_bound

    def holds(self, x):
        return _bound(self.lower_bound) < x

    def __repr__(self):
        return f"{type(self).__name__[1:]}(lower_bound={self.lower_bound})"


class _GreaterThanEq(_GreaterThan):
    """[lower_bound, inf)."""

    def holds(self, x):
        return _bound(self.lower_bound) <= x


class _LessThan(_Elementwise):
    """[-inf, upper_bound)."""

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def holds(self, x):
        return x < _bound(self.upper_bound)

    def __repr__(self):
        return f"{type(self).__name__[1:]}(upper_bound={self.upper_bound})"


class _Interval(_Elementwise):
    """[lower_bound, upper_bound]."""

    def __init__(self, lower_bound, upper_bound):
        self.lower_bound, self.upper_bound = lower_bound, upper_bound

    def holds(self, x):
        return (_bound(self.lower_bound) <= x) & (x <= _bound(self.upper_bound))

    def __repr__(self):
        return (
            f"{type(self).__name__[1:]}(lower_bound={self.lower_bound}, "
            f"upper_bound={self.upper_bound})"
        )


class _HalfOpenInterval(_Interval):
    """[lower_bound, upper_bound)."""

    def holds(self, x):
        return (_bound(self.lower_bound) <= x) & (x < _bound(self.upper_bound))


class _Simplex(Constraint):
    """Probability vectors: x >= 0 and sum(x) = 1 (to within 1e-6), along the last dim."""

    event_dim = 1

    def check(self, value):
        x = _array(value)
        return from_numpy(np.asarray(np.all(x >= 0, axis=-1) & (np.abs(x.sum(-1) - 1) < 1e-6)))


class _LowerCholesky(Constraint):
    """Lower-triangular square matrices with a positive diagonal (Cholesky factors)."""

    event_dim = 2

    def check(self, value):
        x = _array(value)
        lower = (np.tril(x) == x).reshape(x.shape[:-2] + (-1,)).all(-1)
        return from_numpy(np.asarray(lower & (np.diagonal(x, axis1=-2, axis2=-1) > 0).all(-1)))


class _Symmetric(Constraint):
    """Symmetric square matrices (to within 1e-6)."""

    event_dim = 2

    def check(self, value):
        x = _array(value)
        if x.shape[-1] != x.shape[-2]:
            return from_numpy(np.zeros(x.shape[:-2], dtype=bool))
        close = np.isclose(x, np.swapaxes(x, -1, -2), atol=1e-6)
        return from_numpy(np.asarray(close.all(-1).all(-1)))


class _PositiveDefinite(_Symmetric):
    """Symmetric positive-definite matrices: all eigenvalues > 0."""

    def check(self, value):
        symmetric = _array(super().check(value))
        if not symmetric.all():
            return from_numpy(symmetric)
        return from_numpy(np.asarray(np.linalg.eigvalsh(_array(value)).min(-1) > 0))


# the constraints by torch's names
dependent = _Dependent()
dependent_property = _DependentProperty
independent = _IndependentConstraint
boolean = _Boolean()
one_hot = _OneHot()
nonnegative_integer = _IntegerGreaterThan(0)
positive_integer = _IntegerGreaterThan(1)
integer_interval = _IntegerInterval
real = _Real()
real_vector = independent(real, 1)
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
greater_than = _GreaterThan
greater_than_eq = _GreaterThanEq
less_than = _LessThan
unit_interval = _Interval(0.0, 1.0)
interval = _Interval
half_open_interval = _HalfOpenInterval
simplex = _Simplex()
lower_cholesky = _LowerCholesky()
symmetric = _Symmetric()
positive_definite = _PositiveDefinite()
