"""Resizing the spatial dims of (N, C, d1, d2, ...) tensors: F.interpolate's nearest and
linear modes, and their gradients.

Both modes are *separable*: each output position reads from the input along one spatial
axis at a time, so a 2-D resize is a resize of the rows followed by a resize of the
columns (the order does not change the result). Along one axis, output position o reads

- nearest: one input position, src(o), with weight 1;
- linear: two neighbours, i0(o) and i1(o) = i0(o) + 1, with weights (1 - l(o), l(o)),
  where l(o) is how far o falls between them. Bilinear (4-D) and trilinear (5-D) are
  linear along two and three axes.

So along one axis the op is a matrix W (out x in) with one or two non-zeros per row,
y = W x, and its gradient is the transpose: dL/dx = W^T dL/dy. For nearest, W^T sends
each output's gradient back to the one input it copied, adding where several outputs
copied the same input (a scatter-add); for linear, each output's gradient is split
between its two neighbours in the proportions they were mixed. W is never built: an
axis is described by its *taps*, (index, weight) pairs, one per non-zero of a row.

Where output o reads from (PyTorch's formulas, aten/src/ATen/native/UpSample.h, computed
in the input's float type as PyTorch does, so the indices agree at every size):

    scale = in / out, or 1 / scale_factor when one is given (align_corners=False)
    nearest:        src(o) = min(floor(o * scale), in - 1)
    nearest-exact:  src(o) = min(floor((o + 0.5) * scale), in - 1)   (pixel centres)
    linear:         x(o) = max(scale * (o + 0.5) - 0.5, 0)           (pixel centres)
                    x(o) = o * (in - 1) / (out - 1)                  (align_corners=True)
                    i0 = min(floor(x), in - 1), l = x - i0, i1 = min(i0 + 1, in - 1)
"""

import numpy as np

from minigrad.array_module import array_module, scatter_add
from minigrad.autograd.function import Function


# ---- where each output position reads from, along one axis ---------------------------------
def _scale(size, out, scale_factor, dtype):
    """The step in input positions per output position (align_corners=False)."""
    if scale_factor is not None and scale_factor > 0:
        return dtype.type(1.0 / scale_factor)
    return dtype.type(size) / dtype.type(out)


def nearest_taps(size, out, scale_factor, exact, dtype, xp=np):
    """One tap per output position: the input position it copies (weight 1). The index
    arrays are made with `xp`, the array module of the input (on its device)."""
    scale = _scale(size, out, scale_factor, dtype)
    o = xp.arange(out).astype(dtype)
    position = (o + dtype.type(0.5)) * scale if exact else o * scale
    return ((np.minimum(np.floor(position).astype(np.int64), size - 1), None),)


def linear_taps(size, out, scale_factor, align_corners, dtype, xp=np):
    """Two taps per output position: its left and right neighbours and their weights
    (arrays of `xp`, the input's array module)."""
    if size == out:  # PyTorch copies when the size does not change (whatever the scale factor)
        return ((xp.arange(out), None),)
    o = xp.arange(out).astype(dtype)
    if align_corners:  # the first and last outputs sit on the first and last inputs
        scale = dtype.type(size - 1) / dtype.type(out - 1) if out > 1 else dtype.type(0)
        x = scale * o
    else:  # outputs and inputs are pixel centres; positions before the first clamp to it
        x = np.maximum(
            _scale(size, out, scale_factor, dtype) * (o + dtype.type(0.5)) - dtype.type(0.5), 0
        )
    i0 = np.minimum(np.floor(x).astype(np.int64), size - 1)
    lam = np.clip(x - i0.astype(dtype), 0, 1).astype(dtype)
    i1 = np.minimum(i0 + 1, size - 1)
    return ((i0, (1 - lam).astype(dtype)), (i1, lam))


# ---- one axis forward (y = W x) and back (W^T g) -----------------------------------------------
def _along(weight, axis, ndim):
    """A weight vector shaped to broadcast along `axis` of an ndim-D array."""
    return weight.reshape((-1,) + (1,) * (ndim - 1 - axis))


