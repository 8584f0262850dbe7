"""Tensor's elementwise math methods: `t.exp()`, `t.sin()`, `t.clamp(...)`, the named forms of
the arithmetic operators (`t.add(u, alpha=2)`), the logic and bit methods and the tests
for special values (`isnan`, `isfinite`).

`Tensor` inherits them (tensor.py). Each checks its arguments and applies an op of
`minigrad/ops/`, whose docstring states the forward and the gradient.
"""

import math

import numpy as np

from minigrad import dtypes
from minigrad._args import normalize_dim
from minigrad.tensor_inplace import _as_array

# Bound by tensor.py once they exist: the Tensor class, and the autograd and ops packages
# that import it (the one break in the import circle is at the bottom of tensor.py).
Tensor = ops = None


class ElementwiseMethods:
    """The mixin Tensor inherits these methods from (see the module docstring)."""

    __slots__ = ()

    # ---- logic and bits, by name (the operators are in tensor.py) ----------------------
    def bitwise_and(self, other):
        """The bits set in both (logical and for bools); integer and bool tensors, as `&`."""
        return ops.bitwise.bitwise_and(self, other)

    def bitwise_or(self, other):
        """The bits set in either (logical or for bools); integer and bool tensors, as `|`."""
        return ops.bitwise.bitwise_or(self, other)

    def bitwise_xor(self, other):
        """The bits set in exactly one (logical xor for bools); integer and bool tensors, as `^`."""
        return ops.bitwise.bitwise_xor(self, other)

    def bitwise_not(self):
        """Every bit flipped (not, for bools); integer and bool tensors, as `~`."""
        return ops.bitwise.bitwise_not(self)

    def bitwise_left_shift(self, other):
        """self * 2^other by shifting bits left; integer tensors, as `<<`."""
        return ops.bitwise.bitwise_left_shift(self, other)

    def bitwise_right_shift(self, other):
        """floor(self / 2^other) by shifting bits right; integer tensors, as `>>`."""
        return ops.bitwise.bitwise_right_shift(self, other)

    def logical_and(self, other):
        """Elementwise and, zero read as False: a bool tensor, no gradient."""
        return ops.bitwise.logical_and(self, other)

    def logical_or(self, other):
        """Elementwise or, zero read as False: a bool tensor, no gradient."""
        return ops.bitwise.logical_or(self, other)

    def logical_xor(self, other):
        """Elementwise exclusive or, zero read as False: a bool tensor, no gradient."""
        return ops.bitwise.logical_xor(self, other)

    def logical_not(self):
        """Elementwise not (zero is False): a bool tensor, no gradient."""
        return ops.bitwise.logical_not(self)

    def signbit(self):
        """Elementwise: True where the sign bit is set (negatives, -0.0), a bool tensor."""
        return ops.rounding.signbit(self)

    def isposinf(self):
        """Elementwise: True where the value is +inf (a bool tensor, no gradient)."""
        return ops.compare.isposinf(self)

    def isneginf(self):
        """Elementwise: True where the value is -inf (a bool tensor, no gradient)."""
        return ops.compare.isneginf(self)

    def isnan(self):
        """Elementwise: True where the value is NaN (a bool tensor, no gradient)."""
        return Tensor._make(_as_array(np.isnan(self.array)))

    def isinf(self):
        """Elementwise: True where the value is +inf or -inf (a bool tensor, no gradient)."""
        return Tensor._make(_as_array(np.isinf(self.array)))

    def isfinite(self):
        """Elementwise: True where the value is neither inf nor NaN (a bool tensor, no gradient)."""
        return Tensor._make(_as_array(np.isfinite(self.array)))

    def any(self, dim=None, keepdim=False):
        """True if any element (along `dim`, or of all) is nonzero; a bool tensor, no gradient."""
        return ops.logic.any(self, dim, keepdim)

    def all(self, dim=None, keepdim=False):
        """True if every element (along `dim`, or of all) is nonzero; a bool tensor, no gradient."""
        return ops.logic.all(self, dim, keepdim)

    def equal(self, other):
        """True if both have the same shape and elements (one Python bool, as torch.equal)."""
        return ops.logic.equal(self, other)

    def allclose(self, other, rtol=1e-5, atol=1e-8, equal_nan=False):
        """True if every |self - other| <= atol + rtol * |other| (a Python bool), as
        `mg.allclose`."""
        return ops.logic.allclose(self, other, rtol, atol, equal_nan)

    def isclose(self, other, rtol=1e-5, atol=1e-8, equal_nan=False):
        """Elementwise |self - other| <= atol + rtol * |other| (a bool tensor), as `mg.isclose`."""
        return ops.logic.isclose(self, other, rtol, atol, equal_nan)

    # ---- math -------------------------------------------------------------------------
    def exp(self):
        """y = e^x; dL/dx = dL/dy * y."""
        return ops.elementwise.Exp.apply(ops.promotion.floating(self))

    def log(self):
        """y = ln x (natural log); dL/dx = dL/dy / x."""
        return ops.elementwise.Log.apply(ops.promotion.floating(self))

    def sqrt(self):
        """y = sqrt(x); dL/dx = dL/dy / (2 y)."""
        return ops.elementwise.Sqrt.apply(ops.promotion.floating(self))

    def rsqrt(self):
        """y = 1 / sqrt(x); dL/dx = dL/dy * (-y^3 / 2)."""
        return ops.elementwise.Rsqrt.apply(ops.promotion.floating(self))

    def sin(self):
        """y = sin x; dL/dx = dL/dy * cos x."""
        return ops.elementwise.Sin.apply(ops.promotion.floating(self))

    def cos(self):
        """y = cos x; dL/dx = -dL/dy * sin x."""
        return ops.elementwise.Cos.apply(ops.promotion.floating(self))

    def tanh(self):
        """y = tanh x; dL/dx = dL/dy * (1 - y^2)."""
        return ops.elementwise.Tanh.apply(ops.promotion.floating(self))

    def sigmoid(self):
        """y = 1 / (1 + e^-x); dL/dx = dL/dy * y (1 - y)."""
        return ops.elementwise.Sigmoid.apply(ops.promotion.floating(self))

    def erf(self):
        """y = erf(x); dL/dx = dL/dy * 2 / sqrt(pi) * exp(-x^2)."""
        return ops.elementwise.Erf.apply(ops.promotion.floating(self))

    def relu(self):
        """y = max(x, 0); dL/dx = dL/dy where x > 0, else 0."""
        return ops.elementwise.Relu.apply(self)

    def prelu(self, weight):
        """y = x where x > 0, else weight * x, one learned slope per channel (dim 1) or one
        for all; as `F.prelu`."""
        return ops.piecewise.prelu(self, weight)

    def hardshrink(self, lambd=0.5):
        """y = x where |x| > lambd, else 0; dL/dx = dL/dy where |x| > lambd; as `F.hardshrink`."""
        return ops.piecewise.hardshrink(self, lambd)

    def abs(self):
        """y = |x|; dL/dx = dL/dy * sign(x) (0 at x = 0, as PyTorch)."""
        return ops.elementwise.Abs.apply(self)

    def sign(self):
        """-1, 0 or 1 by the sign of x; its gradient is zero everywhere (of a bool tensor:
        a copy)."""
        if self.dtype.kind == "b":
            return Tensor._make(self.array.copy())
        return ops.elementwise.Sign.apply(self)

    def floor(self):
        """The largest integer <= x, elementwise; its gradient is zero (a step function)."""
        return ops.elementwise.Floor.apply(self)

    def ceil(self):
        """The smallest integer >= x, elementwise; its gradient is zero (a step function)."""
        return ops.elementwise.Ceil.apply(self)

    def round(self, decimals=0):
        """x rounded to `decimals` places, halves to even (as PyTorch); its gradient is zero."""
        return ops.elementwise.Round.apply(self, decimals=decimals)

    def pow(self, exponent):
        """y = x ** exponent, the same as the `**` operator;
        dL/dx = dL/dy * exponent * x^(exponent - 1).
        """
        return self**exponent

    def square(self):
        """y = x * x; dL/dx = dL/dy * 2x (a bool tensor squares to int64, as `x ** 2` in torch)."""
        x = self.to(dtypes.int64) if self.dtype.kind == "b" else self
        return x * x

    def reciprocal(self):
        """y = 1 / x; dL/dx = -dL/dy / x^2."""
        return 1.0 / self

    def clamp(self, min=None, max=None):
        """Limit values to [min, max]; the gradient passes where min <= x <= max."""
        if min is None and max is None:
            raise ValueError("clamp: at least one of min and max must be given")
        if isinstance(min, Tensor) or isinstance(max, Tensor):
            # `where`, not maximum/minimum: at a tie x keeps the whole gradient, as PyTorch
            out = self if min is None else ops.elementwise.where(self < min, min, self)
            return out if max is None else ops.elementwise.where(out > max, max, out)
        x = self
        # an int tensor clamped to a float bound becomes float32, as PyTorch
        for bound in (min, max):
            if bound is not None and dtypes.scalar_result_type(x.dtype, bound) != x.dtype:
                x = x.to(dtypes.scalar_result_type(x.dtype, bound))
        return ops.elementwise.Clamp.apply(x, min=min, max=max)

    clip = clamp
    """An alias of clamp (NumPy's name)."""

    def maximum(self, other):
        """The elementwise larger of self and other (broadcast); the gradient goes to the larger,
        split in half at a tie (as PyTorch).
        """
        return ops.elementwise.maximum(self, other)

    def minimum(self, other):
        """The elementwise smaller of self and other (broadcast); the gradient goes to the smaller,
        split in half at a tie (as PyTorch).
        """
        return ops.elementwise.minimum(self, other)

    def softmax(self, dim):
        """exp(x) / sum(exp(x)) along `dim`, computed stably; dL/dx = y * (dL/dy - sum(dL/dy *
        y))."""
        return ops.activation.Softmax.apply(
            ops.promotion.floating(self), dim=normalize_dim(dim, self.ndim, "softmax")
        )

    def log_softmax(self, dim):
        """x - logsumexp(x) along `dim`, computed stably; dL/dx = dL/dy - softmax(x) *
        sum(dL/dy)."""
        return ops.activation.LogSoftmax.apply(
            ops.promotion.floating(self), dim=normalize_dim(dim, self.ndim, "log_softmax")
        )

    # ---- math: the long tail (minigrad/ops/trig.py, explog.py, special_functions.py, ...) --
    # Integer and bool tensors are computed in the default float dtype, as torch does.
    def tan(self):
        """y = tan x; dL/dx = dL/dy * (1 + y^2)."""
        return ops.trig.Tan.apply(ops.promotion.floating(self))

    def asin(self):
        """y = asin x, in [-pi/2, pi/2]; dL/dx = dL/dy / sqrt(1 - x^2)."""
        return ops.trig.Asin.apply(ops.promotion.floating(self))

    def acos(self):
        """y = acos x, in [0, pi]; dL/dx = -dL/dy / sqrt(1 - x^2)."""
        return ops.trig.Acos.apply(ops.promotion.floating(self))

    def atan(self):
        """y = atan x, in (-pi/2, pi/2); dL/dx = dL/dy / (1 + x^2)."""
        return ops.trig.Atan.apply(ops.promotion.floating(self))

    def sinh(self):
        """y = sinh x; dL/dx = dL/dy * cosh x."""
        return ops.trig.Sinh.apply(ops.promotion.floating(self))

    def cosh(self):
        """y = cosh x; dL/dx = dL/dy * sinh x."""
        return ops.trig.Cosh.apply(ops.promotion.floating(self))

    def asinh(self):
        """y = asinh x; dL/dx = dL/dy / sqrt(x^2 + 1)."""
        return ops.trig.Asinh.apply(ops.promotion.floating(self))

    def acosh(self):
        """y = acosh x (x >= 1); dL/dx = dL/dy / sqrt(x^2 - 1)."""
        return ops.trig.Acosh.apply(ops.promotion.floating(self))

    def atanh(self):
        """y = atanh x (|x| < 1); dL/dx = dL/dy / (1 - x^2)."""
        return ops.trig.Atanh.apply(ops.promotion.floating(self))

    def atan2(self, other):
        """z = atan2(self, other), the angle of the point (other, self); see `mg.atan2`."""
        return ops.trig.atan2(self, other)

    def hypot(self, other):
        """z = sqrt(self^2 + other^2), without overflow; see `mg.hypot`."""
        return ops.trig.hypot(self, other)

    arcsin, arccos, arctan, arctan2 = asin, acos, atan, atan2
    arcsinh, arccosh, arctanh = asinh, acosh, atanh

    def sinc(self):
        """y = sin(pi x) / (pi x), 1 at x = 0; dL/dx = dL/dy * (cos(pi x) - y) / x (0 at 0)."""
        return ops.trig.Sinc.apply(ops.promotion.floating(self))

    def deg2rad(self):
        """y = x * pi / 180; dL/dx = dL/dy * pi / 180."""
        return ops.promotion.floating(self) * (math.pi / 180.0)

    def rad2deg(self):
        """y = x * 180 / pi; dL/dx = dL/dy * 180 / pi."""
        return ops.promotion.floating(self) * (180.0 / math.pi)

    def log1p(self):
        """y = ln(1 + x), accurate for tiny x; dL/dx = dL/dy / (1 + x)."""
        return ops.explog.Log1p.apply(ops.promotion.floating(self))

    def expm1(self):
        """y = e^x - 1, accurate for tiny x; dL/dx = dL/dy * (y + 1)."""
        return ops.explog.Expm1.apply(ops.promotion.floating(self))

    def log2(self):
        """y = log2 x; dL/dx = dL/dy / (x ln 2)."""
        return ops.explog.Log2.apply(ops.promotion.floating(self))

    def log10(self):
        """y = log10 x; dL/dx = dL/dy / (x ln 10)."""
        return ops.explog.Log10.apply(ops.promotion.floating(self))

    def exp2(self):
        """y = 2^x; dL/dx = dL/dy * y ln 2."""
        return ops.explog.Exp2.apply(ops.promotion.floating(self))

    def logit(self, eps=None):
        """y = ln(p / (1 - p)), p = x clamped to [eps, 1 - eps] if eps is given; dL/dx =
        dL/dy / (x (1 - x)), 0 where the clamp holds x."""
        return ops.explog.Logit.apply(ops.promotion.floating(self), eps=eps)

    def xlogy(self, other):
        """z = self * ln(other), 0 where self is 0; see `mg.xlogy`."""
        return ops.explog.xlogy(self, other)

    def logaddexp(self, other):
        """z = ln(e^self + e^other), without overflow; see `mg.logaddexp`."""
        return ops.explog.logaddexp(self, other)

    def logaddexp2(self, other):
        """z = log2(2^self + 2^other), without overflow; see `mg.logaddexp2`."""
        return ops.explog.logaddexp2(self, other)

    def float_power(self, exponent):
        """self ** exponent computed in float64; see `mg.float_power`."""
        return ops.explog.float_power(self, exponent)

    def ldexp(self, other):
        """self * 2^other; see `mg.ldexp`."""
        return ops.explog.ldexp(self, other)

    def frexp(self):
        """(mantissa, exponent) with self = mantissa * 2^exponent; see `mg.frexp`."""
        return ops.explog.frexp(self)

    def erfc(self):
        """y = erfc x = 1 - erf x; dL/dx = -dL/dy * 2 / sqrt(pi) * exp(-x^2)."""
        return ops.special_functions.Erfc.apply(ops.promotion.floating(self))

    def erfinv(self):
        """y = erfinv x (erf y = x); dL/dx = dL/dy * sqrt(pi) / 2 * exp(y^2)."""
        return ops.special_functions.Erfinv.apply(ops.promotion.floating(self))

    def lgamma(self):
        """y = ln |Gamma(x)|; dL/dx = dL/dy * digamma(x)."""
        return ops.special_functions.Lgamma.apply(ops.promotion.floating(self))

    def digamma(self):
        """y = digamma(x) = d/dx ln Gamma(x); dL/dx = dL/dy * polygamma(1, x)."""
        return ops.special_functions.Polygamma.apply(ops.promotion.floating(self), n=0)

    def polygamma(self, n):
        """y = polygamma(n, x), the n-th derivative of digamma; dL/dx = dL/dy * polygamma(n + 1,
        x)."""
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise RuntimeError(
                f"polygamma(n, x) does not support negative n (or a non-integer n), got {n!r}"
            )
        return ops.special_functions.Polygamma.apply(ops.promotion.floating(self), n=n)

    def mvlgamma(self, p):
        """y = lgamma(x) + lgamma(x - 1/2) + ... + lgamma(x - (p-1)/2) + p (p - 1) / 4 * ln(pi),
        the log of the multivariate gamma function; dL/dx = dL/dy * (the sum of the same
        digammas)."""
        return ops.special_functions.multivariate_lgamma(self, p)

    def i0(self):
        """y = I0(x), the modified Bessel function of order 0; dL/dx = dL/dy * I1(x)."""
        return ops.special_functions.I0.apply(ops.promotion.floating(self))

    def igamma(self, other):
        """z = P(self, other), the regularized lower incomplete gamma function; see `mg.igamma`."""
        return ops.special_functions.igamma(self, other)

    def igammac(self, other):
        """z = Q(self, other) = 1 - P(self, other); see `mg.igammac`."""
        return ops.special_functions.igammac(self, other)

    def sgn(self):
        """The sign of x, -1, 0 or 1 (for real tensors, sign); its gradient is zero."""
        return self.sign()

    def trunc(self):
        """x rounded toward zero, elementwise; its gradient is zero (a step function)."""
        if self.dtype.kind == "b":
            raise NotImplementedError("trunc: not implemented for bool tensors")
        return ops.rounding.Trunc.apply(self)

    fix = trunc
    """An alias of trunc (NumPy's name)."""

    def frac(self):
        """y = x - trunc(x), the fractional part with x's sign; dL/dx = dL/dy."""
        if self.dtype.kind != "f":
            raise NotImplementedError(
                f"frac: not implemented for {self.dtype} tensors; expected floating point"
            )
        return ops.rounding.Frac.apply(self)

    def fmod(self, other):
        """The remainder of self / other with self's sign (C's fmod); see `mg.fmod`."""
        return ops.rounding.fmod(self, other)

    def remainder(self, other):
        """The remainder of self / other with other's sign, as `%`; see `mg.remainder`."""
        return ops.rounding.remainder(self, other)

    def floor_divide(self, other):
        """self / other rounded down, as `//`; its gradient is zero."""
        return ops.rounding.floor_divide(self, other)

    def true_divide(self, other):
        """self / other, true division (integers give floats), as `/`."""
        return self / other

    def copysign(self, other):
        """|self| with other's sign; see `mg.copysign`."""
        return ops.rounding.copysign(self, other)

    def nextafter(self, other):
        """The next float after self toward other; see `mg.nextafter`."""
        return ops.rounding.nextafter(self, other)

    def heaviside(self, values):
        """The step function: 0 below 0, values at 0, 1 above; see `mg.heaviside`."""
        return ops.rounding.heaviside(self, values)

    def addcmul(self, tensor1, tensor2, *, value=1):
        """self + value * tensor1 * tensor2; see `mg.addcmul`."""
        return ops.arithmetic.addcmul(self, tensor1, tensor2, value=value)

    def addcdiv(self, tensor1, tensor2, *, value=1):
        """self + value * tensor1 / tensor2; see `mg.addcdiv`."""
        return ops.arithmetic.addcdiv(self, tensor1, tensor2, value=value)

    def lerp(self, end, weight):
        """self + weight * (end - self), linear interpolation; see `mg.lerp`."""
        return ops.arithmetic.lerp(self, end, weight)

    def fmax(self, other):
        """The larger of the two, ignoring NaN; see `mg.fmax`."""
        return ops.arithmetic.fmax(self, other)

    def fmin(self, other):
        """The smaller of the two, ignoring NaN; see `mg.fmin`."""
        return ops.arithmetic.fmin(self, other)

    def nan_to_num(self, nan=0.0, posinf=None, neginf=None):
        """NaN, +inf and -inf replaced by numbers; see `mg.nan_to_num`."""
        return ops.arithmetic.nan_to_num(self, nan, posinf, neginf)

    def gcd(self, other):
        """The greatest common divisor, elementwise (integer tensors)."""
        return ops.arithmetic.gcd(self, other)

    def lcm(self, other):
        """The least common multiple, elementwise (integer tensors)."""
        return ops.arithmetic.lcm(self, other)

    def positive(self):
        """self itself, as `+self` (bool tensors raise, as in torch)."""
        return ops.arithmetic.positive(self)

    absolute = abs
    """An alias of abs: |x|."""

    # ---- the arithmetic operators by name, with torch's keyword arguments ---------------
    def add(self, other, *, alpha=1):
        """self + alpha * other, broadcast; dL/dself = dL/dy, dL/dother = alpha * dL/dy (each summed
        over its broadcast dims).
        """
        return ops.elementwise.add(self, other, alpha=alpha)

    def sub(self, other, *, alpha=1):
        """self - alpha * other, broadcast; dL/dself = dL/dy, dL/dother = -alpha * dL/dy."""
        return ops.elementwise.sub(self, other, alpha=alpha)

    def mul(self, other):
        """self * other, broadcast: the `*` operator; dL/dself = dL/dy * other, dL/dother = dL/dy *
        self."""
        return self * other

    def div(self, other, *, rounding_mode=None):
        """self / other, broadcast; dL/dself = dL/dy / other, dL/dother = -dL/dy * self / other^2.
        With `rounding_mode` ('trunc' or 'floor') the quotient is rounded and its gradient is 0.
        """
        return ops.elementwise.div(self, other, rounding_mode=rounding_mode)

    multiply, subtract, divide = mul, sub, div

    def neg(self):
        """-self; dL/dx = -dL/dy."""
        return -self

    negative = neg
    """An alias of neg: -x."""

    def clamp_min(self, min):
        """Limit the values from below: `clamp(min=min)`."""
        return self.clamp(min=min)

    def clamp_max(self, max):
        """Limit the values from above: `clamp(max=max)`."""
        return self.clamp(max=max)
