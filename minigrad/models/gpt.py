"""GPT: a decoder-only transformer that predicts the next token (Radford et al. 2018, 2019).

The model of nanoGPT, written with minigrad's modules: a token embedding, `n_layers`
pre-norm blocks (x + attention(LN(x)), then x + MLP(LN(x))), a final LayerNorm and an
output layer that shares its weight with the token embedding (Press & Wolf 2017). The
attention is causal (position t sees positions <= t) and may be grouped-query: fewer
key/value heads than query heads (`n_kv_heads`; 1 is multi-query attention).

`generate` samples one token at a time and keeps every layer's keys and values in a
`KVCache`, so that each new token costs one row of work per layer, O(T), instead of a
forward pass over the whole context, O(T^2).

Shapes: B batch, T tokens, C = d_model, H query heads, Hkv key/value heads, D = C / H.
"""

import math
import numbers

import numpy as np

import minigrad as mg
import minigrad.nn.functional as F
from minigrad import nn
from minigrad.array_module import array_module
from minigrad.nn.functional.attention_parts import causal_mask, merge_heads, split_heads

POSITIONS = ("rope", "learned", "sinusoidal")


class KVCache:
    """The keys and values that every layer has computed so far, for generation.

    Per layer, two arrays (B, Hkv, max_len, D) filled from the left; `length` tokens are
    held, so the next token sits at position `length`. The arrays are allocated once at
    full size: storing a new token copies one row per layer instead of concatenating
    the whole past each step (which would make every step O(T) in copying alone).

    Under no_grad (generation) the cache hands out views of these arrays: constants.
    Under grad mode it keeps the graph, so that a loss over a cached forward has the
    gradients of the uncached forward over the same tokens: the keys and values it returns
    are the earlier ones concatenated with the new ones as tensors (as Hugging Face's
    DynamicCache does with torch.cat), the new ones in the graph of this forward and the
    earlier ones in the graph of the forward that made them. Entries made under no_grad
    stay constants (they have no graph to keep).
    """

    def __init__(self, n_layers, batch_size, n_kv_heads, max_len, head_dim, dtype, xp=np):
        shape = (batch_size, n_kv_heads, max_len, head_dim)
        # xp: the array module of the model's weights, so the cache lives where they do
        self.keys = [xp.zeros(shape, dtype) for _ in range(n_layers)]
        self.values = [xp.zeros(shape, dtype) for _ in range(n_layers)]
        self.in_graph = [None] * n_layers  # per layer: (keys, values) so far, as graph tensors
        self.max_len = max_len
        self.length = 0

    def update(self, layer, k, v):
        """Append the new tokens' keys and values (B, Hkv, T_new, D) of one layer; return
        all of that layer's keys and values so far, (B, Hkv, length + T_new, D)."""
        start, end = self.length, self.length + k.shape[-2]
        self.keys[layer][:, :, start:end] = k.detach().array
        self.values[layer][:, :, start:end] = v.detach().array
        past = self.in_graph[layer]
        if not (k.requires_grad or v.requires_grad or past is not None):
            # nothing to differentiate (inference): views of the arrays, no copying
            return mg.from_numpy(self.keys[layer][:, :, :end]), mg.from_numpy(
                self.values[layer][:, :, :end]
            )
        if past is None:  # the earlier entries were made under no_grad: constants
            past = (
                mg.from_numpy(self.keys[layer][:, :, :start]),
                mg.from_numpy(self.values[layer][:, :, :start]),
            )
        k, v = mg.cat([past[0], k], dim=-2), mg.cat([past[1], v], dim=-2)
        self.in_graph[layer] = (k, v) if k.requires_grad or v.requires_grad else None
        return k, v


