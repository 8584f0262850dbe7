"""Rounding, remainders and signs: trunc, frac, fmod, copysign, signbit, sgn, nextafter,
heaviside, and the function forms of `%` and `//`.

Two remainders, as in C and in Python:

- fmod(a, b) = a - trunc(a / b) * b takes the sign of a (C's fmod: fmod(-7, 3) = -1);
- remainder(a, b) = a - floor(a / b) * b takes the sign of b (Python's %: -7 % 3 = 2).

A step function (trunc, sgn) is flat almost everywhere, so its gradient is 0, and
torch gives that 0 rather than none. Where a result moves with an input (frac, fmod,
copysign), the gradient is the slope of the piece the input is on.
"""

import numpy as np

from minigrad.autograd.function import Function
from minigrad.creation import as_tensor, from_numpy
from minigrad.ops.broadcast import unbroadcast
from minigrad.ops.elementwise import DivRounding, Remainder, _ZeroGrad, check_integer_divisor, where
from minigrad.ops.promotion import binary_operands, float_operands
from minigrad.tensor import Tensor


def _operands(input, other, op):
    """Both operands as Tensors of one dtype; either may be a number (torch.fmod(7, t))."""
    if isinstance(input, Tensor) or not isinstance(other, Tensor):
        return binary_operands(as_tensor(input), other, op)
    b, a = binary_operands(other, input, op)
    return a, b


class Trunc(_ZeroGrad):
    """y = x rounded toward zero (trunc(-2.7) = -2);  dL/dx = 0."""

    @staticmethod
    def forward(ctx, x):
        return np.trunc(x.array)


class Frac(Function):
    """y = x - trunc(x), the fractional part with the sign of x;  dL/dx = dL/dy."""

    @staticmethod
    def forward(ctx, x):
        return x.array - np.trunc(x.array)

    @staticmethod
    def backward(ctx, grad):
        return grad


class Fmod(Function):
    """z = a - trunc(a / b) * b, the remainder with the sign of a (C's fmod);
    dL/da = dL/dz,  dL/db = -dL/dz * trunc(a / b)."""

    @staticmethod
    def forward(ctx, a, b):
        check_integer_divisor(a.array, b.array, "fmod")
        ctx.save_for_backward(a, b)
        with np.errstate(invalid="ignore", divide="ignore"):  # fmod(x, 0.0) is NaN, as torch
            return np.fmod(a.array, b.array)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        grad_b = None
        if need_b:
            grad_b = unbroadcast(-grad * DivRounding.apply(a, b, rounding_mode="trunc"), b.shape)
        return unbroadcast(grad, a.shape) if need_a else None, grad_b


class Copysign(Function):
    """z = |a| with the sign of b (including the sign of a zero or a NaN);
    dL/da = dL/dz * z / a (so +-1; 0 where a = 0),  dL/db = 0."""

    @staticmethod
    def forward(ctx, a, b):
        z = from_numpy(np.copysign(a.array, b.array))
        ctx.save_for_backward(a, z)
        ctx.b_shape = b.shape
        return z

    @staticmethod
    def backward(ctx, grad):
        a, z = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        grad_a = grad_b = None
        if need_a:
            at_zero = a == 0
            grad_a = unbroadcast(grad * where(at_zero, 0.0, z / where(at_zero, 1.0, a)), a.shape)
        if need_b:  # torch gives the sign's operand a zero gradient, not none
            grad_b = unbroadcast(grad * 0.0, ctx.b_shape)
        return grad_a, grad_b


class Nextafter(Function):
    """z = the next floating-point value after a in the direction of b;
    dL/da = dL/dz (z - a is at most one unit in the last place),  dL/db = 0."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.shapes = a.shape, b.shape
        return np.nextafter(a.array, b.array)

    @staticmethod
    def backward(ctx, grad):
        a_shape, b_shape = ctx.shapes
        need_a, need_b = ctx.needs_input_grad
        return (
            unbroadcast(grad, a_shape) if need_a else None,
            unbroadcast(grad * 0.0, b_shape) if need_b else None,
        )


class Heaviside(Function):
    """z = 0 where x < 0, `values` where x == 0, 1 where x > 0. Its result requires grad,
    but torch defines no derivative for it, so backward raises, as torch's does."""

    @staticmethod
    def forward(ctx, x, values):
        return np.heaviside(x.array, values.array).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("heaviside: the derivative for heaviside is not implemented")


# ---- torch-level functions -------------------------------------------------------------
def trunc(input):
    """Each element rounded toward zero; see Tensor.trunc."""
    return as_tensor(input).trunc()


fix = trunc  # NumPy's name


def frac(input):
    """The fractional part, input - trunc(input), with input's sign; see Tensor.frac."""
    return as_tensor(input).frac()


def fmod(input, other):
    """The remainder of input / other with the sign of input (C's fmod); broadcasts.
    dL/dinput = dL/dz, dL/dother = -dL/dz * trunc(input / other)."""
    a, b = _operands(input, other, "fmod")
    if a.dtype.kind == "b":
        raise NotImplementedError("fmod: not implemented for bool tensors")
    return Fmod.apply(a, b)


def remainder(input, other):
    """The remainder of input / other with the sign of other (Python's %); either may be
    a number; broadcasts. dL/dinput = dL/dz, dL/dother = -dL/dz * floor(input / other)."""
    a, b = _operands(input, other, "remainder")
    if a.dtype.kind == "b":
        raise NotImplementedError("remainder: not implemented for bool tensors")
    return Remainder.apply(a, b)


def floor_divide(input, other):
    """input / other rounded down (Python's //); integers stay integers; broadcasts.
    A step function: its gradient is 0."""
    a, b = _operands(input, other, "floor_divide")
    if a.dtype.kind == "b":
        raise NotImplementedError("floor_divide: not implemented for bool tensors")
    return DivRounding.apply(a, b, rounding_mode="floor", op="floor_divide")


def copysign(input, other):
    """|input| with the sign of other, elementwise (floating point); broadcasts.
    dL/dinput = dL/dz * sign(z) * sign(input) (0 where input is 0), dL/dother = 0."""
    a, b = float_operands(input, other, "copysign")
    return Copysign.apply(a, b)


def signbit(input):
    """True where the sign bit is set: negative numbers, -0.0 and NaNs with the sign set
    (a bool tensor, no gradient)."""
    x = as_tensor(input)
    return from_numpy(np.signbit(x.array if x.dtype.kind == "f" else x.array.astype(np.float64)))


def sgn(input):
    """The sign, -1, 0 or 1 (for real tensors, the same as sign); see Tensor.sgn."""
    return as_tensor(input).sgn()


def nextafter(input, other):
    """The next floating-point value after input toward other, elementwise; broadcasts.
    dL/dinput = dL/dz, dL/dother = 0."""
    a, b = float_operands(input, other, "nextafter", integers=False)
    return Nextafter.apply(a, b)


def heaviside(input, values):
    """The step function: 0 where input < 0, values where input == 0, 1 where input > 0;
    input and values must have one dtype, as in torch. No derivative (backward raises)."""
    x = as_tensor(input)
    if not isinstance(values, Tensor):
        raise TypeError(f"heaviside: values must be a Tensor, got {type(values).__name__}")
    if values.dtype != x.dtype:
        raise RuntimeError(
            f"heaviside is not yet implemented for tensors with different dtypes: input {x.dtype}, "
            f"values {values.dtype}"
        )
    x, values = binary_operands(x, values, "heaviside")
    return Heaviside.apply(x, values)
