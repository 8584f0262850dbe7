"""The host side the CUDA attention kernels share (the naive one-thread-per-row kernels of
`attention_naive.py`, the tiled ones of `attention_lanes.py` and `attention.py`): the
checks of what the kernels support, the mask's broadcasting as integer flags, and the "is
everything finite?" flag, kept on the device.
"""

import numpy as np

from minigrad.array_module import array_module, kernel_view

MAX_DIM = 128  # the largest head dim d (and dv) the kernels accept
DTYPES = (np.dtype(np.float32), np.dtype(np.float64))  # one set of kernels for each


def all_finite(*arrays):
    """A one-element bool array on the device of `arrays`: True when none holds a NaN or Inf
    (as in kernels/cpu/attention.py: a sum is NaN or Inf when a term is; an overflowing sum
    only costs the skipping, never the result). It stays on the GPU, where the kernels read
    it: a Python bool would copy the answer to the host, and wait for the GPU to give it."""
    xp = array_module(arrays[0])
    with np.errstate(over="ignore", invalid="ignore"):
        total = sum(xp.sum(a) for a in arrays)  # one number: NaN or Inf if any term is
    return xp.isfinite(total).reshape(1)


def kernel_args(name, q, k, v, mask):
    """Check what the kernels support; the contiguous q, k, v and mask as the kernels take
    them, and the integer arguments that describe the mask's broadcasting (1 = varies,
    0 = fixed)."""
    xp = array_module(q)
    if q.dtype not in DTYPES:
        raise TypeError(f"{name} (cuda): float32 or float64 arrays expected, got {q.dtype}")
    if q.shape[2] > MAX_DIM or v.shape[2] > MAX_DIM:
        raise ValueError(
            f"{name} (cuda): head dims up to {MAX_DIM} are supported, got q {q.shape} and v "
            f"{v.shape}; "
            "use the 'numba' or 'numpy' backend"
        )
    if mask is None:
        mask, has_mask = xp.zeros((1, 1, 1), q.dtype), False
    else:
        leading = (1,) * (3 - mask.ndim)  # a 2-d mask is (1, Tq, Tk)
        mask, has_mask = mask.astype(q.dtype, copy=False).reshape(leading + mask.shape), True
    flags = tuple(int(s > 1) for s in mask.shape)  # index = position * flag: 0 where broadcast
    arrays = [kernel_view(xp.ascontiguousarray(a)) for a in (q, k, v, mask)]
    return arrays, has_mask, flags


def saved_lse(lse, dtype):
    """The forward's lse as the backward kernels read it: +inf (not -inf) for a query that
    sees no key, so that P = exp(S - lse) = 0 there."""
    xp = array_module(lse)
    return xp.where(lse == -np.inf, np.inf, lse).astype(dtype)
