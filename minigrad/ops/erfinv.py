"""The inverse error function, which turns a probability into a normal quantile:

    y = erfinv(x)  where erf(y) = x, for x in (-1, 1);   dy/dx = sqrt(pi)/2 * e^(y^2)

(the derivative of an inverse function is 1 over the derivative of the function, and
d erf(y)/dy = 2/sqrt(pi) e^(-y^2)). A normal distribution's icdf is
loc + scale * sqrt(2) * erfinv(2p - 1).

NumPy has no erfinv. This one starts from Giles' polynomial approximation (Giles 2010,
"Approximating the erfinv function", accurate to about 1e-7 relative) and then takes two
Newton steps on erf(y) - x = 0 with the exact erf, each of which doubles the number of
correct digits: double precision after two (a few more within 1e-7 of +-1, where the
polynomial, made for float32, is a rougher start).
"""

import math

import numpy as np

from minigrad.autograd.function import Function
from minigrad.creation import from_numpy
from minigrad.ops import special

# Giles' coefficients, highest power first: erfinv(x) ~ x p(w), w = -ln((1 - x)(1 + x)),
# one polynomial in w - 2.5 for the centre (w < 5), one in sqrt(w) - 3 for the tails
_CENTRE = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
           -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)  # fmt: skip
_TAILS = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
          -0.0076224613, 0.00943887047, 1.00167406, 2.83297682)  # fmt: skip


def _horner(coefficients, w):
    p = np.zeros_like(w)
    for c in coefficients:
        p = p * w + c
    return p


_MAX_STEPS = 8  # two suffice up to |x| = 1 - 1e-7, where Giles' polynomial is accurate; a few more past it
_erfc = np.vectorize(math.erfc, otypes=[np.float64])


def erfinv_array(x):
    """erfinv elementwise in float64: +-inf at +-1, NaN outside [-1, 1] (as torch)."""
    x = np.asarray(x, dtype=np.float64)
    inside = np.abs(x) < 1
    a = np.abs(np.where(inside, x, 0.0))  # erfinv is odd: solve for |x|, give y x's sign
    w = -np.log((1.0 - a) * (1.0 + a))
    y = np.where(w < 5, _horner(_CENTRE, w - 2.5), _horner(_TAILS, np.sqrt(w) - 3.0)) * a
    tail = a > 0.5
    for _ in range(_MAX_STEPS):  # Newton: y <- y - f(y) / f'(y)
        density = 2.0 / math.sqrt(math.pi) * np.exp(-y * y)  # erf'(y)
        # centre: f = erf(y) - a, f' = erf'(y); tails: f = ln erfc(y) - ln(1 - a), f' = -erf'(y) / erfc(y)
        # (ln erfc is nearly a parabola, so Newton converges on it from afar)
        complement = _erfc(np.where(tail, y, 0.0))
        step = np.where(tail, (np.log(1.0 - a) - np.log(complement)) * complement, special.erf(y) - a) / density
        y = y - step
        if np.all(np.abs(step) <= 1e-15 * np.abs(y)):
            break
    y = np.copysign(y, x)
    edge = np.where(np.abs(x) == 1, np.copysign(np.inf, x), np.nan)  # NaN in, NaN out too
    return np.where(inside, y, edge)


class Erfinv(Function):
    """y = erfinv(x);  dL/dx = dL/dy * sqrt(pi)/2 * e^(y^2)."""

    @staticmethod
    def forward(ctx, x):
        y = from_numpy(np.asarray(erfinv_array(x.array), dtype=x.dtype))
        ctx.save_for_backward(y)  # the gradient is written with the output, as Exp's
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return grad * (y * y).exp() * (math.sqrt(math.pi) / 2)


def erfinv(x):
    """erfinv of a tensor, elementwise (see Erfinv)."""
    return Erfinv.apply(x)
