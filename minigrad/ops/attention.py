"""Scaled dot-product attention: one Function over a backend's kernels, and the Function
that hands their gradients to the graph.

For queries q (..., Tq, d), keys k (..., Tk, d) and values v (..., Tk, dv):

    S = scale * q @ k^T + mask,    P = softmax(S) along the keys,    out = P @ v

`ScaledDotProductAttention` hands the work to `backends.kernels("attention")`, on 3-D
(B, T, d) arrays (B every leading dim, flattened inside the Function by the backend's
`as_batches`, a reshape or, for strided heads, a copy: not three more nodes of the graph
and their backward): the NumPy reference, the Numba CPU kernel or the CUDA kernel (by
the backend and the device of q), chosen at forward time and kept in `ctx.kernels`, so
that backward runs on the same one. Its backward gets dq, dk, dv from the same kernels,
which rebuild P from the saved log-sum-exp of each row instead of keeping the (Tq, Tk)
matrix.

The kernels' arrays would be constants to the graph, but each gradient depends on the
output gradient dO and on q, k, v, and a second derivative (create_graph=True) has to
know how. So backward hands each one to the graph through `AttentionGradient`, a
Function of (dO, q, k, v) whose forward returns the kernel's array and whose backward
is the gradient's own derivative, written with Tensor operations (`gradient_backward`).
Grad mode decides, as for any op: an ordinary backward records nothing more, under
create_graph those nodes are recorded and every further derivative goes through them.

`F.scaled_dot_product_attention` (argument checks, masks, grouped-query attention, and
the composition of Tensor operations it uses for dropout) is in
`minigrad/nn/functional/attention.py`.
"""

import math

import numpy as np

from minigrad import backends
from minigrad.array_module import array_module, on_device
from minigrad.autograd.function import Function
from minigrad.creation import from_numpy


class ScaledDotProductAttention(Function):
    """out = softmax(scale * q @ k^T + mask) @ v for q (..., Tq, d), k (..., Tk, d),
    v (..., Tk, dv), the same leading dims for the three (flattened into one, B, for the
    kernels); `mask` is None or an additive float array broadcastable to (B, Tq, Tk),
    given only with 3-D q, k and v (the graph's derivatives broadcast it against them);
    `is_causal` hides key j from query i when j > i.

    With dO = dL/dout and P rebuilt from the saved log-sum-exp:
        dL/dv = P^T dO,   dS = P * (dO v^T - rowsum(dO * out)),
        dL/dq = scale * dS k,   dL/dk = scale * dS^T q.
    """

    @staticmethod
    def forward(ctx, q, k, v, mask, scale, is_causal):
        # backward uses the same kernels; the compiled ones take float32 and float64 only
        compiled = q.dtype in (np.float32, np.float64)
        ctx.kernels = backends.kernels("attention", None if compiled else "numpy", array=q.array)
        out, lse = ctx.kernels.attention_forward(
            *_flat(ctx.kernels, q, k, v), scale, is_causal, mask
        )
        ctx.save_for_backward(q, k, v)
        ctx.out, ctx.lse, ctx.mask, ctx.scale, ctx.is_causal = out, lse, mask, scale, is_causal
        return out.reshape(*q.shape[:-1], v.shape[-1])

    @staticmethod
    def backward(ctx, grad):
        q, k, v = ctx.saved_tensors
        dout, q3, k3, v3 = _flat(ctx.kernels, grad, q, k, v)
        grads = ctx.kernels.attention_backward(
            dout, q3, k3, v3, ctx.out, ctx.lse, ctx.scale, ctx.is_causal, ctx.mask
        )
        # each one handed to the graph as a function of (dO, q, k, v), for create_graph=True
        config = dict(mask=ctx.mask, scale=ctx.scale, is_causal=ctx.is_causal)
        return tuple(
            AttentionGradient.apply(grad, q, k, v, value=g.reshape(t.shape), wrt=i, **config)
            if ctx.needs_input_grad[i]
            else None
            for i, (g, t) in enumerate(zip(grads, (q, k, v)))
        )


def _flat(kernels, *tensors):
    """The arrays of tensors (..., T, d) as (B, T, d), every leading dim in B: a view where
    the memory allows, else a copy (on the CPU, made by every thread for a large array)."""
    return tuple(kernels.as_batches(t.array) for t in tensors)


class AttentionGradient(Function):
    """One of the kernels' gradients (`wrt` 0, 1, 2: dL/dq, dL/dk, dL/dv), as a function
    of dO, q, k and v. forward returns the kernel's array `value`: nothing is computed
    again. backward is that gradient's own derivative (`gradient_backward`), written with
    Tensor operations so that it can be differentiated once more."""

    @staticmethod
    def forward(ctx, grad, q, k, v, value, wrt, mask, scale, is_causal):
        ctx.save_for_backward(grad, q, k, v)
        ctx.wrt, ctx.mask, ctx.scale, ctx.is_causal = wrt, mask, scale, is_causal
        return value

    @staticmethod
    def backward(ctx, u):
        grad, q, k, v = ctx.saved_tensors
        mask = None if ctx.mask is None else from_numpy(ctx.mask)
        return gradient_backward(ctx.wrt, u, grad, q, k, v, mask, ctx.scale, ctx.is_causal)


