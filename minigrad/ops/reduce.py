"""Reductions: ops that combine many elements into fewer.

The pattern of every backward here: the gradient of a reduced output element is sent
back to the input elements it was computed from, by reshaping the gradient so the
reduced axes have size 1 and broadcasting it (`expand`) over them.
"""

import numpy as np

from minigrad import backends, dtypes
from minigrad._args import normalize_dim, normalize_dims
from minigrad.array_module import array_module, on_device
from minigrad.autograd.function import Function
from minigrad.creation import as_tensor, from_numpy
from minigrad.ops.elementwise import NonZero
from minigrad.ops.out import write_out


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


def reduced_count(shape, axes):
    """How many elements of `shape` a reduction over `axes` (None: all) combines into
    each output element: the N of a mean or a variance."""
    if axes is None:
        return int(np.prod(shape))
    return int(np.prod([shape[a] for a in axes]))


def _spread(grad, in_shape, axes):
    """Send each output gradient back over the axes it was reduced from."""
    # BEGIN SOLUTION hint: every input element that was summed into an output gets that output's gradient: reshape grad so the reduced axes have size 1 (_keepdim_shape), then expand it to in_shape
    return grad.reshape(_keepdim_shape(in_shape, axes)).expand(in_shape)
    # END SOLUTION


class Sum(Function):
    """y = sum of x over `dim`;  dL/dx = dL/dy broadcast back over `dim`."""

    @staticmethod
    def forward(ctx, x, dim=None, keepdim=False):
        ctx.in_shape, ctx.axes = x.shape, dim
        # every element of a large array: a kernel (NumPy's sum runs at a few numbers per
        # cycle); anything else NumPy's
        sums = backends.kernels("reduce", array=x.array)
        return sums.sum(x.array, axis=dim, keepdims=keepdim)

    @staticmethod
    def backward(ctx, grad):
        return _spread(grad, ctx.in_shape, ctx.axes)


class Amax(Function):
    """y = largest (or smallest) x over `dim`;  dL/dx = dL/dy shared evenly among the
    elements that attain the extreme (so ties split the gradient, as torch.amax)."""

    @staticmethod
    def forward(ctx, x, dim=None, keepdim=False, largest=True):
        if x.array.size == 0:
            raise RuntimeError(
                f"{'amax' if largest else 'amin'}: cannot reduce an empty tensor of shape {x.shape}"
            )
        y = (np.max if largest else np.min)(x.array, axis=dim, keepdims=True)
        hits = x.array == y
        ctx.in_shape, ctx.axes = x.shape, dim
        ctx.weights = hits / np.sum(hits, axis=dim, keepdims=True)
        return y if keepdim else y.reshape(_reduced_shape(x.shape, dim))

    @staticmethod
    def backward(ctx, grad):
        weights = from_numpy(ctx.weights.astype(grad.dtype, copy=False))
        return _spread(grad, ctx.in_shape, ctx.axes) * weights


class MaxDim(Function):
    """values of max/min over one dim; the gradient goes to the returned index only."""

    @staticmethod
    def forward(ctx, x, dim, keepdim, indices):
        ctx.in_shape, ctx.dim, ctx.keepdim = x.shape, dim, keepdim
        ctx.indices = np.expand_dims(indices, dim)  # `indices` has the dim reduced away
        values = np.take_along_axis(x.array, ctx.indices, axis=dim)
        return values if keepdim else np.squeeze(values, axis=dim)

    @staticmethod
    def backward(ctx, grad):
        if type(grad.array) is np.ndarray:
            one_hot = np.zeros(ctx.in_shape, dtype=grad.dtype)
            np.put_along_axis(one_hot, ctx.indices, 1, axis=ctx.dim)
        else:  # on a GPU: 1 where the positions 0..n-1 along dim meet each lane's index
            n = ctx.in_shape[ctx.dim]
            along = (n,) + (1,) * (len(ctx.in_shape) - ctx.dim - 1)  # lying along dim
            positions = array_module(grad.array).arange(n).reshape(along)
            one_hot = (positions == ctx.indices).astype(grad.dtype)
        return _spread(grad, ctx.in_shape, (ctx.dim,)) * from_numpy(one_hot)


