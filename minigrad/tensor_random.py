"""Tensor's random methods: draws made from a tensor of probabilities (`bernoulli`,
`multinomial`) and the random fills (`uniform_`, `normal_`, ...), which write their
samples in place as the other in-place methods do (tensor_inplace.py).

`Tensor` inherits them (tensor.py).
"""

import numpy as np

from minigrad import random as _random
from minigrad.tensor_inplace import _replaced

# Bound by tensor.py once they exist: the Tensor class, and the autograd and ops packages
# that import it (the one break in the import circle is at the bottom of tensor.py).
ops = None


class RandomMethods:
    """The mixin Tensor inherits these methods from (see the module docstring)."""

    __slots__ = ()

    def multinomial(self, num_samples, replacement=False, *, generator=None):
        """`num_samples` indices drawn with the probabilities in each row (weights need not sum to
        1); int64.
        """
        return ops.sampling.multinomial(self, num_samples, replacement, generator=generator)

    def bernoulli(self, p=None, *, generator=None):
        """0 or 1 per element, 1 with probability self (or `p`), from the global generator."""
        return ops.sampling.bernoulli(self, p, generator=generator)

    # The random fills draw from the global generator, or from `generator=` (a
    # mg.Generator, or a NumPy Generator), which leaves the global stream untouched.
    def uniform_(self, a=0.0, b=1.0, *, generator=None):
        """Fill with samples from U(a, b), drawn from the global generator (or `generator`),
        in place; returns self."""
        rng = _random.numpy_generator(generator, "uniform_")
        return self._inplace("uniform_", lambda t: _replaced(t, rng.uniform(a, b, size=t.shape)))

    def normal_(self, mean=0.0, std=1.0, *, generator=None):
        """Fill with samples from N(mean, std^2), drawn from the global generator (or
        `generator`), in place; returns self."""
        rng = _random.numpy_generator(generator, "normal_")
        return self._inplace("normal_", lambda t: _replaced(t, rng.normal(mean, std, size=t.shape)))

    def random_(self, from_=0, to=None, *, generator=None):
        """Fill with integers uniform in [from_, to), in place (`random_(to)` for [0, to));
        without bounds, [0, 2**mantissa] for a float dtype or the dtype's range for an
        integer one, as torch's `random_(from, to)` (`from` is a Python keyword, so the
        first argument is positional here). Returns self."""
        if to is None and from_ != 0:
            from_, to = 0, from_
        if to is None:
            to = 2 ** (np.finfo(self.dtype).nmant + 1) + 1 if self.dtype.kind == "f" else None
            to = to if to is not None else (2 if self.dtype.kind == "b" else int(np.iinfo(self.dtype).max) + 1)
        if to <= from_:
            raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={from_} >= to={to}")
        rng = _random.numpy_generator(generator, "random_")
        return self._inplace("random_", lambda t: _replaced(t, rng.integers(from_, to, size=t.shape)))

    def bernoulli_(self, p=0.5, *, generator=None):
        """Fill with 1 (probability p, a number or a tensor) or 0, in place; returns self."""
        compute = lambda t: _replaced(t, ops.sampling.bernoulli(t, p, generator=generator).array)  # noqa: E731
        return self._inplace("bernoulli_", compute)

    def exponential_(self, lambd=1.0, *, generator=None):
        """Fill with samples of the exponential distribution of rate `lambd` (mean 1/lambd),
        in place; returns self."""
        rng = _random.numpy_generator(generator, "exponential_")
        return self._inplace("exponential_", lambda t: _replaced(t, rng.exponential(1.0 / lambd, size=t.shape)))

    def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
        """Fill with samples of the Cauchy distribution, median + sigma * tan(pi (u - 1/2)),
        in place; returns self."""
        rng = _random.numpy_generator(generator, "cauchy_")
        return self._inplace("cauchy_", lambda t: _replaced(t, median + sigma * rng.standard_cauchy(t.shape)))

    def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
        """Fill with samples of exp(N(mean, std^2)) (mean and std of the underlying normal),
        in place; returns self."""
        rng = _random.numpy_generator(generator, "log_normal_")
        return self._inplace("log_normal_", lambda t: _replaced(t, rng.lognormal(mean, std, size=t.shape)))

    def geometric_(self, p, *, generator=None):
        """Fill with the number of Bernoulli(p) trials up to the first success (1, 2, ...),
        in place; returns self."""
        if not 0 < p <= 1:
            raise RuntimeError(f"geometric_ expects p to be in (0, 1], but got p={p}")
        rng = _random.numpy_generator(generator, "geometric_")
        return self._inplace("geometric_", lambda t: _replaced(t, rng.geometric(p, size=t.shape)))
