"""Attention on the CPU: a fused Numba kernel with online softmax (FlashAttention's
algorithm), the same functions and signatures as the reference.

The reference builds the whole (Tq, Tk) score matrix, which at T = 4096 and 8 heads is
512 MiB in float32, and its backward needs several of them. Here no such matrix exists.
The queries are cut into blocks of BLOCK_Q, the keys into blocks of BLOCK_K, and one
(BLOCK_K, BLOCK_Q) tile of scores is alive at a time per thread:

    forward, for each query block (in parallel):
        m = -inf, l = 0, acc = 0                      running max, sum, unnormalised output
        for each key block:
            S = tile of scores
            m_new = max(m, max of S);  alpha = exp(m - m_new)
            P = exp(S - m_new);  l = l * alpha + sum of P;  acc = acc * alpha + P @ V
            m = m_new
        out = acc / l,  lse = m + log(l)

    backward, for each key block (each thread owns its own key blocks):
        for each query block that sees it:
            P = exp(S - lse) rebuilt from the saved lse, dP = dO @ V^T
            dS = P * (dP - rowsum(dO * O))
            dV_block += P^T @ dO,  dK_block += scale dS^T @ q,  dQ += scale dS @ K

Memory is O(T d): the inputs, two transposed copies, the gradients, per-thread tiles.

The outer loops above are cut into independent tasks: a (batch entry, query block) in
the forward, a (batch entry, group of key blocks) in the backward. `_forward` and
`_backward` are serial kernels that run the tasks lo .. hi, and `workers.run`
(kernels/cpu/workers.py) cuts the tasks into one block per thread and runs the blocks
at the same time.

Short sequences (Tq and Tk up to attention_short.SHORT_T = 128) do not come here: at that
size a head's whole score matrix fits in cache, and attention_short.py computes it at
once with a plain softmax, several heads per task (the wrappers below hand it over).

NaN and Inf come out exactly as from the reference, whose softmax row is all NaN when
one of its scores is NaN or +inf. The running max keeps a NaN (a plain `max` would drop
it), and a row whose max ends NaN or +inf gets a NaN output and lse; the backward's P is
NaN in the rows whose lse is NaN. (`exp_nonpositive` itself gives 0 for NaN: handling
NaN once per row keeps its vector loop as short as it was.) The reference forms P @ v
over all keys, so a NaN value v_j reaches even the rows that cannot see key j
(0 * NaN = NaN). Skipping the key blocks that the causal mask hides would lose that, so
the blocks are skipped only when the operands are finite (`finite`, one cheap check per
call); otherwise every block is walked.

Layout. Every tile is stored *transposed*, (keys, queries), so that the query index is
the innermost, contiguous axis of every array the loops stream through: the softmax
statistics (m, l, lse) are then per-column vectors, every elementwise step is a loop
over queries, and the small matrix products all have the long query axis innermost.
That is why the wrappers pass (scale q)^T and, to the backward, dO^T (made once, O(T d), by
`_transposed` on every core).

Speed. Numba compiles plain loops, so the matrix products of each tile are written out
(`matmul_acc`, in kernels/cpu/gemm.py, shared with the convolution kernels), blocked
over 4 rows and 4 terms so that each loaded vector feeds many multiply-adds (a naive
loop is limited by loads and stores, not by arithmetic). And
`exp` is written out (`exp_nonpositive`, in kernels/cpu/vecmath.py): Numba's own `np.exp`
calls the C library once per number, which costs as much as the whole matrix work here
(benchmarks/RESULTS.md); the written-out one vectorises.
"""

import numpy as np

from minigrad.kernels.cpu import attention_short, workers
from minigrad.kernels.cpu.gemm import matmul_acc
from minigrad.kernels.cpu.vecmath import all_finite_arrays, exp_constants, exp_nonpositive
from minigrad.kernels.jit import FASTMATH, njit
from minigrad.kernels.reference import attention as reference

BLOCK_Q = 128  # queries per tile: the contiguous axis, long enough for the vector loops
BLOCK_K = 64  # keys per tile


