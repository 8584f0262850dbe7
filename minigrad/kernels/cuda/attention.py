"""Attention on an NVIDIA GPU, FlashAttention-2's tiles with a register block per thread:
Numba CUDA kernels with the same functions and signatures as the reference. These are
the kernels the backends use for CUDA tensors; `attention_naive.py` (one thread per row)
and `attention_lanes.py` (a few threads per row) are the lesson's earlier versions.

`attention_lanes.py` splits each row of a tile over a few threads, and each thread computes
one score (or one output column) at a time: two reads of shared memory per multiply-add,
and an SM that spends its time on those reads. Here each thread computes a block of RI
rows times CJ columns of a tile, as a matrix product does on a GPU: per step e of a dot
product it reads RI numbers of one tile and CJ of the other into registers and does
RI * CJ multiply-adds with them (16 per 8 reads with 4 x 4, where the lanes do 1 per 2).
The same for the products with V, dO, K and Q.

The block: (TX, TY) threads; thread (tx, ty) owns the rows r = ty + TY * i (i < RI) of the
block's tile, the columns c = tx + TX * j (j < CJ) of a score tile, and the head-dim
columns e = tx + TX * t (t < OJ) of the accumulators. Interleaved, not contiguous: the TX
threads of a row of a warp read TX consecutive rows (or columns) of a tile at once, which
the +1 padding of a tile's rows puts in TX different banks of shared memory.

- forward: a block owns BR queries (Q_tile) and walks the keys BC at a time: K into
  KV_tile, the score block S, the new row maxima (each thread's maximum over its columns,
  then over the TX threads of the row through shared memory), P = exp(S - m) into the
  shared P tile, then V into KV_tile and acc += P V. The sum l of each row stays split
  over its TX threads (a part each, rescaled as the max moves) until the end.
- grad_q: the same walk; per key tile V (for dP = dO V^T), then K (for S, then
  dQ += dS K), with dS = P * (dP - delta) in shared memory.
- grad_kv: a block owns BR keys (K_tile, V_tile) and walks the queries BR at a time (Q,
  dO, lse, delta): S^T = K Q^T and dP^T = V dO^T per thread block, P^T and dS^T into
  shared memory, then dV += P^T dO and dK += dS^T Q.

Static shared memory is limited to 48 KiB a block, so the tiles shrink as a tile row grows:
there is a set of kernels for each dtype and each head-dim bound DIM (32, 64 or 128; a head
dim d runs on the smallest DIM >= d), compiled on first use. The NaN and Inf rules are
those of the other two versions and the reference: a key hidden from a query adds 0 * v_j, and the
tiles the causal mask hides are skipped only when every operand is finite.
"""

import math

import numba
import numpy as np
from numba import cuda, float32, float64

from minigrad.kernels.cuda.attention_args import MAX_DIM, launch_backward, launch_forward
from minigrad.kernels.cuda.launch import Launcher
from minigrad.kernels.reference.attention import as_batches  # noqa: F401 (a reshape, on the GPU too)

SIMULATED = bool(numba.config.ENABLE_CUDASIM)
# the head-dim bounds a set of kernels is built for (on the simulator: tiny, the tests' dims)
DIMS = (4, MAX_DIM) if SIMULATED else (32, 64, MAX_DIM)


def tiles(dtype, dim):
    """(BR, BC, TX, TY): rows and keys per tile, threads per row and rows of threads, for a
    tile row of `dim` + 1 numbers of `dtype`: the three kernels' shared memory under 48 KiB
    (on the simulator: tiles of 4 rows and 6 keys, 2 x 2 threads, so that the tests' short
    sequences cross tile edges and a thread owns 2 rows and 3 columns)."""
    if SIMULATED:
        return 4, 6, 2, 2
    row_bytes = (dim + 1) * np.dtype(dtype).itemsize
    if row_bytes <= 65 * 4:  # float32, d <= 64
        return 32, 64, 16, 8
    if row_bytes <= 65 * 8:  # float32, d <= 128; float64, d <= 64
        return 16, 32, 16, 4
    return 8, 16, 8, 4  # float64, d <= 128: 2 rows a thread (4 spill their registers)


