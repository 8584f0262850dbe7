"""Attention on an NVIDIA GPU in the FlashAttention-2 arrangement: Numba CUDA kernels with
the same functions and signatures as the reference, with a few threads per row. The
lesson's second version: `attention_naive.py` keeps the first (one thread per row), and
`attention.py` the third, which the backends use (a block of scores per thread).

The work, for one batch entry b (one head of one sample) and tiles of TILE rows:

- forward: a thread block owns Q_tile, TILE queries. It streams the keys and values
  through shared memory a tile at a time (K_tile, V_tile), computes the scores
  S = Q_tile K_tile^T of that tile, and updates the online softmax: the running max m,
  sum l and unnormalised output row acc of each query live in registers (local memory).
  Only O and the log-sum-exp lse are written; the (Tq, Tk) matrix never exists.
- backward: P is rebuilt from the saved lse, P = exp(S - lse), and
  dS = P * (dO V^T - delta) with delta = rowsum(dO * O). `grad_kv`: a block owns a
  K_tile and V_tile and walks the query tiles, summing dV = P^T dO and dK = dS^T Q;
  `grad_q`: a block owns a Q_tile and walks the key tiles, summing dQ = dS K. Two passes
  recompute S, and no two blocks ever add into the same number (no atomics).

Inside a block, LANES threads share each row (a query in the forward and `grad_q`, a key
in `grad_kv`): the block is a (LANES, TILE) grid of threads, threadIdx.y the row and
threadIdx.x the lane. A lane computes the scores of the columns c = lane, lane + LANES,
... of its row, and owns the same slice e = lane, lane + LANES, ... of the head dim of the
row's accumulators. So no thread walks a whole row of T keys alone.

Why this is faster than the naive kernels, per key tile and query tile of TILE rows:
- parallelism: the naive kernels give a row one thread, which walks all T keys times d
  serially, and a block has TILE threads (a warp or half of one); here LANES threads split
  each row, and a block has TILE * LANES threads (128 or 64): more warps per SM to hide the
  latency of memory, and a LANES-times shorter serial path per thread.
- global memory: each element of K and V is read from global memory once per block of
  TILE queries (as in the naive forward), and the threads copy consecutive elements
  together (coalesced); Q, dO, lse and delta are read once per block too, where the
  naive backward's per-thread rows were read by one thread each into local memory.
- shared memory: the rows of a tile are padded to MAX_DIM + 1 (and the score tile to
  TILE + 1) so that the lanes of a row, which read different rows of a tile at the same
  column, hit different banks; the threads of a row read the same address (a broadcast).
What these kernels leave: each thread computes one score (or one output column) at a time
from shared memory, two shared reads per multiply-add. `attention.py` gives each thread a
block of scores in registers instead, with tiles per head-dim bound.

The functions take and return device arrays (CuPy's, the storage of CUDA tensors), as in
`attention_naive.py`; so do the NaN and Inf rules: the results equal the reference's, a
key hidden from a query still adds 0 * v_j (NaN when v_j is NaN or Inf), and the tiles
the causal mask hides are skipped only when the operands are all finite (`finite`, a
flag the kernels read on the device).
Shared and local arrays need sizes known when compiling, so head dims are limited to
MAX_DIM and there is one set of kernels per dtype: tiles of 16 rows in float32 and 8 in
float64 with 8 lanes per row, which keeps a block's shared memory under 36 KiB. On the
simulator (every thread a Python thread) the tiles are 4 and 3 rows with 2 lanes, which
puts tile edges inside the tests' short sequences and splits rows unevenly.
"""

import math

import numba
import numpy as np
from numba import cuda, float32, float64

from minigrad.kernels.cuda.attention_args import MAX_DIM, launch_backward, launch_forward
from minigrad.kernels.cuda.launch import Launcher
from minigrad.kernels.reference.attention import as_batches  # noqa: F401 (a reshape, on the GPU too)

SIMULATED = bool(numba.config.ENABLE_CUDASIM)
# rows (queries or keys) per tile, for float32 and float64; threads per row
TILE_FLOAT32, TILE_FLOAT64 = (4, 3) if SIMULATED else (16, 8)
LANES = 2 if SIMULATED else 8


