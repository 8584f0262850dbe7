"""Absolute position encodings, added to the token embeddings: sinusoidal and learned.

Attention treats its input as a set: permute the tokens and the outputs are permuted the
same way, nothing else changes. Word order has to be put into the vectors themselves.
These two modules add a vector that depends on the position, x[:, t] + P[t]:

- `SinusoidalPositionalEncoding` (Vaswani et al. 2017): P is fixed, sines and cosines of
  geometrically spaced wavelengths, PE[t, 2i] = sin(t / 10000^(2i/d)),
  PE[t, 2i+1] = cos(t / 10000^(2i/d)). Nothing to learn, and P[t + k] is a rotation of
  P[t] (per frequency pair), which makes relative offsets easy to read out linearly.
- `LearnedPositionalEmbedding` (GPT-2 style): P is a Parameter, one trained vector per
  position. It knows nothing beyond max_len.

Both take `offset`: the positions are offset .. offset + T - 1, for decoding with a
key/value cache, where the new tokens come after the cached ones.
"""

import numpy as np

from minigrad.creation import empty, from_numpy
from minigrad.devices import check_device
from minigrad.dtypes import get_default_dtype
from minigrad.nn import init
from minigrad.nn.module import Module
from minigrad.nn.parameter import Parameter
from minigrad.tensor import Tensor


def sinusoidal_table(max_len, d_model, base=10000.0):
    """PE (max_len, d_model), float64: PE[t, 2i] = sin(t * w_i), PE[t, 2i+1] = cos(t * w_i)
    with w_i = base^(-2i / d_model), wavelengths 2 pi .. 2 pi * base."""
    t = np.arange(max_len, dtype=np.float64)[:, None]
    w = base ** (-np.arange(0, d_model, 2, dtype=np.float64) / d_model)  # one per pair
    pe = np.empty((max_len, d_model))
    pe[:, 0::2] = np.sin(t * w)
    pe[:, 1::2] = np.cos(t * w[: d_model // 2])  # an odd d_model has one sin more than cos
    return pe


def _positions(module, x, offset, size):
    """Check x (..., T, size) and offset; return T."""
    name = type(module).__name__
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}: expected a Tensor, got {type(x).__name__}")
    if x.ndim < 2 or x.shape[-1] != size:
        raise ValueError(
            f"{name}: expected input of shape (B, T, d_model={size}), got {tuple(x.shape)}"
        )
    if isinstance(offset, bool) or not isinstance(offset, (int, np.integer)) or offset < 0:
        raise ValueError(f"{name}: offset must be a non-negative int, got {offset!r}")
    length = x.shape[-2]
    if offset + length > module.max_len:
        raise ValueError(
            f"{name}: positions {offset} .. {offset + length - 1} (offset={offset}, T={length}) go "
            f"past max_len={module.max_len}; build the module with a larger max_len"
        )
    return length


class SinusoidalPositionalEncoding(Module):
    """y = x + PE[offset : offset + T] for x (B, T, d_model) (any leading dims), PE the
    fixed table of `sinusoidal_table`; dL/dx = dL/dy. No parameters.

    PE is a non-persistent buffer `pe` (max_len, d_model), not in state_dict (it follows
    from d_model and max_len), of the default float dtype (cast by .double()/.to()).
    Dropout, which Vaswani et al. apply to the sum, is left to the model.
    """

    def __init__(self, d_model, max_len=5000):
        super().__init__()
        if d_model <= 0 or max_len <= 0:
            raise ValueError(
                "SinusoidalPositionalEncoding: d_model and max_len must be positive, got "
                f"{d_model}, {max_len}"
            )
        self.d_model, self.max_len = int(d_model), int(max_len)
        table = sinusoidal_table(self.max_len, self.d_model).astype(get_default_dtype())
        self.register_buffer("pe", from_numpy(table), persistent=False)

    def forward(self, x, offset=0):
        length = _positions(self, x, offset, self.d_model)
        pe = self.pe.array[offset : offset + length]
        return x + from_numpy(pe.astype(x.dtype, copy=False))

    def extra_repr(self):
        return f"d_model={self.d_model}, max_len={self.max_len}"


class LearnedPositionalEmbedding(Module):
    """y = x + weight[offset : offset + T] for x (B, T, d_model), weight (max_len, d_model)
    a Parameter; dL/dx = dL/dy, and dL/dweight[t] = dL/dy[..., t, :] summed over the
    batch (zero for positions the input did not reach)."""

    def __init__(self, max_len, d_model, *, device=None, dtype=None):
        super().__init__()
        check_device(device, "LearnedPositionalEmbedding")
        if d_model <= 0 or max_len <= 0:
            raise ValueError(
                f"LearnedPositionalEmbedding: max_len and d_model must be positive, got {max_len}, "
                f"{d_model}"
            )
        self.max_len, self.d_model = int(max_len), int(d_model)
        self.weight = Parameter(empty(self.max_len, self.d_model, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self):
        # N(0, 0.02) as Hugging Face's GPT-2 and nanoGPT start theirs: small next to the token
        # embeddings it is added to, so at first the residual stream carries mostly the
        # token and the model learns how much position to mix in; not N(0, 1) as
        # nn.Embedding, which would double the stream's variance with pure noise.
        init.normal_(self.weight, mean=0.0, std=0.02)

    def forward(self, x, offset=0):
        length = _positions(self, x, offset, self.d_model)
        return x + self.weight[offset : offset + length]

    def extra_repr(self):
        return f"max_len={self.max_len}, d_model={self.d_model}"
