"""`mg.linalg`: norms, inverses, determinants and matrix functions, as in `torch.linalg`
(the part of it that everyday code uses; the Functions are in minigrad/ops/inverse.py and
minigrad/ops/matrix_powers.py, and the top-level `mg.inverse`, `mg.det`, ... are the same).

A vector norm treats the elements over `dim` as one vector:
||x||_p = (sum |x_i|^p)^(1/p), with the limits max |x_i| (p = inf), min |x_i|
(p = -inf) and the number of non-zeros (p = 0). A matrix norm looks at the rows and
columns of the two dims: 'fro' is the vector 2-norm of all entries, ord=1 the largest
column sum of |A|, ord=inf the largest row sum (-1 and -inf the smallest). The
spectral and nuclear norms (ord=2, -2, 'nuc') need singular values, which minigrad
does not implement.
"""

from minigrad import dtypes
from minigrad._args import normalize_dim, normalize_dims
from minigrad.creation import as_tensor
from minigrad.ops.inverse import det, slogdet, solve
from minigrad.ops.inverse import inverse as inv
from minigrad.ops.matrix_powers import matrix_exp, matrix_power
from minigrad.ops.out import write_out
from minigrad.ops.reduce import norm as _vector_norm

__all__ = [
    "det",
    "inv",
    "matrix_exp",
    "matrix_norm",
    "matrix_power",
    "norm",
    "slogdet",
    "solve",
    "vector_norm",
]


def _result(y, out, op):
    return y if out is None else write_out(out, y, op)


def _floating_input(x, dtype, op):
    x = as_tensor(x)
    if dtype is not None:
        x = x.to(dtypes.to_dtype(dtype))
    if x.dtype.kind != "f":
        raise RuntimeError(f"{op}: expected a floating point tensor as input, got {x.dtype}")
    return x


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    """The vector `ord`-norm of the elements over `dim` (all of them if None)."""
    x = _floating_input(x, dtype, "linalg.vector_norm")
    if isinstance(ord, str):
        raise RuntimeError(f"linalg.vector_norm: ord must be a number, got {ord!r}")
    dim = normalize_dims(dim, x.ndim, "linalg.vector_norm")  # here, so that errors name this op
    return _result(_vector_norm(x, ord, dim, keepdim), out, "linalg.vector_norm")


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    """The matrix `ord`-norm over the two dims `dim` ('fro', 1, -1, inf, -inf)."""
    A = _floating_input(A, dtype, "linalg.matrix_norm")
    if not isinstance(dim, (tuple, list)) or len(dim) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple, got {dim!r}")
    if A.ndim < 2:
        raise RuntimeError(
            f"linalg.matrix_norm: the input must have at least 2 dimensions, got shape {A.shape}"
        )
    rows, cols = (normalize_dim(d, A.ndim, "linalg.matrix_norm") for d in dim)
    if rows == cols:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different, got {dim}")
    if ord == "fro":
        y = _vector_norm(A, 2, (rows, cols), keepdim)
    elif ord in (1, -1, float("inf"), float("-inf")):
        # ord=+-1: sum down each column, then the max/min over columns; inf: rows instead
        summed, across = (rows, cols) if abs(ord) == 1 else (cols, rows)
        sums = A.abs().sum(dim=summed, keepdim=True)
        y = sums.amax(dim=across, keepdim=True) if ord > 0 else sums.amin(dim=across, keepdim=True)
        if not keepdim:
            y = y.squeeze((rows, cols))
    elif ord in (2, -2, "nuc"):
        raise NotImplementedError(
            f"linalg.matrix_norm: ord={ord!r} needs singular values (SVD), which minigrad does not "
            "implement"
        )
    else:
        raise RuntimeError(
            f"linalg.matrix_norm: ord must be 'fro', 'nuc', 1, -1, 2, -2, inf or -inf, got {ord!r}"
        )
    return _result(y, out, "linalg.matrix_norm")


def norm(A, ord=None, dim=None, keepdim=False, *, out=None, dtype=None):
    """A vector or a matrix norm, chosen as torch.linalg.norm does: with ord=None the
    2-norm of all elements over `dim`; with `ord` given, a vector norm for a 1-D input
    (or an int dim) and a matrix norm for a 2-D input (or a 2-tuple dim)."""
    x = as_tensor(A)
    if isinstance(dim, int):
        dim = (dim,)
    if ord is None:
        if dim is not None and len(dim) == 2:
            return matrix_norm(x, "fro", dim, keepdim, dtype=dtype, out=out)
        return vector_norm(x, 2, dim, keepdim, dtype=dtype, out=out)
    if dim is None:
        if x.ndim not in (1, 2):
            raise RuntimeError(
                "linalg.norm: if dim is not specified but ord is, the input must be 1D or 2D, got "
                f"shape {x.shape}"
            )
        dim = tuple(range(x.ndim))
    if len(dim) == 1:
        return vector_norm(x, ord, dim, keepdim, dtype=dtype, out=out)
    if len(dim) == 2:
        return matrix_norm(x, ord, dim, keepdim, dtype=dtype, out=out)
    raise RuntimeError(f"linalg.norm: dim must be an int or a 2-tuple, got {dim!r}")
