"""Batches of sequences of different lengths: padding them and packing them.

A batch of sequences of lengths 3, 2 and 1 can be *padded* to a (3, 3, *) tensor (time,
batch, features), the missing steps filled with `padding_value`, or *packed*: the steps
that exist, time step by time step, with the batch sizes of each step,

    sequences  a1 a2 a3 | b1 b2 | c1      ->   data        a1 b1 c1 a2 b2 a3
                                               batch_sizes 3 2 1

which is what an RNN that skips the padding reads (the sequences sorted by decreasing
length, so that the first batch_sizes[t] of them are the ones still running at step t).
`PackedSequence` holds data and batch_sizes, and, when the batch was sorted here, the
permutation that sorted it (sorted_indices) and its inverse (unsorted_indices).

minigrad's recurrent layers (nn.RNN, nn.LSTM, nn.GRU) take padded batches, not packed ones:
use pad_packed_sequence to go back. Every function here is built of slicing, cat, stack
and index_select, so gradients flow through padding, packing and back.
"""

from collections import namedtuple

import numpy as np

from minigrad.creation import as_tensor, from_numpy, full
from minigrad.ops.shape import cat, stack
from minigrad.tensor import Tensor


def _indices(values):
    """An int64 array from a tensor, a list or an array."""
    return np.asarray(values.array if isinstance(values, Tensor) else values, dtype=np.int64)


def invert_permutation(permutation):
    """The inverse permutation (a 1-D int64 tensor): out[permutation[i]] = i. None stays None."""
    if permutation is None:
        return None
    p = _indices(permutation)
    inverse = np.empty_like(p)
    inverse[p] = np.arange(p.size)
    return from_numpy(inverse)


