"""Dataset: anything that answers `len(ds)` and `ds[i]`, one example at a time.

That is the whole contract (PyTorch's "map-style" dataset). A DataLoader asks for
examples by index and stacks them into batches, so a dataset never needs to know about
batches, shuffling or epochs. Three small datasets live here:

- `TensorDataset(x, y)`: example i is `(x[i], y[i])`, for data already in memory;
- `Subset(ds, indices)`: a view of some examples of another dataset (what
  `random_split` returns);
- subclasses you write: load files in `__init__`, return one example in `__getitem__`.

An `IterableDataset` is the other kind (PyTorch's "iterable-style"): a stream of
examples with no indices, for data that arrives in order (lines of a huge file, a
generator of synthetic examples). The DataLoader takes the next `batch_size` examples
from `iter(dataset)`; with workers, each worker iterates its own copy of the stream,
so the dataset splits the work itself with `get_worker_info()`.
"""

import numpy as np

from minigrad.creation import from_numpy
from minigrad.tensor import Tensor


class Dataset:
    """Base class of map-style datasets: subclass it and define `__getitem__(i)` (one
    example, usually a tuple `(input, target)`) and `__len__()` (how many)."""

    def __getitem__(self, index):
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__(index) to be a Dataset")

    def __len__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __len__() to be a Dataset")


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
        raise NotImplementedError(f"{type(self).__name__} must define __iter__() to be an IterableDataset")

    def __getitem__(self, index):
        raise TypeError(f"{type(self).__name__} is an IterableDataset: iterate over it, it cannot be indexed")

    def __len__(self):
        # a stream has no length unless a subclass knows it (then len(loader) works too)
        raise TypeError(f"object of type '{type(self).__name__}' has no len() (an IterableDataset may define __len__)")


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
                raise TypeError(f"TensorDataset: argument {i} must be a Tensor or np.ndarray, got {type(t).__name__}")
            if t.ndim == 0:
                raise ValueError(f"TensorDataset: argument {i} is 0-d; every tensor needs a first dimension to index")
            wrapped.append(t)
        shapes = [tuple(t.shape) for t in wrapped]
        if any(s[0] != shapes[0][0] for s in shapes):
            raise ValueError(
                f"TensorDataset: all tensors must have the same size in dimension 0 (the number of examples), "
                f"got shapes {shapes}"
            )
        self.tensors = tuple(wrapped)

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].shape[0]


class Subset(Dataset):
    """The examples of `dataset` at `indices`, in that order: `Subset(ds, [0, 5, 2])[1]`
    is `ds[5]`. Nothing is copied; the subset looks examples up in `dataset`."""

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = [int(i) for i in indices]

    def __getitem__(self, index):
        return self.dataset[self.indices[index]]

    def __len__(self):
        return len(self.indices)