@njit(fastmath=FASTMATH, cache=True)
def score_tile(s, k, qt, b, j0, nk, i0, n, maskt, has_mask, is_causal):
    """s[:nk, :n] = the scores of keys j0.. against queries i0.., transposed:
    S^T = k_block @ (scale q_block)^T, (nk, d) @ (d, n), plus the mask, and -inf where
    the causal mask hides key j from query i (j > i). maskt is the mask transposed,
    (1 or B, Tk, 1 or Tq)."""
    for c in range(nk):
        s[c, :n] = 0.0
    matmul_acc(k[b, j0 : j0 + nk], 0, qt[b], i0, s, 0, n)
    if has_mask:
        mb = b if maskt.shape[0] > 1 else 0
        for c in range(nk):
            row = s[c][:n]
            if maskt.shape[2] == 1:  # the same value for every query
                value = maskt[mb, j0 + c, 0]
                for i in range(n):
                    row[i] += value
            else:
                mrow = maskt[mb, j0 + c][i0 : i0 + n]
                for i in range(n):
                    row[i] += mrow[i]
    if is_causal and j0 + nk - 1 > i0:  # the tile reaches above the diagonal
        for c in range(nk):
            row = s[c][:n]
            for i in range(min(n, max(0, j0 + c - i0))):  # queries i0 + i < key j0 + c
                row[i] = -np.inf


@njit(fastmath=FASTMATH, cache=True)
def forward_block(qt, k, v, maskt, has_mask, is_causal, finite, b, i0, out, lse):
    """Output rows and lse of queries i0 .. i0 + BLOCK_Q of batch entry b: online
    softmax over the key blocks, every tile (keys or features, queries). `finite`: v
    holds no NaN or Inf, so the key blocks hidden from every query here add exactly 0."""
    Tq = qt.shape[2]
    Tk, dv = k.shape[1], v.shape[2]
    n = min(BLOCK_Q, Tq - i0)  # queries in this block
    s = np.empty((BLOCK_K, BLOCK_Q), qt.dtype)  # scores, then probabilities
    acc = np.zeros((dv, BLOCK_Q), qt.dtype)  # unnormalised output, transposed
    m = np.full(BLOCK_Q, -np.inf, qt.dtype)  # running max of each query's scores
    l = np.zeros(BLOCK_Q, qt.dtype)  # running sum of exp(score - m)
    shift = np.empty(BLOCK_Q, qt.dtype)  # the new max, 0 while a query has seen nothing
    alpha = np.empty(BLOCK_Q, qt.dtype)  # exp(old max - new max): rescales l and acc
    scratch = np.empty(BLOCK_Q, qt.dtype)
    consts = exp_constants(qt)
    # later keys are hidden from all n queries
    k_end = min(Tk, i0 + n) if is_causal and finite else Tk
    for j0 in range(0, k_end, BLOCK_K):
        nk = min(BLOCK_K, k_end - j0)
        # 1. the scores S^T (nk, n)
        score_tile(s, k, qt, b, j0, nk, i0, n, maskt, has_mask, is_causal)
        # 2. each query's new running max, and alpha = exp(m_old - m_new)
        for i in range(n):
            shift[i] = m[i]
        for c in range(nk):
            row = s[c][:n]
            for i in range(n):  # a max that keeps NaN: once a row has one, its softmax is NaN
                x, top = row[i], shift[i]
                shift[i] = x if (x > top or x != x) else top
        for i in range(n):
            seen = shift[i] != -np.inf  # NaN counts as seen (the row ends NaN): P <= 0 always
            alpha[i] = m[i] - shift[i] if seen else 0.0  # exp(0) = 1 while nothing is seen
            m[i] = shift[i]
            shift[i] = shift[i] if seen else 0.0  # so that exp(-inf - shift) = 0
        exp_nonpositive(alpha[:n], consts, scratch)
        # 3. P = exp(S - m_new);  l = l * alpha + sum of P;  acc = acc * alpha + v^T P
        for i in range(n):
            l[i] *= alpha[i]
        for e in range(dv):
            row = acc[e][:n]
            for i in range(n):
                row[i] *= alpha[i]
        for c in range(nk):
            row = s[c][:n]
            for i in range(n):
                row[i] -= shift[i]
            exp_nonpositive(row, consts, scratch)
            for i in range(n):
                l[i] += row[i]
        matmul_acc(v[b, j0 : j0 + nk].T, 0, s[:nk], 0, acc, 0, n)  # v_block^T P: (dv, nk) @ (nk, n)
    for i in range(n):  # normalise, write the output row, keep log(sum exp(S))
        if m[i] != m[i] or m[i] == np.inf:  # a NaN or +inf score: softmax of the row is NaN
            inv, lse[b, i0 + i] = np.nan, np.nan
        elif l[i] > 0.0:
            inv, lse[b, i0 + i] = 1.0 / l[i], m[i] + np.log(l[i])
        else:  # every key hidden from this query: output 0 (0 * v: NaN where v is), as PyTorch
            inv, lse[b, i0 + i] = 0.0, -np.inf
        for e in range(dv):
            out[b, i0 + i, e] = acc[e, i] * inv


