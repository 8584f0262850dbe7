"""Moving a tensor between host memory and the GPU, as an op autograd can go through.

`x.to("cuda")` copies the values into GPU memory; the gradient arrives on the GPU and
must go back to where x lives, so the backward is the move in the other direction.
"""

from minigrad.array_module import to_device, to_host
from minigrad.autograd.function import Function


class ToDevice(Function):
    """y = x copied to `device` ('cpu' or 'cuda');  dL/dx = dL/dy copied back to x's device."""

    @staticmethod
    def forward(ctx, x, device):
        ctx.source = x.device
        return to_device(x.array) if device.type == "cuda" else to_host(x.array)

    @staticmethod
    def backward(ctx, grad):
        return grad.to(ctx.source)