class CausalSelfAttention(nn.Module):
    """Multi-head causal self-attention with H query heads and Hkv <= H key/value heads.

    One Linear makes the queries, keys and values together (one matrix product instead
    of three); with Hkv < H each key/value head serves H / Hkv query heads (grouped-query
    attention, Ainslie et al. 2023), which shrinks the KV cache by that factor.

    Causal, with no mask argument: query t sees keys <= t (is_causal; after a KV cache,
    the keep mask of causal_mask, True = may attend, as F.scaled_dot_product_attention).
    """

    def __init__(self, d_model, n_heads, n_kv_heads, dropout=0.0, bias=True):
        super().__init__()
        self.n_heads, self.n_kv_heads, self.head_dim = n_heads, n_kv_heads, d_model // n_heads
        self.qkv = nn.Linear(d_model, (n_heads + 2 * n_kv_heads) * self.head_dim, bias=bias)
        self.proj = nn.Linear(d_model, d_model, bias=bias)  # W_O: the heads' outputs mixed
        self.dropout = dropout

    def forward(self, x, rope=None, cache=None, layer=0):
        T = x.shape[1]
        H, Hkv, D = self.n_heads, self.n_kv_heads, self.head_dim
        q, k, v = self.qkv(x).split([H * D, Hkv * D, Hkv * D], dim=-1)
        q = split_heads(q, H)  # (B, H, T, D): each head attends on its own
        k, v = split_heads(k, Hkv), split_heads(v, Hkv)  # (B, Hkv, T, D)
        past = 0 if cache is None else cache.length  # the position of this chunk's first token
        if rope is not None:
            q, k = rope(q, k, offset=past)  # rotate by absolute position; scores see only j - i
        if cache is not None:
            k, v = cache.update(layer, k, v)  # (B, Hkv, past + T, D): the past and the new
        y = F.scaled_dot_product_attention(
            q,
            k,
            v,
            attn_mask=_causal_mask_after(past, T, array_module(q.array)),
            dropout_p=self.dropout if self.training else 0.0,
            is_causal=past == 0,  # no past: the usual square causal mask
            enable_gqa=Hkv != H,
        )  # (B, H, T, D)
        y = merge_heads(y)  # (B, T, C): the heads side by side again
        return F.dropout(self.proj(y), self.dropout, self.training)


def _causal_mask_after(past, T, xp=np):
    """The mask for T new queries after `past` cached keys: query i (at position past + i)
    sees keys j <= past + i. None when there is no past (is_causal does it) or when a
    single query sees every key. Made with the array module `xp`."""
    if past == 0 or T == 1:
        return None
    return causal_mask(T, past + T, past, xp)  # a keep mask: True = may attend


# --8<-- [start:block]
class MLP(nn.Module):
    """The position-wise feed-forward network: C -> 4C -> GELU -> C."""

    def __init__(self, d_model, dropout=0.0, bias=True):
        super().__init__()
        self.fc = nn.Linear(d_model, 4 * d_model, bias=bias)
        self.proj = nn.Linear(4 * d_model, d_model, bias=bias)
        self.dropout = dropout

    def forward(self, x):
        return F.dropout(self.proj(F.gelu(self.fc(x))), self.dropout, self.training)


class Block(nn.Module):
    """A pre-norm transformer block: x + attn(LN(x)), then x + MLP(LN(x)).

    The residual stream x passes through untouched; each sub-layer reads a normalised
    copy and adds its result back. Gradients reach every layer through the identity
    paths, which is why pre-norm stacks train without the warm-up tricks post-norm
    needs (Xiong et al. 2020).
    """

    def __init__(self, d_model, n_heads, n_kv_heads, dropout=0.0, bias=True):
        super().__init__()
        self.ln_1 = nn.LayerNorm(d_model, bias=bias)
        self.attn = CausalSelfAttention(d_model, n_heads, n_kv_heads, dropout, bias)
        self.ln_2 = nn.LayerNorm(d_model, bias=bias)
        self.mlp = MLP(d_model, dropout, bias)

    def forward(self, x, rope=None, cache=None, layer=0):
        x = x + self.attn(self.ln_1(x), rope, cache, layer)
        return x + self.mlp(self.ln_2(x))

    # --8<-- [end:block]


