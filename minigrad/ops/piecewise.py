"""The piecewise-linear activations as Functions: hardtanh (relu6), hardsigmoid,
hardswish, threshold, softshrink, hardshrink, and the leaky relus with a learned slope
(prelu) or a random one (rrelu, in training).

Each is linear on every piece, so its derivative is a constant per piece: the backward
passes multiply dL/dy by a mask of those constants, built from the saved input. At a
breakpoint the derivative is undefined; each Function takes the side PyTorch takes
(hardtanh's gradient is 0 at x = min_val, threshold's is 0 at x = threshold, ...), so
gradients agree with torch's everywhere. The masks are constants, so a recorded backward
(create_graph=True) differentiates to 0 through them, as it should on linear pieces;
hardswish, quadratic in the middle, writes its slope with Tensor ops instead.

The functional forms, with their argument checks, are in minigrad/nn/functional/activation.py.
"""

import numpy as np

from minigrad.autograd.function import Function
from minigrad.creation import from_numpy
from minigrad.ops.broadcast import unbroadcast


def _mask(condition, dtype, scale=1.0):
    """scale where condition holds, 0 elsewhere, as a Tensor of `dtype`."""
    return from_numpy((condition * scale).astype(dtype))


class Hardtanh(Function):
    """y = clamp(x, min_val, max_val);  dL/dx = dL/dy where min_val < x < max_val, else 0.

    relu6 is hardtanh(x, 0, 6). Unlike clamp (whose gradient passes at the bounds
    themselves), the bounds are excluded, as torch's hardtanh_backward excludes them.
    """

    @staticmethod
    def forward(ctx, x, min_val=-1.0, max_val=1.0):
        ctx.save_for_backward(x)
        ctx.bounds = (min_val, max_val)
        # where, not np.clip: an integer input keeps its dtype, as torch's hardtanh does
        return np.where(
            x.array < min_val, min_val, np.where(x.array > max_val, max_val, x.array)
        ).astype(x.dtype)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        low, high = ctx.bounds
        return grad * _mask((x.array > low) & (x.array < high), grad.dtype)


class Hardsigmoid(Function):
    """y = relu6(x + 3) / 6, a piecewise-linear sigmoid (0 below -3, 1 above 3);
    dL/dx = dL/dy / 6 where -3 < x < 3, else 0."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return np.clip(x.array / 6.0 + 0.5, 0.0, 1.0).astype(x.dtype)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * _mask((x.array > -3.0) & (x.array < 3.0), grad.dtype, 1.0 / 6.0)


class Hardswish(Function):
    """y = x * relu6(x + 3) / 6: 0 below -3, x above 3, x (x + 3) / 6 between;
    dL/dx = dL/dy * (0 if x <= -3, (2x + 3) / 6 if -3 < x < 3, 1 if x >= 3)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.array * np.clip(x.array + 3.0, 0.0, 6.0) / 6.0

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        middle = _mask((x.array > -3.0) & (x.array < 3.0), grad.dtype)
        above = _mask(x.array >= 3.0, grad.dtype)
        # the middle piece's slope is a function of x (Tensor ops): it differentiates again
        return grad * (middle * (x / 3.0 + 0.5) + above)


class Threshold(Function):
    """y = x where x > threshold, else value;  dL/dx = dL/dy where x > threshold, else 0."""

    @staticmethod
    def forward(ctx, x, threshold, value):
        ctx.save_for_backward(x)
        ctx.threshold = threshold
        return np.where(x.array > threshold, x.array, value).astype(x.dtype)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * _mask(x.array > ctx.threshold, grad.dtype)


class Softshrink(Function):
    """y = x - lambd where x > lambd, x + lambd where x < -lambd, 0 between: every value
    moves lambd towards 0, and the small ones stop there;
    dL/dx = dL/dy where |x| > lambd, else 0."""

    @staticmethod
    def forward(ctx, x, lambd):
        ctx.save_for_backward(x)
        ctx.lambd = lambd
        a = x.array
        return np.where(a > lambd, a - lambd, np.where(a < -lambd, a + lambd, 0.0)).astype(x.dtype)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * _mask((x.array > ctx.lambd) | (x.array < -ctx.lambd), grad.dtype)


class Hardshrink(Function):
    """y = x where |x| > lambd, else 0;  dL/dx = dL/dy where |x| > lambd, else 0."""

    @staticmethod
    def forward(ctx, x, lambd):
        ctx.save_for_backward(x)
        ctx.lambd = lambd
        kept = (x.array > lambd) | (x.array < -lambd)
        return np.where(kept, x.array, 0.0).astype(x.dtype)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * _mask((x.array > ctx.lambd) | (x.array < -ctx.lambd), grad.dtype)


class Prelu(Function):
    """y = x where x > 0, else w * x, with one learned slope w per channel (dim 1 of x;
    a single w for every channel, or for a 0-d or 1-d x);
    dL/dx = dL/dy * (1 if x > 0 else w),  dL/dw_c = sum over x's channel c of dL/dy * x where x <=
    0.

    `weight` arrives already shaped to broadcast against x ((C, 1, ...) or (1,)).
    """

    @staticmethod
    def forward(ctx, x, weight):
        ctx.save_for_backward(x, weight)
        return np.where(x.array > 0, x.array, weight.array * x.array)

    @staticmethod
    def backward(ctx, grad):
        x, weight = ctx.saved_tensors
        positive = _mask(x.array > 0, grad.dtype)
        negative = 1.0 - positive
        grad_x = grad * (positive + negative * weight)
        grad_w = unbroadcast(grad * x * negative, weight.shape)
        return grad_x, grad_w


class RandomLeakyRelu(Function):
    """y = x where x > 0, else slope * x, with `slope` an array of x's shape (rrelu in
    training draws it per element);  dL/dx = dL/dy * (1 where x > 0, else slope)."""

    @staticmethod
    def forward(ctx, x, slope):
        ctx.slope = np.where(x.array > 0, 1.0, slope).astype(x.dtype)
        return x.array * ctx.slope

    @staticmethod
    def backward(ctx, grad):
        return grad * from_numpy(ctx.slope.astype(grad.dtype))


# ---- with their argument checks: what Tensor.prelu / Tensor.hardshrink and F call ----------
def prelu(input, weight):
    """x where x > 0, else weight * x, `weight` (1-D or 0-d) holding one slope, or one
    per channel (dim 1 of input), as torch.nn.functional.prelu."""
    if weight.ndim > 1:
        raise RuntimeError(
            f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.ndim}"
        )
    channels = input.shape[1] if input.ndim >= 2 else 1
    if weight.numel() != 1 and weight.numel() != channels:
        raise RuntimeError(
            "prelu: Mismatch of parameter numbers and input channel size. Found parameter numbers "
            f"= {weight.numel()} and channel size = {channels} (input of shape "
            f"{tuple(input.shape)})."
        )
    if weight.numel() == 1:
        w = weight.reshape(())
    else:  # (C,) -> (C, 1, ..., 1): one slope per channel, broadcast over the positions
        w = weight.reshape((channels,) + (1,) * (input.ndim - 2))
    return Prelu.apply(input, w)


def hardshrink(input, lambd=0.5):
    """x where |x| > lambd, else 0, as torch.nn.functional.hardshrink."""
    return Hardshrink.apply(input, lambd=lambd)
