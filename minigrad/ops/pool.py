"""Pooling as autograd Functions: max and average pooling over windows.

The arithmetic is in the kernels (`minigrad/kernels/{reference,cpu,cuda}/pool.py`). A
pooling Function runs its kernel in `forward`, on the backend chosen by `mg.backends`
(the CPU or GPU kernels, by the device of its input), and keeps that kernel module as
`ctx.kernels`. Its backward hands the module on to the
Functions it applies, so a forward and every backward after it (second derivatives
included) run on one backend, even if `mg.backends.use` switched in between. The
functional forms, with PyTorch's signatures and argument checks (`F.max_pool2d`, ...),
are in `minigrad/nn/functional/pool.py`.

Both poolings are, for a fixed window geometry, *linear* in what they route:

- max pooling, once the winners are known, just copies x[indices] to y. Its backward
  adds dL/dy at those positions (a scatter-add), and the derivative of that backward
  with respect to dL/dy is a copy from the same positions again (a gather).
- average pooling is y = A x for a fixed matrix A (each row holds 1/divisor over one
  window). Its backward is dL/dx = A^T dL/dy, and the derivative of *that* is A again.

So every backward below is itself a Function whose backward is the forward (or the
gather): a backward pass recorded with create_graph=True can be differentiated again,
on every backend, without any new kernel.
"""

import numpy as np

from minigrad import backends
from minigrad.array_module import array_module
from minigrad.autograd.function import Function


# ---- max pooling --------------------------------------------------------------------------
# --8<-- [start:max_function]
class MaxPool2d(Function):
    """y[n, c, i, j] = max of window (i, j) of x[n, c], x (N, C, H, W).

    dL/dx[n, c, k] = sum of dL/dy[n, c, i, j] over the windows (i, j) whose max was
    element k (indices[n, c, i, j] == k), and 0 for an element no window chose.

    The kernel also says where each max was: `indices`, the flat position h * W + w in
    its input plane. Backward routes the gradient there, and
    F.max_pool2d(return_indices=True) returns them to the user. A Function has one
    output, so a caller that wants them passes a list as `indices_out`, and forward
    appends them to it.
    """

    @staticmethod
    def forward(ctx, x, kernel_size, stride, padding, dilation, ceil_mode, indices_out=None):
        # looked up once (for x's device): backward runs on the same kernels
        ctx.kernels = backends.kernels("pool", array=x.array)
        y, ctx.indices = ctx.kernels.max_pool2d_forward(
            x.array, kernel_size, stride, padding, dilation, ceil_mode
        )
        ctx.x_shape = x.shape
        if indices_out is not None:
            indices_out.append(ctx.indices)
        return y

    @staticmethod
    def backward(ctx, grad):
        return ScatterPlanes.apply(
            grad, indices=ctx.indices, x_shape=ctx.x_shape, kernels=ctx.kernels
        )


class ScatterPlanes(Function):
    """The backward of max pooling: start from zeros of x's shape and add each
    g[n, c, i, j] = dL/dy[n, c, i, j] at position indices[n, c, i, j] of plane (n, c).

    It is linear in g, and its own gradient (for a recorded backward) picks the
    incoming gradient back up at the same positions: `GatherPlanes`."""

    @staticmethod
    def forward(ctx, grad_y, indices, x_shape, kernels):
        ctx.indices, ctx.x_shape, ctx.kernels = indices, x_shape, kernels
        return kernels.max_pool2d_backward(grad_y.array, indices, x_shape)

    @staticmethod
    def backward(ctx, grad):
        return GatherPlanes.apply(grad, indices=ctx.indices, kernels=ctx.kernels)


