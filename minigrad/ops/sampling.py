"""Sampling: draw indices or coin flips from probabilities given as a tensor.

All draws come from minigrad's one global generator (`minigrad.random.generator()`),
so `mg.manual_seed(s)` makes them repeatable; a `mg.Generator` (or a NumPy `Generator`)
may be passed as `generator=` instead, and then the global stream is left untouched.
CUDA tensors draw on the GPU, from its generator (seeded by `mg.manual_seed` too; see
minigrad/ops/random_source.py). There, the checks of the values (probabilities in
[0, 1], rates >= 0, ...) are not made: each would copy to the host at every call (PyTorch
checks them inside its GPU kernels); a bad value gives meaningless draws.
Samples are integers, 0/1 values or draws of a distribution, so nothing here has a
gradient with respect to the probabilities or the distribution's parameters (as in
PyTorch, where it is zero).
"""

import numpy as np

from minigrad import dtypes
from minigrad import random as _random
from minigrad.array_module import array_module
from minigrad.creation import as_tensor, from_numpy
from minigrad.ops.broadcast import check_broadcast
from minigrad.ops.out import write_out
from minigrad.ops.random_source import generator_for, uniform
from minigrad.tensor import Tensor


def _check_distribution(weights, num_samples, replacement, values=True):
    """PyTorch's checks on multinomial's input, with its messages."""
    if weights.ndim not in (1, 2):
        raise RuntimeError(f"multinomial: prob_dist must be 1 or 2 dim, got shape {weights.shape}")
    if weights.dtype.kind != "f":
        raise RuntimeError(
            f"multinomial only supports floating-point dtypes for input, got: {weights.dtype}"
        )
    if not isinstance(num_samples, (int, np.integer)) or num_samples <= 0:
        raise RuntimeError(
            f"multinomial: cannot sample n_sample <= 0 samples (got num_samples={num_samples})"
        )
    categories = weights.shape[-1]
    if not replacement and num_samples > categories:
        raise RuntimeError(
            f"multinomial: cannot sample n_sample > prob_dist.size(-1) samples without replacement "
            f"({num_samples} > {categories})"
        )
    if not values:  # on a GPU: asking would be a copy to the host
        return
    if not np.all(np.isfinite(weights)) or np.any(weights < 0):
        raise RuntimeError(
            "multinomial: probability tensor contains either `inf`, `nan` or element < 0"
        )
    if np.any(weights.sum(axis=-1) <= 0):
        raise RuntimeError(
            "multinomial: invalid multinomial distribution (sum of probabilities <= 0)"
        )


def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    """Draw `num_samples` category indices from each row of `input` (1-D: one
    distribution; 2-D: one per row), category i with probability input[i] / sum(input).
    Weights need not sum to 1. Returns int64 of shape (num_samples,) or (rows, num_samples).

    With replacement each draw inverts the cumulative distribution at a uniform number.
    Without replacement, each category gets a random "arrival time" E_i / p_i with
    E_i ~ Exponential(1), and the first `num_samples` arrivals are taken: that is the
    same as drawing one category at a time and removing it (the exponential race),
    in one vectorised step. A category of weight 0 arrives at time inf: it is drawn only
    once every other category has been (as PyTorch does).
    """
    x = as_tensor(input)
    weights = x.array.astype(np.float64) if x.dtype.kind == "f" else x.array
    on_cpu = array_module(weights) is np
    _check_distribution(weights, num_samples, replacement, values=on_cpu)
    rows = weights.reshape(-1, weights.shape[-1])
    rng = generator_for(weights, generator, "multinomial")
    if replacement:
        cdf = np.cumsum(rows, axis=-1)
        u = uniform(rng, (rows.shape[0], num_samples)) * cdf[:, -1:]
        if on_cpu:
            samples = np.stack([np.searchsorted(c, v, side="right") for c, v in zip(cdf, u)])
        else:  # the same count of cdf values <= u, for all rows at once (no loop over rows)
            samples = np.sum(cdf[:, None, :] <= u[:, :, None], axis=-1)
        # u * total can round up to the total: clip to the last category with weight
        last = rows.shape[-1] - 1 - np.argmax(rows[:, ::-1] > 0, axis=-1)
        samples = np.minimum(samples, last[:, None])
    else:
        with np.errstate(divide="ignore"):  # weight 0: arrival time inf, never drawn
            arrival = rng.standard_exponential(rows.shape) / rows
        samples = np.argsort(arrival, axis=-1, kind="stable")[:, :num_samples]
    result = from_numpy(samples.astype(np.int64).reshape(weights.shape[:-1] + (num_samples,)))
    return result if out is None else write_out(out, result, "multinomial")


