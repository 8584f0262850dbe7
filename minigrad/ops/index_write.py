"""Writing at indices, out of place: `index_add`, `index_copy`, `index_put`, `put` and
`masked_scatter`, the write twins of the reads `index_select`, `x[indices]`, `take` and
`masked_select`.

Each write's gradient is the matching read: the values written get dL/dy read at the
places they went to, and `input` gets dL/dy, except where its values were overwritten
(a copy) rather than added to (an add). So each is an existing pair of Functions:

    index_add(x, dim, index, source)   scatter_add with index repeated along the other dims
    index_copy(x, dim, index, source)  scatter, likewise
    index_put(x, indices, values)      x[indices] = values (IndexPut), or += with accumulate
    put(x, index, source)              index_put on x seen flat
    masked_scatter(x, mask, source)    x[mask] = the first mask.sum() elements of source
"""

import numpy as np

from minigrad._args import normalize_dim
from minigrad.creation import as_tensor
from minigrad.ops.index import (
    GetItem,
    IndexAdd,
    IndexPut,
    Scatter,
    ScatterAdd,
    index_array,
    normalize_index,
)
from minigrad.tensor import Tensor

# torch's exception types differ by op for the same mistake
_COUNT_ERROR = {"index_copy": IndexError}  # len(index) != source.size(dim); else RuntimeError
_BOUNDS_ERROR = {"index_add": RuntimeError}  # an index outside self; else IndexError


def _along_dim(op, x, dim, index, source):
    """Checks of index_add/index_copy, with torch's words: a 1-D integer index with one
    entry per slice of source along dim, source shaped as x elsewhere, one dtype; returns
    (dim, index repeated to source's shape: the scatter index)."""
    d = normalize_dim(dim, x.ndim, op)
    if not isinstance(index, Tensor) or index.dtype.kind not in "iu":
        got = index.dtype if isinstance(index, Tensor) else type(index).__name__
        raise RuntimeError(f"{op}(): Expected dtype int32/int64 for index but got: {got}")
    idx = index.array
    if idx.ndim > 1:
        raise IndexError(
            f"{op}(): Index is supposed to be a vector, but got dim: {idx.ndim} and size: "
            f"{list(idx.shape)}"
        )
    idx = idx.reshape(-1)
    if source.dtype != x.dtype:
        raise RuntimeError(
            f"{op}(): self ({x.dtype}) and source ({source.dtype}) must have the same scalar type"
        )
    src_shape = source.shape if source.ndim else (1,)
    if source.ndim and len(src_shape) != max(x.ndim, 1):
        raise RuntimeError(
            f"{op}(): source {tuple(source.shape)} must have as many dims as self {tuple(x.shape)}"
        )
    if idx.size != src_shape[d]:
        raise _COUNT_ERROR.get(op, RuntimeError)(
            f"{op}(): Number of indices ({idx.size}) should be equal to source.size(dim): "
            f"({src_shape[d]}), for dim: {d}"
        )
    x_shape = x.shape or (1,)
    if any(s != n for k, (s, n) in enumerate(zip(src_shape, x_shape)) if k != d):
        raise RuntimeError(
            "source tensor shape must match self tensor shape, excluding the specified dimension. "
            f"Got self.shape = {list(x.shape)} source.shape = {list(source.shape)}"
        )
    checked = isinstance(idx, np.ndarray)  # a GPU's index is not checked (see ops/index.py)
    if checked and idx.size and (idx.min() < 0 or idx.max() >= x_shape[d]):
        bad = idx.min() if idx.min() < 0 else idx.max()
        error = _BOUNDS_ERROR.get(op, IndexError)
        raise error(
            f"{op}(): index {bad} is out of bounds for dimension {d} with size {x_shape[d]}"
        )
    along = idx.reshape((-1,) + (1,) * (len(src_shape) - d - 1))
    return d, np.broadcast_to(along, src_shape)


def _scatter_along(fn, op, input, dim, index, source):
    x, src = as_tensor(input), as_tensor(source)
    d, idx = _along_dim(op, x, dim, index, src)
    if x.ndim == 0:
        return fn.apply(x.reshape(1), src.reshape(1), dim=0, index=idx).reshape(())
    return fn.apply(x, src, dim=d, index=idx)


def index_add(input, dim, index, source, *, alpha=1):
    """A copy of input with `alpha * source[j]` added to slice `index[j]` along `dim` (for
    dim=1: out[:, index[j]] += alpha * source[:, j]); repeated indices add up.
    dL/dinput = dL/dy, dL/dsource = alpha * dL/dy read at the slices `index`."""
    source = as_tensor(source)
    return _scatter_along(
        ScatterAdd, "index_add", input, dim, index, source if alpha == 1 else source * alpha
    )


