"""Collate: turn a list of examples into one batch.

A dataset returns one example, say `(image, label)`. The DataLoader fetches
`batch_size` of them and calls `collate_fn([ex0, ex1, ...])`. `default_collate`
does what PyTorch's does: it looks at the first example and recurses into its
structure, stacking the leaves along a new first dimension.

    [(img0, 3), (img1, 7)]  ->  [stack([img0, img1]), tensor([3, 7])]

- Tensors and NumPy arrays are stacked (shape (batch, *example shape)).
- Python ints become an int64 tensor, bools a bool tensor and floats a **float64**
  tensor, exactly as `torch.tensor(batch, dtype=torch.float64)` in PyTorch's collate
  (NumPy scalars keep their dtype: a dataset that wants float32 targets returns
  `np.float32(y)` or a float32 Tensor).
- Strings are left as they are: the batch of strings is returned unchanged.
- Dicts are collated key by key, named tuples field by field; tuples and lists
  position by position (a tuple of examples gives a *list* of batches, as in PyTorch).
"""

import collections.abc
import numbers

import numpy as np

from minigrad.creation import from_numpy
from minigrad.ops.shape import stack
from minigrad.tensor import Tensor


def default_collate(batch):
    """Stack a list of examples into a batch, recursing into tuples, lists and dicts."""
    if not batch:
        raise ValueError(
            "default_collate: the batch is empty (a DataLoader never asks for an empty batch)"
        )
    elem = batch[0]
    if isinstance(elem, Tensor):
        if any(t.requires_grad for t in batch):
            return stack(batch)  # keep the graph, as torch.stack would
        return _stack_arrays([t.array for t in batch], "tensors")
    if isinstance(elem, (np.ndarray, np.generic)) and not isinstance(elem, (np.str_, np.bytes_)):
        if elem.dtype.hasobject or elem.dtype.kind in "USV":
            raise TypeError(f"default_collate: cannot stack NumPy arrays of dtype {elem.dtype}")
        return _stack_arrays([np.asarray(a) for a in batch], "NumPy arrays")
    if isinstance(elem, bool):  # before int: bool is a subclass of int
        return from_numpy(np.array(batch, dtype=np.bool_))
    if isinstance(elem, numbers.Integral):
        return from_numpy(np.array(batch, dtype=np.int64))
    if isinstance(elem, numbers.Real):
        return from_numpy(np.array(batch, dtype=np.float64))
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        collated = {key: default_collate([example[key] for example in batch]) for key in elem}
        try:
            return type(elem)(collated)  # keep an OrderedDict an OrderedDict
        except TypeError:
            return collated
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # a namedtuple keeps its type
        return type(elem)(*(default_collate(field) for field in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        if any(len(example) != len(elem) for example in batch):
            raise RuntimeError(
                f"default_collate: each element in list of batch should be of equal size, "
                f"got sizes {[len(example) for example in batch]}"
            )
        return [default_collate(column) for column in zip(*batch)]
    raise TypeError(
        f"default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
        f"found {type(elem).__name__}"
    )


def default_convert(data):
    """What a DataLoader with batch_size=None does to each example: NumPy arrays become
    Tensors (sharing memory), recursing into tuples, lists and dicts; numbers, strings
    and Tensors are left as they are."""
    if isinstance(data, np.ndarray) and not (data.dtype.hasobject or data.dtype.kind in "USV"):
        return from_numpy(data)
    if isinstance(data, np.generic) and data.dtype.kind in "biufc":
        return from_numpy(np.asarray(data))
    if isinstance(data, collections.abc.Mapping):
        converted = {key: default_convert(value) for key, value in data.items()}
        try:
            return type(data)(converted)
        except TypeError:
            return converted
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]  # PyTorch gives a list here too
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            return type(data)([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data


def _stack_arrays(arrays, what):
    shapes = {a.shape for a in arrays}
    if len(shapes) > 1:
        raise RuntimeError(
            f"default_collate: cannot stack {what} of different shapes {sorted(shapes)} into a "
            "batch; make every example the same shape, or pass a collate_fn that pads them"
        )
    return from_numpy(np.stack(arrays))