def bernoulli(input, p=None, *, generator=None, out=None):
    """0/1 samples in `input`'s shape and dtype: 1 with probability input[i] (or with
    probability `p` when it is given)."""
    x = as_tensor(input)
    if p is None:
        probs = x.array
    elif isinstance(p, Tensor):
        probs = np.broadcast_to(p.array, x.shape)
    else:  # a number: compared as it is, on either device
        probs = np.float64(p)
    if array_module(x.array) is np or np.isscalar(probs):  # on a GPU, a copy to the host
        nan = probs.dtype.kind == "f" and np.any(np.isnan(probs))
        if np.any((probs < 0) | (probs > 1)) or nan:
            raise RuntimeError("bernoulli: expected all probabilities to be in [0, 1]")
    draws = uniform(generator_for(x.array, generator, "bernoulli"), x.shape) < probs
    result = from_numpy(draws.astype(x.dtype))
    return result if out is None else write_out(out, result, "bernoulli")


def normal(mean=0.0, std=1.0, size=None, *, generator=None, dtype=None, out=None):
    """Samples of N(mean, std^2), as `torch.normal`: `normal(mean_tensor, std_tensor)` (one
    draw per element, the two broadcast), `normal(mean_tensor, std=1.0)`,
    `normal(mean=0.0, std_tensor)`, or `normal(mean, std, size)` for two numbers.

    A sample is mean + std * z with z ~ N(0, 1), but it is not differentiable in mean
    and std: PyTorch gives them a zero gradient (the result of tensor arguments that
    require grad requires grad too); here the result is a leaf. For a differentiable
    (reparameterised) sample write `mean + std * mg.randn_like(mean)`.
    """
    numbers = not isinstance(mean, Tensor) and not isinstance(std, Tensor)
    if numbers and size is None:
        raise TypeError(
            "normal(): with a number mean and std, the size is required: normal(mean, std, size)"
        )
    if not numbers and size is not None:
        raise TypeError("normal(): size is only accepted with a number mean and std")
    mean_t = mean if isinstance(mean, Tensor) else None
    std_t = std if isinstance(std, Tensor) else None
    if mean_t is not None and mean_t.dtype.kind != "f":
        raise NotImplementedError(
            f"normal: not implemented for mean of dtype {mean_t.dtype} (floating point only)"
        )
    m = mean_t.array if mean_t is not None else mean
    sd = std_t.array if std_t is not None else std
    home = mean_t if mean_t is not None else std_t  # the tensor whose device the draws are made on
    on_cpu = home is None or array_module(home.array) is np
    if (on_cpu or np.isscalar(sd)) and np.any(np.asarray(sd) < 0):  # on a GPU, not asked
        raise RuntimeError(f"normal expects all elements of std >= 0.0, but found std {np.min(sd)}")
    if numbers:
        shape = tuple(size)
        dtype = dtypes.to_dtype(dtype, "normal") or dtypes.default_float
    else:  # the tensors' shapes, broadcast; a number broadcasts to any
        check_broadcast("normal", np.shape(m), np.shape(sd), names=("mean", "std"))
        shape = np.broadcast_shapes(np.shape(m), np.shape(sd))
        dtype = (mean_t if mean_t is not None else std_t).dtype
    if home is None:  # two numbers: drawn on the CPU
        rng = _random.numpy_generator(generator, "normal")
    else:
        rng = generator_for(home.array, generator, "normal")
    z = rng.standard_normal(shape)
    result = from_numpy((m + sd * z).astype(dtype))
    return result if out is None else write_out(out, result, "normal")


def poisson(input, generator=None):
    """Samples of Poisson(rate = input[i]), one per element, in input's dtype (counts
    as floats, as torch.poisson). Random draws carry no gradient: the result is a leaf."""
    rates = as_tensor(input)
    if rates.dtype.kind != "f":
        raise RuntimeError(f"poisson: expected a floating point tensor of rates, got {rates.dtype}")
    on_cpu = array_module(rates.array) is np
    if on_cpu and (np.any(rates.array < 0) or np.any(np.isnan(rates.array))):
        raise RuntimeError("poisson: invalid Poisson rate, expected rate to be non-negative")
    draws = generator_for(rates.array, generator, "poisson").poisson(rates.array)
    return from_numpy(draws.astype(rates.dtype))


def binomial(count, prob, generator=None):
    """Samples of Binomial(count[i] trials, success probability prob[i]), in count's
    dtype (as torch.binomial). Random draws carry no gradient: the result is a leaf."""
    n, p = as_tensor(count), as_tensor(prob)
    if n.dtype.kind != "f" or p.dtype.kind != "f":
        raise RuntimeError(
            f"binomial: expected floating point count and prob, got {n.dtype} and {p.dtype}"
        )
    check_broadcast("binomial", n.shape, p.shape, names=("count", "prob"))
    on_cpu = array_module(n.array) is np
    if on_cpu and (np.any((p.array < 0) | (p.array > 1)) or np.any(n.array < 0)):
        raise RuntimeError("binomial: expected 0 <= prob <= 1 and count >= 0")
    rng = generator_for(n.array, generator, "binomial")
    draws = rng.binomial(n.array.astype(np.int64), p.array)
    return from_numpy(draws.astype(n.dtype))
