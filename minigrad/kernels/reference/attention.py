"""Scaled dot-product attention in NumPy: a matrix product, a stable softmax, another
matrix product. This is the reference every other backend is tested against.

For one batch entry (one head of one sample), with queries q (Tq, d), keys k (Tk, d)
and values v (Tk, dv):

    S = scale * q @ k^T + mask        (Tq, Tk)   how well each query matches each key
    P = softmax(S) along each row      (Tq, Tk)   the attention weights, rows sum to 1
    O = P @ v                          (Tq, dv)   each output row: a weighted mean of values

The arrays here are 3-D, (B, T, d), with B every leading dim of the caller flattened
into one. `mask` is None or an additive float array broadcastable to (B, Tq, Tk)
(0 where a query may attend, -inf where not); `is_causal` masks key j for query i when
j > i (the lower triangle of a (Tq, Tk) matrix, aligned at the top left, as PyTorch).

Both passes hold the whole (B, Tq, Tk) score matrix: memory grows as T^2. The CPU and
CUDA kernels compute the same numbers block by block, in O(T d) memory.

A row whose keys are all masked has no weights to share out; it gives a zero output and
zero gradients (PyTorch does the same), and its log-sum-exp is -inf.

NaN and Inf propagate by plain IEEE arithmetic, as in PyTorch: a NaN or +inf score
makes its whole row of P NaN (and its lse NaN), so the output row is NaN, and a NaN
or Inf value v_j reaches every output row through P @ v, even a row with P_ij = 0
(0 * NaN = NaN). The causal mask *replaces* a hidden score by -inf (a NaN key the
causal mask hides from a query does not reach it, as in PyTorch's fused kernels); an
attn_mask is *added* (NaN + -inf is NaN). The CPU and CUDA kernels give the same
NaN and Inf, and are tested for it.

Written with NumPy's names, on NumPy or CuPy arrays (`minigrad/array_module.py`): the
same code runs on CUDA tensors' arrays, on the GPU.
"""

import math

import numpy as np

from minigrad.array_module import array_module


def as_batches(x):
    """x (..., T, d) as the (B, T, d) these functions take, B every leading dim: a view
    where the memory allows (a reshape), else a copy in C order."""
    return x.reshape(math.prod(x.shape[:-2]), *x.shape[-2:])


# --8<-- [start:scores]
def causal_mask(Tq, Tk, xp=np):
    """(Tq, Tk) bool, True where query i may see key j: j <= i (top-left aligned), made by
    array module `xp` (numpy, or cupy for the GPU)."""
    return xp.tril(xp.ones((Tq, Tk), dtype=bool))


def attention_scores(q, k, scale, is_causal, mask):
    """S = scale * q @ k^T + mask, with -inf where the causal mask forbids: (B, Tq, Tk)."""
    scores = (q @ k.transpose(0, 2, 1)) * scale  # (B, Tq, d) @ (B, d, Tk) -> (B, Tq, Tk)
    if mask is not None:
        scores = scores + mask  # (B or 1, Tq or 1, Tk) broadcasts over the rows it lacks
    if is_causal:
        scores = np.where(causal_mask(q.shape[1], k.shape[1], array_module(q)), scores, -np.inf)
    return scores
    # --8<-- [end:scores]


def attention_forward(q, k, v, scale, is_causal, mask):
    """out = softmax(scale * q @ k^T + mask) @ v, and the log-sum-exp of each row.

    q (B, Tq, d), k (B, Tk, d), v (B, Tk, dv) -> out (B, Tq, dv), lse (B, Tq).
    lse = log(sum_j exp(S_ij)) is all the backward pass needs to rebuild P from S.
    """
    scores = attention_scores(q, k, scale, is_causal, mask)  # (B, Tq, Tk)
    # Stable softmax: exp(S - max) never overflows, and the shift cancels in the ratio.
    # BEGIN SOLUTION hint: a stable softmax along the last axis: subtract each row's max before exp (a fully masked row has max -inf: use 0 there and give it zero weights); out = P @ v; lse = row max + log(row sum), shape (B, Tq)
    row_max = scores.max(axis=-1, keepdims=True)  # (B, Tq, 1)
    # A fully masked row: -inf -> 0 so that exp(-inf - 0) = 0. NaN and +inf stay: they
    # make the row NaN, as softmax of a row holding a NaN or +inf is.
    row_max = np.where(row_max == -np.inf, 0.0, row_max)
    weights = np.exp(scores - row_max)  # (B, Tq, Tk), in [0, 1]; masked entries exp(-inf) = 0
    row_sum = weights.sum(axis=-1, keepdims=True)  # (B, Tq, 1), >= 1 unless fully masked
    seen = row_sum > 0
    probs = weights / np.where(seen, row_sum, 1.0)  # P: (B, Tq, Tk), fully masked rows stay 0
    out = probs @ v  # (B, Tq, Tk) @ (B, Tk, dv) -> (B, Tq, dv)
    with np.errstate(divide="ignore"):  # log(0) = -inf for a fully masked row, on purpose
        lse = (row_max + np.log(row_sum))[..., 0]  # (B, Tq)
    # END SOLUTION
    return out, lse


def attention_backward(grad_out, q, k, v, out, lse, scale, is_causal, mask):
    """dq, dk, dv of out = P @ v, P = softmax(S), S = scale * q @ k^T + mask.

    P is rebuilt from the saved lse: P = exp(S - lse). With dO = grad_out (B, Tq, dv):
        dv = P^T @ dO                       (B, Tk, dv)
        dP = dO @ v^T                       (B, Tq, Tk)
        dS = P * (dP - rowsum(dO * O))      (B, Tq, Tk)   the softmax backward
        dq = scale * dS @ k,  dk = scale * dS^T @ q
    rowsum(dO * O) equals rowsum(P * dP) (O = P v), and costs O(T d) instead of O(T^2).
    """
    scores = attention_scores(q, k, scale, is_causal, mask)  # (B, Tq, Tk), as in forward
    masked = (lse == -np.inf)[..., None]  # (B, Tq, 1): True for fully masked rows
    # P; 0 in masked rows, NaN in NaN rows
    probs = np.exp(scores - np.where(masked, np.inf, lse[..., None]))
    # BEGIN SOLUTION hint: dv = P^T @ dO; dP = dO @ v^T; dS = P * (dP - rowsum(dO * out)) (the softmax backward, keepdims); dq = scale * dS @ k and dk = scale * dS^T @ q
    grad_v = probs.transpose(0, 2, 1) @ grad_out  # (B, Tk, Tq) @ (B, Tq, dv)
    grad_probs = grad_out @ v.transpose(0, 2, 1)  # (B, Tq, dv) @ (B, dv, Tk) -> dP
    delta = (grad_out * out).sum(axis=-1, keepdims=True)  # (B, Tq, 1): rowsum(dO * O)
    grad_scores = probs * (grad_probs - delta)  # dS: (B, Tq, Tk)
    grad_q = (grad_scores @ k) * scale  # (B, Tq, Tk) @ (B, Tk, d)
    grad_k = (grad_scores.transpose(0, 2, 1) @ q) * scale  # (B, Tk, Tq) @ (B, Tq, d)
    # END SOLUTION
    return grad_q, grad_k, grad_v
