"""Scaled dot-product attention: one Function over the current backend's kernels, and
the functional form `F.scaled_dot_product_attention` (exactly PyTorch's).

For queries q (..., Tq, d), keys k (..., Tk, d) and values v (..., Tk, dv):

    S = scale * q @ k^T + mask,    P = softmax(S) along the keys,    out = P @ v

The Function works on 3-D (B, T, d) arrays, B being every leading dim flattened, and
hands the work to `backends.kernels("attention")`: the NumPy reference, the Numba CPU
kernel or the CUDA kernel. Its backward gets dq, dk, dv from the same kernels, which
rebuild P from the saved log-sum-exp of each row instead of keeping the (Tq, Tk) matrix.

When the backward pass is itself recorded (create_graph=True), the kernels will not do:
their arrays are constants to the graph. Then the gradient is computed from its formula
with Tensor operations (`recorded_backward`), which can be differentiated again.

Two cases run as a composition of Tensor operations on every backend (`attention_math`,
autograd doing the rest): dropout on the attention weights (`dropout_p > 0`), whose mask
is drawn from the global generator (mg.manual_seed), and a float `attn_mask` that
requires a gradient. Both keep the (Tq, Tk) weights in memory, as the reference does.
"""

import math

import numpy as np

from minigrad import backends
from minigrad import random as _random
from minigrad.autograd import grad_mode
from minigrad.autograd.function import Function
from minigrad.creation import from_numpy
from minigrad.ops.elementwise import where
from minigrad.tensor import Tensor


# --8<-- [start:function]
class ScaledDotProductAttention(Function):
    """out = softmax(scale * q @ k^T + mask) @ v for q (B, Tq, d), k (B, Tk, d),
    v (B, Tk, dv); `mask` is None or an additive float array broadcastable to
    (B, Tq, Tk), `is_causal` hides key j from query i when j > i.

    With dO = dL/dout and P rebuilt from the saved log-sum-exp:
        dL/dv = P^T dO,   dS = P * (dO v^T - rowsum(dO * out)),
        dL/dq = scale * dS k,   dL/dk = scale * dS^T q.
    """

    @staticmethod
    def forward(ctx, q, k, v, mask, scale, is_causal):
        # backward uses the same kernels; the compiled ones take float32 and float64 only
        compiled = q.dtype in (np.float32, np.float64)
        ctx.kernels = backends.kernels("attention", None if compiled else "numpy")
        out, lse = ctx.kernels.attention_forward(q.array, k.array, v.array, scale, is_causal, mask)
        ctx.save_for_backward(q, k, v)
        ctx.out, ctx.lse, ctx.mask, ctx.scale, ctx.is_causal = out, lse, mask, scale, is_causal
        return out

    @staticmethod
    def backward(ctx, grad):
        q, k, v = ctx.saved_tensors
        if grad_mode.is_grad_enabled():  # create_graph=True: differentiable Tensor ops
            mask = None if ctx.mask is None else from_numpy(ctx.mask)
            return (*recorded_backward(grad, q, k, v, mask, ctx.scale, ctx.is_causal), None, None, None)
        grads = ctx.kernels.attention_backward(
            grad.array, q.array, k.array, v.array, ctx.out, ctx.lse, ctx.scale, ctx.is_causal, ctx.mask
        )
        needed = ctx.needs_input_grad
        return (*(from_numpy(g) if needed[i] else None for i, g in enumerate(grads)), None, None, None)

    # --8<-- [end:function]


# ---- the same math with Tensor operations -----------------------------------------------------
# --8<-- [start:math]
def safe_softmax(scores):
    """softmax along the last dim, with 0 (not NaN) for a row whose scores are all -inf.
    A row holding a NaN is not masked: its softmax is NaN, as in PyTorch."""
    seen = (scores != -math.inf).any(dim=-1, keepdim=True)  # has the row any key to look at?
    if bool(seen.array.all()):
        return scores.softmax(dim=-1)
    # exp(S - max) / sum as the reference kernel, with max -> 0 and sum -> 0 + 1 in masked
    # rows: their P is exp(-inf) = 0, and their gradient P * (...) is 0, or NaN when (...)
    # is NaN, as in PyTorch (a `where` around the sum would cut that gradient and hide it).
    row_max = scores.detach().max(dim=-1, keepdim=True)[0]  # the shift cancels: no gradient needed
    weights = (scores - where(seen, row_max, 0.0)).exp()
    masked = from_numpy((~seen.array).astype(scores.dtype))
    return weights / (weights.sum(dim=-1, keepdim=True) + masked)


