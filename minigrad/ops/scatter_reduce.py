"""Reducing many values into one place: `scatter_reduce` and `index_reduce`.

`scatter` writes `src[i][j]` to `out[i][index[i][j]]` (dim=1); when several elements go to one
place, `scatter_reduce` combines them, with the value already there (`include_self=True`)
or without it: by sum, product, mean, largest (amax) or smallest (amin). A place that
nothing is written to keeps input's value. `index_reduce` is the same along one dim with
a 1-D index (slice j of source goes to slice index[j]), i.e. `scatter_reduce` with the
index repeated along the other dims.

The gradients, where y is the result and dL/dy its gradient (as PyTorch computes them):

    sum     dL/dself = dL/dy;                  dL/dsrc = dL/dy read at index
    mean    dL/dself = dL/dy / N;              dL/dsrc = (dL/dy / N) read at index,
            N = how many values were averaged into each place
    prod    dL/dself = dL/dy * y / self;       dL/dsrc = (dL/dy * y) read at index / src
            (each value's gradient is the product of the others: computed without
            dividing where a value is 0)
    amax,   dL/dy is shared evenly by the values equal to the result at each place
    amin

and with `include_self=False`, input's values at the places written to were not used:
their gradient is 0.
"""

import numpy as np

from minigrad.array_module import array_module, scatter_add, scatter_max, scatter_min
from minigrad.autograd.function import Function
from minigrad.creation import as_tensor, from_numpy
from minigrad.ops.index import Gather, ScatterAdd, _check_gather_scatter, _coords, _leading
from minigrad.ops.index_write import _along_dim
from minigrad.ops.shape import ConstantPad

REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")


def _multiply_at(target, index, values):
    if type(target) is not np.ndarray:
        raise NotImplementedError(
            "scatter_reduce(reduce='prod') and index_reduce(reduce='prod') on a CUDA tensor: "
            "CuPy has no multiplying scatter (it has scatter_add, scatter_max and scatter_min); "
            "move the tensor to the CPU"
        )
    np.multiply.at(target, index, values)


# np.add.at and its kin, as both devices run them (array_module.py)
_AT = {
    "sum": scatter_add,
    "mean": scatter_add,
    "prod": _multiply_at,
    "amax": scatter_max,
    "amin": scatter_min,
}


def _identity(reduce, dtype):
    """The value that leaves a reduction unchanged: 0 for a sum, 1 for a product, the
    lowest (highest) value of the dtype for amax (amin)."""
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    low, high = (
        (-np.inf, np.inf) if dtype.kind == "f" else (np.iinfo(dtype).min, np.iinfo(dtype).max)
    )
    return low if reduce == "amax" else high


class ScatterReduce(Function):
    """y = input with src reduced into it at `index` along `dim` (see the module docstring
    for the reductions and their gradients)."""

    @staticmethod
    def forward(ctx, x, src, dim, index, reduce, include_self):
        ctx.dim, ctx.index, ctx.reduce, ctx.include_self = dim, index, reduce, include_self
        coords, values = _coords(index, dim), _leading(src.array, index.shape)
        out = x.array.copy()
        xp = array_module(out)
        written = xp.zeros(x.shape, dtype=bool)
        written[coords] = True
        if not include_self:  # where a mask picks would make the GPU count the picks for the host
            out = xp.where(written, _identity(reduce, out.dtype), out).astype(out.dtype)
        _AT[reduce](out, coords, values)
        if reduce == "mean":
            count = xp.full(x.shape, 1 if include_self else 0, dtype=np.int64)
            scatter_add(count, coords, xp.ones(index.shape, dtype=np.int64))
            count = np.maximum(count, 1)  # a place nothing was averaged into keeps its value
            out = out / count if out.dtype.kind == "f" else out // count
            ctx.count = count
        ctx.written = written
        y = from_numpy(out.astype(x.dtype, copy=False))
        ctx.save_for_backward(x, src, y)
        return y

    @staticmethod
    def backward(ctx, grad):
        x, src, y = ctx.saved_tensors
        d, index, reduce = ctx.dim, ctx.index, ctx.reduce
        src = _corner(src, index.shape)

        def read(t):  # t read at index along dim: the gradient that goes to each src element
            return Gather.apply(t, dim=d, index=index)

        if reduce == "sum":
            grad_self, grad_src = grad, read(grad)
        elif reduce == "mean":
            per_value = grad / from_numpy(ctx.count.astype(grad.dtype))
            grad_self, grad_src = per_value, read(per_value)
        elif reduce == "prod":
            grad_self, grad_src = _prod_grads(ctx, grad, x, src, y, read)
        else:  # amax, amin: shared by the values that reached the extreme
            self_hits = from_numpy((x.array == y.array).astype(grad.dtype))
            if not ctx.include_self:
                self_hits = self_hits * from_numpy((~ctx.written).astype(grad.dtype))
            src_hits = from_numpy((src.array == read(y).array).astype(grad.dtype))
            hits = ScatterAdd.apply(self_hits, src_hits, dim=d, index=index)
            shared = grad / hits
            grad_self, grad_src = shared * self_hits, read(shared) * src_hits
        if not ctx.include_self:
            grad_self = grad_self.masked_fill(from_numpy(ctx.written), 0.0)
        grad_src = _pad_to(grad_src, ctx.saved_tensors[1].shape)
        return grad_self, grad_src


