"""Order statistics: the values that sorting would put at a given place: `kthvalue`,
`median`, `nanmedian`, `quantile`, `nanquantile`, and the most frequent value, `mode`.

Each picks elements of the input (or, for a quantile between two places, mixes two of
them), so each is the input *gathered* at indices found by sorting, and `Gather`'s
backward sends the gradient to the elements picked. A quantile between the k-th and the
(k+1)-th smallest values is v_k + w (v_k+1 - v_k), with w = rank - k fixed by q: each
of the two gets its share, (1 - w) and w.

Sorting here is stable and puts NaN last. Where equal values tie for a place, the index
`kthvalue` and `median` return is not specified by PyTorch (its C++ partial sort leaves
it to chance), and minigrad returns the first one in sorted order; `mode` follows
PyTorch's rule, the smallest of the most frequent values at its last position.
"""

import numpy as np

from minigrad._args import normalize_dim
from minigrad.array_module import array_module, to_host
from minigrad.autograd.function import Function
from minigrad.creation import as_tensor, from_numpy
from minigrad.ops.index import Gather
from minigrad.ops.reduce import ValuesIndices
from minigrad.ops.sort import sort_indices
from minigrad.tensor import Tensor


def _lanes(input, dim, op):
    """(x, dim) with a 0-d input seen as one element along dim 0."""
    x = as_tensor(input)
    d = normalize_dim(dim, x.ndim, op)
    return (x.reshape(1), 0) if x.ndim == 0 else (x, d)


def _pick(x, d, positions, keepdim, shape_of):
    """(values, indices): x gathered along d at `positions` (one per lane, keepdim shape)."""
    values = Gather.apply(x, dim=d, index=positions)
    indices = from_numpy(positions)
    if not keepdim:
        values, indices = values.squeeze(d), indices.squeeze(d)
    if shape_of.ndim == 0:
        values, indices = values.reshape(()), indices.reshape(())
    return ValuesIndices(values, indices)


def _sorted_position(x, d, rank):
    """The input index of the element at sorted position `rank` (an int, or an array of
    one rank per lane) along d, in keepdim shape."""
    order = sort_indices(x.array, d, descending=False)
    shape = order.shape[:d] + (1,) + order.shape[d + 1 :]
    if isinstance(rank, int):  # filled where order lives: no copy of the number to a GPU
        rank = array_module(order).full(shape, rank, dtype=np.int64)
    rank = np.broadcast_to(rank.astype(np.int64, copy=False), shape)
    return np.take_along_axis(order, rank, axis=d)


def kthvalue(input, k, dim=-1, keepdim=False):
    """(values, indices): the k-th smallest element along `dim` (k = 1 is the smallest) and
    where it is. Its gradient goes to that element."""
    x, d = _lanes(input, dim, "kthvalue")
    if not 1 <= k <= x.shape[d]:
        raise RuntimeError(
            f"kthvalue(): selected number k out of range for dimension {d} (k = {k}, size "
            f"{x.shape[d]})"
        )
    return _pick(x, d, _sorted_position(x, d, k - 1), keepdim, as_tensor(input))


