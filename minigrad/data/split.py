"""random_split: deal the examples of a dataset at random into non-overlapping parts.

`train, val = random_split(ds, [0.8, 0.2])` shuffles the indices 0..len(ds)-1 once
and cuts the shuffled list into consecutive pieces, so every example lands in exactly
one part. The shuffle draws from minigrad's global generator: `mg.manual_seed(0)`
before the call gives the same split every run.
"""

import math
import numbers
import warnings
from itertools import accumulate

from minigrad import random
from minigrad.data.dataset import Subset


def random_split(dataset, lengths, generator=None):
    """Split `dataset` into `Subset`s of the given `lengths`, as torch.utils.data.random_split.

    `lengths` are either example counts (ints summing to len(dataset)) or fractions
    (floats in [0, 1] summing to 1). Fractions are turned into counts the way PyTorch
    does it: floor(n * fraction) each, then the examples left over are handed out one
    at a time to the parts in order. `generator` (an `mg.Generator`, or a NumPy
    Generator) replaces the global one when given.
    """
    n = len(dataset)
    lengths = list(lengths)
    if not lengths:
        raise ValueError("random_split: lengths is empty; give the size (or fraction) of each part")
    if all(isinstance(length, numbers.Integral) for length in lengths):
        lengths = [int(length) for length in lengths]
    else:
        lengths = _counts_from_fractions(lengths, n)
    if any(length < 0 for length in lengths):
        raise ValueError(f"random_split: lengths must be non-negative, got {lengths}")
    if sum(lengths) != n:
        raise ValueError(
            f"random_split: the lengths {lengths} sum to {sum(lengths)}, but the dataset has {n} "
            f"examples (give counts that sum to {n}, or fractions that sum to 1)"
        )
    rng = random.numpy_generator(generator, "random_split")
    order = rng.permutation(n).tolist()
    return [
        Subset(dataset, order[end - length : end])
        for end, length in zip(accumulate(lengths), lengths)
    ]


def _counts_from_fractions(fractions, n):
    for i, f in enumerate(fractions):
        if not 0 <= f <= 1:
            raise ValueError(
                f"random_split: fraction at index {i} is {f}, expected a value between 0 and 1"
            )
    if not math.isclose(sum(fractions), 1):
        raise ValueError(f"random_split: fractions {fractions} sum to {sum(fractions)}, expected 1")
    counts = [math.floor(n * f) for f in fractions]
    for i in range(n - sum(counts)):  # the rounding leftovers, round-robin from the first part
        counts[i % len(counts)] += 1
    for i, count in enumerate(counts):
        if count == 0:
            warnings.warn(
                f"random_split: part {i} is empty ({fractions[i]} of {n} examples)", stacklevel=3
            )
    return counts