class GPT(nn.Module):
    """A decoder-only transformer language model: token ids (B, T) -> logits (B, T, vocab).

    `pos` chooses how positions enter: 'rope' rotates each head's queries and keys
    (Su et al. 2021; nothing is added to the embeddings), 'learned' adds a trained
    vector per position (GPT-2), 'sinusoidal' adds Vaswani et al.'s fixed waves. With
    `tie_weights` the output layer is the token embedding itself. `bias=False` drops
    the biases of every Linear and LayerNorm, as nanoGPT's Shakespeare config does.

    `model(idx)` gives the logits, `model(idx, targets)` (logits, loss) as nanoGPT's
    forward. There is no mask argument: the attention is causal (see CausalSelfAttention).
    """

    def __init__(
        self,
        vocab_size,
        d_model,
        n_layers,
        n_heads,
        max_len,
        n_kv_heads=None,
        dropout=0.0,
        pos="rope",
        tie_weights=True,
        bias=True,
    ):
        super().__init__()
        n_kv_heads = n_heads if n_kv_heads is None else n_kv_heads
        _check_config(vocab_size, d_model, n_layers, n_heads, max_len, n_kv_heads, dropout, pos)
        self.vocab_size, self.d_model, self.n_layers, self.max_len = (
            vocab_size,
            d_model,
            n_layers,
            max_len,
        )
        self.n_heads, self.n_kv_heads, self.head_dim = n_heads, n_kv_heads, d_model // n_heads
        self.pos, self.dropout = pos, dropout

        # --8<-- [start:init]
        self.tok_emb = nn.Embedding(vocab_size, d_model)
        self.rope = nn.RotaryEmbedding(self.head_dim) if pos == "rope" else None
        if pos == "learned":
            self.pos_emb = nn.LearnedPositionalEmbedding(max_len, d_model)
        elif pos == "sinusoidal":
            self.pos_emb = nn.SinusoidalPositionalEncoding(d_model, max_len)
        self.blocks = nn.ModuleList(
            Block(d_model, n_heads, n_kv_heads, dropout, bias) for _ in range(n_layers)
        )
        self.ln_f = nn.LayerNorm(d_model, bias=bias)
        self.lm_head = nn.Linear(d_model, vocab_size, bias=False)
        if tie_weights:
            # One matrix reads tokens in and scores them out (Press & Wolf 2017): the logit
            # of token v is the dot product of the final state with v's own embedding.
            # It saves vocab * d_model parameters, and the input rows of rare tokens get
            # gradient from the output side at every step.
            self.lm_head.weight = self.tok_emb.weight
        self._init_weights()

    def _init_weights(self):
        """GPT-2's initialisation, as nanoGPT: every weight matrix and embedding N(0, 0.02),
        biases zero, LayerNorms at the identity.

        The residual stream is a sum: the embedding plus the output of 2 * n_layers
        sub-layers (attention and MLP in each block). Sums of independent terms add their
        variances, so with all outputs at one scale the stream's variance would grow with
        depth, 2 * n_layers times the size of one term. Scaling the initial weights of
        the two projections that write into the stream (attn.proj and mlp.proj) by
        1 / sqrt(2 * n_layers) makes the 2 * n_layers terms add up to the variance of one:
        the stream has the same scale at initialisation however deep the model is.
        """
        residual_std = 0.02 / math.sqrt(2 * self.n_layers)
        for name, p in self.named_parameters():
            if name.endswith("attn.proj.weight") or name.endswith("mlp.proj.weight"):
                nn.init.normal_(p, 0.0, residual_std)
            elif p.ndim == 2:  # Linear weights, the token and learned position embeddings
                nn.init.normal_(p, 0.0, 0.02)
            elif name.endswith("bias"):
                nn.init.zeros_(p)
        # --8<-- [end:init]

    def forward(self, idx, targets=None, cache=None):
        """idx (B, T) int64 token ids -> logits (B, T, vocab_size): row t scores every
        possible token t + 1. With targets (B, T), the next tokens, it returns
        (logits, loss) as nanoGPT does, loss the mean cross-entropy over the B * T
        positions (a target of -1 is skipped, as nanoGPT's ignore_index=-1).
        (nanoGPT returns (logits, None) without targets; here the logits alone, so that
        `model(idx)` stays a map from tokens to logits, as every other layer is.)
        With a `cache` (see `new_cache`), idx holds only the new tokens: they sit at
        positions cache.length, ..., and the cache grows by T."""
        B, T = self._check_input(idx, cache)
        self._check_targets(targets, idx)
        past = 0 if cache is None else cache.length
        x = self.tok_emb(idx)  # (B, T, C)
        if self.pos == "sinusoidal":
            # The waves have amplitude 1, the embeddings start at 0.02: scaled by sqrt(C)
            # (as Vaswani et al. do) the tokens are not drowned out by their positions.
            x = x * math.sqrt(self.d_model)
        if self.pos != "rope":
            x = self.pos_emb(x, offset=past)  # + the vectors of positions past .. past + T - 1
        x = F.dropout(x, self.dropout, self.training)
        for layer, block in enumerate(self.blocks):
            x = block(x, self.rope, cache, layer)
        if cache is not None:
            cache.length += T
        logits = self.lm_head(self.ln_f(x))  # (B, T, vocab)
        if targets is None:
            return logits
        # every position is a prediction: (B * T, vocab) scores against B * T next tokens
        loss = F.cross_entropy(logits.reshape(B * T, -1), targets.reshape(-1), ignore_index=-1)
        return logits, loss

    def new_cache(self, batch_size):
        """An empty KVCache for `batch_size` sequences, as long as the context (max_len)."""
        weight = self.tok_emb.weight.array
        xp = array_module(weight)  # on the GPU when the model is
        return KVCache(
            self.n_layers,
            batch_size,
            self.n_kv_heads,
            self.max_len,
            self.head_dim,
            weight.dtype,
            xp,
        )

    @mg.no_grad()
    def generate(self, idx, max_new_tokens, temperature=1.0, top_k=None, use_cache=True):
        """Continue each row of idx (B, T) by max_new_tokens sampled tokens; returns
        (B, T + max_new_tokens), on idx's device. Sampling draws from the global generator
        (mg.manual_seed; on a GPU the GPU's generator, which mg.manual_seed seeds too);
        temperature 0 is greedy (see `sample`). Every argument is checked before any work,
        and the model is back in the mode it was in (train or eval) however generate ends.

        With use_cache, the prompt runs once to fill the cache and every later step feeds
        only the newest token. The model never sees more than max_len tokens: once the
        cache is full, the last max_len tokens are run again from scratch each step, as
        without a cache. (Rolling the cache -- dropping its oldest entry -- would be
        cheaper but not the same model: the cached keys of deeper layers were computed
        while tokens now cut off were still in view, and with learned or sinusoidal
        positions every kept key would sit at the wrong position.) So cached and uncached
        generation compute the same logits, and give the same tokens for the same seed.
        """
        if not _is_int(max_new_tokens) or max_new_tokens < 0:
            raise ValueError(
                f"GPT.generate: max_new_tokens must be an int >= 0, got {max_new_tokens!r}"
            )
        _check_sampling(temperature, top_k, "GPT.generate")
        self._check_input(idx, None, limit=False)  # a prompt longer than max_len is cropped below
        # the tokens stay where idx is (on the GPU with a model there): each step appends one
        # token without a round trip through the host
        tokens = idx.to(mg.int64, copy=True)
        was_training = self.training
        self.eval()
        try:
            cache = None
            for _ in range(max_new_tokens):
                if cache is not None and cache.length < self.max_len:
                    logits = self(tokens[:, -1:], cache=cache)  # one token: O(T)
                else:
                    cache = self.new_cache(tokens.shape[0]) if use_cache else None
                    logits = self(tokens[:, -self.max_len :], cache=cache)  # the window: O(T^2)
                next_token = sample(logits[:, -1, :], temperature, top_k)  # (B, 1)
                tokens = mg.cat([tokens, next_token], dim=1)
        finally:  # an error or Ctrl-C midway must not leave a training model in eval mode
            self.train(was_training)
        return tokens

    def _check_input(self, idx, cache, limit=True):
        """(B, T) of a valid batch of token ids, or a clear error naming what is wrong."""
        if not isinstance(idx, mg.Tensor) or idx.dtype.kind not in "iu" or idx.ndim != 2:
            what = (
                f"{idx.dtype} tensor of shape {idx.shape}"
                if isinstance(idx, mg.Tensor)
                else type(idx).__name__
            )
            raise TypeError(
                f"GPT: expected a (batch, T) integer (int64) tensor of token ids, got a {what}"
            )
        B, T = idx.shape
        if B == 0 or T == 0:
            raise ValueError(
                "GPT: the input needs at least one row and one token per row, got shape "
                f"{idx.shape}"
            )
        # The range check reads the ids on the host. On a GPU that would be a copy (and a wait)
        # at every step, so it is skipped there: torch's CUDA embedding, likewise, reports a
        # bad id only by a device-side assertion.
        ids = None if idx.is_cuda else idx.numpy()
        if ids is not None and (ids.min() < 0 or ids.max() >= self.vocab_size):
            bad = int(ids[(ids < 0) | (ids >= self.vocab_size)][0])
            raise IndexError(
                f"GPT: token id {bad} is out of range for vocab_size {self.vocab_size} (ids "
                f"0..{self.vocab_size - 1})"
            )
        past = 0 if cache is None else cache.length
        if limit and past + T > self.max_len:
            held = f" after the {past} tokens in the cache" if past else ""
            raise ValueError(
                f"GPT: {T} tokens{held} exceed the context length max_len={self.max_len}"
            )
        if cache is not None and cache.keys[0].shape[0] != B:
            raise ValueError(
                f"GPT: the cache was made for batch size {cache.keys[0].shape[0]}, got a batch of "
                f"{B}"
            )
        return B, T

    def _check_targets(self, targets, idx):
        """None, or a (B, T) integer tensor of next-token ids (-1 = skipped), as idx."""
        if targets is None:
            return
        if not isinstance(targets, mg.Tensor) or targets.dtype.kind not in "iu":
            what = type(targets).__name__
            if isinstance(targets, mg.Tensor):
                what = f"{targets.dtype} tensor"
            raise TypeError(f"GPT: targets must be an int64 tensor of next-token ids, got a {what}")
        if targets.shape != idx.shape:
            shapes = f"idx's shape {idx.shape} (one per token), got {targets.shape}"
            raise ValueError(f"GPT: targets must have {shapes}")

    def extra_repr(self):
        kv = f", n_kv_heads={self.n_kv_heads}" if self.n_kv_heads != self.n_heads else ""
        return f"pos={self.pos!r}, max_len={self.max_len}{kv}"


