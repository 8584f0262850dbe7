"""BLAS's matrix product called from inside a Numba kernel: C += A @ B on blocks of arrays.

The convolution and attention kernels multiply small blocks inside their loops (a tile of
windows by the weights, a block of queries by a block of keys). NumPy's `a @ b` cannot be
called there (a kernel runs without Python), and the loops of gemm.py's `_matmul_acc`
reach about half of what BLAS does on the same blocks: BLAS keeps a block of C in
registers for the whole sum and packs A and B so that every load hits the core's cache,
with code written for each processor (512-bit vectors where the processor has them).
`benchmarks/RESULTS.md` has the measurements.

Numba itself reaches BLAS for `np.dot` inside kernels, through a C function of its own,
`numba_xxgemm`, which calls SciPy's BLAS (`scipy.linalg.cython_blas`). `np.dot` only
writes C = A @ B, of whole arrays; the kernels need C += A @ B on blocks that are views
with their own row strides. So `gemm_acc` calls `numba_xxgemm` itself, with gemm's full
arguments: beta = 1 (add into C) and each block's leading dimension. Because the kernel
calls it by name (Numba resolves the name when it loads the machine code), the kernels
that use it can still be cached on disk; a C function pointer would be a different
address in every process.

**Row-major arrays, a column-major library.** BLAS follows Fortran: a matrix is stored
column by column. A C-ordered (m, n) array with a row stride of ld elements is, read
column by column, its transpose: an (n, m) column-major matrix with leading dimension
ld. So C += A @ B is computed as C^T += B^T @ A^T, which BLAS sees as three plain
column-major matrices: gemm('n', 'n', n, m, k, B, A, C) with no copying. A block of A
whose columns, not rows, are contiguous (a transposed view, as attention's P^T.T) is a
column-major matrix already, and is passed with 't'.

SciPy's BLAS runs on one thread here, as NumPy's does (minigrad/threads.py's policy, which
`load` applies to the BLAS libraries loaded since `import minigrad`): the kernels share
their work over the cores themselves.
"""

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from minigrad.kernels.jit import njit

NOTRANS, TRANS = ord("n"), ord("t")  # gemm's op(X): X itself, or X^T

_CHAR = ir.IntType(8)
_VOID_P = _CHAR.as_pointer()


def load():
    """Import SciPy's BLAS (its error if SciPy is missing) and give it minigrad's thread
    count: once, before the first kernel that multiplies is compiled."""
    import scipy.linalg.cython_blas  # noqa: F401

    from minigrad import threads

    threads.apply_blas_to_new_libraries()


@intrinsic
def _xxgemm(typingctx, trans_a, trans_b, m, n, k, a, lda, b, ldb, c, ldc):
    """numba_xxgemm(kind, trans_a, trans_b, m, n, k, 1, a, lda, b, ldb, 1, c, ldc): BLAS's
    column-major c = op(a) @ op(b) + c, for float32 ('s') or float64 ('d') arrays."""
    if not (c.dtype == a.dtype == b.dtype and c.dtype in (types.float32, types.float64)):
        return None
    sig = types.void(trans_a, trans_b, m, n, k, a, lda, b, ldb, c, ldc)

    def codegen(context, builder, signature, args):
        trans_a, trans_b, m, n, k, a, lda, b, ldb, c, ldc = args
        intp = cgutils.intp_t
        fnty = ir.FunctionType(
            ir.IntType(32),
            [_CHAR, _CHAR, _CHAR, intp, intp, intp]  # kind, transposes, m, n, k
            + [_VOID_P, _VOID_P, intp, _VOID_P, intp]  # alpha, a, lda, b, ldb
            + [_VOID_P, _VOID_P, intp],  # beta, c, ldc
        )
        fn = cgutils.get_or_insert_function(builder.module, fnty, "numba_xxgemm")
        dtype = signature.args[9].dtype
        kind = ir.Constant(_CHAR, ord("s" if dtype == types.float32 else "d"))
        one = builder.bitcast(
            cgutils.alloca_once_value(builder, context.get_constant(dtype, 1.0)), _VOID_P
        )

        def data(i, value):  # the pointer to an array's first element
            array = context.make_array(signature.args[i])(context, builder, value)
            return builder.bitcast(array.data, _VOID_P)

        def char(value):
            return builder.trunc(value, _CHAR)

        status = builder.call(
            fn,
            (kind, char(trans_a), char(trans_b), m, n, k)
            + (one, data(5, a), lda, data(7, b), ldb, one, data(9, c), ldc),
        )
        # numba_xxgemm fails only if SciPy's BLAS cannot be found: load() rules that out
        # before a kernel is compiled, but a kernel cached then may run without SciPy later
        with builder.if_then(cgutils.is_not_null(builder, status), likely=False):
            context.call_conv.return_user_exc(
                builder,
                RuntimeError,
                (
                    "minigrad: BLAS's gemm could not be called: SciPy's BLAS was not found, "
                    "but the kernels were compiled (and cached) with it; install SciPy",
                ),
            )
        return context.get_dummy_value()

    return sig, codegen


@njit(inline="always")
def gemm_acc(A, B, C):
    """C += A @ B for A (m, k), B (k, n), C (m, n), 2-d blocks of float32 or float64
    arrays: one call of BLAS's gemm. B's and C's rows must be contiguous (their last
    stride one element); A's rows or its columns."""
    m, k, n = A.shape[0], B.shape[0], C.shape[1]
    # BLAS reads and writes by pointers: blocks that do not fit would be read (or written)
    # past their ends, so the shapes are checked here
    if A.shape[1] != k or B.shape[1] != n or C.shape[0] != m:
        raise ValueError("gemm_acc: shapes do not fit: A (m, k), B (k, n), C (m, n) expected")
    if m == 0 or n == 0 or k == 0:  # nothing to add
        return
    item = C.itemsize
    # leading dimensions: the row strides, in elements (at least the row length, which a
    # block of one row may not have, and BLAS checks)
    ldb, ldc = max(B.strides[0] // item, n), max(C.strides[0] // item, n)
    if k == 1 or A.strides[1] == item:  # A's rows contiguous: A^T column-major as it lies
        gemm_a, lda = NOTRANS, max(A.strides[0] // item, k)
    elif m == 1 or A.strides[0] == item:  # its columns: A is column-major, BLAS transposes it
        gemm_a, lda = TRANS, max(A.strides[1] // item, m)
    else:
        raise ValueError("gemm_acc: A has neither its rows nor its columns contiguous")
    if n > 1 and (B.strides[1] != item or C.strides[1] != item):
        raise ValueError("gemm_acc: the rows of B and C must be contiguous")
    # C^T (n, m) += B^T (n, k) @ A^T (k, m), all three column-major as they lie
    _xxgemm(NOTRANS, gemm_a, n, m, k, B, ldb, A, lda, C, ldc)
