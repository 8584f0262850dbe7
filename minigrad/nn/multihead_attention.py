"""Multi-head attention as a module: PyTorch's nn.MultiheadAttention.

One head of attention mixes the values with one set of weights per query. Several
heads look at the sequence in several ways at once: the embedding (width E) is
projected into H smaller queries, keys and values (width E / H each), every head
attends on its own, and the H results are concatenated and mixed by one more linear
map, the output projection W_O:

    head_h = softmax(Q W_q,h^T (K W_k,h^T)^T / sqrt(E / H) + mask) (V W_v,h^T)
    out    = concat(head_1, ..., head_H) W_O^T + b_O

The H query projections W_q,h are the rows of one (E, E) matrix, and so on for keys and
values: three matrix products make all the heads, and a reshape (B, T, E) ->
(B, H, T, E/H) separates them (`split_heads`). (Inputs come as (T, B, E) by default,
PyTorch's layout; the forward pass moves the batch to the front first, and back at the
end.) The attention itself is `F.scaled_dot_product_attention` (the fused kernel) when
the caller does not want the attention weights back; with `need_weights=True` the
softmax is spelt out (`attention`) so that its weights can be returned. The pieces are
the shared ones of `minigrad/nn/functional/attention_parts.py`.

A bool mask here is PyTorch's MultiheadAttention's: **True = masked out**, the opposite
of F.scaled_dot_product_attention's; it is flipped once, where it comes in.

Parameter names, shapes, initialisation and masks are PyTorch's, so a PyTorch state
dict loads unchanged and gives the same outputs and gradients.
"""

import numbers

from minigrad._args import _is_int
from minigrad.creation import empty, zeros
from minigrad.devices import check_device
from minigrad.nn import functional as F
from minigrad.nn import init
from minigrad.nn.functional.attention_parts import (
    additive_mask,
    attention,
    causal_mask,
    check_mask,
    merge_heads,
    split_heads,
)
from minigrad.nn.linear import Linear
from minigrad.nn.module import Module
from minigrad.nn.parameter import Parameter
from minigrad.ops.shape import cat
from minigrad.tensor import Tensor

OP = "MultiheadAttention"


class NonDynamicallyQuantizableLinear(Linear):
    """A Linear under the name PyTorch gives MultiheadAttention's `out_proj` (there it
    only opts the layer out of dynamic quantization), so that reprs read the same."""


