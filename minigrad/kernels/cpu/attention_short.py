"""Attention on the CPU for short sequences (Tq and Tk up to SHORT_T): each head's whole
score matrix at once, a plain softmax, a run of heads per thread.

The FlashAttention kernel (attention.py) exists so that no (Tq, Tk) matrix is ever
held. At T = 64 that matrix is 16 KiB in float32, smaller than the core's L1+L2 share,
and the machinery that avoids it costs more than it saves: one task per head, a running
max and sum rescaled after every key block, per-task scratch, and, before the kernel
starts, whole-array transposed copies of q and dO and a NaN check over every input.
Here, for one head (S^T stored transposed, keys by queries, as in attention.py, so that
the query axis is the contiguous one of every loop):

    forward:   S^T = k (scale q)^T + mask^T            (Tk, Tq)
               m = max over keys of S (a NaN is kept),  P^T = exp(S^T - m),  l = sum of P^T
               out = (P @ v) / l,   lse = m + log(l)
    backward:  P^T = exp(S^T - lse)                     rebuilt, as the reference
               dP^T = v dO^T,   dS^T = P^T * (dP^T - rowsum(dO * O))
               dv = P^T dO,   dk = scale dS^T q,   dq = scale dS k

The causal mask hides key j from queries i < j: in row j of S^T only the queries from j
on are computed, in strips of STRIP keys that start at the strip's first key (the few
hidden entries inside a strip are set to -inf, so their P is exactly 0). That halves
every product and every exp. As in attention.py, skipping is allowed only when the
head's operands are finite: the reference forms P @ v over all keys, so a NaN value
reaches every row (0 * NaN = NaN), and then every entry is computed. The check is one
sum per head, made by the thread that computes the head, instead of one over the whole
batch before the kernel starts.

The heads are independent: each is one task, and `workers.run` (kernels/cpu/workers.py)
hands each thread one contiguous run of them, the kernel's tasks lo .. hi. The kernel
allocates its scratch once for its run, not once per head: a small head is tens of
microseconds of work, next to which that price is not negligible (benchmarks/RESULTS.md).

NaN and Inf come out as from the reference (see attention.py for how, the same tests
check both kernels).

**Compiling.** The forward and the backward share four steps (the scores, the strips'
exp, P times a matrix, a transpose), each a Numba function of its own: its Python-side
compile (typing, lowering) is done once for both, where inlined into each kernel it was
done twice. LLVM still optimises each step again inside each kernel that links it, so
the saving is small; benchmarks/bench_versions.py measures it (benchmarks/RESULTS.md).
``error_model="numpy"``: a float division by zero gives inf or NaN, as NumPy, instead
of Python's ZeroDivisionError, whose checks Numba would otherwise compile in.

Numba's cache: these kernels have vecmath.py's exp_nonpositive32 (and gemm.py's product)
compiled into them, and their cache is checked against this file only: after editing
those, delete the attention_short entries in ``__pycache__`` (or touch this file).
"""

import math

import numpy as np

from minigrad.kernels.cpu import workers
from minigrad.kernels.cpu.gemm import matmul_acc
from minigrad.kernels.cpu.vecmath import all_finite, exp_nonpositive32
from minigrad.kernels.jit import FASTMATH, njit

SHORT_T = 128  # the longest Tq and Tk that take this path: two (Tk, Tq) float64 tiles stay in L2
# keys per causal strip, the rows of each block product; a strip starts at its first key's
# query. Longer strips compute more of the hidden entries (set to -inf, then 0) but make
# fewer, larger BLAS calls: 32 ran 1.1-1.35x faster than 8 at T = 64 and 128 (RESULTS.md)
STRIP = 32


@njit(inline="always")
def first_query(j, Tq, skip):
    """The first query computed in row j of S^T: with `skip` (causal, finite operands), the
    first query of key j's strip (the queries before it cannot see any key of the strip);
    otherwise 0, every query."""
    return min(j - j % STRIP, Tq) if skip else 0


