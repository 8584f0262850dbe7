"""Indexing: `x[index]` and its gradient, a scatter-add.

`x[index]` picks elements; each picked element's gradient goes back to the place it
was picked from. An integer-array index can pick the same element twice
(`x[[0, 0]]`), and then both gradients must be *added* there: `np.add.at` does that,
where a plain `g[index] += grad` would keep only one of them.

`GetItem` and `IndexAdd` are each other's backward, so indexing has second derivatives.
"""

import numpy as np

from minigrad.autograd.function import Function
from minigrad.tensor import Tensor


def normalize_index(index):
    """Turn Tensors inside an index into NumPy arrays (bool masks stay bool)."""
    if isinstance(index, tuple):
        return tuple(_normalize_one(i) for i in index)
    return _normalize_one(index)


def _normalize_one(i):
    if isinstance(i, Tensor):
        if i.dtype.kind == "f":
            raise IndexError(f"tensors used as indices must be long, int or bool tensors, got {i.dtype}")
        return i.data
    if isinstance(i, list):
        arr = np.asarray(i)
        if arr.dtype.kind == "f":
            raise IndexError("lists used as indices must hold ints or bools")
        return arr
    if isinstance(i, float):
        raise IndexError(
            f"only integers, slices, None, Ellipsis, bool masks and integer arrays are valid indices, got {i!r}"
        )
    return i


def _is_basic(index):
    """True when the index has no arrays: then no element can be picked twice."""
    parts = index if isinstance(index, tuple) else (index,)
    return not any(isinstance(p, np.ndarray) for p in parts)


class GetItem(Function):
    """y = x[index];  dL/dx = zeros with dL/dy added at the indexed places."""

    @staticmethod
    def forward(ctx, x, index):
        ctx.in_shape, ctx.index = x.shape, index
        try:
            out = x.data[index]
        except IndexError as e:
            raise IndexError(f"index {_describe(index)} is out of range for a tensor of shape {x.shape}: {e}") from None
        # basic indexing returns a view: copy so later in-place writes to x don't leak
        return np.array(out, copy=True) if isinstance(out, np.ndarray) else np.asarray(out)

    @staticmethod
    def backward(ctx, grad):
        return IndexAdd.apply(grad, index=ctx.index, shape=ctx.in_shape)


class IndexAdd(Function):
    """y = zeros(shape) with g added at `index` (duplicates accumulate);
    dL/dg = dL/dy[index]."""

    @staticmethod
    def forward(ctx, g, index, shape):
        ctx.index = index
        out = np.zeros(shape, dtype=g.dtype)
        if _is_basic(index):
            out[index] += g.data
        else:
            np.add.at(out, index, g.data)
        return out

    @staticmethod
    def backward(ctx, grad):
        return GetItem.apply(grad, index=ctx.index)


def assign(x, index, value):
    """x.data[index] = value (an array or number) for `x[index] = value`, with errors that
    name the op, the index and the shapes, where NumPy's name none."""
    try:
        x.data[index] = value
    except IndexError as e:
        raise IndexError(
            f"setitem: index {_describe(index)} is out of range for a tensor of shape {x.shape}: {e}"
        ) from None
    except (ValueError, TypeError):
        target = np.shape(x.data[index])
        try:
            np.broadcast_shapes(np.shape(value), target)
        except ValueError:
            raise RuntimeError(
                f"setitem: the value's shape {np.shape(value)} cannot be broadcast to the indexed shape {target} "
                f"(x[{_describe(index)[1:-1]}] of a tensor of shape {x.shape})"
            ) from None
        raise TypeError(
            f"setitem: cannot assign {type(value).__name__} {value!r:.40} to a tensor of dtype {x.dtype}"
        ) from None


def _describe(index):
    parts = index if isinstance(index, tuple) else (index,)
    return "[" + ", ".join(f"array{p.shape}" if isinstance(p, np.ndarray) else repr(p) for p in parts) + "]"
