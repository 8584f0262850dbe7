"""Whole-array passes of the element-wise ops on every core (kernels/reference/elementwise.py
is the NumPy version, with the same results).

NumPy adds two arrays, copies a strided view, or adds into a slice, on one core. With the
arrays cut into one block per thread, each thread runs the same NumPy call on its block
(NumPy lets go of Python's lock inside the loop, so the blocks run at once:
kernels/cpu/workers.py); no compiled code is needed, so nothing compiles. Below MIN_SPLIT
elements, or for operands that are not plain arrays of one shape and one dtype (and, for
`add`, in C order), the call is NumPy's own.
"""

import functools

import numpy as np

from minigrad.kernels.cpu import workers

# below this many elements one core does the pass: waking the threads costs more than the
# pass (benchmarks/RESULTS.md has the measurement; the copies of workers.contiguous and
# the attention's as_batches use the same size)
MIN_SPLIT = 262_144


def _same(a, b):
    """Whether a and b are plain host arrays of the same shape and dtype."""
    return (
        type(a) is np.ndarray
        and type(b) is np.ndarray
        and a.shape == b.shape
        and a.dtype == b.dtype
    )


def add(a, b):
    """a + b. Same-shape arrays of MIN_SPLIT elements or more: each thread adds one block
    of the flat arrays into the same block of the result (the residual sums of a
    transformer: 25 MB a call in nanoGPT's Shakespeare-char step)."""
    if a.size < MIN_SPLIT or not _same(a, b):
        return a + b
    if not (a.flags.c_contiguous and b.flags.c_contiguous):  # flat blocks need C order
        return a + b
    out = np.empty_like(a)
    flat_a, flat_b, flat_out = a.reshape(-1), b.reshape(-1), out.reshape(-1)
    cuts = workers.blocks(flat_a.size, workers.count())
    jobs = [
        functools.partial(np.add, flat_a[lo:hi], flat_b[lo:hi], out=flat_out[lo:hi])
        for lo, hi in cuts
    ]
    workers.run_jobs(jobs)
    return out


def reshape(x, shape):
    """x with a new shape: a view where one exists, else a copy in C order, made by every
    thread (workers.contiguous) when x has MIN_SPLIT elements or more."""
    if x.size < MIN_SPLIT or type(x) is not np.ndarray or x.flags.c_contiguous:
        return x.reshape(shape)
    try:
        return x.reshape(shape, copy=False)  # the view, where one exists (NumPy >= 2.1)
    except ValueError:  # none exists: NumPy would copy on one core
        return workers.contiguous(x).reshape(shape)
    except TypeError:  # NumPy before 2.1 has no copy=: its own reshape
        return x.reshape(shape)


def contiguous(x):
    """x in C order: x itself if it is already, else a copy, made by every thread
    (workers.contiguous) when x has MIN_SPLIT elements or more (`.contiguous()` of a
    transposed activation, or of the gradient of a sum, a broadcast of one number)."""
    if x.flags.c_contiguous:
        return x
    if x.size < MIN_SPLIT or type(x) is not np.ndarray:
        return x.copy(order="C")
    return workers.contiguous(x)


def _add(out, x):
    """out += x, as a function of the two blocks (for workers.by_first_axis)."""
    np.add(out, x, out=out)


def copy_into(out, x):
    """out[...] = x, in place; a block of the first axis per thread from MIN_SPLIT elements
    (the split's backward: each piece's gradient into its slice of a new array)."""
    if x.size < MIN_SPLIT or not _same(out, x):
        out[...] = x
    else:  # the slices of a split are strided: cut along their first axis
        workers.by_first_axis(np.copyto, out, x)


def add_into(out, x):
    """out += x, in place; a block of the first axis per thread from MIN_SPLIT elements
    (the split's backward: the other pieces' gradients onto their slices)."""
    if x.size < MIN_SPLIT or not _same(out, x):
        out += x
    else:
        workers.by_first_axis(_add, out, x)