def max_or_min(x, dim, keepdim, largest):
    name = "max" if largest else "min"
    if dim is None:
        if x.array.size == 0:  # as PyTorch: an empty tensor has no largest element
            raise RuntimeError(
                f"{name}: cannot reduce an empty tensor of shape {x.shape} without a dim"
            )
        return Amax.apply(x, dim=None, keepdim=False, largest=largest)
    d = normalize_dim(dim, x.ndim, name)
    if x.ndim == 0:
        return x.clone(), from_numpy(array_module(x.array).zeros((), np.int64))
    if x.shape[d] == 0:
        raise IndexError(f"{name}: cannot reduce over dim {d} of size 0 (shape {x.shape})")
    # NaN counts as the extreme, as in PyTorch: argmax of NaN is its own index. On a GPU
    # the NaN indices are merged in always: asking first would copy a bool to the host.
    indices = (np.argmax if largest else np.argmin)(x.array, axis=d)
    if x.dtype.kind == "f" and (on_device(x.array) or np.isnan(x.array).any()):
        nan_at = np.isnan(x.array)
        indices = np.where(nan_at.any(axis=d), np.argmax(nan_at, axis=d), indices)
    values = MaxDim.apply(x, dim=d, keepdim=keepdim, indices=indices)
    idx = indices if not keepdim else np.expand_dims(indices, d)
    return ValuesIndices(values, from_numpy(idx.astype(np.int64)))


class ValuesIndices(tuple):
    """(values, indices) with names, like torch.return_types.max, .sort and .topk:
    unpack it (`v, i = x.max(0)`) or read `.values` and `.indices`."""

    def __new__(cls, values, indices):
        return super().__new__(cls, (values, indices))

    @property
    def values(self):
        return self[0]

    @property
    def indices(self):
        return self[1]

    def __repr__(self):
        return f"minigrad.return_types(\nvalues={self[0]!r},\nindices={self[1]!r})"


def arg_extreme(x, dim, keepdim, fn, name):
    if dim is None and x.array.size == 0:  # as PyTorch; NumPy's "empty sequence" names no op
        raise IndexError(
            f"{name}: cannot take the {name} of an empty tensor (shape {x.shape}) without a dim"
        )
    if dim is not None and x.ndim and x.shape[normalize_dim(dim, x.ndim, name)] == 0:
        raise IndexError(
            f"{name}: dim {dim} has size 0 in shape {x.shape}: there is no element to pick"
        )
    xp = array_module(x.array)
    if dim is None:
        out = fn(x.array.reshape(-1))
        if keepdim:
            out = np.reshape(out, (1,) * x.ndim)
        return from_numpy(xp.asarray(out, dtype=np.int64))
    d = normalize_dim(dim, x.ndim, name)
    out = fn(x.array, axis=d) if x.ndim else xp.zeros((), np.int64)
    if keepdim and x.ndim:
        out = np.expand_dims(out, d)
    return from_numpy(xp.asarray(out, dtype=np.int64))


