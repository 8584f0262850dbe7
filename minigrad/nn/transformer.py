"""The transformer: encoder and decoder layers, their stacks, and the whole model.

A transformer layer keeps a residual stream x (T, B, d_model) -- sequence first, as
PyTorch's default (batch_first=False), or (B, T, d_model) with batch_first=True -- and
adds to it what two (or, in the decoder, three) sublayers compute from it:
self-attention, which mixes the positions, and a position-wise feed-forward network
(FFN), which transforms each position alone. Each sublayer is wrapped in a LayerNorm, placed either

    post-norm (norm_first=False, the default, as PyTorch's; Vaswani et al. 2017):
        x = LayerNorm(x + Sublayer(x))
    pre-norm  (norm_first=True; Xiong et al. 2020; GPT-2 and most models since):
        x = x + Sublayer(LayerNorm(x))

Pre-norm leaves the stream itself untouched, so the gradient reaches every layer through
the identity and training needs no learning-rate warm-up; post-norm normalises the
stream after every sublayer. Submodule names are PyTorch's (self_attn, linear1, dropout,
linear2, norm1, norm2, dropout1, dropout2; and multihead_attn, norm3, dropout3 in the
decoder), so a PyTorch state dict loads unchanged.
"""

import copy

import numpy as np

from minigrad._args import _is_int
from minigrad.creation import from_numpy
from minigrad.devices import check_device
from minigrad.nn import functional as F
from minigrad.nn import init
from minigrad.nn.containers import ModuleList
from minigrad.nn.dropout import Dropout
from minigrad.nn.linear import Linear
from minigrad.nn.module import Module
from minigrad.nn.multihead_attention import MultiheadAttention
from minigrad.nn.normalization import LayerNorm


def _activation(activation, op):
    """'relu' -> F.relu, 'gelu' -> F.gelu (exact, erf), or any callable (a Module too)."""
    if isinstance(activation, str):
        if activation not in ("relu", "gelu"):
            raise RuntimeError(f"{op}: activation should be relu/gelu, not {activation}")
        return F.relu if activation == "relu" else F.gelu
    if not callable(activation):
        raise TypeError(
            f"{op}: activation must be 'relu', 'gelu' or a callable, got "
            f"{type(activation).__name__}"
        )
    return activation


class TransformerEncoderLayer(Module):
    """Self-attention, then a feed-forward network, each added to the residual stream.

    src (T, B, d_model) -> (T, B, d_model) (batch_first=False, PyTorch's default;
    (B, T, d_model) with batch_first=True; unbatched (T, d_model)). With norm_first=True
    (pre-norm):

        x = x + Dropout(SelfAttention(LayerNorm1(x)))
        x = x + Dropout(FFN(LayerNorm2(x))),   FFN(h) = W2 Dropout(act(W1 h + b1)) + b2

    and with norm_first=False (post-norm, the default as in PyTorch)
    x = LayerNorm1(x + Dropout(SelfAttention(x))) and x = LayerNorm2(x + Dropout(FFN(x))).
    W1 widens d_model to dim_feedforward, W2 brings it back. src_mask / src_key_padding_mask /
    is_causal go to the attention (see MultiheadAttention.forward: bool True = masked, float added).
    """

    def __init__(
        self,
        d_model,
        nhead,
        dim_feedforward=2048,
        dropout=0.1,
        activation="relu",
        layer_norm_eps=1e-5,
        batch_first=False,
        norm_first=False,
        bias=True,
        device=None,
        dtype=None,
    ):
        super().__init__()
        check_device(device, type(self).__name__)
        self.self_attn = MultiheadAttention(
            d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, dtype=dtype
        )
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, dtype=dtype)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, dtype=dtype)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.activation = _activation(activation, type(self).__name__)
        self.batch_first = batch_first

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
            x = self.norm2(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal):
        """Self-attention through the fused kernel (need_weights=False)."""
        x = self.self_attn(
            x,
            x,
            x,
            attn_mask=attn_mask,
            key_padding_mask=key_padding_mask,
            need_weights=False,
            is_causal=is_causal,
        )[0]
        return self.dropout1(x)

    def _ff_block(self, x):
        """The position-wise FFN: the same two-layer network applied at every position."""
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout2(x)


