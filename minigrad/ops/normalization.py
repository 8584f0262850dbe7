"""Normalization: layer norm, RMS norm, group norm and batch norm, each one Function
whose backward is derived by hand.

All four do the same two steps. First they *standardize* x over some set of N
elements (one sample's features for layer norm, one channel across the whole batch
for batch norm, ...):

    xhat = (x - mean) * rstd,    rstd = 1 / sqrt(var + eps)

(RMS norm leaves out the mean). Then they scale and shift: y = xhat * weight + bias.

Built from small ops (mean, subtract, square, mean, add, rsqrt, multiply, ...),
autograd would get the gradient right by itself, but it would keep every intermediate
array alive and walk a node for each. Differentiating the whole of `xhat` once, on
paper, gives a closed form with three terms (derived in `standardize_backward`):

    dL/dx = rstd * (g - mean(g) - xhat * mean(g * xhat)),    g = dL/dxhat

Each backward below is that formula, written with a handful of Tensor ops so that
`create_graph=True` can differentiate it again. For that, the graph must also know
that xhat and rstd depend on x. So a backward does not read them as constants: it asks
`Statistics.of(x)` for them, which hands back the arrays forward computed through two
small Functions of x, `Standardized` and `ReciprocalStd`, whose backward passes are
their derivatives. Grad mode decides, as for any op: in an ordinary backward they
record nothing (and cost nothing), under create_graph they become graph nodes.

The functional forms that check the arguments and call these Functions (`F.layer_norm`,
`F.batch_norm`, ...) are in `minigrad/nn/functional/normalization.py`.
"""

import math

import numpy as np

from minigrad import backends
from minigrad.autograd.function import Function
from minigrad.autograd.grad_mode import is_grad_enabled
from minigrad.creation import from_numpy
from minigrad.ops.broadcast import unbroadcast


# ---- the shared pieces ------------------------------------------------------------------
# --8<-- [start:standardize]
def moments(x, axes):
    """Mean and biased variance (divided by N, not N - 1) of the array x over `axes`,
    kept as size-1 dims so they broadcast against x."""
    mean = x.mean(axis=axes, keepdims=True)
    centred = x - mean
    return mean, (centred * centred).mean(axis=axes, keepdims=True)


def standardize(x, axes, eps):
    """xhat = (x - mean) * rstd over `axes`, and rstd = 1 / sqrt(var + eps) (NumPy)."""
    # `moments` inlined: the centred x it squares becomes xhat, scaled in place, instead
    # of a second x - mean and a product, two passes and a temporary fewer
    centred = x - x.mean(axis=axes, keepdims=True)
    rstd = 1.0 / np.sqrt((centred * centred).mean(axis=axes, keepdims=True) + eps)
    centred *= rstd
    return centred, rstd
    # --8<-- [end:standardize]


# --8<-- [start:standardize_backward]
def standardize_backward(g, xhat, rstd, axes):
    """dL/dx for xhat = (x - mean(x)) * rstd(x) over `axes` (N elements), g = dL/dxhat.

    d mean / dx_j = 1/N,  d rstd / dx_j = -rstd^2 xhat_j / N  (through the variance), so
    d xhat_i / dx_j = rstd * (delta_ij - 1/N - xhat_i xhat_j / N), and summing g_i times that:

        dL/dx = rstd * (g - mean(g) - xhat * mean(g * xhat))
    """
    # BEGIN SOLUTION hint: dL/dx = rstd * (g - mean(g) - xhat * mean(g * xhat)), the means over axes with keepdim=True (the docstring derives it)
    mean_g = g.mean(dim=axes, keepdim=True)
    mean_g_xhat = (g * xhat).mean(dim=axes, keepdim=True)
    return (g - mean_g - xhat * mean_g_xhat) * rstd
    # END SOLUTION
    # --8<-- [end:standardize_backward]


def scale_shift(xhat, weight, bias):
    """y = xhat * weight + bias on arrays; weight and bias are optional."""
    y = xhat * weight.array if weight is not None else xhat.copy()  # a copy: xhat is saved
    if bias is not None:
        y += bias.array  # in place: y is new, no second output-sized array
    return y


