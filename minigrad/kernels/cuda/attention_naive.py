"""Attention on an NVIDIA GPU, the naive way: Numba CUDA kernels with one thread per query
row (or key row), online softmax, the same functions and signatures as the reference.

Kept as the lesson's first version, next to the tiled FlashAttention-2 kernels of
`attention_lanes.py` and `attention.py` (which the backends use): here one thread walks a
whole row of T keys alone, so a row's work is serial and a block has only TILE threads
(one warp or half of one), too few to hide the GPU's memory latency.

How the work maps onto the GPU:

- forward: one thread per query row, TILE threads (TILE queries) per thread block, one
  block per (batch entry, query tile). The block walks through the keys one tile at a
  time: its threads first copy TILE rows of k and v into shared memory together (each
  key row is then read from global memory once per block, not once per query), wait at
  a barrier, and then each thread runs the online softmax over those TILE keys for its
  own query, keeping its running max m, sum l and unnormalised output row in registers
  (local memory). The (Tq, Tk) matrix never exists.
- backward: FlashAttention's recomputation, split so that no two threads ever add to
  the same number: `_delta` computes rowsum(dO * O); `_grad_q` gives each query row a
  thread that walks all keys (as the forward does) and sums dS_ij k_j; `_grad_kv` gives
  each key row a thread that walks all queries and sums P_ij dO_i and dS_ij q_i.

The functions take and return device arrays (CuPy's, the storage of CUDA tensors): the
kernels read and write them in GPU memory (`minigrad.array_module.kernel_view`), the
outputs are allocated with CuPy, and nothing crosses to the host, not even the answer
to "is everything finite?", which stays on the device as a flag the kernels read. Sizes
are passed to the kernels as plain integer arguments. Given NumPy arrays (the ``"cuda"``
backend's demonstration on CPU tensors), Numba copies them to the GPU and back around
each launch.
Shared and local arrays need sizes known when compiling, so head dims are limited to
MAX_DIM and there is one set of kernels per dtype (float32 with tiles of 32, float64
with tiles of 16, which keeps the shared memory of a block at 32 KiB; on the simulator
tiles of 8 and 4: TILE_FLOAT32 and TILE_FLOAT64 below).

NaN and Inf come out exactly as from the reference: a NaN score makes the running max,
and so the whole row, NaN; a row whose sum l is NaN keeps a NaN lse; and a key hidden
from a query still adds 0 * v_j to its output (NaN when v_j is NaN or Inf), as the
reference's P @ v does. Hidden keys and the tiles the causal mask hides are skipped
only when the operands are all finite (`finite`), where they add exactly 0.
"""

import math

import numba
import numpy as np
from numba import cuda, float32, float64

from minigrad.array_module import array_module, kernel_view
from minigrad.kernels.cuda.attention_args import (
    MAX_DIM,
    all_finite,
    kernel_args,
    launch_forward,
    saved_lse,
)
from minigrad.kernels.cuda.launch import Launcher

# The tile (threads per block: a query or key each) of float32 and of float64. On the simulator
# every thread is a Python thread, started and joined one by one: there the tiles are small (which
# also puts tile boundaries inside the tests' short sequences).
SIMULATED = bool(numba.config.ENABLE_CUDASIM)
TILE_FLOAT32, TILE_FLOAT64 = (8, 4) if SIMULATED else (32, 16)
ROWS_PER_BLOCK = 8 if SIMULATED else 128  # the threads per block of `delta`, one row each


