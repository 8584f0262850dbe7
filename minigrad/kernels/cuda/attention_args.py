"""The host side the CUDA attention kernels share (the naive one-thread-per-row kernels of
`attention_naive.py`, the tiled ones of `attention_lanes.py` and `attention.py`): the
checks of what the kernels support, the mask's broadcasting as integer flags, the "is
everything finite?" flag, kept on the device, and (for the two tiled versions, whose
kernels take the same arguments) the launches themselves.
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
    if mask is None:  # the kernels read no mask, but take an array: one, made once
        arrays = [kernel_view(xp.ascontiguousarray(a)) for a in (q, k, v)]
        return arrays + [_no_mask(xp, q.dtype)], False, (0, 0, 0)
    leading = (1,) * (3 - mask.ndim)  # a 2-d mask is (1, Tq, Tk)
    mask = mask.astype(q.dtype, copy=False).reshape(leading + mask.shape)
    flags = tuple(int(s > 1) for s in mask.shape)  # index = position * flag: 0 where broadcast
    arrays = [kernel_view(xp.ascontiguousarray(a)) for a in (q, k, v, mask)]
    return arrays, True, flags


_NO_MASK = {}  # (array module, dtype) -> (a (1, 1, 1) array of zeros, its kernel view)


def _no_mask(xp, dtype):
    """The mask argument of a call without a mask: a (1, 1, 1) array of zeros on the
    device, and the view the kernels take, made on the first call and kept (a new one per
    call was an allocation, a fill and a Numba view, every launch)."""
    key = (xp.__name__, np.dtype(dtype))
    if key not in _NO_MASK:
        zeros = xp.zeros((1, 1, 1), dtype)
        _NO_MASK[key] = (zeros, kernel_view(zeros))
    return _NO_MASK[key][1]


def saved_lse(lse, dtype):
    """The forward's lse as the backward kernels read it: +inf (not -inf) for a query that
    sees no key, so that P = exp(S - lse) = 0 there."""
    xp = array_module(lse)
    return xp.where(lse == -np.inf, np.inf, lse).astype(dtype)


def launch_forward(q, k, v, scale, is_causal, mask, kernels):
    """out, lse of the forward kernel that `kernels(dtype, d, dv)` names, as (rows of a
    block, the block's threads, kernel as a `launch.Launcher`): device arrays in, device
    arrays out, one block per (batch entry, tile of queries). The Launcher types the
    arguments once per dtype, so each keeps its type from call to call (scale a float, the
    flags bools, the sizes ints, the arrays C-contiguous)."""
    xp = array_module(q)
    B, Tq, d = q.shape
    Tk, dv = k.shape[1], v.shape[2]
    (q_d, k_d, v_d, mask_d), has_mask, (mb, mq, mk) = kernel_args(
        "attention_forward", q, k, v, mask
    )
    rows, threads, forward = kernels(q.dtype, d, dv)
    scale, is_causal = float(scale), bool(is_causal)
    out = xp.empty((B, Tq, dv), q.dtype)  # every row is written by its block
    lse = xp.empty((B, Tq), q.dtype)
    n_tiles = -(-Tq // rows)
    if B * n_tiles > 0:
        finite = all_finite(v)  # hidden keys add 0 * v: skip them unless v holds a NaN or Inf
        forward(
            q.dtype,
            B * n_tiles,
            threads,
            q_d,
            k_d,
            v_d,
            mask_d,
            has_mask,
            mb,
            mq,
            mk,
            scale,
            is_causal,
            kernel_view(finite),
            Tq,
            Tk,
            d,
            dv,
            n_tiles,
            kernel_view(out),
            kernel_view(lse),
        )
    return out, lse


def launch_backward(grad_out, q, k, v, out, lse, scale, is_causal, mask, kernels):
    """dq, dk, dv of the kernels that `kernels(dtype, d, dv)` names, as (rows of a block,
    the block's threads, (grad_q, grad_kv) as Launchers), recomputing P from q, k and lse:
    one block per (batch entry, tile of queries) for dq, one per (batch entry, tile of
    keys) for dk and dv."""
    xp = array_module(q)
    B, Tq, d = q.shape
    Tk, dv = k.shape[1], v.shape[2]
    (q_d, k_d, v_d, mask_d), has_mask, (mb, mq, mk) = kernel_args(
        "attention_backward", q, k, v, mask
    )
    rows, threads, (grad_q, grad_kv) = kernels(q.dtype, d, dv)
    scale, is_causal = float(scale), bool(is_causal)
    shapes = ((B, Tq, d), (B, Tk, d), (B, Tk, dv))
    if B * Tq * Tk == 0:  # no pair of a query and a key: the gradients are 0, no launch
        return tuple(xp.zeros(s, q.dtype) for s in shapes)
    grad_out = xp.ascontiguousarray(grad_out, dtype=q.dtype)
    out = xp.ascontiguousarray(out, dtype=q.dtype)
    dlt = (grad_out * out).sum(axis=-1)  # delta = rowsum(dO * O), (B, Tq): one array expression
    dq, dk, dvv = (xp.empty(s, q.dtype) for s in shapes)  # every row is written by its block
    # with a NaN or Inf anywhere, every (query, key) pair is walked, as the reference
    finite = kernel_view(all_finite(q, k, v, grad_out, out))
    common = (
        q_d,
        k_d,
        v_d,
        kernel_view(grad_out),
        kernel_view(saved_lse(lse, q.dtype)),  # +inf where a query sees no key: P = 0
        kernel_view(xp.ascontiguousarray(dlt)),
        mask_d,
        has_mask,
        mb,
        mq,
        mk,
        scale,
        is_causal,
        finite,
        Tq,
        Tk,
        d,
        dv,
    )
    n_q, n_k = -(-Tq // rows), -(-Tk // rows)
    grad_q(q.dtype, B * n_q, threads, *common, n_q, kernel_view(dq))
    grad_kv(q.dtype, B * n_k, threads, *common, n_k, kernel_view(dk), kernel_view(dvv))
    return dq, dk, dvv
