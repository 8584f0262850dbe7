"""Linear algebra: matmul (and mm, bmm, addmm, baddbmm), einsum, diag, trace and the
triangular masks.

For C = A @ B the two gradients are again matrix products,
dL/dA = dL/dC @ B^T and dL/dB = A^T @ dL/dC, which is why a network's backward pass
costs about twice its forward. 1-D operands are treated as a row (left) or column
(right) vector, and broadcast batch dims are summed back with `unbroadcast`.
"""

import math
import warnings

import numpy as np

from minigrad import backends
from minigrad._args import normalize_dim
from minigrad.array_module import array_module
from minigrad.autograd.function import Function
from minigrad.creation import _module as module_of_device  # numpy, or the GPU's module
from minigrad.creation import as_tensor
from minigrad.dtypes import to_dtype
from minigrad.ops.broadcast import check_broadcast, unbroadcast
from minigrad.ops.elementwise import Where
from minigrad.ops.out import write_out
from minigrad.ops.promotion import check_same_dtype
from minigrad.ops.shape import cat
from minigrad.ops.view_scatter import diagonal_scatter
from minigrad.tensor import Tensor


# --8<-- [start:matmul]
class MatMul(Function):
    """C = A @ B with batch broadcasting;  dL/dA = dL/dC @ B^T,  dL/dB = A^T @ dL/dC."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        if a.ndim > 2 and b.ndim == 2:
            # a batch of rows times one matrix (a linear layer on (B, T, features)) is one
            # tall product: BLAS runs one (B*T, k) @ (k, m) faster than B small ones
            rows = math.prod(a.shape[:-1])  # not -1: that fails for an empty row of k = 0
            product = backends.kernels("matmul", array=a.array).matmul
            out = product(a.array.reshape(rows, a.shape[-1]), b.array)
            return out.reshape(*a.shape[:-1], b.shape[-1])
        # the "matmul" kernels: on the CPU a large product of two matrices runs on every
        # core, by blocks of rows (kernels/cpu/matmul.py)
        return backends.kernels("matmul", array=a.array).matmul(a.array, b.array)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        # BEGIN SOLUTION hint: dL/dA = dL/dC @ B^T and dL/dB = A^T @ dL/dC (use .mT and MatMul.apply); a 1-D operand is a row (left) or column (right) vector: unsqueeze it, and the gradient, to a matrix first; sum broadcast batch dims back with unbroadcast, then reshape to the input's shape
        if a.ndim == 1 and b.ndim == 1:  # dot product: grad is a scalar
            return (grad * b if need_a else None, grad * a if need_b else None)
        # make both operands matrices (batches of), and the gradient to match
        a2 = a.unsqueeze(0) if a.ndim == 1 else a
        b2 = b.unsqueeze(-1) if b.ndim == 1 else b
        g2 = grad.unsqueeze(-2) if a.ndim == 1 else grad
        g2 = g2.unsqueeze(-1) if b.ndim == 1 else g2
        grad_a = grad_b = None
        if need_a:
            grad_a = unbroadcast(MatMul.apply(g2, b2.mT), a2.shape).reshape(a.shape)
        if need_b and a2.ndim > 2 and b2.ndim == 2:
            # B shared by the whole batch: its gradient sums A^T @ dL/dC over the batch, which
            # is one product of the rows stacked, (k, B*T) @ (B*T, m), with no (B, k, m) to sum
            rows = math.prod(a2.shape[:-1])
            rows_a, rows_g = a2.reshape(rows, a2.shape[-1]), g2.reshape(rows, g2.shape[-1])
            grad_b = MatMul.apply(rows_a.mT, rows_g).reshape(b.shape)
        elif need_b:
            grad_b = unbroadcast(MatMul.apply(a2.mT, g2), b2.shape).reshape(b.shape)
        return grad_a, grad_b
        # END SOLUTION

    # --8<-- [end:matmul]


# --8<-- [start:linear]
class Linear(Function):
    """y = x W^T + b, for x (..., in), W (out, in), b (out,): F.linear with a bias, one op
    as PyTorch's addmm. With X and G = dL/dy taken as matrices of rows, (rows, in) and
    (rows, out):  dL/dX = G W,  dL/dW = G^T X,  dL/db = the sum of G's rows.

    One op rather than a product and an addition: the product's kernel adds b to each
    block of rows on the core that computed it, while the block is in its cache, instead
    of one more pass over the whole output on one core; and the graph has one node, not
    three (W's transpose, the product, the addition).
    """

    @staticmethod
    def forward(ctx, x, weight, bias):
        ctx.save_for_backward(x, weight)
        rows = math.prod(x.shape[:-1])  # 1 for a single sample x (in,)
        product = backends.kernels("matmul", array=x.array).matmul
        y = product(x.array.reshape(rows, x.shape[-1]), weight.array.T, bias=bias.array)
        return y.reshape(*x.shape[:-1], weight.shape[0])

    @staticmethod
    def backward(ctx, grad):
        x, weight = ctx.saved_tensors
        need_x, need_w, need_b = ctx.needs_input_grad
        # BEGIN SOLUTION hint: with G = dL/dy and X = x as matrices of rows ((rows, out) and (rows, in): reshape them when x is not 2-D), dL/dx = G W (grad @ weight keeps x's leading dims), dL/dW = G^T X, dL/db = G summed over its rows
        g, rows_x = grad, x  # G and X as matrices of rows
        if x.ndim != 2:  # a batch of sequences (N, T, in), or one sample (in,)
            rows = math.prod(x.shape[:-1])
            g, rows_x = grad.reshape(rows, grad.shape[-1]), x.reshape(rows, x.shape[-1])
        grad_x = grad @ weight if need_x else None  # (..., out) @ (out, in): x's shape
        grad_w = g.mT @ rows_x if need_w else None
        grad_b = g.sum(0) if need_b else None
        return grad_x, grad_w, grad_b
        # END SOLUTION

    # --8<-- [end:linear]


# ---- the matrix-product family: matmul with stricter shapes, and the fused "add" forms ----
def _result(y, out, op):
    return y if out is None else write_out(out, y, op)


def matmul(input, other, *, out=None):
    """Matrix product with NumPy/PyTorch broadcasting of batch dims (1-D, 2-D, N-D);
    `a @ b` is `matmul(a, b)`."""
    a, b = as_tensor(input), as_tensor(other)
    if a.ndim == 0 or b.ndim == 0:
        raise RuntimeError(
            f"matmul: both arguments need at least 1 dimension, got shapes {a.shape} and {b.shape}"
        )
    k_a = a.shape[-1]
    k_b = b.shape[0] if b.ndim == 1 else b.shape[-2]
    if k_a != k_b:
        raise RuntimeError(
            f"matmul: shapes {a.shape} and {b.shape} cannot be multiplied (inner dimensions {k_a} "
            f"and {k_b} differ)"
        )
    if a.shape[:-2] != b.shape[:-2]:  # (..., n, k) @ (..., k, m): the batch dims broadcast
        check_broadcast(
            f"matmul: the batch dims of {a.shape} and {b.shape}", a.shape[:-2], b.shape[:-2]
        )
    check_same_dtype("matmul", input=a, other=b)  # no promotion, as torch
    return _result(MatMul.apply(a, b), out, "matmul")


def _check_matrices(op, a, b, ndim, names):
    check_same_dtype(op, **dict(zip(names, (a, b))))
    if a.ndim != ndim or b.ndim != ndim:
        kind = "matrices (2-D)" if ndim == 2 else "batches of matrices (3-D)"
        raise RuntimeError(
            f"{op}: expects two {kind}, got {names[0]} {a.shape} and {names[1]} {b.shape}"
        )
    if ndim == 3 and a.shape[0] != b.shape[0]:
        raise RuntimeError(
            f"{op}: batch sizes differ: {names[0]} {a.shape} and {names[1]} {b.shape}"
        )
    if a.shape[-1] != b.shape[-2]:
        raise RuntimeError(
            f"{op}: {names[0]} and {names[1]} shapes cannot be multiplied "
            f"({'x'.join(map(str, a.shape))} and {'x'.join(map(str, b.shape))})"
        )


def mm(input, mat2, *, out=None):
    """(n, m) @ (m, p) -> (n, p): `matmul` restricted to two matrices (no broadcasting)."""
    a, b = as_tensor(input), as_tensor(mat2)
    _check_matrices("mm", a, b, 2, ("mat1", "mat2"))
    return _result(matmul(a, b), out, "mm")


def bmm(input, mat2, *, out=None):
    """(B, n, m) @ (B, m, p) -> (B, n, p): a batch of matrix products (no broadcasting)."""
    a, b = as_tensor(input), as_tensor(mat2)
    _check_matrices("bmm", a, b, 3, ("batch1", "batch2"))
    return _result(matmul(a, b), out, "bmm")


def _add_product(op, input, product, beta, alpha):
    """beta * input + alpha * product, where input broadcasts to the product's shape.
    As in PyTorch, beta=0 ignores input entirely (NaN or inf in it do not leak)."""
    c = as_tensor(input)
    if isinstance(input, Tensor):  # as torch; a number is a scalar that takes the product's dtype
        check_same_dtype(op, input=c, product=product)
    try:
        fits = np.broadcast_shapes(c.shape, product.shape) == product.shape
    except ValueError:
        fits = False
    if not fits:
        raise RuntimeError(
            f"{op}: input of shape {c.shape} does not broadcast to the product's shape "
            f"{product.shape}"
        )
    scaled = product if alpha == 1 else product * alpha
    if beta == 0:
        if not c.requires_grad:
            return scaled
        # input's values are not read (a NaN in it does not leak), but its gradient is 0, as torch's
        return Where.apply(
            Tensor._make(array_module(scaled.array).ones(scaled.shape, dtype=bool)),
            scaled,
            c.to(scaled.dtype),
        )
    return scaled + (c if beta == 1 else c * beta)


def addmm(input, mat1, mat2, *, beta=1, alpha=1, out=None):
    """beta * input + alpha * (mat1 @ mat2) for matrices (a linear layer is addmm(b, x, W.T));
    input broadcasts to (n, p)."""
    a, b = as_tensor(mat1), as_tensor(mat2)
    _check_matrices("addmm", a, b, 2, ("mat1", "mat2"))
    return _result(_add_product("addmm", input, matmul(a, b), beta, alpha), out, "addmm")


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    """beta * input + alpha * (batch1 @ batch2) for batches of matrices; input broadcasts
    to (B, n, p)."""
    a, b = as_tensor(batch1), as_tensor(batch2)
    _check_matrices("baddbmm", a, b, 3, ("batch1", "batch2"))
    return _result(_add_product("baddbmm", input, matmul(a, b), beta, alpha), out, "baddbmm")


def mv(input, vec, *, out=None):
    """(n, m) @ (m,) -> (n,): a matrix times a vector."""
    a, v = as_tensor(input), as_tensor(vec)
    check_same_dtype("mv", input=a, vec=v)
    if a.ndim != 2 or v.ndim != 1 or a.shape[1] != v.shape[0]:
        raise RuntimeError(f"mv: size mismatch, got input {tuple(a.shape)}, vec {tuple(v.shape)}")
    return _result(matmul(a, v), out, "mv")


def addmv(input, mat, vec, *, beta=1, alpha=1, out=None):
    """beta * input + alpha * (mat @ vec); input broadcasts to (n,)."""
    product = mv(mat, vec)
    return _result(_add_product("addmv", input, product, beta, alpha), out, "addmv")


def addr(input, vec1, vec2, *, beta=1, alpha=1, out=None):
    """beta * input + alpha * outer(vec1, vec2); input broadcasts to (n, m)."""
    a, b = as_tensor(vec1), as_tensor(vec2)
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(
            f"addr: expected 1-D vectors, but got vec1 {tuple(a.shape)} and vec2 {tuple(b.shape)}"
        )
    check_same_dtype("addr", vec1=a, vec2=b)
    return _result(_add_product("addr", input, outer(a, b), beta, alpha), out, "addr")


def addbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    """beta * input + alpha * sum_b (batch1[b] @ batch2[b]): the batch of products added
    up; input broadcasts to (n, p)."""
    a, b = as_tensor(batch1), as_tensor(batch2)
    _check_matrices("addbmm", a, b, 3, ("batch1", "batch2"))
    return _result(_add_product("addbmm", input, matmul(a, b).sum(0), beta, alpha), out, "addbmm")


# ---- products of whole tensors: kron, tensordot ------------------------------------------------
def kron(input, other):
    """The Kronecker product: every element of input times the whole of other, laid out as
    blocks: for matrices, out[i*p + k, j*q + l] = a[i, j] * b[k, l]. (The dims interleave:
    a as (a0, 1, a1, 1, ...) times b as (1, b0, 1, b1, ...), then merged pairwise.)"""
    a, b = as_tensor(input), as_tensor(other)
    ndim = max(a.ndim, b.ndim)
    a = a.reshape((1,) * (ndim - a.ndim) + tuple(a.shape))
    b = b.reshape((1,) * (ndim - b.ndim) + tuple(b.shape))
    spread_a = a.reshape(tuple(v for n in a.shape for v in (n, 1)))
    spread_b = b.reshape(tuple(v for n in b.shape for v in (1, n)))
    return (spread_a * spread_b).reshape(tuple(m * n for m, n in zip(a.shape, b.shape)))


def tensordot(a, b, dims=2, out=None):
    """Sum of products over pairs of dims: with `dims` an int n, the last n dims of a with
    the first n of b; with two lists, dims[0] of a with dims[1] of b. The remaining dims of
    a, then of b, make the result. Computed as one matrix product after a permute and a
    reshape, so its gradient is the matrix product's."""
    a, b = as_tensor(a), as_tensor(b)
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        dims_a, dims_b = list(range(a.ndim - dims, a.ndim)), list(range(dims))
    else:
        dims_a, dims_b = ([d] if isinstance(d, int) else list(d) for d in dims)
    if len(dims_a) != len(dims_b):
        raise RuntimeError(
            f"both dimension lists should have same length, got {dims_a} and {dims_b}"
        )
    dims_a = [normalize_dim(d, a.ndim, "tensordot") for d in dims_a]
    dims_b = [normalize_dim(d, b.ndim, "tensordot") for d in dims_b]
    for da, db in zip(dims_a, dims_b):
        if a.shape[da] != b.shape[db]:
            raise RuntimeError(
                f"contracted dimensions need to match, but first has size {a.shape[da]} in dim "
                f"{da} and second has size {b.shape[db]} in dim {db}"
            )
    free_a = [d for d in range(a.ndim) if d not in dims_a]
    free_b = [d for d in range(b.ndim) if d not in dims_b]
    k = math.prod(a.shape[d] for d in dims_a)
    left = a.permute(free_a + dims_a).reshape(-1, k)
    right = b.permute(dims_b + free_b).reshape(k, -1)
    check_same_dtype("tensordot", a=a, b=b)
    y = matmul(left, right).reshape(
        tuple(a.shape[d] for d in free_a) + tuple(b.shape[d] for d in free_b)
    )
    return _result(y, out, "tensordot")


# ---- diagonals ---------------------------------------------------------------------------
def _diagonal_positions(length, diagonal, xp=np):
    """(rows, cols) of the `length` elements on the `diagonal`-th diagonal
    (0: the main one, > 0: above it, < 0: below it), made by the array module `xp`."""
    steps = xp.arange(length)
    return steps + max(-diagonal, 0), steps + max(diagonal, 0)


class Diag(Function):
    """Vector -> matrix: y = the square matrix with x on its `diagonal`-th diagonal
    (or a matrix of the given `shape`); matrix -> vector: y = that diagonal of x.

    The two directions are each other's gradient: dL/dx is the diagonal of dL/dy
    (vector -> matrix), or dL/dy placed on the diagonal of a zero matrix of x's shape.
    """

    @staticmethod
    def forward(ctx, x, diagonal=0, shape=None):
        ctx.in_shape, ctx.diagonal = x.shape, diagonal
        if x.ndim == 2:
            return np.diagonal(x.array, offset=diagonal).copy()
        n = x.shape[0] + abs(diagonal)
        xp = array_module(x.array)
        out = xp.zeros(shape or (n, n), dtype=x.dtype)
        out[_diagonal_positions(x.shape[0], diagonal, xp)] = x.array
        return out

    @staticmethod
    def backward(ctx, grad):
        if len(ctx.in_shape) == 2:
            return Diag.apply(grad, diagonal=ctx.diagonal, shape=ctx.in_shape)
        return Diag.apply(grad, diagonal=ctx.diagonal)


def diag(input, diagonal=0, *, out=None):
    """A 1-D input becomes a matrix with it on the `diagonal`-th diagonal; a 2-D input
    gives its `diagonal`-th diagonal as a vector."""
    x = as_tensor(input)
    if x.ndim not in (1, 2):
        raise RuntimeError(f"diag(): supports 1-D or 2-D tensors, got shape {x.shape}")
    return _result(Diag.apply(x, diagonal=int(diagonal)), out, "diag")


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """Matrices with the last dim of `input` on their `offset`-th diagonal, in the plane of
    dims `dim1` and `dim2` of the result (one more dim than input), zeros elsewhere: a
    batch of vectors becomes a batch of diagonal matrices. The inverse of `diagonal`, and
    its gradient is the diagonal of dL/dy."""
    x = as_tensor(input)
    if x.ndim == 0:
        raise IndexError(
            "diag_embed: Dimension out of range: a 0-d input has no last dim to put on a diagonal"
        )
    ndim = x.ndim + 1
    d1, d2 = normalize_dim(dim1, ndim, "diag_embed"), normalize_dim(dim2, ndim, "diag_embed")
    if d1 == d2:
        raise RuntimeError(f"diag_embed: diagonal dimensions cannot be identical {dim1}, {dim2}")
    n = x.shape[-1] + abs(int(offset))
    rest = iter(x.shape[:-1])
    shape = tuple(n if k in (d1, d2) else next(rest) for k in range(ndim))
    zeros = Tensor._make(array_module(x.array).zeros(shape, dtype=x.dtype))
    return diagonal_scatter(zeros, x, offset, d1, d2)


def diagflat(input, offset=0):
    """A square matrix with the elements of `input` (flattened) on its `offset`-th diagonal."""
    x = as_tensor(input)
    return Diag.apply(x.reshape(-1), diagonal=int(offset))


def trace(input):
    """The sum of the main diagonal of a matrix; its gradient is the identity pattern."""
    x = as_tensor(input)
    if x.ndim != 2:
        raise RuntimeError(
            f"trace: expected a matrix, but got tensor with dim {x.ndim} (shape {x.shape})"
        )
    return Diag.apply(x, diagonal=0).sum()


def outer(a, b):
    """Outer product of two vectors: out[i, j] = a[i] * b[j] (dtypes promote, as torch's)."""
    a, b = as_tensor(a), as_tensor(b)
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"outer: expects two 1-D tensors, got shapes {a.shape} and {b.shape}")
    return a.unsqueeze(1) * b.unsqueeze(0)


