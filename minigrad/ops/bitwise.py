"""Truth values and bits: the logical and the bitwise ops.

- logical_and/or/xor/not take tensors of any dtype, read zero as False and anything
  else as True, and answer with a bool tensor;
- bitwise_and/or/xor/not and the shifts work on the bits of integer and bool tensors
  (on bools, the bitwise ops are the logical ones), promoted as any binary op:
  `bool_tensor & 3` is int64. The operators `& | ^ ~ << >>` call them. Floats have no
  bits to give, and raise torch's NotImplementedError.

`x << n` is x * 2^n and `x >> n` is x / 2^n rounded down (the sign bit is copied in, so
-5 >> 1 is -3). None of these has a gradient: the results are integers or bools.
"""

import numpy as np

from minigrad.array_module import array_module
from minigrad.creation import as_tensor, from_numpy
from minigrad.ops.broadcast import check_broadcast
from minigrad.ops.promotion import binary_operands
from minigrad.tensor import Tensor


def _arrays(*xs):
    """The arrays of tensors, and of numbers or lists (a number as a NumPy scalar, which
    mixes with host and GPU arrays alike; a list copied to the tensors' device)."""
    xp = array_module(*[x.array for x in xs if isinstance(x, Tensor)])
    return [x.array if isinstance(x, Tensor) else _host_value(np.asarray(x), xp) for x in xs]


def _host_value(a, xp):
    return a if xp is np else a[()] if a.ndim == 0 else xp.asarray(a)


# ---- logical ---------------------------------------------------------------------------
def _logical(test, input, other, op):
    a, b = _arrays(input, other)
    check_broadcast(op, a.shape, b.shape, names=("input", "other"))
    return from_numpy(test(a, b))


def logical_and(input, other):
    """input and other, elementwise, zero read as False (a bool tensor); broadcasts."""
    return _logical(np.logical_and, input, other, "logical_and")


def logical_or(input, other):
    """input or other, elementwise, zero read as False (a bool tensor); broadcasts."""
    return _logical(np.logical_or, input, other, "logical_or")


def logical_xor(input, other):
    """Exactly one of input and other, elementwise, zero read as False (a bool tensor)."""
    return _logical(np.logical_xor, input, other, "logical_xor")


def logical_not(input):
    """not input, elementwise: True where input is zero (a bool tensor)."""
    return from_numpy(np.logical_not(*_arrays(input)))


# ---- bitwise ---------------------------------------------------------------------------
def _bits(input, other, op, bools=True):
    """Both operands promoted to one integer (or bool) dtype; floats raise, as in torch."""
    if isinstance(input, Tensor) or not isinstance(other, Tensor):
        a, b = binary_operands(as_tensor(input), other, op)
    else:  # a number on the left: `3 & t`
        b, a = binary_operands(other, input, op)
    if a.dtype.kind not in ("iub" if bools else "iu"):
        raise NotImplementedError(
            f"{op}: not implemented for {a.dtype} tensors (input {_dtype(input)}, other "
            f"{_dtype(other)}); it takes {'integer and bool' if bools else 'integer'} tensors"
        )
    return a.array, b.array


def _dtype(x):
    return x.dtype if isinstance(x, Tensor) else type(x).__name__


def bitwise_and(input, other):
    """The bits set in both input and other (for bools, logical and); broadcasts."""
    return from_numpy(np.bitwise_and(*_bits(input, other, "bitwise_and")))


def bitwise_or(input, other):
    """The bits set in input or other (for bools, logical or); broadcasts."""
    return from_numpy(np.bitwise_or(*_bits(input, other, "bitwise_or")))


def bitwise_xor(input, other):
    """The bits set in exactly one of input and other (for bools, logical xor); broadcasts."""
    return from_numpy(np.bitwise_xor(*_bits(input, other, "bitwise_xor")))


def bitwise_not(input):
    """Every bit flipped: ~x = -x - 1 for integers, not x for bools."""
    x = as_tensor(input)
    if x.dtype.kind not in "iub":
        raise NotImplementedError(
            f"bitwise_not: not implemented for {x.dtype} tensors; it takes integer and bool"
        )
    return from_numpy(np.invert(x.array))


def bitwise_left_shift(input, other):
    """input shifted left by other bits, input * 2^other (bits shifted out are lost, and a
    shift by the width or more gives 0); integer tensors; broadcasts."""
    a, b = _bits(input, other, "bitwise_left_shift", bools=False)
    return from_numpy(np.left_shift(a, b))


def bitwise_right_shift(input, other):
    """input shifted right by other bits, floor(input / 2^other) (the sign bit is copied
    in); integer tensors; broadcasts."""
    a, b = _bits(input, other, "bitwise_right_shift", bools=False)
    return from_numpy(np.right_shift(a, b))
