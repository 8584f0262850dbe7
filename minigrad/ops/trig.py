"""Trigonometric and hyperbolic functions, their inverses, and the angle helpers.

Each Function's gradient is the derivative from a table of them, written with Tensor
ops so that it can be differentiated again (`create_graph=True`):

    d/dx tan x  = 1 + tan^2 x          d/dx sinh x  = cosh x
    d/dx asin x = 1 / sqrt(1 - x^2)    d/dx asinh x = 1 / sqrt(x^2 + 1)
    d/dx acos x = -1 / sqrt(1 - x^2)   d/dx acosh x = 1 / sqrt(x^2 - 1)
    d/dx atan x = 1 / (1 + x^2)        d/dx atanh x = 1 / (1 - x^2)

Integer and bool tensors are computed in the default float dtype, as torch does
(`torch.tan(int_tensor)` is float32). Outside an inverse's domain (asin of 2, acosh of
0.5) the result is NaN, silently, as in torch.
"""

import math

import numpy as np

from minigrad.autograd.function import Function
from minigrad.creation import as_tensor, from_numpy
from minigrad.ops.broadcast import unbroadcast
from minigrad.ops.elementwise import where
from minigrad.ops.promotion import float_operands


def _quietly(fn, *arrays):
    """fn(*arrays) without NumPy's warnings: NaN and inf outside the domain are the answer."""
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        return fn(*arrays)


# ---- the unary functions ---------------------------------------------------------------
class Tan(Function):
    """y = tan x;  dL/dx = dL/dy * (1 + y^2)."""

    @staticmethod
    def forward(ctx, x):
        y = from_numpy(np.tan(x.array))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return grad * (1.0 + y * y)


class Asin(Function):
    """y = asin x (in [-pi/2, pi/2]);  dL/dx = dL/dy / sqrt(1 - x^2)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _quietly(np.arcsin, x.array)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * (1.0 - x * x).rsqrt()


class Acos(Function):
    """y = acos x (in [0, pi]);  dL/dx = -dL/dy / sqrt(1 - x^2)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _quietly(np.arccos, x.array)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return -grad * (1.0 - x * x).rsqrt()


class Atan(Function):
    """y = atan x (in (-pi/2, pi/2));  dL/dx = dL/dy / (1 + x^2)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return np.arctan(x.array)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad / (1.0 + x * x)


class Sinh(Function):
    """y = sinh x = (e^x - e^-x) / 2;  dL/dx = dL/dy * cosh x."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _quietly(np.sinh, x.array)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x.cosh()


class Cosh(Function):
    """y = cosh x = (e^x + e^-x) / 2;  dL/dx = dL/dy * sinh x."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _quietly(np.cosh, x.array)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x.sinh()


class Asinh(Function):
    """y = asinh x = ln(x + sqrt(x^2 + 1));  dL/dx = dL/dy / sqrt(x^2 + 1)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return np.arcsinh(x.array)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * (x * x + 1.0).rsqrt()


class Acosh(Function):
    """y = acosh x = ln(x + sqrt(x^2 - 1)) for x >= 1;  dL/dx = dL/dy / sqrt(x^2 - 1)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _quietly(np.arccosh, x.array)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * (x * x - 1.0).rsqrt()


class Atanh(Function):
    """y = atanh x = ln((1 + x) / (1 - x)) / 2 for |x| < 1;  dL/dx = dL/dy / (1 - x^2)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _quietly(np.arctanh, x.array)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad / (1.0 - x * x)