class TransformerDecoderLayer(Module):
    """Self-attention over the target, cross-attention to the encoder's output (memory),
    then the FFN; each added to the residual stream.

    tgt (T, B, d_model), memory (S, B, d_model) -> (T, B, d_model) (batch_first=False,
    PyTorch's default; (B, T, d_model), (B, S, d_model) with batch_first=True). Pre-norm
    (norm_first=True):

        x = x + Dropout1(SelfAttention(LayerNorm1(x)))            tgt_mask: usually causal
        x = x + Dropout2(CrossAttention(LayerNorm2(x), memory))   queries from x, keys/values from
        memory x = x + Dropout3(FFN(LayerNorm3(x)))

    post-norm (norm_first=False, the default as in PyTorch) puts each LayerNorm after its
    residual sum instead.
    """

    def __init__(
        self,
        d_model,
        nhead,
        dim_feedforward=2048,
        dropout=0.1,
        activation="relu",
        layer_norm_eps=1e-5,
        batch_first=False,
        norm_first=False,
        bias=True,
        device=None,
        dtype=None,
    ):
        super().__init__()
        check_device(device, type(self).__name__)
        self.self_attn = MultiheadAttention(
            d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, dtype=dtype
        )
        self.multihead_attn = MultiheadAttention(
            d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, dtype=dtype
        )
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, dtype=dtype)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, dtype=dtype)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        self.activation = _activation(activation, type(self).__name__)
        self.batch_first = batch_first

    def forward(
        self,
        tgt,
        memory,
        tgt_mask=None,
        memory_mask=None,
        tgt_key_padding_mask=None,
        memory_key_padding_mask=None,
        tgt_is_causal=False,
        memory_is_causal=False,
    ):
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(
                self.norm2(x), memory, memory_mask, memory_key_padding_mask, memory_is_causal
            )
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
            x = self.norm2(
                x
                + self._mha_block(x, memory, memory_mask, memory_key_padding_mask, memory_is_causal)
            )
            x = self.norm3(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal):
        x = self.self_attn(
            x,
            x,
            x,
            attn_mask=attn_mask,
            key_padding_mask=key_padding_mask,
            need_weights=False,
            is_causal=is_causal,
        )[0]
        return self.dropout1(x)

    def _mha_block(self, x, memory, attn_mask, key_padding_mask, is_causal):
        """Cross-attention: each target position asks the source sequence (memory)."""
        x = self.multihead_attn(
            x,
            memory,
            memory,
            attn_mask=attn_mask,
            key_padding_mask=key_padding_mask,
            need_weights=False,
            is_causal=is_causal,
        )[0]
        return self.dropout2(x)

    def _ff_block(self, x):
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout3(x)


def _clones(layer, n, op):
    """n independent deep copies of `layer` (each with its own parameters), as PyTorch."""
    if not isinstance(layer, Module):
        raise TypeError(f"{op}: expected a layer Module, got {type(layer).__name__}")
    if n < 0:
        raise ValueError(f"{op}: num_layers must be non-negative, got {n}")
    return ModuleList([copy.deepcopy(layer) for _ in range(n)])


def _detect_is_causal_mask(mask, is_causal):
    """is_causal=None: whether `mask` is exactly the float causal mask (0 on and below
    the diagonal, -inf above), so that the attention can use the kernel's own causal mask
    instead of reading one. As PyTorch, which detects only the float form."""
    if is_causal is not None or mask is None:
        return bool(is_causal)
    if mask.ndim != 2 or mask.shape[0] != mask.shape[1] or mask.dtype.kind != "f":
        return False
    causal = np.triu(np.full(mask.shape, -np.inf), k=1)
    return bool(np.array_equal(mask.array, causal))


# --8<-- [start:stacks]
class TransformerEncoder(Module):
    """num_layers deep copies of encoder_layer, applied in turn, then the optional norm
    (a pre-norm stack needs it: its stream is never normalised otherwise).

    forward(src, mask=None, src_key_padding_mask=None, is_causal=None): every layer gets
    the same masks; is_causal=None means: True if `mask` is the float causal mask.
    """

    def __init__(
        self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True, mask_check=True
    ):
        super().__init__()
        self.layers = _clones(encoder_layer, num_layers, type(self).__name__)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        output, is_causal = src, _detect_is_causal_mask(mask, is_causal)
        for layer in self.layers:
            output = layer(
                output,
                src_mask=mask,
                src_key_padding_mask=src_key_padding_mask,
                is_causal=is_causal,
            )
        return output if self.norm is None else self.norm(output)


