"""The CPU kernels compile once per dtype, not once per caller's argument layout (issue #24):
every Numba specialisation of a kernel costs seconds on a student's first run."""

import numba
import numpy as np

from minigrad.kernels.cpu import gemm


@numba.njit
def _loops_two_ways(a, at, b, c_rows, c_cols):
    """C += A @ B twice: with A C-contiguous (as the convolution passes it) and with A the
    rows of a transposed array, at = A^T (as attention passes P^T.T), one offset a
    constant and one not. The loops, as matmul_acc runs them without SciPy."""
    gemm.matmul_acc_loops(a, 0, b, 0, c_rows, 0, b.shape[1])
    gemm.matmul_acc_loops(at.T[: a.shape[0]], 0, b, a.shape[0] - a.shape[0], c_cols, 0, b.shape[1])


@numba.njit
def _blas_two_ways(a, at, b, c_rows, c_cols):
    """The same two products through BLAS, as matmul_acc runs them with SciPy."""
    gemm.matmul_acc_blas(a, 0, b, 0, c_rows, 0, b.shape[1])
    gemm.matmul_acc_blas(at.T[: a.shape[0]], 0, b, a.shape[0] - a.shape[0], c_cols, 0, b.shape[1])


def _check_two_ways(product, compiled):
    """Run `product` (one of the two above) and check both results, and that the compiled
    function behind it has one float32 specialisation, for any layout of A."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((6, 5)).astype(np.float32)
    b = rng.standard_normal((5, 7)).astype(np.float32)
    c_rows, c_cols = np.zeros((6, 7), np.float32), np.zeros((6, 7), np.float32)
    product(a, np.ascontiguousarray(a.T), b, c_rows, c_cols)
    expected = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c_rows, expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(c_cols, expected, rtol=1e-5, atol=1e-5)
    # the view reaches Numba as layout 'A', the contiguous block as 'C', one offset as a
    # literal 0 and one as int64: one specialisation for all of them
    float32 = [sig for sig in compiled.signatures if sig[0].dtype == numba.float32]
    assert [sig[0].layout for sig in float32] == ["A"], float32


def test_loop_product_compiles_once_for_every_layout_of_a():
    _check_two_ways(_loops_two_ways, gemm._matmul_acc)


def test_blas_product_compiles_once_for_every_layout_of_a():
    """The kernels' products are compiled once, not inlined into each call site: a
    kernel's compile then types and compiles the gemm call once (issue #24, point 4)."""
    _check_two_ways(_blas_two_ways, gemm._gemm_blocks)
