"""nn.Attention: the attention layer of Hugging Face diffusers, with swappable processors.

The module owns the weights and the bookkeeping: the projections `to_q`, `to_k`,
`to_v`, the output `to_out` (a ModuleList [Linear, Dropout]), the optional per-head
norms `norm_q`, `norm_k`, and the helpers that reshape heads and masks. The attention
itself is computed by a **processor**, a plain callable `processor(attn, hidden_states,
encoder_hidden_states, attention_mask)` that can be swapped at run time
(`attn.set_processor(...)`), as diffusers does. Two are provided:

- `AttnProcessor2_0` (the default) calls F.scaled_dot_product_attention, the fused
  kernel that never holds the (T_q, T_k) weights;
- `AttnProcessor` spells the math out with Tensor operations (`get_attention_scores`)
  and keeps the attention probabilities of its last call on
  `processor.last_attention_probs`, (B * heads, T_q, T_k), to look at or plot.

Shapes (the lessons' notation): B batch, T_q query length, T_k key length,
h = heads, h_kv = kv_heads, d = dim_head; hidden_states (B, T_q, query_dim) or an image
(B, query_dim, H, W) (flattened to T_q = H * W and back), encoder_hidden_states
(B, T_k, cross_attention_dim).

The head reshapes, the mask conversion, the repetition of key/value heads and the
softmax are the shared pieces of `minigrad/nn/functional/attention_parts.py`.

With the same weights (the state dict keys are diffusers'), both processors give
diffusers' AttnProcessor2_0 outputs. Where minigrad differs: a bool attention_mask
(True = may attend) is accepted and turned into 0 / -inf; a mask whose last dim is not
T_k is an error (diffusers pads it); both processors apply qk_norm (diffusers'
AttnProcessor skips it) and kv_heads < heads (diffusers' two raise a shape error; its
processors for grouped-query models repeat the heads as `repeat_kv` does);
`only_cross_attention=True` (which diffusers ties to its added key/value projections,
not provided here) makes encoder_hidden_states required.
"""

import numbers

from minigrad.autograd.grad_mode import no_grad
from minigrad.nn import functional as F
from minigrad.nn.containers import ModuleList
from minigrad.nn.dropout import Dropout
from minigrad.nn.functional.attention_parts import (
    additive_mask,
    attention_weights,
    check_mask,
    merge_heads,
    repeat_kv,
    split_heads,
)
from minigrad.nn.linear import Linear
from minigrad.nn.module import Module
from minigrad.nn.normalization import LayerNorm, RMSNorm
from minigrad.ops.shape import cat
from minigrad.tensor import Tensor

NAME = "Attention"


