"""The one small matrix product inside minigrad's CPU kernels: `matmul_acc`,
C += A @ B on blocks of arrays.

The convolution and attention kernels cut their work into tiles that stay in the core's
cache and multiply tile by tile:

- convolution: a weight block times the windows of a tile of output positions (the
  forward), and the gradients' products (kernels/cpu/conv.py);
- attention: scores, probabilities times values, and the five backward products of
  each (key block, query block) tile (kernels/cpu/attention.py, attention_short.py).

`matmul_acc` hands each block product to BLAS's gemm (kernels/cpu/blas.py, SciPy's
BLAS, reached the way Numba's own `np.dot` reaches it). Without SciPy it runs the loops
of `_matmul_acc` below, which show what a fast product has to do and reach about half of
BLAS's speed on the kernels' blocks (benchmarks/RESULTS.md).

**Why this loop order.** The obvious loop, ``C[i, j] += A[i, p] * B[p, j]`` with j
innermost, vectorises but does one multiply-add per load and store of C: it runs at
the speed of the memory unit, not of the arithmetic. Here four rows of C and four terms
of the sum are handled at once, so each vector of B that is loaded feeds four rows and
each element of C takes four terms per load and store. The other classic order, dot
products (``C[i, j] = sum_p A[i, p] B[j, p]``, the reduction innermost), was measured
against it on the tiles of both families, one core, float32 (benchmarks/RESULTS.md): as
fast or slower on the convolution's tiles (its sums must be added across the SIMD lanes
at the end of every 4 x 4 block), and slower on attention's, whose sums are short (64
terms). This
order needs no reordering of sums at all (the j of the innermost loop are
independent), so it vectorises with only the `contract` flag (see FASTMATH in
kernels/jit.py).

**Numba's cache and this file.** A kernel that calls `matmul_acc` has it compiled into
its own machine code, and its on-disk cache is checked against its own source file
only. After editing this file, delete the ``__pycache__`` entries of conv and attention
(or touch those files), or they keep running the old product. The same holds for the
choice between BLAS and the loops, made when a kernel compiles: a kernel cached with SciPy
installed needs it at run time (it raises an error saying so), and one cached without
SciPy keeps the loops until its cache entries are deleted.
"""

from numba import types
from numba.core.imputils import impl_ret_borrowed
from numba.extending import intrinsic

from minigrad import threads
from minigrad.kernels.cpu.blas import gemm_acc, load
from minigrad.kernels.jit import FASTMATH, njit

try:
    load()
    BLAS = True  # the kernels' products call BLAS's gemm (kernels/cpu/blas.py)
except ImportError:  # no SciPy: the loops below
    BLAS = False


# --8<-- [start:matmul_acc]
@njit(inline="always")
def matmul_acc(A, a0, B, b0, C, c0, n):
    """C[:, c0:c0+n] += A[:, a0:a0+k] @ B[:, b0:b0+n], k the number of rows of B (see
    _matmul_acc), the function the kernels call.

    With SciPy installed (a dependency of minigrad's), one call of BLAS's gemm on the
    three blocks; without it, the loops. `BLAS` is a constant to Numba, so a kernel is
    compiled with one of the two branches only.

    Either is compiled once per dtype and shared by every caller, not inlined into each:
    inlined, the gemm call and its checks were typed and compiled again at each of a
    kernel's call sites (the short attention's backward has three), over a second of its
    compile (benchmarks/RESULTS.md)."""
    if BLAS:
        matmul_acc_blas(A, a0, B, b0, C, c0, n)
    else:
        matmul_acc_loops(A, a0, B, b0, C, c0, n)


@njit(inline="always")
def matmul_acc_blas(A, a0, B, b0, C, c0, n):
    """matmul_acc with BLAS: `_gemm_blocks`, compiled once per dtype.

    Sharing one compiled function needs one Numba type per argument:

    - a constant offset (a caller's 0) reaches a Numba function as a literal type,
      Literal[int](0), not int64, and each mix of literal and plain offsets would compile
      the product again; int() makes them all plain;
    - a C-contiguous block (conv, most of attention) and a transposed view (attention's
      P^T.T) are two Numba types; `any_layout` types each as a view of any layout ('A').
      BLAS is handed the strides, so the layout costs nothing."""
    _gemm_blocks(any_layout(A), int(a0), any_layout(B), int(b0), any_layout(C), int(c0), int(n))