class GatherPlanes(Function):
    """y[n, c, i, j] = x[n, c].flat[indices[n, c, i, j]]: max pooling with the winners
    held fixed. Its gradient is the scatter-add `ScatterPlanes` (on `kernels`, the
    backend of the forward this all started from; the current one when it starts the
    graph itself, as adaptive max pooling's forward, whose winners F finds)."""

    @staticmethod
    def forward(ctx, x, indices, kernels=None):
        kernels = backends.kernels("pool", array=x.array) if kernels is None else kernels
        ctx.indices, ctx.x_shape, ctx.kernels = indices, x.shape, kernels
        N, C, H, W = x.shape
        planes = x.array.reshape(N * C, H * W)
        picked = np.take_along_axis(planes, indices.reshape(N * C, indices[0, 0].size), axis=1)
        return picked.reshape(indices.shape)

    @staticmethod
    def backward(ctx, grad):
        return ScatterPlanes.apply(
            grad, indices=ctx.indices, x_shape=ctx.x_shape, kernels=ctx.kernels
        )
        # --8<-- [end:max_function]


# ---- average pooling ------------------------------------------------------------------------
# --8<-- [start:avg_function]
class AvgPool2d(Function):
    """y[n, c, i, j] = sum of window (i, j) of x[n, c] / divisor[i, j].

    dL/dx[n, c, h, w] = sum over the windows (i, j) that contain (h, w) of
    dL/dy[n, c, i, j] / divisor[i, j]; padding takes part in the divisor (when
    count_include_pad) but receives no gradient.

    `kernels` is given when this runs as the backward of `AvgPool2dTransposed`: the
    kernel module of the forward the graph started from.
    """

    @staticmethod
    def forward(ctx, x, args, kernels=None):
        # args = (kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
        ctx.args, ctx.x_shape = args, x.shape
        # looked up once, for x's device
        ctx.kernels = backends.kernels("pool", array=x.array) if kernels is None else kernels
        return ctx.kernels.avg_pool2d_forward(x.array, *args)

    @staticmethod
    def backward(ctx, grad):
        return AvgPool2dTransposed.apply(
            grad, x_shape=ctx.x_shape, args=ctx.args, kernels=ctx.kernels
        )


class AvgPool2dTransposed(Function):
    """dL/dx = A^T g for the averaging matrix A of the forward, g = dL/dy. Linear in g,
    and its own gradient is A v: the average pooling forward again."""

    @staticmethod
    def forward(ctx, grad_y, x_shape, args, kernels):
        ctx.args, ctx.kernels = args, kernels
        return kernels.avg_pool2d_backward(grad_y.array, x_shape, *args)

    @staticmethod
    def backward(ctx, grad):
        return AvgPool2d.apply(grad, args=ctx.args, kernels=ctx.kernels)
        # --8<-- [end:avg_function]


# ---- max unpooling ----------------------------------------------------------------------------
class MaxUnpool2d(Function):
    """y = zeros of `out_shape` (N, C, OH, OW) with y[n, c].flat[indices[n, c, i, j]] = x[n, c, i,
    j]:
    the values a max pooling kept, put back where they came from (the inverse of max
    pooling, up to the elements it dropped, which come back as 0).

    dL/dx[n, c, i, j] = dL/dy[n, c].flat[indices[n, c, i, j]]: a gather, `GatherPlanes`.
    Where two windows chose one element (overlapping windows), both write the same value
    and both read its gradient, as in torch.
    """

    @staticmethod
    def forward(ctx, x, indices, out_shape):
        ctx.indices, ctx.kernels = indices, backends.kernels("pool", array=x.array)
        N, C = x.shape[:2]
        xp = array_module(x.array)  # the planes are made where x is
        planes = xp.zeros((N * C, out_shape[2] * out_shape[3]), dtype=x.dtype)
        np.put_along_axis(planes, indices.reshape(N * C, -1), x.array.reshape(N * C, -1), axis=1)
        return planes.reshape(out_shape)

    @staticmethod
    def backward(ctx, grad):
        return GatherPlanes.apply(grad, indices=ctx.indices, kernels=ctx.kernels)
