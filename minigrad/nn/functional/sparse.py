"""Lookups by integer index: F.embedding, F.embedding_bag and F.one_hot.

Both take class or token ids (int64) and check them here, where an out-of-range id
can still be named; neither needs a Function of its own. embedding is indexing (its
gradient a scatter-add into the rows read), one_hot makes a constant.
"""

import numpy as np

from minigrad.array_module import array_module
from minigrad.autograd.grad_mode import no_grad
from minigrad.creation import as_tensor, from_numpy, zeros
from minigrad.ops.elementwise import where
from minigrad.ops.index import scatter_add


def embedding(input, weight, padding_idx=None):
    """Row lookup: out[i, ...] = weight[input[i, ...]] for integer indices `input`.

    The gradient of a lookup is a scatter-add: each output row's gradient is added to
    the weight row it was read from (twice if that index occurs twice). The padding_idx
    row is the exception: it is read like any other but its gradient is always zero,
    because the positions that hold padding_idx read a detached copy of their row.
    """
    op = "embedding"
    input = as_tensor(input)
    if input.dtype not in (np.int64, np.int32):  # as torch: not uint8, bool or floats
        raise RuntimeError(f"{op}: expected indices of dtype int64 or int32, but got {input.dtype}")
    if weight.ndim != 2:
        raise ValueError(
            f"{op}: weight must be 2-D (num_embeddings, embedding_dim), got shape {weight.shape}"
        )
    n = weight.shape[0]
    # checked on the CPU; on a GPU the check would copy to the host at every step, and an
    # index out of range reads the row it wraps around to (CuPy's rule for indexing)
    on_cpu = array_module(input.array) is np
    if on_cpu and input.array.size and (input.array.min() < 0 or input.array.max() >= n):
        bad = input.array[(input.array < 0) | (input.array >= n)].reshape(-1)[0]
        raise IndexError(
            f"{op}: index {int(bad)} is out of range for a weight with {n} rows (shape "
            f"{weight.shape}); indices must be in [0, {n - 1}]"
        )
    rows = weight[input.array]
    if padding_idx is not None:
        padding_idx = normalize_padding_idx(padding_idx, n, op)
        is_padding = input.array == padding_idx
        if weight.requires_grad and (not on_cpu or is_padding.any()):  # on a GPU: no asking
            rows = where(from_numpy(~is_padding[..., None]), rows, rows.detach())
    return rows


def normalize_padding_idx(padding_idx, num_embeddings, op):
    """A negative padding_idx counts from the end, as a negative list index."""
    if not -num_embeddings <= padding_idx < num_embeddings:
        raise ValueError(
            f"{op}: padding_idx {padding_idx} must be within num_embeddings {num_embeddings}"
        )
    return padding_idx % num_embeddings


def one_hot(tensor, num_classes=-1):
    """Class indices (any shape, int64) to a one-hot int64 tensor with a new last dim."""
    if tensor.dtype.kind not in "iu":
        raise TypeError(f"one_hot: expects an integer tensor of class indices, got {tensor.dtype}")
    data = tensor.array
    xp = array_module(data)
    # The checks read values on the host: on a GPU that is a copy, made only when the
    # number of classes must be found (the result's shape needs it, as in torch)
    if xp is np or num_classes == -1:
        if data.size and data.min() < 0:
            raise RuntimeError(f"one_hot: class values must be non-negative, got {int(data.min())}")
        if num_classes == -1:
            num_classes = int(data.max()) + 1 if data.size else 0
        elif data.size and data.max() >= num_classes:
            bad, n = int(data.max()), num_classes
            raise RuntimeError(f"one_hot: class value {bad} is out of range for num_classes={n}")
    return from_numpy((data[..., None] == xp.arange(num_classes)).astype(np.int64))


