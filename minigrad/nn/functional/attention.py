"""Attention as a function: F.scaled_dot_product_attention, exactly PyTorch's.

It checks its arguments as PyTorch does, repeats the key and value heads for
grouped-query attention (`enable_gqa`), turns a bool mask into an additive one (both
with the shared pieces of `attention_parts.py`), broadcasts the leading dims and hands
3-D arrays to the Function of `minigrad/ops/attention.py`, which runs the current
backend's kernels.

Two cases run as a composition of Tensor operations on every backend instead
(`attention_parts.attention`, autograd doing the rest): dropout on the attention weights
(`dropout_p > 0`), whose mask is drawn from the global generator (mg.manual_seed), and
a float `attn_mask` that requires a gradient. Both keep the (Tq, Tk) weights in memory,
as the reference does.
"""

import math

import numpy as np

from minigrad.nn.functional.attention_parts import additive_mask, attention, repeat_kv
from minigrad.ops.attention import ScaledDotProductAttention
from minigrad.ops.promotion import check_same_dtype
from minigrad.tensor import Tensor

OP = "scaled_dot_product_attention"


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
        if attn_mask is not None and np.broadcast_shapes(attn_mask.shape, (*batch, Tq, Tk)) != (
            *batch,
            Tq,
            Tk,
        ):
            raise ValueError
    except ValueError:
        mask_shape = "" if attn_mask is None else f", attn_mask {attn_mask.shape}"
        raise RuntimeError(
            f"{OP}: shapes do not broadcast: query {query.shape}, key {key.shape}, value "
            f"{value.shape}{mask_shape} "
            "(the leading dims must broadcast, and the mask to (..., Tq, Tk))"
        ) from None

    if Tq == 0 or Tk == 0:  # nothing to attend to (or from): zeros, connected to the inputs
        return ((query @ key.mT) * 0.0) @ value
    mask = additive_mask(attn_mask, query.dtype)  # True = may attend: 0, False: -inf
    if dropout_p > 0.0 or (mask is not None and mask.requires_grad):
        # dropout, or a float mask that needs a gradient: the math spelt out in Tensor ops
        return attention(query, key, value, mask, scale, is_causal, dropout_p)[0]

    if mask is None and query.shape[:-2] == key.shape[:-2] == value.shape[:-2]:
        # the leading dims need no broadcasting: the Function flattens them itself
        return ScaledDotProductAttention.apply(
            query, key, value, mask=None, scale=scale, is_causal=bool(is_causal)
        )
    B = math.prod(batch)
    q, k, v = (
        t.expand(*batch, *t.shape[-2:]).reshape(B, *t.shape[-2:]) for t in (query, key, value)
    )
    if mask is not None:
        mask = _flat_mask(mask.array, batch, Tq, Tk)
    out = ScaledDotProductAttention.apply(
        q, k, v, mask=mask, scale=scale, is_causal=bool(is_causal)
    )
    return out.reshape(*batch, Tq, dv)


# ---- masks ------------------------------------------------------------------------------------
def _flat_mask(mask, batch, Tq, Tk):
    """The mask (..., Tq or 1, Tk or 1) as the kernels take it: 3-D, (1 or B, Tq or 1, Tk or 1).
    Copied only where it varies over some leading dims and not others."""
    mask = mask.reshape((1,) * (len(batch) + 2 - mask.ndim) + mask.shape)
    rows = mask.shape[-2:]
    if all(s == 1 for s in mask.shape[:-2]):
        return mask.reshape((1, *rows))
    return np.broadcast_to(mask, batch + rows).reshape((-1, *rows))


# ---- grouped-query attention --------------------------------------------------------------------
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
            f"{OP}: the number of heads of key ({hk}) and value ({hv}) must divide the number of "
            f"heads of query ({hq})"
        )
    return repeat_kv(key, hq // hk), repeat_kv(value, hq // hv)


# ---- argument checks ----------------------------------------------------------------------------
def _check_inputs(query, key, value, attn_mask, dropout_p, is_causal):
    for name, t in (("query", query), ("key", key), ("value", value)):
        if not isinstance(t, Tensor):
            raise TypeError(f"{OP}: {name} must be a Tensor, got {type(t).__name__}")
    shapes = f"query {query.shape}, key {key.shape}, value {value.shape}"
    if min(query.ndim, key.ndim, value.ndim) < 2:
        raise RuntimeError(
            f"{OP}: query, key and value need at least 2 dims (..., T, d), got {shapes}"
        )
    check_same_dtype(OP, query=query, key=key, value=value)
    if query.dtype.kind != "f":
        raise RuntimeError(f"{OP}: query, key and value must be floating point, got {query.dtype}")
    if key.shape[-1] != query.shape[-1]:
        raise RuntimeError(
            f"{OP}: key's last dim must equal query's (the embedding size d), got {shapes}"
        )
    if value.shape[-2] != key.shape[-2]:
        raise RuntimeError(f"{OP}: key and value must have the same length (dim -2), got {shapes}")
    if not 0.0 <= dropout_p <= 1.0:
        raise ValueError(
            f"{OP}: dropout probability has to be between 0 and 1, but got {dropout_p}"
        )
    if attn_mask is not None:
        if is_causal:
            raise RuntimeError(f"{OP}: explicit attn_mask should not be set when is_causal=True")
        if not isinstance(attn_mask, Tensor):
            raise TypeError(f"{OP}: attn_mask must be a Tensor, got {type(attn_mask).__name__}")
        if attn_mask.dtype.kind != "b" and attn_mask.dtype not in (
            query.dtype,
            np.dtype(np.float32),
        ):
            raise RuntimeError(
                f"{OP}: attn_mask must be bool, float32 or the query's dtype ({query.dtype}), got "
                f"{attn_mask.dtype}"
            )
        if attn_mask.device != query.device:  # the mask enters the kernels as an array: check here
            raise RuntimeError(
                f"{OP}: Expected all tensors to be on the same device, but found at least two "
                f"devices, {query.device} and {attn_mask.device}! (query on {query.device}, "
                f"attn_mask on {attn_mask.device})"
            )