@intrinsic
def any_layout(typingctx, x):
    """x itself, typed as a 2-d view of any layout ('A'), for matmul_acc's call sites.

    Numba lays out every 2-d array of a dtype the same way in memory (data pointer, shape,
    strides), whatever its layout: the layout is only a type, and changing it compiles to
    no code at all. ``x[:, :]`` gives the same type, but as a slice, whose bounds Numba
    checks and clamps in code compiled at every call site (about 30 lines of optimised
    LLVM IR for a block's three matrices, in every kernel: benchmarks/RESULTS.md)."""
    if not (isinstance(x, types.Array) and x.ndim == 2):
        return None
    view = x.copy(layout="A")

    def codegen(context, builder, signature, args):
        return impl_ret_borrowed(context, builder, view, args[0])

    return view(x), codegen


# OpenBLAS's limit for its small-matrix kernels (m n k, the product of the three sizes:
# kernel/x86_64/sgemm_small_kernel_permit_skylakex.c), and the longest sum _gemm_blocks
# hands it in one call where that keeps a product within the limit. OpenBLAS has those
# kernels for some processors only (on x86-64, those with AVX-512: its SkylakeX,
# Cooperlake and SapphireRapids kernels); elsewhere SMALL_GEMM is 0 and no product is cut.
# Measured on SkylakeX only (benchmarks/RESULTS.md). A kernel compiled with one value keeps
# it in its disk cache, which Numba keeps apart for each processor.
SMALL_KERNELS = ("skylakex", "cooperlake", "sapphirerapids")
_ARCHITECTURE = (threads.kernels_blas_architecture() or "").lower() if BLAS else ""
SMALL_GEMM = 1_000_000 if _ARCHITECTURE in SMALL_KERNELS else 0
K_CHUNK = 64


