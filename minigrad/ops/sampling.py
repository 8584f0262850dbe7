"""Sampling: draw indices or coin flips from probabilities given as a tensor.

All draws come from minigrad's one global generator (`minigrad.random.generator()`),
so `mg.manual_seed(s)` makes them repeatable; a NumPy `Generator` may be passed as
`generator=` instead. Samples are integers or 0/1 values, so nothing here has a
gradient (as in PyTorch).
"""

import numpy as np

from minigrad import random as _random
from minigrad.creation import as_tensor, from_numpy
from minigrad.ops.out import write_out
from minigrad.tensor import Tensor


def _generator(generator, op):
    if generator is None:
        return _random.generator()
    if isinstance(generator, np.random.Generator):
        return generator
    raise TypeError(f"{op}: generator must be None or a NumPy Generator, got {type(generator).__name__}")


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
    rng = _generator(generator, "multinomial")
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
    draws = _generator(generator, "bernoulli").random(x.shape) < probs
    result = from_numpy(draws.astype(x.dtype))
    return result if out is None else write_out(out, result, "bernoulli")
