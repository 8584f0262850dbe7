"""Comparisons as functions: `mg.eq(a, b)` is `a == b`, and torch's other names for them
(greater, greater_equal, less, less_equal, not_equal); `isin`, `isposinf`, `isneginf`.

A comparison answers with a bool tensor, which carries no gradient. Its in-place form
`a.eq_(b)` writes 1 or 0 into `a` in `a`'s own dtype; on a tensor in the graph torch
records that write as a step function of both operands, whose gradient is 0, and
`Compared` below is that record.
"""

import numpy as np

from minigrad.array_module import array_module
from minigrad.autograd.function import Function
from minigrad.creation import as_tensor, from_numpy
from minigrad.ops.broadcast import unbroadcast
from minigrad.ops.promotion import binary_operands
from minigrad.tensor import Tensor


class Compared(Function):
    """z = 1 where `test(a, b)` holds, else 0, in the dtype `dtype` (the in-place
    comparisons' result); a step function of both, so dL/da = dL/db = 0."""

    @staticmethod
    def forward(ctx, a, b, test, dtype):
        ctx.shapes = a.shape, b.shape
        return test(a.array, b.array).astype(dtype)

    @staticmethod
    def backward(ctx, grad):
        a_shape, b_shape = ctx.shapes
        need_a, need_b = ctx.needs_input_grad
        zero = grad * 0.0
        return (
            unbroadcast(zero, a_shape) if need_a else None,
            unbroadcast(zero, b_shape) if need_b else None,
        )


def compared(input, other, test, op):
    """`test(input, other)` (a NumPy comparison such as np.equal) as a bool tensor, the
    operands promoted and broadcast as for any binary op."""
    a, b = binary_operands(as_tensor(input), other, op)
    return from_numpy(test(a.array, b.array))


def compared_in(target, other, test, op):
    """The result of `target.eq_(other)` and its kin: `test` as 1 or 0 in target's dtype,
    recorded as a step function (see `Compared`)."""
    a, b = binary_operands(target, other, op)
    return Compared.apply(a, b, test=test, dtype=target.dtype)


def eq(input, other):
    """input == other elementwise (a bool tensor); broadcasts."""
    return compared(input, other, np.equal, "eq")


def ne(input, other):
    """input != other elementwise (a bool tensor); broadcasts."""
    return compared(input, other, np.not_equal, "ne")


def lt(input, other):
    """input < other elementwise (a bool tensor); broadcasts."""
    return compared(input, other, np.less, "lt")


def le(input, other):
    """input <= other elementwise (a bool tensor); broadcasts."""
    return compared(input, other, np.less_equal, "le")


def gt(input, other):
    """input > other elementwise (a bool tensor); broadcasts."""
    return compared(input, other, np.greater, "gt")


def ge(input, other):
    """input >= other elementwise (a bool tensor); broadcasts."""
    return compared(input, other, np.greater_equal, "ge")


# torch's longer names for the same functions
greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne


def isposinf(input):
    """True where an element is +inf (a bool tensor; integers are never infinite)."""
    x = as_tensor(input)
    return from_numpy(x.array == np.inf)


def isneginf(input):
    """True where an element is -inf (a bool tensor; integers are never infinite)."""
    x = as_tensor(input)
    return from_numpy(x.array == -np.inf)


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """True where an element of `elements` is one of `test_elements` (a bool tensor of
    elements' shape; either may be a number). `invert=True` asks the opposite.
    `assume_unique` is accepted for torch's signature; the answer does not depend on it."""
    xp = array_module(*[x.array for x in (elements, test_elements) if isinstance(x, Tensor)])
    arrays = []
    for x in (elements, test_elements):
        # a number or a list goes where the tensor is
        array = x.array if isinstance(x, Tensor) else xp.asarray(x)
        if array.dtype.kind == "b":
            raise RuntimeError("isin: Unsupported input type encountered for isin(): Bool")
        arrays.append(array)
    return from_numpy(np.isin(arrays[0], arrays[1], invert=invert))


# ---- questions about a tensor, as functions ----------------------------------------------
def is_nonzero(input):
    """The truth of a one-element tensor (a Python bool); see Tensor.is_nonzero."""
    return input.is_nonzero()


def is_signed(input):
    """True if input's dtype can hold negative numbers; see Tensor.is_signed."""
    return input.is_signed()


def is_same_size(input, other):
    """True if the two tensors have one shape; see Tensor.is_same_size."""
    return input.is_same_size(other)