def _build_kernels(dtype, TILE):
    """The four kernels for one dtype; TILE threads per block, TILE rows per shared tile."""

    @cuda.jit
    def forward(
        q,
        k,
        v,
        mask,
        has_mask,
        mask_b,
        mask_q,
        mask_k,
        scale,
        is_causal,
        all_finite,
        Tq,
        Tk,
        d,
        dv,
        n_tiles,
        out,
        lse,
    ):
        b, tile = cuda.blockIdx.x // n_tiles, cuda.blockIdx.x % n_tiles
        finite = all_finite[0]  # a flag in GPU memory: reading it on the host would cost a copy
        tx = cuda.threadIdx.x
        i = tile * TILE + tx  # this thread's query
        k_tile = cuda.shared.array((TILE, MAX_DIM), dtype)
        v_tile = cuda.shared.array((TILE, MAX_DIM), dtype)
        q_row = cuda.local.array(MAX_DIM, dtype)
        acc = cuda.local.array(MAX_DIM, dtype)  # sum_j exp(s_j - m) v_j, not yet divided by l
        active = i < Tq
        for e in range(d):
            q_row[e] = q[b, i, e] * scale if active else 0.0
        for e in range(dv):
            acc[e] = 0.0
        m = dtype(-math.inf)  # running max of the scores seen so far
        l = dtype(0.0)  # running sum of exp(s_j - m)
        # the same for the whole block
        k_end = min(Tk, (tile + 1) * TILE) if is_causal and finite else Tk
        for j0 in range(0, k_end, TILE):
            # all threads copy the tile of keys and values, then wait for each other
            for r in range(tx, TILE * max(d, dv), TILE):
                row, col = r // max(d, dv), r % max(d, dv)
                if j0 + row < Tk and col < d:
                    k_tile[row, col] = k[b, j0 + row, col]
                if j0 + row < Tk and col < dv:
                    v_tile[row, col] = v[b, j0 + row, col]
            cuda.syncthreads()
            if active:
                for c in range(min(TILE, k_end - j0)):
                    j = j0 + c
                    s = dtype(-math.inf)  # the causal mask replaces the score of a hidden key
                    if not (is_causal and j > i):
                        s = dtype(0.0)
                        for e in range(d):
                            s += q_row[e] * k_tile[c, e]
                        if has_mask:
                            s += mask[b * mask_b, i * mask_q, j * mask_k]
                    if s == -math.inf:  # this key is hidden from this query: P = 0
                        if finite:
                            continue  # 0 * v_j adds nothing
                        p = dtype(0.0)
                    else:
                        if s > m or s != s:  # a new max (NaN sticks): rescale the sums
                            alpha = math.exp(m - s)
                            l *= alpha
                            for e in range(dv):
                                acc[e] *= alpha
                            m = s
                        p = math.exp(s - m)  # NaN once m is NaN
                    l += p
                    for e in range(dv):
                        acc[e] += p * v_tile[c, e]
            cuda.syncthreads()  # before the next tile overwrites k_tile and v_tile
        if active:
            seen = l != 0.0  # False: no visible key, output 0 and lse -inf; NaN counts as seen
            inv = 1.0 / l if seen else 0.0
            for e in range(dv):
                out[b, i, e] = acc[e] * inv
            lse[b, i] = m + math.log(l) if seen else -math.inf

    @cuda.jit
    def delta(grad_out, out, B, Tq, dv, result):
        """result[b, i] = rowsum(dO * O), one thread per row."""
        row = cuda.grid(1)
        if row < B * Tq:
            b, i = row // Tq, row % Tq
            total = dtype(0.0)
            for e in range(dv):
                total += grad_out[b, i, e] * out[b, i, e]
            result[b, i] = total

    @cuda.jit
    def grad_q(
        q,
        k,
        v,
        grad_out,
        lse,
        dlt,
        mask,
        has_mask,
        mask_b,
        mask_q,
        mask_k,
        scale,
        is_causal,
        all_finite,
        Tq,
        Tk,
        d,
        dv,
        n_tiles,
        dq,
    ):
        """dq_i = scale * sum_j dS_ij k_j, one thread per query, keys by shared tiles.
        lse is +inf for a query that sees no key (P = exp(S - inf) = 0)."""
        b, tile = cuda.blockIdx.x // n_tiles, cuda.blockIdx.x % n_tiles
        finite = all_finite[0]  # a flag in GPU memory: reading it on the host would cost a copy
        tx = cuda.threadIdx.x
        i = tile * TILE + tx
        k_tile = cuda.shared.array((TILE, MAX_DIM), dtype)
        v_tile = cuda.shared.array((TILE, MAX_DIM), dtype)
        q_row = cuda.local.array(MAX_DIM, dtype)
        do_row = cuda.local.array(MAX_DIM, dtype)
        acc = cuda.local.array(MAX_DIM, dtype)
        active = i < Tq
        for e in range(d):
            q_row[e] = q[b, i, e] * scale if active else 0.0
            acc[e] = 0.0
        for e in range(dv):
            do_row[e] = grad_out[b, i, e] if active else 0.0
        row_lse = lse[b, i] if active else dtype(math.inf)
        row_delta = dlt[b, i] if active else dtype(0.0)
        k_end = min(Tk, (tile + 1) * TILE) if is_causal and finite else Tk
        for j0 in range(0, k_end, TILE):
            for r in range(tx, TILE * max(d, dv), TILE):
                row, col = r // max(d, dv), r % max(d, dv)
                if j0 + row < Tk and col < d:
                    k_tile[row, col] = k[b, j0 + row, col]
                if j0 + row < Tk and col < dv:
                    v_tile[row, col] = v[b, j0 + row, col]
            cuda.syncthreads()
            if active and not (finite and row_lse == math.inf):
                for c in range(min(TILE, k_end - j0)):
                    j = j0 + c
                    s = dtype(-math.inf)
                    if not (is_causal and j > i):
                        s = dtype(0.0)
                        for e in range(d):
                            s += q_row[e] * k_tile[c, e]
                        if has_mask:
                            s += mask[b * mask_b, i * mask_q, j * mask_k]
                    if finite and s == -math.inf:
                        continue  # P = 0 and all is finite: dS = 0
                    p = math.exp(s - row_lse)  # P_ij rebuilt from the saved log-sum-exp
                    dp = dtype(0.0)
                    for e in range(dv):
                        dp += do_row[e] * v_tile[c, e]
                    ds = p * (dp - row_delta)
                    for e in range(d):
                        acc[e] += ds * k_tile[c, e]
            cuda.syncthreads()
        if active:
            for e in range(d):
                dq[b, i, e] = acc[e] * scale

    @cuda.jit
    def grad_kv(
        q,
        k,
        v,
        grad_out,
        lse,
        dlt,
        mask,
        has_mask,
        mask_b,
        mask_q,
        mask_k,
        scale,
        is_causal,
        all_finite,
        Tq,
        Tk,
        d,
        dv,
        n_tiles,
        dk,
        dv_out,
    ):
        """dk_j = scale * sum_i dS_ij q_i and dv_j = sum_i P_ij dO_i, one thread per key,
        queries (with their dO, lse and delta) by shared tiles."""
        b, tile = cuda.blockIdx.x // n_tiles, cuda.blockIdx.x % n_tiles
        finite = all_finite[0]  # a flag in GPU memory: reading it on the host would cost a copy
        tx = cuda.threadIdx.x
        j = tile * TILE + tx  # this thread's key
        q_tile = cuda.shared.array((TILE, MAX_DIM), dtype)
        do_tile = cuda.shared.array((TILE, MAX_DIM), dtype)
        lse_tile = cuda.shared.array(TILE, dtype)
        delta_tile = cuda.shared.array(TILE, dtype)
        k_row = cuda.local.array(MAX_DIM, dtype)
        v_row = cuda.local.array(MAX_DIM, dtype)
        dk_acc = cuda.local.array(MAX_DIM, dtype)
        dv_acc = cuda.local.array(MAX_DIM, dtype)
        active = j < Tk
        for e in range(d):
            k_row[e] = k[b, j, e] if active else 0.0
            dk_acc[e] = 0.0
        for e in range(dv):
            v_row[e] = v[b, j, e] if active else 0.0
            dv_acc[e] = 0.0
        # earlier queries see none of these keys
        i_start = tile * TILE if is_causal and finite else 0
        for i0 in range(i_start, Tq, TILE):
            for r in range(tx, TILE * max(d, dv), TILE):
                row, col = r // max(d, dv), r % max(d, dv)
                if i0 + row < Tq and col < d:
                    q_tile[row, col] = q[b, i0 + row, col] * scale
                if i0 + row < Tq and col < dv:
                    do_tile[row, col] = grad_out[b, i0 + row, col]
            if i0 + tx < Tq:
                lse_tile[tx] = lse[b, i0 + tx]
                delta_tile[tx] = dlt[b, i0 + tx]
            cuda.syncthreads()
            if active:
                for c in range(min(TILE, Tq - i0)):
                    i = i0 + c
                    hidden = is_causal and j > i
                    if finite and (hidden or lse_tile[c] == math.inf):
                        continue  # P = 0 and all is finite: nothing to add
                    s = dtype(-math.inf)
                    if not hidden:
                        s = dtype(0.0)
                        for e in range(d):
                            s += q_tile[c, e] * k_row[e]
                        if has_mask:
                            s += mask[b * mask_b, i * mask_q, j * mask_k]
                    if finite and s == -math.inf:
                        continue
                    p = math.exp(s - lse_tile[c])
                    dp = dtype(0.0)
                    for e in range(dv):
                        dp += do_tile[c, e] * v_row[e]
                        dv_acc[e] += p * do_tile[c, e]
                    ds = p * (dp - delta_tile[c])
                    for e in range(d):
                        dk_acc[e] += ds * q_tile[c, e]  # q_tile holds scale * q
            cuda.syncthreads()
        if active:
            for e in range(d):
                dk[b, j, e] = dk_acc[e]
            for e in range(dv):
                dv_out[b, j, e] = dv_acc[e]

    return forward, delta, grad_q, grad_kv