def resample_axis(x, axis, taps):
    """y = W x along `axis`: each output the weighted sum of the inputs its taps name."""
    y = None
    for index, weight in taps:
        term = np.take(x, index, axis=axis)
        if weight is not None:
            term = term * _along(weight, axis, x.ndim)
        y = term if y is None else y + term
    return y


def resample_axis_transposed(g, axis, taps, size):
    """W^T g along `axis`, back to `size` positions: each output's value added to the
    inputs its taps name, times their weights (scatter_add, NumPy's np.add.at, adds
    repeated indices up)."""
    shape = g.shape[:axis] + (size,) + g.shape[axis + 1 :]
    x = array_module(g).zeros(shape, dtype=g.dtype)
    for index, weight in taps:
        term = g if weight is None else g * _along(weight, axis, g.ndim)
        scatter_add(x, (slice(None),) * axis + (index,), term)
    return x


def _forward(x, taps_per_axis):
    y = x
    for axis, taps in enumerate(taps_per_axis, start=2):  # spatial dims follow (N, C)
        y = resample_axis(y, axis, taps)
    return y


def _transposed(g, taps_per_axis, sizes):
    x = g
    for axis, taps, size in zip(range(2, 2 + len(sizes)), taps_per_axis, sizes):
        x = resample_axis_transposed(x, axis, taps, size)
    return x


# ---- the Functions: each mode, and its transpose (which is its gradient, and vice versa) ------
class UpsampleNearest(Function):
    """y[..., o1, o2] = x[..., src1(o1), src2(o2)] (modes nearest and nearest-exact);
    dL/dx[..., i1, i2] = the sum of dL/dy over the outputs that copied x[..., i1, i2]
    (a scatter-add: an input copied k times gets k gradients, one never copied gets 0)."""

    @staticmethod
    def forward(ctx, x, taps_per_axis):
        ctx.taps, ctx.sizes = taps_per_axis, x.shape[2:]
        return _forward(x.array, taps_per_axis)

    @staticmethod
    def backward(ctx, grad):
        return UpsampleNearestBackward.apply(grad, taps_per_axis=ctx.taps, sizes=ctx.sizes)


class UpsampleNearestBackward(Function):
    """x = the scatter-add of g to the positions each output copied (UpsampleNearest's
    gradient); its own gradient is UpsampleNearest again (the copy)."""

    @staticmethod
    def forward(ctx, g, taps_per_axis, sizes):
        ctx.taps = taps_per_axis
        return _transposed(g.array, taps_per_axis, sizes)

    @staticmethod
    def backward(ctx, grad):
        return UpsampleNearest.apply(grad, taps_per_axis=ctx.taps)


class UpsampleLinear(Function):
    """y = x interpolated linearly along each spatial axis (modes linear, bilinear,
    trilinear): along one axis y[o] = (1 - l(o)) x[i0(o)] + l(o) x[i1(o)], i.e. y = W x;
    dL/dx = W^T dL/dy: each output's gradient split between its two neighbours with the
    same weights (the transpose of the interpolation weights), axis by axis."""

    @staticmethod
    def forward(ctx, x, taps_per_axis):
        ctx.taps, ctx.sizes = taps_per_axis, x.shape[2:]
        return _forward(x.array, taps_per_axis)

    @staticmethod
    def backward(ctx, grad):
        return UpsampleLinearBackward.apply(grad, taps_per_axis=ctx.taps, sizes=ctx.sizes)


class UpsampleLinearBackward(Function):
    """x = W^T g, UpsampleLinear's gradient; its own gradient is W again (UpsampleLinear)."""

    @staticmethod
    def forward(ctx, g, taps_per_axis, sizes):
        ctx.taps = taps_per_axis
        return _transposed(g.array, taps_per_axis, sizes)

    @staticmethod
    def backward(ctx, grad):
        return UpsampleLinear.apply(grad, taps_per_axis=ctx.taps)
