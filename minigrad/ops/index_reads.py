"""More reads by index: one slice (`select`), flat indices (`take`), indices along a dim
(`take_along_dim`), a mask (`masked_select`), repeats (`repeat_interleave`), and where
indices point (`nonzero_static`, `unravel_index`). Each is built on the indexing ops of
index.py (`x[index]`, gather), so its gradient is theirs.
"""

import numpy as np

from minigrad._args import normalize_dim
from minigrad.array_module import array_module, on_device, to_host
from minigrad.creation import as_tensor, from_numpy
from minigrad.ops.index import Gather, GetItem, _check_bounds, index_array, narrow, nonzero
from minigrad.tensor import Tensor


# ---- more reads: one slice, flat indices, indices along a dim, masks, repeats --------------------
def select(input, dim, index):
    """The slice of `input` at `index` along `dim`, that dim removed (`x[:, index]` for
    dim=1; a negative index counts from the end). A view, as in PyTorch."""
    x = input if isinstance(input, Tensor) else as_tensor(input)
    if x.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = normalize_dim(dim, x.ndim, "select")
    index = int(index)
    if not -x.shape[d] <= index < x.shape[d]:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size {list(x.shape)} at dimension "
            f"{d}"
        )
    return GetItem.apply(x, index=(slice(None),) * d + (index,))


def narrow_copy(input, dim, start, length):
    """`narrow(input, dim, start, length)` as a copy with its own memory, not a view."""
    return narrow(input, dim, start, length).clone()


def take(input, index):
    """The elements of `input` read as if it were 1-D, at the flat positions `index` (an
    integer tensor; negatives count from the end): the result has index's shape. The
    gradient adds back at repeated positions."""
    x = input if isinstance(input, Tensor) else as_tensor(input)
    if not isinstance(index, Tensor) or index.dtype != np.int64:
        got = index.dtype if isinstance(index, Tensor) else type(index).__name__
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {got}")
    n = x.numel()
    idx = index.array
    checked = not on_device(idx)  # not on a GPU: see the module's docstring
    if checked and idx.size and (idx.min() < -n or idx.max() >= n):
        bad = idx.min() if idx.min() < -n else idx.max()
        raise IndexError(
            f"take(): out of range: tried to access index {bad} on a tensor of {n} elements."
        )
    return GetItem.apply(x.reshape(-1), index=idx)


def take_along_dim(input, indices, dim=None):
    """`input` read along `dim` at `indices`, which has input's number of dims and
    broadcasts with it in the others (`gather` with broadcasting); `x.argsort(1)` or
    `x.argmax(1, keepdim=True)` are such indices. Without dim, both are read flattened.
    Negative indices count from the end."""
    x = input if isinstance(input, Tensor) else as_tensor(input)
    idx = index_array(indices, "take_along_dim")
    if dim is None:
        x, idx, d = x.reshape(-1), idx.reshape(-1), 0
    else:
        if x.ndim != idx.ndim:
            raise RuntimeError(
                "torch.take_along_dim(): input and indices should have the same number of "
                f"dimensions, but got {x.ndim} dimensions for input, and {idx.ndim} dimensions for "
                "indices"
            )
        d = normalize_dim(dim, x.ndim, "take_along_dim")
        others = np.broadcast_shapes(
            x.shape[:d] + (1,) + x.shape[d + 1 :], idx.shape[:d] + (1,) + idx.shape[d + 1 :]
        )
        x = x.expand(others[:d] + (x.shape[d],) + others[d + 1 :])
        idx = np.broadcast_to(idx, others[:d] + (idx.shape[d],) + others[d + 1 :])
    size = (x.shape or (1,))[d]
    _check_bounds(idx, size, d, "take_along_dim", allow_negative=True)
    return Gather.apply(x, dim=d, index=np.where(idx < 0, idx + size, idx))