# --8<-- [start:scale_shift_backward]
def scale_shift_backward(ctx, grad, xhat, weight):
    """The gradients of y = xhat * weight + bias, for inputs (x, weight, bias, ...):
    dL/dxhat = dL/dy * weight, and weight and bias, broadcast over the other dims, get
    dL/dy * xhat and dL/dy summed over the positions they were copied to."""
    # BEGIN SOLUTION hint: dL/dxhat = dL/dy * weight (or dL/dy without a weight); dL/dweight = dL/dy * xhat and dL/dbias = dL/dy, each summed back to the parameter's shape (unbroadcast, ctx.bias_shape); None for what ctx.needs_input_grad does not ask for
    needs = ctx.needs_input_grad
    need_weight, need_bias = needs[1], len(needs) > 2 and needs[2]  # RMSNorm has no bias
    grad_weight = unbroadcast(grad * xhat, weight.shape) if need_weight else None
    grad_bias = unbroadcast(grad, ctx.bias_shape) if need_bias else None
    grad_xhat = grad * weight if weight is not None else grad
    return grad_xhat, grad_weight, grad_bias
    # END SOLUTION
    # --8<-- [end:scale_shift_backward]


# ---- xhat and rstd as functions of x ----------------------------------------------------------
# --8<-- [start:statistics]
class Statistics:
    """What a normalization's forward computed, kept for its backward: the arrays xhat
    and rstd, the `axes` they were taken over, and their `kind`:
        "standard"  xhat = (x - mean) * rstd, both statistics of x (layer, group, batch norm)
        "rms"       xhat = x * rstd, rstd = 1 / sqrt(mean(x^2) + eps) (RMS norm)
        "given"     xhat = (x - mean) * rstd with mean and rstd constants (batch norm in
                    evaluation, with running statistics): only the subtraction involves x
    """

    def __init__(self, xhat, rstd, axes, kind):
        self.xhat, self.rstd, self.axes, self.kind = xhat, rstd, axes, kind
        # N, the elements that share one mean: the sizes of the axes, not xhat.size //
        # rstd.size, which divides by zero for an empty batch (no rows, N still counts)
        self.count = math.prod(xhat.shape[a] for a in axes)

    def of(self, x):
        """xhat and rstd as Tensors that are functions of x, for a backward formula to use.
        Their values are the arrays forward computed; nothing is recomputed."""
        rstd = from_numpy(self.rstd) if self.kind == "given" else ReciprocalStd.apply(x, stats=self)
        return Standardized.apply(x, stats=self), rstd


class Standardized(Function):
    """x -> xhat, its value the one forward computed (`stats.xhat`).

    dL/dx = rstd * (g - mean(g) - xhat * mean(g * xhat))   ("standard", standardize_backward)
    dL/dx = rstd * (g - xhat * mean(g * xhat))             ("rms")
    dL/dx = rstd * g                                       ("given": rstd is a constant)
    The formulas take xhat and rstd from `stats.of(x)` again, so they can be
    differentiated once more: every order of derivative goes through these two nodes.
    """

    @staticmethod
    def forward(ctx, x, stats):
        ctx.save_for_backward(x)
        ctx.stats = stats
        return stats.xhat

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        stats = ctx.stats
        xhat, rstd = stats.of(x)
        if stats.kind == "given":
            return g * rstd
        if stats.kind == "rms":
            return rms_backward(g, xhat, rstd, stats.axes)
        return standardize_backward(g, xhat, rstd, stats.axes)


class ReciprocalStd(Function):
    """x -> rstd = 1 / sqrt(var + eps) (or 1 / sqrt(mean(x^2) + eps) for RMS norm), of the
    shape of x with size-1 `axes`, its value the one forward computed (`stats.rstd`).

    d rstd / d var = -rstd^3 / 2 and d var / dx_j = 2 (x_j - mean) / N = 2 xhat_j / (rstd N),
    so d rstd / dx_j = -rstd^2 xhat_j / N (the same for RMS norm, with mean(x^2) for var),
    and dL/dx = -(g * rstd^2 / N) * xhat, g = dL/drstd broadcast over `axes`.
    """

    @staticmethod
    def forward(ctx, x, stats):
        ctx.save_for_backward(x)
        ctx.stats = stats
        return stats.rstd

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        xhat, rstd = ctx.stats.of(x)
        return -(g * rstd * rstd / ctx.stats.count) * xhat

    # --8<-- [end:statistics]


def _saved(ctx, x, weight, bias, stats):
    ctx.save_for_backward(x, weight)
    ctx.stats = stats
    ctx.bias_shape = None if bias is None else bias.shape


