"""Lookups by integer index: F.embedding and F.one_hot.

Both take class or token ids (int64) and check them here, where an out-of-range id
can still be named; neither needs a Function of its own. embedding is indexing (its
gradient a scatter-add into the rows read), one_hot makes a constant.
"""

import numpy as np

from minigrad.creation import as_tensor, from_numpy
from minigrad.ops.elementwise import where


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
        raise ValueError(f"{op}: weight must be 2-D (num_embeddings, embedding_dim), got shape {weight.shape}")
    n = weight.shape[0]
    if input.array.size and (input.array.min() < 0 or input.array.max() >= n):
        bad = input.array[(input.array < 0) | (input.array >= n)].reshape(-1)[0]
        raise IndexError(
            f"{op}: index {int(bad)} is out of range for a weight with {n} rows (shape {weight.shape}); "
            f"indices must be in [0, {n - 1}]"
        )
    rows = weight[input.array]
    if padding_idx is not None:
        padding_idx = normalize_padding_idx(padding_idx, n, op)
        is_padding = input.array == padding_idx
        if weight.requires_grad and is_padding.any():
            rows = where(from_numpy(~is_padding[..., None]), rows, rows.detach())
    return rows


def normalize_padding_idx(padding_idx, num_embeddings, op):
    """A negative padding_idx counts from the end, as a negative list index."""
    if not -num_embeddings <= padding_idx < num_embeddings:
        raise ValueError(f"{op}: padding_idx {padding_idx} must be within num_embeddings {num_embeddings}")
    return padding_idx % num_embeddings


def one_hot(tensor, num_classes=-1):
    """Class indices (any shape, int64) to a one-hot int64 tensor with a new last dim."""
    if tensor.dtype.kind not in "iu":
        raise TypeError(f"one_hot: expects an integer tensor of class indices, got {tensor.dtype}")
    data = tensor.array
    if data.size and data.min() < 0:
        raise RuntimeError(f"one_hot: class values must be non-negative, got {int(data.min())}")
    if num_classes == -1:
        num_classes = int(data.max()) + 1 if data.size else 0
    elif data.size and data.max() >= num_classes:
        raise RuntimeError(f"one_hot: class value {int(data.max())} is out of range for num_classes={num_classes}")
    return from_numpy((data[..., None] == np.arange(num_classes)).astype(np.int64))
