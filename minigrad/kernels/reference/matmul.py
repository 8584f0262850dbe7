"""The matrix product of two arrays, as the array module computes it: the reference.

    C = A @ B,    C[i, j] = sum_k A[i, k] B[k, j]

One call: NumPy hands it to BLAS, CuPy to cuBLAS (a GPU spreads a product over its own
cores). The CPU kernel (kernels/cpu/matmul.py) cuts a large product over the cores.
"""


def matmul(a, b):
    """a @ b, as np.matmul (or CuPy's, for GPU arrays)."""
    return a @ b
