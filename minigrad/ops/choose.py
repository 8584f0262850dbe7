"""Choosing among values, elementwise: `where`, `maximum`, `minimum` and `clamp`.

Each output element is one of its inputs' elements, so the gradient is routed, not
computed: it goes to the input that was chosen (split evenly at a tie of `maximum` and
`minimum`, as PyTorch), and the inputs not chosen get 0.
"""

import numpy as np

from minigrad.array_module import array_module
from minigrad.autograd.function import Function
from minigrad.creation import as_tensor, from_numpy
from minigrad.ops.broadcast import check_broadcast, unbroadcast
from minigrad.ops.promotion import binary_operands
from minigrad.tensor import Tensor


class Clamp(Function):
    """y = min(max(x, lo), hi);  dL/dx = dL/dy where lo <= x <= hi, else 0."""

    @staticmethod
    def forward(ctx, x, min=None, max=None):
        ctx.save_for_backward(x)
        ctx.bounds = min, max
        return np.clip(x.array, min, max)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        lo, hi = ctx.bounds
        inside = array_module(x.array).ones(x.shape, dtype=bool)
        if lo is not None:
            inside &= x.array >= lo
        if hi is not None:
            inside &= x.array <= hi
        return grad * from_numpy(inside.astype(grad.dtype))


class Maximum(Function):
    """z = max(a, b) elementwise; the gradient goes to the larger input, split
    evenly where they are equal (as PyTorch)."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return np.maximum(a.array, b.array)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        share_a = (a.array > b.array) + 0.5 * (a.array == b.array)
        return _split_between(grad, share_a, a.shape, b.shape, ctx.needs_input_grad)


class Minimum(Function):
    """z = min(a, b) elementwise; the gradient goes to the smaller input, split
    evenly where they are equal."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return np.minimum(a.array, b.array)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        share_a = (a.array < b.array) + 0.5 * (a.array == b.array)
        return _split_between(grad, share_a, a.shape, b.shape, ctx.needs_input_grad)


def _split_between(grad, share_a, a_shape, b_shape, needs):
    share_a = from_numpy(share_a.astype(grad.dtype, copy=False))
    return (
        unbroadcast(grad * share_a, a_shape) if needs[0] else None,
        unbroadcast(grad * (1.0 - share_a), b_shape) if needs[1] else None,
    )


class Where(Function):
    """z = a where cond else b;  dL/da = dL/dz where cond (else 0), dL/db the rest.

    Its backward is two more `where`s, so its second derivative is free.
    """

    @staticmethod
    def forward(ctx, cond, a, b):
        ctx.cond = cond
        ctx.shapes = a.shape, b.shape
        return np.where(cond.array, a.array, b.array)

    @staticmethod
    def backward(ctx, grad):
        a_shape, b_shape = ctx.shapes
        zero = from_numpy(array_module(grad.array).zeros((), dtype=grad.dtype))
        _, need_a, need_b = ctx.needs_input_grad
        grad_a = unbroadcast(Where.apply(ctx.cond, grad, zero), a_shape) if need_a else None
        grad_b = unbroadcast(Where.apply(ctx.cond, zero, grad), b_shape) if need_b else None
        return None, grad_a, grad_b


# ---- the function forms -----------------------------------------------------------------
def where(condition, input, other):
    """Elementwise `input if condition else other`; gradients flow to the chosen side.

    Either side may be a plain number (`where(x > 0, x, 0.0)`), as in torch.where; it
    takes the other side's dtype by the usual promotion. Backward passes use it too.
    """
    condition = as_tensor(condition)
    if condition.dtype.kind != "b":
        # as PyTorch
        raise RuntimeError(f"where: condition must be a bool tensor, got {condition.dtype}")
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        input = as_tensor(input)
    if isinstance(input, Tensor):
        a, b = binary_operands(input, other, "where")
    else:
        b, a = binary_operands(other, input, "where")
    names = ("condition", "input", "other")
    check_broadcast("where", condition.shape, a.shape, b.shape, names=names)
    return Where.apply(condition, a, b)


def maximum(input, other):
    """The larger of the two, elementwise (see `Maximum` for the gradient at ties)."""
    a, b = binary_operands(as_tensor(input), other, "maximum")
    return Maximum.apply(a, b)


def minimum(input, other):
    """The smaller of the two, elementwise (see `Minimum` for the gradient at ties)."""
    a, b = binary_operands(as_tensor(input), other, "minimum")
    return Minimum.apply(a, b)