def attention_scores(q, k, mask, scale, is_causal):
    """S = scale * q @ k^T + mask, -inf above the causal diagonal (Tensor ops)."""
    scores = (q @ k.mT) * scale
    if mask is not None:
        scores = scores + mask
    if is_causal:
        Tq, Tk = q.shape[-2], k.shape[-2]
        allowed = from_numpy(np.tril(np.ones((Tq, Tk), dtype=bool)))
        scores = where(allowed, scores, -math.inf)
    return scores


def attention_math(q, k, v, mask, scale, is_causal, dropout_p):
    """The whole op as Tensor operations (autograd differentiates it, to any order):
    the path for dropout and for a float mask that needs a gradient. Dropout zeroes
    each weight with probability dropout_p and scales the rest by 1 / (1 - dropout_p)."""
    probs = safe_softmax(attention_scores(q, k, mask, scale, is_causal))
    if dropout_p > 0.0:
        keep = _random.generator().random(probs.shape) >= dropout_p
        survivor_scale = 1.0 / (1.0 - dropout_p) if dropout_p < 1.0 else 0.0  # p = 1 drops all
        probs = probs * from_numpy((keep * survivor_scale).astype(probs.dtype))
    return probs @ v
    # --8<-- [end:math]


# --8<-- [start:recorded_backward]
def recorded_backward(grad, q, k, v, mask, scale, is_causal):
    """dq, dk, dv as Tensor operations, for a backward pass that is being recorded.
    rowsum(dO * out) is written rowsum(dP * P), the same number, so that the graph does
    not need the output."""
    probs = safe_softmax(attention_scores(q, k, mask, scale, is_causal))  # P (B, Tq, Tk)
    grad_v = probs.mT @ grad
    grad_probs = grad @ v.mT  # dP
    grad_scores = probs * (grad_probs - (grad_probs * probs).sum(dim=-1, keepdim=True))  # dS
    return (grad_scores @ k) * scale, (grad_scores.mT @ q) * scale, grad_v
    # --8<-- [end:recorded_backward]


# ---- the functional form ------------------------------------------------------------------------
OP = "scaled_dot_product_attention"


def _check_inputs(query, key, value, attn_mask, dropout_p, is_causal):
    for name, t in (("query", query), ("key", key), ("value", value)):
        if not isinstance(t, Tensor):
            raise TypeError(f"{OP}: {name} must be a Tensor, got {type(t).__name__}")
    shapes = f"query {query.shape}, key {key.shape}, value {value.shape}"
    if min(query.ndim, key.ndim, value.ndim) < 2:
        raise RuntimeError(f"{OP}: query, key and value need at least 2 dims (..., T, d), got {shapes}")
    if not (query.dtype == key.dtype == value.dtype) or query.dtype.kind != "f":
        raise RuntimeError(
            f"{OP}: query, key and value must have the same floating dtype, got "
            f"{query.dtype}, {key.dtype} and {value.dtype}"
        )
    if key.shape[-1] != query.shape[-1]:
        raise RuntimeError(f"{OP}: key's last dim must equal query's (the embedding size d), got {shapes}")
    if value.shape[-2] != key.shape[-2]:
        raise RuntimeError(f"{OP}: key and value must have the same length (dim -2), got {shapes}")
    if not 0.0 <= dropout_p <= 1.0:
        raise ValueError(f"{OP}: dropout probability has to be between 0 and 1, but got {dropout_p}")
    if attn_mask is not None:
        if is_causal:
            raise RuntimeError(f"{OP}: explicit attn_mask should not be set when is_causal=True")
        if not isinstance(attn_mask, Tensor):
            raise TypeError(f"{OP}: attn_mask must be a Tensor, got {type(attn_mask).__name__}")
        if attn_mask.dtype.kind != "b" and attn_mask.dtype not in (query.dtype, np.dtype(np.float32)):
            raise RuntimeError(
                f"{OP}: attn_mask must be bool, float32 or the query's dtype ({query.dtype}), got {attn_mask.dtype}"
            )


def _repeat_heads(x, groups):
    """(..., H, T, d) -> (..., H * groups, T, d), each head repeated `groups` times in a
    row (torch.repeat_interleave on dim -3); the gradient sums the copies back."""
    lead, (H, T, d) = x.shape[:-3], x.shape[-3:]
    return x.unsqueeze(-3).expand(*lead, H, groups, T, d).reshape(*lead, H * groups, T, d)


