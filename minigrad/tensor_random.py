"""Tensor's random methods: draws made from a tensor of probabilities (`bernoulli`,
`multinomial`) and the random fills (`uniform_`, `normal_`, ...), which write their
samples in place as the other in-place methods do (tensor_inplace.py).

A fill draws where the tensor lives: a CPU tensor from the global generator (or
`generator=`), a CUDA tensor from the GPU's own generator (`random.device_generator()`,
seeded by `mg.manual_seed`), so no sample crosses from the host. The two generators
are NumPy's `Generator` and CuPy's `RandomState`, which name some draws differently
(`integers`/`randint`, `random`/`random_sample`); the helpers at the bottom hide that, and
draw on the GPU in the ways that keep CuPy from copying an argument over or waiting for
the GPU to check it (its `exponential` and `geometric` copy their parameter to the GPU,
its `randint` reads a count back unless the range is a power of two).

`Tensor` inherits them (tensor.py).
"""

import math

import numpy as np

from minigrad import random as _random
from minigrad.tensor_inplace import _replaced

# Bound by tensor.py once they exist: the Tensor class, and the autograd and ops packages
# that import it (the one break in the import circle is at the bottom of tensor.py).
Tensor = ops = None


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

    def _generator_for(self, generator, op):
        """The generator `op` draws from for this tensor: the CPU's (the global one, or
        `generator`, see random.numpy_generator), or for a CUDA tensor the GPU's. A CPU
        generator given for a CUDA tensor raises, as torch."""
        if isinstance(self.array, np.ndarray) or not self.is_cuda:
            return _random.numpy_generator(generator, op)
        if generator is not None:
            raise RuntimeError(
                f"{op}: Expected a 'cuda' device type for generator but found 'cpu' (minigrad's "
                "generators live on the CPU; a CUDA tensor draws from the GPU's generator, seeded "
                "by mg.manual_seed)"
            )
        return _random.device_generator()

    # The random fills draw from the global generator, or from `generator=` (a
    # mg.Generator, or a NumPy Generator), which leaves the global stream untouched.
    def uniform_(self, a=0.0, b=1.0, *, generator=None):
        """Fill with samples from U(a, b), drawn from the global generator (or `generator`),
        in place; returns self."""
        rng = self._generator_for(generator, "uniform_")
        return self._inplace("uniform_", lambda t: _replaced(t, rng.uniform(a, b, size=t.shape)))

    def normal_(self, mean=0.0, std=1.0, *, generator=None):
        """Fill with samples from N(mean, std^2), drawn from the global generator (or
        `generator`), in place; returns self."""
        rng = self._generator_for(generator, "normal_")
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
            to = (
                to
                if to is not None
                else (2 if self.dtype.kind == "b" else int(np.iinfo(self.dtype).max) + 1)
            )
        if to <= from_:
            raise RuntimeError(
                f"random_ expects 'from' to be less than 'to', but got from={from_} >= to={to}"
            )
        rng = self._generator_for(generator, "random_")
        return self._inplace("random_", lambda t: _replaced(t, _integers(rng, from_, to, t.shape)))

    def bernoulli_(self, p=0.5, *, generator=None):
        """Fill with 1 (probability p, a number or a tensor) or 0, in place; returns self.
        With a number p, 1 where a U(0, 1) sample is below p, drawn where self lives."""
        if isinstance(p, Tensor):
            draw = lambda t: ops.sampling.bernoulli(t, p, generator=generator).array  # noqa: E731
            return self._inplace("bernoulli_", lambda t: _replaced(t, draw(t)))
        if not 0 <= p <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
        rng = self._generator_for(generator, "bernoulli_")
        return self._inplace("bernoulli_", lambda t: _replaced(t, _uniform01(rng, t.shape) < p))

    def exponential_(self, lambd=1.0, *, generator=None):
        """Fill with samples of the exponential distribution of rate `lambd` (mean 1/lambd),
        in place; returns self."""
        rng = self._generator_for(generator, "exponential_")
        draw = lambda t: _exponential(rng, 1.0 / lambd, t.shape)  # noqa: E731
        return self._inplace("exponential_", lambda t: _replaced(t, draw(t)))

    def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
        """Fill with samples of the Cauchy distribution, median + sigma * tan(pi (u - 1/2)),
        in place; returns self."""
        rng = self._generator_for(generator, "cauchy_")
        return self._inplace(
            "cauchy_", lambda t: _replaced(t, median + sigma * rng.standard_cauchy(t.shape))
        )

    def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
        """Fill with samples of exp(N(mean, std^2)) (mean and std of the underlying normal),
        in place; returns self."""
        rng = self._generator_for(generator, "log_normal_")
        return self._inplace(
            "log_normal_", lambda t: _replaced(t, rng.lognormal(mean, std, size=t.shape))
        )

    def geometric_(self, p, *, generator=None):
        """Fill with the number of Bernoulli(p) trials up to the first success (1, 2, ...),
        in place; returns self."""
        if not 0 < p <= 1:
            raise RuntimeError(f"geometric_ expects p to be in (0, 1], but got p={p}")
        rng = self._generator_for(generator, "geometric_")
        return self._inplace("geometric_", lambda t: _replaced(t, _geometric(rng, p, t.shape)))


def _integers(rng, low, high, shape):
    """Integers uniform in [low, high): NumPy's Generator calls it `integers`, CuPy's
    RandomState `randint`. CuPy's rejects out-of-range draws with a count it reads back
    from the GPU, unless the range is a power of two (then it masks bits); other ranges
    up to 2**53 are drawn here as floor(u * span) from one U(0, 1) sample (a double has
    53 bits: the bias is at most span / 2**53), larger ones by randint after all."""
    if isinstance(rng, np.random.Generator):
        return rng.integers(low, high, size=shape)
    span = high - low
    if span & (span - 1) == 0 or span > 2**53:  # a power of two, or too wide for a double
        return rng.randint(low, high, size=shape, dtype=np.int64)
    steps = np.minimum(np.floor(rng.random_sample(shape) * span), span - 1)  # u < 1 may round up
    return steps.astype(np.int64) + low


def _exponential(rng, scale, shape):
    """Samples of the exponential distribution of mean `scale`."""
    if isinstance(rng, np.random.Generator):
        return rng.exponential(scale, size=shape)
    return rng.standard_exponential(shape) * scale


def _geometric(rng, p, shape):
    """The number of Bernoulli(p) trials up to the first success: NumPy's own on the CPU;
    on the GPU by inversion, floor(log(1 - u) / log(1 - p)) + 1 for u ~ U(0, 1) (the
    floor of an exponential sample of rate -log(1 - p), counted from 1)."""
    if isinstance(rng, np.random.Generator):
        return rng.geometric(p, size=shape)
    u = rng.random_sample(shape)
    if p == 1:
        return np.ones_like(u)  # the first trial succeeds (and log(1 - p) is -inf)
    return np.floor(np.log1p(-u) / math.log1p(-p)) + 1


def _uniform01(rng, shape):
    """Samples of U(0, 1): `random` of NumPy's Generator, `random_sample` of CuPy's RandomState."""
    return rng.random(shape) if isinstance(rng, np.random.Generator) else rng.random_sample(shape)