def _build_kernels(array_dtype, DIM):
    """The three kernels for one NumPy dtype and head-dim bound DIM."""
    BR, BC, TX, TY = tiles(array_dtype, DIM)
    dtype = float32 if array_dtype == np.float32 else float64  # Numba's type, in the kernels
    RI, CJ, CJ_KV = BR // TY, BC // TX, BR // TX  # rows and columns a thread owns
    OJ = -(-DIM // TX)  # head-dim columns a thread owns
    COLS = OJ * TX  # the tile columns the threads read: those past d are loaded as 0
    PITCH = max(DIM, COLS) + 1  # +1: consecutive rows of a tile start in different banks
    THREADS = TX * TY
    # constants for the shared arrays' shapes (an expression there would be a runtime value)
    P_COLS, PT_COLS = BC + 1, BR + 1

    @cuda.jit(device=True)
    def load_tile(tile, x, b, start, end, rows, width, factor, tid):
        """tile[r, e] = factor * x[b, start + r, e] for r < rows, e < COLS; 0 past the
        sequence's `end` or the row's `width`. Consecutive threads copy consecutive
        numbers (coalesced reads of global memory)."""
        for flat in range(tid, rows * COLS, THREADS):
            r, e = flat // COLS, flat % COLS
            value = dtype(0.0)
            if start + r < end and e < width:
                value = x[b, start + r, e] * factor
            tile[r, e] = value

    @cuda.jit(device=True)
    def block_product(out, A, B, n, tx, ty, cols):
        """out[i, j] = sum_{e < n} A[ty + TY i, e] * B[tx + TX j, e] for i < RI, j < cols:
        per e, RI + cols reads of shared memory into registers, RI * cols multiply-adds."""
        a = cuda.local.array(RI, dtype)
        bb = cuda.local.array(CJ, dtype)
        for i in range(RI):
            for j in range(cols):
                out[i, j] = 0.0
        for e in range(n):
            for i in range(RI):
                a[i] = A[ty + TY * i, e]
            for j in range(cols):
                bb[j] = B[tx + TX * j, e]
            for i in range(RI):
                for j in range(cols):
                    out[i, j] += a[i] * bb[j]

    @cuda.jit(device=True)
    def add_tile_product(acc, W, X, n, tx, ty):
        """acc[i, t] += sum_{c < n} W[ty + TY i, c] * X[c, tx + TX t]: a shared score tile
        (P, dS, P^T or dS^T) times a shared tile of vectors (V, K, dO or Q)."""
        w = cuda.local.array(RI, dtype)
        x = cuda.local.array(OJ, dtype)
        for c in range(n):
            for i in range(RI):
                w[i] = W[ty + TY * i, c]
            for t in range(OJ):
                x[t] = X[c, tx + TX * t]
            for i in range(RI):
                for t in range(OJ):
                    acc[i, t] += w[i] * x[t]

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
        """A block: the queries i0..i0+BR-1 of entry b. Per key tile: S = Q_tile K_tile^T
        (scaled, plus the mask), the rows' new maxima m, P = exp(S - m), acc += P V_tile,
        with acc and l rescaled by exp(m_old - m)."""
        b, i0 = cuda.blockIdx.x // n_tiles, cuda.blockIdx.x % n_tiles * BR
        tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
        tid = ty * TX + tx
        finite = all_finite[0]  # a flag in GPU memory: reading it on the host would cost a copy
        Q_tile = cuda.shared.array((BR, PITCH), dtype)  # scale * q
        KV_tile = cuda.shared.array((BC, PITCH), dtype)  # K, then V, of a key tile
        P = cuda.shared.array((BR, P_COLS), dtype)
        row_part = cuda.shared.array((BR, TX), dtype)  # a row's maxima (or sums), per thread
        s = cuda.local.array((RI, CJ), dtype)
        acc = cuda.local.array((RI, OJ), dtype)  # sum_j exp(s_j - m) v_j, not yet divided by l
        m = cuda.local.array(RI, dtype)  # running max of each row's scores
        l = cuda.local.array(RI, dtype)  # this thread's part of the running sum of exp(s - m)
        for i in range(RI):
            m[i] = -math.inf
            l[i] = 0.0
            for t in range(OJ):
                acc[i, t] = 0.0
        load_tile(Q_tile, q, b, i0, Tq, BR, d, scale, tid)
        # the key tiles wholly above the diagonal hide every key from every query here
        k_end = min(Tk, i0 + BR) if is_causal and finite else Tk
        for j0 in range(0, k_end, BC):
            load_tile(KV_tile, k, b, j0, Tk, BC, d, 1.0, tid)
            cuda.syncthreads()
            n_keys = min(BC, k_end - j0)
            block_product(s, Q_tile, KV_tile, d, tx, ty, CJ)
            for i in range(RI):
                row = i0 + ty + TY * i
                top = dtype(-math.inf)
                for j in range(CJ):
                    c = tx + TX * j
                    x = dtype(-math.inf)  # past the keys, or hidden by the causal mask
                    if c < n_keys and not (is_causal and j0 + c > row):
                        x = s[i, j]
                        if has_mask and row < Tq:
                            x += mask[b * mask_b, row * mask_q, (j0 + c) * mask_k]
                    s[i, j] = x
                    if x > top or x != x:  # NaN sticks: the row is NaN
                        top = x
                row_part[ty + TY * i, tx] = top
            cuda.syncthreads()
            for i in range(RI):
                m_new = m[i]
                for t in range(TX):
                    x = row_part[ty + TY * i, t]
                    if x > m_new or x != x:
                        m_new = x
                alpha = dtype(1.0)  # rescales what was summed under the old max
                if m_new != m[i]:
                    alpha = math.exp(m[i] - m_new)
                m[i] = m_new
                l[i] *= alpha
                for t in range(OJ):
                    acc[i, t] *= alpha
                for j in range(CJ):
                    x = s[i, j]
                    p = dtype(0.0) if x == -math.inf else math.exp(x - m_new)  # hidden: P = 0
                    P[ty + TY * i, tx + TX * j] = p
                    l[i] += p
            cuda.syncthreads()  # every thread is done with K_tile and has written its P
            load_tile(KV_tile, v, b, j0, Tk, BC, dv, 1.0, tid)
            cuda.syncthreads()
            # a hidden key adds 0 * v_j, as the reference; the rows past the keys are 0
            add_tile_product(acc, P, KV_tile, BC, tx, ty)
            cuda.syncthreads()  # before the next tile overwrites KV_tile and P
        for i in range(RI):
            row_part[ty + TY * i, tx] = l[i]
        cuda.syncthreads()
        for i in range(RI):
            row = i0 + ty + TY * i
            total = dtype(0.0)
            for t in range(TX):
                total += row_part[ty + TY * i, t]
            if row < Tq:
                seen = total != 0.0  # False: no visible key, output 0, lse -inf; NaN is seen
                inv = 1.0 / total if seen else 0.0
                for t in range(OJ):
                    e = tx + TX * t
                    if e < dv:
                        out[b, row, e] = acc[i, t] * inv
                if tx == 0:
                    lse[b, row] = m[i] + math.log(total) if seen else -math.inf

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
        """dQ = scale * dS K with dS = P * (dO V^T - delta). A block: the queries
        i0..i0+BR-1 of entry b, with their Q_tile and dO_tile; per key tile, V (for dP),
        then K (for S and dQ) in KV_tile. lse is +inf for a query that sees no key."""
        b, i0 = cuda.blockIdx.x // n_tiles, cuda.blockIdx.x % n_tiles * BR
        tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
        tid = ty * TX + tx
        finite = all_finite[0]
        Q_tile = cuda.shared.array((BR, PITCH), dtype)
        dO_tile = cuda.shared.array((BR, PITCH), dtype)
        KV_tile = cuda.shared.array((BC, PITCH), dtype)  # V, then K, of a key tile
        dS = cuda.shared.array((BR, P_COLS), dtype)
        s = cuda.local.array((RI, CJ), dtype)
        dp = cuda.local.array((RI, CJ), dtype)
        acc = cuda.local.array((RI, OJ), dtype)
        row_lse = cuda.local.array(RI, dtype)
        row_delta = cuda.local.array(RI, dtype)
        for i in range(RI):
            row = i0 + ty + TY * i
            row_lse[i] = lse[b, row] if row < Tq else math.inf
            row_delta[i] = dlt[b, row] if row < Tq else 0.0
            for t in range(OJ):
                acc[i, t] = 0.0
        load_tile(Q_tile, q, b, i0, Tq, BR, d, scale, tid)
        load_tile(dO_tile, grad_out, b, i0, Tq, BR, dv, 1.0, tid)
        k_end = min(Tk, i0 + BR) if is_causal and finite else Tk
        for j0 in range(0, k_end, BC):
            load_tile(KV_tile, v, b, j0, Tk, BC, dv, 1.0, tid)
            cuda.syncthreads()
            block_product(dp, dO_tile, KV_tile, dv, tx, ty, CJ)  # dP = dO V^T
            cuda.syncthreads()  # every thread is done with V_tile
            load_tile(KV_tile, k, b, j0, Tk, BC, d, 1.0, tid)
            cuda.syncthreads()
            block_product(s, Q_tile, KV_tile, d, tx, ty, CJ)  # S = scale * Q K^T
            n_keys = min(BC, k_end - j0)
            for i in range(RI):
                row = i0 + ty + TY * i
                for j in range(CJ):
                    c = tx + TX * j
                    ds = dtype(0.0)  # P = 0 and all is finite: dS = 0
                    if c < n_keys and row < Tq:
                        x = dtype(-math.inf)
                        if not (is_causal and j0 + c > row):
                            x = s[i, j]
                            if has_mask:
                                x += mask[b * mask_b, row * mask_q, (j0 + c) * mask_k]
                        if not (finite and (x == -math.inf or row_lse[i] == math.inf)):
                            p = math.exp(x - row_lse[i])  # P rebuilt from the saved lse
                            ds = p * (dp[i, j] - row_delta[i])
                    dS[ty + TY * i, c] = ds
            cuda.syncthreads()
            add_tile_product(acc, dS, KV_tile, BC, tx, ty)  # dQ += dS K_tile
            cuda.syncthreads()  # before the next tile overwrites KV_tile and dS
        for i in range(RI):
            row = i0 + ty + TY * i
            if row < Tq:
                for t in range(OJ):
                    e = tx + TX * t
                    if e < d:
                        dq[b, row, e] = acc[i, t] * scale

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
        """dV = P^T dO and dK = scale * dS^T Q. A block: the keys j0..j0+BR-1 of entry b,
        with their K_tile and V_tile; it walks the queries BR at a time (Q_tile, dO_tile,
        lse, delta). A thread's block: keys j0 + ty + TY i, queries tx + TX j of a tile."""
        b, j0 = cuda.blockIdx.x // n_tiles, cuda.blockIdx.x % n_tiles * BR
        tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
        tid = ty * TX + tx
        finite = all_finite[0]
        K_tile = cuda.shared.array((BR, PITCH), dtype)
        V_tile = cuda.shared.array((BR, PITCH), dtype)
        Q_tile = cuda.shared.array((BR, PITCH), dtype)  # scale * q
        dO_tile = cuda.shared.array((BR, PITCH), dtype)
        lse_tile = cuda.shared.array(BR, dtype)
        delta_tile = cuda.shared.array(BR, dtype)
        P_T = cuda.shared.array((BR, PT_COLS), dtype)  # P^T: a key per row, a query per column
        dS_T = cuda.shared.array((BR, PT_COLS), dtype)
        s = cuda.local.array((RI, CJ), dtype)  # S^T, then P^T, of this thread's block
        dp = cuda.local.array((RI, CJ), dtype)  # dP^T = V dO^T
        dk_acc = cuda.local.array((RI, OJ), dtype)
        dv_acc = cuda.local.array((RI, OJ), dtype)
        for i in range(RI):
            for t in range(OJ):
                dk_acc[i, t] = 0.0
                dv_acc[i, t] = 0.0
        load_tile(K_tile, k, b, j0, Tk, BR, d, 1.0, tid)
        load_tile(V_tile, v, b, j0, Tk, BR, dv, 1.0, tid)
        # the query tiles wholly above the diagonal (earlier queries) see none of these keys
        i_start = j0 if is_causal and finite else 0
        for i0 in range(i_start, Tq, BR):
            load_tile(Q_tile, q, b, i0, Tq, BR, d, scale, tid)
            load_tile(dO_tile, grad_out, b, i0, Tq, BR, dv, 1.0, tid)
            if tid < BR:
                lse_tile[tid] = lse[b, i0 + tid] if i0 + tid < Tq else math.inf
                delta_tile[tid] = dlt[b, i0 + tid] if i0 + tid < Tq else 0.0
            cuda.syncthreads()
            block_product(s, K_tile, Q_tile, d, tx, ty, CJ_KV)  # S^T = scale * K Q^T
            block_product(dp, V_tile, dO_tile, dv, tx, ty, CJ_KV)  # dP^T = V dO^T
            n_queries = min(BR, Tq - i0)
            for i in range(RI):
                key = j0 + ty + TY * i
                for j in range(CJ_KV):
                    c = tx + TX * j
                    query = i0 + c
                    p, ds = dtype(0.0), dtype(0.0)  # P = 0 and all is finite: nothing to add
                    if key < Tk and c < n_queries:
                        hidden = is_causal and key > query
                        if not (finite and (hidden or lse_tile[c] == math.inf)):
                            x = dtype(-math.inf)
                            if not hidden:
                                x = s[i, j]
                                if has_mask:
                                    x += mask[b * mask_b, query * mask_q, key * mask_k]
                            if not (finite and x == -math.inf):
                                p = math.exp(x - lse_tile[c])
                                ds = p * (dp[i, j] - delta_tile[c])
                    P_T[ty + TY * i, c] = p
                    dS_T[ty + TY * i, c] = ds
            cuda.syncthreads()
            add_tile_product(dv_acc, P_T, dO_tile, BR, tx, ty)  # dV += P^T dO
            add_tile_product(dk_acc, dS_T, Q_tile, BR, tx, ty)  # dK += dS^T (scale * Q)
            cuda.syncthreads()  # before the next tile overwrites the query tiles
        for i in range(RI):
            key = j0 + ty + TY * i
            if key < Tk:
                for t in range(OJ):
                    e = tx + TX * t
                    if e < d:
                        dk[b, key, e] = dk_acc[i, t]
                    if e < dv:
                        dv_out[b, key, e] = dv_acc[i, t]

    return forward, grad_q, grad_kv


_KERNELS = {}  # (dtype, DIM) -> ((BR, BC, TX, TY), (forward, grad_q, grad_kv))


def kernels_for(dtype, d):
    """The tiles and the three kernels for arrays of `dtype` and head dims up to `d`, built
    the first time they are asked for (Numba compiles each on its first launch), each
    wrapped in a `Launcher` (launch.py: its arguments typed once)."""
    dim = next(bound for bound in DIMS if bound >= d)
    key = (np.dtype(dtype), dim)
    if key not in _KERNELS:
        _KERNELS[key] = (tiles(*key), tuple(Launcher(k) for k in _build_kernels(*key)))
    return _KERNELS[key]


def _forward(dtype, d, dv):
    (BR, _, TX, TY), (forward, _, _) = kernels_for(dtype, max(d, dv))
    return BR, (TX, TY), forward


def _backward(dtype, d, dv):
    (BR, _, TX, TY), (_, grad_q, grad_kv) = kernels_for(dtype, max(d, dv))
    return BR, (TX, TY), (grad_q, grad_kv)


def attention_forward(q, k, v, scale, is_causal, mask):
    """out = softmax(scale * q @ k^T + mask) @ v and lse, as the reference, on the GPU:
    device arrays in, device arrays out; one block of (TX, TY) threads per (batch entry,
    tile of BR queries), launched by `attention_args.launch_forward`."""
    return launch_forward(q, k, v, scale, is_causal, mask, _forward)


def attention_backward(grad_out, q, k, v, out, lse, scale, is_causal, mask):
    """dq, dk, dv, as the reference, recomputing P from q, k and lse on the GPU: one block
    per (batch entry, tile of BR queries) for dq, one per (batch entry, tile of BR keys) for
    dk and dv (`attention_args.launch_backward`)."""
    return launch_backward(grad_out, q, k, v, out, lse, scale, is_causal, mask, _backward)
