"""Activation functions as Functions, each with its derivative written out.

y = f(x) elementwise, so dL/dx = dL/dy * f'(x); the backward passes below are that
product with f' expressed through Tensor ops (so they can be differentiated again).
Softmax and log-softmax mix a whole dim, so their gradients have a correction term.
Relu and Sigmoid live with the other elementwise ops (elementwise.py); the functional
forms, which check the arguments and apply these, are in minigrad/nn/functional/activation.py.
"""

import math

import numpy as np

from minigrad import backends
from minigrad.autograd.function import Function
from minigrad.autograd.grad_mode import is_grad_enabled
from minigrad.creation import as_tensor, from_numpy
from minigrad.ops.elementwise import where


class LeakyRelu(Function):
    """y = x if x > 0 else slope * x;  dL/dx = dL/dy * (1 if x > 0 else slope)."""

    @staticmethod
    def forward(ctx, x, negative_slope=0.01):
        ctx.save_for_backward(x)
        ctx.slope = negative_slope
        return np.where(x.array > 0, x.array, x.array * negative_slope)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        positive = x.array > 0
        return grad * from_numpy(np.where(positive, 1.0, ctx.slope).astype(grad.dtype))


class Elu(Function):
    """y = x if x > 0 else alpha (e^x - 1);  dL/dx = dL/dy * (1 if x > 0 else y + alpha)."""

    @staticmethod
    def forward(ctx, x, alpha=1.0):
        ctx.save_for_backward(x)
        ctx.alpha = alpha
        # min(x, 0): no overflow on the positive side, which np.where discards anyway;
        # expm1, not exp - 1: near 0 it keeps the digits the subtraction would cancel
        return np.where(x.array > 0, x.array, alpha * np.expm1(np.minimum(x.array, 0)))

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        positive = from_numpy((x.array > 0).astype(grad.dtype))
        # alpha * e^x on the negative side, written with x so it can be differentiated again
        negative_slope = (x.clamp(max=0.0)).exp() * ctx.alpha
        return grad * (positive + (1.0 - positive) * negative_slope)


class Gelu(Function):
    """y = x * Phi(x), Phi the standard normal CDF;  dL/dx = dL/dy * (Phi(x) + x phi(x)).

    approximate='tanh' uses Phi(x) ~ (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) / 2.
    """

    @staticmethod
    def forward(ctx, x, approximate="none"):
        ctx.save_for_backward(x)
        ctx.approximate = approximate
        # y and the slope s = GELU'(x) together (on the CPU in one compiled pass, kernels/
        # cpu/gelu.py): both need Phi(x), and then backward is one multiply (on every core,
        # for a large x). s is kept, so only if x needs grad
        gelu = ctx.kernels = backends.kernels("gelu", array=x.array)
        y, ctx.slope = gelu.gelu_and_slope(x.array, slope=x.requires_grad, approximate=approximate)
        return y

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        if not is_grad_enabled():  # an ordinary backward: nothing will differentiate this one
            return from_numpy(ctx.kernels.gelu_backward(grad.array, ctx.slope))
        # create_graph=True: the gradient must itself be a graph, a function of x
        if ctx.approximate == "tanh":
            k = math.sqrt(2.0 / math.pi)
            inner = (x + x * x * x * 0.044715) * k
            t = inner.tanh()
            d_inner = (x * x * (3 * 0.044715) + 1.0) * k
            return grad * (0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * d_inner)
        return grad * GeluSlope.apply(x, slope=ctx.slope)


class GeluSlope(Function):
    """s = GELU'(x) = Phi(x) + x phi(x), with phi(x) = e^(-x^2/2) / sqrt(2 pi) the normal
    density;  dL/dx = dL/ds * phi(x) (2 - x^2)  (phi' = -x phi).

    Gelu's forward has computed s already (`slope`); this Function hands it back as a
    node of the graph, so that a recorded backward (create_graph=True) can differentiate
    Gelu's gradient again: its own backward, GELU'', is written with Tensor ops.
    """

    @staticmethod
    def forward(ctx, x, slope):
        ctx.save_for_backward(x)
        return slope

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        pdf = (x * x * -0.5).exp() / math.sqrt(2.0 * math.pi)
        return grad * pdf * (2.0 - x * x)