def index_copy(input, dim, index, source):
    """A copy of input with slice `index[j]` along `dim` replaced by source's slice j (for
    dim=1: out[:, index[j]] = source[:, j]). dL/dinput = dL/dy with those slices zeroed,
    dL/dsource = dL/dy read at them. (A repeated index keeps one of its writes, which
    one is not defined, as in PyTorch.)"""
    return _scatter_along(Scatter, "index_copy", input, dim, index, source)


def index_put(input, indices, values, accumulate=False):
    """A copy of input with `values` (broadcast) written at `input[indices]`, `indices`
    being a tuple of index tensors (integer or bool) as `x[indices] = values` takes them;
    with `accumulate=True`, added there instead, repeated positions adding up.
    dL/dvalues = dL/dy[indices]; dL/dinput = dL/dy (zeroed where overwritten)."""
    x, v = as_tensor(input), as_tensor(values)
    if v.dtype != x.dtype:
        raise RuntimeError(
            "Index put requires the source and destination dtypes match, got "
            f"{x.dtype} for the destination and {v.dtype} for the source."
        )
    if not isinstance(indices, (tuple, list)):
        raise TypeError(
            f"index_put(): indices must be a tuple of tensors, got {type(indices).__name__}"
        )
    index = normalize_index(tuple(indices))
    target = np.shape(x.array[index])
    try:
        np.broadcast_to(np.empty(v.shape, dtype=bool), target)
    except ValueError:
        raise RuntimeError(
            f"index_put: shape mismatch: value tensor of shape {list(v.shape)} cannot be broadcast "
            f"to indexing result of shape {list(target)}"
        ) from None
    if not accumulate:
        return IndexPut.apply(x, v, index=index)
    return x + IndexAdd.apply(v.expand(target), index=index, shape=x.shape)


def put(input, index, source, accumulate=False):
    """A copy of input with `source`'s elements written at the flat positions `index`
    (input read as 1-D; negatives count from the end), or added there with accumulate."""
    x, src = as_tensor(input), as_tensor(source)
    idx = index_array(index, "put")
    if idx.size != src.numel():
        raise IndexError(
            "put_(): Expected source and index to have the same number of elements, but got "
            f"source.numel() = {src.numel()}, index.numel() = {idx.size}"
        )
    n = x.numel()
    checked = isinstance(idx, np.ndarray)  # a GPU's index is not checked (see ops/index.py)
    if checked and idx.size and (idx.min() < -n or idx.max() >= n):
        bad = idx.min() if idx.min() < -n else idx.max()
        raise IndexError(
            f"put(): out of range: tried to access index {bad} on a tensor of {n} elements."
        )
    flat = index_put(x.reshape(-1), (Tensor._make(idx.reshape(-1)),), src.reshape(-1), accumulate)
    return flat.reshape(x.shape)


def masked_scatter(input, mask, source):
    """A copy of input (broadcast with mask) with the places where the bool `mask` is True
    filled, in row-major order, by the first elements of `source`.
    dL/dinput = dL/dy where mask is False; dL/dsource = dL/dy at the masked places, in
    order, then zeros for the elements of source not used."""
    x, mask, src = as_tensor(input), as_tensor(mask), as_tensor(source)
    if mask.dtype.kind != "b":
        raise RuntimeError(
            f"masked_scatter_ only supports boolean masks, but got mask with dtype {mask.dtype}"
        )
    if src.dtype != x.dtype:
        raise RuntimeError(
            f"masked_scatter: expected self and source to have same dtypes but got {x.dtype} and "
            f"{src.dtype}"
        )
    try:
        shape = np.broadcast_shapes(x.shape, mask.shape)
    except ValueError:
        raise RuntimeError(
            f"masked_scatter: the mask of shape {tuple(mask.shape)} does not broadcast with the "
            f"input of shape {tuple(x.shape)}"
        ) from None
    where = np.broadcast_to(mask.array, shape)
    count = int(where.sum())  # it sizes the slice of source: read on the host, on a GPU too
    if count > src.numel():
        raise RuntimeError(
            f"masked_scatter: Number of elements of source ({src.numel()}) < number of ones in "
            f"mask ({count})"
        )
    used = GetItem.apply(src.reshape(-1), index=(slice(0, count),))
    return IndexPut.apply(x.expand(shape), used, index=where)
