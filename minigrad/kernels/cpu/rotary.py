"""The rotary position embedding's rotation in one compiled pass over a host array (the
reference, with the formulas: kernels/reference/rotary.py).

    y1 = x1 * cos - x2 * sin,    y2 = x2 * cos + x1 * sin

for the halves [x1, x2] of each vector of x (..., T, d), cos and sin (T, d) (RoPE's angles,
written twice). The backward is this rotation with -sin.

Written with NumPy it is a contiguous copy of x (q and k are transposed views of the qkv
product), then x * cos, rotate_half, a product and a sum: about five passes and two
temporaries. Here x is copied once into C order (by every thread, a block each, when the
rotation runs on every core), then read once by a loop over its contiguous rows, which
LLVM vectorises, and y written once.
The arithmetic is the reference's, operation for operation (x1 * cos + (-x2) * sin is
x1 * cos - x2 * sin exactly): the result is the same to the last bit.

The rows (one vector each) are the kernel's tasks: from MIN_PARALLEL elements on they
are cut into one block per thread (kernels/cpu/workers.py), below it the calling thread
runs them all, and below MIN_KERNEL the reference runs: the compiled call's fixed cost
is then most of the work. benchmarks/bench_adamw_rotary.py measures the three
(benchmarks/RESULTS.md).
"""

import numpy as np

from minigrad.kernels.cpu import workers
from minigrad.kernels.jit import njit
from minigrad.kernels.reference import rotary as reference

MIN_KERNEL = 512  # elements of x; fewer: the reference
MIN_PARALLEL = 1 << 20  # elements of x; fewer: one core


@njit(nogil=True, cache=True)
def _rows(x, cos, sin, y, lo, hi):
    """Rotate vectors lo .. hi - 1 of x into y, both (N, M, T, d) in C order (vectors
    numbered in that order); cos, sin (T, d)."""
    _, heads, length, d = x.shape
    half = d // 2
    for row in range(lo, hi):  # task `row`: one vector
        a, t = row // length, row % length
        b, h = a // heads, a % heads
        for j in range(half):
            x1, x2 = x[b, h, t, j], x[b, h, t, j + half]
            y[b, h, t, j] = x1 * cos[t, j] - x2 * sin[t, j]
            y[b, h, t, j + half] = x2 * cos[t, j + half] + x1 * sin[t, j + half]


def rotate(x, cos, sin):
    """x * cos + rotate_half(x) * sin, a new contiguous array; cos and sin (T, d) for x
    (..., T, d) (other shapes go to the reference, which broadcasts)."""
    if (
        type(x) is not np.ndarray
        or x.size < MIN_KERNEL
        or x.ndim < 2
        or x.shape[-1] % 2
        or x.dtype not in (np.float32, np.float64)
        or any(type(c) is not np.ndarray or c.dtype != x.dtype for c in (cos, sin))
        or cos.shape != x.shape[-2:]
        or sin.shape != x.shape[-2:]
    ):
        return reference.rotate(x, cos, sin)
    # every x as 4-d, (N, M, T, d): a view for 2 to 4 dims
    x4 = x.reshape((1,) * (4 - x.ndim) + x.shape) if x.ndim < 4 else x.reshape((-1,) + x.shape[-3:])
    split = x.size >= MIN_PARALLEL  # the vectors cut into one block per thread
    # a strided x (q and k) copied into C order first, by the threads with `split`: the
    # loop over a contiguous row is vectorised by LLVM, over a strided one it is not, and
    # the copy costs less than the difference (1.35-2x faster in all, at the baby GPT's q
    # and at nanoGPT's, benchmarks/RESULTS.md); and the kernel compiles for one layout
    x4 = workers.contiguous(x4, split)
    y = np.empty(x4.shape, dtype=x.dtype)
    rows = x4.shape[0] * x4.shape[1] * x4.shape[2]
    workers.run(_rows, rows, x4, cos, sin, y, split=split)
    return y.reshape(x.shape)