# ---- products of vectors: dot, vdot, inner, cross --------------------------------------------
class Dot(Function):
    """y = sum_i a_i b_i, the dot product of two vectors (a 0-d result);
    dL/da = dL/dy * b,  dL/db = dL/dy * a."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return array_module(a.array).asarray(np.dot(a.array, b.array))  # 0-d: an array

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        return (grad * b if need_a else None, grad * a if need_b else None)


def _check_vectors(op, a, b):
    """torch.dot's checks, with its words: two 1-D tensors of one length and one dtype."""
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"{op}: 1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a.shape != b.shape:
        raise RuntimeError(
            f"{op}: inconsistent tensor size, expected tensor [{a.shape[0]}] and src "
            f"[{b.shape[0]}] to have the same number of elements, but got {a.shape[0]} and "
            f"{b.shape[0]} elements "
            "respectively"
        )
    if a.dtype != b.dtype:
        raise RuntimeError(
            f"{op}: expected both vectors to have same dtype, but found {a.dtype} and {b.dtype}"
        )


def dot(input, tensor, *, out=None):
    """The dot product of two 1-D tensors of one length and dtype, sum_i a_i b_i, as a 0-d
    tensor (no broadcasting, no promotion: torch's errors otherwise)."""
    a, b = as_tensor(input), as_tensor(tensor)
    _check_vectors("dot", a, b)
    return _result(Dot.apply(a, b), out, "dot")


