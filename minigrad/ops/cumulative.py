"""Running reductions beyond cumsum and cumprod (those are in reduce.py): the running
largest and smallest value with where it was (`cummax`, `cummin`), and the running
log-sum-exp (`logcumsumexp`).

`cummax` is a *selection*: each output element is one of the inputs, so the values are
the input gathered at the indices, and `Gather`'s backward sends each value's gradient to
the element it came from (an element that stays the maximum for a while collects the
gradients of all the places it was chosen for).
"""

import numpy as np

from minigrad._args import normalize_dim
from minigrad.array_module import array_module
from minigrad.autograd.function import Function
from minigrad.creation import as_tensor, from_numpy
from minigrad.ops.index import Gather
from minigrad.ops.reduce import ValuesIndices


def running_extreme_indices(array, axis, largest):
    """For each position along `axis`, the index of the largest (smallest) element so far:
    a later element equal to the running extreme takes its place (as PyTorch's does),
    and so does a NaN, which then stays (NaN counts as the extreme)."""
    a = np.moveaxis(array, axis, -1)
    xp = array_module(array)
    indices = xp.zeros(a.shape, dtype=np.int64)
    if a.shape[-1] == 0:
        return np.moveaxis(indices, -1, axis)
    floating = a.dtype.kind == "f"
    best, best_at = a[..., 0], xp.zeros(a.shape[:-1], dtype=np.int64)
    for i in range(1, a.shape[-1]):
        value = a[..., i]
        better = value >= best if largest else value <= best
        if floating:  # a NaN replaces anything, and only a NaN replaces a NaN
            better = (better & ~np.isnan(best)) | np.isnan(value)
        best, best_at = np.where(better, value, best), np.where(better, i, best_at)
        indices[..., i] = best_at
    return np.moveaxis(indices, -1, axis)


def _cumulative_extreme(input, dim, largest, op):
    x = as_tensor(input)
    d = normalize_dim(dim, x.ndim, op)
    if x.ndim == 0:
        return ValuesIndices(x.clone(), from_numpy(array_module(x.array).zeros((), np.int64)))
    indices = running_extreme_indices(x.array, d, largest)
    return ValuesIndices(Gather.apply(x, dim=d, index=indices), from_numpy(indices))


def cummax(input, dim):
    """(values, indices): the largest element so far along `dim` at each position, and its
    index (the latest one, where equal values tie). Each value's gradient goes to the
    element it is."""
    return _cumulative_extreme(input, dim, True, "cummax")


def cummin(input, dim):
    """(values, indices): the smallest element so far along `dim` at each position, and its
    index (the latest one, where equal values tie)."""
    return _cumulative_extreme(input, dim, False, "cummin")


def running_logsumexp(array, axis):
    """log(exp(a_0) + ... + exp(a_i)) for each i along `axis`, by doubling (Hillis and
    Steele's scan): after the step of stride s, each element holds the log-sum-exp of the
    2s elements that end at it. log2(n) steps, each one logaddexp over the whole array, on
    either device (NumPy's logaddexp.accumulate would walk the n elements one by one, and
    CuPy has no logaddexp.accumulate)."""
    a = np.moveaxis(array, axis, -1).copy()
    stride = 1
    while stride < a.shape[-1]:
        ahead = np.logaddexp(a[..., stride:], a[..., :-stride])
        a = np.concatenate([a[..., :stride], ahead], axis=-1)
        stride *= 2
    return np.moveaxis(a, -1, axis)


class LogCumSumExp(Function):
    """y_i = log(exp(x_0) + ... + exp(x_i)) along `dim`, computed without overflow;
    dL/dx_i = sum over j >= i of dL/dy_j * exp(x_i - y_j).

    That sum runs from the other end, like cumsum's gradient, but the factor
    exp(x_i - y_j) would overflow if split into exp(x_i) * exp(-y_j). So it is computed in
    log space too: the positive and the negative parts of dL/dy apart,
    exp(x_i + logcumsumexp_reversed(log(g_j) - y_j)), with log(0) taken as the lowest
    finite number (as PyTorch's backward does), so that no -inf - (-inf) makes a NaN."""

    @staticmethod
    def forward(ctx, x, dim):
        ctx.dim = dim
        ctx.save_for_backward(x)
        return running_logsumexp(x.array, dim)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        d = ctx.dim
        # y recomputed from x, not saved: with create_graph the second derivative must
        # see that y depends on x (as LogSumExp's backward does)
        y = LogCumSumExp.apply(x, dim=d)

        lowest = float(np.finfo(x.dtype).min)  # log(0), finite: -inf - (-inf) would be NaN

        def part(g):  # the sum over j >= i of g_j exp(x_i - y_j), for g >= 0
            positive = g > 0
            log_g = g.masked_fill(~positive, 1.0).log().masked_fill(~positive, lowest)
            from_the_end = LogCumSumExp.apply((log_g - y).flip(d), dim=d).flip(d)
            return (x + from_the_end).exp()

        with np.errstate(over="ignore"):  # x + (almost) the lowest float: -inf, whose exp is 0
            return part(grad.clamp(min=0)) - part((-grad).clamp(min=0))


def logcumsumexp(input, dim):
    """Running log-sum-exp along `dim`: `y[i] = log(sum over j <= i of exp(x[j]))`, stable for large
    values (floating point input only)."""
    x = as_tensor(input)
    if x.dtype.kind != "f":
        raise RuntimeError(f"logcumsumexp: expected a floating point input, got {x.dtype}")
    d = normalize_dim(dim, x.ndim, "logcumsumexp")
    if x.ndim == 0:
        return x.clone()
    return LogCumSumExp.apply(x, dim=d)