def sample(logits, temperature=1.0, top_k=None):
    """One token per row of logits (B, vocab): (B, 1) int64.

    Dividing the logits by the temperature sharpens the distribution (< 1) or flattens
    it (> 1); temperature 0 takes the most likely token (greedy decoding, the convention
    of OpenAI's API and llama.cpp; nanoGPT would divide by 0 and fail in multinomial).
    top_k keeps only the k most likely tokens, so the long tail of unlikely ones is
    never drawn.
    """
    _check_sampling(temperature, top_k, "sample")
    if temperature == 0:
        return logits.argmax(dim=-1, keepdim=True)
    logits = logits / temperature
    if top_k is not None and top_k < logits.shape[-1]:
        kth_largest = logits.topk(top_k, dim=-1)[0][:, -1:]  # (B, 1)
        logits = logits.masked_fill(logits < kth_largest, float("-inf"))
    probs = F.softmax(logits, dim=-1)
    return mg.multinomial(probs, num_samples=1)  # the global generator: mg.manual_seed


def _is_int(value):
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)  # True is not a 1


def _check_sampling(temperature, top_k, op):
    # inf would flatten every distribution to uniform, NaN would poison it: both refused
    real = isinstance(temperature, numbers.Real) and not isinstance(temperature, bool)
    if not (real and math.isfinite(temperature) and temperature >= 0):
        raise ValueError(
            f"{op}: temperature must be a finite number >= 0 (0 = greedy), got {temperature!r}"
        )
    if top_k is not None and (not _is_int(top_k) or top_k < 1):
        raise ValueError(f"{op}: top_k must be a positive int or None, got {top_k!r}")


