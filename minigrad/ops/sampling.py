"""Sampling: draw indices or coin flips from probabilities given as a tensor.

All draws come from minigrad's one global generator (`minigrad.random.generator()`),
so `mg.manual_seed(s)` makes them repeatable; a `mg.Generator` (or a NumPy `Generator`)
may be passed as `generator=` instead, and then the global stream is left untouched.
Samples are integers, 0/1 values or draws of a distribution, so nothing here has a
gradient with respect to the probabilities or the distribution's parameters (as in
PyTorch, where it is zero).
"""

import numpy as np

from minigrad import dtypes
from minigrad import random as _random
from minigrad.creation import as_tensor, from_numpy
from minigrad.ops.broadcast import check_broadcast
from minigrad.ops.out import write_out
from minigrad.tensor import Tensor


def _check_distribution(weights, num_samples, replacement):
    """PyTorch's checks on multinomial's input, with its messages."""
    if weights.ndim not in (1, 2):
        raise RuntimeError(f"multinomial: prob_dist must be 1 or 2 dim, got shape {weights.shape}")
    if weights.dtype.kind != "f":
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: {weights.dtype}")
    if not isinstance(num_samples, (int, np.integer)) or num_samples <= 0:
        raise RuntimeError(f"multinomial: cannot sample n_sample <= 0 samples (got num_samples={num_samples})")
    categories = weights.shape[-1]
    if not replacement and num_samples > categories:
        raise RuntimeError(
            f"multinomial: cannot sample n_sample > prob_dist.size(-1) samples without replacement "
            f"({num_samples} > {categories})"
        )
    if not np.all(np.isfinite(weights)) or np.any(weights < 0):
        raise RuntimeError("multinomial: probability tensor contains either `inf`, `nan` or element < 0")
    if np.any(weights.sum(axis=-1) <= 0):
        raise RuntimeError("multinomial: invalid multinomial distribution (sum of probabilities <= 0)")


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
    _check_distribution(weights, num_samples, replacement)
    rows = weights.reshape(-1, weights.shape[-1])
    rng = _random.numpy_generator(generator, "multinomial")
    if replacement:
        cdf = np.cumsum(rows, axis=-1)
        u = rng.random((rows.shape[0], num_samples)) * cdf[:, -1:]
        samples = np.stack([np.searchsorted(c, v, side="right") for c, v in zip(cdf, u)])
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
    probs = x.array if p is None else np.broadcast_to(np.asarray(p.array if isinstance(p, Tensor) else p), x.shape)
    if np.any((probs < 0) | (probs > 1)) or (probs.dtype.kind == "f" and np.any(np.isnan(probs))):
        raise RuntimeError("bernoulli: expected all probabilities to be in [0, 1]")
    draws = _random.numpy_generator(generator, "bernoulli").random(x.shape) < probs
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
        raise TypeError("normal(): with a number mean and std, the size is required: normal(mean, std, size)")
    if not numbers and size is not None:
        raise TypeError("normal(): size is only accepted with a number mean and std")
    mean_t = mean if isinstance(mean, Tensor) else None
    std_t = std if isinstance(std, Tensor) else None
    if mean_t is not None and mean_t.dtype.kind != "f":
        raise NotImplementedError(f"normal: not implemented for mean of dtype {mean_t.dtype} (floating point only)")
    m = mean_t.array if mean_t is not None else mean
    sd = std_t.array if std_t is not None else std
    if np.any(np.asarray(sd) < 0):
        raise RuntimeError(f"normal expects all elements of std >= 0.0, but found std {np.min(sd)}")
    if numbers:
        shape = tuple(size)
        dtype = dtypes.to_dtype(dtype, "normal") or dtypes.default_float
    else:  # the tensors' shapes, broadcast; a number broadcasts to any
        check_broadcast("normal", np.shape(m), np.shape(sd), names=("mean", "std"))
        shape = np.broadcast_shapes(np.shape(m), np.shape(sd))
        dtype = (mean_t if mean_t is not None else std_t).dtype
    z = _random.numpy_generator(generator, "normal").standard_normal(shape)
    result = from_numpy((m + sd * z).astype(dtype))
    return result if out is None else write_out(out, result, "normal")


def poisson(input, generator=None):
    """Samples of Poisson(rate = input[i]), one per element, in input's dtype (counts
    as floats, as torch.poisson). Random draws carry no gradient: the result is a leaf."""
    rates = as_tensor(input)
    if rates.dtype.kind != "f":
        raise RuntimeError(f"poisson: expected a floating point tensor of rates, got {rates.dtype}")
    if np.any(rates.array < 0) or np.any(np.isnan(rates.array)):
        raise RuntimeError("poisson: invalid Poisson rate, expected rate to be non-negative")
    draws = _random.numpy_generator(generator, "poisson").poisson(rates.array)
    return from_numpy(draws.astype(rates.dtype))


def binomial(count, prob, generator=None):
    """Samples of Binomial(count[i] trials, success probability prob[i]), in count's
    dtype (as torch.binomial). Random draws carry no gradient: the result is a leaf."""
    n, p = as_tensor(count), as_tensor(prob)
    if n.dtype.kind != "f" or p.dtype.kind != "f":
        raise RuntimeError(f"binomial: expected floating point count and prob, got {n.dtype} and {p.dtype}")
    check_broadcast("binomial", n.shape, p.shape, names=("count", "prob"))
    if np.any((p.array < 0) | (p.array > 1)) or np.any(n.array < 0):
        raise RuntimeError("binomial: expected 0 <= prob <= 1 and count >= 0")
    draws = _random.numpy_generator(generator, "binomial").binomial(n.array.astype(np.int64), p.array)
    return from_numpy(draws.astype(n.dtype))