def _grouped_query(query, key, value):
    """enable_gqa: key and value may have fewer heads (dim -3) than query, as long as
    their counts divide the query's; their heads are repeated to match."""
    if min(query.ndim, key.ndim, value.ndim) < 3:
        raise RuntimeError(
            f"{OP}: enable_gqa needs (..., heads, T, d) inputs, got query {query.shape}, "
            f"key {key.shape}, value {value.shape}"
        )
    hq, hk, hv = query.shape[-3], key.shape[-3], value.shape[-3]
    if hq % hk or hq % hv:
        raise RuntimeError(
            f"{OP}: the number of heads of key ({hk}) and value ({hv}) must divide the number of heads of query ({hq})"
        )
    return _repeat_heads(key, hq // hk) if hk != hq else key, _repeat_heads(value, hq // hv) if hv != hq else value


def _additive_mask(attn_mask, dtype):
    """A bool mask (True = attend) as 0 / -inf, or a float mask in the query's dtype (arrays)."""
    if attn_mask.dtype.kind == "b":
        return np.where(attn_mask.array, 0.0, -np.inf).astype(dtype)
    return attn_mask.array.astype(dtype, copy=False)


def _flat_mask(mask, batch, Tq, Tk):
    """The mask (..., Tq or 1, Tk or 1) as the kernels take it: 3-D, (1 or B, Tq or 1, Tk or 1).
    Copied only where it varies over some leading dims and not others."""
    mask = mask.reshape((1,) * (len(batch) + 2 - mask.ndim) + mask.shape)
    rows = mask.shape[-2:]
    if all(s == 1 for s in mask.shape[:-2]):
        return mask.reshape((1, *rows))
    return np.broadcast_to(mask, batch + rows).reshape((-1, *rows))


# --8<-- [start:functional]
def scaled_dot_product_attention(
    query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, enable_gqa=False
):
    """softmax(query @ key^T * scale + mask) @ value, as torch.nn.functional's.

    query (..., Tq, d), key (..., Tk, d), value (..., Tk, dv) -> (..., Tq, dv); the
    leading dims broadcast. attn_mask, broadcastable to (..., Tq, Tk): bool (True =
    may attend) or float (added to the scores). is_causal: query i sees keys j <= i.
    scale defaults to 1 / sqrt(d). A query that may attend to no key gets zeros.
    enable_gqa: key and value may have fewer heads (dim -3) than query.
    """
    _check_inputs(query, key, value, attn_mask, dropout_p, is_causal)
    d, Tq, Tk, dv = query.shape[-1], query.shape[-2], key.shape[-2], value.shape[-1]
    scale = (1.0 / math.sqrt(d) if d > 0 else 1.0) if scale is None else float(scale)
    if enable_gqa:
        key, value = _grouped_query(query, key, value)
    try:
        batch = tuple(np.broadcast_shapes(query.shape[:-2], key.shape[:-2], value.shape[:-2]))
        if attn_mask is not None and np.broadcast_shapes(attn_mask.shape, (*batch, Tq, Tk)) != (*batch, Tq, Tk):
            raise ValueError
    except ValueError:
        mask_shape = "" if attn_mask is None else f", attn_mask {attn_mask.shape}"
        raise RuntimeError(
            f"{OP}: shapes do not broadcast: query {query.shape}, key {key.shape}, value {value.shape}{mask_shape} "
            "(the leading dims must broadcast, and the mask to (..., Tq, Tk))"
        ) from None

    if Tq == 0 or Tk == 0:  # nothing to attend to (or from): zeros, connected to the inputs
        return ((query @ key.mT) * 0.0) @ value
    if dropout_p > 0.0 or (attn_mask is not None and attn_mask.requires_grad and attn_mask.dtype.kind == "f"):
        mask = None
        if attn_mask is not None:
            mask = (
                attn_mask.to(query.dtype)
                if attn_mask.dtype.kind == "f"
                else from_numpy(_additive_mask(attn_mask, query.dtype))
            )
        return attention_math(query, key, value, mask, scale, is_causal, dropout_p)

    B = math.prod(batch)
    q, k, v = (t.expand(*batch, *t.shape[-2:]).reshape(B, *t.shape[-2:]) for t in (query, key, value))
    mask = None
    if attn_mask is not None:
        mask = _flat_mask(_additive_mask(attn_mask, query.dtype), batch, Tq, Tk)
    out = ScaledDotProductAttention.apply(q, k, v, mask=mask, scale=scale, is_causal=bool(is_causal))
    return out.reshape(*batch, Tq, dv)
    # --8<-- [end:functional]