def vdot(input, other, *, out=None):
    """sum_i conj(a_i) b_i; minigrad's tensors are real, so this is `dot` (same checks)."""
    a, b = as_tensor(input), as_tensor(other)
    _check_vectors("vdot", a, b)
    return _result(Dot.apply(a, b), out, "vdot")


def inner(input, other, *, out=None):
    """The inner product over the last dim: out[i.., j..] = sum_k a[i.., k] b[j.., k], of
    shape a.shape[:-1] + b.shape[:-1] (for two vectors, their dot product); a 0-d
    operand multiplies the other. Differentiable as the matrix product it is."""
    a, b = as_tensor(input), as_tensor(other)
    if a.ndim == 0 or b.ndim == 0:
        return _result(a * b, out, "inner")
    if a.shape[-1] != b.shape[-1]:
        raise RuntimeError(
            f"inner() the last dimension must match on both input tensors but got shapes "
            f"{list(a.shape)} and {list(b.shape)}"
        )
    check_same_dtype("inner", input=a, other=b)
    k = a.shape[-1]
    y = matmul(a.reshape(-1, k), b.reshape(-1, k).mT)  # rows of a against rows of b
    return _result(y.reshape(a.shape[:-1] + b.shape[:-1]), out, "inner")


class Cross(Function):
    """y = a x b, the cross product of 3-vectors along `dim` (broadcast);
    dL/da = b x dL/dy,  dL/db = dL/dy x a (each summed back to its shape).

    (From dL = g . (da x b) = da . (b x g), the scalar triple product's symmetry.)"""

    @staticmethod
    def forward(ctx, a, b, dim):
        ctx.save_for_backward(a, b)
        ctx.dim = dim
        return np.cross(a.array, b.array, axis=dim)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        return (
            unbroadcast(Cross.apply(b, grad, dim=ctx.dim), a.shape) if need_a else None,
            unbroadcast(Cross.apply(grad, a, dim=ctx.dim), b.shape) if need_b else None,
        )


