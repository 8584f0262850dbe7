"""The modified Bessel functions of the first kind of orders 0 and 1, I0 and I1.

I0 is the normalizer of the von Mises distribution and of the Kaiser window; its
derivative is I1. NumPy has I0 (`np.i0`, Cephes' Chebyshev expansions, as torch's), not
I1, which is summed here from its power series

    I1(x) = sum_{k>=0} (x/2)^(2k+1) / (k! (k+1)!).

Every term has the sign of x, so the sum has no cancellation and is accurate to a few
units in the last place wherever it does not overflow (|x| < 713).
"""

import numpy as np

from minigrad.array_module import array_module
from minigrad.ops.special import host_only


def i0(x):
    """I0(x) = sum_k (x/2)^2k / (k!)^2, elementwise, in float64."""
    # on a GPU array np.i0 is the GPU module's i0 (CuPy has it)
    x = np.asarray(x, dtype=np.float64) if array_module(x) is np else x.astype(np.float64)
    with np.errstate(invalid="ignore"):  # np.i0(inf) divides inf by inf: NaN, as torch's
        return np.i0(x)


def i1(x):
    """I1(x), elementwise, in float64: the power series, summed until the terms no longer
    change the sum (about |x| / 2 + 20 terms)."""
    host_only(
        x,
        "i1 (the gradient of i0)",
        "its series stops when the terms stop changing the sum: a GPU would ask after each term",
    )
    x = np.asarray(x, dtype=np.float64)
    term = x / 2.0  # k = 0
    total = term.copy()
    quarter_square = x * x / 4.0
    k = 0
    with np.errstate(over="ignore", invalid="ignore"):
        while True:
            k += 1
            term = term * quarter_square / (k * (k + 1))
            total = total + term
            # NaN and inf compare False: they stop the loop as they are
            if not np.any(np.abs(term) > np.abs(total) * 1e-17):
                return total