class Sinc(Function):
    """y = sin(pi x) / (pi x), and 1 at x = 0 (the normalized sinc);
    dL/dx = dL/dy * (cos(pi x) pi x - sin(pi x)) / (pi x^2), and 0 at x = 0."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return np.sinc(x.array)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        at_zero = x == 0
        safe = where(at_zero, 1.0, x)  # the formula's 0 / 0 at x = 0 is never computed
        pix = safe * math.pi
        slope = (pix.cos() * pix - pix.sin()) / (pix * safe)
        return grad * where(at_zero, 0.0, slope)


# ---- two operands ----------------------------------------------------------------------
class Atan2(Function):
    """z = atan2(a, b), the angle of the point (b, a) in (-pi, pi];
    dL/da = dL/dz * b / (a^2 + b^2),  dL/db = -dL/dz * a / (a^2 + b^2)."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return np.arctan2(a.array, b.array)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        scale = grad / (a * a + b * b)
        return (
            unbroadcast(scale * b, a.shape) if need_a else None,
            unbroadcast(-scale * a, b.shape) if need_b else None,
        )


class Hypot(Function):
    """z = sqrt(a^2 + b^2), computed without overflow for large a, b;
    dL/da = dL/dz * a / z,  dL/db = dL/dz * b / z."""

    @staticmethod
    def forward(ctx, a, b):
        z = from_numpy(np.hypot(a.array, b.array))
        ctx.save_for_backward(a, b, z)
        return z

    @staticmethod
    def backward(ctx, grad):
        a, b, z = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        return (
            unbroadcast(grad * a / z, a.shape) if need_a else None,
            unbroadcast(grad * b / z, b.shape) if need_b else None,
        )


# ---- torch-level functions: mg.tan(x) is x.tan() ---------------------------------------
def tan(input):
    """Tangent elementwise (radians); see Tensor.tan."""
    return as_tensor(input).tan()


def asin(input):
    """Inverse sine elementwise, in [-pi/2, pi/2]; see Tensor.asin."""
    return as_tensor(input).asin()


def acos(input):
    """Inverse cosine elementwise, in [0, pi]; see Tensor.acos."""
    return as_tensor(input).acos()


def atan(input):
    """Inverse tangent elementwise, in (-pi/2, pi/2); see Tensor.atan."""
    return as_tensor(input).atan()


def sinh(input):
    """Hyperbolic sine elementwise; see Tensor.sinh."""
    return as_tensor(input).sinh()


def cosh(input):
    """Hyperbolic cosine elementwise; see Tensor.cosh."""
    return as_tensor(input).cosh()


def asinh(input):
    """Inverse hyperbolic sine elementwise; see Tensor.asinh."""
    return as_tensor(input).asinh()


def acosh(input):
    """Inverse hyperbolic cosine elementwise (NaN below 1); see Tensor.acosh."""
    return as_tensor(input).acosh()


def atanh(input):
    """Inverse hyperbolic tangent elementwise (NaN outside [-1, 1]); see Tensor.atanh."""
    return as_tensor(input).atanh()


def sinc(input):
    """The normalized sinc, sin(pi x) / (pi x) and 1 at 0, elementwise; see Tensor.sinc."""
    return as_tensor(input).sinc()


def deg2rad(input):
    """Degrees to radians, x * pi / 180, elementwise; see Tensor.deg2rad."""
    return as_tensor(input).deg2rad()


def rad2deg(input):
    """Radians to degrees, x * 180 / pi, elementwise; see Tensor.rad2deg."""
    return as_tensor(input).rad2deg()


def atan2(input, other):
    """The angle of the point (other, input), atan(input / other) in the right quadrant,
    in (-pi, pi]; broadcasts. dL/dinput = dL/dz * other / r^2, dL/dother = -dL/dz *
    input / r^2 with r^2 = input^2 + other^2."""
    a, b = float_operands(input, other, "atan2")
    return Atan2.apply(a, b)


def hypot(input, other):
    """sqrt(input^2 + other^2) elementwise, without overflow; broadcasts.
    dL/dinput = dL/dz * input / z, dL/dother = dL/dz * other / z."""
    a, b = float_operands(input, other, "hypot", integers=False)
    return Hypot.apply(a, b)


# NumPy's names, as torch has them too
arcsin, arccos, arctan, arctan2 = asin, acos, atan, atan2
arcsinh, arccosh, arctanh = asinh, acosh, atanh