@njit(nogil=True, cache=True)
def _forward(qt, k, v, maskt, has_mask, is_causal, finite, out, lse, lo, hi):
    """qt (B, d, Tq) = (scale q)^T, k (B, Tk, d), v (B, Tk, dv) -> out (B, Tq, dv),
    lse (B, Tq). The (batch entry, query block) pairs are independent: one per task,
    tasks lo .. hi here (workers.run hands each thread its block of them)."""
    Tq = qt.shape[2]
    n_blocks = (Tq + BLOCK_Q - 1) // BLOCK_Q
    for task in range(lo, hi):
        forward_block(
            qt,
            k,
            v,
            maskt,
            has_mask,
            is_causal,
            finite,
            task // n_blocks,
            (task % n_blocks) * BLOCK_Q,
            out,
            lse,
        )


@njit(fastmath=FASTMATH, cache=True)
def backward_keys(
    qt,
    q,
    k,
    v,
    dot,
    do,
    lse,
    delta,
    maskt,
    has_mask,
    is_causal,
    finite,
    b,
    g,
    groups,
    dq_part,
    dk,
    dv,
):
    """dk / scale and dv of the key blocks g, g + groups, g + 2 groups, ... of batch
    entry b, and their terms of dq^T / scale, added to dq_part (d, Tq). For each key
    block, every query block that sees it (every query block unless `finite`): rebuild
    P^T, then dP^T, dS^T, three products."""
    d, Tq = qt.shape[1], qt.shape[2]
    Tk, dvv = k.shape[1], v.shape[2]
    p = np.empty((BLOCK_K, BLOCK_Q), qt.dtype)  # P^T tile (keys, queries)
    ds = np.empty((BLOCK_K, BLOCK_Q), qt.dtype)  # dP^T, then dS^T
    dk_acc = np.empty((BLOCK_K, d), qt.dtype)
    dv_acc = np.empty((BLOCK_K, dvv), qt.dtype)
    scratch = np.empty(BLOCK_Q, qt.dtype)
    consts = exp_constants(qt)
    for j0 in range(g * BLOCK_K, Tk, groups * BLOCK_K):
        nk = min(BLOCK_K, Tk - j0)
        dk_acc[:] = 0.0
        dv_acc[:] = 0.0
        # queries i < j0 see none of these keys
        q_start = (j0 // BLOCK_Q) * BLOCK_Q if is_causal and finite else 0
        for i0 in range(q_start, Tq, BLOCK_Q):
            n = min(BLOCK_Q, Tq - i0)
            # P^T = exp(S^T - lse)
            score_tile(p, k, qt, b, j0, nk, i0, n, maskt, has_mask, is_causal)
            row_lse = lse[b][i0 : i0 + n]
            for c in range(nk):
                row = p[c][:n]
                for i in range(n):
                    row[i] -= row_lse[i]
                exp_nonpositive(row, consts, scratch)
            # exp gave 0 where lse is NaN (a row whose softmax is NaN): P is NaN there
            if not finite:
                for c in range(nk):
                    row = p[c][:n]
                    for i in range(n):
                        if row_lse[i] != row_lse[i]:
                            row[i] = row_lse[i]
            # dP^T = v_block @ dO^T: (nk, dv) @ (dv, n)
            for c in range(nk):
                ds[c, :n] = 0.0
            matmul_acc(v[b, j0 : j0 + nk], 0, dot[b], i0, ds, 0, n)
            # dS^T = P^T * (dP^T - rowsum(dO * O))
            row_delta = delta[b][i0 : i0 + n]
            for c in range(nk):
                prow, drow = p[c][:n], ds[c][:n]
                for i in range(n):
                    drow[i] = prow[i] * (drow[i] - row_delta[i])
            # dv += P^T dO: (nk, n) @ (n, dv)
            matmul_acc(p[:nk], 0, do[b][i0 : i0 + n], 0, dv_acc, 0, dvv)
            # dk += dS^T q: (nk, n) @ (n, d)
            matmul_acc(ds[:nk], 0, q[b][i0 : i0 + n], 0, dk_acc, 0, d)
            # dq^T += k^T dS^T: (d, nk) @ (nk, n)
            matmul_acc(k[b, j0 : j0 + nk].T, 0, ds[:nk], 0, dq_part, i0, n)
        # element by element: an array-to-array slice assignment (dk[b, j0:j0 + nk] = dk_acc[:nk])
        # makes Numba compile its shape-mismatch error message, several seconds of compile time
        for c in range(nk):
            for e in range(d):
                dk[b, j0 + c, e] = dk_acc[c, e]
            for e in range(dvv):
                dv[b, j0 + c, e] = dv_acc[c, e]


@njit(nogil=True, cache=True)
def _backward(
    qt,
    q,
    k,
    v,
    dot,
    do,
    lse,
    delta,
    maskt,
    has_mask,
    is_causal,
    finite,
    groups,
    dq_parts,
    dk,
    dv,
    lo,
    hi,
):
    """The FlashAttention backward. qt (B, d, Tq) = (scale q)^T, q (B, Tq, d), k (B, Tk, d),
    v (B, Tk, dv); dot (B, dv, Tq) and do (B, Tq, dv): the output gradient in both
    layouts; lse (+inf for a query that sees no key, so that its P is 0) and
    delta = rowsum(dO * O), (B, Tq); finite: no NaN or Inf in any of them, so the
    (key, query) blocks the causal mask hides can be skipped. Writes dk / scale, dv and
    dq_parts (dq^T / scale).

    One task per (batch entry b, group g of key blocks), tasks lo .. hi here (workers.run
    hands each thread its block of them). dk and dv of a key block are written by the
    one task that owns the block. dq of a query gets a term from every key block, so
    group g adds its terms to its own dq_parts[g] (groups, B, d, Tq), and the caller
    sums the groups: no two tasks ever write the same memory. With many batch entries,
    groups = 1 and dq_parts[0] is dq^T.
    """
    for task in range(lo, hi):
        b, g = task // groups, task % groups
        backward_keys(
            qt,
            q,
            k,
            v,
            dot,
            do,
            lse,
            delta,
            maskt,
            has_mask,
            is_causal,
            finite,
            b,
            g,
            groups,
            dq_parts[g, b],
            dk,
            dv,
        )


@njit(nogil=True, cache=True)
def _transposed(x, scale, xt, lo, hi):
    """xt[b] = scale x[b]^T for x (B, T, d), xt (B, d, T): the queries innermost, as the
    kernels read q and dO. A task is (batch entry, block of BLOCK_Q rows of x), so that the
    copy, O(T d) but up to a tenth of a call at T = 512, runs on every core too."""
    T, d = x.shape[1], x.shape[2]
    n_blocks = (T + BLOCK_Q - 1) // BLOCK_Q
    for task in range(lo, hi):
        b, t0 = task // n_blocks, (task % n_blocks) * BLOCK_Q
        t1 = min(T, t0 + BLOCK_Q)
        for e in range(d):  # row e of xt is written in order; the block of x stays in cache
            row = xt[b, e]
            for t in range(t0, t1):
                row[t] = x[b, t, e] * scale


def _transpose(x, scale):
    """scale x^T per batch entry, (B, T, d) -> (B, d, T) C order, on every core."""
    B, T, d = x.shape
    xt = np.empty((B, d, T), x.dtype)
    tasks = B * -(-T // BLOCK_Q)  # (batch entry, block of rows)
    workers.run(_transposed, tasks, np.ascontiguousarray(x), x.dtype.type(scale), xt)
    return xt


# ---- the functions the autograd Function calls ---------------------------------------------
MIN_SPLIT_COPY = 262144  # elements: a strided q, k, v or dO is copied by every thread from here


def as_batches(x):
    """x (..., T, d) as (B, T, d), B every leading dim, as the reference's: a view where
    the memory allows, else a copy in C order, made by every thread for a large x (the
    heads of a multi-head layer are strided views of its projection: one copy per input
    and per pass, on one core the larger part of a short attention call's wait)."""
    if not x.flags.c_contiguous:
        x = workers.contiguous(x, split=x.size >= MIN_SPLIT_COPY)
    return reference.as_batches(x)  # now a view


def _mask_transposed(mask, B, Tq, Tk, dtype):
    """The mask as the kernels read it, (1 or B, Tk, 1 or Tq) contiguous, and whether
    there is one. Without a mask a (1, 1, 1) dummy keeps the compiled signature the same."""
    if mask is None:
        return np.zeros((1, 1, 1), dtype), False
    mask = np.asarray(mask, dtype=dtype).reshape((1,) * (3 - np.ndim(mask)) + np.shape(mask))
    Bm, Tqm = mask.shape[0], mask.shape[1]
    full = np.broadcast_to(mask, (Bm, Tqm, Tk))  # spell out the keys axis, keep the others
    return np.ascontiguousarray(full.transpose(0, 2, 1)), True


def attention_forward(q, k, v, scale, is_causal, mask):
    """out = softmax(scale * q @ k^T + mask) @ v and lse, as the reference, in O(T d) memory.
    q (B, Tq, d), k (B, Tk, d), v (B, Tk, dv) -> out (B, Tq, dv), lse (B, Tq)."""
    B, Tq, _ = q.shape
    Tk, dv = k.shape[1], v.shape[2]
    if max(Tq, Tk) <= attention_short.SHORT_T:  # the whole score matrix of a head fits in cache
        maskt, has_mask = _mask_transposed(mask, B, Tq, Tk, q.dtype)
        q, k, v = (np.ascontiguousarray(a) for a in (q, k, v))
        return attention_short.attention_forward(q, k, v, scale, is_causal, maskt, has_mask)
    scale = q.dtype.type(scale)
    qt = _transpose(q, scale)  # (B, d, Tq): queries innermost
    maskt, has_mask = _mask_transposed(mask, B, Tq, Tk, q.dtype)
    out = np.empty((B, Tq, dv), q.dtype)
    lse = np.empty((B, Tq), q.dtype)
    # the keys the causal mask hides add 0 * v to the output: skip them
    finite = all_finite_arrays(v)
    tasks = B * -(-Tq // BLOCK_Q)  # (batch entry, query block)
    workers.run(
        _forward,
        tasks,
        qt,
        np.ascontiguousarray(k),
        np.ascontiguousarray(v),
        maskt,
        has_mask,
        bool(is_causal),
        finite,
        out,
        lse,
    )
    return out, lse


def attention_backward(grad_out, q, k, v, out, lse, scale, is_causal, mask):
    """dq, dk, dv, as the reference, recomputing the scores tile by tile from q, k and lse."""
    B, Tq, d = q.shape
    Tk = k.shape[1]
    dtype = q.dtype
    scale = dtype.type(scale)
    q, k, v = (np.ascontiguousarray(a) for a in (q, k, v))
    grad_out = np.ascontiguousarray(grad_out, dtype=dtype)
    if max(Tq, Tk) <= attention_short.SHORT_T:  # the whole score matrix of a head fits in cache
        maskt, has_mask = _mask_transposed(mask, B, Tq, Tk, dtype)
        out, lse = (np.ascontiguousarray(a, dtype=dtype) for a in (out, lse))
        short = attention_short.attention_backward
        return short(grad_out, q, k, v, out, lse, scale, is_causal, maskt, has_mask)
    # rowsum(dO * O): (B, Tq), no (B, Tq, dv) temporary
    delta = np.einsum("bie,bie->bi", grad_out, out)
    # a query that sees no key: P = exp(S - inf) = 0
    lse = np.where(lse == -np.inf, np.inf, lse).astype(dtype)
    if B == 0:  # no batch entries: nothing to compute (and no tasks to split among threads)
        return np.zeros((0, Tq, d), dtype), np.zeros((0, Tk, d), dtype), np.zeros(v.shape, dtype)
    maskt, has_mask = _mask_transposed(mask, B, Tq, Tk, dtype)
    # Enough independent tasks for every thread: split each batch entry's key blocks
    # into groups when there are fewer batch entries than twice the threads.
    n_kblocks = -(-Tk // BLOCK_K)
    groups = max(1, min(n_kblocks, -(-2 * workers.count() // B)))
    dq_parts = np.zeros((groups, B, d, Tq), dtype)
    dk = np.empty((B, Tk, d), dtype)
    dv = np.empty(v.shape, dtype)
    qt = _transpose(q, scale)  # (B, d, Tq)
    dot = _transpose(grad_out, 1.0)  # (B, dv, Tq): times 1 is exact
    # the hidden blocks add exactly 0 when all is finite (a NaN output, or lse, makes delta NaN)
    finite = all_finite_arrays(q, k, v, grad_out, delta)
    workers.run(
        _backward,
        B * groups,  # (batch entry, group of key blocks)
        qt,
        q,
        k,
        v,
        dot,
        grad_out,
        lse,
        delta,
        maskt,
        has_mask,
        bool(is_causal),
        finite,
        groups,
        dq_parts,
        dk,
        dv,
    )
    dq = dq_parts.sum(axis=0) if groups > 1 else dq_parts[0]  # (B, d, Tq)
    dq *= scale  # in place: the kernel summed dS k without the scale, and dS^T q for dk
    dk *= scale
    return dq.transpose(0, 2, 1), dk, dv