def _check_config(vocab_size, d_model, n_layers, n_heads, max_len, n_kv_heads, dropout, pos):
    for name, value in (
        ("vocab_size", vocab_size),
        ("d_model", d_model),
        ("n_layers", n_layers),
        ("n_heads", n_heads),
        ("max_len", max_len),
        ("n_kv_heads", n_kv_heads),
    ):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"GPT: {name} must be a positive int, got {value!r}")
    if d_model % n_heads:
        raise ValueError(
            f"GPT: n_heads ({n_heads}) must divide d_model ({d_model}) (each head gets d_model / "
            "n_heads)"
        )
    if n_heads % n_kv_heads:
        raise ValueError(
            f"GPT: n_kv_heads ({n_kv_heads}) must divide n_heads ({n_heads}) (each key/value head "
            "serves a group)"
        )
    if pos not in POSITIONS:
        raise ValueError(f"GPT: pos must be one of {POSITIONS}, got {pos!r}")
    if pos == "rope" and (d_model // n_heads) % 2:
        raise ValueError(
            f"GPT: pos='rope' needs an even head dim (d_model / n_heads), got {d_model // n_heads}"
        )
    if not isinstance(dropout, (int, float, np.floating)) or not 0.0 <= dropout < 1.0:
        raise ValueError(f"GPT: dropout must be a number in [0, 1), got {dropout!r}")
