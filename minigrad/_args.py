"""Argument helpers every op shares: int tuples, dims, batching, window sizes.

This is the bottom of the house: it imports nothing from minigrad, so any layer may use
it. Each rule is written once here, so `F.conv2d(x, w, stride=(2,))` and
`F.max_pool2d(x, 2, stride=(2,))` accept and refuse the same things, with the same words.
Every helper takes the calling op's name (`op`) and puts it first in its error message.
"""

import numpy as np


def _is_int(value):
    # bool is an int subclass in Python, but `stride=True` is a mistake, not a 1
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def int_tuple(value, n, name, op):
    """An int, or a tuple/list of 1 or n ints, as a tuple of n Python ints.

    int_tuple(2, 2, ...) == (2, 2); int_tuple((3,), 2, ...) == (3, 3) (one value for every
    spatial dim, as PyTorch accepts); int_tuple((1, 2), 2, ...) == (1, 2).
    """
    if _is_int(value):
        return (int(value),) * n
    if isinstance(value, (tuple, list)) and len(value) in (1, n) and all(_is_int(v) for v in value):
        return tuple(int(v) for v in value) * (n // len(value))
    expected = "an int" if n == 1 else f"an int or a tuple of {n} ints"
    raise TypeError(f"{op}: {name} must be {expected}, got {value!r}")


def int_sequence(value, name, op):
    """A tuple/list of any number of ints (PyTorch's `int[]`, e.g. F.pad's widths), as a
    tuple of Python ints; a float or a bool in it is refused, as PyTorch refuses it."""
    if isinstance(value, (tuple, list)) and all(_is_int(v) for v in value):
        return tuple(int(v) for v in value)
    raise TypeError(f"{op}: {name} must be a tuple of ints, got {value!r}")


def size_args(args):
    """The sizes of f(2, 3) and of f((2, 3)) alike, as PyTorch accepts both."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        return tuple(int(s) for s in args[0])
    return tuple(int(s) for s in args)


def normalize_dim(dim, ndim, op):
    """Map a possibly negative `dim` into [0, ndim), or raise naming the op."""
    if not isinstance(dim, (int, np.integer)):
        raise TypeError(f"{op}: dim must be an int, got {type(dim).__name__}")
    n = max(ndim, 1)  # a 0-d tensor accepts dim 0 and -1, as PyTorch
    if not -n <= dim < n:
        raise IndexError(
            f"{op}: dimension out of range (expected to be in range of [{-n}, {n - 1}], but got "
            f"{dim})"
        )
    return int(dim) % n


def distinct_dims(dims, ndim, op):
    """A tuple/list of dims, each mapped into [0, ndim) (in the order given), or raise
    naming the op if one dimension is named twice: `(0, 0)`, or `(1, -1)` of a 2-d tensor.
    PyTorch refuses those; NumPy would quietly use the dim once."""
    axes = tuple(normalize_dim(d, ndim, op) for d in dims)
    for i, axis in enumerate(axes):
        if axis in axes[:i]:
            raise RuntimeError(
                f"{op}: dim {axis} appears multiple times in the list of dims {tuple(dims)}"
            )
    return axes


def normalize_dims(dim, ndim, op):
    """dim=None -> None (all dims); an int or a tuple of distinct dims -> a sorted tuple
    of axes."""
    if dim is None:
        return None
    axes = distinct_dims(dim if isinstance(dim, (tuple, list)) else (dim,), ndim, op)
    if ndim == 0:
        return None
    return tuple(sorted(axes))


def batched(input, unbatched_ndim, op, layout=None):
    """(input with a leading batch dim, whether one was added).

    Layers and F.* accept one sample without its batch dim, as PyTorch does: a (C, H, W)
    image for conv2d, a (T, E) sequence for attention. The op runs on a batch of one and
    the caller takes the batch dim off the result again. `layout` names the dims for the
    error message, e.g. "(C, H, W)".
    """
    if input.ndim not in (unbatched_ndim, unbatched_ndim + 1):
        unbatched = f"{unbatched_ndim}-D {layout}" if layout else f"{unbatched_ndim}-D (unbatched)"
        with_batch = (
            f"{unbatched_ndim + 1}-D (N, {layout[1:]}"
            if layout
            else f"{unbatched_ndim + 1}-D (batched)"
        )
        raise RuntimeError(
            f"{op}: expected a {unbatched} or {with_batch} input, got input of shape "
            f"{tuple(input.shape)}"
        )
    if input.ndim == unbatched_ndim:
        return input.unsqueeze(0), True
    return input, False


def window_output_size(size, kernel, stride, padding, dilation, ceil_mode=False):
    """How many positions a window (a conv kernel, a pooling window) takes along one axis
    of `size` input elements.

    A window spans dilation * (kernel - 1) + 1 elements from its first to its last, and
    can slide over size + 2 * padding of them, `stride` at a time. Floor mode (every
    convolution) keeps only windows that fit; ceil mode (pooling's option) adds one last,
    partial step, but (PyTorch's rule) that last window must start inside the input or
    the left padding, never in the right padding alone.
    """
    span = dilation * (kernel - 1) + 1
    room = size + 2 * padding - span  # how far the first window can move
    if not ceil_mode:
        return room // stride + 1  # floor division: negative room gives <= 0 windows
    out = -(-room // stride) + 1  # ceil(room / stride) + 1
    if (out - 1) * stride >= size + padding:  # the last window would start in the right padding
        out -= 1
    return out
