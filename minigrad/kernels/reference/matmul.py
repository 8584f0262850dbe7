"""The matrix product of two arrays, as the array module computes it: the reference.

    C = A @ B,    C[i, j] = sum_k A[i, k] B[k, j]      (+ b[j], a linear layer's bias)

One call: NumPy hands it to BLAS, CuPy to cuBLAS (a GPU spreads a product over its own
cores). The CPU kernel (kernels/cpu/matmul.py) cuts a large product over the cores.
"""


def matmul(a, b, bias=None):
    """a @ b, as np.matmul (or CuPy's, for GPU arrays); with `bias` (p,), for a (m, n) @
    (n, p) product, the bias added to every row: a linear layer's x W^T + b."""
    c = a @ b
    if bias is not None:
        c += bias  # c is new: adding in place makes no second (m, p) array
    return c
