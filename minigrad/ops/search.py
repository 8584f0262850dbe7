"""Searching and counting: where values fall among sorted boundaries (`searchsorted`,
`bucketize`), how often values occur (`bincount`, `histc`, `histogram`), and how many are
non-zero (`count_nonzero`).

The answers are positions and counts, piecewise constant in the values, so they carry no
gradient; the one exception is `bincount` with `weights`, a sum of the weights in each
bin, whose gradient is each bin's gradient read back at the weight's bin (a scatter-add,
and the gather that undoes it).
"""

from collections import namedtuple

import numpy as np

from minigrad import dtypes
from minigrad._args import normalize_dims
from minigrad.array_module import array_module, scatter_add
from minigrad.creation import as_tensor, from_numpy
from minigrad.ops.index import ScatterAdd
from minigrad.ops.out import write_out
from minigrad.tensor import Tensor

histogram_result = namedtuple("histogram", ["hist", "bin_edges"])
histogram_result.__doc__ = (
    "(hist, bin_edges): what `histogram` returns, as torch.return_types.histogram."
)


# ---- where values fall among sorted boundaries ------------------------------------------------
def _side(right, side):
    if side is not None and side not in ("left", "right"):
        raise RuntimeError(
            f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}"
        )
    if side == "left" and right:
        raise RuntimeError(
            "torch.searchsorted(): side and right can't be set to opposites, got side of left "
            "while right was True"
        )
    return "right" if right or side == "right" else "left"


def searchsorted(
    sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None, out=None
):
    """For each value of `input`, the index at which it would be inserted into
    `sorted_sequence` to keep it sorted: the first such place (`side='left'`), or the last
    (`right=True` or `side='right'`). A sorted_sequence with more than one dim searches
    each of its last-dim rows with the matching row of `input` (the leading dims must
    match). `sorter` holds the indices that sort an unsorted sequence (its argsort).
    int64 results (int32 with `out_int32`); NaN sorts last, as in torch.sort."""
    seq = as_tensor(sorted_sequence)
    scalar = not isinstance(input, Tensor)
    values = as_tensor(input)
    side = _side(right, side)
    boundaries = seq.array
    if sorter is not None:
        boundaries = np.take_along_axis(boundaries, as_tensor(sorter).array, axis=-1)
    if seq.ndim <= 1:
        found = np.searchsorted(boundaries.reshape(-1), values.array, side=side)
    else:
        if scalar or values.shape[:-1] != seq.shape[:-1]:
            raise RuntimeError(
                "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                "dimensions of boundaries tensor and input value tensor must match, but we got "
                f"boundaries tensor {list(seq.shape)} and input value tensor {list(values.shape)}"
            )
        rows = boundaries.reshape(-1, seq.shape[-1])
        wanted = values.array.reshape(rows.shape[0], -1)
        found = np.stack([np.searchsorted(r, w, side=side) for r, w in zip(rows, wanted)]).reshape(
            values.shape
        )
    result = from_numpy(found.astype(np.int32 if out_int32 else np.int64))
    return result if out is None else write_out(out, result, "searchsorted")


def bucketize(input, boundaries, *, out_int32=False, right=False, out=None):
    """The bucket of each value of `input` among the sorted 1-D `boundaries`: i such that
    boundaries[i-1] < x <= boundaries[i] (with `right=True`, boundaries[i-1] <= x <
    boundaries[i]); 0 below the first boundary, len(boundaries) above the last. This is
    `searchsorted(boundaries, input, right=right)` with the arguments the other way."""
    b = as_tensor(boundaries)
    if b.ndim != 1:
        raise RuntimeError(
            f"bucketize: boundaries tensor must be 1 dimension, but got dim({b.ndim})"
        )
    return searchsorted(b, input, out_int32=out_int32, right=right, out=out)


