"""Padding as a function: F.pad.

Constant padding is a Function of its own (ConstantPad in minigrad/ops/shape.py: its
gradient is the slice of the upstream gradient that lies over the input). The other
modes pick input elements by an index array (`source_positions`), so they are ordinary
indexing, and their gradient is indexing's scatter-add: an edge element that is
copied three times receives three gradients.
"""

import numpy as np

from minigrad._args import int_sequence
from minigrad.array_module import array_module
from minigrad.ops.shape import ConstantPad

_PAD_MODES = ("reflect", "replicate", "circular")


def pad(input, pad, mode="constant", value=None):
    """Pad the last len(pad)//2 dims; `pad` = (left, right, top, bottom, ...) starting from
    the last dim, as PyTorch. Negative amounts crop. Modes: constant, reflect, replicate,
    circular (the last three gather with an index array, so their gradient is a scatter-add)."""
    pad = int_sequence(pad, "pad", "pad")
    if len(pad) % 2:
        raise RuntimeError(f"pad: padding length must be even, got {len(pad)} values {pad}")
    n = len(pad) // 2
    if n > input.ndim:
        raise RuntimeError(f"pad: {pad} pads {n} dims but the input has shape {input.shape}")
    widths = [(0, 0)] * input.ndim
    for i in range(n):
        widths[input.ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1])
    for d, ((lo, hi), size) in enumerate(zip(widths, input.shape)):
        if size + lo + hi < 0:  # negative padding crops, but not past nothing
            raise RuntimeError(
                f"pad: the input size {size}, plus negative padding {lo} and {hi}, would give a "
                f"negative size {size + lo + hi} at dim {d} of an input of shape {input.shape}"
            )
    if mode == "constant":
        # negative widths crop first; what is left is an ordinary pad
        crop = tuple(
            slice(max(-lo, 0), s - max(-hi, 0)) for (lo, hi), s in zip(widths, input.shape)
        )
        x = input[crop] if any(lo < 0 or hi < 0 for lo, hi in widths) else input
        positive = tuple((max(lo, 0), max(hi, 0)) for lo, hi in widths)
        if not any(lo or hi for lo, hi in positive):
            return x
        return ConstantPad.apply(x, widths=positive, value=0.0 if value is None else value)
    if mode not in _PAD_MODES:
        raise ValueError(
            f"pad: mode must be 'constant', 'reflect', 'replicate' or 'circular', got {mode!r}"
        )
    if value is not None and value != 0:
        raise ValueError(
            f"pad: value is only used with mode='constant', got value={value} with mode={mode!r}"
        )
    out = input
    for d, (lo, hi) in enumerate(widths):
        if lo == 0 and hi == 0:
            continue
        size = input.shape[d]
        if mode == "reflect" and (lo >= size or hi >= size):
            raise ValueError(
                f"pad: reflect padding ({lo}, {hi}) must be smaller than dim {d}'s size {size}"
            )
        if mode == "circular" and (lo > size or hi > size):
            raise ValueError(
                f"pad: circular padding ({lo}, {hi}) can be at most dim {d}'s size {size}"
            )
        if lo < 0 or hi < 0:
            raise ValueError(
                f"pad: negative padding is only supported with mode='constant', got {pad}"
            )
        source = source_positions(size, lo, hi, mode, array_module(input.array))
        out = out[(slice(None),) * d + (source,)]
    return out


def source_positions(size, lo, hi, mode, xp=np):
    """The input position each of the lo + size + hi padded positions copies, along one
    dim: position j (from -lo to size + hi - 1) mirrored at the edges (reflect, without
    repeating the edge), held at the edge (replicate) or wrapped around (circular). Made
    with `xp`, the module of the input's array, so that a GPU tensor gets a GPU index."""
    j = xp.arange(-lo, size + hi)
    if mode == "replicate":
        return np.clip(j, 0, size - 1)
    if mode == "circular":
        return j % size
    period = 2 * (size - 1)  # reflect: ... 2 1 [0 1 2 ... size-1] size-2 ... repeats every period
    m = np.abs(j) % period
    return np.where(m < size, m, period - m)
