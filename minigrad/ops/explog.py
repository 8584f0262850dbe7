"""The exponentials and logarithms beyond exp and log: other bases, the forms that stay
accurate near zero, and the log of a sum of exponentials.

- log1p(x) = ln(1 + x) and expm1(x) = e^x - 1 keep their digits for tiny x, where
  1 + x would round them away (log1p(1e-10) is 1e-10; log(1 + 1e-10) is 1.00000008e-10);
- log2, log10, exp2: the bases 2 and 10 (d/dx log2 x = 1 / (x ln 2), d/dx 2^x = 2^x ln 2);
- logaddexp(a, b) = ln(e^a + e^b) without overflow, whose gradient is a softmax of two:
  dz/da = e^a / (e^a + e^b) = e^(a - z);
- xlogy(x, y) = x ln y, and 0 where x = 0 (the convention of entropies: 0 ln 0 = 0);
- logit(p) = ln(p / (1 - p)), the inverse of the sigmoid;
- float_power, ldexp, frexp: powers computed in float64, and x * 2^e split and joined.

Integer and bool inputs are computed in the default float dtype, as in torch.
"""

import math
from collections import namedtuple

import numpy as np

from minigrad import dtypes
from minigrad.array_module import array_module
from minigrad.autograd.function import Function
from minigrad.creation import as_tensor, from_numpy
from minigrad.ops.broadcast import unbroadcast
from minigrad.ops.elementwise import where
from minigrad.ops.promotion import float_operands
from minigrad.tensor import Tensor

LN2, LN10 = math.log(2.0), math.log(10.0)


def _quietly(fn, *arrays):
    """fn(*arrays) without NumPy's warnings: -inf at 0 and NaN below it are the answer."""
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        return fn(*arrays)


# ---- one operand -----------------------------------------------------------------------
class Log1p(Function):
    """y = ln(1 + x);  dL/dx = dL/dy / (1 + x)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _quietly(np.log1p, x.array)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad / (x + 1.0)


class Expm1(Function):
    """y = e^x - 1;  dL/dx = dL/dy * (y + 1)."""

    @staticmethod
    def forward(ctx, x):
        y = from_numpy(_quietly(np.expm1, x.array))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return grad * (y + 1.0)


class Log2(Function):
    """y = log2 x;  dL/dx = dL/dy / (x ln 2)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _quietly(np.log2, x.array)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad / (x * LN2)