@njit(inline="always")
def rows_from(s, per_query, j, skip):
    """Row j of S^T and a vector over the queries, both from the row's first computed query
    on: slices, so that the loops over them run from 0. A loop from a run-time start is
    not vectorised (for all Numba knows the index could be negative, and it tests each for
    that): the max, shift and sum over these rows ran 4x slower (benchmarks/RESULTS.md)."""
    first = first_query(j, s.shape[1], skip)
    return s[j, first:], per_query[first:]


@njit(fastmath=FASTMATH, cache=True, error_model="numpy", inner=True)
def scores_transposed(s, qt, k, b, maskt, has_mask, is_causal, skip):
    """s[j, lo_j:] = S^T of head b: k_j . (scale q_i) + mask, -inf where the causal mask
    hides key j from query i (j > i). With `skip`, row j starts at lo_j = the first key
    of its strip (the columns before it are never read); else at 0. qt is the head's
    (scale q)^T, (d, Tq); maskt (1 or B, Tk, 1 or Tq)."""
    Tk, Tq = s.shape[0], s.shape[1]
    mb = b if maskt.shape[0] > 1 else 0
    for j0 in range(0, Tk, STRIP):
        nk = min(STRIP, Tk - j0)
        lo = first_query(j0, Tq, skip)
        for c in range(nk):
            s[j0 + c, lo:] = 0.0
        matmul_acc(k[b, j0 : j0 + nk], 0, qt, lo, s[j0 : j0 + nk], lo, Tq - lo)
        for c in range(nk):
            row = s[j0 + c, lo:]  # sliced: see `rows_from`
            if has_mask:
                if maskt.shape[2] == 1:  # the same value for every query
                    value = maskt[mb, j0 + c, 0]
                    for i in range(row.size):
                        row[i] += value
                else:
                    mrow = maskt[mb, j0 + c, lo:]
                    for i in range(row.size):
                        row[i] += mrow[i]
            if is_causal:
                for i in range(min(Tq, j0 + c) - lo):  # queries lo + i < key j0 + c
                    row[i] = -np.inf


@njit(fastmath=FASTMATH, cache=True, error_model="numpy", inner=True)
def transpose_into(dst, src):
    """dst (n, m) = src^T for src (m, n): a head's q or dO with queries innermost."""
    for i in range(src.shape[0]):
        for e in range(src.shape[1]):
            dst[e, i] = src[i, e]


@njit(fastmath=FASTMATH, cache=True, error_model="numpy", inner=True)
def exp_strips(s, skip):
    """s[j, lo_j:] = exp(s[j, lo_j:]) for every row j (all entries <= 0, or NaN), lo_j as
    in scores_transposed: one loop per strip of STRIP rows, over the contiguous memory
    from the strip's first computed entry to its end. The vector loop wants long runs (a
    row shorter than about 32 runs as scalar code), and the entries in between, never
    read, cost less than short loops. e^NaN counts as 0, as in vecmath.py: the kernels
    set NaN rows themselves.

    float32: `exp_nonpositive32`, vecmath.py's one-number e^t, which LLVM inlines into
    the loop and vectorises. GELU and softmax call it too, so a training step compiles
    it once for all of them; the whole-array `exp_nonpositive` that attention.py calls
    would be one more compile (with `exp_constants`). float64 (gradient checks): the C
    library's exp, exact."""
    Tk, Tq = s.shape[0], s.shape[1]
    flat = s.reshape(Tk * Tq)
    for j0 in range(0, Tk, STRIP):
        start, end = j0 * Tq + first_query(j0, Tq, skip), min(j0 + STRIP, Tk) * Tq
        # a slice, indexed from 0: an index that starts at a run-time offset could be
        # negative for all Numba knows, and its test for one stops the vector loop
        strip = flat[start:end]
        if s.itemsize == 4:  # a constant of the type: LLVM drops the other branch
            for t in range(strip.size):
                strip[t] = exp_nonpositive32(strip[t])
        else:
            for t in range(strip.size):
                x = strip[t]
                strip[t] = math.exp(x) if x == x else 0.0


