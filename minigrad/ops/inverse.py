"""Inverses and determinants of square matrices (each of a batch, in the last two dims):
`inverse`, `solve`, `det`, `slogdet`, `logdet`, `pinverse`, `cholesky_inverse` and
`cholesky_solve`.

NumPy's LAPACK routines compute the forward passes; the gradients come from
differentiating the defining identities. With Y = A^-1, from A Y = I:
dY = -Y dA Y, so dL/dA = -Y^T (dL/dY) Y^T. With X = A^-1 B: dL/dB = A^-T dL/dX and
dL/dA = -(dL/dB) X^T. For the determinant, d(det A) = det A * tr(A^-1 dA) (Jacobi's
formula), so dL/dA = dL/dy * det(A) * A^-T: the cofactor matrix, which exists for a
singular A too. Each backward is written with these Tensor ops, so it can be
differentiated again.
"""

from collections import namedtuple

import numpy as np

from minigrad.array_module import array_module
from minigrad.autograd.function import Function
from minigrad.creation import as_tensor, from_numpy
from minigrad.ops.broadcast import unbroadcast
from minigrad.ops.linalg import matmul
from minigrad.ops.out import write_out
from minigrad.ops.promotion import check_same_dtype

slogdet_result = namedtuple("slogdet", ["sign", "logabsdet"])
slogdet_result.__doc__ = "(sign, logabsdet): what `slogdet` returns, as torch.return_types.slogdet."


def square_matrices(op, A):
    """A as a floating point batch of square matrices, or torch's error."""
    A = as_tensor(A)
    if A.dtype.kind != "f":
        raise RuntimeError(
            f"{op}: Expected a floating point or complex tensor as input. Got {A.dtype}"
        )
    if A.ndim < 2:
        raise RuntimeError(
            f"{op}: The input tensor A must have at least 2 dimensions, got shape {tuple(A.shape)}"
        )
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(
            f"{op}: A must be batches of square matrices, but they are {A.shape[-2]} by "
            f"{A.shape[-1]} matrices"
        )
    return A


def _singular(op, error):
    return RuntimeError(
        f"{op}: the input matrix is singular, so it has no inverse (the inversion could not be "
        f"completed: {error})"
    )


class Inverse(Function):
    """Y = A^-1;  dL/dA = -Y^T (dL/dY) Y^T."""

    @staticmethod
    def forward(ctx, A):
        try:
            y = from_numpy(np.linalg.inv(A.array))
        except np.linalg.LinAlgError as e:
            raise _singular("linalg.inv", e) from None
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        yt = y.mT
        return -matmul(matmul(yt, grad), yt)


def inverse(input, *, out=None):
    """The inverse of each square matrix: A @ inverse(A) = I. A singular matrix raises."""
    y = Inverse.apply(square_matrices("linalg.inv", input))
    return y if out is None else write_out(out, y, "inverse")


class Solve(Function):
    """X = A^-1 B (the solution of A X = B, without forming A^-1);
    dL/dB = A^-T dL/dX,  dL/dA = -(dL/dB) X^T (each summed over broadcast batch dims)."""

    @staticmethod
    def forward(ctx, A, B):
        try:
            x = from_numpy(np.linalg.solve(A.array, B.array))
        except np.linalg.LinAlgError as e:
            raise _singular("linalg.solve", e) from None
        ctx.save_for_backward(A, x)
        ctx.shapes = A.shape, B.shape
        return x

    @staticmethod
    def backward(ctx, grad):
        A, x = ctx.saved_tensors
        a_shape, b_shape = ctx.shapes
        grad_b = Solve.apply(A.mT, grad)
        grad_a = -matmul(grad_b, x.mT) if ctx.needs_input_grad[0] else None
        return (
            None if grad_a is None else unbroadcast(grad_a, a_shape),
            unbroadcast(grad_b, b_shape) if ctx.needs_input_grad[1] else None,
        )


