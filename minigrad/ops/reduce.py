"""Reductions: ops that combine many elements into fewer.

The pattern of every backward here: the gradient of a reduced output element is sent
back to the input elements it was computed from, by reshaping the gradient so the
reduced axes have size 1 and broadcasting it (`expand`) over them.
"""

import numpy as np

from minigrad.autograd.function import Function
from minigrad.tensor import Tensor, _axes, _normalize_dim


def _keepdim_shape(shape, axes):
    """The shape of a reduction over `axes` with keepdim=True."""
    if axes is None:
        return (1,) * len(shape)
    return tuple(1 if i in axes else s for i, s in enumerate(shape))


def _reduced_shape(shape, axes):
    """The shape of a reduction over `axes` with keepdim=False."""
    if axes is None:
        return ()
    return tuple(s for i, s in enumerate(shape) if i not in axes)


def _spread(grad, in_shape, axes):
    """Send each output gradient back over the axes it was reduced from."""
    return grad.reshape(_keepdim_shape(in_shape, axes)).expand(in_shape)


class Sum(Function):
    """y = sum of x over `dim`;  dL/dx = dL/dy broadcast back over `dim`."""

    @staticmethod
    def forward(ctx, x, dim=None, keepdim=False):
        ctx.in_shape, ctx.axes = x.shape, dim
        return np.sum(x.data, axis=dim, keepdims=keepdim)

    @staticmethod
    def backward(ctx, grad):
        return _spread(grad, ctx.in_shape, ctx.axes)


class Amax(Function):
    """y = largest (or smallest) x over `dim`;  dL/dx = dL/dy shared evenly among the
    elements that attain the extreme (so ties split the gradient, as torch.amax)."""

    @staticmethod
    def forward(ctx, x, dim=None, keepdim=False, largest=True):
        if x.data.size == 0:
            raise RuntimeError(f"{'amax' if largest else 'amin'}: cannot reduce an empty tensor of shape {x.shape}")
        y = (np.max if largest else np.min)(x.data, axis=dim, keepdims=True)
        hits = x.data == y
        ctx.in_shape, ctx.axes = x.shape, dim
        ctx.weights = hits / np.sum(hits, axis=dim, keepdims=True)
        return y if keepdim else y.reshape(_reduced_shape(x.shape, dim))

    @staticmethod
    def backward(ctx, grad):
        weights = Tensor._make(ctx.weights.astype(grad.dtype, copy=False))
        return _spread(grad, ctx.in_shape, ctx.axes) * weights


class MaxDim(Function):
    """values of max/min over one dim; the gradient goes to the returned index only."""

    @staticmethod
    def forward(ctx, x, dim, keepdim, indices):
        ctx.in_shape, ctx.dim, ctx.keepdim = x.shape, dim, keepdim
        ctx.indices = np.expand_dims(indices, dim)  # `indices` has the dim reduced away
        values = np.take_along_axis(x.data, ctx.indices, axis=dim)
        return values if keepdim else np.squeeze(values, axis=dim)

    @staticmethod
    def backward(ctx, grad):
        one_hot = np.zeros(ctx.in_shape, dtype=grad.dtype)
        np.put_along_axis(one_hot, ctx.indices, 1, axis=ctx.dim)
        return _spread(grad, ctx.in_shape, (ctx.dim,)) * Tensor._make(one_hot)


