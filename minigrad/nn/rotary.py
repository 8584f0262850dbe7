"""Rotary position embedding (RoPE, Su et al. 2021, "RoFormer"), with context extension.

RoPE encodes the position of a token by *rotating* its query and key vectors instead of
adding a vector to the embedding. The head_dim features are split into head_dim/2 pairs;
pair i of the vector at position m turns by the angle m * theta_i, where
theta_i = base^(-2i/head_dim) runs from 1 radian per token (fast) down to about 1/base
(slow). A rotation keeps lengths, and the dot product of two rotated vectors depends only
on the *difference* of their angles, so the attention score q_m . k_n sees n - m and
nothing else of the two positions.

The pairs here are (x_i, x_{i + head_dim/2}), the "rotate-half" layout of GPT-NeoX and
Hugging Face's Llama (the paper pairs neighbours, (x_{2i}, x_{2i+1}); it is the same
rotation with the features permuted, so a model trained with one layout needs its q/k
weights permuted for the other):

    rope(x) = x * cos + rotate_half(x) * sin,    rotate_half([x1, x2]) = [-x2, x1]

with cos and sin of shape (T, head_dim): row m holds cos/sin(m * theta) twice over.

Context extension (`scaling`): a model trained on L positions has never seen the angles
of position L and beyond. Three ways to stretch it to s * L positions, all of them a
change of the frequencies theta (see `rope_frequencies`):

- "linear": position interpolation (Chen et al. 2023), positions divided by s.
- "ntk": NTK-aware scaling, a larger base, base * s^(d / (d - 2)): the fastest pair
  keeps its frequency, the slowest is slowed by s.
- "yarn": YaRN (Peng et al. 2024), interpolate the slow pairs, keep the fast ones, a
  linear ramp between, and scale cos/sin by 0.1 ln(s) + 1 (sharper attention).
"""

import math
import numbers

import numpy as np

from minigrad import backends
from minigrad._args import _is_int
from minigrad.array_module import on_device, to_device
from minigrad.autograd.function import Function
from minigrad.dtypes import get_default_dtype
from minigrad.nn.module import Module
from minigrad.ops.shape import cat
from minigrad.tensor import Tensor

SCALING_TYPES = ("linear", "ntk", "yarn")
_SCALING_KEYS = {
    "linear": {"factor"},
    "ntk": {"factor"},
    "yarn": {
        "factor",
        "original_max_position_embeddings",
        "beta_fast",
        "beta_slow",
        "attention_factor",
        "truncate",
    },
}


def rotate_half(x):
    """[x1, x2] -> [-x2, x1] over the last dim (x1, x2 its two halves): each pair
    (x_i, x_{i+d/2}) turned by 90 degrees. Works on NumPy arrays and Tensors."""
    half = x.shape[-1] // 2
    x1, x2 = x[..., :half], x[..., half:]
    if isinstance(x, Tensor):
        return cat([-x2, x1], dim=-1)
    return np.concatenate((-x2, x1), axis=-1)


class Rotate(Function):
    """y = x * cos + rotate_half(x) * sin: each feature pair of x turned by its angle.

    A rotation's transpose is the rotation backwards, so
    dL/dx = dL/dy * cos - rotate_half(dL/dy) * sin = Rotate(dL/dy, cos, -sin)
    (it needs cos and sin to hold the same angles in both halves, as RoPE's do). The
    backward is this op again, so a recorded backward can be differentiated too.
    cos and sin are arrays (on x's device) that broadcast against x: constants, no gradient.
    """

    @staticmethod
    def forward(ctx, x, cos, sin):
        ctx.cos, ctx.sin = cos, sin
        # the rotation is a kernel family: kernels/reference/rotary.py (NumPy, or CuPy on a
        # CUDA tensor) and kernels/cpu/rotary.py (one compiled pass)
        return backends.kernels("rotary", array=x.array).rotate(x.array, cos, sin)

    @staticmethod
    def backward(ctx, grad):
        return Rotate.apply(grad, cos=ctx.cos, sin=-ctx.sin)