# ---- the four Functions -------------------------------------------------------------------
class LayerNorm(Function):
    """y = (x - mean) / sqrt(var + eps) * weight + bias, the statistics taken over the
    trailing dims `axes` of each sample separately (so it acts the same in training and
    evaluation). weight and bias have the shape of those dims.

    dL/dx = rstd * (g - mean(g) - xhat * mean(g * xhat)) over `axes`, g = dL/dy * weight;
    dL/dweight = sum of dL/dy * xhat and dL/dbias = sum of dL/dy, over the leading dims.
    """

    @staticmethod
    def forward(ctx, x, weight, bias, axes, eps):
        # the arithmetic of `standardize` and `scale_shift` on the (rows, N) view, done by
        # the layer_norm kernels (kernels/reference/layer_norm.py: the same NumPy code)
        y, xhat, rstd = trailing_norm_forward(x, weight, bias, axes, eps, rms=False)
        _saved(ctx, x, weight, bias, Statistics(xhat, rstd, axes, "standard"))
        ctx.axes = axes
        return y

    @staticmethod
    def backward(ctx, grad):
        x, weight = ctx.saved_tensors
        if not is_grad_enabled():  # an ordinary backward: nothing will differentiate this one
            return layer_norm_backward_arrays(ctx, grad, weight)
        xhat, rstd = ctx.stats.of(x)
        g, grad_weight, grad_bias = scale_shift_backward(ctx, grad, xhat, weight)
        grad_x = standardize_backward(g, xhat, rstd, ctx.axes) if ctx.needs_input_grad[0] else None
        return grad_x, grad_weight, grad_bias


def trailing_norm_forward(x, weight, bias, axes, eps, rms):
    """(y, xhat, rstd) of layer norm (or RMS norm) over the trailing `axes` of the Tensor
    x, from the layer_norm kernels on x viewed as (rows, N): xhat and y in x's shape,
    rstd in x's shape with size-1 `axes`."""
    n = math.prod(x.shape[a] for a in axes)
    rows = math.prod(x.shape[: x.ndim - len(axes)])
    kernels = backends.kernels("layer_norm", array=x.array)
    w = None if weight is None else weight.array.reshape(n)
    b = None if bias is None else bias.array.reshape(n)
    y, xhat, rstd = kernels.forward(x.array.reshape(rows, n), w, b, eps, rms=rms)
    stat_shape = x.shape[: x.ndim - len(axes)] + (1,) * len(axes)
    return y.reshape(x.shape), xhat.reshape(x.shape), rstd.reshape(stat_shape)


def layer_norm_backward_arrays(ctx, grad, weight, rms=False):
    """LayerNorm's (and RMSNorm's) backward when grad mode is off (every backward without
    create_graph=True): the formulas of `scale_shift_backward` and
    `standardize_backward` (`rms_backward`), on the arrays, by the layer_norm kernels
    (kernels/reference/layer_norm.py is the NumPy version), without a Tensor (and a
    Function call) per step. The Tensor version stays for create_graph, where the
    gradient itself must be a graph; gradcheck checks this one, gradgradcheck that one.

    The normalized axes are the trailing ones, so the arrays are viewed as (rows, N),
    one row per sample, and with w the weight, dy = dL/dy, g = dy * w:
        dL/dweight = sum over rows of dy * xhat,    dL/dbias = sum over rows of dy
        dL/dx = rstd * (g - mean(g) - xhat * mean(g * xhat))   (RMS norm: no mean(g))
    """
    stats, needs = ctx.stats, ctx.needs_input_grad
    n = stats.count
    rows = stats.rstd.size  # not -1: with N = 0 the reshape could not infer it
    kernels = backends.kernels("layer_norm", array=grad.array)
    w = None if weight is None else weight.array.reshape(n)
    grad_x, grad_weight, grad_bias = kernels.backward(
        grad.array.reshape(rows, n),
        stats.xhat.reshape(rows, n),
        stats.rstd.reshape(rows, 1),
        w,
        rms=rms,
        need_x=needs[0],
        need_weight=weight is not None and needs[1],
        need_bias=len(needs) > 2 and needs[2] and ctx.bias_shape is not None,
    )
    grad_x = None if grad_x is None else from_numpy(grad_x.reshape(grad.shape))
    if grad_weight is not None:
        grad_weight = from_numpy(grad_weight.reshape(weight.shape))
    if grad_bias is not None:
        grad_bias = from_numpy(grad_bias.reshape(ctx.bias_shape))
    return grad_x, grad_weight, grad_bias


# --8<-- [start:rms_norm]
def rms_backward(g, xhat, rrms, axes):
    """dL/dx for xhat = x * rrms(x) over `axes`, g = dL/dxhat (derived in `RMSNorm`)."""
    # BEGIN SOLUTION hint: the layer-norm formula without its mean(g) term (nothing was subtracted): dL/dx = rrms * (g - xhat * mean(g * xhat)) over axes (keepdim)
    return (g - xhat * (g * xhat).mean(dim=axes, keepdim=True)) * rrms
    # END SOLUTION