@njit(fastmath=FASTMATH, cache=True, error_model="numpy", inner=True)
def probs_times(out_b, s, x, skip, is_causal):
    """out_b (Tq, n) = P @ x for P^T = s (Tk, Tq), x (Tk, n), query strip by query strip:
    with `skip` (causal), the queries of a strip see the keys up to its last query."""
    Tk, Tq = s.shape[0], s.shape[1]
    out_b[:] = 0.0
    for i0 in range(0, Tq, STRIP):
        ni = min(STRIP, Tq - i0)
        k_end = min(Tk, i0 + ni) if skip else Tk
        if k_end > 0:
            matmul_acc(s.T[i0 : i0 + ni], 0, x[:k_end], 0, out_b[i0 : i0 + ni], 0, x.shape[1])


@njit(nogil=True, fastmath=FASTMATH, cache=True, error_model="numpy")
def _forward(q, k, v, scale, maskt, has_mask, is_causal, out, lse, lo, hi):
    """q (B, Tq, d), k (B, Tk, d), v (B, Tk, dv) -> out (B, Tq, dv), lse (B, Tq) of heads
    lo .. hi (a task is a head; workers.run hands each thread a run of them)."""
    Tq, d = q.shape[1], q.shape[2]
    Tk = k.shape[1]
    s = np.empty((Tk, Tq), q.dtype)  # S^T, then P^T (unnormalised)
    qt = np.empty((d, Tq), q.dtype)
    m = np.empty(Tq, q.dtype)  # each query's max score, then the shift of its exp
    l = np.empty(Tq, q.dtype)  # sum of exp(score - m)
    for b in range(lo, hi):
        skip = is_causal and all_finite(v[b])  # hidden keys add exactly 0 * v
        transpose_into(qt, q[b])
        qt *= scale
        scores_transposed(s, qt, k, b, maskt, has_mask, is_causal, skip)
        m[:] = -np.inf
        l[:] = 0.0
        for j in range(Tk):
            row, top = rows_from(s, m, j, skip)
            # a max that keeps NaN: once a column has one, its softmax is NaN
            for i in range(row.size):
                x = row[i]
                top[i] = x if (x > top[i] or x != x) else top[i]
        # the shift; m = -inf only where l ends 0, and there m is not used again
        for i in range(Tq):
            # a query that sees nothing: exp(-inf - 0) = 0
            m[i] = m[i] if m[i] != -np.inf else 0.0
        for j in range(Tk):
            row, shift = rows_from(s, m, j, skip)
            for i in range(row.size):
                row[i] -= shift[i]
        exp_strips(s, skip)
        for j in range(Tk):
            row, total = rows_from(s, l, j, skip)
            for i in range(row.size):
                total[i] += row[i]
        probs_times(out[b], s, v[b], skip, is_causal)  # unnormalised P @ v
        for i in range(Tq):  # normalise, keep log(sum exp(S))
            if m[i] != m[i] or m[i] == np.inf:  # a NaN or +inf score: softmax of the row is NaN
                inv, lse[b, i] = np.nan, np.nan
            elif l[i] > 0.0:
                inv, lse[b, i] = 1.0 / l[i], m[i] + np.log(l[i])
            # every key hidden from this query: output 0 (0 * v: NaN where v is), as PyTorch
            else:
                inv, lse[b, i] = 0.0, -np.inf
            for e in range(out.shape[2]):
                out[b, i, e] *= inv


