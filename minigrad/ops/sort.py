"""Ordering: sort, argsort, topk and unique.

Sorting finds a permutation (the `indices`); the sorted values are then just the input
*gathered* at those indices, `values = x.gather(dim, indices)`. So the gradient needs no
new Function: `Gather`'s backward sends each value's gradient back to the position it
came from. The permutation itself is piecewise constant and has no gradient, and
`unique` (which merges elements) has none either, as in PyTorch.

NaN sorts as the largest value (last ascending, first descending), as in PyTorch.
"""

import numpy as np

from minigrad._args import normalize_dim
from minigrad.array_module import array_module
from minigrad.creation import as_tensor, from_numpy
from minigrad.ops.index import Gather
from minigrad.ops.out import write_out
from minigrad.ops.reduce import ValuesIndices


def sort_indices(array, axis, descending):
    """The stable sorting permutation of `array` along `axis` (int64).

    Descending order is found as an ascending sort of the array reversed along `axis`,
    read backwards: that keeps equal elements in their original order (stable) and
    puts NaN first, where sorting `-array` would put it last.
    """
    if not descending:
        return np.argsort(array, axis=axis, kind="stable").astype(np.int64)
    n = array.shape[axis]
    reversed_order = np.argsort(np.flip(array, axis), axis=axis, kind="stable")
    return (n - 1 - np.flip(reversed_order, axis)).astype(np.int64)


def _sorted(x, dim, descending, op):
    """(values, indices) of `x` sorted along `dim`; a 0-d tensor is its own sort."""
    if x.ndim == 0:
        return ValuesIndices(x.clone(), from_numpy(array_module(x.array).zeros((), np.int64)))
    d = normalize_dim(dim, x.ndim, op)
    indices = sort_indices(x.array, d, descending)
    return ValuesIndices(Gather.apply(x, dim=d, index=indices), from_numpy(indices))


def sort(input, dim=-1, descending=False, *, stable=False, out=None):
    """(values, indices): `input` sorted along `dim`, and where each value came from.
    The sort is always stable (equal elements keep their order), which also satisfies
    `stable=False`. Gradient: each value's gradient goes back to its position."""
    result = _sorted(as_tensor(input), dim, descending, "sort")
    return result if out is None else write_out(out, result, "sort")


def argsort(input, dim=-1, descending=False, *, stable=False):
    """The indices that sort `input` along `dim` (`sort(...).indices`)."""
    x = as_tensor(input)
    if x.ndim == 0:
        return from_numpy(array_module(x.array).zeros((), np.int64))
    return from_numpy(sort_indices(x.array, normalize_dim(dim, x.ndim, "argsort"), descending))


def msort(input, *, out=None):
    """`input` sorted along dim 0 (values only)."""
    result = _sorted(as_tensor(input), 0, False, "msort").values
    return result if out is None else write_out(out, result, "msort")


def topk(input, k, dim=None, largest=True, sorted=True, *, out=None):
    """(values, indices) of the `k` largest (or, with largest=False, smallest) elements
    along `dim` (default: the last). They always come sorted, which also satisfies
    `sorted=False`. Gradient: each value's gradient goes back to its position, the
    other elements get 0."""
    x = as_tensor(input)
    d = normalize_dim(-1 if dim is None else dim, x.ndim, "topk")
    size = x.shape[d] if x.ndim else 1
    if not isinstance(k, (int, np.integer)) or isinstance(k, bool):
        raise TypeError(f"topk: k must be an int, got {type(k).__name__}")
    if not 0 <= k <= size:
        raise RuntimeError(
            f"topk: selected index k out of range: k={k} but dim {d} has size {size} (shape "
            f"{x.shape})"
        )
    if x.ndim == 0:
        result = _sorted(x, 0, largest, "topk")
    else:
        order = sort_indices(x.array, d, descending=largest)
        indices = order[(slice(None),) * d + (slice(0, k),)].copy()
        result = ValuesIndices(Gather.apply(x, dim=d, index=indices), from_numpy(indices))
    return result if out is None else write_out(out, result, "topk")


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct elements of `input` (of its slices along `dim`), in ascending order
    (also for sorted=False); with `return_inverse`, where each element went in the
    output; with `return_counts`, how often each one occurs. NaNs are all distinct, as
    in PyTorch. Returns a tensor, or a tuple when either flag is set."""
    x = as_tensor(input)
    if dim is None:
        values, inverse, counts = np.unique(
            x.array.reshape(-1), return_inverse=True, return_counts=True, equal_nan=False
        )
        inverse = inverse.reshape(x.shape)
    else:
        d = normalize_dim(dim, x.ndim, "unique")
        if x.ndim == 0:
            raise IndexError(f"unique: dim {dim} is out of range for a 0-d tensor")
        values, inverse, counts = np.unique(
            x.array, return_inverse=True, return_counts=True, axis=d, equal_nan=False
        )
        inverse = inverse.reshape(-1)
    output = from_numpy(values)
    extras = []
    if return_inverse:
        extras.append(from_numpy(inverse.astype(np.int64)))
    if return_counts:
        extras.append(from_numpy(counts.astype(np.int64)))
    return (output, *extras) if extras else output


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """`input` with each run of equal consecutive elements (of slices along `dim`)
    squeezed to one, in order: [1, 1, 2, 2, 3, 1] gives [1, 2, 3, 1] (`unique` would merge
    the two 1s). With `return_inverse`, the run each element belongs to; with
    `return_counts`, each run's length. A tensor, or a tuple when either flag is set."""
    x = as_tensor(input)
    xp = array_module(x.array)
    first = xp.ones(1, dtype=bool)  # the first element starts a run
    if dim is None:
        flat = x.array.reshape(-1)
        changed = flat[1:] != flat[:-1]
        starts = np.concatenate([first, changed]) if flat.size else xp.zeros(0, dtype=bool)
        output, inverse_shape = flat[starts], x.shape
    else:
        if x.ndim == 0:
            raise IndexError(f"unique_consecutive: dim {dim} is out of range for a 0-d tensor")
        d = normalize_dim(dim, x.ndim, "unique_consecutive")
        moved = np.moveaxis(x.array, d, 0).reshape(x.shape[d], -1)
        changed = (moved[1:] != moved[:-1]).any(axis=1)
        starts = np.concatenate([first, changed]) if x.shape[d] else xp.zeros(0, dtype=bool)
        output, inverse_shape = np.compress(starts, x.array, axis=d), (x.shape[d],)
    extras = []
    if return_inverse:
        extras.append(from_numpy((np.cumsum(starts) - 1).astype(np.int64).reshape(inverse_shape)))
    if return_counts:
        edges = np.flatnonzero(np.concatenate([starts, first]))  # the run starts, and the end
        extras.append(from_numpy(np.diff(edges).astype(np.int64)))
    output = from_numpy(xp.ascontiguousarray(output))
    return (output, *extras) if extras else output
