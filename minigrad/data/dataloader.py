"""DataLoader: iterate over a dataset in (shuffled) batches.

One epoch is three steps, and this file is little more than them:

1. choose the order of the indices: 0..n-1, or a fresh random permutation when
   `shuffle=True` (drawn from minigrad's global generator at the start of each epoch,
   so `mg.manual_seed` makes the whole run repeatable and every epoch differs);
2. cut the order into chunks of `batch_size` (the last one smaller, or dropped
   with `drop_last=True`);
3. fetch each chunk's examples with `dataset[i]` and merge them with `collate_fn`
   (by default `default_collate`, which stacks them into Tensors).

PyTorch's DataLoader adds worker processes, pinned memory and samplers; the batches it
yields for the same order are the same as these.
"""

import math

from minigrad import random
from minigrad.data.collate import default_collate, default_convert


class DataLoader:
    """`for x, y in DataLoader(dataset, batch_size=32, shuffle=True): ...`

    Arguments as torch.utils.data.DataLoader: `batch_size=None` turns batching off
    (each example is yielded on its own, NumPy arrays converted to Tensors);
    `collate_fn(list_of_examples)` replaces `default_collate`; `generator` (a NumPy
    Generator) replaces the global one for shuffling.
    """

    def __init__(self, dataset, batch_size=1, shuffle=False, drop_last=False, collate_fn=None, generator=None):
        if batch_size is not None:
            if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size <= 0:
                raise ValueError(
                    f"DataLoader: batch_size should be a positive integer value (or None), but got {batch_size!r}"
                )
        elif drop_last:
            raise ValueError(
                "DataLoader: batch_size=None turns batching off, so drop_last=True has nothing to drop; "
                "leave drop_last=False"
            )
        if not hasattr(dataset, "__getitem__") or not hasattr(dataset, "__len__"):
            raise TypeError(
                f"DataLoader: dataset must define __getitem__ and __len__ (a Dataset), got {type(dataset).__name__}"
            )
        self.dataset = dataset
        self.batch_size = batch_size
        self.shuffle = bool(shuffle)
        self.drop_last = bool(drop_last)
        if collate_fn is None:
            collate_fn = default_collate if batch_size is not None else default_convert
        self.collate_fn = collate_fn
        self.generator = generator

    def __len__(self):
        """Batches per epoch."""
        n = len(self.dataset)
        if self.batch_size is None:
            return n
        if self.drop_last:
            return n // self.batch_size
        return math.ceil(n / self.batch_size)

    def __iter__(self):
        for indices in self._batches_of_indices():
            if self.batch_size is None:
                yield self.collate_fn(self.dataset[indices])
            else:
                yield self.collate_fn([self.dataset[i] for i in indices])

    def _batches_of_indices(self):
        n = len(self.dataset)
        if self.shuffle:
            # looked up now, not in __init__: mg.manual_seed replaces the global generator
            rng = self.generator if self.generator is not None else random.generator()
            order = rng.permutation(n).tolist()
        else:
            order = list(range(n))
        if self.batch_size is None:
            yield from order
            return
        for start in range(0, n, self.batch_size):
            chunk = order[start : start + self.batch_size]
            if len(chunk) < self.batch_size and self.drop_last:
                return
            yield chunk