@njit(nogil=True, fastmath=FASTMATH, cache=True, error_model="numpy")
def _backward(q, k, v, do, out, lse, scale, maskt, has_mask, is_causal, dq, dk, dv, lo, hi):
    """dq, dk, dv of heads lo .. hi (a task is a head; workers.run hands each thread a run
    of them), from the forward's out and lse (B, Tq). rowsum(dO * O) is made here, head
    by head, on the threads, not by NumPy before the kernel."""
    Tq, d = q.shape[1], q.shape[2]
    Tk, dvv = k.shape[1], v.shape[2]
    p = np.empty((Tk, Tq), q.dtype)  # P^T
    ds = np.empty((Tk, Tq), q.dtype)  # dP^T, then scale dS^T
    qt = np.empty((d, Tq), q.dtype)
    dot = np.empty((dvv, Tq), q.dtype)  # dO^T
    # lse, with +inf where a query sees no key; rowsum(dO * O)
    stats = np.empty((2, Tq), q.dtype)
    row_lse, row_delta = stats[0], stats[1]
    for b in range(lo, hi):
        for i in range(Tq):
            # then P = exp(S - inf) = 0
            row_lse[i] = lse[b, i] if lse[b, i] != -np.inf else np.inf
            total = out[b, i, 0] * 0
            for e in range(dvv):
                total += do[b, i, e] * out[b, i, e]
            row_delta[i] = total
        finite = all_finite(q[b]) and all_finite(k[b]) and all_finite(v[b]) and all_finite(do[b])
        # a NaN row of the output makes its delta (and lse) NaN
        finite = finite and all_finite(stats)
        skip = is_causal and finite
        transpose_into(qt, q[b])
        qt *= scale
        transpose_into(dot, do[b])
        # P^T = exp(S^T - lse), NaN in the columns whose lse is NaN (exp gives 0 there)
        scores_transposed(p, qt, k, b, maskt, has_mask, is_causal, skip)
        for j in range(Tk):
            row, shift = rows_from(p, row_lse, j, skip)
            for i in range(row.size):
                row[i] -= shift[i]
        exp_strips(p, skip)
        if not finite:
            for j in range(Tk):
                row = p[j]
                for i in range(Tq):
                    if row_lse[i] != row_lse[i]:
                        row[i] = row_lse[i]
        # dP^T = v dO^T, key strip by key strip: (nk, dv) @ (dv, Tq - first)
        for j0 in range(0, Tk, STRIP):
            nk, first = min(STRIP, Tk - j0), first_query(j0, Tq, skip)
            for c in range(nk):
                ds[j0 + c, first:] = 0.0
            matmul_acc(v[b, j0 : j0 + nk], 0, dot, first, ds[j0 : j0 + nk], first, Tq - first)
        # scale dS^T = scale P^T * (dP^T - delta): the scale of dq and dk, once
        for j in range(Tk):
            prow, delta = rows_from(p, row_delta, j, skip)
            drow = ds[j, Tq - prow.size :]
            for i in range(prow.size):
                drow[i] = scale * prow[i] * (drow[i] - delta[i])
        # dv = P^T dO and dk = scale dS^T q, key strip by key strip, over the queries that see
        # it
        dv[b] = 0.0
        dk[b] = 0.0
        for j0 in range(0, Tk, STRIP):
            nk, first = min(STRIP, Tk - j0), first_query(j0, Tq, skip)
            if first < Tq:
                matmul_acc(p[j0 : j0 + nk], first, do[b, first:], 0, dv[b, j0 : j0 + nk], 0, dvv)
                matmul_acc(ds[j0 : j0 + nk], first, q[b, first:], 0, dk[b, j0 : j0 + nk], 0, d)
        probs_times(dq[b], ds, k[b], skip, is_causal)  # dq = scale dS k


# ---- the functions attention.py hands short sequences to -------------------------------------
def attention_forward(q, k, v, scale, is_causal, maskt, has_mask):
    """out, lse as attention.attention_forward, maskt as it prepares it."""
    B, Tq, _ = q.shape
    out = np.empty((B, Tq, v.shape[2]), q.dtype)
    lse = np.empty((B, Tq), q.dtype)
    scale, is_causal = q.dtype.type(scale), bool(is_causal)
    workers.run(_forward, B, q, k, v, scale, maskt, has_mask, is_causal, out, lse)  # task: a head
    return out, lse


def attention_backward(grad_out, q, k, v, out, lse, scale, is_causal, maskt, has_mask):
    """dq, dk, dv as attention.attention_backward, maskt as it prepares it."""
    dq, dk, dv = np.empty(q.shape, q.dtype), np.empty(k.shape, q.dtype), np.empty(v.shape, q.dtype)
    scale, is_causal = q.dtype.type(scale), bool(is_causal)
    args = (q, k, v, grad_out, out, lse, scale, maskt, has_mask, is_causal, dq, dk, dv)
    workers.run(_backward, q.shape[0], *args)  # one task per head
    return dq, dk, dv