# --8<-- [start:embedding_bag]
def embedding_bag(
    input,
    weight,
    offsets=None,
    max_norm=None,
    norm_type=2,
    scale_grad_by_freq=False,
    mode="mean",
    sparse=False,
    per_sample_weights=None,
    include_last_offset=False,
    padding_idx=None,
):
    """The sum, mean or max of bags of embeddings, without forming the (bags, length, dim)
    lookup of F.embedding first: out[b] = reduce over the ids t of bag b of weight[t].

    Bags: the rows of a 2-D `input` (B, length), or the slices of a 1-D `input` that start
    at `offsets` (B,) (with include_last_offset=True, offsets has B + 1 entries; as in
    torch, the last bag still runs to the end of `input`). mode='sum' weighs each id by
    `per_sample_weights` (input's shape) if given; 'mean' divides by the bag's size; 'max'
    takes each dim's largest value (the first of equal ones). Ids equal to padding_idx are
    left out (of the size too), and an empty bag gives zeros. max_norm renormalizes, in
    place, each looked-up row whose norm_type-norm exceeds it; scale_grad_by_freq divides
    each row's gradient by how often
    its id occurs in `input`.

    Gradients: sum and mean scatter-add g[b] (times the sample's weight, or / size) into
    the rows of bag b, through indexing and scatter_add's backward; max routes g[b, d] to
    the winning row's element d alone. dL/dper_sample_weights[t] = g[bag of t] . weight[t].
    """
    op = "embedding_bag"
    if per_sample_weights is not None and tuple(per_sample_weights.shape) != tuple(input.shape):
        raise ValueError(
            f"{op}: If per_sample_weights ({tuple(per_sample_weights.shape)}) is not None, then it "
            f"must have the same shape as the input ({tuple(input.shape)})"
        )
    if weight.ndim != 2:
        raise ValueError(
            f"{op}: weight has to be a 2D Tensor, but got Tensor of dimension {weight.ndim}"
        )
    ids = as_tensor(input).array
    if ids.ndim == 2:
        if offsets is not None:
            raise ValueError(
                f"{op}: if input is 2D, then offsets has to be None, as input is treated is a "
                "mini-batch of fixed length sequences. However, found offsets of type "
                f"{type(offsets)}"
            )
        starts, include_last_offset = np.arange(0, ids.size, ids.shape[1]), False
        ids = ids.reshape(-1)
    elif ids.ndim == 1:
        if offsets is None:
            raise ValueError(f"{op}: offsets has to be a 1D Tensor but got None")
        starts = as_tensor(offsets).array
        if starts.ndim != 1:
            raise ValueError(f"{op}: offsets has to be a 1D Tensor, got shape {starts.shape}")
    else:
        raise ValueError(
            f"{op}: input has to be 1D or 2D Tensor, but got Tensor of dimension {ids.ndim}"
        )
    if mode not in ("sum", "mean", "max"):
        raise ValueError(f"{op}: mode has to be one of sum, mean or max, got {mode!r}")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError(f"{op}: max mode does not support scaling the gradient by the frequency")
    if sparse:
        raise ValueError(
            f"{op}: sparse=True (a sparse weight gradient) is not supported: minigrad's are dense"
        )
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            f"{op}: per_sample_weights was not None. per_sample_weights is only supported for "
            f"mode='sum' (got mode='{mode}')."
        )
    num_embeddings, dim = weight.shape
    if ids.size and (ids.min() < 0 or ids.max() >= num_embeddings):
        bad = ids[(ids < 0) | (ids >= num_embeddings)][0]
        raise IndexError(
            f"{op}: index {int(bad)} is out of range for a weight with {num_embeddings} rows"
        )
    # one offset more than bags; as torch, the last bag still runs to the end
    if include_last_offset:
        starts = starts[:-1]
    ends = np.append(starts[1:], ids.size)
    if len(starts) and (starts[0] != 0 or np.any(ends < starts) or ends[-1] > ids.size):
        raise ValueError(
            f"{op}: offsets must start at 0 and not decrease, up to the input's length, got "
            f"{starts}"
        )
    bags = len(starts)
    # each id's bag: the number of bag starts at or before its position, minus one
    bag_of = np.searchsorted(ends, np.arange(ids.size), side="right")
    kept = (
        np.ones(ids.size, dtype=bool)
        if padding_idx is None
        else ids != normalize_padding_idx(padding_idx, num_embeddings, op)
    )
    if max_norm is not None:
        _renorm_rows(weight, np.unique(ids), max_norm, norm_type)
    if mode == "max":
        return _bag_max(weight, ids, bag_of, kept, bags)
    rows = weight[ids]  # (T, dim), its gradient a scatter-add into weight
    if scale_grad_by_freq and weight.requires_grad:
        counts = np.bincount(ids, minlength=num_embeddings)[ids].astype(weight.dtype)
        rows.register_hook(lambda g: g / from_numpy(counts[:, None]))
    values = rows * from_numpy(kept[:, None].astype(weight.dtype))
    if per_sample_weights is not None:
        values = values * per_sample_weights.reshape(-1, 1)
    index = np.broadcast_to(bag_of[:, None], (ids.size, dim))
    out = scatter_add(zeros(bags, dim, dtype=weight.dtype), 0, index, values)
    if mode == "mean":
        sizes = np.bincount(bag_of[kept], minlength=bags)[:bags].astype(weight.dtype)
        out = out / from_numpy(np.maximum(sizes, 1)[:, None])  # an empty bag stays 0
    return out


def _bag_max(weight, ids, bag_of, kept, bags):
    """out[b, d] = max over the kept ids t of bag b of weight[t, d] (0 for an empty bag):
    the winner of each (bag, dim) found here, then read by indexing, whose gradient goes
    to that element alone."""
    dim = weight.shape[1]
    winners = np.zeros((bags, dim), dtype=np.int64)
    found = np.zeros(bags, dtype=bool)
    for b in range(bags):
        members = ids[(bag_of == b) & kept]
        if members.size:
            winners[b] = members[np.argmax(weight.array[members], axis=0)]
            found[b] = True
    picked = weight[winners, np.arange(dim)]  # (bags, dim)
    return where(from_numpy(found[:, None]), picked, 0.0)


def _renorm_rows(weight, ids, max_norm, norm_type):
    """weight[t] *= max_norm / (norm + 1e-7) for each looked-up row t whose norm exceeds
    max_norm, in place and outside the graph (torch's embedding_renorm_)."""
    norms = np.linalg.norm(weight.array[ids], ord=norm_type, axis=1)
    scale = np.ones(weight.shape[0], dtype=weight.dtype)
    scale[ids] = np.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
    with no_grad():
        weight.mul_(from_numpy(scale[:, None]))
    # --8<-- [end:embedding_bag]