class Prod(Function):
    """y = product of x over `dim`;  dL/dx_i = dL/dy * prod of the other elements.

    "Product of the others" is computed as y / x_i when no element is zero (which is
    differentiable again); with zeros it is built from exclusive cumulative products,
    which is exact but treated as a constant by a second derivative. On a GPU it is always
    built that way: asking whether x has a zero would copy a bool to the host.
    """

    @staticmethod
    def forward(ctx, x, dim=None, keepdim=False):
        ctx.dim, ctx.keepdim, ctx.in_shape = dim, keepdim, x.shape
        y = from_numpy(np.prod(x.array, axis=dim, keepdims=keepdim))
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        axes = None if ctx.dim is None else (ctx.dim,)
        grad_full = _spread(grad, ctx.in_shape, axes)
        if not on_device(x.array) and not np.any(x.array == 0):
            return grad_full * _spread(y, ctx.in_shape, axes) / x
        flat = x.array.reshape(-1) if ctx.dim is None else np.moveaxis(x.array, ctx.dim, -1)
        ones = array_module(flat).ones(flat.shape[:-1] + (1,), dtype=flat.dtype)
        left = np.cumprod(np.concatenate([ones, flat[..., :-1]], axis=-1), axis=-1)
        right = np.flip(
            np.cumprod(np.flip(np.concatenate([flat[..., 1:], ones], axis=-1), -1), axis=-1), -1
        )
        others = left * right
        others = (
            others.reshape(ctx.in_shape) if ctx.dim is None else np.moveaxis(others, -1, ctx.dim)
        )
        return grad_full * from_numpy(others)


class LogSumExp(Function):
    """y = log(sum(exp(x))) over `dim`, computed as m + log(sum(exp(x - m))) with
    m = max(x) so nothing overflows;  dL/dx = dL/dy * softmax(x) = dL/dy * exp(x - y)."""

    @staticmethod
    def forward(ctx, x, dim, keepdim=False):
        ctx.in_shape, ctx.axes = x.shape, dim
        xp = array_module(x.array)
        m = np.max(x.array, axis=dim, keepdims=True) if x.array.size else xp.zeros(())
        m = np.where(np.isfinite(m), m, 0)  # all -inf along an axis: log(0) = -inf, not NaN
        y = np.log(np.sum(np.exp(x.array - m), axis=dim, keepdims=True)) + m
        ctx.save_for_backward(x)
        return y if keepdim else y.reshape(_reduced_shape(x.shape, dim))

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
        y = np.sqrt(np.sum(x.array * x.array, axis=dim, keepdims=True))
        ctx.save_for_backward(x)
        return y if keepdim else y.reshape(_reduced_shape(x.shape, dim))

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        # y recomputed from x, not saved: with create_graph the second derivative must
        # see that y depends on x (a saved copy would be a constant)
        y = Norm2.apply(x, dim=ctx.axes, keepdim=True)
        safe_y = y + from_numpy((y.array == 0).astype(y.dtype))  # 1 where y == 0, else y
        return _spread(grad, ctx.in_shape, ctx.axes) * x / safe_y


class Std(Function):
    """y = sqrt(v) for a variance v (so std = Std(var));  dL/dv = dL/dy / (2 y), and
    0 where y == 0: the choice PyTorch's std makes, so a constant input gets gradient 0,
    not 0 * inf = NaN."""

    @staticmethod
    def forward(ctx, v):
        ctx.save_for_backward(v)
        return np.sqrt(v.array)

    @staticmethod
    def backward(ctx, grad):
        (v,) = ctx.saved_tensors
        # y recomputed from v, not saved, so a second derivative sees that y depends on v
        y = Std.apply(v)
        zero = from_numpy((y.array == 0).astype(y.dtype))
        return grad * (1.0 - zero) / ((y + zero) * 2.0)


def norm(x, p="fro", dim=None, keepdim=False, dtype=None):
    """Vector p-norm over `dim` (all elements if None), (sum |x|^p)^(1/p):
    p = 2/'fro' (Euclidean), 1, inf (max |x|), -inf (min |x|), 0 (the number of
    non-zeros, gradient 0), or any other real number."""
    if dtype is not None:
        x = x.to(dtype)
    if x.dtype.kind != "f":
        raise RuntimeError(f"norm: input dtype must be floating point, got {x.dtype}")
    axes = normalize_dims(dim, x.ndim, "norm")
    if p in ("fro", 2, 2.0):
        return Norm2.apply(x, dim=axes, keepdim=keepdim)
    if isinstance(p, str) or isinstance(p, bool) or not isinstance(p, (int, float, np.number)):
        raise ValueError(
            f"norm: unsupported p={p!r} (use 'fro' or a number; 'nuc' and other matrix norms "
            "need singular values, which minigrad does not implement)"
        )
    if p == 1:
        return x.abs().sum(dim=axes, keepdim=keepdim)
    if p == float("inf"):
        return x.abs().amax(dim=axes, keepdim=keepdim)
    if p == float("-inf"):
        return x.abs().amin(dim=axes, keepdim=keepdim)
    if p == 0:  # a count: piecewise constant in x, so its gradient is 0 (as PyTorch)
        return NonZero.apply(x).sum(dim=axes, keepdim=keepdim)
    with np.errstate(divide="ignore"):  # negative p: |0|^p = inf, and inf^(1/p) = 0, as torch
        return (x.abs() ** float(p)).sum(dim=axes, keepdim=keepdim) ** (1.0 / p)