# ---- the same math with Tensor operations -----------------------------------------------------
# --8<-- [start:math]
def safe_softmax(scores):
    """softmax along the last dim, with 0 (not NaN) for a row whose scores are all -inf.
    A row holding a NaN is not masked: its softmax is NaN, as in PyTorch."""
    seen = (scores != -math.inf).any(dim=-1, keepdim=True)  # has the row any key to look at?
    # (asked on the host only: on the GPU the answer would have to be copied over, and
    # the general form below gives the same numbers)
    if not on_device(scores.array) and bool(seen.array.all()):
        return scores.softmax(dim=-1)
    # exp(S - max) / sum as the reference kernel, with max -> 0 and sum -> 0 + 1 in masked
    # rows: their P is exp(-inf) = 0, and their gradient P * (...) is 0, or NaN when (...)
    # is NaN, as in PyTorch (a `where` around the sum would cut that gradient and hide it).
    row_max = scores.detach().max(dim=-1, keepdim=True)[0]  # the shift cancels: no gradient needed
    weights = (scores - row_max.where(seen, 0.0)).exp()
    masked = from_numpy((~seen.array).astype(scores.dtype))
    return weights / (weights.sum(dim=-1, keepdim=True) + masked)


def attention_scores(q, k, mask, scale, is_causal):
    """S = scale * q @ k^T + mask, -inf above the causal diagonal (Tensor ops)."""
    scores = (q @ k.mT) * scale
    if mask is not None:
        scores = scores + mask
    if is_causal:
        Tq, Tk = q.shape[-2], k.shape[-2]
        xp = array_module(q.array)  # the mask is made where q is
        allowed = from_numpy(xp.tril(xp.ones((Tq, Tk), dtype=bool)))
        scores = scores.where(allowed, -math.inf)
    return scores


def softmax_backward(probs, grad_probs):
    """dL/dS from dL/dP, for P = softmax(S) along the last dim: P * (dP - rowsum(dP * P)).
    As a linear map of dP it is symmetric, so <softmax_backward(P, X), Y> =
    <X, softmax_backward(P, Y)>: it also tells how P moves when S moves."""
    return probs * (grad_probs - (grad_probs * probs).sum(dim=-1, keepdim=True))
    # --8<-- [end:math]


def gradient_backward(wrt, u, grad, q, k, v, mask, scale, is_causal):
    """The derivatives of <u, G> with respect to dO (`grad`), q, k and v, for G one of
    attention's gradients: G = dq = scale dS k (wrt 0), dk = scale dS^T q (1) or
    dv = P^T dO (2), with dP = dO v^T and dS = softmax_backward(P, dP).
    """
    probs = safe_softmax(attention_scores(q, k, mask, scale, is_causal))  # P
    if wrt == 2:  # <u, P^T dO> = <P, dO u^T>: linear in dO, and P moves with the scores
        scores_part = softmax_backward(probs, grad @ u.mT)
        return probs @ u, (scores_part @ k) * scale, (scores_part.mT @ q) * scale, None
    grad_probs = grad @ v.mT  # dP
    grad_scores = softmax_backward(probs, grad_probs)  # dS
    # <u, dq> = <dS, scale u k^T> and <u, dk> = <dS, scale q u^T>: call that matrix W
    w = (u @ k.mT if wrt == 0 else q @ u.mT) * scale
    # dS is linear and symmetric in dP, so <dS, W> = <dP, A> with A = softmax_backward(P, W):
    # dO and v get A v and A^T dO, as they got dS's terms from dP = dO v^T
    a = softmax_backward(probs, w)
    # dS = P * (dP - rowsum(dP * P)) moves with P too, and P with the scores S:
    # d<dS, W>/dP = W * (dP - rowsum(dP * P)) - rowsum(P * W) * dP
    rowsum = (grad_probs * probs).sum(dim=-1, keepdim=True)
    via_probs = w * (grad_probs - rowsum) - (probs * w).sum(dim=-1, keepdim=True) * grad_probs
    scores_part = softmax_backward(probs, via_probs)
    grad_q, grad_k = (scores_part @ k) * scale, (scores_part.mT @ q) * scale
    if wrt == 0:  # W holds k itself
        grad_k = grad_k + (grad_scores.mT @ u) * scale
    else:  # W holds q
        grad_q = grad_q + (grad_scores @ u) * scale
    return a @ v, grad_q, grad_k, a.mT @ grad
