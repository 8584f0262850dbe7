"""`Distribution`: the base class of every probability distribution, as torch's.

A distribution object holds parameters (tensors) and answers questions about the random
variable they define. Its shapes say how to read them:

- `batch_shape`: how many independent distributions the object holds at once
  (`Normal(mg.zeros(5), 1.0)` is 5 normals: batch_shape (5,));
- `event_shape`: the shape of one draw of one of them (() for a number, (K,) for a
  one-hot or a multivariate-normal vector);
- `sample(sample_shape)` returns a tensor of shape `sample_shape + batch_shape + event_shape`,
  and `log_prob(value)` one log-density per event: `sample_shape + batch_shape`.

`rsample` is a *reparameterised* sample, x = f(parameters, noise) with the noise drawn
independently of the parameters, so gradients flow from x back to the parameters (the
pathwise or "reparameterisation trick" gradient of a VAE). `sample` cuts that path.
Distributions that have no such f (Bernoulli, Categorical, Poisson) have only `sample`:
their gradients are taken through `log_prob` (the score-function, REINFORCE estimator).

Validation is on by default, as in torch: the constructor checks each parameter against
`arg_constraints` and `log_prob`/`cdf` check their value against `support`, raising
ValueError. Pass `validate_args=False`, or call `Distribution.set_default_validate_args(False)`,
to skip the checks once a model works.
"""

import warnings

import numpy as np

from minigrad.autograd import grad_mode
from minigrad.distributions import constraints
from minigrad.distributions.utils import lazy_property
from minigrad.tensor import Tensor


def _shape(sample_shape):
    """A sample shape as a tuple of ints (a tuple, list or torch.Size-like; `()` is one draw)."""
    return tuple(int(s) for s in sample_shape)


class Distribution:
    """The abstract base class of probability distributions: `Distribution(batch_shape=(),
    event_shape=(), validate_args=None)`.

    Subclasses define `arg_constraints`, `support`, `log_prob`, `mean`, `variance` and, where
    they can, `rsample` (then `has_rsample = True`), `entropy`, `cdf`, `icdf`, `mode`,
    `enumerate_support` and `expand`.
    """

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__  # on, unless Python runs with -O (as torch)

    @staticmethod
    def set_default_validate_args(value):
        """Turn argument validation on or off for every distribution made afterwards."""
        if value not in [True, False]:
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape=(), event_shape=(), validate_args=None):
        self._batch_shape = tuple(batch_shape)
        self._event_shape = tuple(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            try:
                arg_constraints = self.arg_constraints
            except NotImplementedError:
                arg_constraints = {}
                warnings.warn(
                    f"{self.__class__} does not define `arg_constraints`. Please set "
                    f"`arg_constraints = {{}}` "
                    "or initialize the distribution with `validate_args=False` to turn off "
                    "validation.",
                    stacklevel=2,
                )
            for param, constraint in arg_constraints.items():
                if constraints.is_dependent(constraint):
                    continue  # cannot be checked on its own
                if param not in self.__dict__ and isinstance(
                    getattr(type(self), param), lazy_property
                ):
                    continue  # a parameter computed from another (logits from probs): not given
                value = getattr(self, param)
                if not bool(np.all(constraint.check(value).numpy())):
                    raise ValueError(
                        f"Expected parameter {param} ({type(value).__name__} of shape "
                        f"{tuple(value.shape)}) of distribution {self!r} to satisfy the constraint "
                        f"{constraint!r}, but found invalid values:\n{value}"
                    )
        super().__init__()

    def expand(self, batch_shape, _instance=None):
        """A new distribution with batch_shape expanded to `batch_shape`: its parameters are
        `expand`ed views of these (no copies, and no new argument checks)."""
        raise NotImplementedError

    @property
    def batch_shape(self):
        """The shape over which the parameters are batched (independent distributions)."""
        return self._batch_shape

    @property
    def event_shape(self):
        """The shape of a single draw (without batching)."""
        return self._event_shape

    @property
    def arg_constraints(self):
        """{parameter name: Constraint} that the parameters must satisfy."""
        raise NotImplementedError

    @property
    def support(self):
        """The Constraint that describes the values the distribution gives probability to."""
        raise NotImplementedError

    @property
    def mean(self):
        """The mean, E[X]."""
        raise NotImplementedError

    @property
    def mode(self):
        """The most likely value."""
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self):
        """The variance, E[(X - E[X])^2]."""
        raise NotImplementedError

    @property
    def stddev(self):
        """The standard deviation, sqrt(variance)."""
        return self.variance.sqrt()

    def sample(self, sample_shape=()):
        """A draw of shape sample_shape + batch_shape + event_shape, cut from the graph."""
        with grad_mode.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=()):
        """A reparameterised draw: gradients flow from it back to the parameters."""
        raise NotImplementedError

    def log_prob(self, value):
        """The log of the density (or mass) function at `value`."""
        raise NotImplementedError

    def cdf(self, value):
        """The cumulative distribution function, P(X <= value)."""
        raise NotImplementedError

    def icdf(self, value):
        """The inverse of the cdf: the value x with P(X <= x) = `value`."""
        raise NotImplementedError

    def enumerate_support(self, expand=True):
        """Every value of a discrete distribution, along dim 0: shape
        (cardinality,) + batch_shape + event_shape (with expand=False, 1s for the batch dims)."""
        raise NotImplementedError

    def entropy(self):
        """The entropy, -E[log p(X)], one per distribution of the batch."""
        raise NotImplementedError

    def perplexity(self):
        """exp(entropy)."""
        return self.entropy().exp()

    def _extended_shape(self, sample_shape=()):
        """The shape of a sample: sample_shape + batch_shape + event_shape."""
        return _shape(sample_shape) + self._batch_shape + self._event_shape

    def _validate_sample(self, value):
        """Check that `value` can be scored: its rightmost dims match event_shape, it
        broadcasts with batch_shape + event_shape, and it lies in the support."""
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        start = value.ndim - len(self._event_shape)
        if tuple(value.shape[start:]) != self._event_shape:
            raise ValueError(
                f"The right-most size of value must match event_shape: {tuple(value.shape)} vs "
                f"{self._event_shape}."
            )
        actual, expected = tuple(value.shape), self._batch_shape + self._event_shape
        for i, j in zip(reversed(actual), reversed(expected)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(
                    f"Value is not broadcastable with batch_shape+event_shape: {actual} vs "
                    f"{expected}."
                )
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(
                f"{self.__class__} does not define `support` to enable sample validation. Please "
                "initialize the distribution with `validate_args=False` to turn off validation.",
                stacklevel=2,
            )
            return
        if not bool(np.all(support.check(value).numpy())):
            raise ValueError(
                f"Expected value argument ({type(value).__name__} of shape {tuple(value.shape)}) "
                f"to be within the support ({support!r}) of the distribution {self!r}, but found "
                f"invalid values:\n{value}"
            )

    def _get_checked_instance(self, cls, _instance=None):
        """The object `expand` fills in: a bare instance of this class (or `_instance`)."""
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(
                f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom "
                "__init__ method must also define a custom .expand() method."
            )
        return self.__new__(type(self)) if _instance is None else _instance

    def __repr__(self):
        names = [k for k in self.arg_constraints if k in self.__dict__]
        shown = [
            f"{p}: {self.__dict__[p] if self.__dict__[p].numel() == 1 else self.__dict__[p].size()}"
            for p in names
        ]
        return f"{type(self).__name__}({', '.join(shown)})"
