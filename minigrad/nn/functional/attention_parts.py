"""The pieces every multi-head attention is made of, each written once.

`nn.MultiheadAttention` (PyTorch's), `nn.MultiHeadAttention` (the plain form),
`nn.Attention` (diffusers') and `models.GPT` differ in their interfaces and in how they
store their weights; underneath they do the same few things, and this file is where
each one is written:

- `split_heads` / `merge_heads`: (B, T, h * d) <-> (B, h, T, d), the heads as a batch dim;
- `causal_mask`: who may look at whom in a causal (and cached) attention;
- `additive_mask`: a mask turned into the numbers added to the scores;
- `repeat_kv`: grouped-query attention's key/value heads repeated for their query heads;
- `attention`: softmax(scale * q k^T + mask) @ v in Tensor operations, with its weights.

`F.scaled_dot_product_attention` is made of them too: its masks, `enable_gqa`, and the
path it takes for dropout.

**One mask convention.** Everything here reads a bool mask as a *keep mask*:
True = may attend, as `F.scaled_dot_product_attention` does. A float mask is already
additive: 0 keeps a (query, key) pair, -inf removes it, any other number biases it. A
layer whose public bool mask means the opposite (PyTorch's `nn.MultiheadAttention`:
True = masked out) flips it once, where it comes in.

Shapes: B batch, h heads (h_kv key/value heads), T_q / T_k query / key lengths, d the
width of one head.
"""

import math

import numpy as np

from minigrad.creation import from_numpy
from minigrad.nn.functional.dropout import dropout
from minigrad.ops.attention import attention_scores, safe_softmax
from minigrad.tensor import Tensor

KEEP = "True = may attend"  # the one bool convention here: F.scaled_dot_product_attention's


# --8<-- [start:heads]
def split_heads(x, heads):
    """(B, T, heads * d) -> (B, heads, T, d): head i gets features i * d .. (i + 1) * d - 1
    of every token, and the head axis moves in front of the tokens, so that each head is
    an attention of its own over (T, d) matrices. A reshape and a transpose: a view, and
    the gradient is the same view undone."""
    B, T, width = x.shape
    return x.reshape(B, T, heads, width // heads).transpose(1, 2)


def merge_heads(x):
    """(B, h, T, d) -> (B, T, h * d): the heads side by side again, the concatenation
    concat(head_1, ..., head_h) of the formula. The inverse of split_heads."""
    B, h, T, d = x.shape
    return x.transpose(1, 2).reshape(B, T, h * d)


# --8<-- [end:heads]


# --8<-- [start:masks]
def causal_mask(T_q, T_k, past=0, xp=np):
    """The keep mask (T_q, T_k) of causal attention: query i, at position past + i, may
    attend to keys j <= past + i. With past = 0 and T_q = T_k, the lower triangle. Made
    with the array module `xp` (NumPy by default), where the queries live."""
    return from_numpy(xp.tril(xp.ones((T_q, T_k), dtype=bool), k=past))


def additive_mask(mask, dtype):
    """The numbers to add to the scores: a bool keep mask (True = may attend) becomes 0
    where True and -inf where False, so that exp(-inf) = 0 takes the pair out of the
    softmax; a float mask is kept as it is (in `dtype`, still differentiable). None
    stays None."""
    if mask is None:
        return None
    if mask.dtype.kind == "b":
        return from_numpy(np.where(mask.array, 0.0, -np.inf).astype(dtype))
    return mask.to(dtype)


def check_mask(mask, op, name, bool_means=KEEP, hint=""):
    """A clear error unless `mask` is a bool or float Tensor; `bool_means` says how the
    caller reads a bool mask, for the message."""
    if not isinstance(mask, Tensor):
        raise TypeError(f"{op}: {name} must be a Tensor (bool or float), got {type(mask).__name__}")
    if mask.dtype.kind not in "bf":
        raise TypeError(
            f"{op}: only bool and floating types of {name} are supported: {name} must be float "
            f"(added to the scores) or bool ({bool_means}), got {mask.dtype}{hint}"
        )


# --8<-- [end:masks]


def repeat_kv(x, groups):
    """(..., h_kv, T, d) -> (..., h_kv * groups, T, d): each key/value head repeated
    `groups` times in a row, so that query head j reads key/value head j // groups
    (torch.repeat_interleave on dim -3). The repeat is an expand, a view, before the
    reshape; the gradient sums the copies back onto the one head they came from."""
    if groups == 1:
        return x
    lead, (h_kv, T, d) = x.shape[:-3], x.shape[-3:]
    return x.unsqueeze(-3).expand(*lead, h_kv, groups, T, d).reshape(*lead, h_kv * groups, T, d)


# --8<-- [start:attention]
def attention_weights(q, k, mask=None, scale=None, is_causal=False):
    """P = softmax(scale * q @ k^T + mask) along the keys: q (..., T_q, d), k (..., T_k, d),
    an additive mask broadcastable to (..., T_q, T_k) -> P (..., T_q, T_k), each row
    summing to 1. scale defaults to 1 / sqrt(d); is_causal hides key j from query i when
    j > i; a row whose keys are all hidden gets zeros, not NaN (safe_softmax)."""
    if scale is None:
        scale = 1.0 / math.sqrt(q.shape[-1]) if q.shape[-1] > 0 else 1.0
    return safe_softmax(attention_scores(q, k, mask, scale, is_causal))


def attention(q, k, v, mask=None, scale=None, is_causal=False, dropout_p=0.0):
    """(P @ v, P) with P = attention_weights(q, k, mask, scale, is_causal), v (..., T_k, d_v).
    Dropout (F.dropout, the global generator) zeroes each weight with probability
    dropout_p and scales the others by 1 / (1 - dropout_p); the P returned is the one
    applied. Autograd differentiates the composition, to any order."""
    weights = dropout(attention_weights(q, k, mask, scale, is_causal), dropout_p)
    return weights @ v, weights
    # --8<-- [end:attention]
