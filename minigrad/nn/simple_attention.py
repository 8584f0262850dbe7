"""nn.MultiHeadAttention: multi-head attention in its plainest form.

Four Linear layers and the attention function, nothing else: W_q, W_k and W_v project
the inputs, the result is split into `num_heads` heads of width d_k = d_model /
num_heads, every head attends on its own (F.scaled_dot_product_attention), the heads
are concatenated again and W_o mixes them. The forward returns the output only, no
weights; `nn.MultiheadAttention` (PyTorch's, with packed projections and key padding
masks) is the full-featured sibling. The split and merge of the heads are the shared
pieces of `minigrad/nn/functional/attention_parts.py`.

Shapes, in the notation of the lessons: B batch, T_q / T_k query / key lengths,
d_mod = d_model, h = num_heads, d_k = d_v = d_mod / h.
"""

import numbers

from minigrad.nn import functional as F
from minigrad.nn.functional.attention_parts import merge_heads, split_heads
from minigrad.nn.linear import Linear
from minigrad.nn.module import Module
from minigrad.tensor import Tensor

NAME = "MultiHeadAttention"


# --8<-- [start:module]
class MultiHeadAttention(Module):
    """MultiHead(Q, K, V) = concat(head_1, ..., head_h) W_o^T,
    head_i = softmax(Q W_q,i^T (K W_k,i^T)^T / sqrt(d_k) + mask) V W_v,i^T.

    query (B, T_q, d_mod), key and value (B, T_k, d_mod) -> (B, T_q, d_mod).
    attn_mask: a float mask is added to the scores; a bool mask says **True = may
    attend** (as F.scaled_dot_product_attention; the opposite of nn.MultiheadAttention).
    Its shape is (T_q, T_k), (B, T_q, T_k) or (B, h, T_q, T_k), any of the leading dims
    may be 1. is_causal: query i sees keys j <= i. Dropout acts on the attention
    weights, in training only. The gradient is the chain rule through the four Linears
    and the attention function.
    """

    def __init__(self, d_model, num_heads, dropout=0.0, bias=True, dtype=None):
        super().__init__()
        _check_sizes(d_model, num_heads, dropout)
        self.d_model, self.num_heads, self.dropout = d_model, num_heads, float(dropout)
        self.d_k = d_model // num_heads  # every head gets an equal slice of the width
        self.W_q = Linear(d_model, d_model, bias=bias, dtype=dtype)
        self.W_k = Linear(d_model, d_model, bias=bias, dtype=dtype)
        self.W_v = Linear(d_model, d_model, bias=bias, dtype=dtype)
        self.W_o = Linear(d_model, d_model, bias=bias, dtype=dtype)

    def split_heads(self, x):
        """(B, T, d_mod) -> (B, h, T, d_k): head i is the i-th slice of d_k features."""
        return split_heads(x, self.num_heads)

    def merge_heads(self, x):
        """(B, h, T, d_k) -> (B, T, h * d_k): the heads side by side again (concat)."""
        return merge_heads(x)

    def forward(self, query, key, value, attn_mask=None, is_causal=False):
        self._check_inputs(query, key, value, attn_mask, is_causal)
        q = self.split_heads(self.W_q(query))  # (B, h, T_q, d_k)
        k = self.split_heads(self.W_k(key))  # (B, h, T_k, d_k)
        v = self.split_heads(self.W_v(value))  # (B, h, T_k, d_k)
        if attn_mask is not None and attn_mask.ndim == 3:
            attn_mask = attn_mask.unsqueeze(1)  # (B, T_q, T_k): the same mask for every head
        dropout_p = self.dropout if self.training else 0.0
        heads = F.scaled_dot_product_attention(
            q, k, v, attn_mask=attn_mask, dropout_p=dropout_p, is_causal=is_causal
        )
        return self.W_o(self.merge_heads(heads))  # (B, T_q, d_mod)

    # --8<-- [end:module]

    def extra_repr(self):
        return f"d_model={self.d_model}, num_heads={self.num_heads}, dropout={self.dropout}"

    def _check_inputs(self, query, key, value, attn_mask, is_causal):
        for name, t in (("query", query), ("key", key), ("value", value)):
            if not isinstance(t, Tensor):
                raise TypeError(f"{NAME}: {name} must be a Tensor, got {type(t).__name__}")
            if t.ndim != 3 or t.shape[-1] != self.d_model:
                raise ValueError(
                    f"{NAME}: {name} must have shape (batch, length, d_model={self.d_model}), got "
                    f"{t.shape}"
                )
        shapes = f"query {query.shape}, key {key.shape}, value {value.shape}"
        if not query.shape[0] == key.shape[0] == value.shape[0]:
            raise ValueError(
                f"{NAME}: query, key and value must have the same batch size, got {shapes}"
            )
        if key.shape[1] != value.shape[1]:
            raise ValueError(f"{NAME}: key and value must have the same length, got {shapes}")
        if attn_mask is None:
            return
        if is_causal:
            raise ValueError(
                f"{NAME}: give attn_mask or is_causal=True, not both (fold the causal mask into "
                "attn_mask)"
            )
        if not isinstance(attn_mask, Tensor):
            raise TypeError(f"{NAME}: attn_mask must be a Tensor, got {type(attn_mask).__name__}")
        if attn_mask.dtype.kind not in "bf":
            raise TypeError(
                f"{NAME}: attn_mask must be bool (True = may attend) or float (added to the "
                f"scores), got {attn_mask.dtype}"
            )
        (B, Tq, _), Tk = query.shape, key.shape[1]
        full = {2: (Tq, Tk), 3: (B, Tq, Tk), 4: (B, self.num_heads, Tq, Tk)}.get(attn_mask.ndim)
        if (
            full is None
            or attn_mask.shape[-2:] != (Tq, Tk)
            or any(s not in (1, f) for s, f in zip(attn_mask.shape, full))
        ):
            raise ValueError(
                f"{NAME}: attn_mask must have shape (T_q, T_k) = ({Tq}, {Tk}), (B, T_q, T_k) or "
                f"(B, heads, T_q, T_k) = ({B}, {self.num_heads}, {Tq}, {Tk}) (leading dims may be "
                f"1), got {attn_mask.shape}"
            )


def _check_sizes(d_model, num_heads, dropout):
    for name, n in (("d_model", d_model), ("num_heads", num_heads)):
        if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n <= 0:
            raise ValueError(f"{NAME}: {name} must be a positive integer, got {n!r}")
    if d_model % num_heads:
        raise ValueError(
            f"{NAME}: d_model ({d_model}) must be divisible by num_heads ({num_heads}): "
            "each head gets d_model / num_heads features"
        )
    if not 0.0 <= dropout <= 1.0:
        raise ValueError(f"{NAME}: dropout must be a probability in [0, 1], got {dropout}")
