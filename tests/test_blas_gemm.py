"""BLAS's gemm called from Numba kernels (minigrad/kernels/cpu/blas.py): C += A @ B on
blocks of arrays, checked against NumPy's product in float64."""

import numba
import numpy as np
import pytest

from minigrad import threads
from minigrad.kernels.cpu import blas, gemm


@numba.njit
def _acc(A, a0, B, b0, C, c0, n):
    gemm.matmul_acc(A, a0, B, b0, C, c0, n)


@numba.njit
def _gemm(A, B, C):
    blas.gemm_acc(A, B, C)


def test_scipy_blas_is_what_the_kernels_use():
    # SciPy is a dependency: the kernels' products are BLAS's, not the loops
    assert gemm.BLAS


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("transposed", [False, True])
# the last two: sums long enough to be cut into chunks (gemm.K_CHUNK), of unequal lengths
@pytest.mark.parametrize(
    "m, k, n",
    [(1, 1, 1), (5, 7, 3), (9, 40, 33), (1, 13, 17), (6, 1, 9), (64, 577, 224), (16, 300, 250)],
)
def test_blocks_with_offsets_add_the_product(dtype, transposed, m, k, n):
    rng = np.random.default_rng(m * 100 + k * 10 + n)
    a_cols = k + 5
    A = rng.standard_normal((a_cols, m) if transposed else (m, a_cols)).astype(dtype)
    A = A.T if transposed else A  # (m, k + 5): its rows, or its columns, contiguous
    B = rng.standard_normal((k, n + 4)).astype(dtype)
    C = rng.standard_normal((m, n + 6)).astype(dtype)
    expected = C.astype(np.float64)
    expected[:, 2 : 2 + n] += A[:, 3 : 3 + k].astype(np.float64) @ B[:, 1 : 1 + n]
    _acc(A, 3, B, 1, C, 2, n)
    tol = (1e-5 if dtype == np.float32 else 1e-12) * max(1, k // 16)  # long float32 sums
    np.testing.assert_allclose(C, expected, rtol=tol, atol=tol)


@pytest.mark.parametrize(
    "m, n, k, chunks",
    [
        (64, 224, 576, 9),  # a ResNet layer's forward tile: chunks of 64 terms
        (64, 224, 577, 10),  # one term more: ten chunks (of 57 or 58)
        (32, 128, 144, 1),  # small enough as it is
        (128, 256, 576, 1),  # too large even in chunks of 64: one call
    ],
)
def test_long_sums_are_cut_into_chunks_for_blas_small_kernels(m, n, k, chunks, monkeypatch):
    # the limit of a processor with OpenBLAS's small-matrix kernels, whatever this one is
    monkeypatch.setattr(gemm, "SMALL_GEMM", 1_000_000)
    assert gemm.sum_chunks.py_func(m, n, k) == chunks
    if chunks > 1:  # each chunk within OpenBLAS's limit, the whole product not
        assert m * n * -(-k // chunks) <= gemm.SMALL_GEMM < m * n * k


def test_products_are_cut_only_where_openblas_has_small_matrix_kernels(monkeypatch):
    # the kernels' BLAS is SciPy's OpenBLAS: its architecture is known
    architecture = threads.kernels_blas_architecture()
    assert architecture
    small = architecture.lower() in ("skylakex", "cooperlake", "sapphirerapids")
    assert gemm.SMALL_GEMM == (1_000_000 if small else 0)
    monkeypatch.setattr(gemm, "SMALL_GEMM", 0)  # a processor without them: one call each
    assert gemm.sum_chunks.py_func(64, 224, 576) == 1


def test_empty_sum_leaves_c_as_it_was():
    A, B = np.zeros((3, 0), np.float32), np.zeros((0, 4), np.float32)
    C = np.arange(12, dtype=np.float32).reshape(3, 4)
    _gemm(A, B, C)
    np.testing.assert_array_equal(C, np.arange(12, dtype=np.float32).reshape(3, 4))


def test_rows_of_blocks_with_a_row_stride():
    # every other row of B and C: leading dimensions twice the row length
    rng = np.random.default_rng(1)
    A = rng.standard_normal((4, 6))
    B, C = rng.standard_normal((12, 5))[::2], rng.standard_normal((8, 5))[::2]
    expected = C + A @ B
    _gemm(A, B, C)
    np.testing.assert_allclose(C, expected, rtol=1e-12)


def test_a_with_neither_rows_nor_columns_contiguous_is_refused():
    A = np.zeros((8, 8))[::2, ::2]
    with pytest.raises(ValueError, match="neither its rows nor its columns"):
        _gemm(A, np.zeros((4, 3)), np.zeros((4, 3)))
    with pytest.raises(ValueError, match="rows of B and C"):
        _gemm(np.zeros((2, 3)), np.zeros((3, 8))[:, ::2], np.zeros((2, 4)))


def test_blocks_whose_shapes_do_not_fit_are_refused():
    # BLAS would read past A's end, or write past C's: an error instead
    with pytest.raises(ValueError, match="shapes do not fit"):
        _gemm(np.zeros((2, 2)), np.zeros((3, 4)), np.zeros((2, 4)))
    with pytest.raises(ValueError, match="shapes do not fit"):
        _gemm(np.zeros((3, 3)), np.zeros((3, 4)), np.zeros((2, 4)))
    with pytest.raises(ValueError, match="shapes do not fit"):
        _gemm(np.zeros((2, 3)), np.zeros((3, 3)), np.zeros((2, 4)))


def test_matmul_acc_updates_the_rows_of_c_that_a_has():
    # a kernel's scratch C may be taller than the block of A (the last, shorter key block)
    rng = np.random.default_rng(2)
    A, B = rng.standard_normal((3, 4)), rng.standard_normal((4, 5))
    C = rng.standard_normal((6, 5))
    expected = C.copy()
    expected[:3] += A @ B
    _acc(A, 0, B, 0, C, 0, 5)
    np.testing.assert_allclose(C, expected, rtol=1e-12)


_WITHOUT_SCIPY = """
import numpy as np
from minigrad.kernels.cpu import gemm
from minigrad.kernels.cpu import conv
from minigrad.kernels.reference import conv as reference

assert not gemm.BLAS
rng = np.random.default_rng(0)
x = rng.standard_normal((2, 8, 9, 9))
w = rng.standard_normal((8, 8, 3, 3))
args = ((1, 1), (1, 1), (1, 1), 1)
np.testing.assert_allclose(
    conv.conv2d_forward(x, w, *args), reference.conv2d_forward(x, w, *args), rtol=1e-10
)
print("loops ok")
"""


@pytest.mark.slow
def test_without_scipy_the_kernels_run_the_loops(tmp_path):
    """An install without SciPy still runs the kernels, on the loops: a fresh process in
    which `import scipy` fails, with a cache of its own (the kernels cached with BLAS
    call it by name)."""
    import os
    import subprocess
    import sys

    shim = tmp_path / "shim" / "scipy"
    shim.mkdir(parents=True)
    (shim / "__init__.py").write_text("raise ImportError('SciPy hidden by the test')\n")
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "shim"), NUMBA_CACHE_DIR=str(tmp_path / "c"))
    result = subprocess.run(
        [sys.executable, "-c", _WITHOUT_SCIPY], env=env, capture_output=True, text=True
    )
    assert result.returncode == 0 and "loops ok" in result.stdout, result.stderr[-2000:]