def _is_number(value):
    """A finite real number (a NumPy scalar too), not a bool."""
    return not isinstance(value, bool) and isinstance(value, numbers.Real) and math.isfinite(value)


def _scaling_config(scaling):
    """Check a `scaling` dict and return (type, its settings) with defaults filled in."""
    if not isinstance(scaling, dict):
        raise TypeError(
            f"RotaryEmbedding: scaling must be a dict such as {{'type': 'linear', 'factor': 2.0}}, "
            f"got {scaling!r}"
        )
    settings = dict(scaling)
    kind = settings.pop("type", None)
    hf_kind = settings.pop("rope_type", None)  # Hugging Face's name for the same key
    if kind is not None and hf_kind is not None and kind != hf_kind:
        raise ValueError(
            f"RotaryEmbedding: scaling names two types, type={kind!r} and rope_type={hf_kind!r}"
        )
    kind = kind if kind is not None else hf_kind
    if kind not in SCALING_TYPES:
        what = (
            "no scaling 'type' (or 'rope_type')"
            if kind is None
            else f"unknown scaling type {kind!r}"
        )
        raise ValueError(f"RotaryEmbedding: {what}; expected one of {SCALING_TYPES}")
    unknown = set(settings) - _SCALING_KEYS[kind]
    if unknown:
        raise ValueError(
            f"RotaryEmbedding: unknown keys {sorted(unknown)} for {kind!r} scaling; "
            f"it takes {sorted(_SCALING_KEYS[kind])}"
        )
    if "factor" not in settings:
        raise ValueError(
            f"RotaryEmbedding: {kind!r} scaling needs a 'factor' (how many times longer the "
            "context)"
        )
    factor = settings["factor"]
    if not _is_number(factor) or not factor >= 1:
        raise ValueError(
            "RotaryEmbedding: scaling factor must be a finite number >= 1 (the context grows by "
            f"it), got {factor!r}"
        )
    settings["factor"] = float(factor)
    if kind == "yarn":
        length = settings.get("original_max_position_embeddings")
        if not _is_int(length) or length < 1:
            raise ValueError(
                "RotaryEmbedding: 'yarn' scaling needs original_max_position_embeddings, the "
                f"context length the model was trained on (a positive int), got {length!r}"
            )
        settings.setdefault("beta_fast", 32.0)
        settings.setdefault("beta_slow", 1.0)
        settings.setdefault("truncate", True)
        for key in ("beta_fast", "beta_slow"):
            if not _is_number(settings[key]):
                raise ValueError(
                    f"RotaryEmbedding: yarn's {key} must be a number (of rotations), got "
                    f"{settings[key]!r}"
                )
        if not settings["beta_fast"] > settings["beta_slow"] > 0:
            raise ValueError(
                "RotaryEmbedding: yarn needs beta_fast > beta_slow > 0, got "
                f"beta_fast={settings['beta_fast']}, beta_slow={settings['beta_slow']}"
            )
        attention_factor = settings.get("attention_factor")
        if attention_factor is not None and not (
            _is_number(attention_factor) and attention_factor > 0
        ):
            raise ValueError(
                "RotaryEmbedding: yarn's attention_factor (cos and sin are scaled by it) must be "
                f"a positive number or None, got {attention_factor!r}"
            )
        if not isinstance(settings["truncate"], (bool, np.bool_)):
            raise ValueError(
                "RotaryEmbedding: yarn's truncate must be True or False, got "
                f"{settings['truncate']!r}"
            )
    return kind, settings


