"""Seq2SeqTransformer: a small encoder-decoder that maps one token sequence to another.

The encoder reads the whole source sequence at once; the decoder writes the target one
token at a time, each step attending to the tokens it has written so far (a causal
mask) and to the encoder's output (cross-attention). Trained with teacher forcing: the
decoder sees the true target shifted right by one (a start token first) and learns to
predict the next token at every position in one pass. Generation (`greedy_decode`)
feeds its own predictions back instead.

    logits = W_out · Decoder(E_tgt[tgt] + P, Encoder(E_src[src] + P))

E_src, E_tgt: token embeddings; P: the sinusoidal position encodings of Vaswani et al.
(nn.SinusoidalPositionalEncoding, one table for both sequences). Learned positions
started at N(0, 0.02), as GPT's, learn the toy tasks more slowly: every one of them is
about positions, which fixed sinusoids of unit size give from the first step.
"""

import numpy as np

import minigrad as mg
from minigrad import nn


class Seq2SeqTransformer(nn.Module):
    """src ids (B, S), tgt ids (B, T) -> logits (B, T, tgt_vocab_size).

    `forward(src, tgt)` is teacher forcing: tgt is the decoder's input (the target
    shifted right, starting with a start-of-sequence id), and logits[:, t] predict the
    target's token t. Position t of the decoder sees tgt[:, :t + 1] only (causal mask).
    Padding ids (`pad_id`, if given) are hidden from attention by key padding masks.
    """

    def __init__(
        self,
        src_vocab_size,
        tgt_vocab_size,
        d_model=64,
        nhead=4,
        num_encoder_layers=2,
        num_decoder_layers=2,
        dim_feedforward=128,
        dropout=0.0,
        max_len=64,
        norm_first=True,
        pad_id=None,
    ):
        super().__init__()
        self.d_model, self.max_len, self.pad_id = d_model, max_len, pad_id
        self.src_embed = nn.Embedding(src_vocab_size, d_model)
        self.tgt_embed = nn.Embedding(tgt_vocab_size, d_model)
        self.pos_embed = nn.SinusoidalPositionalEncoding(d_model, max_len)
        self.transformer = nn.Transformer(
            d_model,
            nhead,
            num_encoder_layers,
            num_decoder_layers,
            dim_feedforward,
            dropout=dropout,
            batch_first=True,  # token ids arrive as (batch, length)
            norm_first=norm_first,
        )
        self.generator = nn.Linear(d_model, tgt_vocab_size)

    def _embed(self, ids, table, name):
        if ids.ndim != 2:
            raise ValueError(
                f"Seq2SeqTransformer: {name} must be token ids of shape (batch, length), got "
                f"{ids.shape}"
            )
        if ids.shape[1] > self.max_len:
            raise ValueError(
                f"Seq2SeqTransformer: {name} has length {ids.shape[1]} > max_len={self.max_len}"
            )
        return self.pos_embed(table(ids))  # E[ids] + P[:T]

    def _padding(self, ids):
        return None if self.pad_id is None else ids == self.pad_id

    def encode(self, src):
        """The encoder's output (the memory), (B, S, d_model)."""
        padding = self._padding(src)
        return self.transformer.encoder(
            self._embed(src, self.src_embed, "src"), src_key_padding_mask=padding
        )

    def decode(self, tgt, memory, src=None):
        """Logits (B, T, tgt_vocab) for decoder input tgt, given the memory (and src to
        hide its padding from the cross-attention)."""
        x = self.transformer.decoder(
            self._embed(tgt, self.tgt_embed, "tgt"),
            memory,
            tgt_is_causal=True,
            tgt_key_padding_mask=self._padding(tgt),
            memory_key_padding_mask=None if src is None else self._padding(src),
        )
        return self.generator(x)

    def forward(self, src, tgt):
        return self.decode(tgt, self.encode(src), src)

    def greedy_decode(self, src, max_new_tokens, start_id):
        """Generate: start from start_id and append the most likely next token, max_new_tokens
        times. Returns the generated ids (B, max_new_tokens), without the start token."""
        with mg.no_grad():
            memory = self.encode(src)
            out = np.full((src.shape[0], 1), start_id, dtype=np.int64)
            for _ in range(max_new_tokens):
                logits = self.decode(mg.tensor(out), memory, src)
                next_id = logits[:, -1].argmax(dim=-1).numpy()
                out = np.concatenate([out, next_id[:, None]], axis=1)
        return mg.tensor(out[:, 1:])