# ---- how often values occur ------------------------------------------------------------------
def bincount(input, weights=None, minlength=0):
    """How many times each value 0, 1, ..., max(input) occurs in the 1-D non-negative
    integer `input` (at least `minlength` bins). With `weights` (one per element), the sum
    of the weights in each bin instead: float weights keep their dtype, others give
    float64. Differentiable in the weights: dL/dweight_i = dL/dbin[input_i]."""
    x = as_tensor(input)
    if x.dtype.kind not in "iu":
        raise NotImplementedError(
            f'"bincount" is not implemented for {x.dtype}: input must be an integer tensor'
        )
    # the largest value sizes the result, so it is read on the host (on a GPU too, as in torch)
    if x.ndim != 1 or (x.numel() and x.array.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError(f"bincount: minlength should be >= 0, got {minlength}")
    length = max(int(x.array.max()) + 1 if x.numel() else 0, minlength)
    if weights is None:
        return from_numpy(np.bincount(x.array, minlength=length).astype(np.int64))
    w = as_tensor(weights)
    if w.shape != x.shape:
        raise RuntimeError(
            "bincount: weights should be 1-d and have the same length as input, got "
            f"{tuple(w.shape)}"
        )
    if w.dtype.kind != "f":
        w = w.to(dtypes.float64)
    bins = from_numpy(array_module(w.array).zeros(length, dtype=w.dtype))
    return ScatterAdd.apply(bins, w, dim=0, index=x.array.astype(np.int64))


def _float_input(op, input):
    x = as_tensor(input)
    if x.dtype.kind != "f":
        raise NotImplementedError(
            f'"{op}" is not implemented for {x.dtype}: input must be floating point'
        )
    return x


def histc(input, bins=100, min=0, max=0):  # noqa: A002  (torch's argument names)
    """The histogram of `input`'s elements in `bins` equal bins between `min` and `max`
    (with both 0, the elements' own min and max); elements outside are not counted, and
    one equal to `max` goes into the last bin. Same dtype as input; no gradient."""
    x = _float_input("histc", input)
    if bins <= 0:
        raise RuntimeError(f"histc: bins must be > 0, but got {bins}")
    low, high = float(min), float(max)
    if low == high and x.numel():  # the data's range: read on the host (on a GPU too, as in torch)
        low, high = float(x.array.min()), float(x.array.max())
    if low == high:  # one value (or no data): a range of width 2 around it, as torch
        low, high = low - 1, high + 1
    if low > high:
        raise RuntimeError(f"histc: max must be larger than min, got min {min} and max {max}")
    counts, _ = np.histogram(x.array, bins=bins, range=(low, high))
    return from_numpy(counts.astype(x.dtype))


def bin_counts(values, edges, weights=None, density=False):
    """np.histogram of `values` in the bins between increasing `edges`, on either device:
    each value finds its bin by a binary search in the edges (a bin holds [edge_i,
    edge_i+1), the last one its right end too; values outside, and NaN, fall in none) and
    its weight (1 by default) is added there. CuPy's histogram would first check on the
    GPU that the edges increase, and wait for the answer."""
    xp = array_module(values)
    v, n = values.reshape(-1), edges.size - 1
    which = xp.searchsorted(edges, v, side="right") - 1
    which = xp.where(v == edges[-1], n - 1, which)  # the last edge closes the last bin
    inside = (which >= 0) & (which < n)
    w = xp.ones(v.shape) if weights is None else weights.reshape(-1).astype(np.float64)
    hist = xp.zeros(n)
    scatter_add(hist, xp.where(inside, which, 0), xp.where(inside, w, 0.0))
    if density:
        hist = hist / hist.sum() / np.diff(edges)
    return hist


# `input` and `range` shadow builtins: they are torch's argument names
def histogram(input, bins=100, *, range=None, weight=None, density=False):
    """(hist, bin_edges): the histogram of `input`'s elements, in `bins` (100) equal bins over
    `range` (the elements' min and max by default), or in the bins a 1-D tensor of
    increasing edges gives. Each bin counts [edge_i, edge_i+1), the last one both ends.
    `weight` adds a weight per element instead of 1; `density=True` divides by the total
    and the bin widths, so the histogram integrates to 1. No gradient."""
    x = _float_input("histogram", input)
    w = None if weight is None else as_tensor(weight).array
    if isinstance(bins, Tensor):
        edges = bins.array
    else:
        if range is None:
            low, high = (float(x.array.min()), float(x.array.max())) if x.numel() else (0.0, 0.0)
        else:
            low, high = float(range[0]), float(range[1])
        if low == high:
            low, high = low - 0.5, high + 0.5  # NumPy's (and torch's) range around one value
        edges = array_module(x.array).linspace(low, high, int(bins) + 1).astype(x.dtype)
    hist = bin_counts(x.array, edges.astype(np.float64), w, density)
    return histogram_result(from_numpy(hist.astype(x.dtype)), from_numpy(edges.astype(x.dtype)))


def count_nonzero(input, dim=None):
    """The number of non-zero elements over `dim` (an int or a tuple; all by default), int64."""
    x = as_tensor(input)
    axes = normalize_dims(dim, x.ndim, "count_nonzero")
    count = np.count_nonzero(x.array, axis=axes)  # a Python int when axes is None
    return from_numpy(array_module(x.array).asarray(count, dtype=np.int64))


histogramdd_result = namedtuple("histogramdd", ["hist", "bin_edges"])
histogramdd_result.__doc__ = (
    "(hist, bin_edges): what `histogramdd` returns, as torch.return_types.histogramdd."
)


def histogramdd(input, bins, *, range=None, weight=None, density=False):
    """(hist, bin_edges): the D-dimensional histogram of the points in the rows of `input`
    (..., D): `bins` is one count for every dim, a count per dim, or a 1-D tensor of edges
    per dim; `range` is [min_0, max_0, min_1, max_1, ...] (the points' own by default). As
    `histogram`, per dim: each bin counts [edge_i, edge_i+1), the last one both ends."""
    x = _float_input("histogramdd", input)
    points = x.array.reshape(-1, x.shape[-1])
    dims = points.shape[1]
    per_dim = list(bins) if isinstance(bins, (list, tuple)) else [bins] * dims
    if len(per_dim) != dims:
        raise RuntimeError(
            f"histogramdd: expected {dims} sequences of bin edges or counts, got {len(per_dim)}"
        )
    edges = []
    for d, b in enumerate(per_dim):
        if isinstance(b, Tensor):
            edges.append(b.array)
            continue
        if range is not None:
            low, high = float(range[2 * d]), float(range[2 * d + 1])
        else:
            low, high = (
                (float(points[:, d].min()), float(points[:, d].max()))
                if points.size
                else (0.0, 0.0)
            )
        if low == high:
            low, high = low - 0.5, high + 0.5
        edges.append(array_module(points).linspace(low, high, int(b) + 1).astype(x.dtype))
    w = None if weight is None else as_tensor(weight).array.reshape(-1)
    hist, _ = np.histogramdd(
        points, bins=[e.astype(np.float64) for e in edges], weights=w, density=density
    )
    edges = tuple(from_numpy(e.astype(x.dtype)) for e in edges)
    return histogramdd_result(from_numpy(hist.astype(x.dtype)), edges)
