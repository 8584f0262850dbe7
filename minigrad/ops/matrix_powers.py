"""Powers of a square matrix: integer powers (`matrix_power`) and the exponential
(`matrix_exp`), each of every matrix of a batch.

A^n is n - 1 matrix products, or only about log2(n) of them by repeated squaring
(A^13 = A^8 A^4 A); a negative n is a power of the inverse. The products are recorded,
so the gradient is the product rule's.

exp(A) = I + A + A^2/2! + ... . The series converges for every A, but slowly (and with
cancellation) when A is large, so A is first scaled down by 2^s until small, the series
summed, and the result squared s times: exp(A) = exp(A / 2^s)^(2^s). Its gradient, the
Fréchet derivative of exp, has a compact form: for a gradient G of exp(A),
dL/dA = the top-right block of exp([[A^T, G], [0, A^T]]) (Mathias, 1996).
"""

import math

import numpy as np

from minigrad.array_module import array_module
from minigrad.autograd.function import Function
from minigrad.creation import as_tensor, from_numpy
from minigrad.ops.elementwise import Where
from minigrad.ops.inverse import inverse, square_matrices
from minigrad.ops.linalg import matmul
from minigrad.ops.out import write_out
from minigrad.ops.shape import cat


def matrix_power(input, n, *, out=None):
    """A multiplied by itself n times (n an int; A^0 = I, and a negative n a power of the
    inverse), by repeated squaring."""
    A = as_square(input, "linalg.matrix_power")
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
        raise TypeError(f"matrix_power(): argument 'n' must be int, not {type(n).__name__}")
    if n == 0:  # I, whose gradient with respect to A is 0 (a Where that never picks A)
        xp = array_module(A.array)
        eye = np.broadcast_to(xp.eye(A.shape[-1], dtype=A.dtype), A.shape).copy()
        y = Where.apply(from_numpy(xp.ones(A.shape, dtype=bool)), from_numpy(eye), A)
    else:
        base, n = (inverse(A), -n) if n < 0 else (A, n)
        y = None
        while n:  # the binary digits of n, lowest first: multiply in base^(2^k) where a digit is 1
            if n & 1:
                y = base if y is None else matmul(y, base)
            n >>= 1
            if n:
                base = matmul(base, base)
    return y if out is None else write_out(out, y, "matrix_power")


def as_square(input, op):
    """A batch of square matrices (any dtype: an integer power of an integer matrix is
    fine), or torch's error."""
    A = as_tensor(input)
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError(
            f"{op}: A must be batches of square matrices, but got shape {tuple(A.shape)}"
        )
    return A


def expm(a):
    """exp of each square matrix of `a` (NumPy or CuPy), by scaling and squaring a Taylor
    series. The number of squarings follows from a's norm, which a GPU's array copies to
    the host (one number); the series there runs its 18 terms without asking whether the
    last one was negligible (each question would be another copy)."""
    # the largest column sum, over the batch
    norm = float(np.abs(a).sum(axis=-2).max()) if a.size else 0.0
    s = max(0, math.ceil(math.log2(norm / 0.5))) if norm > 0.5 else 0  # scaled to a norm <= 1/2
    scaled = a / 2.0**s
    xp = array_module(a)
    term = np.broadcast_to(xp.eye(a.shape[-1], dtype=a.dtype), a.shape).copy()
    total = term.copy()
    eps = np.finfo(a.dtype).eps
    for k in range(1, 30 if xp is np else 19):  # ||A||^k / k! < 1e-17 by k = 18 for ||A|| <= 1/2
        term = term @ scaled / k
        total = total + term
        if xp is np and np.abs(term).max(initial=0.0) <= eps * np.abs(total).max(initial=0.0):
            break
    for _ in range(s):
        total = total @ total
    return total


class MatrixExp(Function):
    """Y = exp(A);  dL/dA = the top-right n x n block of exp([[A^T, G], [0, A^T]]), G = dL/dY."""

    @staticmethod
    def forward(ctx, A):
        ctx.save_for_backward(A)
        return expm(A.array)

    @staticmethod
    def backward(ctx, grad):
        (A,) = ctx.saved_tensors
        n = A.shape[-1]
        at = A.mT
        zeros = from_numpy(array_module(grad.array).zeros(A.shape, dtype=grad.dtype))
        block = cat([cat([at, grad], dim=-1), cat([zeros, at], dim=-1)], dim=-2)
        return MatrixExp.apply(block)[..., :n, n:]


def matrix_exp(input):
    """The exponential of each square matrix: I + A + A^2/2! + A^3/3! + ... (a rotation
    from a skew-symmetric A, the solution operator of dx/dt = A x, ...)."""
    return MatrixExp.apply(square_matrices("linalg.matrix_exp", input))