@njit(inline="always")
def sum_chunks(m, n, k):
    """Into how many chunks _gemm_blocks cuts the sum of an (m, k) @ (k, n) product: 1,
    or as many as needed for chunks of at most K_CHUNK terms where the whole product is
    too large for OpenBLAS's small-matrix kernels and such chunks are not."""
    if m * n * k > SMALL_GEMM and m * n * K_CHUNK <= SMALL_GEMM:
        return -(-k // K_CHUNK)  # -(-a // b) is a / b rounded up
    return 1


@njit(cache=True, inner=True)
def _gemm_blocks(A, a0, B, b0, C, c0, n):
    """C[:, c0:c0+n] += A[:, a0:a0+k] @ B[:, b0:b0+n] by calls of BLAS's gemm
    (kernels/cpu/blas.py), on C's first m rows: those A has (a kernel's scratch C may be
    taller, as the loops allow).

    OpenBLAS multiplies small matrices, m n k up to SMALL_GEMM, with kernels of their own
    that skip its packing of A and B into buffers. A product too large for them whose
    sum is long (the convolution's windows: 576 numbers for 64 channels and a 3 x 3
    kernel) is cut into equal chunks of the sum, at most K_CHUNK terms each, that are
    small enough: one call each, adding into the same C. That ran a ResNet layer's
    forward pass and input gradient 1.2-1.4x faster (benchmarks/RESULTS.md)."""
    m, k = A.shape[0], B.shape[0]
    chunks = sum_chunks(m, n, k)
    for c in range(chunks):
        p0, p1 = k * c // chunks, k * (c + 1) // chunks
        gemm_acc(A[:, a0 + p0 : a0 + p1], B[p0:p1, b0 : b0 + n], C[:m, c0 : c0 + n])


@njit(inline="always")
def matmul_acc_loops(A, a0, B, b0, C, c0, n):
    """matmul_acc without BLAS: the loops of `_matmul_acc`, compiled once per dtype.

    The offsets made plain ints and A a view of any layout, as in matmul_acc_blas: A is
    read element by element outside the vector loop, so its layout costs nothing there.
    B and C keep theirs: the vector loop runs along their rows, and a C-contiguous row is
    read without a stride."""
    _matmul_acc(any_layout(A), int(a0), B, int(b0), C, int(c0), int(n))


@njit(fastmath=FASTMATH, cache=True, inner=True)
def _matmul_acc(A, a0, B, b0, C, c0, n):
    """C[:, c0:c0+n] += A[:, a0:a0+k] @ B[:, b0:b0+n] for A (m, ...), B (k, ...), C (m, ...):
    a block of each, the sum running over the k rows of B.

    B and C must be C-contiguous (their rows are streamed with stride 1); A can be any
    2-D view (its elements are read one by one). Four rows of C are updated together,
    four terms of the sum at a time: each element of B that is loaded is used four
    times and each element of C is loaded and stored once per four terms.
    """
    m, k = A.shape[0], B.shape[0]
    m4, k4 = m - m % 4, k - k % 4
    for i in range(0, m4, 4):
        c0r, c1r, c2r, c3r = (
            C[i][c0 : c0 + n],
            C[i + 1][c0 : c0 + n],
            C[i + 2][c0 : c0 + n],
            C[i + 3][c0 : c0 + n],
        )
        for p in range(0, k4, 4):
            x0, x1, x2, x3 = (
                B[p][b0 : b0 + n],
                B[p + 1][b0 : b0 + n],
                B[p + 2][b0 : b0 + n],
                B[p + 3][b0 : b0 + n],
            )
            a00, a01, a02, a03 = A[i, a0 + p], A[i, a0 + p + 1], A[i, a0 + p + 2], A[i, a0 + p + 3]
            a10, a11, a12, a13 = (
                A[i + 1, a0 + p],
                A[i + 1, a0 + p + 1],
                A[i + 1, a0 + p + 2],
                A[i + 1, a0 + p + 3],
            )
            a20, a21, a22, a23 = (
                A[i + 2, a0 + p],
                A[i + 2, a0 + p + 1],
                A[i + 2, a0 + p + 2],
                A[i + 2, a0 + p + 3],
            )
            a30, a31, a32, a33 = (
                A[i + 3, a0 + p],
                A[i + 3, a0 + p + 1],
                A[i + 3, a0 + p + 2],
                A[i + 3, a0 + p + 3],
            )
            for j in range(n):  # the vectorised loop: 16 multiply-adds per 4 loads of B
                b_0, b_1, b_2, b_3 = x0[j], x1[j], x2[j], x3[j]
                c0r[j] += a00 * b_0 + a01 * b_1 + a02 * b_2 + a03 * b_3
                c1r[j] += a10 * b_0 + a11 * b_1 + a12 * b_2 + a13 * b_3
                c2r[j] += a20 * b_0 + a21 * b_1 + a22 * b_2 + a23 * b_3
                c3r[j] += a30 * b_0 + a31 * b_1 + a32 * b_2 + a33 * b_3
        for p in range(k4, k):  # the last k % 4 terms
            x0 = B[p][b0 : b0 + n]
            a_0, a_1, a_2, a_3 = A[i, a0 + p], A[i + 1, a0 + p], A[i + 2, a0 + p], A[i + 3, a0 + p]
            for j in range(n):
                c0r[j] += a_0 * x0[j]
                c1r[j] += a_1 * x0[j]
                c2r[j] += a_2 * x0[j]
                c3r[j] += a_3 * x0[j]
    for i in range(m4, m):  # the last m % 4 rows, one at a time, still four terms at a time
        cr = C[i][c0 : c0 + n]
        for p in range(0, k4, 4):
            x0, x1, x2, x3 = (
                B[p][b0 : b0 + n],
                B[p + 1][b0 : b0 + n],
                B[p + 2][b0 : b0 + n],
                B[p + 3][b0 : b0 + n],
            )
            a_0, a_1, a_2, a_3 = A[i, a0 + p], A[i, a0 + p + 1], A[i, a0 + p + 2], A[i, a0 + p + 3]
            for j in range(n):
                cr[j] += a_0 * x0[j] + a_1 * x1[j] + a_2 * x2[j] + a_3 * x3[j]
        for p in range(k4, k):
            x0 = B[p][b0 : b0 + n]
            a_0 = A[i, a0 + p]
            for j in range(n):
                cr[j] += a_0 * x0[j]
    # --8<-- [end:matmul_acc]
