"""TextDataset: a stream of token ids cut into (input, target) blocks for a language model.

A language model learns to predict the next token at every position, so one example is
a window of `block_size` tokens `x` and the same window moved on by one token, `y`:

    tokens  = [5, 9, 2, 7, 3, 8]   block_size = 3
    ds[0]   = x [5, 9, 2]  y [9, 2, 7]    (y[t] is the token that follows x[..t])
    ds[1]   = x [9, 2, 7]  y [2, 7, 3]

Every offset 0..len(tokens)-block_size-1 starts an example, so neighbouring examples
overlap almost entirely. That is why nanoGPT does not run epochs over them: its
`get_batch` draws `batch_size` random offsets for each step, which `random_batch` does
here. The dataset also works with a DataLoader (`ds[i]` and `len(ds)`), for code that
wants epochs.

`train_val_split(tokens, 0.9)` splits the stream as nanoGPT does: the first 90% to
train on, the last 10% to validate on (a contiguous tail, so no validation window
overlaps a training window except at the one boundary).
"""

import numbers

import numpy as np

from minigrad import random
from minigrad.creation import from_numpy
from minigrad.data.dataset import Dataset
from minigrad.tensor import Tensor


def as_token_array(tokens, where):
    """`tokens` (a list of ints, a NumPy array or a Tensor) as a 1-D int64 NumPy array."""
    if isinstance(tokens, Tensor):
        tokens = tokens.detach().array
    array = np.asarray(tokens)
    if array.ndim != 1:
        raise ValueError(f"{where}: expected a 1-D sequence of token ids, got shape {array.shape}")
    if array.size and not np.issubdtype(array.dtype, np.integer):
        raise TypeError(f"{where}: token ids must be integers, got dtype {array.dtype}")
    return array.astype(np.int64, copy=False)


def train_val_split(tokens, train_fraction=0.9):
    """`(train, val)`: the first `int(n * train_fraction)` tokens and the rest, as int64
    NumPy arrays (nanoGPT's split: the validation text is the end of the file)."""
    if not isinstance(train_fraction, numbers.Real) or not 0 < train_fraction < 1:
        raise ValueError(
            "train_val_split: train_fraction must be between 0 and 1 (exclusive), got "
            f"{train_fraction!r}"
        )
    tokens = as_token_array(tokens, "train_val_split")
    n = int(len(tokens) * train_fraction)
    return tokens[:n], tokens[n:]


class TextDataset(Dataset):
    """`TextDataset(tokens, block_size)`: example i is `(x, y)`, int64 Tensors of length
    `block_size`, with x = tokens[i : i + block_size] and y = tokens[i + 1 : i + block_size + 1].

    `tokens` is a list, NumPy array or Tensor of ids, at least block_size + 1 long.
    """

    def __init__(self, tokens, block_size):
        if (
            not isinstance(block_size, numbers.Integral)
            or isinstance(block_size, bool)
            or block_size < 1
        ):
            raise ValueError(f"TextDataset: block_size must be a positive int, got {block_size!r}")
        self.tokens = as_token_array(tokens, "TextDataset")
        self.block_size = int(block_size)
        if len(self.tokens) <= self.block_size:
            raise ValueError(
                f"TextDataset: {len(self.tokens)} tokens are too few for block_size "
                f"{self.block_size}: one example needs block_size + 1 = {self.block_size + 1} "
                "tokens (the target is shifted by one)"
            )

    def __len__(self):
        # the last x starts at len - block_size - 1, so that its y ends at the last token
        return len(self.tokens) - self.block_size

    def __getitem__(self, index):
        if not isinstance(index, numbers.Integral) or isinstance(index, bool):
            raise TypeError(f"TextDataset: index must be an int, got {type(index).__name__}")
        n = len(self)
        if not -n <= index < n:
            raise IndexError(f"TextDataset: index {index} is out of range for {n} examples")
        i = int(index) % n
        window = self.tokens[i : i + self.block_size + 1]
        return from_numpy(window[:-1].copy()), from_numpy(window[1:].copy())

    def random_batch(self, batch_size, generator=None):
        """`(x, y)`, int64 Tensors of shape (batch_size, block_size): `batch_size` examples
        at random offsets, drawn with replacement (nanoGPT's get_batch).

        The offsets come from minigrad's global generator (so `mg.manual_seed` fixes
        them), or from `generator` (an `mg.Generator` or a NumPy Generator).
        """
        if (
            not isinstance(batch_size, numbers.Integral)
            or isinstance(batch_size, bool)
            or batch_size < 1
        ):
            raise ValueError(
                f"TextDataset.random_batch: batch_size must be a positive int, got {batch_size!r}"
            )
        rng = random.numpy_generator(generator, "TextDataset.random_batch")
        starts = rng.integers(0, len(self), size=int(batch_size))
        # row b holds positions starts[b], starts[b] + 1, ...: one gather builds the batch
        positions = starts[:, None] + np.arange(self.block_size)
        return from_numpy(self.tokens[positions]), from_numpy(self.tokens[positions + 1])

    def __repr__(self):
        return f"TextDataset({len(self.tokens)} tokens, block_size={self.block_size})"