# --8<-- [start:init]
class Attention(Module):
    """Multi-head (self- or cross-) attention, configured as diffusers' Attention.

    out = to_out(attention(to_q(x), to_k(c), to_v(c))) (+ x if residual_connection)
    / rescale_output_factor, with c = encoder_hidden_states (cross-attention) or x
    (self-attention). Arguments as diffusers: query_dim (input width), cross_attention_dim
    (width of c, default query_dim), heads, kv_heads (key/value heads for grouped-query
    attention, 1 = multi-query; must divide heads), dim_head (d), dropout (on the output,
    to_out[1]), bias (of to_q/k/v), out_bias (of to_out[0]), out_dim (output width; it
    also sets inner width and heads = out_dim // dim_head), qk_norm (None, 'layer_norm'
    or 'rms_norm', over each head's d features of q and k), eps (of those norms),
    residual_connection, rescale_output_factor, only_cross_attention, processor.

    attention_mask (see prepare_attention_mask): float, added to the scores (diffusers'
    form), or bool with **True = may attend** (as F.scaled_dot_product_attention; the
    opposite of nn.MultiheadAttention).
    """

    def __init__(
        self,
        query_dim,
        cross_attention_dim=None,
        heads=8,
        kv_heads=None,
        dim_head=64,
        dropout=0.0,
        bias=False,
        out_bias=True,
        out_dim=None,
        qk_norm=None,
        eps=1e-5,
        residual_connection=False,
        rescale_output_factor=1.0,
        only_cross_attention=False,
        processor=None,
        *,
        dtype=None,
    ):
        super().__init__()
        _check_config(
            query_dim, cross_attention_dim, heads, kv_heads, dim_head, out_dim, dropout, qk_norm
        )
        self.query_dim, self.dim_head = query_dim, dim_head
        self.is_cross_attention = cross_attention_dim is not None
        self.cross_attention_dim = query_dim if cross_attention_dim is None else cross_attention_dim
        self.out_dim = query_dim if out_dim is None else out_dim
        # as diffusers: out_dim, when given, sets the inner width and with it the heads
        self.inner_dim = dim_head * heads if out_dim is None else out_dim
        self.heads = heads if out_dim is None else out_dim // dim_head
        self.kv_heads = self.heads if kv_heads is None else kv_heads
        if self.heads % self.kv_heads:
            raise ValueError(f"{NAME}: kv_heads ({self.kv_heads}) must divide heads ({self.heads})")
        self.inner_kv_dim = dim_head * self.kv_heads  # smaller than inner_dim under GQA / MQA
        if residual_connection and self.out_dim != query_dim:
            raise ValueError(
                f"{NAME}: residual_connection adds the input to the output, so out_dim "
                f"({self.out_dim}) must equal query_dim ({query_dim})"
            )
        self.scale = dim_head**-0.5  # 1 / sqrt(d): keeps the scores of order 1
        self.use_bias, self.dropout = bias, float(dropout)
        self.residual_connection, self.rescale_output_factor = (
            residual_connection,
            rescale_output_factor,
        )
        self.only_cross_attention = only_cross_attention
        self.fused_projections = False

        if qk_norm is None:
            self.norm_q = self.norm_k = None
        else:  # one norm over each head's d features, shared by all heads (q and k apart)
            norm = LayerNorm if qk_norm == "layer_norm" else RMSNorm
            self.norm_q, self.norm_k = (
                norm(dim_head, eps=eps, dtype=dtype),
                norm(dim_head, eps=eps, dtype=dtype),
            )
        self.to_q = Linear(query_dim, self.inner_dim, bias=bias, dtype=dtype)
        self.to_k = Linear(self.cross_attention_dim, self.inner_kv_dim, bias=bias, dtype=dtype)
        self.to_v = Linear(self.cross_attention_dim, self.inner_kv_dim, bias=bias, dtype=dtype)
        self.to_out = ModuleList(
            [Linear(self.inner_dim, self.out_dim, bias=out_bias, dtype=dtype), Dropout(dropout)]
        )
        self.set_processor(AttnProcessor2_0() if processor is None else processor)

    # --8<-- [end:init]

    def set_processor(self, processor):
        """Use `processor(attn, hidden_states, encoder_hidden_states, attention_mask)` from now
        on."""
        if isinstance(processor, type):
            raise TypeError(
                f"{NAME}: pass a processor instance, {processor.__name__}(), not the class"
            )
        if not callable(processor):
            raise TypeError(f"{NAME}: a processor must be callable, got {type(processor).__name__}")
        self.processor = processor

    def get_processor(self):
        """The processor in use."""
        return self.processor

    def forward(self, hidden_states, encoder_hidden_states=None, attention_mask=None):
        """hidden_states (B, T_q, query_dim) or (B, query_dim, H, W) -> the same shape with
        out_dim features; the processor does the work."""
        self._check_inputs(hidden_states, encoder_hidden_states)
        return self.processor(self, hidden_states, encoder_hidden_states, attention_mask)

    # ---- the pieces the processors are made of -------------------------------------------------
    # --8<-- [start:heads]
    def head_to_batch_dim(self, tensor, out_dim=3, heads=None):
        """(B, T, heads * d) -> (B * heads, T, d) (out_dim=3) or (B, heads, T, d) (out_dim=4).
        heads defaults to self.heads (pass self.kv_heads for keys and values)."""
        heads = self.heads if heads is None else heads
        if tensor.ndim != 3 or tensor.shape[-1] % heads:
            raise ValueError(
                f"{NAME}.head_to_batch_dim: expected (B, T, {heads} * d), got {tensor.shape}"
            )
        tensor = split_heads(tensor, heads)  # (B, heads, T, d)
        return tensor.reshape(-1, *tensor.shape[2:]) if out_dim == 3 else tensor

    def batch_to_head_dim(self, tensor):
        """(B * heads, T, d) -> (B, T, heads * d): the heads side by side (the concat)."""
        BH, T, d = tensor.shape
        return merge_heads(tensor.reshape(BH // self.heads, self.heads, T, d))

    # --8<-- [end:heads]

    def get_attention_scores(self, query, key, attention_mask=None):
        """P = softmax(scale * query @ key^T + attention_mask), one row per query.

        query (B * h, T_q, d), key (B * h, T_k, d), attention_mask additive and
        broadcastable to (B * h, T_q, T_k) -> P (B * h, T_q, T_k), each row summing to 1
        (a row whose keys are all masked gets zeros, as F.scaled_dot_product_attention).
        """
        return attention_weights(query, key, attention_mask, self.scale)

    def prepare_attention_mask(self, attention_mask, target_length, batch_size, out_dim=3):
        """The mask, one per head, as an additive float tensor.

        attention_mask: (B, T_k), (B, 1 or T_q, T_k) or (B * heads, 1 or T_q, T_k), float
        (added to the scores, as diffusers: 0 keeps a key, a large negative number hides
        it) or bool (True = may attend; turned into 0 / -inf). target_length = T_k.
        Returns (B * heads, 1 or T_q, T_k) (out_dim=3) or (B, heads, 1 or T_q, T_k) (out_dim=4).
        """
        if attention_mask is None:
            return None
        check_mask(attention_mask, NAME, "attention_mask", hint=_KEEP_HINT)
        mask = additive_mask(attention_mask, self.to_q.weight.dtype)  # True = may attend: 0
        if mask.ndim == 2:
            mask = mask.unsqueeze(1)  # (B, T_k): a padding mask, the same for every query
        if (
            mask.ndim != 3
            or mask.shape[-1] != target_length
            or mask.shape[0] not in (batch_size, batch_size * self.heads)
        ):
            raise ValueError(
                f"{NAME}: attention_mask must have shape (B, T_k), (B, 1 or T_q, T_k) or (B * "
                f"heads, 1 or T_q, T_k) with B = {batch_size}, heads = {self.heads}, T_k = "
                f"{target_length}, got {tuple(attention_mask.shape)}"
            )
        rows, length = mask.shape[1:]
        # the same mask for every head (repeat_interleave in diffusers)
        if mask.shape[0] == batch_size:
            mask = mask.unsqueeze(1).expand(batch_size, self.heads, rows, length)
        mask = mask.reshape(batch_size, self.heads, rows, length)
        return mask.reshape(batch_size * self.heads, rows, length) if out_dim == 3 else mask

    def project(self, hidden_states, encoder_hidden_states=None):
        """query (B, T_q, h * d), key and value (B, T_k, h_kv * d): three Linears, or after
        fuse_projections() one wider Linear whose output is split in three (or two)."""
        if self.fused_projections and encoder_hidden_states is None and hasattr(self, "to_qkv"):
            qkv = self.to_qkv(hidden_states)
            return qkv.split([self.inner_dim, self.inner_kv_dim, self.inner_kv_dim], dim=-1)
        context = hidden_states if encoder_hidden_states is None else encoder_hidden_states
        query = self.to_q(hidden_states)
        if self.fused_projections and encoder_hidden_states is not None and hasattr(self, "to_kv"):
            key, value = self.to_kv(context).split([self.inner_kv_dim, self.inner_kv_dim], dim=-1)
        else:
            key, value = self.to_k(context), self.to_v(context)
        return query, key, value

    def fuse_projections(self, fuse=True):
        """Concatenate the weights of to_q, to_k, to_v into one Linear `to_qkv`
        (self-attention), or of to_k, to_v into `to_kv` (cross-attention), so that one
        matrix product does the work of three (or two): [W_q; W_k; W_v] x = [q; k; v].
        The outputs do not change. The fused layer is a copy: train after fusing and the
        separate layers no longer match it (as in diffusers). fuse=False goes back to
        the separate layers."""
        if fuse:
            sources = (
                [self.to_k, self.to_v]
                if self.is_cross_attention
                else [self.to_q, self.to_k, self.to_v]
            )
            in_features, out_features = sources[0].in_features, sum(s.out_features for s in sources)
            fused = Linear(
                in_features, out_features, bias=self.use_bias, dtype=self.to_q.weight.dtype
            )
            with no_grad():
                # rows: W_q, then W_k, then W_v
                fused.weight.copy_(cat([s.weight for s in sources], dim=0))
                if self.use_bias:
                    fused.bias.copy_(cat([s.bias for s in sources], dim=0))
            setattr(self, "to_kv" if self.is_cross_attention else "to_qkv", fused)
        self.fused_projections = fuse

    def _sequence(self, hidden_states):
        """An image (B, C, H, W) as a sequence (B, H * W, C) of its pixels; a sequence as is.
        Also returns the image's shape (or None), to undo it in _output."""
        if hidden_states.ndim != 4:
            return hidden_states, None
        B, C, H, W = hidden_states.shape
        return hidden_states.reshape(B, C, H * W).transpose(1, 2), (B, C, H, W)

    def _output(self, hidden_states, residual, image_shape):
        """to_out (Linear, then Dropout), the image shape back, the residual, the rescale."""
        hidden_states = self.to_out[1](self.to_out[0](hidden_states))
        if image_shape is not None:
            hidden_states = hidden_states.transpose(1, 2).reshape(*image_shape)
        if self.residual_connection:
            hidden_states = hidden_states + residual
        return hidden_states / self.rescale_output_factor

    def extra_repr(self):
        return (
            f"query_dim={self.query_dim}, cross_attention_dim={self.cross_attention_dim}, "
            f"heads={self.heads}, kv_heads={self.kv_heads}, dim_head={self.dim_head}, "
            f"out_dim={self.out_dim}, processor={type(self.processor).__name__}"
        )

    def _check_inputs(self, hidden_states, encoder_hidden_states):
        if not isinstance(hidden_states, Tensor):
            raise TypeError(
                f"{NAME}: hidden_states must be a Tensor, got {type(hidden_states).__name__}"
            )
        width = hidden_states.shape[-1] if hidden_states.ndim == 3 else hidden_states.shape[1]
        if hidden_states.ndim not in (3, 4) or width != self.query_dim:
            raise ValueError(
                f"{NAME}: hidden_states must have shape (B, T, query_dim) or (B, query_dim, H, W) "
                f"with query_dim = {self.query_dim}, got {hidden_states.shape}"
            )
        if encoder_hidden_states is None:
            if self.only_cross_attention:
                raise ValueError(f"{NAME}: only_cross_attention=True needs encoder_hidden_states")
            if self.is_cross_attention and self.cross_attention_dim != self.query_dim:
                raise ValueError(
                    f"{NAME}: this layer's keys have cross_attention_dim = "
                    f"{self.cross_attention_dim} features: "
                    "give encoder_hidden_states"
                )
            return
        if not isinstance(encoder_hidden_states, Tensor):
            raise TypeError(
                f"{NAME}: encoder_hidden_states must be a Tensor, got "
                f"{type(encoder_hidden_states).__name__}"
            )
        shape = encoder_hidden_states.shape
        if (
            encoder_hidden_states.ndim != 3
            or shape[-1] != self.cross_attention_dim
            or shape[0] != hidden_states.shape[0]
        ):
            raise ValueError(
                f"{NAME}: encoder_hidden_states must have shape (B, T_k, cross_attention_dim) with "
                f"B = {hidden_states.shape[0]}, cross_attention_dim = {self.cross_attention_dim}, "
                f"got {shape}"
            )


# ---- processors ---------------------------------------------------------------------------------
class AttnProcessor:
    """Attention spelled out with Tensor operations, keeping the probabilities.

    P = softmax(q k^T / sqrt(d) + mask) is formed as a (B * h, T_q, T_k) tensor by
    attn.get_attention_scores, then out = P v. After each call `last_attention_probs`
    holds that P (still part of the autograd graph when gradients are on), head j of
    batch entry b at row b * h + j.
    """

    def __init__(self):
        self.last_attention_probs = None

    def __call__(self, attn, hidden_states, encoder_hidden_states=None, attention_mask=None):
        residual = hidden_states
        hidden_states, image_shape = attn._sequence(hidden_states)
        context = hidden_states if encoder_hidden_states is None else encoder_hidden_states
        B, T_k = context.shape[:2]
        # (B * h, 1 or T_q, T_k)
        attention_mask = attn.prepare_attention_mask(attention_mask, T_k, B)

        query, key, value = attn.project(hidden_states, encoder_hidden_states)
        query = attn.head_to_batch_dim(query, out_dim=4)  # (B, h, T_q, d)
        key = attn.head_to_batch_dim(key, out_dim=4, heads=attn.kv_heads)  # (B, h_kv, T_k, d)
        value = attn.head_to_batch_dim(value, out_dim=4, heads=attn.kv_heads)
        if attn.norm_q is not None:  # per head: over each head's d features
            query, key = attn.norm_q(query), attn.norm_k(key)
        groups = attn.heads // attn.kv_heads  # query heads that share one key/value head
        key, value = repeat_kv(key, groups), repeat_kv(value, groups)  # (B, h, T_k, d)

        # (B * h, T, d)
        query, key, value = (t.reshape(-1, *t.shape[-2:]) for t in (query, key, value))
        probs = attn.get_attention_scores(query, key, attention_mask)  # (B * h, T_q, T_k)
        self.last_attention_probs = probs
        hidden_states = attn.batch_to_head_dim(probs @ value)  # (B, T_q, h * d)
        return attn._output(hidden_states, residual, image_shape)


class AttnProcessor2_0:
    """Attention by F.scaled_dot_product_attention: the fused kernel, which never holds
    the (T_q, T_k) weights, and repeats key/value heads itself (enable_gqa)."""

    def __call__(self, attn, hidden_states, encoder_hidden_states=None, attention_mask=None):
        residual = hidden_states
        hidden_states, image_shape = attn._sequence(hidden_states)
        context = hidden_states if encoder_hidden_states is None else encoder_hidden_states
        B, T_k = context.shape[:2]
        # (B, h, 1 or T_q, T_k)
        attention_mask = attn.prepare_attention_mask(attention_mask, T_k, B, out_dim=4)

        query, key, value = attn.project(hidden_states, encoder_hidden_states)
        query = attn.head_to_batch_dim(query, out_dim=4)  # (B, h, T_q, d)
        key = attn.head_to_batch_dim(key, out_dim=4, heads=attn.kv_heads)  # (B, h_kv, T_k, d)
        value = attn.head_to_batch_dim(value, out_dim=4, heads=attn.kv_heads)
        if attn.norm_q is not None:
            query, key = attn.norm_q(query), attn.norm_k(key)

        hidden_states = F.scaled_dot_product_attention(
            query, key, value, attn_mask=attention_mask, enable_gqa=attn.kv_heads != attn.heads
        )  # (B, h, T_q, d)
        hidden_states = merge_heads(hidden_states)  # (B, T_q, h * d)
        return attn._output(hidden_states, residual, image_shape)


# ---- helpers ------------------------------------------------------------------------------------
_KEEP_HINT = "; for a 0/1 keep mask use (1 - mask) * -10000.0, as diffusers' models do"


def _check_config(
    query_dim, cross_attention_dim, heads, kv_heads, dim_head, out_dim, dropout, qk_norm
):
    sizes = {"query_dim": query_dim, "heads": heads, "dim_head": dim_head}
    sizes.update(
        {
            k: v
            for k, v in [("cross_attention_dim", cross_attention_dim), ("kv_heads", kv_heads)]
            if v is not None
        }
    )
    if out_dim is not None:
        sizes["out_dim"] = out_dim
    for name, n in sizes.items():
        if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n <= 0:
            raise ValueError(f"{NAME}: {name} must be a positive integer, got {n!r}")
    if out_dim is not None and out_dim % dim_head:
        raise ValueError(
            f"{NAME}: out_dim ({out_dim}) must be a multiple of dim_head ({dim_head}): heads = "
            "out_dim // dim_head"
        )
    if not 0.0 <= dropout <= 1.0:
        raise ValueError(f"{NAME}: dropout must be a probability in [0, 1], got {dropout}")
    if qk_norm not in (None, "layer_norm", "rms_norm"):
        raise ValueError(
            f"{NAME}: unknown qk_norm {qk_norm!r}: expected None, 'layer_norm' or 'rms_norm'"
        )
