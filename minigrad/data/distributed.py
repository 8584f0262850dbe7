"""DistributedSampler: each of `num_replicas` processes reads its own share of a dataset.

In data-parallel training every process (a "replica", number `rank`) runs the same
loop on a different part of each epoch. The sampler lays the epoch's order out once,
the same in every process (a permutation seeded by `seed + epoch`, or 0..n-1), pads it
by repeating its start until it divides evenly (or, with `drop_last`, cuts it down),
and gives replica r the positions r, r + num_replicas, r + 2 * num_replicas, ...:

    order (n=10, 3 replicas)   0 1 2 3 4 5 6 7 8 9 | 0 1      (padded to 12)
    rank 0                     0     3     6     9
    rank 1                       1     4     7      0
    rank 2                         2     5     8      1

Call `set_epoch(epoch)` at the start of each epoch so that the shuffled order changes;
every replica must pass the same epoch. minigrad has no process groups, so give
`num_replicas` and `rank` yourself (torch reads them from the group when they are None).
The split, the padding and `drop_last` are torch's; the shuffled order is minigrad's
(PCG64), like every random order here, so it differs from torch's for the same seed.
"""

import math

from minigrad import distributed, random
from minigrad.data.sampler import Sampler


class DistributedSampler(Sampler):
    """`DistributedSampler(dataset, num_replicas=None, rank=None, shuffle=True, seed=0,
    drop_last=False)`: the indices of replica `rank` of `num_replicas` (see the module
    docstring). Its length is `ceil(len(dataset) / num_replicas)`, or, with drop_last
    and a remainder, `ceil((len(dataset) - num_replicas) / num_replicas)`."""

    def __init__(
        self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0, drop_last=False
    ):
        # torch asks the process group for what is missing; minigrad has none
        if num_replicas is None or rank is None:
            if not distributed.is_available():
                raise RuntimeError(
                    "Requires distributed package to be available (DistributedSampler: minigrad "
                    "has no process groups, so pass num_replicas= and rank= yourself)"
                )
        if rank >= num_replicas or rank < 0:
            raise ValueError(
                f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]"
            )
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        if drop_last and len(dataset) % num_replicas != 0:
            # the largest share every replica can have without repeating an index
            self.num_samples = math.ceil((len(dataset) - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(len(dataset) / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self):
        n = len(self.dataset)
        if self.shuffle:  # the same permutation in every replica: seeded by seed + epoch alone
            generator = random.Generator().manual_seed(self.seed + self.epoch)
            indices = (
                random.numpy_generator(generator, "DistributedSampler").permutation(n).tolist()
            )
        else:
            indices = list(range(n))
        if not self.drop_last:
            padding = self.total_size - len(indices)
            if padding <= len(indices):
                indices += indices[:padding]
            else:  # fewer indices than replicas: repeat the whole order
                indices += (indices * math.ceil(padding / len(indices)))[:padding]
        else:
            indices = indices[: self.total_size]
        return iter(indices[self.rank : self.total_size : self.num_replicas])

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """Use `epoch` for the next shuffle (call it, in every replica, before each epoch)."""
        self.epoch = epoch