_KERNELS = {
    np.dtype(np.float32): (TILE_FLOAT32, _build_kernels(float32, TILE_FLOAT32)),
    np.dtype(np.float64): (TILE_FLOAT64, _build_kernels(float64, TILE_FLOAT64)),
}


# the forward kernel of each dtype, launched by attention_args.launch_forward (whose
# arguments it takes, as the tiled kernels do) through a Launcher (launch.py)
_FORWARD = {dtype: Launcher(kernels[0]) for dtype, (_, kernels) in _KERNELS.items()}


def _forward(dtype, d, dv):
    tile = _KERNELS[dtype][0]
    return tile, tile, _FORWARD[dtype]  # a block of `tile` threads, a query each


def attention_forward(q, k, v, scale, is_causal, mask):
    """out = softmax(scale * q @ k^T + mask) @ v and lse, as the reference, on the GPU:
    device arrays in, device arrays out; one block per (batch entry, tile of queries)."""
    return launch_forward(q, k, v, scale, is_causal, mask, _forward)


def attention_backward(grad_out, q, k, v, out, lse, scale, is_causal, mask):
    """dq, dk, dv, as the reference, recomputing P from q, k and lse on the GPU."""
    xp = array_module(q)
    B, Tq, d = q.shape
    Tk, dv = k.shape[1], v.shape[2]
    (q_d, k_d, v_d, mask_d), has_mask, (mb, mq, mk) = kernel_args(
        "attention_backward", q, k, v, mask
    )
    tile, (_, delta, grad_q, grad_kv) = _KERNELS[q.dtype]
    shapes = ((B, Tq, d), (B, Tk, d), (B, Tk, dv))
    if B * Tq * Tk == 0:  # no pair of a query and a key: the gradients are 0, no launch
        return tuple(xp.zeros(s, q.dtype) for s in shapes)
    grad_out = xp.ascontiguousarray(grad_out, dtype=q.dtype)
    do_d = kernel_view(grad_out)
    lse_d = kernel_view(saved_lse(lse, q.dtype))  # +inf where a query sees no key: P = 0
    dlt = xp.empty((B, Tq), q.dtype)
    dq, dk, dvv = (xp.empty(s, q.dtype) for s in shapes)  # every row is written by its thread
    delta_d, dq_d, dk_d, dv_d = (kernel_view(a) for a in (dlt, dq, dk, dvv))
    causal = bool(is_causal)
    # with a NaN or Inf anywhere, every (query, key) pair is walked, as the reference
    finite = kernel_view(all_finite(q, k, v, grad_out, out))
    delta[-(-B * Tq // ROWS_PER_BLOCK), ROWS_PER_BLOCK](
        do_d, kernel_view(xp.ascontiguousarray(out)), B, Tq, dv, delta_d
    )
    # the arguments both passes take: the operands, the mask's layout, the settings, the sizes
    shared = (q_d, k_d, v_d, do_d, lse_d, delta_d, mask_d, has_mask, mb, mq, mk)
    shared += (scale, causal, finite, Tq, Tk, d, dv)
    n_q = -(-Tq // tile)
    grad_q[B * n_q, tile](*shared, n_q, dq_d)
    n_k = -(-Tk // tile)
    grad_kv[B * n_k, tile](*shared, n_k, dk_d, dv_d)
    return dq, dk, dvv