def solve(A, B, *, left=True, out=None):
    """X with A X = B, for square matrices A (a batch) and B a batch of matrices, or of
    vectors (B of shape (n,) or A's batch dims and n). `left=False` solves X A = B."""
    A = square_matrices("linalg.solve", A)
    B = as_tensor(B)
    check_same_dtype("linalg.solve", A=A, B=B)
    if not left:  # X A = B  <=>  A^T X^T = B^T
        return solve(A.mT, B.mT, out=out).mT
    vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and B.shape == A.shape[:-1])
    b = B.unsqueeze(-1) if vector else B
    if b.shape[-2] != A.shape[-1]:
        raise RuntimeError(
            "linalg.solve: Incompatible shapes of A and B for the equation AX = B "
            f"({A.shape[-2]}x{A.shape[-1]} and {b.shape[-2]}x{b.shape[-1]})"
        )
    x = Solve.apply(A, b)
    x = x.squeeze(-1) if vector else x
    return x if out is None else write_out(out, x, "linalg.solve")


# ---- determinants ------------------------------------------------------------------------------
def cofactors(a):
    """The cofactor matrix of each square matrix in `a` (NumPy): C_ij = (-1)^(i+j) times
    the determinant of a without row i and column j. It is det(a) * a^-T where a is
    invertible, and still defined where it is not."""
    n = a.shape[-1]
    out = np.empty_like(a)
    if n == 1:
        return np.ones_like(a)
    for i in range(n):
        for j in range(n):
            minor = np.delete(np.delete(a, i, axis=-2), j, axis=-1)
            out[..., i, j] = (-1) ** (i + j) * np.linalg.det(minor)
    return out


class Det(Function):
    """y = det(A);  dL/dA = dL/dy * det(A) * A^-T (the cofactor matrix of A).

    Where every A of the batch is invertible, that is written with Tensor ops (so a
    second derivative works); where one is singular, the cofactors are computed
    directly, and a second derivative treats them as a constant. Whether one is
    singular is read on the host (one bool, from a GPU too)."""

    @staticmethod
    def forward(ctx, A):
        y = from_numpy(np.linalg.det(A.array))
        ctx.save_for_backward(A, y)
        return y

    @staticmethod
    def backward(ctx, grad):
        A, y = ctx.saved_tensors
        g = grad.unsqueeze(-1).unsqueeze(-1)
        if np.all(y.array != 0):
            return g * y.unsqueeze(-1).unsqueeze(-1) * Inverse.apply(A).mT
        return g * from_numpy(cofactors(A.array))


def det(A, *, out=None):
    """The determinant of each square matrix (of a batch): a (...)-shaped tensor."""
    y = Det.apply(square_matrices("linalg.det", A))
    return y if out is None else write_out(out, y, "linalg.det")


class LogAbsDet(Function):
    """y = log |det(A)|;  dL/dA = dL/dy * A^-T (and no gradient for the sign)."""

    @staticmethod
    def forward(ctx, A):
        ctx.save_for_backward(A)
        return array_module(A.array).asarray(np.linalg.slogdet(A.array)[1])  # 0-d: an array

    @staticmethod
    def backward(ctx, grad):
        (A,) = ctx.saved_tensors
        return grad.unsqueeze(-1).unsqueeze(-1) * Inverse.apply(A).mT


class DetSign(Function):
    """y = the sign of det(A): -1, 0 or 1;  dL/dA = 0 (it is constant wherever it is
    defined). A Function of its own so that it is in the graph, as torch's sign is."""

    @staticmethod
    def forward(ctx, A):
        ctx.shape = A.shape
        return array_module(A.array).asarray(np.linalg.slogdet(A.array)[0], dtype=A.dtype)

    @staticmethod
    def backward(ctx, grad):
        return from_numpy(array_module(grad.array).zeros(ctx.shape, dtype=grad.dtype))


def slogdet(A, *, out=None):
    """(sign, logabsdet): the sign of the determinant (-1, 0 or 1) and the log of its
    absolute value, which stays finite where det itself would overflow or underflow."""
    A = square_matrices("linalg.slogdet", A)
    result = slogdet_result(DetSign.apply(A), LogAbsDet.apply(A))
    return result if out is None else write_out(out, result, "linalg.slogdet")


