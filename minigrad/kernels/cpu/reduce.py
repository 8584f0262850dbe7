"""The sum of every element of a large float array, as a Numba kernel (the reference,
kernels/reference/reduce.py, is NumPy's sum).

NumPy's float32 sum is pairwise, so that its rounding stays small. On 400,000 numbers
(the output of a small convolution layer) it took almost three times as long as a loop
that adds them into float64 partial sums, which LLVM keeps in SIMD registers (the
`reassoc` flag of FASTMATH), on one core, and the loop was more accurate
(benchmarks/RESULTS.md). From SPLIT numbers on, each thread sums one block of the array
and the blocks' sums are added at the end. Sums over some axes only, small arrays, other
dtypes and non-contiguous arrays are NumPy's.
"""

import numpy as np

from minigrad.kernels.cpu import workers
from minigrad.kernels.jit import FASTMATH, njit

# below MIN_KERNEL numbers NumPy's call costs no more than the kernel's; from SPLIT on, the
# blocks on every core beat one core (measured: benchmarks/RESULTS.md)
MIN_KERNEL = 65_536
SPLIT = 1 << 21


@njit(nogil=True, cache=True, fastmath=FASTMATH)
def _block_sums(flat, block, sums, lo, hi):
    """sums[t] = the sum of flat[t block : (t + 1) block] (the last block shorter), in
    float64, for the blocks t of a task range."""
    for t in range(lo, hi):
        part = flat[t * block : min((t + 1) * block, flat.size)]
        total = 0.0  # a float64: a long float32 sum would pile up its rounding
        for q in range(part.size):
            total += part[q]
        sums[t] = total


def _add_up(sums):
    """The blocks' sums added in Python floats (a few of them; an infinity of each sign
    gives NaN, as in the kernel, without NumPy's warning)."""
    total = 0.0
    for value in sums.tolist():
        total += value
    return total


def sum(x, axis=None, keepdims=False):  # noqa: A001  (the op it computes)
    """The sum of x over `axis` (every element for None), with NumPy's dtypes and shapes
    (see the reference); every element of a float32 or float64 array of MIN_KERNEL or more
    numbers in C order by the kernel."""
    if (
        axis is not None
        or type(x) is not np.ndarray
        or x.dtype not in (np.float32, np.float64)
        or x.size < MIN_KERNEL
        or not x.flags.c_contiguous
    ):
        return np.sum(x, axis=axis, keepdims=keepdims)
    blocks = workers.count() if x.size >= SPLIT else 1
    sums = np.empty(blocks)  # float64
    flat = x.reshape(-1)
    workers.run(_block_sums, blocks, flat, -(-flat.size // blocks), sums)
    total = x.dtype.type(_add_up(sums))
    return np.full((1,) * x.ndim, total) if keepdims else total
