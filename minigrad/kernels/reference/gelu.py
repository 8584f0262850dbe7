"""GELU and its slope, as array expressions: the reference (Gelu in ops/activation.py calls it).

    y = x Phi(x),    s = GELU'(x) = Phi(x) + x phi(x),
    Phi(x) = (1 + erf(x / sqrt 2)) / 2,    phi(x) = e^(-x^2/2) / sqrt(2 pi)

approximate='tanh': Phi(x) ~ (1 + tanh(u)) / 2, u = sqrt(2/pi) (x + 0.044715 x^3), and
s = Phi(x) + x (1 - tanh(u)^2) / 2 du/dx.

Gelu's forward computes s along with y, so that its backward is one multiply,
dL/dx = dL/dy * s. The expressions run in the array module of x (NumPy's functions hand
a CuPy array to CuPy), so this is also the form a CUDA tensor's GELU takes. Written this
way, y and s take about ten passes over the array; the CPU kernel (kernels/cpu/gelu.py)
computes both in one.
"""

import math

import numpy as np

from minigrad.kernels.reference.special import erf

SQRT1_2 = 1.0 / math.sqrt(2.0)
INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
TANH_K, TANH_C = math.sqrt(2.0 / math.pi), 0.044715  # approximate='tanh': u = K (x + C x^3)


def formulas(x, slope, approximate):
    """(y, s) for a float32 or float64 array x, s None unless `slope`."""
    if approximate == "tanh":
        t = np.tanh(TANH_K * (x + TANH_C * x * x * x))
        cdf = 0.5 * (1.0 + t)
        du_dx = TANH_K * (1.0 + 3.0 * TANH_C * x * x)
        s = cdf + 0.5 * x * (1.0 - t * t) * du_dx if slope else None
    else:
        cdf = 0.5 * (1.0 + erf(x * x.dtype.type(SQRT1_2)))
        s = cdf + x * (np.exp(-0.5 * x * x) * x.dtype.type(INV_SQRT_2PI)) if slope else None
    return x * cdf, s


def gelu_and_slope(x, slope=True, approximate="none"):
    """(y, s) for the array x: y = GELU(x) and s = GELU'(x) (None unless `slope`), in
    x's shape and dtype; approximate='tanh' for the tanh form. float16 is computed in
    float32, any other dtype in float64."""
    work = np.float32 if x.dtype in (np.float32, np.float16) else np.float64
    y, s = formulas(x.astype(work, copy=False), slope, approximate)
    return y.astype(x.dtype, copy=False), (s.astype(x.dtype, copy=False) if slope else None)


def gelu_backward(grad, slope):
    """dL/dx = dL/dy * s, from the slope s that the forward kept."""
    return grad * slope