def _prod_grads(ctx, grad, x, src, y, read):
    """dL/dself and dL/dsrc of a product: each value's gradient is dL/dy times the product
    of the other values at its place. That is y / value, except where the value is 0;
    there it is the product of the other values, recomputed with that 0 set to 1 (a
    place with two zeros has gradient 0 everywhere, which this also gives)."""
    d, index, include_self = ctx.dim, ctx.index, ctx.include_self
    self_zero = x.array == 0
    masked_self = x.masked_fill(from_numpy(self_zero), 1.0)
    masked_self_y = ScatterReduce.apply(
        masked_self, src, dim=d, index=index, reduce="prod", include_self=include_self
    )
    grad_self = grad * masked_self_y / masked_self
    src_zero = src.array == 0
    zeros_per_place = array_module(x.array).zeros(x.shape, dtype=np.int64)
    scatter_add(zeros_per_place, _coords(index, d), src_zero.astype(np.int64))
    if include_self:
        zeros_per_place += self_zero
    single_zero = src_zero & (np.take_along_axis(zeros_per_place, index, axis=d) == 1)
    masked_src = src.masked_fill(from_numpy(single_zero), 1.0)
    masked_src_y = ScatterReduce.apply(
        x, masked_src, dim=d, index=index, reduce="prod", include_self=include_self
    )
    from_others = read(grad * masked_src_y)  # for a lone zero: the product of the rest
    from_result = read(grad * y) / src.masked_fill(from_numpy(src_zero), 1.0)
    grad_src = from_others.masked_fill(from_numpy(~single_zero), 0.0) + from_result.masked_fill(
        from_numpy(single_zero), 0.0
    )
    return grad_self, grad_src


def _corner(t, shape):
    """The leading corner of t of the given shape (src may be larger than index)."""
    if t.shape == shape:
        return t
    return t[tuple(slice(0, n) for n in shape)]


def _pad_to(g, shape):
    """g padded with zeros to `shape` (the src elements beyond index's shape were unused)."""
    if g.shape == shape:
        return g
    return ConstantPad.apply(g, widths=tuple((0, s - n) for s, n in zip(shape, g.shape)))


def _check_reduce(op, reduce, allowed):
    if reduce not in allowed:
        names = ", ".join(allowed[:-1]) + " or " + allowed[-1]
        raise RuntimeError(f"{op}(): reduce argument must be either {names}, got {reduce}")


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    """A copy of input with each `src[i][j]` reduced into `out[i][index[i][j]]` (dim=1) by
    `reduce`: 'sum', 'prod', 'mean', 'amax' or 'amin', together with input's value there
    (`include_self=True`) or without it. Places nothing is written to keep input's value.
    An integer 'mean' rounds down, as PyTorch's."""
    x, s = as_tensor(input), as_tensor(src)
    _check_reduce("scatter_reduce", reduce, REDUCTIONS)
    if s.dtype != x.dtype:
        raise RuntimeError(
            f"scatter_reduce(): Expected self.dtype to be equal to src.dtype ({x.dtype} and "
            f"{s.dtype})"
        )
    d, idx = _check_gather_scatter("scatter_reduce", x, dim, index, s)
    if x.ndim == 0:
        y = ScatterReduce.apply(
            x.reshape(1),
            s.reshape(1),
            dim=0,
            index=idx,
            reduce=reduce,
            include_self=include_self,
        )
        return y.reshape(())
    return ScatterReduce.apply(x, s, dim=d, index=idx, reduce=reduce, include_self=include_self)


def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    """A copy of input with slice j of source (along `dim`) reduced into slice index[j] by
    `reduce`: 'prod', 'mean', 'amax' or 'amin' (with input's value, or without it:
    `include_self=False`). `scatter_reduce` with the 1-D index repeated along the other
    dims, and the same gradients."""
    x, s = as_tensor(input), as_tensor(source)
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(
            "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got "
            f"{reduce}."
        )
    d, idx = _along_dim("index_reduce", x, dim, index, s)
    if x.ndim == 0:
        y = ScatterReduce.apply(
            x.reshape(1),
            s.reshape(1),
            dim=0,
            index=idx,
            reduce=reduce,
            include_self=include_self,
        )
        return y.reshape(())
    return ScatterReduce.apply(x, s, dim=d, index=idx, reduce=reduce, include_self=include_self)