def logdet(input):
    """log(det(A)): NaN for a negative determinant, -inf for a singular matrix; the
    gradient is slogdet's, A^-T."""
    sign, logabsdet = slogdet(input)
    return logabsdet.masked_fill(sign < 0, float("nan"))


# ---- the pseudo-inverse ----------------------------------------------------------------------
class PInverse(Function):
    """P = A^+, the Moore-Penrose pseudo-inverse (singular values below rcond times the
    largest are taken as 0). Where A's rank does not change nearby:
    dL/dA = -P^T G P^T + (I - A P) G^T P P^T + P^T P G^T (I - P A),  G = dL/dP
    (Golub and Pereyra, 1973)."""

    @staticmethod
    def forward(ctx, A, rcond):
        # from the SVD A = U S V^T: A^+ = V S^+ U^T, S^+ inverting the singular values
        # above the cut-off and zeroing the rest (NumPy's pinv does the same; CuPy's picks
        # them with a mask, which makes the GPU report their number to the host)
        a = A.array
        if min(a.shape[-2:]) == 0:
            p = from_numpy(array_module(a).zeros(a.shape[:-2] + a.shape[:-3:-1], dtype=a.dtype))
        else:
            u, s, vt = np.linalg.svd(a, full_matrices=False)
            kept = s > rcond * s[..., :1]  # the singular values come largest first
            s_plus = np.where(kept, 1 / np.where(kept, s, 1), 0).astype(a.dtype)
            p = from_numpy(np.swapaxes(vt, -1, -2) * s_plus[..., None, :] @ np.swapaxes(u, -1, -2))
        ctx.save_for_backward(A, p)
        return p

    @staticmethod
    def backward(ctx, grad):
        A, p = ctx.saved_tensors
        m, n = A.shape[-2], A.shape[-1]
        xp = array_module(grad.array)
        eye_m = from_numpy(xp.eye(m, dtype=grad.dtype))
        eye_n = from_numpy(xp.eye(n, dtype=grad.dtype))
        pt, gt = p.mT, grad.mT
        return (
            -matmul(matmul(pt, grad), pt)
            + matmul(matmul(eye_m - matmul(A, p), gt), matmul(p, pt))
            + matmul(matmul(pt, p), matmul(gt, eye_n - matmul(p, A)))
        )


def pinverse(input, rcond=1e-15):
    """The Moore-Penrose pseudo-inverse of each matrix (of any shape m x n, giving n x m):
    the inverse where there is one, else the least-squares inverse, from the singular
    values (those below rcond times the largest count as 0)."""
    A = as_tensor(input)
    if A.dtype.kind != "f":
        raise RuntimeError(
            f"linalg.pinv: Expected a floating point or complex tensor as input. Got {A.dtype}"
        )
    if A.ndim < 2:
        raise RuntimeError(
            f"linalg.pinv: The input tensor A must have at least 2 dimensions, got {tuple(A.shape)}"
        )
    return PInverse.apply(A, rcond=rcond)


# ---- from a Cholesky factor ----------------------------------------------------------------------
def _from_factor(op, factor, upper):
    """A = L L^T (or U^T U) from the triangle of `factor` (the other triangle is not read)."""
    f = square_matrices(op, factor)
    if upper:
        u = f.triu()
        return matmul(u.mT, u)
    low = f.tril()
    return matmul(low, low.mT)


def cholesky_inverse(L, upper=False, *, out=None):
    """The inverse of A = L L^T (U^T U with `upper=True`) from its Cholesky factor."""
    y = inverse(_from_factor("cholesky_inverse", L, upper))
    return y if out is None else write_out(out, y, "cholesky_inverse")


def cholesky_solve(B, L, upper=False, *, out=None):
    """X with A X = B, A = L L^T (U^T U with `upper=True`) given by its Cholesky factor."""
    B = as_tensor(B)
    if B.ndim < 2:
        raise RuntimeError(
            f"cholesky_solve: b should have at least 2 dimensions, but has {B.ndim} dimensions "
            "instead"
        )
    x = Solve.apply(_from_factor("cholesky_solve", L, upper), B)
    return x if out is None else write_out(out, x, "cholesky_solve")
