"""Large matrix products on every core, each core's share on one BLAS thread (the
reference, one call: kernels/reference/matmul.py).

minigrad keeps BLAS on one thread (minigrad/threads.py): OpenBLAS's own threads spin
between products and, on a busy machine, make a product several times slower
(benchmarks/RESULTS.md). But a transformer's products are large enough to use a second
core — (768, 128) @ (128, 384) is 38 million multiply-adds — and they are half of its
training step. So a product this large is cut here, by rows of the result:

    C = A @ B,   C[r0:r1] = A[r0:r1] @ B (+ b)   for one block of rows per core

A linear layer's bias b is added to each block by the core that computed it, right after
its product, while the block is in that core's cache. Each block is an ordinary
single-threaded BLAS call. The calling thread computes the first block itself; the
helper threads of kernels/cpu/workers.py (one per further core, asleep on a queue while
they wait, so on a busy machine they cost nothing) compute the others. NumPy lets go of
Python's lock during a BLAS call, so the blocks really run at once. The rows of C are
disjoint, so the blocks need no locking. Each element is the same sum of k products
either way, but BLAS may add them up in another order when a block's edge falls
elsewhere on its internal tiles: the result can differ from one whole call in the last
bit, as PyTorch's does between thread counts. With the same number of cores it is the
same from run to run (the blocks' edges depend only on the shapes).

Products below SPLIT_MIN_MACS multiply-adds run as one call: handing a block to a
helper costs tens of µs, which a product of a few hundred µs does not win back
(benchmarks/RESULTS.md has the timings that set the threshold).

Only float32 and float64 matrices of one dtype are cut (BLAS's types; NumPy's other
products do not release the lock the same way), and only when minigrad's thread policy
is in effect: a user who set BLAS's thread count (OPENBLAS_NUM_THREADS, ...) chose how
products use the cores, and gets exactly that. The number of blocks is
`minigrad.threads.MATMUL_SPLIT_THREADS` (the cores this process may run on), which can
be set to 1 to switch the cutting off.
"""

import functools

import numpy as np

from minigrad import threads
from minigrad.kernels.cpu import workers
from minigrad.kernels.reference import matmul as reference

SPLIT_MIN_MACS = 8_000_000  # m * k * n below this: one call (see the docstring)


def _worth_splitting(a, b, n):
    return (
        n > 1
        and a.ndim == 2
        and b.ndim == 2
        and a.shape[0] >= 2 * n
        and a.shape[0] * a.shape[1] * b.shape[1] >= SPLIT_MIN_MACS
        and a.dtype == b.dtype
        and a.dtype in (np.float32, np.float64)
    )


def _rows(a, b, bias, out):
    """out = a @ b (+ bias, added to every row): one block of rows, on one thread. The
    bias is added right after BLAS wrote the block, while it is in this core's cache."""
    np.matmul(a, b, out=out)
    if bias is not None:
        out += bias


def matmul(a, b, bias=None):
    """a @ b for NumPy arrays, as np.matmul, plus `bias` (p,) in every row of an (m, p)
    result if given (a linear layer's x W^T + b); two large matrices are cut by rows of
    the result over the cores (see the module's docstring). GPU arrays are multiplied in
    one call: the GPU spreads a product over its own cores."""
    n = threads.MATMUL_SPLIT_THREADS
    if type(a) is not np.ndarray or not _worth_splitting(a, b, n):
        return reference.matmul(a, b, bias)
    out = np.empty((a.shape[0], b.shape[1]), dtype=a.dtype)
    # --8<-- [start:split]
    # n blocks of rows, sizes differing by at most one, each one BLAS call on its own thread
    jobs = [
        functools.partial(_rows, a[r0:r1], b, bias, out[r0:r1])
        for r0, r1 in workers.blocks(a.shape[0], n)
    ]
    workers.run_jobs(jobs)
    # --8<-- [end:split]
    return out