class Silu(Function):
    """y = x * sigmoid(x);  dL/dx = dL/dy * s (1 + x (1 - s)), s = sigmoid(x)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.array * x.sigmoid().array

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        s = x.sigmoid()
        return grad * s * (1.0 + x * (1.0 - s))


class Softplus(Function):
    """y = log(1 + e^(beta x)) / beta, and y = x where beta x > threshold (where the
    two agree to float precision);  dL/dx = dL/dy * sigmoid(beta x) (1 past threshold)."""

    @staticmethod
    def forward(ctx, x, beta=1.0, threshold=20.0):
        ctx.save_for_backward(x)
        ctx.beta, ctx.threshold = beta, threshold
        z = x.array * beta
        # log(1 + e^z) = max(z, 0) + log1p(e^-|z|) never overflows
        soft = (np.maximum(z, 0) + np.log1p(np.exp(-np.abs(z)))) / beta
        return np.where(z > threshold, x.array, soft)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        linear = x.array * ctx.beta > ctx.threshold
        return grad * where(from_numpy(linear), 1.0, (x * ctx.beta).sigmoid())


# --8<-- [start:softmax]
class Softmax(Function):
    """y = e^x / sum(e^x) along `dim` (shifted by the max so nothing overflows);
    dL/dx = y * (dL/dy - sum(dL/dy * y, dim))."""

    @staticmethod
    def forward(ctx, x, dim):
        # e^(x - max) / sum, by the softmax kernels (kernels/reference/softmax.py: NumPy)
        kernels = backends.kernels("softmax", array=x.array)
        y = from_numpy(kernels.softmax(x.array, dim))
        ctx.save_for_backward(y)
        ctx.dim = dim
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        if not is_grad_enabled():  # an ordinary backward: the same formula on the arrays
            kernels = backends.kernels("softmax", array=y.array)
            return from_numpy(kernels.softmax_backward(y.array, grad.array, ctx.dim))
        # BEGIN SOLUTION hint: y = softmax(x) was saved: dL/dx = y * (dL/dy - sum(dL/dy * y) over dim, kept as a size-1 dim)
        return y * (grad - (grad * y).sum(dim=ctx.dim, keepdim=True))
        # END SOLUTION

    # --8<-- [end:softmax]


# --8<-- [start:log_softmax]
class LogSoftmax(Function):
    """y = x - logsumexp(x) along `dim`;  dL/dx = dL/dy - softmax(x) * sum(dL/dy, dim)."""

    @staticmethod
    def forward(ctx, x, dim):
        # (x - max) - log(sum(e^(x - max))), by the softmax kernels
        kernels = backends.kernels("softmax", array=x.array)
        y = from_numpy(kernels.softmax(x.array, dim, log=True))
        ctx.save_for_backward(y)
        ctx.dim = dim
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        if not is_grad_enabled():  # an ordinary backward: the same formula on the arrays
            kernels = backends.kernels("softmax", array=y.array)
            return from_numpy(kernels.softmax_backward(y.array, grad.array, ctx.dim, log=True))
        # BEGIN SOLUTION hint: y = log_softmax(x) was saved, so softmax(x) = exp(y): dL/dx = dL/dy - softmax(x) * sum(dL/dy) over dim (keepdim)
        return grad - y.exp() * grad.sum(dim=ctx.dim, keepdim=True)
        # END SOLUTION

    # --8<-- [end:log_softmax]


# ---- torch-level functions: mg.exp(x) is x.exp() ---------------------------------------
# Each takes what torch's function of the same name takes (a list or a number becomes a
# tensor first) and calls the Tensor method, whose Function is above.
def softmax(input, dim):
    """e^x / sum(e^x) along dim, so each slice along dim sums to 1; see Tensor.softmax."""
    return as_tensor(input).softmax(dim)


def log_softmax(input, dim):
    """x - logsumexp(x) along dim: the log of softmax, computed stably; see Tensor.log_softmax."""
    return as_tensor(input).log_softmax(dim)
