"""erf, erfc and erfinv of arrays (their Functions, with the gradients, are in
elementwise.py and special_functions.py), and `host_only`, the error of a special
function that has no GPU form.

erf and erfc come from the kernels (`backends.kernels("special")`): on the CPU, compiled
loops (kernels/cpu/special.py: a vectorised rational function for float32, `math.erf` for
float64); under ``mg.backends.use("numpy")`` and on a GPU array (a CUDA tensor's), the
reference's array expressions (kernels/reference/special.py). erfinv is written here,
with erf and erfc, by Newton's method.

The kernels are imported on the first call, not when this module is imported: the CPU
ones import Numba, which takes longer than importing all of minigrad, and most programs
never call erf.
"""

import math

import numpy as np

from minigrad import backends
from minigrad.array_module import array_module


def erf(x):
    """erf(x) = 2/sqrt(pi) * integral_0^x exp(-t^2) dt, elementwise, in x's dtype."""
    return backends.kernels("special", array=x).erf(x)


def erfc(x):
    """erfc(x) = 1 - erf(x), without the cancellation of 1 - erf(x) for large x
    (erfc(6) = 2.2e-17, which 1 - erf(6) rounds to 0), in x's dtype."""
    return backends.kernels("special", array=x).erfc(x)


def host_only(x, op, why):
    """Raise the error of a special function with no GPU form here when x is a GPU array:
    it names the op, says why, and what to do."""
    if array_module(x) is not np:
        raise RuntimeError(
            f"{op}: runs on the CPU only ({why}); move the tensor to the CPU first (x.cpu()), "
            "and back with .cuda() after"
        )


# ---- erfinv -----------------------------------------------------------------------------
# erfinv's first guess: Giles's single-precision approximation ("Approximating the erfinv
# function", GPU Computing Gems, 2011), a polynomial in w = -ln(1 - p^2), one for the
# centre (w < 5) and one, in sqrt(w), for the tails. Highest power first.
def polynomial(coefficients, x):
    """c0 x^(n-1) + c1 x^(n-2) + ... + c(n-1), by Horner's rule (NumPy's polyval, which
    CuPy's takes only with the coefficients already on the GPU): n - 1 multiply-adds."""
    total = np.zeros_like(x)
    for c in coefficients:
        total = total * x + c
    return total


_ERFINV_CENTRE = (
    2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
    -0.00125372503, -0.00417768164, 0.246640727, 1.50140941,
)  # fmt: skip
_ERFINV_TAIL = (
    -0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
    -0.0076224613, 0.00943887047, 1.00167406, 2.83297682,
)  # fmt: skip


def erfinv(p):
    """The x with erf(x) = p, for p in [-1, 1] (+-inf at +-1, NaN outside), in p's dtype.

    Giles's polynomial guesses x to about 1e-7 where float32 can tell p from 1 (its
    range); then Newton's method, x <- x - f(x) / f'(x), which doubles the correct digits
    at each step, until the steps stop moving x (two or three steps; more from the rough
    guesses beyond float32's range). Where |p| > 0.5 it solves erfc(x) = 1 - |p| rather
    than erf(x) = |p|: 1 - |p| is exact there, and the small erfc(x) keeps the digits that
    erf(x), close to 1, would have rounded away.
    """
    on_device = array_module(p) is not np
    p = p if on_device else np.asarray(p)
    a = np.abs(p.astype(np.float64))  # erfinv is odd: solve for |p|, give back p's sign
    with np.errstate(divide="ignore", invalid="ignore"):
        w = -np.log((1.0 - a) * (1.0 + a))
        centre = polynomial(_ERFINV_CENTRE, w - 2.5)
        tail = polynomial(_ERFINV_TAIL, np.sqrt(w) - 3.0)
        x = np.where(w < 5.0, centre, tail) * a
        x = np.where(a < 1.0, x, 0.0)  # the guesses at |p| >= 1 are replaced below
        near_one = a > 0.5
        # on a GPU, a fixed number of steps: asking whether to stop is a copy to the host
        # after every step; the guess is within 1e-7 but in the far tails, and six steps
        # from there reach double precision
        for _ in range(6 if on_device else 100):
            slope = 2.0 / math.sqrt(math.pi) * np.exp(-x * x)  # d erf(x) / dx
            # f(x); erfc's slope is -erf's
            gap = np.where(near_one, (1.0 - a) - erfc(x), erf(x) - a)
            step = np.where(a < 1.0, gap / slope, 0.0)
            x = x - step
            if not on_device and not np.any(np.abs(step) > 1e-16 * np.abs(x)):
                break
        x = np.where(a == 1.0, np.inf, np.where(a > 1.0, np.nan, x))
    return (np.sign(p) * x).astype(p.dtype if p.dtype.kind == "f" else np.float64, copy=False)
