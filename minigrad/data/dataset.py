"""Dataset: anything that answers `len(ds)` and `ds[i]`, one example at a time.

That is the whole contract (PyTorch's "map-style" dataset). A DataLoader asks for
examples by index and stacks them into batches, so a dataset never needs to know about
batches, shuffling or epochs. The small datasets here build on others:

- `TensorDataset(x, y)`: example i is `(x[i], y[i])`, for data already in memory;
- `Subset(ds, indices)`: a view of some examples of another dataset (what
  `random_split` returns);
- `ConcatDataset([a, b])` (also `a + b`): the examples of a, then those of b;
- `StackDataset(images, labels)`: example i is `(images[i], labels[i])`, the same
  index in several datasets of one length;
- subclasses you write: load files in `__init__`, return one example in `__getitem__`.

An `IterableDataset` is the other kind (PyTorch's "iterable-style"): a stream of
examples with no indices, for data that arrives in order (lines of a huge file, a
generator of synthetic examples). The DataLoader takes the next `batch_size` examples
from `iter(dataset)`; with workers, each worker iterates its own copy of the stream,
so the dataset splits the work itself with `get_worker_info()`. `ChainDataset([a, b])`
(also `a + b`) is stream a, then stream b.
"""

from bisect import bisect_right

import numpy as np

from minigrad.creation import from_numpy
from minigrad.tensor import Tensor


class Dataset:
    """Base class of map-style datasets: subclass it and define `__getitem__(i)` (one
    example, usually a tuple `(input, target)`) and `__len__()` (how many)."""

    def __getitem__(self, index):
        raise NotImplementedError(
            f"{type(self).__name__} must define __getitem__(index) to be a Dataset"
        )

    def __len__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __len__() to be a Dataset")

    def __add__(self, other):
        """`a + b` is `ConcatDataset([a, b])`: a's examples, then b's."""
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """Base class of streaming datasets: subclass it and define `__iter__()`, which
    yields one example at a time.

    With `DataLoader(..., num_workers=N)` every worker calls `iter(dataset)`, so an
    unsplit stream would be loaded N times; split it in `__iter__`:

        info = minigrad.utils.data.get_worker_info()
        if info is not None:  # in worker info.id of info.num_workers
            start, stop = ...  # this worker's share
    """

    def __iter__(self):
        raise NotImplementedError(
            f"{type(self).__name__} must define __iter__() to be an IterableDataset"
        )

    def __getitem__(self, index):
        raise TypeError(
            f"{type(self).__name__} is an IterableDataset: iterate over it, it cannot be indexed"
        )

    def __len__(self):
        # a stream has no length unless a subclass knows it (then len(loader) works too)
        raise TypeError(
            f"object of type '{type(self).__name__}' has no len() (an IterableDataset may define "
            "__len__)"
        )

    def __add__(self, other):
        """`a + b` is `ChainDataset([a, b])`: stream a, then stream b."""
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    """Example i is `(t[i] for t in tensors)`: `TensorDataset(inputs, targets)`.

    The tensors (minigrad Tensors or NumPy arrays, which are wrapped without copying)
    must share their first dimension, the number of examples.
    """

    def __init__(self, *tensors):
        if not tensors:
            raise ValueError("TensorDataset: expected at least one tensor, got none")
        wrapped = []
        for i, t in enumerate(tensors):
            if isinstance(t, np.ndarray):
                t = from_numpy(t)
            if not isinstance(t, Tensor):
                raise TypeError(
                    f"TensorDataset: argument {i} must be a Tensor or np.ndarray, got "
                    f"{type(t).__name__}"
                )
            if t.ndim == 0:
                raise ValueError(
                    f"TensorDataset: argument {i} is 0-d; every tensor needs a first dimension to "
                    "index"
                )
            wrapped.append(t)
        shapes = [tuple(t.shape) for t in wrapped]
        if any(s[0] != shapes[0][0] for s in shapes):
            raise ValueError(
                "TensorDataset: all tensors must have the same size in dimension 0 (the number of "
                f"examples), got shapes {shapes}"
            )
        self.tensors = tuple(wrapped)

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].shape[0]