class CumSum(Function):
    """y_i = x_0 + ... + x_i along `dim`;  dL/dx_i = sum over j >= i of dL/dy_j
    (a cumulative sum taken from the other end)."""

    @staticmethod
    def forward(ctx, x, dim):
        ctx.dim = dim
        return np.cumsum(x.array, axis=dim)

    @staticmethod
    def backward(ctx, grad):
        return CumSum.apply(grad.flip(ctx.dim), dim=ctx.dim).flip(ctx.dim)


class CumProd(Function):
    """y_i = x_0 * x_1 * ... * x_i along `dim`;
    dL/dx_i = sum over j >= i of dL/dy_j * y_j / x_i.

    The sum over j >= i is a cumulative sum from the other end. Dividing by x_i is only
    possible where x_i != 0; a lane that holds a zero gets its exact gradient from
    `_cumprod_grad_with_zeros` instead (treated as a constant by a second derivative,
    like `Prod`). Asking whether x has a zero copies one bool to the host, on a GPU too
    (torch's prod backward asks as well).
    """

    @staticmethod
    def forward(ctx, x, dim):
        ctx.dim = dim
        y = from_numpy(np.cumprod(x.array, axis=dim))
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        d = ctx.dim
        if not np.any(x.array == 0):
            return CumSum.apply((grad * y).flip(d), dim=d).flip(d) / x
        return from_numpy(_cumprod_grad_with_zeros(x.array, grad.array, d))


def _cumprod_grad_with_zeros(x, g, dim):
    """dL/dx of y = cumprod(x) when x has zeros, lane by lane along `dim`.

    In a lane whose first zero is at z: for i < z the formula sum_{j>=i} g_j y_j / x_i
    still holds (x_i != 0, and every y_j with j >= z is 0); for i > z every product
    that contains x_i also contains x_z = 0, so the gradient is 0; and for i = z it is
    sum_{j>=z} g_j * (x_0 ... x_{z-1}) * (x_{z+1} ... x_j).
    """
    x_lanes = np.moveaxis(x, dim, -1).reshape(-1, x.shape[dim])
    g_lanes = np.moveaxis(g, dim, -1).reshape(-1, x.shape[dim])
    out = np.zeros_like(x_lanes)
    for lane, (xs, gs) in enumerate(zip(x_lanes, g_lanes)):
        zeros = np.flatnonzero(xs == 0)
        y = np.cumprod(xs)
        if zeros.size == 0:
            out[lane] = np.cumsum((gs * y)[::-1])[::-1] / xs
            continue
        z = zeros[0]
        before = xs[:z]
        out[lane, :z] = np.cumsum((gs * y)[::-1])[::-1][:z] / before
        after = np.cumprod(xs[z + 1 :])  # x_{z+1} ... x_j for j = z+1, ...
        out[lane, z] = np.prod(before) * (gs[z] + np.sum(gs[z + 1 :] * after))
    moved = np.moveaxis(x, dim, -1).shape
    return np.moveaxis(out.reshape(moved), -1, dim)