def cross(input, other, dim=None, *, out=None):
    """The cross product of 3-vectors along `dim` of `input` and `other`: tensors of one
    dtype and one number of dims, of size 3 at `dim`, whose other dims broadcast. Without
    `dim`, the first dim of size 3, with PyTorch's deprecation warning."""
    a, b = as_tensor(input), as_tensor(other)
    check_same_dtype("cross", input=a, other=b)
    if a.ndim != b.ndim:
        raise RuntimeError(
            f"linalg.cross: inputs must have the same number of dimensions (got shapes {a.shape} "
            f"and {b.shape})."
        )
    check_broadcast("cross", a.shape, b.shape, names=("input", "other"))
    if dim is None:
        warnings.warn(
            "Using torch.cross without specifying the dim arg is deprecated. Please either pass "
            "the dim explicitly or simply use torch.linalg.cross. The default value of dim will "
            "change to agree with that of linalg.cross in a future release.",
            UserWarning,
            stacklevel=2,
        )
        shape = np.broadcast_shapes(a.shape, b.shape)
        if 3 not in shape:
            raise RuntimeError(
                f"cross: no dimension of size 3 in input (shapes {a.shape} and {b.shape})"
            )
        dim = shape.index(3)
    d = normalize_dim(dim, a.ndim, "cross")
    if a.shape[d] != 3 or b.shape[d] != 3:
        raise RuntimeError(
            f"linalg.cross: inputs dimension {dim} must have length 3. Got {a.shape[d]} and "
            f"{b.shape[d]}"
        )
    return _result(Cross.apply(a, b, dim=d), out, "cross")


