"""Samplers: which examples an epoch visits, and in what order.

A sampler is an iterable of dataset indices. The DataLoader asks its sampler for the
order of an epoch and a `BatchSampler` cuts that order into lists of `batch_size`
indices, so changing *what* an epoch sees (shuffled, a subset, weighted towards rare
classes) never touches the dataset or the batching:

- `SequentialSampler(ds)`:          0, 1, ..., len(ds) - 1
- `RandomSampler(ds)`:              a fresh permutation each epoch (or draws with replacement)
- `SubsetRandomSampler(indices)`:   the given indices, shuffled each epoch
- `WeightedRandomSampler(w, n)`:    n indices drawn with probabilities proportional to w
- `BatchSampler(sampler, b, drop)`: the sampler's indices in lists of b

Random samplers draw from their own `generator=` (an `mg.Generator`) when given one.
Without one, RandomSampler and WeightedRandomSampler take one seed from minigrad's global
generator when an epoch starts, and draw that epoch from a stream of their own, as
torch's RandomSampler does: `mg.manual_seed` makes a run repeatable, every epoch differs,
and what else draws from the global generator during the epoch (dropout, or a DataLoader
whose workers fetch further ahead) leaves the order alone. SubsetRandomSampler draws its
one permutation from the global generator itself, as torch's.

They draw as they go, CHUNK indices at a time, as torch's do: a sampler that loops
(nearly) forever, `RandomSampler(ds, replacement=True, num_samples=10**10)` as minGPT and
makemore use, starts at once, where drawing every index up front would need 74.5 GiB.
Without replacement, each pass over the data is one permutation of len(data_source).

The names, arguments, lengths and errors are torch.utils.data's; the random orders are
NumPy's, so they differ from PyTorch's for the same seed.
"""

import math
import numbers

import numpy as np

from minigrad import random
from minigrad.creation import from_numpy
from minigrad.tensor import Tensor

CHUNK = 32  # indices drawn at a time with replacement (torch's RandomSampler draws 32)


class Sampler:
    """Base class: a subclass defines `__iter__` (yielding indices, or lists of indices
    for a batch sampler) and usually `__len__`."""

    def __init__(self, data_source=None):
        # torch accepts and ignores data_source here (subclasses keep what they need)
        pass

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __iter__() to be a Sampler")