# --8<-- [start:init]
class MultiheadAttention(Module):
    """Multi-head attention: `attn(query, key, value) -> (output, weights or None)`.

    query (L, B, E), key (S, B, kdim), value (S, B, vdim) -> output (L, B, E): sequence
    first, PyTorch's default (batch_first=False); with batch_first=True, query (B, L, E),
    key (B, S, kdim), value (B, S, vdim) -> output (B, L, E). Unbatched inputs (L, E),
    (S, kdim), (S, vdim) give (L, E). E = embed_dim is split into num_heads heads of
    width head_dim = E / num_heads.

    Parameters (PyTorch's names): `in_proj_weight` (3E, E), the query, key and value
    projections stacked, when kdim == vdim == E; otherwise `q_proj_weight` (E, E),
    `k_proj_weight` (E, kdim), `v_proj_weight` (E, vdim). `in_proj_bias` (3E,),
    `out_proj` (a Linear E -> E), and with add_bias_kv=True `bias_k`, `bias_v` (1, 1, E):
    one more key and value appended to every sequence. add_zero_attn=True appends a key
    and a value of zeros after the projections. Initialisation as PyTorch: Xavier-uniform
    projections, zero biases, Xavier-normal bias_k and bias_v.

    Masks (see forward): a bool `attn_mask` or `key_padding_mask` says **True = masked
    out** (PyTorch's MultiheadAttention convention, the opposite of
    F.scaled_dot_product_attention's); a float one is added to the scores.
    """

    def __init__(
        self,
        embed_dim,
        num_heads,
        dropout=0.0,
        bias=True,
        add_bias_kv=False,
        add_zero_attn=False,
        kdim=None,
        vdim=None,
        batch_first=False,
        device=None,
        dtype=None,
    ):
        super().__init__()
        check_device(device, OP)
        self._check_arguments(embed_dim, num_heads, dropout, kdim, vdim)
        self.embed_dim, self.num_heads = embed_dim, num_heads
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        # one stacked (3E, E) projection is possible only when the three inputs have width E
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.dropout, self.batch_first = dropout, batch_first
        self.head_dim = embed_dim // num_heads

        E = embed_dim
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(empty(3 * E, E, dtype=dtype))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        else:
            self.q_proj_weight = Parameter(empty(E, E, dtype=dtype))
            self.k_proj_weight = Parameter(empty(E, self.kdim, dtype=dtype))
            self.v_proj_weight = Parameter(empty(E, self.vdim, dtype=dtype))
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(empty(3 * E, dtype=dtype))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(E, E, bias=bias, dtype=dtype)
        if add_bias_kv:
            self.bias_k = Parameter(empty(1, 1, E, dtype=dtype))
            self.bias_v = Parameter(empty(1, 1, E, dtype=dtype))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self.reset_parameters()

    def reset_parameters(self):
        """PyTorch's initialisation: Xavier-uniform on the input projections (the stacked
        (3E, E) matrix as one, so its bound is sqrt(6 / (E + 3E))), zeros for both
        biases; out_proj.weight keeps Linear's default."""
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            for weight in (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight):
                init.xavier_uniform_(weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
            init.xavier_normal_(self.bias_v)

    _reset_parameters = reset_parameters  # PyTorch's name for it

    # --8<-- [end:init]

    # --8<-- [start:forward]
    def forward(
        self,
        query,
        key,
        value,
        key_padding_mask=None,
        need_weights=True,
        attn_mask=None,
        average_attn_weights=True,
        is_causal=False,
    ):
        """(output, weights): output (L, B, E) ((B, L, E) with batch_first=True); weights
        (B, L, S) averaged over the heads (batch first in either layout, as PyTorch's),
        (B, num_heads, L, S) with average_attn_weights=False, None with need_weights=False.

        key_padding_mask (B, S), or (S,) for unbatched inputs: True (or -inf) hides a key
        from every query.
        attn_mask (L, S), or (B * num_heads, L, S) per head (batch b, head h at row
        b * num_heads + h): bool with True = NOT allowed (PyTorch's MultiheadAttention
        convention, the opposite of F.scaled_dot_product_attention's), or float, added
        to the scores. is_causal: query i sees keys j <= i; with attn_mask given it is
        PyTorch's hint that the mask is the causal one, and without it (where PyTorch
        raises) the causal mask is implied. Dropout (p = self.dropout) falls on the
        attention weights, in training only. A query whose keys are all hidden gets
        zero weights and a zero attention output (before out_proj), on both paths.
        """
        batched = self._check_inputs(query, key, value)
        if not batched:  # (L, E) -> (1, L, E)
            query, key, value = query.unsqueeze(0), key.unsqueeze(0), value.unsqueeze(0)
        elif not self.batch_first:  # (L, B, E) -> (B, L, E)
            query, key, value = query.transpose(0, 1), key.transpose(0, 1), value.transpose(0, 1)
        B, L, E = query.shape
        S, H = key.shape[1], self.num_heads

        # True = masked out, flipped into the keep mask (True = may attend) of the shared pieces
        padding = additive_mask(_keep_mask(key_padding_mask, "key_padding_mask"), query.dtype)
        mask = additive_mask(_keep_mask(attn_mask, "attn_mask"), query.dtype)
        self._check_masks(padding, mask, B, L, S, batched)
        if padding is not None and not batched:
            padding = padding.unsqueeze(0)  # (S,) -> (1, S)
        # the kernel's own causal mask when nothing else hides a key; else one spelt out
        kernel_causal = bool(is_causal) and not need_weights and padding is None
        kernel_causal = kernel_causal and self.bias_k is None and not self.add_zero_attn
        if kernel_causal:
            mask = None
        elif is_causal and mask is None:
            mask = additive_mask(causal_mask(L, S), query.dtype)

        q, k, v = self._in_projection(query, key, value)  # (B, L, E), (B, S, E), (B, S, E)
        if self.bias_k is not None:  # one more key and value, seen by every query
            k = cat([k, self.bias_k.expand(B, 1, E)], dim=1)
            v = cat([v, self.bias_v.expand(B, 1, E)], dim=1)
            mask, padding = _pad_key(mask), _pad_key(padding)
        q, k, v = split_heads(q, H), split_heads(k, H), split_heads(v, H)  # (B, H, T, d)
        if self.add_zero_attn:  # a key and a value of zeros: somewhere to put weight
            zero = zeros(B, H, 1, self.head_dim, dtype=q.dtype)
            k, v = cat([k, zero], dim=2), cat([v, zero], dim=2)
            mask, padding = _pad_key(mask), _pad_key(padding)

        mask = _merge(mask, padding, B, H)  # None or (B or 1, H or 1, L, S')
        dropout_p = self.dropout if self.training else 0.0
        if not need_weights:  # the fused kernel: the (L, S) weights are never stored
            out = F.scaled_dot_product_attention(
                q, k, v, attn_mask=mask, dropout_p=dropout_p, is_causal=kernel_causal
            )
            weights = None
        else:  # the same math spelt out, keeping the weights (B, H, L, S') to return them
            out, weights = attention(q, k, v, mask, dropout_p=dropout_p)
            if average_attn_weights:
                weights = weights.mean(dim=1)  # (B, L, S')

        out = self.out_proj(merge_heads(out))  # heads side by side, then W_O
        if not batched:
            return out.squeeze(0), (None if weights is None else weights.squeeze(0))
        if not self.batch_first:
            out = out.transpose(0, 1)
        return out, weights

    def _in_projection(self, query, key, value):
        """Q = query W_q^T + b_q, K = key W_k^T + b_k, V = value W_v^T + b_v. In
        self-attention (query is key is value) the stacked (3E, E) matrix makes all three
        in one product, split afterwards."""
        E, b = self.embed_dim, self.in_proj_bias
        bq, bk, bv = (None, None, None) if b is None else (b[:E], b[E : 2 * E], b[2 * E :])
        if not self._qkv_same_embed_dim:
            return (
                F.linear(query, self.q_proj_weight, bq),
                F.linear(key, self.k_proj_weight, bk),
                F.linear(value, self.v_proj_weight, bv),
            )
        W = self.in_proj_weight
        if query is key and key is value:
            return F.linear(query, W, b).chunk(3, dim=-1)
        return (
            F.linear(query, W[:E], bq),
            F.linear(key, W[E : 2 * E], bk),
            F.linear(value, W[2 * E :], bv),
        )

    # --8<-- [end:forward]

    # ---- argument checks ------------------------------------------------------------------
    @staticmethod
    def _check_arguments(embed_dim, num_heads, dropout, kdim, vdim):
        """Refuse, naming the argument, what PyTorch refuses or would fail on later: the
        types PyTorch's (TypeError for a size that is no int, ValueError for a value)."""
        sizes = {"embed_dim": embed_dim, "num_heads": num_heads, "kdim": kdim, "vdim": vdim}
        # kdim, vdim: None = embed_dim
        sizes = {name: n for name, n in sizes.items() if n is not None}
        for name, n in sizes.items():
            if not _is_int(n):
                raise TypeError(f"{OP}: {name} must be an int, got {n!r} ({type(n).__name__})")
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(
                f"{OP}: embed_dim and num_heads must be positive, got embed_dim={embed_dim}, "
                f"num_heads={num_heads}"
            )
        for name, width in (("kdim", "keys"), ("vdim", "values")):
            if sizes.get(name, 1) <= 0:
                raise ValueError(
                    f"{OP}: {name} (the width of the {width}) must be positive or None, got "
                    f"{sizes[name]}"
                )
        if embed_dim % num_heads:
            raise ValueError(
                f"{OP}: embed_dim must be divisible by num_heads (each head gets embed_dim / "
                f"num_heads features), got embed_dim={embed_dim}, num_heads={num_heads}"
            )
        if not isinstance(dropout, numbers.Real):
            raise TypeError(f"{OP}: dropout must be a number (a probability), got {dropout!r}")
        if not 0.0 <= dropout <= 1.0:
            raise ValueError(
                f"{OP}: dropout probability has to be between 0 and 1, but got {dropout}"
            )

    def _check_inputs(self, query, key, value):
        """True for batched (3-D) inputs, False for unbatched (2-D) ones; raises on anything
        else."""
        for name, t in (("query", query), ("key", key), ("value", value)):
            if not isinstance(t, Tensor):
                raise TypeError(f"{OP}: {name} must be a Tensor, got {type(t).__name__}")
        shapes = f"query {query.shape}, key {key.shape}, value {value.shape}"
        if query.ndim not in (2, 3) or not query.ndim == key.ndim == value.ndim:
            raise ValueError(
                f"{OP}: query, key and value must all be 3-D (batched) or all 2-D (unbatched), got "
                f"{shapes}"
            )
        for name, t, width, arg in (
            ("query", query, self.embed_dim, "embed_dim"),
            ("key", key, self.kdim, "kdim"),
            ("value", value, self.vdim, "vdim"),
        ):
            if t.shape[-1] != width:
                raise ValueError(f"{OP}: {name}'s last dim must be {arg}={width}, got {shapes}")
        if query.dtype.kind != "f" or not query.dtype == key.dtype == value.dtype:
            raise TypeError(
                f"{OP}: query, key and value must have the same floating dtype, got "
                f"{query.dtype}, {key.dtype} and {value.dtype}"
            )
        seq, batch = (-2, 0) if (query.ndim == 2 or self.batch_first) else (0, 1)
        if key.shape[seq] != value.shape[seq]:
            raise ValueError(
                f"{OP}: key and value must have the same sequence length, got {shapes}"
            )
        if query.ndim == 3 and not query.shape[batch] == key.shape[batch] == value.shape[batch]:
            raise ValueError(
                f"{OP}: query, key and value must have the same batch size, got {shapes}"
            )
        return query.ndim == 3

    def _check_masks(self, padding, mask, B, L, S, batched):
        expected, form = ((B, S), "(batch, S)") if batched else ((S,), "(S,)")
        if padding is not None and padding.shape != expected:
            raise ValueError(
                f"{OP}: key_padding_mask must have shape {form} = {expected} for "
                f"{'batched' if batched else 'unbatched'} inputs, got {padding.shape}"
            )
        if mask is not None:
            allowed = ((L, S), (B * self.num_heads, L, S))
            if mask.shape not in allowed:
                raise ValueError(
                    f"{OP}: attn_mask must have shape (L, S) = {allowed[0]} or (batch * num_heads, "
                    f"L, S) = {allowed[1]}, got {mask.shape}"
                )


# ---- masks ----------------------------------------------------------------------------------
def _keep_mask(mask, name):
    """PyTorch's MultiheadAttention reads a bool mask as True = masked out: checked, and a
    bool one flipped into a keep mask (True = may attend), the convention of
    additive_mask. A float mask is already additive and passes unchanged."""
    if mask is None:
        return None
    check_mask(mask, OP, name, bool_means="True = masked out")
    return mask.logical_not() if mask.dtype.kind == "b" else mask


def _pad_key(mask):
    """One more key column (the appended bias or zero key), visible to every query."""
    return None if mask is None else F.pad(mask, (0, 1))


def _merge(mask, padding, B, H):
    """attn_mask (L, S) or (B*H, L, S) plus key_padding_mask (B, S), as one additive mask
    that broadcasts against the scores (B, H, L, S)."""
    if mask is not None:
        mask = (
            mask.reshape(1, 1, *mask.shape)
            if mask.ndim == 2
            else mask.reshape(B, H, *mask.shape[1:])
        )
    if padding is not None:
        padding = padding.reshape(B, 1, 1, padding.shape[-1])
        mask = padding if mask is None else mask + padding
    return mask