class Log10(Function):
    """y = log10 x;  dL/dx = dL/dy / (x ln 10)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _quietly(np.log10, x.array)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad / (x * LN10)


class Exp2(Function):
    """y = 2^x;  dL/dx = dL/dy * y ln 2."""

    @staticmethod
    def forward(ctx, x):
        y = from_numpy(_quietly(np.exp2, x.array))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return grad * y * LN2


class Logit(Function):
    """y = ln(p / (1 - p)), with p = x clamped to [eps, 1 - eps] when eps is given;
    dL/dx = dL/dy / (x (1 - x)): 0 outside [eps, 1 - eps] when eps is given (the clamp
    is flat there), NaN outside [0, 1] when it is not (as torch)."""

    @staticmethod
    def forward(ctx, x, eps=None):
        ctx.save_for_backward(x)
        ctx.eps = eps
        p = x.array if eps is None else np.clip(x.array, eps, 1.0 - eps)
        return _quietly(lambda p: np.log(p / (1.0 - p)), p)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        slope = grad / (x * (1.0 - x))
        if ctx.eps is None:
            return where((x < 0.0) | (x > 1.0), math.nan, slope)
        return where((x < ctx.eps) | (x > 1.0 - ctx.eps), 0.0, slope)


# ---- two operands ----------------------------------------------------------------------
class LogAddExp(Function):
    """z = ln(e^a + e^b);  dL/da = dL/dz * e^(a - z),  dL/db = dL/dz * e^(b - z)."""

    @staticmethod
    def forward(ctx, a, b):
        z = from_numpy(np.logaddexp(a.array, b.array))
        ctx.save_for_backward(a, b, z)
        return z

    @staticmethod
    def backward(ctx, grad):
        a, b, z = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        return (
            unbroadcast(grad * (a - z).exp(), a.shape) if need_a else None,
            unbroadcast(grad * (b - z).exp(), b.shape) if need_b else None,
        )


class LogAddExp2(Function):
    """z = log2(2^a + 2^b);  dL/da = dL/dz * 2^(a - z),  dL/db = dL/dz * 2^(b - z)."""

    @staticmethod
    def forward(ctx, a, b):
        z = from_numpy(np.logaddexp2(a.array, b.array))
        ctx.save_for_backward(a, b, z)
        return z

    @staticmethod
    def backward(ctx, grad):
        a, b, z = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        return (
            unbroadcast(grad * Exp2.apply(a - z), a.shape) if need_a else None,
            unbroadcast(grad * Exp2.apply(b - z), b.shape) if need_b else None,
        )


class Xlogy(Function):
    """z = x ln y, and 0 where x = 0 (unless y is NaN);
    dL/dx = dL/dz * ln y (0 where x = 0 and y <= 0, as torch),  dL/dy = dL/dz * x / y."""

    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        z = _quietly(lambda x, y: x * np.log(y), x.array, y.array)
        return np.where((x.array == 0) & ~np.isnan(y.array), 0.0, z).astype(z.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        need_x, need_y = ctx.needs_input_grad
        grad_x = grad_y = None
        if need_x:  # dL/dz ln y (as xlogy: 0 where dL/dz is); torch takes 0 where x = 0 and y <= 0
            slope = where((x == 0) & (y <= 0), 0.0, Xlogy.apply(grad, y))
            grad_x = unbroadcast(slope, x.shape)
        if need_y:
            grad_y = unbroadcast(grad * x / y, y.shape)
        return grad_x, grad_y


# ---- torch-level functions: mg.log1p(x) is x.log1p() -----------------------------------
def log1p(input):
    """ln(1 + input) elementwise, accurate for tiny input; see Tensor.log1p."""
    return as_tensor(input).log1p()


def expm1(input):
    """e^input - 1 elementwise, accurate for tiny input; see Tensor.expm1."""
    return as_tensor(input).expm1()


def log2(input):
    """Base-2 logarithm elementwise; see Tensor.log2."""
    return as_tensor(input).log2()


def log10(input):
    """Base-10 logarithm elementwise; see Tensor.log10."""
    return as_tensor(input).log10()


def exp2(input):
    """2^input elementwise; see Tensor.exp2."""
    return as_tensor(input).exp2()


def logit(input, eps=None):
    """ln(p / (1 - p)) elementwise, the inverse of sigmoid; p is input clamped to
    [eps, 1 - eps] when eps is given. See Tensor.logit."""
    return as_tensor(input).logit(eps)


def logaddexp(input, other):
    """ln(e^input + e^other) elementwise, without overflow; broadcasts.
    dL/dinput = dL/dz * e^(input - z), dL/dother = dL/dz * e^(other - z)."""
    a, b = float_operands(input, other, "logaddexp", integers=False)
    return LogAddExp.apply(a, b)


def logaddexp2(input, other):
    """log2(2^input + 2^other) elementwise, without overflow; broadcasts.
    dL/dinput = dL/dz * 2^(input - z), dL/dother = dL/dz * 2^(other - z)."""
    a, b = float_operands(input, other, "logaddexp2", integers=False)
    return LogAddExp2.apply(a, b)


def xlogy(input, other):
    """input * ln(other) elementwise, 0 where input is 0 (unless other is NaN); either may
    be a number; broadcasts. dL/dinput = dL/dz * ln(other) (0 where input is 0 and other
    <= 0), dL/dother = dL/dz * input / other."""
    x, y = float_operands(input, other, "xlogy")
    return Xlogy.apply(x, y)


def float_power(input, exponent):
    """input ** exponent computed in float64 (the result is float64 whatever the dtypes);
    either may be a number. The gradient is pow's, cast back to each input's dtype."""
    if not isinstance(input, Tensor) and not isinstance(exponent, Tensor):
        input = as_tensor(input)
    if isinstance(exponent, Tensor):
        exponent = exponent.to(dtypes.float64)
    if isinstance(input, Tensor):
        return input.to(dtypes.float64) ** (
            exponent if isinstance(exponent, Tensor) else float(exponent)
        )
    return exponent.__rpow__(float(input))


def ldexp(input, other):
    """input * 2^other elementwise (other usually an integer tensor of exponents); the
    result is floating point. dL/dinput = dL/dz * 2^other."""
    return as_tensor(input) * exp2(other)


frexp_result = namedtuple("frexp", ["mantissa", "exponent"])
"""(mantissa, exponent), as torch.return_types.frexp."""


def frexp(input):
    """Split each element as input = mantissa * 2^exponent, with |mantissa| in [0.5, 1)
    (0 for 0): a named tuple (mantissa, exponent), exponent an int32 tensor.
    dL/dinput = dL/dmantissa / 2^exponent; the exponent has no gradient."""
    x = as_tensor(input)
    if x.dtype.kind != "f":
        raise RuntimeError(f"frexp: only supports floating-point dtypes, got {x.dtype}")
    exponent = np.frexp(x.array)[1].astype(np.int32)
    # x * 2^-exponent is the mantissa exactly (a power of 2 only moves the binary point),
    # and as a product it carries the gradient
    mantissa = x * from_numpy(np.ldexp(array_module(x.array).ones((), dtype=x.dtype), -exponent))
    return frexp_result(mantissa, from_numpy(exponent))
