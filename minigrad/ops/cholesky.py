"""The Cholesky factor of a symmetric positive-definite matrix, and triangular solves:
what a multivariate normal distribution is computed with.

    A = L L^T, L lower triangular with a positive diagonal      (cholesky)
    X = A^-1 B for a triangular A                               (solve_triangular)

Both work on batches of matrices (the last two dims), as torch.linalg's.

Their gradients (Murray 2016, "Differentiation of the Cholesky decomposition"; Giles 2008):

- cholesky: with Phi(M) the lower triangle of M with its diagonal halved,
      dL/dA = sym(L^-T Phi(L^T dL/dL) L^-1),   sym(M) = (M + M^T) / 2
  (A is symmetric, so only its symmetric part can have a gradient);
- solve_triangular: dL/dB = A^-T dL/dX (one more solve, with the transposed matrix), and
  dL/dA = -(dL/dB) X^T, kept on A's triangle (the other triangle is never read).

Both backwards are written with these two ops and matmul, so they differentiate again.
"""

import numpy as np

from minigrad.array_module import array_module
from minigrad.autograd.function import Function
from minigrad.creation import from_numpy
from minigrad.ops.broadcast import unbroadcast


class Cholesky(Function):
    """L = cholesky(A), A = L L^T;  dL/dA = sym(L^-T Phi(L^T dL/dL) L^-1) (see the module)."""

    @staticmethod
    def forward(ctx, a):
        try:
            lower = np.linalg.cholesky(a.array)
        except np.linalg.LinAlgError:
            raise RuntimeError(
                "linalg.cholesky: The factorization could not be completed because the input "
                f"(shape {tuple(a.shape)}) is not positive-definite"
            ) from None
        lower = from_numpy(lower)
        ctx.save_for_backward(lower)
        return lower

    @staticmethod
    def backward(ctx, grad):
        (lower,) = ctx.saved_tensors
        n = lower.shape[-1]
        eye = from_numpy(array_module(lower.array).eye(n, dtype=lower.dtype))
        phi = (lower.mT @ grad).tril()
        phi = phi - 0.5 * phi * eye  # halve the diagonal
        inverse = SolveTriangular.apply(lower, eye.expand(lower.shape), upper=False)  # L^-1
        grad_a = inverse.mT @ phi @ inverse
        return 0.5 * (grad_a + grad_a.mT)


class SolveTriangular(Function):
    """X = A^-1 B for a lower (upper=False) or upper triangular A, batched and broadcast;
    dL/dB = A^-T dL/dX, dL/dA = -(dL/dB) X^T on A's triangle."""

    @staticmethod
    def forward(ctx, a, b, upper):
        triangle = np.triu(a.array) if upper else np.tril(a.array)  # the other triangle is ignored
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        x = np.linalg.solve(
            np.broadcast_to(triangle, batch + a.shape[-2:]),
            np.broadcast_to(b.array, batch + b.shape[-2:]),
        )
        x = from_numpy(x)
        ctx.save_for_backward(a, x)
        ctx.upper, ctx.b_shape = upper, b.shape
        return x

    @staticmethod
    def backward(ctx, grad):
        a, x = ctx.saved_tensors
        grad_b = SolveTriangular.apply(a.mT, grad, upper=not ctx.upper)
        grad_a = -(grad_b @ x.mT)
        grad_a = grad_a.triu() if ctx.upper else grad_a.tril()
        return unbroadcast(grad_a, a.shape), unbroadcast(grad_b, ctx.b_shape), None


def cholesky(a):
    """The lower Cholesky factor L of (each matrix of) a, A = L L^T (see Cholesky)."""
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise RuntimeError(
            f"linalg.cholesky: A must be batches of square matrices, but they are {tuple(a.shape)}"
        )
    return Cholesky.apply(a)


def solve_triangular(a, b, *, upper):
    """X = A^-1 B for (batches of) triangular A, as torch.linalg.solve_triangular(A, B,
    upper=upper)."""
    if a.ndim < 2 or a.shape[-1] != a.shape[-2] or b.ndim < 2 or b.shape[-2] != a.shape[-1]:
        raise RuntimeError(
            "linalg.solve_triangular: A must be batches of square matrices and B of matrices with "
            f"as many rows, but they have shapes {tuple(a.shape)} and {tuple(b.shape)}"
        )
    return SolveTriangular.apply(a, b, upper=upper)
