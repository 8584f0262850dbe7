"""Token ids in: what `decode` accepts, checked once for every tokenizer.

A model hands back ids in many forms: a Python list, a NumPy array, a minigrad Tensor
(the output of `model.generate`). All become one flat list of Python ints here, and an
id outside the vocabulary is an error at the call, not a KeyError deep inside.
"""

import numbers

import numpy as np

from minigrad.tensor import Tensor


def as_id_list(ids, vocab_size, where):
    """`ids` (a list or tuple of ints, a 1-D NumPy int array or a 1-D int Tensor) as a list
    of Python ints, each checked to lie in 0..vocab_size-1. `where` names the caller."""
    if isinstance(ids, Tensor):
        ids = ids.detach().array
    if isinstance(ids, np.ndarray):
        if ids.ndim != 1:
            raise ValueError(
                f"{where}: expected a 1-D sequence of token ids, got an array of shape {ids.shape}"
            )
        if ids.size and not np.issubdtype(ids.dtype, np.integer):
            raise TypeError(
                f"{where}: token ids must be integers, got an array of dtype {ids.dtype}"
            )
        ids = ids.tolist()
    elif isinstance(ids, (list, tuple)):
        for i in ids:
            if not isinstance(i, numbers.Integral) or isinstance(i, bool):
                raise TypeError(
                    f"{where}: token ids must be integers, got {i!r} ({type(i).__name__})"
                )
        ids = [int(i) for i in ids]
    else:
        raise TypeError(
            f"{where}: expected a list, NumPy array or Tensor of token ids, got "
            f"{type(ids).__name__}"
        )
    for i in ids:
        if not 0 <= i < vocab_size:
            raise ValueError(
                f"{where}: token id {i} is out of range for a vocabulary of {vocab_size} "
                f"(0..{vocab_size - 1})"
            )
    return ids