class TriangleMask(Function):
    """y = x with the elements above (tril) or below (triu) the `diagonal`-th diagonal
    set to 0 (in the last two dims);  dL/dx = the same mask applied to dL/dy."""

    @staticmethod
    def forward(ctx, x, diagonal=0, lower=True):
        ctx.diagonal, ctx.lower = diagonal, lower
        return np.tril(x.array, diagonal) if lower else np.triu(x.array, diagonal)

    @staticmethod
    def backward(ctx, grad):
        return TriangleMask.apply(grad, diagonal=ctx.diagonal, lower=ctx.lower)


def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of the 1-D `x`: column j holds x ** (N - 1 - j) (decreasing
    powers; x ** j with `increasing=True`), N = len(x) columns by default. Built as a
    running product of x, so x = 0 has a gradient."""
    x = as_tensor(x)
    if x.ndim != 1:
        raise RuntimeError(f"x must be a one-dimensional tensor, got shape {tuple(x.shape)}")
    n = x.shape[0] if N is None else int(N)
    if n < 0:
        raise RuntimeError(f"N must be non-negative, got {n}")
    if x.dtype.kind == "b":
        x = x.to(np.int64)
    xp = array_module(x.array)
    if n == 0:
        return Tensor._make(xp.zeros((x.shape[0], 0), dtype=x.dtype))
    ones = Tensor._make(xp.ones((x.shape[0], 1), dtype=x.dtype))
    powers = (
        ones if n == 1 else cat([ones, x.unsqueeze(1).expand(x.shape[0], n - 1)], dim=1).cumprod(1)
    )
    return powers if increasing else powers.flip(1)


def triangle(xp, row, col, offset, lower):
    """The row and column indices (arrays of module `xp`) of a row x col matrix's elements
    on and below (`lower`) or on and above the `offset`-th diagonal, in row-major order.

    Picking them with a mask would make the GPU tell the host how many there are; the
    count is known here, so the triangle's flat positions are sorted to the front instead
    (every other position is pushed past the end) and the first `count` kept."""
    below = np.tri(row, col, offset if lower else offset - 1, dtype=bool)  # on the host
    count = int(below.sum()) if lower else row * col - int(below.sum())
    position = xp.arange(row * col)
    i, j = position // max(col, 1), position % max(col, 1)
    inside = (j - i <= offset) if lower else (j - i >= offset)
    first = xp.sort(xp.where(inside, position, row * col))[:count]
    return first // max(col, 1), first % max(col, 1)


def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The (row, column) indices of the lower triangle of a row x col matrix (on and below
    the `offset`-th diagonal), as a (2, N) int64 tensor in row-major order:
    `m[tuple(tril_indices(3, 3))]` reads the lower triangle."""
    xp = module_of_device(device, "tril_indices")
    rows, cols = triangle(xp, row, col, offset, lower=True)
    return Tensor._make(
        xp.stack([rows, cols]).astype(to_dtype(dtype, "tril_indices") or np.int64).reshape(2, -1)
    )


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The (row, column) indices of the upper triangle of a row x col matrix (on and above
    the `offset`-th diagonal), as a (2, N) int64 tensor in row-major order."""
    xp = module_of_device(device, "triu_indices")
    rows, cols = triangle(xp, row, col, offset, lower=False)
    return Tensor._make(
        xp.stack([rows, cols]).astype(to_dtype(dtype, "triu_indices") or np.int64).reshape(2, -1)
    )


def tril(input, diagonal=0):
    """The lower triangle of (each matrix in) `input`: zeros above the `diagonal`-th diagonal."""
    x = as_tensor(input)
    if x.ndim < 2:
        raise RuntimeError(f"tril: input must have at least 2 dimensions, got shape {x.shape}")
    return TriangleMask.apply(x, diagonal=diagonal, lower=True)


def triu(input, diagonal=0):
    """The upper triangle of (each matrix in) `input`: zeros below the `diagonal`-th diagonal."""
    x = as_tensor(input)
    if x.ndim < 2:
        raise RuntimeError(f"triu: input must have at least 2 dimensions, got shape {x.shape}")
    return TriangleMask.apply(x, diagonal=diagonal, lower=False)


# ---- einsum ----------------------------------------------------------------------------
def parse_einsum(equation, shapes):
    """Split 'ij,jk->ik' into (['ij', 'jk'], 'ik') and check it against the shapes.

    Supported: explicit or implicit output, any letters; not supported (clear error):
    '...' and a letter repeated inside one operand (diagonals).
    """
    eq = equation.replace(" ", "")
    if "." in eq:
        raise NotImplementedError(
            f"einsum: '...' (ellipsis) is not supported in minigrad, got '{equation}'"
        )
    if "->" in eq:
        lhs, out = eq.split("->")
    else:
        lhs = eq
        letters = lhs.replace(",", "")
        out = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    subs = lhs.split(",")
    if len(subs) != len(shapes):
        raise ValueError(
            f"einsum: '{equation}' names {len(subs)} operands but {len(shapes)} were given"
        )
    sizes = {}
    for k, (sub, shape) in enumerate(zip(subs, shapes)):
        if not sub.isalpha() and sub != "":
            raise ValueError(f"einsum: subscripts must be letters, got '{sub}' in '{equation}'")
        if len(set(sub)) != len(sub):
            raise NotImplementedError(
                f"einsum: repeated index in one operand ('{sub}') is not supported"
            )
        if len(sub) != len(shape):
            raise ValueError(
                f"einsum: operand {k} has shape {shape} but subscripts '{sub}' name {len(sub)} dims"
            )
        for c, n in zip(sub, shape):
            if sizes.setdefault(c, n) != n:
                raise ValueError(f"einsum: index '{c}' has size {sizes[c]} and {n} in '{equation}'")
    for c in out:
        if c not in sizes:
            raise ValueError(
                f"einsum: output index '{c}' does not appear in the inputs of '{equation}'"
            )
    return subs, out, sizes


class Einsum(Function):
    """out = einsum(equation, *operands);  dL/d(operand k) = einsum of dL/dout with the
    other operands, written to operand k's subscripts (indices summed away in the
    forward that appear nowhere else are broadcast back)."""

    @staticmethod
    def forward(ctx, *operands, equation):
        subs, out, sizes = parse_einsum(equation, [o.shape for o in operands])
        ctx.subs, ctx.out, ctx.sizes = subs, out, sizes
        ctx.save_for_backward(*operands)
        xp = array_module(*[o.array for o in operands])
        y = np.einsum(",".join(subs) + "->" + out, *[o.array for o in operands])
        return xp.asarray(y)  # a 0-d result: an array

    @staticmethod
    def backward(ctx, grad):
        operands = ctx.saved_tensors
        grads = []
        for k, (sub, need) in enumerate(zip(ctx.subs, ctx.needs_input_grad)):
            if not need:
                grads.append(None)
                continue
            others = [o for j, o in enumerate(operands) if j != k]
            other_subs = [s for j, s in enumerate(ctx.subs) if j != k]
            available = set(ctx.out).union(*other_subs) if other_subs else set(ctx.out)
            target = "".join(c for c in sub if c in available)
            equation = ",".join([ctx.out] + other_subs) + "->" + target
            g = Einsum.apply(grad, *others, equation=equation)
            if target != sub:  # indices only this operand had: its gradient is constant along them
                for axis, c in enumerate(sub):
                    if c not in available:
                        g = g.unsqueeze(axis)
                g = g.expand(tuple(ctx.sizes[c] for c in sub))
            grads.append(g)
        return tuple(grads)


def einsum(equation, *operands):
    """Einstein summation, e.g. einsum('bij,bjk->bik', a, b). See `parse_einsum` for
    what is supported."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    operands = [o if isinstance(o, Tensor) else as_tensor(o) for o in operands]
    check_same_dtype("einsum", **{f"operand {k}": o for k, o in enumerate(operands)})
    return Einsum.apply(*operands, equation=equation)