_THREADS_AFTER_LOADING = """
import json
import minigrad
from threadpoolctl import threadpool_info, threadpool_limits

def blas():
    return {lib["filepath"]: lib["num_threads"] for lib in threadpool_info()
            if lib["user_api"] == "blas"}

threadpool_limits(2, user_api="blas")  # the user's count for NumPy's BLAS, after the import
before = blas()
from minigrad.kernels.cpu import gemm  # loads Numba, and SciPy's BLAS with it
print(json.dumps([before, blas()]))
"""


def test_loading_the_kernels_limits_only_the_blas_it_brings(tmp_path):
    """SciPy's BLAS, which the kernels call from their own threads, gets one thread when
    the kernels load it; NumPy's keeps the count the user gave it after `import minigrad`."""
    import json
    import os
    import subprocess
    import sys

    from minigrad.threads import BLAS_VARIABLES

    env = {k: v for k, v in os.environ.items() if k not in BLAS_VARIABLES}
    result = subprocess.run(
        [sys.executable, "-c", _THREADS_AFTER_LOADING], env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr[-2000:]
    before, after = json.loads(result.stdout.strip().splitlines()[-1])
    assert all(after[path] == 2 for path in before), (before, after)
    assert all(threads == 1 for path, threads in after.items() if path not in before), after


_THREADS_UNDER_THE_USERS_COUNT = """
import json, sys
if sys.argv[1] == "scipy first":  # a program that imported SciPy before minigrad
    import scipy.linalg
import minigrad
from minigrad.kernels.cpu import gemm  # loads Numba, and SciPy's BLAS with it
from threadpoolctl import threadpool_info
minigrad.set_num_threads(2)
print(json.dumps({lib["filepath"]: lib["num_threads"] for lib in threadpool_info()
                  if lib["user_api"] == "blas"}))
"""


@pytest.mark.parametrize("order", ["minigrad first", "scipy first"])
def test_the_kernels_blas_keeps_one_thread_under_the_users_count(order):
    """With OPENBLAS_NUM_THREADS set (the user chose BLAS's threads), NumPy's BLAS follows
    it and set_num_threads, but the kernels' own (SciPy's) keeps one thread: the kernels
    run on every core themselves, and a BLAS splitting each of their block products again
    put 4 threads on 2 cores (a convolution 1.5-2x slower)."""
    import json
    import os
    import subprocess
    import sys

    from minigrad.threads import BLAS_VARIABLES

    env = {k: v for k, v in os.environ.items() if k not in BLAS_VARIABLES}
    env["OPENBLAS_NUM_THREADS"] = "2"
    result = subprocess.run(
        [sys.executable, "-c", _THREADS_UNDER_THE_USERS_COUNT, order],
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    counts = json.loads(result.stdout.strip().splitlines()[-1])
    scipys = {path: n for path, n in counts.items() if "scipy.libs" in path}
    others = {path: n for path, n in counts.items() if path not in scipys}
    assert scipys and all(n == 1 for n in scipys.values()), counts
    assert others and all(n == 2 for n in others.values()), counts


@numba.njit
def _any_layout_write(x):
    view = gemm.any_layout(x)
    view[1, 0] = 7.0
    return view


@pytest.mark.parametrize("order", ["C", "F"])
def test_any_layout_is_the_same_view_typed_for_any_layout(order):
    # matmul_acc hands _gemm_blocks every block as one Numba type: no copy, no new view
    x = np.zeros((3, 4), order=order)
    view = _any_layout_write(x)
    assert x[1, 0] == 7.0 and view.shape == (3, 4) and np.shares_memory(view, x)
    compiled = _any_layout_write.overloads[(numba.typeof(x),)]
    assert numba.typeof(x).layout == order and compiled.signature.return_type.layout == "A"


def test_any_layout_takes_only_matrices():
    @numba.njit
    def one_d(x):
        return gemm.any_layout(x)

    with pytest.raises(numba.TypingError, match="any_layout"):
        one_d(np.zeros(3))