def _cumulative(fn, name, input, dim, dtype, out):
    x = as_tensor(input)
    d = normalize_dim(dim, x.ndim, name)
    if dtype is not None:
        x = x.to(dtype)
    elif x.dtype.kind in "biu":
        x = x.to(np.int64)  # integer running totals are int64, as in PyTorch
    y = fn.apply(x.reshape(1) if x.ndim == 0 else x, dim=0 if x.ndim == 0 else d)
    y = y.reshape(()) if x.ndim == 0 else y
    return y if out is None else write_out(out, y, name)


def cumsum(input, dim, *, dtype=None, out=None):
    """Running sums along `dim`: y_i = x_0 + ... + x_i (integers and bools give int64)."""
    return _cumulative(CumSum, "cumsum", input, dim, dtype, out)


def cumprod(input, dim, *, dtype=None, out=None):
    """Running products along `dim`: y_i = x_0 * ... * x_i (integers and bools give int64)."""
    return _cumulative(CumProd, "cumprod", input, dim, dtype, out)


def norm_function(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """`mg.norm(input, p='fro', dim=None, keepdim=False, out=None, dtype=None)`, as torch.norm:
    the vector p-norm of the elements over `dim` (see `norm`)."""
    y = norm(as_tensor(input), p, dim, keepdim, dtypes.to_dtype(dtype))
    return y if out is None else write_out(out, y, "norm")


# ---- torch-level functions: mg.exp(x) is x.exp() ---------------------------------------
# Each takes what torch's function of the same name takes (a list or a number becomes a
# tensor first) and calls the Tensor method, whose Function is above.
def sum(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A001  (torch.sum)
    """Sum of input's elements over dim (an int, a tuple, or None for all); see Tensor.sum."""
    return as_tensor(input).sum(dim, keepdim, dtype=dtype)


def mean(input, dim=None, keepdim=False):
    """Mean of input's elements over dim (an int, a tuple, or None for all); see Tensor.mean."""
    return as_tensor(input).mean(dim, keepdim)


def var(input, dim=None, correction=1, keepdim=False, unbiased=None):
    """Variance over dim, divided by N - correction (unbiased=True: 1); see Tensor.var."""
    return as_tensor(input).var(dim, correction, keepdim, unbiased)


def std(input, dim=None, correction=1, keepdim=False, unbiased=None):
    """Standard deviation over dim, sqrt of var with the same arguments; see Tensor.std."""
    return as_tensor(input).std(dim, correction, keepdim, unbiased)


def prod(input, dim=None, keepdim=False):
    """Product of input's elements over one dim (or all if None); see Tensor.prod."""
    return as_tensor(input).prod(dim, keepdim)


def logsumexp(input, dim, keepdim=False):
    """log(sum(exp(input))) over dim, computed without overflow; see Tensor.logsumexp."""
    return as_tensor(input).logsumexp(dim, keepdim)


def amax(input, dim=None, keepdim=False):
    """Largest element over dim (ties share the gradient); see Tensor.amax."""
    return as_tensor(input).amax(dim, keepdim)


def amin(input, dim=None, keepdim=False):
    """Smallest element over dim (ties share the gradient); see Tensor.amin."""
    return as_tensor(input).amin(dim, keepdim)


def argmax(input, dim=None, keepdim=False):
    """Index of the largest element over dim (of the flattened input if None); see Tensor.argmax."""
    return as_tensor(input).argmax(dim, keepdim)


def argmin(input, dim=None, keepdim=False):
    """Index of the smallest element over dim (of the flat input if None); see Tensor.argmin."""
    return as_tensor(input).argmin(dim, keepdim)


def max(input, dim=None, keepdim=False):  # noqa: A001  (torch.max)
    """The largest element; with an int dim, (values, indices); see Tensor.max."""
    return as_tensor(input).max(dim, keepdim)


def min(input, dim=None, keepdim=False):  # noqa: A001  (torch.min)
    """The smallest element; with an int dim, (values, indices); see Tensor.min."""
    return as_tensor(input).min(dim, keepdim)