class PackedSequence(
    namedtuple("PackedSequence", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])
):
    """A packed batch of sequences: `data` (sum of lengths, *) holds the steps time step by
    time step, `batch_sizes[t]` how many sequences have a step t (an int64 tensor), and
    `sorted_indices` / `unsorted_indices` the sorting permutation and its inverse (None
    when the batch came sorted). Make one with pack_padded_sequence or pack_sequence."""

    __slots__ = ()

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            raise ValueError(
                "PackedSequence: batch_sizes must be given (use pack_padded_sequence to make one)"
            )
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        """The same packing with `data.to(*args, **kwargs)` (a dtype or a device)."""
        return type(self)(
            self.data.to(*args, **kwargs),
            self.batch_sizes,
            self.sorted_indices,
            self.unsorted_indices,
        )

    def float(self):
        """data as float32."""
        return self.to(np.float32)

    def double(self):
        """data as float64."""
        return self.to(np.float64)

    @property
    def is_cuda(self):
        """False: minigrad's data lives in host memory."""
        return self.data.is_cuda

    def is_pinned(self):
        """False: there is no pinned memory on the CPU."""
        return False


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack sequences of shapes (L_i, *) into one (max L, B, *) tensor ((B, max L, *) with
    batch_first), each padded with `padding_value` after its end (padding_side='right') or
    before its start ('left')."""
    op = "pad_sequence"
    if padding_side not in ("left", "right"):
        raise ValueError(
            f"{op}: Expected padding_side to be one of left or right, but got {padding_side}."
        )
    sequences = [as_tensor(s) for s in sequences]
    if not sequences:
        raise RuntimeError(f"{op}: received an empty list of sequences")
    trailing = sequences[0].shape[1:]
    for s in sequences:
        if s.ndim == 0 or s.shape[1:] != trailing:
            raise RuntimeError(
                f"{op}: every sequence must be (length, {', '.join(map(str, trailing)) or '*'}), "
                f"the first's trailing dims; got shapes {[tuple(t.shape) for t in sequences]}"
            )
    longest = max(s.shape[0] for s in sequences)
    padded = []
    for s in sequences:
        fill = full((longest - s.shape[0],) + trailing, padding_value, dtype=s.dtype)
        padded.append(cat([s, fill] if padding_side == "right" else [fill, s]))
    return stack(padded, 0 if batch_first else 1)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The inverse of pad_sequence: the list of sequences padded_sequences[:lengths[i], i]
    (or [i, :lengths[i]] with batch_first)."""
    x = padded_sequences if batch_first else padded_sequences.transpose(0, 1)
    return [x[i, :length] for i, length in enumerate(_indices(lengths).tolist())]


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Pack a padded batch (T, B, *) ((B, T, *) with batch_first) of sequences of `lengths`.

    With enforce_sorted=True the lengths must be decreasing; otherwise the batch is sorted
    here (longest first, ties in their order) and the permutation kept in the result, so
    that pad_packed_sequence restores the original order.
    """
    op = "pack_padded_sequence"
    lengths = _indices(lengths)
    if input.ndim < 2:
        raise RuntimeError(
            f"{op}: expected a padded batch of at least 2 dims (T, B, *), got shape {input.shape}"
        )
    x = input.transpose(0, 1) if batch_first else input  # (T, B, *)
    if lengths.shape != (x.shape[1],):
        raise RuntimeError(
            f"{op}: Expected `len(lengths)` to be equal to batch_size, but got {lengths.size} "
            f"(batch_size={x.shape[1]})"
        )
    if enforce_sorted:
        if np.any(np.diff(lengths) > 0):
            raise RuntimeError(
                f"{op}: `lengths` array must be sorted in decreasing order when `enforce_sorted` "
                "is True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or "
                "pack_sequence to sidestep this requirement if you do not need ONNX exportability."
            )
        sorted_indices = None
    else:
        order = np.argsort(-lengths, kind="stable")
        sorted_indices = from_numpy(order)
        x, lengths = x[:, order], lengths[order]
    if lengths.size and lengths.min() <= 0:
        raise RuntimeError(
            f"{op}: Length of all samples has to be greater than 0, but found an element in "
            "'lengths' that is <= 0"
        )
    if lengths.size and lengths.max() > x.shape[0]:
        raise RuntimeError(f"{op}: a length {lengths.max()} exceeds the padded length {x.shape[0]}")
    steps = int(lengths.max()) if lengths.size else 0
    batch_sizes = np.array([(lengths > t).sum() for t in range(steps)], dtype=np.int64)
    data = cat([x[t, :size] for t, size in enumerate(batch_sizes.tolist())])
    return PackedSequence(
        data, from_numpy(batch_sizes), sorted_indices, invert_permutation(sorted_indices)
    )


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """Unpack a PackedSequence into (padded, lengths): the batch (T, B, *) ((B, T, *) with
    batch_first) in its original order, padded with padding_value to the longest length
    (or to total_length), and each sequence's length (an int64 tensor)."""
    op = "pad_packed_sequence"
    data, batch_sizes = sequence.data, _indices(sequence.batch_sizes)
    steps, batch = len(batch_sizes), int(batch_sizes[0]) if len(batch_sizes) else 0
    if total_length is not None:
        if total_length < steps:
            raise ValueError(
                f"{op}: Expected total_length to be at least the length of the longest sequence in "
                f"input, but got total_length={total_length} and max sequence length being {steps}"
            )
        steps_out = total_length
    else:
        steps_out = steps
    trailing = data.shape[1:]
    rows, start = [], 0
    for size in batch_sizes.tolist():  # step t: the first `size` sequences, then padding
        fill = full((batch - size,) + trailing, padding_value, dtype=data.dtype)
        rows.append(cat([data[start : start + size], fill]))
        start += size
    rows += [full((batch,) + trailing, padding_value, dtype=data.dtype)] * (steps_out - steps)
    padded = stack(rows, 0)  # (T, B, *), sorted order
    lengths = np.array([(batch_sizes > b).sum() for b in range(batch)], dtype=np.int64)
    if sequence.unsorted_indices is not None:
        order = _indices(sequence.unsorted_indices)
        padded, lengths = padded[:, order], lengths[order]
    return (padded.transpose(0, 1) if batch_first else padded), from_numpy(lengths)


def pack_sequence(sequences, enforce_sorted=True):
    """Pack a list of sequences (L_i, *) directly: pad_sequence, then pack_padded_sequence."""
    lengths = [as_tensor(s).shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of sequences a PackedSequence holds, in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