def max_or_min(x, dim, keepdim, largest):
    name = "max" if largest else "min"
    if dim is None:
        if x.data.size == 0:  # as PyTorch: an empty tensor has no largest element
            raise RuntimeError(f"{name}: cannot reduce an empty tensor of shape {x.shape} without a dim")
        return Amax.apply(x, dim=None, keepdim=False, largest=largest)
    d = _normalize_dim(dim, x.ndim, name)
    if x.ndim == 0:
        return x.clone(), Tensor._make(np.zeros((), np.int64))
    if x.shape[d] == 0:
        raise IndexError(f"{name}: cannot reduce over dim {d} of size 0 (shape {x.shape})")
    # NaN counts as the extreme, as in PyTorch: argmax of NaN is its own index
    indices = (np.argmax if largest else np.argmin)(x.data, axis=d)
    if np.isnan(x.data).any() if x.dtype.kind == "f" else False:
        nan_at = np.isnan(x.data)
        indices = np.where(nan_at.any(axis=d), np.argmax(nan_at, axis=d), indices)
    values = MaxDim.apply(x, dim=d, keepdim=keepdim, indices=indices)
    idx = indices if not keepdim else np.expand_dims(indices, d)
    return _MinMax(values, Tensor._make(idx.astype(np.int64)))


class _MinMax(tuple):
    """(values, indices) with names, like torch.return_types.max."""

    def __new__(cls, values, indices):
        return super().__new__(cls, (values, indices))

    @property
    def values(self):
        return self[0]

    @property
    def indices(self):
        return self[1]


def arg_extreme(x, dim, keepdim, fn, name):
    if dim is None and x.data.size == 0:  # as PyTorch; NumPy's "empty sequence" names no op
        raise IndexError(f"{name}: cannot take the {name} of an empty tensor (shape {x.shape}) without a dim")
    if dim is not None and x.ndim and x.shape[_normalize_dim(dim, x.ndim, name)] == 0:
        raise IndexError(f"{name}: dim {dim} has size 0 in shape {x.shape}: there is no element to pick")
    if dim is None:
        out = fn(x.data.reshape(-1))
        if keepdim:
            out = np.reshape(out, (1,) * x.ndim)
        return Tensor._make(np.asarray(out, dtype=np.int64))
    d = _normalize_dim(dim, x.ndim, name)
    out = fn(x.data, axis=d) if x.ndim else np.asarray(0)
    if keepdim and x.ndim:
        out = np.expand_dims(out, d)
    return Tensor._make(np.asarray(out, dtype=np.int64))


class Prod(Function):
    """y = product of x over `dim`;  dL/dx_i = dL/dy * prod of the other elements.

    "Product of the others" is computed as y / x_i when no element is zero (which is
    differentiable again); with zeros it is built from exclusive cumulative products,
    which is exact but treated as a constant by a second derivative.
    """

    @staticmethod
    def forward(ctx, x, dim=None, keepdim=False):
        ctx.dim, ctx.keepdim, ctx.in_shape = dim, keepdim, x.shape
        y = Tensor._make(np.asarray(np.prod(x.data, axis=dim, keepdims=keepdim)))
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        axes = None if ctx.dim is None else (ctx.dim,)
        grad_full = _spread(grad, ctx.in_shape, axes)
        if not np.any(x.data == 0):
            return grad_full * _spread(y, ctx.in_shape, axes) / x
        flat = x.data.reshape(-1) if ctx.dim is None else np.moveaxis(x.data, ctx.dim, -1)
        ones = np.ones(flat.shape[:-1] + (1,), dtype=flat.dtype)
        left = np.cumprod(np.concatenate([ones, flat[..., :-1]], axis=-1), axis=-1)
        right = np.flip(np.cumprod(np.flip(np.concatenate([flat[..., 1:], ones], axis=-1), -1), axis=-1), -1)
        others = left * right
        others = others.reshape(ctx.in_shape) if ctx.dim is None else np.moveaxis(others, -1, ctx.dim)
        return grad_full * Tensor._make(others)


