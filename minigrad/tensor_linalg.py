"""Tensor's linear-algebra methods: matrix products (`matmul`, `mm`, `bmm`, `addmm`, ...),
dot, inner, outer and cross products, diagonals and traces, inverses, determinants and
matrix functions.

`Tensor` inherits them (tensor.py); `@` is in tensor.py with the operators. The math and
the gradients are in `minigrad/ops/`.
"""

# Bound by tensor.py once they exist: the Tensor class, and the autograd and ops packages
# that import it (the one break in the import circle is at the bottom of tensor.py).
ops = None


class LinalgMethods:
    """The mixin Tensor inherits these methods from (see the module docstring)."""

    __slots__ = ()

    def matmul(self, other):
        """self @ other, with NumPy's / PyTorch's batched broadcasting rules (see `mg.matmul`)."""
        return ops.linalg.matmul(self, other)

    def mm(self, mat2):
        """The matrix product of two 2-d tensors (no broadcasting); see matmul."""
        return ops.linalg.mm(self, mat2)

    def bmm(self, mat2):
        """The batched matrix product of two 3-d tensors (b, n, m) @ (b, m, p)."""
        return ops.linalg.bmm(self, mat2)

    def addmm(self, mat1, mat2, *, beta=1, alpha=1):
        """beta * self + alpha * (mat1 @ mat2)."""
        return ops.linalg.addmm(self, mat1, mat2, beta=beta, alpha=alpha)

    def baddbmm(self, batch1, batch2, *, beta=1, alpha=1):
        """beta * self + alpha * (batch1 @ batch2), batched."""
        return ops.linalg.baddbmm(self, batch1, batch2, beta=beta, alpha=alpha)

    def diag(self, diagonal=0):
        """The `diagonal`-th diagonal of a matrix as a vector, or a vector as a diagonal matrix."""
        return ops.linalg.diag(self, diagonal)

    def trace(self):
        """The sum of the main diagonal of a matrix; dL/dx is dL/dy on the diagonal."""
        return ops.linalg.trace(self)

    def dot(self, other):
        """The dot product with another 1-D tensor of the same length and dtype, sum_i a_i b_i;
        dL/da = dL/dy * b. See `mg.dot`."""
        return ops.linalg.dot(self, other)

    def vdot(self, other):
        """The dot product with another 1-D tensor (the conjugate of self, which for real
        tensors is self): `dot`."""
        return ops.linalg.vdot(self, other)

    def inner(self, other):
        """The inner product over the last dim; see `mg.inner`."""
        return ops.linalg.inner(self, other)

    def outer(self, vec2):
        """The outer product with another vector: out[i, j] = self[i] * vec2[j]."""
        return ops.linalg.outer(self, vec2)

    def cross(self, other, dim=None):
        """The cross product of 3-vectors along `dim` (without it, the first dim of size 3,
        with PyTorch's warning); see `mg.cross`."""
        return ops.linalg.cross(self, other, dim)

    # ---- linear algebra: products, inverses, determinants, matrix functions -----------------
    def mv(self, vec):
        """This matrix times the vector `vec`."""
        return ops.linalg.mv(self, vec)

    def addmv(self, mat, vec, *, beta=1, alpha=1):
        """beta * self + alpha * (mat @ vec)."""
        return ops.linalg.addmv(self, mat, vec, beta=beta, alpha=alpha)

    def addr(self, vec1, vec2, *, beta=1, alpha=1):
        """beta * self + alpha * outer(vec1, vec2)."""
        return ops.linalg.addr(self, vec1, vec2, beta=beta, alpha=alpha)

    def addbmm(self, batch1, batch2, *, beta=1, alpha=1):
        """beta * self + alpha * the sum over the batch of batch1[b] @ batch2[b]."""
        return ops.linalg.addbmm(self, batch1, batch2, beta=beta, alpha=alpha)

    def kron(self, other):
        """The Kronecker product with `other`; see `mg.kron`."""
        return ops.linalg.kron(self, other)

    def inverse(self):
        """The inverse of each square matrix; see `mg.inverse`."""
        return ops.inverse.inverse(self)

    def det(self):
        """The determinant of each square matrix; see `mg.det`."""
        return ops.inverse.det(self)

    def logdet(self):
        """log(det) of each square matrix (NaN for a negative determinant); see `mg.logdet`."""
        return ops.inverse.logdet(self)

    def slogdet(self):
        """(sign, logabsdet) of the determinant of each square matrix; see `mg.slogdet`."""
        return ops.inverse.slogdet(self)

    def pinverse(self, rcond=1e-15):
        """The Moore-Penrose pseudo-inverse of each matrix; see `mg.pinverse`."""
        return ops.inverse.pinverse(self, rcond)

    def cholesky_inverse(self, upper=False):
        """The inverse of L L^T from this Cholesky factor L; see `mg.cholesky_inverse`."""
        return ops.inverse.cholesky_inverse(self, upper)

    def cholesky_solve(self, input2, upper=False):
        """X with (L L^T) X = self, L = input2 a Cholesky factor; see `mg.cholesky_solve`."""
        return ops.inverse.cholesky_solve(self, input2, upper)

    def matrix_exp(self):
        """The exponential of each square matrix; see `mg.matrix_exp`."""
        return ops.matrix_powers.matrix_exp(self)