def _build_kernels(dtype, TILE):
    """The three kernels for one dtype: a block of (LANES, TILE) threads, tiles of TILE rows."""
    DIM = MAX_DIM + 1  # a tile row in shared memory: +1 so that rows start in different banks
    PER_LANE = -(-MAX_DIM // LANES)  # the head-dim columns a thread keeps: e = lane + LANES * t
    THREADS = TILE * LANES
    # a score tile's row, +1 likewise; a constant here: an expression in a kernel's
    # cuda.shared.array shape would be a runtime value, which Numba refuses
    SCORE_COLS = TILE + 1

    @cuda.jit(device=True)
    def load_tile(tile, x, b, start, end, width, factor, tid):
        """tile[r, e] = factor * x[b, start + r, e], 0 for the rows past `end`: the block's
        threads copy consecutive elements together (coalesced reads of global memory)."""
        for flat in range(tid, TILE * width, THREADS):
            r, e = flat // width, flat % width
            tile[r, e] = x[b, start + r, e] * factor if start + r < end else 0.0

    @cuda.jit(device=True)
    def dot(a, row_a, b, row_b, n):
        """sum_e a[row_a, e] * b[row_b, e], over the first n columns of two shared tiles."""
        total = dtype(0.0)
        for e in range(n):
            total += a[row_a, e] * b[row_b, e]
        return total

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
        """A block: the queries i0..i0+TILE-1 of entry b. A thread (lane, r): query i = i0 + r,
        the scores of keys c = lane, lane + LANES, ... of each K_tile, and the output columns
        e = lane, lane + LANES, ... of its row. Per K_tile: S = Q_tile K_tile^T (scaled, plus
        the mask), the new row max, P = exp(S - m) in place of S, then l and acc."""
        b, i0 = cuda.blockIdx.x // n_tiles, cuda.blockIdx.x % n_tiles * TILE
        lane, r = cuda.threadIdx.x, cuda.threadIdx.y
        tid, i = r * LANES + lane, i0 + r  # this thread's place in the block, its query
        finite = all_finite[0]  # a flag in GPU memory: reading it on the host would cost a copy
        Q_tile = cuda.shared.array((TILE, DIM), dtype)  # scale * q, read once per block
        K_tile = cuda.shared.array((TILE, DIM), dtype)
        V_tile = cuda.shared.array((TILE, DIM), dtype)
        S = cuda.shared.array((TILE, SCORE_COLS), dtype)  # the scores of a tile, then P
        acc = cuda.local.array(PER_LANE, dtype)  # sum_j exp(s_j - m) v_j, not yet divided by l
        for t in range(PER_LANE):
            acc[t] = 0.0
        m = dtype(-math.inf)  # running max of the row's scores (every lane of a row holds it)
        l = dtype(0.0)  # running sum of exp(s_j - m)
        load_tile(Q_tile, q, b, i0, Tq, d, scale, tid)
        # the key tiles wholly above the diagonal hide every key from every query here
        k_end = min(Tk, i0 + TILE) if is_causal and finite else Tk
        for j0 in range(0, k_end, TILE):
            load_tile(K_tile, k, b, j0, Tk, d, 1.0, tid)
            load_tile(V_tile, v, b, j0, Tk, dv, 1.0, tid)
            cuda.syncthreads()
            n_keys = min(TILE, k_end - j0)
            for c in range(lane, n_keys, LANES):  # S = Q_tile K_tile^T, LANES scores at a time
                s = dtype(-math.inf)  # the causal mask replaces the score of a hidden key
                if not (is_causal and j0 + c > i):
                    s = dot(Q_tile, r, K_tile, c, d)
                    if has_mask and i < Tq:
                        s += mask[b * mask_b, i * mask_q, (j0 + c) * mask_k]
                S[r, c] = s
            cuda.syncthreads()
            m_new = m
            for c in range(n_keys):  # the row's new max (NaN sticks: the row is NaN)
                if S[r, c] > m_new or S[r, c] != S[r, c]:
                    m_new = S[r, c]
            alpha = dtype(1.0)  # rescales what was summed under the old max
            if m_new != m:
                alpha = math.exp(m - m_new)
            cuda.syncthreads()  # every lane has read its row of S before it turns into P
            for c in range(lane, n_keys, LANES):
                s = S[r, c]
                S[r, c] = 0.0 if s == -math.inf else math.exp(s - m_new)  # hidden: P = 0
            cuda.syncthreads()
            m = m_new
            l *= alpha
            for c in range(n_keys):
                l += S[r, c]
            for e in range(lane, dv, LANES):  # acc = alpha * acc + P V_tile, this lane's columns
                total = dtype(0.0)
                for c in range(n_keys):
                    total += S[r, c] * V_tile[c, e]  # a hidden key adds 0 * v_j, as the reference
                acc[e // LANES] = acc[e // LANES] * alpha + total
            cuda.syncthreads()  # before the next tile overwrites K_tile, V_tile and S
        if i < Tq:
            seen = l != 0.0  # False: no visible key, output 0 and lse -inf; NaN counts as seen
            inv = 1.0 / l if seen else 0.0
            for e in range(lane, dv, LANES):
                out[b, i, e] = acc[e // LANES] * inv
            if lane == 0:
                lse[b, i] = m + math.log(l) if seen else -math.inf

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
        """dQ = scale * dS K. A block: the queries i0..i0+TILE-1 of entry b, with their
        Q_tile and dO_tile; it walks the K_tile and V_tile of the keys. A thread (lane, r):
        dS of query i0 + r and keys c = lane, lane + LANES, ... of a tile, then the columns
        e = lane, lane + LANES, ... of dQ's row. lse is +inf for a query that sees no key."""
        b, i0 = cuda.blockIdx.x // n_tiles, cuda.blockIdx.x % n_tiles * TILE
        lane, r = cuda.threadIdx.x, cuda.threadIdx.y
        tid, i = r * LANES + lane, i0 + r
        finite = all_finite[0]
        Q_tile = cuda.shared.array((TILE, DIM), dtype)
        dO_tile = cuda.shared.array((TILE, DIM), dtype)
        K_tile = cuda.shared.array((TILE, DIM), dtype)
        V_tile = cuda.shared.array((TILE, DIM), dtype)
        dS = cuda.shared.array((TILE, SCORE_COLS), dtype)
        acc = cuda.local.array(PER_LANE, dtype)
        for t in range(PER_LANE):
            acc[t] = 0.0
        active = i < Tq
        row_lse = lse[b, i] if active else dtype(math.inf)
        row_delta = dlt[b, i] if active else dtype(0.0)
        load_tile(Q_tile, q, b, i0, Tq, d, scale, tid)
        load_tile(dO_tile, grad_out, b, i0, Tq, dv, 1.0, tid)
        k_end = min(Tk, i0 + TILE) if is_causal and finite else Tk
        for j0 in range(0, k_end, TILE):
            load_tile(K_tile, k, b, j0, Tk, d, 1.0, tid)
            load_tile(V_tile, v, b, j0, Tk, dv, 1.0, tid)
            cuda.syncthreads()
            n_keys = min(TILE, k_end - j0)
            for c in range(lane, n_keys, LANES):
                s = dtype(-math.inf)
                if not (is_causal and j0 + c > i):
                    s = dot(Q_tile, r, K_tile, c, d)
                    if has_mask and active:
                        s += mask[b * mask_b, i * mask_q, (j0 + c) * mask_k]
                ds = dtype(0.0)  # P = 0 and all is finite: dS = 0
                if active and not (finite and (s == -math.inf or row_lse == math.inf)):
                    p = math.exp(s - row_lse)  # P_ij rebuilt from the saved log-sum-exp
                    ds = p * (dot(dO_tile, r, V_tile, c, dv) - row_delta)
                dS[r, c] = ds
            cuda.syncthreads()
            for e in range(lane, d, LANES):  # acc += dS K_tile, this lane's columns
                total = dtype(0.0)
                for c in range(n_keys):
                    total += dS[r, c] * K_tile[c, e]
                acc[e // LANES] += total
            cuda.syncthreads()
        if active:
            for e in range(lane, d, LANES):
                dq[b, i, e] = acc[e // LANES] * scale

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
        """dV = P^T dO and dK = scale * dS^T Q. A block: the keys j0..j0+TILE-1 of entry b,
        with their K_tile and V_tile; it walks the Q_tile, dO_tile, lse and delta of the
        queries. A thread (lane, r): P and dS of key j0 + r and queries c = lane,
        lane + LANES, ... of a tile (stored transposed, a key per row), then the columns
        e = lane, lane + LANES, ... of dK's and dV's rows."""
        b, j0 = cuda.blockIdx.x // n_tiles, cuda.blockIdx.x % n_tiles * TILE
        lane, r = cuda.threadIdx.x, cuda.threadIdx.y
        tid, j = r * LANES + lane, j0 + r  # this thread's key
        finite = all_finite[0]
        K_tile = cuda.shared.array((TILE, DIM), dtype)
        V_tile = cuda.shared.array((TILE, DIM), dtype)
        Q_tile = cuda.shared.array((TILE, DIM), dtype)  # scale * q
        dO_tile = cuda.shared.array((TILE, DIM), dtype)
        lse_tile = cuda.shared.array(TILE, dtype)
        delta_tile = cuda.shared.array(TILE, dtype)
        P_T = cuda.shared.array((TILE, SCORE_COLS), dtype)  # P^T: a key per row, a query per column
        dS_T = cuda.shared.array((TILE, SCORE_COLS), dtype)
        dk_acc = cuda.local.array(PER_LANE, dtype)
        dv_acc = cuda.local.array(PER_LANE, dtype)
        for t in range(PER_LANE):
            dk_acc[t] = 0.0
            dv_acc[t] = 0.0
        active = j < Tk
        load_tile(K_tile, k, b, j0, Tk, d, 1.0, tid)
        load_tile(V_tile, v, b, j0, Tk, dv, 1.0, tid)
        # the query tiles wholly above the diagonal (earlier queries) see none of these keys
        i_start = j0 if is_causal and finite else 0
        for i0 in range(i_start, Tq, TILE):
            load_tile(Q_tile, q, b, i0, Tq, d, scale, tid)
            load_tile(dO_tile, grad_out, b, i0, Tq, dv, 1.0, tid)
            if tid < TILE:
                lse_tile[tid] = lse[b, i0 + tid] if i0 + tid < Tq else math.inf
                delta_tile[tid] = dlt[b, i0 + tid] if i0 + tid < Tq else 0.0
            cuda.syncthreads()
            n_queries = min(TILE, Tq - i0)
            for c in range(lane, n_queries, LANES):
                i = i0 + c
                hidden = is_causal and j > i
                p, ds = dtype(0.0), dtype(0.0)  # P = 0 and all is finite: nothing to add
                if active and not (finite and (hidden or lse_tile[c] == math.inf)):
                    s = dtype(-math.inf)
                    if not hidden:
                        s = dot(Q_tile, c, K_tile, r, d)
                        if has_mask:
                            s += mask[b * mask_b, i * mask_q, j * mask_k]
                    if not (finite and s == -math.inf):
                        p = math.exp(s - lse_tile[c])
                        ds = p * (dot(dO_tile, c, V_tile, r, dv) - delta_tile[c])
                P_T[r, c] = p
                dS_T[r, c] = ds
            cuda.syncthreads()
            for e in range(lane, dv, LANES):  # dv_acc += P^T dO_tile, this lane's columns
                total = dtype(0.0)
                for c in range(n_queries):
                    total += P_T[r, c] * dO_tile[c, e]
                dv_acc[e // LANES] += total
            for e in range(lane, d, LANES):  # dk_acc += dS^T Q_tile (Q_tile holds scale * q)
                total = dtype(0.0)
                for c in range(n_queries):
                    total += dS_T[r, c] * Q_tile[c, e]
                dk_acc[e // LANES] += total
            cuda.syncthreads()  # before the next tile overwrites the query tiles
        if active:
            for e in range(lane, d, LANES):
                dk[b, j, e] = dk_acc[e // LANES]
            for e in range(lane, dv, LANES):
                dv_out[b, j, e] = dv_acc[e // LANES]

    return forward, grad_q, grad_kv


# per dtype: the tile and the three kernels, each wrapped in a Launcher (launch.py)
_KERNELS = {
    np.dtype(dtype): (tile, tuple(Launcher(k) for k in _build_kernels(numba_type, tile)))
    for dtype, numba_type, tile in (
        (np.float32, float32, TILE_FLOAT32),
        (np.float64, float64, TILE_FLOAT64),
    )
}


def _forward(dtype, d, dv):
    tile, (forward, _, _) = _KERNELS[dtype]
    return tile, (LANES, tile), forward


def _backward(dtype, d, dv):
    tile, (_, grad_q, grad_kv) = _KERNELS[dtype]
    return tile, (LANES, tile), (grad_q, grad_kv)


def attention_forward(q, k, v, scale, is_causal, mask):
    """out = softmax(scale * q @ k^T + mask) @ v and lse, as the reference, on the GPU:
    device arrays in, device arrays out; one block of (LANES, TILE) threads per (batch
    entry, query tile), launched by `attention_args.launch_forward`."""
    return launch_forward(q, k, v, scale, is_causal, mask, _forward)


def attention_backward(grad_out, q, k, v, out, lse, scale, is_causal, mask):
    """dq, dk, dv, as the reference, recomputing P from q, k and lse on the GPU: one block
    per (batch entry, query tile) for dq, one per (batch entry, key tile) for dk and dv
    (`attention_args.launch_backward`)."""
    return launch_backward(grad_out, q, k, v, out, lse, scale, is_causal, mask, _backward)
