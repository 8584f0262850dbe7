"""Elementwise ops: arithmetic and the math functions (their Functions, and the function
forms of the arithmetic: `mg.add`, `mg.div`, ...).

Every backward here is written with Tensor operations (`grad * b`, not
`grad.array * b.array`), so running it with grad mode on records a graph of the
gradient itself: that is all `create_graph=True` needs for second derivatives. (ReLU's
backward has a NumPy path too, for when grad mode is off and nothing is recorded.)
Binary ops broadcast, so their gradients go through `unbroadcast`.
"""

import math

import numpy as np

from minigrad import backends
from minigrad.array_module import array_module, on_device
from minigrad.autograd.function import Function
from minigrad.autograd.grad_mode import is_grad_enabled
from minigrad.creation import as_tensor, from_numpy
from minigrad.ops import special  # a module: `erf` is the name of mg.erf (unary_functions.py)
from minigrad.ops.broadcast import unbroadcast

# where, maximum, minimum and clamp live in choose.py; their names stay reachable here
# (`ops.elementwise.where`), where much of minigrad imports them from
from minigrad.ops.choose import (  # noqa: F401
    Clamp,
    Maximum,
    Minimum,
    Where,
    maximum,
    minimum,
    where,
)
from minigrad.ops.out import write_out
from minigrad.ops.promotion import binary_operands
from minigrad.tensor import Tensor


# ---- binary arithmetic ----------------------------------------------------------------
class Add(Function):
    """z = a + b;  dL/da = dL/dz,  dL/db = dL/dz (each summed back to its shape)."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.shapes = a.shape, b.shape
        # the elementwise kernels: NumPy's a + b, on every core for large arrays of one
        # shape (a transformer's residual sums)
        return backends.kernels("elementwise", array=a.array).add(a.array, b.array)

    @staticmethod
    def backward(ctx, grad):
        a_shape, b_shape = ctx.shapes
        need_a, need_b = ctx.needs_input_grad
        return (
            unbroadcast(grad, a_shape) if need_a else None,
            unbroadcast(grad, b_shape) if need_b else None,
        )


class Sub(Function):
    """z = a - b;  dL/da = dL/dz,  dL/db = -dL/dz."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.shapes = a.shape, b.shape
        return a.array - b.array

    @staticmethod
    def backward(ctx, grad):
        a_shape, b_shape = ctx.shapes
        need_a, need_b = ctx.needs_input_grad
        return (
            unbroadcast(grad, a_shape) if need_a else None,
            unbroadcast(-grad, b_shape) if need_b else None,
        )


# --8<-- [start:mul]
class Mul(Function):
    """z = a * b;  dL/da = dL/dz * b,  dL/db = dL/dz * a."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a.array * b.array

    @staticmethod
    def backward(ctx, grad):
        # BEGIN SOLUTION hint: dL/da = dL/dz * b and dL/db = dL/dz * a; sum each back to its input's shape with unbroadcast(g, shape) (broadcasting copied the smaller input)
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        return (
            unbroadcast(grad * b, a.shape) if need_a else None,
            unbroadcast(grad * a, b.shape) if need_b else None,
        )
        # END SOLUTION

    # --8<-- [end:mul]


class Div(Function):
    """z = a / b;  dL/da = dL/dz / b,  dL/db = -dL/dz * a / b^2."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a.array / b.array

    @staticmethod
    def backward(ctx, grad):
        # BEGIN SOLUTION hint: dL/da = dL/dz / b and dL/db = -dL/dz * a / b^2, each summed back to its input's shape with unbroadcast; write them with Tensor ops so they can be differentiated again
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        return (
            unbroadcast(grad / b, a.shape) if need_a else None,
            unbroadcast(-grad * a / (b * b), b.shape) if need_b else None,
        )
        # END SOLUTION


def check_integer_divisor(x, y, op):
    """Raise torch's error for integers divided by zero (arrays x / y): an integer has no
    inf or nan to give, and NumPy would warn and answer 0. Floats are not checked: x / 0
    is inf or nan for them, as in torch. Device arrays are not checked either: the check
    would copy a bool to the host at every division, and torch's CUDA kernels skip it too."""
    if x.dtype.kind in "iub" and not on_device(y) and np.any(y == 0):
        raise RuntimeError(
            f"ZeroDivisionError: {op} of {x.dtype} values by 0 (integers have no inf or nan)"
        )