class LogSumExp(Function):
    """y = log(sum(exp(x))) over `dim`, computed as m + log(sum(exp(x - m))) with
    m = max(x) so nothing overflows;  dL/dx = dL/dy * softmax(x) = dL/dy * exp(x - y)."""

    @staticmethod
    def forward(ctx, x, dim, keepdim=False):
        ctx.in_shape, ctx.axes = x.shape, dim
        m = np.max(x.data, axis=dim, keepdims=True) if x.data.size else np.zeros(())
        m = np.where(np.isfinite(m), m, 0)  # all -inf along an axis: log(0) = -inf, not NaN
        y = np.log(np.sum(np.exp(x.data - m), axis=dim, keepdims=True)) + m
        ctx.save_for_backward(x)
        return y if keepdim else np.asarray(y).reshape(_reduced_shape(x.shape, dim))

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        # y recomputed from x, not saved: with create_graph the second derivative must
        # see that y depends on x (a saved copy would be a constant)
        y = LogSumExp.apply(x, dim=ctx.axes, keepdim=True)
        return _spread(grad, ctx.in_shape, ctx.axes) * (x - y).exp()


class Norm2(Function):
    """y = sqrt(sum x^2) over `dim`;  dL/dx = dL/dy * x / y, and 0 where y == 0 (the
    subgradient PyTorch picks, where the formula would give 0/0)."""

    @staticmethod
    def forward(ctx, x, dim=None, keepdim=False):
        ctx.in_shape, ctx.axes = x.shape, dim
        y = np.sqrt(np.sum(x.data * x.data, axis=dim, keepdims=True))
        ctx.save_for_backward(x)
        return y if keepdim else np.asarray(y).reshape(_reduced_shape(x.shape, dim))

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        # y recomputed from x, not saved: with create_graph the second derivative must
        # see that y depends on x (a saved copy would be a constant)
        y = Norm2.apply(x, dim=ctx.axes, keepdim=True)
        safe_y = y + Tensor._make((y.data == 0).astype(y.dtype))  # 1 where y == 0, else y
        return _spread(grad, ctx.in_shape, ctx.axes) * x / safe_y


class Std(Function):
    """y = sqrt(v) for a variance v (so std = Std(var));  dL/dv = dL/dy / (2 y), and
    0 where y == 0: the choice PyTorch's std makes, so a constant input gets gradient 0,
    not 0 * inf = NaN."""

    @staticmethod
    def forward(ctx, v):
        ctx.save_for_backward(v)
        return np.sqrt(v.data)

    @staticmethod
    def backward(ctx, grad):
        (v,) = ctx.saved_tensors
        # y recomputed from v, not saved, so a second derivative sees that y depends on v
        y = Std.apply(v)
        zero = Tensor._make((y.data == 0).astype(y.dtype))
        return grad * (1.0 - zero) / ((y + zero) * 2.0)


def norm(x, p, dim, keepdim):
    """Vector p-norm over `dim` (all elements if None): p = 2/'fro', 1, inf, -inf or any
    positive number."""
    if x.dtype.kind != "f":
        raise RuntimeError(f"norm: input dtype must be floating point, got {x.dtype}")
    axes = _axes(dim, x.ndim, "norm")
    if p in ("fro", 2, 2.0):
        return Norm2.apply(x, dim=axes, keepdim=keepdim)
    if p == 1:
        return x.abs().sum(dim=axes, keepdim=keepdim)
    if p == float("inf"):
        return x.abs().amax(dim=axes, keepdim=keepdim)
    if p == float("-inf"):
        return x.abs().amin(dim=axes, keepdim=keepdim)
    if isinstance(p, (int, float)) and p > 0:
        return (x.abs() ** p).sum(dim=axes, keepdim=keepdim) ** (1.0 / p)
    raise ValueError(f"norm: unsupported p={p!r} (use 'fro', 1, 2, inf, -inf or a positive number)")


class CumSum(Function):
    """y_i = x_0 + ... + x_i along `dim`;  dL/dx_i = sum over j >= i of dL/dy_j
    (a cumulative sum taken from the other end)."""

    @staticmethod
    def forward(ctx, x, dim):
        ctx.dim = dim
        return np.cumsum(x.data, axis=dim)

    @staticmethod
    def backward(ctx, grad):
        return CumSum.apply(grad.flip(ctx.dim), dim=ctx.dim).flip(ctx.dim)