class SequentialSampler(Sampler):
    """The indices 0, 1, ..., len(data_source) - 1, in order: what `shuffle=False` uses."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """`RandomSampler(data_source, replacement=False, num_samples=None, generator=None)`:
    what `shuffle=True` uses.

    Without replacement each epoch is a fresh permutation of all indices (if
    `num_samples` is larger than the dataset, whole permutations follow one another
    and the last is cut short). With replacement, `num_samples` independent uniform
    draws, made CHUNK at a time as the iteration goes, so that a huge `num_samples`
    (10**10: "loop forever") costs nothing up front. `num_samples` defaults to
    len(data_source).
    """

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        if not isinstance(replacement, bool):
            raise TypeError(
                "RandomSampler: replacement should be a boolean value, but got "
                f"replacement={replacement!r}"
            )
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        # reject a bad generator now, not mid-epoch
        random.numpy_generator(generator, "RandomSampler")
        _check_positive_int(self.num_samples, "RandomSampler", "num_samples")

    @property
    def num_samples(self):
        # read each time: the dataset may change size between epochs
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n, count = len(self.data_source), self.num_samples
        if n == 0:
            raise ValueError(
                f"RandomSampler: cannot draw num_samples={count} indices from an empty data_source"
            )
        rng = _epoch_generator(self.generator, "RandomSampler")
        if self.replacement:
            for start in range(0, count, CHUNK):
                yield from rng.integers(0, n, size=min(CHUNK, count - start)).tolist()
            return
        for _ in range(count // n):
            yield from rng.permutation(n).tolist()
        if count % n:  # no draw for an empty remainder: the stream moves only as far as it must
            yield from rng.permutation(n)[: count % n].tolist()

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """`SubsetRandomSampler(indices, generator=None)`: the given indices, in a fresh
    random order each epoch (e.g. a validation split of one dataset)."""

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator
        random.numpy_generator(generator, "SubsetRandomSampler")

    def __iter__(self):
        rng = random.numpy_generator(self.generator, "SubsetRandomSampler")
        for i in rng.permutation(len(self.indices)).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """`WeightedRandomSampler(weights, num_samples, replacement=True, generator=None)`:
    `num_samples` indices, index i drawn with probability weights[i] / sum(weights).

    The weights need not sum to 1 (one weight per example, e.g. 1 / its class's count,
    to see rare classes as often as common ones). Without replacement no index is
    drawn twice, so num_samples can be at most the number of non-zero weights.
    """

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        _check_positive_int(num_samples, "WeightedRandomSampler", "num_samples")
        if not isinstance(replacement, bool):
            raise ValueError(
                "WeightedRandomSampler: replacement should be a boolean value, but got "
                f"replacement={replacement!r}"
            )
        array = np.asarray(
            weights.array if isinstance(weights, Tensor) else weights, dtype=np.float64
        )
        if array.ndim != 1:
            raise ValueError(
                "WeightedRandomSampler: weights should be a 1d sequence but given weights have "
                f"shape {array.shape}"
            )
        if not np.all(np.isfinite(array)) or np.any(array < 0):
            raise ValueError(
                "WeightedRandomSampler: weights must be finite and non-negative, got "
                f"{array.tolist()}"
            )
        if array.sum() <= 0:
            raise ValueError(
                "WeightedRandomSampler: the weights sum to 0; at least one must be positive"
            )
        if not replacement and num_samples > np.count_nonzero(array):
            raise ValueError(
                f"WeightedRandomSampler: cannot draw num_samples={num_samples} indices without "
                f"replacement from {np.count_nonzero(array)} non-zero weights"
            )
        self.weights = from_numpy(array)
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator
        random.numpy_generator(generator, "WeightedRandomSampler")

    def __iter__(self):
        rng = _epoch_generator(self.generator, "WeightedRandomSampler")
        p = self.weights.array / self.weights.array.sum()
        if not self.replacement:  # num_samples <= len(weights): drawn at once
            yield from rng.choice(len(p), size=self.num_samples, replace=False, p=p).tolist()
            return
        # what rng.choice(p=p) does, one chunk at a time: index i is drawn where a uniform
        # number falls between cdf[i - 1] and cdf[i] (a zero weight has no room)
        cdf = np.cumsum(p)
        cdf /= cdf[-1]
        for start in range(0, self.num_samples, CHUNK):
            u = rng.random(min(CHUNK, self.num_samples - start))
            yield from np.searchsorted(cdf, u, side="right").tolist()

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """`BatchSampler(sampler, batch_size, drop_last)`: the sampler's indices in lists of
    `batch_size`; the last list is shorter, or dropped when `drop_last=True`.

        list(BatchSampler(SequentialSampler(range(5)), 2, False)) == [[0, 1], [2, 3], [4]]
    """

    def __init__(self, sampler, batch_size, drop_last):
        _check_positive_int(batch_size, "BatchSampler", "batch_size")
        if not isinstance(drop_last, bool):
            raise ValueError(
                "BatchSampler: drop_last should be a boolean value, but got "
                f"drop_last={drop_last!r}"
            )
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        batch = []
        for index in self.sampler:
            batch.append(index)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return math.ceil(len(self.sampler) / self.batch_size)


def _epoch_generator(generator, owner):
    """The NumPy Generator one epoch of a sampler draws from: its `generator=`, or else a
    new one, seeded by one draw from the global generator (the DataLoader worker's, in a
    worker), as torch's RandomSampler does: see the module's docstring for why."""
    rng = random.numpy_generator(generator, owner)
    if generator is not None:
        return rng
    return np.random.default_rng(int(rng.integers(0, 2**63)))


def _check_positive_int(value, owner, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value <= 0:
        raise ValueError(
            f"{owner}: {name} should be a positive integer value, but got {name}={value!r}"
        )