class DivRounding(Function):
    """z = a / b rounded toward zero (`rounding_mode='trunc'`) or down ('floor');
    a step function of a and b, so dL/da = dL/db = 0, as PyTorch.

    Integer tensors stay integers and are divided exactly (no detour through floats,
    which would round large int64 values); 'floor' is Python's `//`. `op` names the
    call in the error for a division of integers by zero.
    """

    @staticmethod
    def forward(ctx, a, b, rounding_mode, op="div"):
        ctx.shapes = a.shape, b.shape
        x, y = a.array, b.array
        if x.dtype.kind in "iub":
            check_integer_divisor(
                x, y, op if op != "div" else f"div(rounding_mode={rounding_mode!r})"
            )
            q = np.floor_divide(x, y)
            # floor rounded down a negative inexact quotient: step back up
            if rounding_mode == "trunc":
                q = q + ((np.remainder(x, y) != 0) & ((x < 0) != (y < 0)))
            return q
        with np.errstate(divide="ignore", invalid="ignore"):  # x / 0 gives inf or nan, as torch
            return np.trunc(x / y) if rounding_mode == "trunc" else np.floor_divide(x, y)

    @staticmethod
    def backward(ctx, grad):
        a_shape, b_shape = ctx.shapes
        need_a, need_b = ctx.needs_input_grad
        zeros = from_numpy(array_module(grad.array).zeros(grad.shape, dtype=grad.dtype))
        return (
            unbroadcast(zeros, a_shape) if need_a else None,
            unbroadcast(zeros, b_shape) if need_b else None,
        )


class Remainder(Function):
    """z = a - floor(a / b) * b, the remainder with the sign of b (Python's `%`, as
    torch.remainder);  dL/da = dL/dz,  dL/db = -dL/dz * floor(a / b).

    Integers divided by zero raise, as torch; floats give nan.
    """

    @staticmethod
    def forward(ctx, a, b):
        check_integer_divisor(a.array, b.array, "remainder")
        ctx.save_for_backward(a, b)
        with np.errstate(divide="ignore", invalid="ignore"):  # x % 0.0 is nan, as torch
            return np.remainder(a.array, b.array)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        grad_b = None
        if need_b:
            grad_b = unbroadcast(-grad * DivRounding.apply(a, b, rounding_mode="floor"), b.shape)
        return unbroadcast(grad, a.shape) if need_a else None, grad_b


class Neg(Function):
    """z = -a;  dL/da = -dL/dz."""

    @staticmethod
    def forward(ctx, a):
        return -a.array

    @staticmethod
    def backward(ctx, grad):
        return -grad


def power_scalar(x, p):
    """x ** p for an array x and a number p, as PyTorch's CPU kernel computes it: the
    exponents it special-cases are products and roots (3: x*x*x, -2: 1/(x*x), -0.5:
    1/sqrt(x)), which round differently from the general power and are far faster.
    NumPy already does 2, -1 and 0.5 that way."""
    if x.dtype.kind == "f":
        if p == 3:
            return x * x * x
        if p == -2:
            return 1 / (x * x)
        if p == -0.5:
            return 1 / np.sqrt(x)
    return x**p


class PowScalar(Function):
    """z = a^p for a constant number p;  dL/da = dL/dz * (p * a^(p-1))."""

    @staticmethod
    def forward(ctx, a, exponent):
        ctx.save_for_backward(a)
        ctx.exponent = exponent
        return power_scalar(a.array, exponent)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        p = ctx.exponent
        if p == 0:
            return grad * 0.0
        if p == 1:
            return grad
        if p == 2:
            return grad * a * 2.0
        return grad * (p * a ** (p - 1))  # grouped as torch's pow_backward, for the same rounding