class TransformerDecoder(Module):
    """num_layers deep copies of decoder_layer, each attending to the same memory, then
    the optional norm."""

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _clones(decoder_layer, num_layers, type(self).__name__)
        self.num_layers = num_layers
        self.norm = norm

    def forward(
        self,
        tgt,
        memory,
        tgt_mask=None,
        memory_mask=None,
        tgt_key_padding_mask=None,
        memory_key_padding_mask=None,
        tgt_is_causal=None,
        memory_is_causal=False,
    ):
        output, tgt_is_causal = tgt, _detect_is_causal_mask(tgt_mask, tgt_is_causal)
        for layer in self.layers:
            output = layer(
                output,
                memory,
                tgt_mask=tgt_mask,
                memory_mask=memory_mask,
                tgt_key_padding_mask=tgt_key_padding_mask,
                memory_key_padding_mask=memory_key_padding_mask,
                tgt_is_causal=tgt_is_causal,
                memory_is_causal=memory_is_causal,
            )
        return output if self.norm is None else self.norm(output)

    # --8<-- [end:stacks]


class Transformer(Module):
    """The encoder-decoder of Vaswani et al. 2017, as PyTorch's nn.Transformer:
    `encoder` (a TransformerEncoder with a final LayerNorm) reads src (S, B, d_model);
    `decoder` (a TransformerDecoder with a final LayerNorm) reads tgt (T, B, d_model) and
    the encoder's output, and returns (T, B, d_model). Every weight matrix is
    re-initialised Xavier-uniform, as PyTorch does. The defaults are PyTorch's:
    batch_first=False (sequence first; True: (B, S, d_model) and (B, T, d_model)) and
    norm_first=False (post-norm layers).
    """

    def __init__(
        self,
        d_model=512,
        nhead=8,
        num_encoder_layers=6,
        num_decoder_layers=6,
        dim_feedforward=2048,
        dropout=0.1,
        activation="relu",
        custom_encoder=None,
        custom_decoder=None,
        layer_norm_eps=1e-5,
        batch_first=False,
        norm_first=False,
        bias=True,
        device=None,
        dtype=None,
    ):
        super().__init__()
        check_device(device, type(self).__name__)
        layer_args = dict(
            dim_feedforward=dim_feedforward,
            dropout=dropout,
            activation=activation,
            layer_norm_eps=layer_norm_eps,
            batch_first=batch_first,
            norm_first=norm_first,
            bias=bias,
            dtype=dtype,
        )
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(d_model, nhead, **layer_args)
            norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
            self.encoder = TransformerEncoder(layer, num_encoder_layers, norm)
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(d_model, nhead, **layer_args)
            norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
            self.decoder = TransformerDecoder(layer, num_decoder_layers, norm)
        self._reset_parameters()
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first

    def _reset_parameters(self):
        """Xavier-uniform for every parameter with more than one dim (PyTorch's choice)."""
        for p in self.parameters():
            if p.ndim > 1:
                init.xavier_uniform_(p)

    def forward(
        self,
        src,
        tgt,
        src_mask=None,
        tgt_mask=None,
        memory_mask=None,
        src_key_padding_mask=None,
        tgt_key_padding_mask=None,
        memory_key_padding_mask=None,
        src_is_causal=None,
        tgt_is_causal=None,
        memory_is_causal=False,
    ):
        batch = 0 if self.batch_first else 1
        if src.ndim == 3 and tgt.ndim == 3 and src.shape[batch] != tgt.shape[batch]:
            raise RuntimeError(
                f"Transformer: the batch number of src and tgt must be equal, got src {src.shape}, "
                f"tgt {tgt.shape}"
            )
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError(
                "Transformer: the feature number of src and tgt must be equal to "
                f"d_model={self.d_model}, got src {src.shape}, tgt {tgt.shape}"
            )
        memory = self.encoder(
            src, mask=src_mask, src_key_padding_mask=src_key_padding_mask, is_causal=src_is_causal
        )
        return self.decoder(
            tgt,
            memory,
            tgt_mask=tgt_mask,
            memory_mask=memory_mask,
            tgt_key_padding_mask=tgt_key_padding_mask,
            memory_key_padding_mask=memory_key_padding_mask,
            tgt_is_causal=tgt_is_causal,
            memory_is_causal=memory_is_causal,
        )

    @staticmethod
    def generate_square_subsequent_mask(sz, device=None, dtype=None):
        """The (sz, sz) causal mask as a float Tensor: 0 on and below the diagonal, -inf
        above it (position i may attend to positions j <= i). sz = 0 gives a (0, 0) mask."""
        op = "Transformer.generate_square_subsequent_mask"
        check_device(device, op)
        if not _is_int(sz):
            raise TypeError(
                f"{op}: sz (the sequence length) must be an int, got {sz!r} ({type(sz).__name__})"
            )
        if sz < 0:  # RuntimeError, as PyTorch's "negative dimension"
            raise RuntimeError(f"{op}: sz (the sequence length) must be >= 0, got {sz}")
        dtype = np.float32 if dtype is None else dtype
        return from_numpy(np.triu(np.full((sz, sz), -np.inf), k=1).astype(dtype))