class RMSNorm(Function):
    """y = x * rrms * weight, rrms = 1 / sqrt(mean(x^2) + eps) over the trailing dims
    `axes`: layer norm without the centring, and without a bias.

    With xhat = x * rrms: d rrms / dx_j = -rrms^2 xhat_j / N, so
    d xhat_i / dx_j = rrms * (delta_ij - xhat_i xhat_j / N) and
    dL/dx = rrms * (g - xhat * mean(g * xhat)),  g = dL/dy * weight: the layer-norm
    formula without its mean(g) term, because nothing was subtracted.
    """

    @staticmethod
    def forward(ctx, x, weight, axes, eps):
        # rrms = 1 / sqrt(mean(x^2) + eps), xhat = x * rrms, y = xhat * weight, by the
        # layer_norm kernels with rms=True (no mean subtracted)
        y, xhat, rrms = trailing_norm_forward(x, weight, None, axes, eps, rms=True)
        _saved(ctx, x, weight, None, Statistics(xhat, rrms, axes, "rms"))
        ctx.axes = axes
        return y

    @staticmethod
    def backward(ctx, grad):
        x, weight = ctx.saved_tensors
        if not is_grad_enabled():  # an ordinary backward: the arrays' version, as LayerNorm
            return layer_norm_backward_arrays(ctx, grad, weight, rms=True)[:2]
        xhat, rrms = ctx.stats.of(x)
        g, grad_weight, _ = scale_shift_backward(ctx, grad, xhat, weight)
        grad_x = rms_backward(g, xhat, rrms, ctx.axes) if ctx.needs_input_grad[0] else None
        return grad_x, grad_weight

    # --8<-- [end:rms_norm]


class GroupNorm(Function):
    """Group norm of x (N, C, *): the C channels are split into `num_groups` groups of
    C/G, and each (sample, group) is standardized over its channels and positions; then
    y = xhat * weight + bias per channel (weight and bias given as (C, 1, ..., 1)).

    Viewing x as (N, G, C/G * positions), this is layer norm over the last axis, so
    dL/dx is the layer-norm formula on that view, with g = dL/dy * weight.
    """

    @staticmethod
    def forward(ctx, x, weight, bias, num_groups, eps):
        ctx.grouped = grouped_shape(x.shape, num_groups)
        xhat, rstd = standardize(x.array.reshape(ctx.grouped), (2,), eps)
        _saved(ctx, x, weight, bias, Statistics(xhat, rstd, (2,), "standard"))
        return scale_shift(xhat.reshape(x.shape), weight, bias)

    @staticmethod
    def backward(ctx, grad):
        x, weight = ctx.saved_tensors
        xhat, rstd = ctx.stats.of(x.reshape(ctx.grouped))  # both on the grouped view
        g, grad_weight, grad_bias = scale_shift_backward(ctx, grad, xhat.reshape(x.shape), weight)
        grad_x = None
        if ctx.needs_input_grad[0]:
            grad_x = standardize_backward(g.reshape(ctx.grouped), xhat, rstd, (2,)).reshape(x.shape)
        return grad_x, grad_weight, grad_bias


def grouped_shape(shape, num_groups):
    """(N, C, *) -> (N, G, C/G * positions): one row per (sample, group)."""
    return (shape[0], num_groups, (shape[1] // num_groups) * math.prod(shape[2:]))


class BatchNorm(Function):
    """y = (x - mean) * rstd * weight + bias per channel, rstd = 1 / sqrt(var + eps),
    for x (N, C, *) and given statistics `mean`, `var` of shape (1, C, 1, ...).

    batch_statistics=True (training): mean and var are this batch's own, over
    `axes` = N and the positions, so they move when x moves. The gradient is the
    layer-norm formula taken over those axes:
        dL/dx = rstd * (g - mean(g) - xhat * mean(g * xhat)),  g = dL/dy * weight.
    batch_statistics=False (evaluation): they are running estimates, constants, so
    y is an affine function of x and dL/dx = g * rstd.
    dL/dweight and dL/dbias sum dL/dy * xhat and dL/dy over `axes` in both modes.
    """

    @staticmethod
    def forward(ctx, x, weight, bias, mean, var, axes, batch_statistics, eps):
        rstd = 1.0 / np.sqrt(var + eps)
        xhat = (x.array - mean) * rstd
        _saved(
            ctx,
            x,
            weight,
            bias,
            Statistics(xhat, rstd, axes, "standard" if batch_statistics else "given"),
        )
        ctx.axes, ctx.batch_statistics = axes, batch_statistics
        return scale_shift(xhat, weight, bias)

    @staticmethod
    def backward(ctx, grad):
        x, weight = ctx.saved_tensors
        xhat, rstd = ctx.stats.of(x)
        g, grad_weight, grad_bias = scale_shift_backward(ctx, grad, xhat, weight)
        grad_x = None
        if ctx.needs_input_grad[0]:
            grad_x = (
                standardize_backward(g, xhat, rstd, ctx.axes) if ctx.batch_statistics else g * rstd
            )
        return grad_x, grad_weight, grad_bias