class Pow(Function):
    """z = a^b (both tensors);  dL/da = dL/dz * b * a^(b-1),  dL/db = dL/dz * z * log(a).

    Where a == 0 the exponent's gradient is taken as 0 (the limit from b > 0), as
    PyTorch does, instead of 0 * log(0) = NaN.
    """

    @staticmethod
    def forward(ctx, a, b):
        out = from_numpy(array_module(a.array, b.array).asarray(a.array**b.array))  # 0-d: an array
        ctx.save_for_backward(a, b, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, b, out = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        grad_a = grad_b = None
        if need_a:
            grad_a = unbroadcast(grad * b * a ** (b - 1.0), a.shape)
        if need_b:
            is_zero = a == 0
            safe_log = where(is_zero, 0.0, where(is_zero, 1.0, a).log())
            grad_b = unbroadcast(grad * out * safe_log, b.shape)
        return grad_a, grad_b


# ---- unary math -----------------------------------------------------------------------
class Exp(Function):
    """y = e^x;  dL/dx = dL/dy * y."""

    @staticmethod
    def forward(ctx, x):
        y = from_numpy(np.exp(x.array))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        # BEGIN SOLUTION hint: y = e^x was saved by forward, and d(e^x)/dx = e^x: dL/dx = dL/dy * y
        return grad * y
        # END SOLUTION


class Log(Function):
    """y = ln x;  dL/dx = dL/dy / x."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return np.log(x.array)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad / x


class Sqrt(Function):
    """y = sqrt(x);  dL/dx = dL/dy / (2 y)."""

    @staticmethod
    def forward(ctx, x):
        y = from_numpy(np.sqrt(x.array))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return grad / (y * 2.0)


class Rsqrt(Function):
    """y = 1 / sqrt(x);  dL/dx = dL/dy * (-y^3 / 2)."""

    @staticmethod
    def forward(ctx, x):
        y = from_numpy(1.0 / np.sqrt(x.array))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return grad * (y * y * y) * -0.5


class Sin(Function):
    """y = sin x;  dL/dx = dL/dy * cos x."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return np.sin(x.array)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x.cos()


class Cos(Function):
    """y = cos x;  dL/dx = -dL/dy * sin x."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return np.cos(x.array)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return -grad * x.sin()


# --8<-- [start:tanh]
class Tanh(Function):
    """y = tanh x;  dL/dx = dL/dy * (1 - y^2)."""

    @staticmethod
    def forward(ctx, x):
        y = from_numpy(np.tanh(x.array))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        # BEGIN SOLUTION hint: y = tanh x was saved by forward: dL/dx = dL/dy * (1 - y^2)
        return grad * (1.0 - y * y)
        # END SOLUTION

    # --8<-- [end:tanh]


class Sigmoid(Function):
    """y = 1 / (1 + e^-x);  dL/dx = dL/dy * y (1 - y)."""

    @staticmethod
    def forward(ctx, x):
        # the two branches keep exp from overflowing for large |x|
        x = x.array
        e = np.exp(-np.abs(x))
        y = from_numpy(np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e)).astype(x.dtype, copy=False))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return grad * y * (1.0 - y)


class Erf(Function):
    """y = erf x;  dL/dx = dL/dy * 2/sqrt(pi) * e^(-x^2)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return special.erf(x.array)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * (-(x * x)).exp() * (2.0 / math.sqrt(math.pi))


class Relu(Function):
    """y = max(x, 0);  dL/dx = 0 where y <= 0, else dL/dy (0 at x == 0, as PyTorch)."""

    @staticmethod
    def forward(ctx, x):
        y = from_numpy(np.maximum(x.array, 0))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        # PyTorch's threshold_backward: 0 where y <= 0, else dL/dy (so a NaN y, from a NaN
        # x, passes dL/dy through)
        opened = ~(y.array <= 0)
        if is_grad_enabled() or on_device(grad.array):  # recorded (create_graph), or a GPU
            return where(from_numpy(opened), grad, 0.0)
        # on the CPU a product with the 0/1 mask, one fast pass: np.where branches on every
        # element, and on a ReLU's random signs ran 5x slower. But 0 * inf and 0 * NaN are
        # NaN, not 0: if the product has a NaN or inf, the choice is made instead
        with np.errstate(invalid="ignore"):
            dx = grad.array * opened
        if not np.isfinite(dx).all():
            dx = np.where(opened, grad.array, 0)
        return from_numpy(dx)


class Abs(Function):
    """y = |x|;  dL/dx = dL/dy * sign(x) (0 at x == 0)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return np.abs(x.array)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * from_numpy(np.sign(x.array))


class _ZeroGrad(Function):
    """Base of the step functions (sign, floor, ...): flat almost everywhere, so their
    gradient is 0, which PyTorch also returns."""

    @staticmethod
    def backward(ctx, grad):
        return grad * 0.0


class Sign(_ZeroGrad):
    """y = sign(x) in {-1, 0, 1};  dL/dx = 0."""

    @staticmethod
    def forward(ctx, x):
        return np.sign(x.array)


class Floor(_ZeroGrad):
    """y = floor(x);  dL/dx = 0."""

    @staticmethod
    def forward(ctx, x):
        return np.floor(x.array)


class Ceil(_ZeroGrad):
    """y = ceil(x);  dL/dx = 0."""

    @staticmethod
    def forward(ctx, x):
        return np.ceil(x.array)


class Round(_ZeroGrad):
    """y = x rounded half to even (as PyTorch);  dL/dx = 0."""

    @staticmethod
    def forward(ctx, x, decimals=0):
        return np.round(x.array, decimals)


class NonZero(_ZeroGrad):
    """y = 1 where x != 0, else 0 (in x's dtype);  dL/dx = 0. Counting non-zeros
    (the 0-"norm") is a sum of these."""

    @staticmethod
    def forward(ctx, x):
        return (x.array != 0).astype(x.dtype)


# ---- the function forms: mg.add(input, other, *, alpha=1, out=None), ... -----------------
def _result(y, out, op):
    return y if out is None else write_out(out, y, op)


def scaled(input, other, alpha, op):
    """alpha * other, checking alpha as PyTorch does (no float alpha for integer tensors)."""
    if alpha == 1 and not isinstance(alpha, float):
        return other
    other_kind = other.dtype.kind if isinstance(other, Tensor) else np.asarray(other).dtype.kind
    integral = input.dtype.kind in "iub" and other_kind in "iub"
    if integral and isinstance(alpha, float):
        raise RuntimeError(
            f"{op}: for integral input tensors, argument alpha must not be a floating point number"
        )
    return other * alpha


def add(input, other, *, alpha=1, out=None):
    """input + alpha * other, with broadcasting and PyTorch's type promotion."""
    input = as_tensor(input)
    return _result(input + scaled(input, other, alpha, "add"), out, "add")


def sub(input, other, *, alpha=1, out=None):
    """input - alpha * other, with broadcasting and PyTorch's type promotion."""
    input = as_tensor(input)
    if input.dtype.kind == "b" and getattr(other, "dtype", None) == np.bool_:
        raise RuntimeError(
            "sub: subtraction of two bool tensors is not supported; use logical_xor()"
        )
    return _result(input - scaled(input, other, alpha, "sub"), out, "sub")


def mul(input, other, *, out=None):
    """input * other, elementwise with broadcasting."""
    return _result(as_tensor(input) * other, out, "mul")


def div(input, other, *, rounding_mode=None, out=None):
    """input / other: true division (integers give floats) when `rounding_mode` is None;
    rounded toward zero with 'trunc', down with 'floor' (integers then stay integers,
    and the gradient is 0)."""
    input = as_tensor(input)
    if rounding_mode is None:
        y = input / other
    elif rounding_mode in ("trunc", "floor"):
        a, b = binary_operands(input, other, "div")
        if a.dtype.kind == "b":
            a, b = a.to(np.int64), b.to(np.int64)
        y = DivRounding.apply(a, b, rounding_mode=rounding_mode)
    else:
        raise RuntimeError(
            "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
            f"{rounding_mode!r}"
        )
    return _result(y, out, "div")


def pow(input, exponent, *, out=None):  # noqa: A001  (torch.pow)
    """input ** exponent elementwise; either may be a number."""
    if isinstance(input, Tensor):
        y = input**exponent
    else:
        y = as_tensor(exponent).__rpow__(input)
    return _result(y, out, "pow")


multiply, subtract, divide, true_divide = mul, sub, div, div