class Subset(Dataset):
    """The examples of `dataset` at `indices`, in that order: `Subset(ds, [0, 5, 2])[1]`
    is `ds[5]`. Nothing is copied; the subset looks examples up in `dataset`.

    A DataLoader fetches a batch with `__getitems__`, which passes the whole batch on to
    `dataset.__getitems__` when it has one; so a subclass that overrides `__getitem__`
    must override `__getitems__` too (it is refused otherwise, as in PyTorch).
    """

    def __init__(self, dataset, indices):
        if (
            type(self).__getitem__ is not Subset.__getitem__
            and type(self).__getitems__ is Subset.__getitems__
        ):
            raise NotImplementedError(
                f"{type(self).__name__} overrides __getitem__ but not __getitems__; the DataLoader "
                "would bypass your __getitem__. Add: def __getitems__(self, indices): return "
                "[self[i] for i in indices]"
            )
        self.dataset = dataset
        self.indices = [int(i) for i in indices]

    def __getitem__(self, index):
        if isinstance(index, list):  # a batch of positions, for a dataset that takes lists
            return self.dataset[[self.indices[i] for i in index]]
        return self.dataset[self.indices[index]]

    def __getitems__(self, indices):
        """The examples at these positions, as a list (one batch)."""
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__([self.indices[i] for i in indices])
        return [self.dataset[self.indices[i]] for i in indices]

    def __len__(self):
        return len(self.indices)


class ConcatDataset(Dataset):
    """The examples of several datasets one after the other: with parts of lengths 3 and
    5, index 4 is `datasets[1][1]`. `cumulative_sizes` holds the running totals ([3, 8]),
    and an index finds its part by bisection in it. Negative indices count from the end."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        # AssertionError for these two, as PyTorch raises
        if not self.datasets:
            raise AssertionError("ConcatDataset: datasets should not be an empty iterable")
        for i, d in enumerate(self.datasets):
            if isinstance(d, IterableDataset):
                raise AssertionError(
                    f"ConcatDataset does not support IterableDataset (datasets[{i}] is a "
                    f"{type(d).__name__}); "
                    "use ChainDataset to chain streams"
                )
        self.cumulative_sizes = self.cumsum(self.datasets)

    @staticmethod
    def cumsum(sequence):
        """The running totals of the lengths: [len(a), len(a) + len(b), ...]."""
        totals, total = [], 0
        for d in sequence:
            total += len(d)
            totals.append(total)
        return totals

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        n = len(self)
        if idx < 0:
            if -idx > n:
                raise ValueError(
                    f"ConcatDataset: absolute value of index should not exceed dataset length {n}, "
                    f"got {idx}"
                )
            idx = n + idx
        if idx >= n:
            raise IndexError(
                f"ConcatDataset: index {idx} is out of range for a dataset of length {n}"
            )
        part = bisect_right(self.cumulative_sizes, idx)  # the first part whose total exceeds idx
        start = self.cumulative_sizes[part - 1] if part > 0 else 0
        return self.datasets[part][idx - start]


class ChainDataset(IterableDataset):
    """Several IterableDatasets as one stream: all of the first, then all of the second,
    ... . Nothing is read until iteration; `len` works when every part has one."""

    def __init__(self, datasets):
        self.datasets = datasets

    def __iter__(self):
        for d in self.datasets:
            _check_iterable(d)
            yield from d

    def __len__(self):
        total = 0
        for d in self.datasets:
            _check_iterable(d)
            total += len(d)
        return total


def _check_iterable(dataset):
    if not isinstance(dataset, IterableDataset):  # AssertionError, as PyTorch raises
        raise AssertionError(
            f"ChainDataset only supports IterableDataset, got a {type(dataset).__name__}"
        )


class StackDataset(Dataset):
    """Several datasets of one length, side by side: example i is the tuple of their i-th
    examples (`StackDataset(images, texts)[i] == (images[i], texts[i])`), or a dict with
    keyword arguments (`StackDataset(image=images, text=texts)[i]` ==
    `{'image': images[i], 'text': texts[i]}`)."""

    def __init__(self, *args, **kwargs):
        if args and kwargs:
            raise ValueError(
                "StackDataset: supported either tuple- (via args) or dict- (via kwargs) like "
                "input/output, but both types are given"
            )
        if not args and not kwargs:
            raise ValueError("StackDataset: at least one dataset should be passed")
        self.datasets = args if args else kwargs
        parts = list(args) if args else list(kwargs.values())
        lengths = [len(d) for d in parts]
        if any(n != lengths[0] for n in lengths):
            raise ValueError(f"StackDataset: size mismatch between datasets, got lengths {lengths}")
        self._length = lengths[0]

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {key: d[index] for key, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __getitems__(self, indices):
        """One batch: each part fetched with its own `__getitems__` where it has one."""
        named = isinstance(self.datasets, dict)
        columns = {}
        for key, d in self.datasets.items() if named else enumerate(self.datasets):
            if callable(getattr(d, "__getitems__", None)):
                items = d.__getitems__(indices)
                if len(items) != len(indices):
                    raise ValueError(
                        "StackDataset: nested dataset's output size mismatch: expected "
                        f"{len(indices)}, got {len(items)}"
                    )
            else:
                items = [d[i] for i in indices]
            columns[key] = items
        if named:
            return [{key: items[j] for key, items in columns.items()} for j in range(len(indices))]
        return [tuple(items[j] for items in columns.values()) for j in range(len(indices))]

    def __len__(self):
        return self._length