def _median_rank(x, d, ignore_nan):
    """The sorted position of the lower median of each lane, in keepdim shape: (n - 1) // 2
    of the n elements, or of the non-NaN ones; a lane with a NaN has a NaN median (the
    first NaN's place, NaN sorting last), unless NaNs are ignored."""
    if x.dtype.kind != "f":
        return (x.shape[d] - 1) // 2
    nan = np.isnan(x.array)
    count = (~nan).sum(axis=d, keepdims=True)
    if ignore_nan:
        return np.maximum((count - 1) // 2, 0)
    return np.where(nan.any(axis=d, keepdims=True), count, (x.shape[d] - 1) // 2)


class SharedPick(Function):
    """y = one element of x, picked (the median of all elements); dL/dx = dL/dy shared
    evenly by the m elements equal to y (dL/dy / m each), as PyTorch shares it."""

    @staticmethod
    def forward(ctx, x, position, same):
        ctx.share = same / same.sum()
        return x.array.reshape(-1)[position].copy()

    @staticmethod
    def backward(ctx, grad):
        return grad * from_numpy(ctx.share.astype(grad.dtype))


def _median(op, input, dim, keepdim, ignore_nan):
    x0 = as_tensor(input)
    if dim is None:
        flat = x0.reshape(-1)
        if flat.shape[0] == 0:
            return from_numpy(array_module(x0.array).full((), np.nan, dtype=x0.dtype))
        # position stays an array (a 0-d one on a GPU): reading it as an int would copy it
        position = _sorted_position(flat, 0, _median_rank(flat, 0, ignore_nan))[0]
        v = x0.array.reshape(-1)[position]
        same = x0.array == v
        if x0.dtype.kind == "f":  # a NaN median is shared by the NaNs
            same = same | (np.isnan(x0.array) & np.isnan(v))
        return SharedPick.apply(x0, position=position, same=same)
    x, d = _lanes(x0, dim, op)
    if x.shape[d] == 0:
        raise IndexError(f"{op}(): Expected reduction dim {d} to have non-zero size.")
    return _pick(x, d, _sorted_position(x, d, _median_rank(x, d, ignore_nan)), keepdim, x0)


def median(input, dim=None, keepdim=False):
    """The median of the elements: the lower of the two middle values for an even count
    (no average), NaN if there is a NaN. Without `dim`, one value, whose gradient the
    elements equal to it share; with `dim`, (values, indices) along it, the gradient going
    to the index."""
    return _median("median", input, dim, keepdim, ignore_nan=False)


def nanmedian(input, dim=None, keepdim=False):
    """`median` of the non-NaN elements (NaN only where all are NaN)."""
    return _median("nanmedian", input, dim, keepdim, ignore_nan=True)


def mode(input, dim=-1, keepdim=False):
    """(values, indices): the most frequent value along `dim` (the smallest of them on a
    tie) and its last position, as PyTorch's. Its gradient goes to that element."""
    x, d = _lanes(input, dim, "mode")
    # counted lane by lane on the host: on a GPU the values are copied there, and the
    # positions back
    lanes = np.moveaxis(to_host(x.array), d, -1)
    flat = lanes.reshape(-1, lanes.shape[-1])
    where = np.zeros(flat.shape[0], dtype=np.int64)
    for i, lane in enumerate(flat):
        values, counts = np.unique(lane, return_counts=True)
        # np.unique sorts: the first of the most frequent is the smallest
        winner = values[np.argmax(counts)]
        where[i] = np.flatnonzero(lane == winner)[-1]
    positions = np.expand_dims(where.reshape(lanes.shape[:-1]), d)
    if type(x.array) is not np.ndarray:
        positions = array_module(x.array).asarray(positions)
    return _pick(x, d, positions, keepdim, as_tensor(input))


# ---- quantiles ----------------------------------------------------------------------------
INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(op, input, q, dim, keepdim, interpolation, ignore_nan):
    x0 = as_tensor(input)
    if x0.dtype.kind != "f":
        raise RuntimeError(
            f"{op}() input tensor must be either float or double dtype, got {x0.dtype}"
        )
    if interpolation not in INTERPOLATIONS:
        raise RuntimeError(
            f"{op}() interpolation must be one of linear, lower, higher, midpoint or nearest. Got "
            f"{interpolation}"
        )
    scalar_q = not isinstance(q, Tensor) or q.ndim == 0
    # q is checked on the host: a GPU's q tensor is copied there (torch reads it too)
    qs = np.atleast_1d(np.asarray(to_host(q.array) if isinstance(q, Tensor) else q, dtype=float))
    if isinstance(q, Tensor) and q.dtype != x0.dtype:
        raise RuntimeError(
            f"{op}() q tensor must be same dtype as the input tensor, got {q.dtype} and {x0.dtype}"
        )
    if qs.ndim > 1:
        raise RuntimeError(f"{op}() q must be a scalar or 1D tensor, got shape {qs.shape}")
    if ((qs < 0) | (qs > 1)).any():
        raise RuntimeError(
            f"{op}() q must be in the range [0, 1] but got {qs[(qs < 0) | (qs > 1)][0]}"
        )
    if dim is None:
        x, d = x0.reshape(-1), 0
    else:
        x, d = _lanes(x0, dim, op)
    n = x.shape[d]
    if n == 0:
        raise IndexError(f"{op}() input tensor must be non-empty")
    xp = array_module(x.array)
    if isinstance(q, Tensor):  # q's own array, on x's device
        qs = q.array.reshape(-1).astype(np.float64)
    elif xp is not np:  # numbers: filled on the GPU, or copied over when there are several
        qs = xp.full(1, qs[0]) if qs.size == 1 else xp.asarray(qs)
    # the sorted values, lanes last: (..., n)
    order = sort_indices(x.array, d, descending=False)
    ordered = Gather.apply(x, dim=d, index=order).movedim(d, -1)
    nan = np.isnan(np.moveaxis(x.array, d, -1))
    if ignore_nan:  # rank among the non-NaN values (rank 0, a NaN, where all are NaN)
        last = (~nan).sum(axis=-1, keepdims=True) - 1
        ranks = np.maximum(qs.astype(x.dtype) * last.astype(x.dtype), 0)
    else:  # a lane with a NaN gets the last place, a NaN
        ranks = qs.astype(x.dtype) * x.dtype.type(n - 1)  # in the input's dtype, as torch
        ranks = np.where(nan.any(axis=-1, keepdims=True), n - 1, ranks)
    ranks = np.broadcast_to(ranks, ordered.shape[:-1] + (len(qs),)).astype(x.dtype)
    if interpolation == "lower":
        ranks = np.floor(ranks)
    elif interpolation == "higher":
        ranks = np.ceil(ranks)
    elif interpolation == "nearest":
        ranks = np.round(ranks)  # halves to even, as torch's round
    below = ranks.astype(np.int64)
    values = Gather.apply(ordered, dim=ordered.ndim - 1, index=below)
    if interpolation in ("linear", "midpoint"):
        above = np.ceil(ranks).astype(np.int64)
        weight = xp.full(ranks.shape, 0.5) if interpolation == "midpoint" else ranks - below
        upper = Gather.apply(ordered, dim=ordered.ndim - 1, index=above)
        values = values + (upper - values) * from_numpy(weight.astype(x.dtype))
    values = values.movedim(-1, 0)  # (len(q), ...lanes)
    if keepdim:
        kept = (
            (1,) * x0.ndim
            if dim is None
            else values.shape[1 : d + 1] + (1,) + values.shape[d + 1 :]
        )
        values = values.reshape((len(qs),) + kept)
    if scalar_q:
        values = values.squeeze(0)
    return values


def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """The q-th quantiles (q in [0, 1], a number or a 1-D tensor of them) of the elements
    along `dim` (of all of them if None): with the values sorted, the one at rank
    q * (n - 1), interpolated between the two nearest ranks by `interpolation`: 'linear',
    'lower', 'higher', 'midpoint' or 'nearest' (halves to even). A tensor q puts its dim
    first in the result. NaN where a lane holds a NaN."""
    return _quantile("quantile", input, q, dim, keepdim, interpolation, ignore_nan=False)


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """`quantile` of the non-NaN elements of each lane (NaN where all are NaN)."""
    return _quantile("nanquantile", input, q, dim, keepdim, interpolation, ignore_nan=True)
