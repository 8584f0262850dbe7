"""The special functions as differentiable ops: erfc, erfinv, lgamma, digamma, polygamma,
mvlgamma, i0, igamma and igammac.

Their values come from the array functions of special.py (erf's family), gamma.py and
bessel.py, computed in float64 and rounded to the input's dtype. Their gradients are
each other, which is what makes create_graph work through them:

    d/dx lgamma(x)       = digamma(x)
    d/dx digamma(x)      = polygamma(1, x)
    d/dx polygamma(n, x) = polygamma(n + 1, x)
    d/dx i0(x)           = i1(x),   d/dx i1(x) = i0(x) - i1(x) / x
    d/dx igamma(a, x)    = x^(a-1) e^-x / Gamma(a)   (= -d/dx igammac(a, x))

As in torch, igamma and igammac have no derivative with respect to a (backward raises
if a requires grad): d/da has no closed form.

On CUDA tensors, erfc, erfinv, digamma, polygamma and i0 run on the GPU (array formulas
with a fixed number of steps; polygamma copies one number, the smallest x, to the host
to choose its number of terms). lgamma (and so mvlgamma and igamma's gradient), igamma,
igammac and i1 (i0's gradient) raise an error naming the op: they run on the CPU only,
because their loops decide element by element, in Python or after every term, when to
stop.
"""

import math

import numpy as np

from minigrad.array_module import array_module
from minigrad.autograd.function import Function
from minigrad.creation import as_tensor, from_numpy
from minigrad.ops import bessel, gamma, special
from minigrad.ops.broadcast import unbroadcast
from minigrad.ops.elementwise import where
from minigrad.ops.promotion import float_operands, floating


def _as(values, x):
    """float64 values back in the dtype of tensor x (a NumPy or a GPU array)."""
    values = values if array_module(values) is not np else np.asarray(values)
    return values.astype(x.dtype, copy=False)


class Erfc(Function):
    """y = erfc x = 1 - erf x;  dL/dx = -dL/dy * 2/sqrt(pi) * e^(-x^2)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return special.erfc(x.array)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * (-(x * x)).exp() * (-2.0 / math.sqrt(math.pi))


class Erfinv(Function):
    """y = erfinv x, the y with erf y = x;  dL/dx = dL/dy * sqrt(pi)/2 * e^(y^2)
    (the reciprocal of erf's slope at y)."""

    @staticmethod
    def forward(ctx, x):
        y = from_numpy(special.erfinv(x.array))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return grad * (y * y).exp() * (math.sqrt(math.pi) / 2.0)


class Lgamma(Function):
    """y = ln |Gamma(x)|;  dL/dx = dL/dy * digamma(x)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _as(gamma.lgamma(x.array), x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * Polygamma.apply(x, n=0)


class Polygamma(Function):
    """y = polygamma(n, x), the n-th derivative of digamma (n = 0: digamma itself);
    dL/dx = dL/dy * polygamma(n + 1, x)."""

    @staticmethod
    def forward(ctx, x, n):
        ctx.save_for_backward(x)
        ctx.n = n
        return _as(gamma.polygamma(n, x.array), x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * Polygamma.apply(x, n=ctx.n + 1)


class I0(Function):
    """y = I0(x), the modified Bessel function of order 0;  dL/dx = dL/dy * I1(x)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _as(bessel.i0(x.array), x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * I1.apply(x)


class I1(Function):
    """y = I1(x), the modified Bessel function of order 1 (I0's derivative);
    dL/dx = dL/dy * (I0(x) - I1(x) / x), which is 1/2 at x = 0."""

    @staticmethod
    def forward(ctx, x):
        y = from_numpy(_as(bessel.i1(x.array), x))
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        at_zero = x == 0
        slope = I0.apply(x) - y / where(at_zero, 1.0, x)
        return grad * where(at_zero, 0.5, slope)


class Igamma(Function):
    """z = P(a, x) (or, with upper=True, Q(a, x) = 1 - P(a, x)), the regularized
    incomplete gamma function;  dL/dx = +-dL/dz * x^(a-1) e^-x / Gamma(a).
    There is no gradient for a: backward raises if a requires one, as torch's."""

    @staticmethod
    def forward(ctx, a, x, upper):
        ctx.save_for_backward(a, x)
        ctx.upper = upper
        values = gamma.igammac(a.array, x.array) if upper else gamma.igamma(a.array, x.array)
        return _as(values, x)

    @staticmethod
    def backward(ctx, grad):
        a, x = ctx.saved_tensors
        need_a, need_x = ctx.needs_input_grad
        name = "igammac" if ctx.upper else "igamma"
        if need_a:
            raise NotImplementedError(f"the derivative for '{name}: input' is not implemented.")
        density = ((a - 1.0) * x.log() - x - Lgamma.apply(a)).exp()  # the gamma(a) density at x
        return None, unbroadcast(-grad * density if ctx.upper else grad * density, x.shape)


# ---- torch-level functions -------------------------------------------------------------
def erfc(input):
    """The complementary error function 1 - erf(x), accurate where erf is close to 1;
    see Tensor.erfc."""
    return as_tensor(input).erfc()


def erfinv(input):
    """The inverse of erf, defined on [-1, 1]; see Tensor.erfinv."""
    return as_tensor(input).erfinv()


def lgamma(input):
    """ln |Gamma(x)| elementwise; see Tensor.lgamma."""
    return as_tensor(input).lgamma()


def digamma(input):
    """d/dx ln Gamma(x) elementwise; see Tensor.digamma."""
    return as_tensor(input).digamma()


def polygamma(n, input):
    """The n-th derivative of digamma elementwise (n >= 0); see Tensor.polygamma."""
    return as_tensor(input).polygamma(n)


def mvlgamma(input, p):
    """The log of the multivariate gamma function of dimension p, elementwise:
    lgamma(x) + lgamma(x - 1/2) + ... + lgamma(x - (p-1)/2) + p (p - 1) / 4 * ln(pi);
    see Tensor.mvlgamma."""
    return as_tensor(input).mvlgamma(p)


def i0(input):
    """The modified Bessel function of the first kind, order 0, elementwise; see Tensor.i0."""
    return as_tensor(input).i0()


def igamma(input, other):
    """The regularized lower incomplete gamma function P(a, x), a = input, x = other,
    elementwise with broadcasting. dL/dother = dL/dz * x^(a-1) e^-x / Gamma(a); none for
    input (backward raises if it requires grad)."""
    a, x = float_operands(input, other, "igamma", integers=False)
    return Igamma.apply(a, x, upper=False)


def igammac(input, other):
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x), a = input,
    x = other, elementwise with broadcasting; gradients as igamma's, negated."""
    a, x = float_operands(input, other, "igammac", integers=False)
    return Igamma.apply(a, x, upper=True)


def multivariate_lgamma(x, p):
    """mvlgamma's sum, for Tensor.mvlgamma: the lgammas of x, x - 1/2, ..., x - (p-1)/2
    plus p (p - 1) / 4 * ln(pi); its gradient is the sum of their digammas."""
    if not isinstance(p, int) or p < 1:
        raise RuntimeError(f"mvlgamma: p has to be greater than or equal to 1, got {p!r}")
    x = floating(x)
    total = Lgamma.apply(x)
    for i in range(1, p):
        total = total + Lgamma.apply(x - i / 2.0)
    return total + p * (p - 1) / 4.0 * math.log(math.pi)