def masked_select(input, mask):
    """The elements of `input` where the bool `mask` is True, as a 1-D tensor in row-major
    order; input and mask broadcast together first. The gradient goes back to the
    selected places (summed over what input was broadcast along)."""
    x = input if isinstance(input, Tensor) else as_tensor(input)
    mask = mask if isinstance(mask, Tensor) else as_tensor(mask)
    if mask.dtype.kind != "b":
        raise RuntimeError(f"masked_select: expected BoolTensor for mask, got {mask.dtype}")
    try:
        shape = np.broadcast_shapes(x.shape, mask.shape)
    except ValueError:
        raise RuntimeError(
            f"masked_select: the mask of shape {mask.shape} does not broadcast with the input of "
            f"shape {x.shape}"
        ) from None
    return GetItem.apply(x.expand(shape), index=np.broadcast_to(mask.array, shape))


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Each element (each slice along `dim`) of `input` repeated `repeats` times in a row:
    [a, b] with 2 gives [a, a, b, b] (`repeat` gives [a, b, a, b]). `repeats` is an int or
    a tensor with one count per slice; without `dim`, input is flattened first. With only a
    tensor of counts, `repeat_interleave(counts)` gives the indices 0, 1, ... each repeated
    by its count. A read at repeated indices, so each slice's gradient is the sum of its
    copies'."""
    if repeats is None:  # repeat_interleave(counts): the indices, repeated
        counts = _repeat_counts(input, None, "repeat_interleave")
        picks = np.repeat(np.arange(counts.size, dtype=np.int64), counts)
        return from_numpy(array_module(input.array).asarray(picks))  # on the counts' device
    x = input if isinstance(input, Tensor) else as_tensor(input)
    if dim is None:
        x, d = x.reshape(-1), 0
    else:
        d = normalize_dim(dim, x.ndim, "repeat_interleave")
        x = x.reshape(1) if x.ndim == 0 else x
    size = x.shape[d]
    counts = _repeat_counts(repeats, size, "repeat_interleave")
    if isinstance(repeats, Tensor):  # GetItem copies picks to a GPU
        picks = np.repeat(np.arange(size, dtype=np.int64), counts)
    else:  # one count for all: the picks made where x is
        positions = array_module(x.array).arange(size, dtype=np.int64)
        picks = np.repeat(positions, int(counts[0]) if size else 0)
    if output_size is not None and output_size != picks.size:
        raise RuntimeError(
            "repeat_interleave: allocated size does not match required size "
            f"(output_size={output_size}, the repeats sum to {picks.size})"
        )
    return GetItem.apply(x, index=(slice(None),) * d + (picks,))


def _repeat_counts(repeats, size, op):
    """The repeat count of each of `size` slices: an int for all, or a tensor of one
    count (for all) or of `size` counts."""
    if isinstance(repeats, Tensor):
        if repeats.dtype.kind not in "iu":
            raise NotImplementedError(
                f"{op}: repeats must be an integer tensor, got {repeats.dtype}"
            )
        if repeats.ndim > 1:
            raise RuntimeError(
                f"{op}: repeats must be 0-dim or 1-dim tensor, got shape {tuple(repeats.shape)}"
            )
        # the counts size the result, so a GPU's are read on the host (torch reads them too)
        counts = to_host(repeats.array).reshape(-1)
    else:
        counts = np.array([int(repeats)])
    if size is not None:
        if counts.size == 1:
            counts = np.full(size, counts[0])
        elif counts.size != size:
            raise RuntimeError(
                f"{op}: repeats must have the same size as input along dim, but got "
                f"repeats.size(0) = {counts.size} and input.size(dim) = {size}"
            )
    if (counts < 0).any():
        raise RuntimeError(f"{op}: repeats can not be negative")
    return counts.astype(np.int64)


def nonzero_static(input, *, size, fill_value=-1):
    """`nonzero(input)` with exactly `size` rows: cut short, or padded with rows of
    `fill_value`, so that the shape is known before the values are (torch's form for
    compilers)."""
    if not isinstance(size, (int, np.integer)) or isinstance(size, bool) or size < 0:
        raise RuntimeError(f"nonzero_static: 'size' must be an non-negative integer, got {size!r}")
    found = nonzero(input).array[:size]
    pad_shape = (size - found.shape[0], found.shape[1])
    pad = array_module(found).full(pad_shape, fill_value, dtype=np.int64)
    return from_numpy(np.concatenate([found, pad]))


def unravel_index(indices, shape):
    """The coordinates in a tensor of `shape` of the flat (row-major) positions `indices`:
    a tuple of one int64 tensor per dim, each of indices' shape. Positions are taken
    modulo the number of elements, as PyTorch's are (-1 is the last element)."""
    idx = indices if isinstance(indices, Tensor) else as_tensor(indices)
    if idx.dtype.kind not in "iu":
        raise TypeError(
            f"unravel_index: expected 'indices' to be integer dtype, but got {idx.dtype}"
        )
    sizes = (shape,) if isinstance(shape, (int, np.integer)) else tuple(int(s) for s in shape)
    if any(s < 0 for s in sizes):
        raise ValueError(
            f"unravel_index: 'shape' cannot have negative values, but got {tuple(sizes)}"
        )
    rest = idx.array.astype(np.int64)
    coords = []
    for size in reversed(sizes):  # the last dim varies fastest
        coords.append(rest % size if size else np.zeros_like(rest))
        rest = rest // size if size else rest
    return tuple(from_numpy(c) for c in reversed(coords))
