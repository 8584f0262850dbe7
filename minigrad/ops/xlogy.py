"""x * ln(y), with 0 where x is 0: the term of every entropy and log-likelihood that
holds a count or a probability times a log (0 ln 0 = 0 by the limit x ln x -> 0).

    z = xlogy(x, y);   dz/dx = ln y (0 where x = 0 and y <= 0, as torch),   dz/dy = x / y
"""

import numpy as np

from minigrad.autograd.function import Function
from minigrad.creation import from_numpy
from minigrad.ops.broadcast import unbroadcast
from minigrad.ops.elementwise import Where


class Xlogy(Function):
    """z = x ln y, and 0 where x == 0 (unless y is NaN);  dL/dx = dL/dz ln y (0 where x == 0
    and y <= 0, where ln y is no number), dL/dy = dL/dz x / y."""

    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        with np.errstate(divide="ignore", invalid="ignore"):
            z = x.array * np.log(y.array)
        return np.where((x.array == 0) & ~np.isnan(y.array), 0.0, z).astype(z.dtype)

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        zero = from_numpy(np.zeros((), dtype=grad.dtype))
        undefined = from_numpy((x.array == 0) & (y.array <= 0))
        with np.errstate(divide="ignore", invalid="ignore"):
            grad_x = grad * Where.apply(undefined, zero, y.log())
        grad_y = grad * x / y
        return unbroadcast(grad_x, x.shape), unbroadcast(grad_y, y.shape)


def xlogy(x, y):
    """x * ln(y) of two tensors (broadcast), 0 where x is 0 (see Xlogy)."""
    return Xlogy.apply(x, y)