def rope_frequencies(head_dim, base=10000.0, scaling=None):
    """(inv_freq, attention_factor): the head_dim/2 angular speeds theta_i (radians per
    position, float64) and the factor cos and sin are multiplied by (1 but for YaRN)."""
    i = np.arange(0, head_dim, 2, dtype=np.float64)  # 2i = 0, 2, ..., d - 2
    if scaling is None:
        return base ** (-i / head_dim), 1.0
    kind, s = _scaling_config(scaling)
    factor = s["factor"]
    if kind == "linear":
        # position interpolation: angle (m / s) * theta == m * (theta / s)
        return base ** (-i / head_dim) / factor, 1.0
    if kind == "ntk":
        if head_dim == 2:  # the exponent d / (d - 2) below would divide by zero
            raise ValueError(
                "RotaryEmbedding: 'ntk' scaling needs head_dim >= 4: with one pair, whose speed is "
                "base^0 = 1 whatever the base, a larger base cannot slow anything down"
            )
        # a larger base: the slowest pair (2i = d - 2) slows by exactly `factor`
        ntk_base = base * factor ** (head_dim / (head_dim - 2))
        return ntk_base ** (-i / head_dim), 1.0
    # yarn: pair i turns r_i = L * theta_i / (2 pi) times over the L trained positions.
    # Pairs that turn more than beta_fast times keep theta_i (extrapolate), pairs that
    # turn fewer than beta_slow times are interpolated (theta_i / s), a ramp in between.
    length = s["original_max_position_embeddings"]

    def pair_turning(rotations):  # the (fractional) index i at which r_i == rotations
        return head_dim * math.log(length / (rotations * 2 * math.pi)) / (2 * math.log(base))

    low, high = pair_turning(s["beta_fast"]), pair_turning(s["beta_slow"])
    if s["truncate"]:
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, head_dim - 1)
    if high == low:
        high += 0.001  # the ramp needs a width
    ramp = np.clip((np.arange(head_dim // 2) - low) / (high - low), 0.0, 1.0)  # 0 fast .. 1 slow
    theta = base ** (-i / head_dim)
    inv_freq = theta * (1 - ramp) + (theta / factor) * ramp
    attention_factor = s.get("attention_factor")
    if attention_factor is None:
        attention_factor = 0.1 * math.log(factor) + 1.0 if factor > 1 else 1.0
    return inv_freq, float(attention_factor)


def rope_cos_sin(inv_freq, positions, attention_factor=1.0):
    """cos and sin (len(positions), 2 * len(inv_freq)) in float64: row m holds
    cos/sin(m * theta), the angles written twice (once per half of the vector)."""
    angles = np.outer(np.asarray(positions, dtype=np.float64), inv_freq)
    angles = np.concatenate((angles, angles), axis=-1)
    return np.cos(angles) * attention_factor, np.sin(angles) * attention_factor


class RotaryEmbedding(Module):
    """Rotate queries and keys by their positions (RoPE): `q2, k2 = rope(q, k, offset=0)`.

    q (..., Tq, head_dim) and k (..., Tk, head_dim) are rotated at positions offset,
    offset + 1, ... (offset: the number of tokens already in a key/value cache, whose
    keys were rotated when they were new). `rope.rotate(x, offset)` rotates one tensor.
    Differentiable w.r.t. q and k; there are no parameters.

    cos and sin are computed once and kept in non-persistent buffers `cos_cached` and
    `sin_cached` (not in state_dict: they follow from head_dim, base and scaling), grown
    when a longer sequence comes; positions far past the table's end are computed apart
    (see `cos_sin`). They have the module's float dtype (the default dtype,
    or what .double()/.to() made it); an input of another dtype gets a fresh table of
    its own dtype, so float64 inputs are rotated with float64 angles.

    `scaling` stretches the context: {"type": "linear", "factor": s},
    {"type": "ntk", "factor": s} or {"type": "yarn", "factor": s,
    "original_max_position_embeddings": L, "beta_fast": 32, "beta_slow": 1}
    ("rope_type" is accepted for "type", as Hugging Face's configs spell it).
    """

    def __init__(self, head_dim, base=10000.0, scaling=None):
        super().__init__()
        if not _is_int(head_dim):
            raise TypeError(
                f"RotaryEmbedding: head_dim must be an int, got {head_dim!r} "
                f"({type(head_dim).__name__})"
            )
        if head_dim <= 0 or head_dim % 2:
            raise ValueError(
                "RotaryEmbedding: head_dim must be a positive even int (features are rotated in "
                f"pairs), got {head_dim!r}"
            )
        if not isinstance(base, numbers.Real) or isinstance(base, bool):
            raise TypeError(
                f"RotaryEmbedding: base must be a number, got {base!r} ({type(base).__name__})"
            )
        if not (math.isfinite(base) and base > 1):
            raise ValueError(
                "RotaryEmbedding: base must be a finite number > 1 (the pairs' speeds "
                f"base^(-2i/head_dim) fall from 1 towards 1/base), got {base!r}"
            )
        self.head_dim, self.base = int(head_dim), float(base)
        self.inv_freq, self.attention_factor = rope_frequencies(self.head_dim, self.base, scaling)
        self.scaling = None if scaling is None else dict(scaling)
        empty = np.zeros((0, self.head_dim), dtype=get_default_dtype())
        self.register_buffer("cos_cached", Tensor._make(empty), persistent=False)
        self.register_buffer("sin_cached", Tensor._make(empty.copy()), persistent=False)

    def cos_sin(self, length, dtype, offset=0):
        """cos and sin (length, head_dim) for positions offset .. offset + length - 1, as
        arrays of `dtype` on the model's device: rows of the cached table of positions 0, 1, ...
        when it holds them. Too short, it is grown to at least twice its size, so a generation loop
        recomputes it only log(T) times; but only while at least half of the new table is
        positions held or asked for: a few tokens far past its end (one token at 65,536)
        get rows of their own, not a table of every position before them."""
        end = offset + length
        cached = self.cos_cached.array
        if dtype == cached.dtype and end <= cached.shape[0]:
            return cached[offset:end], self.sin_cached.array[offset:end]
        # the table is computed on the host; for a model on the GPU it is copied there once
        # per growth, and later calls slice it where it lives
        place = to_device if on_device(cached) else (lambda array: array)
        size = max(end, 2 * cached.shape[0])
        # another precision, or far
        if dtype != cached.dtype or size > 2 * (cached.shape[0] + length):
            cos, sin = rope_cos_sin(self.inv_freq, np.arange(offset, end), self.attention_factor)
            return place(cos), place(sin)
        cos, sin = rope_cos_sin(self.inv_freq, np.arange(size), self.attention_factor)
        self.cos_cached.array, self.sin_cached.array = (
            place(cos.astype(cached.dtype)),
            place(sin.astype(cached.dtype)),
        )
        return self.cos_cached.array[offset:end], self.sin_cached.array[offset:end]

    def _check(self, x, name, offset):
        if not isinstance(x, Tensor):
            raise TypeError(f"RotaryEmbedding: {name} must be a Tensor, got {type(x).__name__}")
        if x.ndim < 2 or x.shape[-1] != self.head_dim:
            raise ValueError(
                f"RotaryEmbedding: {name} must have shape (..., T, head_dim={self.head_dim}), got "
                f"{tuple(x.shape)}"
            )
        if x.dtype.kind != "f":
            raise TypeError(f"RotaryEmbedding: {name} must be a float tensor, got {x.dtype}")
        if isinstance(offset, bool) or not isinstance(offset, (int, np.integer)) or offset < 0:
            raise ValueError(f"RotaryEmbedding: offset must be a non-negative int, got {offset!r}")

    def rotate(self, x, offset=0):
        """x (..., T, head_dim) rotated at positions offset .. offset + T - 1."""
        return self._rotate(x, offset, "x")

    def forward(self, q, k, offset=0):
        """(q, k) rotated at positions offset, offset + 1, ... (each over its own length)."""
        return self._rotate(q, offset, "q"), self._rotate(k, offset, "k")

    def _rotate(self, x, offset, name):
        self._check(x, name, offset)
        cos, sin = self.cos_sin(x.shape[-2], x.dtype, offset)
        return Rotate.apply(
            x, cos=cos.astype(x.dtype, copy=False), sin=sin.astype(x.dtype, copy=False)
        )

    def extra_repr(self):
        text = f"head_dim={self.head_dim}, base={self.base:g}"
        if self.scaling is not None:
            text += f", scaling={self.scaling}"
        return text
