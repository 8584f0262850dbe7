"""Position encodings: nn.RotaryEmbedding (with linear / NTK / YaRN scaling),
nn.SinusoidalPositionalEncoding and nn.LearnedPositionalEmbedding.

- RoPE's defining properties: the score q_m . k_n depends only on n - m, norms are
  kept, position 0 is the identity; rotate-half against the complex-number form
  (x_i + i x_{i+d/2}) * e^{i m theta_i}; the cached table against a fresh one; an
  offset against slicing a longer sequence; float64 gradient checks (first and second).
- scaling: linear at factor s is RoPE at positions m / s; NTK is RoPE with base
  b * s^(d/(d-2)); YaRN against a NumPy transcription of Peng et al.'s formulas
  (the ramp between beta_fast and beta_slow rotations, the 0.1 ln s + 1 factor).
- sinusoidal values against Vaswani's formula written out element by element (and
  against the PyTorch tutorial's construction); learned: init scale, offset, gradients.
- errors: head_dim odd, not positive or not an int; base <= 1, infinite or not a number;
  wrong widths; ill-formed scaling dicts (unknown type or keys, factor < 1, infinite or not
  a number, yarn's settings of the wrong kind; NTK on one pair); positions past max_len.
"""

import math
import re

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import minigrad as mg
from minigrad import nn
from minigrad.autograd import gradcheck, gradgradcheck
from tests.helpers import rand


def t64(array, requires_grad=False):
    return mg.tensor(np.asarray(array, dtype=np.float64), requires_grad=requires_grad)


def rope_numpy_complex(x, positions, inv_freq, attention_factor=1.0):
    """RoPE written as RoFormer writes it: pair i is the complex number
    x_i + i x_{i+d/2}, multiplied by e^{i m theta_i} (and by the YaRN factor)."""
    half = x.shape[-1] // 2
    z = x[..., :half] + 1j * x[..., half:]
    turned = z * np.exp(1j * np.outer(positions, inv_freq)) * attention_factor
    return np.concatenate((turned.real, turned.imag), axis=-1)


def theta(head_dim, base=10000.0):
    return np.array([base ** (-2 * i / head_dim) for i in range(head_dim // 2)])


# ---- RoPE: the defining properties ------------------------------------------------------
@pytest.mark.parametrize("head_dim", [2, 8, 64])
def test_rope_matches_the_complex_number_form(head_dim):
    rope = nn.RotaryEmbedding(head_dim)
    x = rand(2, 3, 11, head_dim, seed=1)
    y = rope.rotate(t64(x)).numpy()
    np.testing.assert_allclose(
        y, rope_numpy_complex(x, np.arange(11), theta(head_dim)), rtol=1e-12, atol=1e-12
    )


def test_score_depends_only_on_relative_position():
    rope = nn.RotaryEmbedding(16)
    q, k = rand(16, seed=2), rand(16, seed=3)

    def score(m, n):  # q at position m, k at position n
        qm = rope.rotate(t64(q[None]), offset=m).numpy()[0]
        kn = rope.rotate(t64(k[None]), offset=n).numpy()[0]
        return qm @ kn

    for m, n in [(0, 5), (3, 8), (100, 105), (1000, 1005)]:
        np.testing.assert_allclose(score(m, n), score(0, 5), rtol=1e-9)
    np.testing.assert_allclose(score(7, 2), score(5, 0), rtol=1e-9)
    # ... and it does depend on the distance (not a constant)
    assert abs(score(0, 5) - score(0, 6)) > 1e-3


@settings(max_examples=40, deadline=None)
@given(
    half=st.integers(1, 12),
    m=st.integers(0, 5000),
    n=st.integers(0, 5000),
    shift=st.integers(0, 5000),
    seed=st.integers(0, 2**16),
)
def test_score_is_shift_invariant_for_any_positions(half, m, n, shift, seed):
    rope = nn.RotaryEmbedding(2 * half)
    q, k = t64(rand(1, 2 * half, seed=seed)), t64(rand(1, 2 * half, seed=seed + 1))

    def score(a, b):
        return (rope.rotate(q, offset=a) @ rope.rotate(k, offset=b).mT).item()

    assert score(m + shift, n + shift) == pytest.approx(score(m, n), rel=1e-9, abs=1e-9)


def test_norms_are_kept_and_position_zero_is_the_identity():
    rope = nn.RotaryEmbedding(32)
    x = rand(3, 40, 32, seed=4)
    y = rope.rotate(t64(x)).numpy()
    np.testing.assert_allclose(np.linalg.norm(y, axis=-1), np.linalg.norm(x, axis=-1), rtol=1e-12)
    np.testing.assert_array_equal(y[:, 0], x[:, 0])
    assert not np.allclose(y[:, 1], x[:, 1])


def test_rotate_half():
    x = np.arange(6.0)
    np.testing.assert_array_equal(nn.rotary.rotate_half(x), [-3.0, -4.0, -5.0, 0.0, 1.0, 2.0])
    np.testing.assert_array_equal(
        nn.rotary.rotate_half(t64(x)).numpy(), [-3.0, -4.0, -5.0, 0.0, 1.0, 2.0]
    )


def test_forward_rotates_q_and_k_at_the_same_positions_with_their_own_lengths():
    rope = nn.RotaryEmbedding(8)
    q, k = rand(2, 3, 8, seed=5), rand(2, 6, 8, seed=6)
    q2, k2 = rope(t64(q), t64(k), offset=4)
    np.testing.assert_allclose(
        q2.numpy(), rope_numpy_complex(q, np.arange(4, 7), theta(8)), atol=1e-12
    )
    np.testing.assert_allclose(
        k2.numpy(), rope_numpy_complex(k, np.arange(4, 10), theta(8)), atol=1e-12
    )


def test_offset_equals_slicing_a_longer_sequence():
    rope = nn.RotaryEmbedding(8)
    x = rand(2, 20, 8, seed=7)
    whole = rope.rotate(t64(x)).numpy()
    np.testing.assert_allclose(
        rope.rotate(t64(x[:, 12:15]), offset=12).numpy(), whole[:, 12:15], atol=1e-14
    )


def test_cos_sin_cache_is_non_persistent_grown_on_demand_and_equal_to_a_fresh_table():
    rope = nn.RotaryEmbedding(16)
    assert rope.state_dict() == {} and len(list(rope.parameters())) == 0
    assert {name for name, _ in rope.named_buffers()} == {"cos_cached", "sin_cached"}
    x = mg.randn(1, 5, 16)  # the default dtype, float32: served from the cache
    rope.rotate(x)
    assert rope.cos_cached.shape == (5, 16) and rope.cos_cached.dtype == mg.float32
    before = rope.cos_cached.array
    rope.rotate(x, offset=0)
    assert rope.cos_cached.array is before  # long enough: not recomputed
    rope.rotate(mg.randn(1, 3, 16), offset=10)
    assert rope.cos_cached.shape[0] >= 13
    n = rope.cos_cached.shape[0]
    angles = np.outer(np.arange(n), theta(16))
    np.testing.assert_allclose(
        rope.cos_cached.numpy(), np.cos(np.concatenate((angles, angles), 1)), atol=1e-6
    )
    np.testing.assert_allclose(
        rope.sin_cached.numpy(), np.sin(np.concatenate((angles, angles), 1)), atol=1e-6
    )
    # the float32 result from the cache equals a float64 rotation rounded
    y32 = rope.rotate(x, offset=2).numpy()
    y64 = nn.RotaryEmbedding(16).rotate(x.double(), offset=2).numpy()
    np.testing.assert_allclose(y32, y64, rtol=1e-5, atol=1e-6)
    assert y32.dtype == np.float32


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_few_tokens_at_a_far_position_allocate_no_table_up_to_it(dtype):
    """One token at position 65,536 needs one row of cos/sin, not a table of every earlier
    position (96 MiB at head_dim 64 before the fix); its rotation is still the formula's."""
    import tracemalloc

    rope = nn.RotaryEmbedding(64).to(dtype)  # the table's dtype is x's: the cached path
    x = rand(2, 1, 64, seed=3, dtype=dtype)
    tracemalloc.start()
    try:
        y = rope.rotate(mg.tensor(x), offset=65_536).numpy()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20, f"rotating one token at 65,536 allocated {peak / 2**20:.1f} MiB"
    assert rope.cos_cached.shape[0] < 1024  # the table did not grow to the far position
    expected = rope_numpy_complex(x.astype(np.float64), np.array([65_536]), theta(64))
    np.testing.assert_allclose(y, expected, rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-6)


def test_the_table_still_serves_and_grows_for_normal_use():
    """A prefill from 0 then one position at a time: every step equals the formula, and the
    table grows by doubling (a few times), not once per step."""
    rope = nn.RotaryEmbedding(8).double()
    x = rand(1, 40, 8, seed=4)
    whole = rope_numpy_complex(x, np.arange(40), theta(8))
    sizes = set()
    np.testing.assert_allclose(rope.rotate(t64(x[:, :5])).numpy(), whole[:, :5], atol=1e-12)
    for m in range(5, 40):
        np.testing.assert_allclose(
            rope.rotate(t64(x[:, m : m + 1]), offset=m).numpy(), whole[:, m : m + 1], atol=1e-12
        )
        sizes.add(rope.cos_cached.shape[0])
    assert sizes == {10, 20, 40}
    far = rope.rotate(t64(x[:, :2]), offset=10_000).numpy()  # far past the table: computed apart
    np.testing.assert_allclose(
        far, rope_numpy_complex(x[:, :2], np.arange(10_000, 10_002), theta(8)), atol=1e-11
    )
    assert rope.cos_cached.shape[0] == 40


def test_double_module_caches_float64():
    rope = nn.RotaryEmbedding(8).double()
    rope.rotate(t64(rand(1004, 8)))  # positions 0 .. 1003: the table holds them
    assert rope.cos_cached.dtype == mg.float64
    angle = 1003 * theta(8)[1]
    assert rope.cos_cached.numpy()[1003, 1] == pytest.approx(math.cos(angle), abs=1e-13)


def test_rope_against_torch_rotate_half_formula():
    """The same computation spelled in PyTorch, as Hugging Face's apply_rotary_pos_emb."""
    x = rand(2, 4, 9, 12, seed=8)
    inv_freq = torch.tensor(theta(12))
    freqs = torch.outer(torch.arange(3, 12, dtype=torch.float64), inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)
    tx = torch.tensor(x)
    x1, x2 = tx[..., :6], tx[..., 6:]
    expected = tx * emb.cos() + torch.cat((-x2, x1), dim=-1) * emb.sin()
    got = nn.RotaryEmbedding(12).rotate(t64(x), offset=3).numpy()
    np.testing.assert_allclose(got, expected.numpy(), atol=1e-12)


def test_gradient_is_the_inverse_rotation():
    rope = nn.RotaryEmbedding(8)
    x = t64(rand(5, 8, seed=9), requires_grad=True)
    g = rand(5, 8, seed=10)
    rope.rotate(x, offset=2).backward(t64(g))
    # y = R x with R orthogonal, so dL/dx = R^T g: rotating it forward gives g back
    np.testing.assert_allclose(rope.rotate(x.grad, offset=2).numpy(), g, atol=1e-12)


@pytest.mark.parametrize(
    "scaling",
    [
        None,
        {"type": "linear", "factor": 2.0},
        {"type": "ntk", "factor": 3},
        {"type": "yarn", "factor": 4, "original_max_position_embeddings": 16},
    ],
)
def test_rope_gradcheck(scaling):
    rope = nn.RotaryEmbedding(6, scaling=scaling)
    q = t64(rand(2, 4, 6, seed=11), requires_grad=True)
    k = t64(rand(2, 3, 6, seed=12), requires_grad=True)

    def f(q, k):
        q2, k2 = rope(q, k, offset=5)
        return q2 @ k2.transpose(-1, -2)  # the attention scores, as RoPE is used

    assert gradcheck(f, (q, k))
    assert gradgradcheck(lambda x: rope.rotate(x, offset=1), (q,))


# ---- context extension --------------------------------------------------------------------
def test_linear_scaling_is_positions_divided_by_the_factor():
    s = 4.0
    rope = nn.RotaryEmbedding(16, scaling={"type": "linear", "factor": s})
    x = rand(10, 16, seed=13)
    got = rope.rotate(t64(x), offset=7).numpy()
    expected = rope_numpy_complex(x, np.arange(7, 17) / s, theta(16))
    np.testing.assert_allclose(got, expected, atol=1e-12)


def test_ntk_scaling_is_a_larger_base():
    s, d = 8.0, 32
    rope = nn.RotaryEmbedding(d, scaling={"rope_type": "ntk", "factor": s})
    new_base = 10000.0 * s ** (d / (d - 2))
    np.testing.assert_allclose(rope.inv_freq, theta(d, new_base), rtol=1e-12)
    # the fastest pair keeps its speed, the slowest slows by exactly s
    assert rope.inv_freq[0] == 1.0
    np.testing.assert_allclose(rope.inv_freq[-1], theta(d)[-1] / s, rtol=1e-12)
    x = rand(5, d, seed=14)
    np.testing.assert_allclose(
        rope.rotate(t64(x), offset=100).numpy(),
        rope_numpy_complex(x, np.arange(100, 105), theta(d, new_base)),
        atol=1e-10,
    )


def yarn_numpy(d, base, s, length, beta_fast=32.0, beta_slow=1.0):
    """YaRN's frequencies and attention factor, transcribed from Peng et al. (2024):
    pair i turns r_i = L / lambda_i times over the trained context (lambda_i = 2 pi / theta_i);
    gamma(r) = 0 below beta_slow (interpolate), 1 above beta_fast (keep), linear in the
    index i between the (rounded) indices where r_i crosses beta_fast and beta_slow."""
    out = []
    # the index at which r_i = beta: solve L * base^(-2i/d) / (2 pi) = beta for i
    low = math.floor(d * math.log(length / (beta_fast * 2 * math.pi)) / (2 * math.log(base)))
    high = math.ceil(d * math.log(length / (beta_slow * 2 * math.pi)) / (2 * math.log(base)))
    low, high = max(low, 0), min(high, d - 1)
    for i in range(d // 2):
        t = base ** (-2 * i / d)
        ramp = min(max((i - low) / (high - low), 0.0), 1.0)  # 0 = extrapolate, 1 = interpolate
        out.append((1 - ramp) * t + ramp * t / s)
    return np.array(out), 0.1 * math.log(s) + 1.0


@pytest.mark.parametrize(
    "d,base,s,length",
    [(64, 10000.0, 4.0, 2048), (32, 10000.0, 8.0, 256), (128, 500000.0, 2.0, 4096)],
)
def test_yarn_against_the_published_formula(d, base, s, length):
    scaling = {
        "type": "yarn",
        "factor": s,
        "original_max_position_embeddings": length,
        "beta_fast": 32,
        "beta_slow": 1,
    }
    rope = nn.RotaryEmbedding(d, base=base, scaling=scaling)
    inv_freq, mscale = yarn_numpy(d, base, s, length)
    np.testing.assert_allclose(rope.inv_freq, inv_freq, rtol=1e-12)
    assert rope.attention_factor == pytest.approx(mscale)
    # some pairs kept, some interpolated: the ramp is inside the head
    assert inv_freq[0] == 1.0 and inv_freq[-1] == pytest.approx(theta(d, base)[-1] / s)
    x = rand(6, d, seed=15)
    expected = rope_numpy_complex(x, np.arange(3, 9), inv_freq, mscale)
    np.testing.assert_allclose(rope.rotate(t64(x), offset=3).numpy(), expected, atol=1e-10)


def test_yarn_attention_factor_override_and_hf_key():
    rope = nn.RotaryEmbedding(
        16,
        scaling={
            "rope_type": "yarn",
            "factor": 2,
            "original_max_position_embeddings": 64,
            "attention_factor": 1.0,
        },
    )
    assert rope.attention_factor == 1.0
    x = rand(3, 16, seed=16)
    np.testing.assert_allclose(
        np.linalg.norm(rope.rotate(t64(x)).numpy(), axis=-1), np.linalg.norm(x, axis=-1)
    )


def test_factor_one_changes_nothing():
    x = t64(rand(7, 16, seed=17))
    plain = nn.RotaryEmbedding(16).rotate(x, offset=9).numpy()
    for kind in ("linear", "ntk"):
        np.testing.assert_allclose(
            nn.RotaryEmbedding(16, scaling={"type": kind, "factor": 1}).rotate(x, 9).numpy(), plain
        )


# ---- errors -----------------------------------------------------------------------------
def test_rope_errors():
    with pytest.raises(ValueError, match="head_dim must be a positive even int.*got 7"):
        nn.RotaryEmbedding(7)
    rope = nn.RotaryEmbedding(8)
    with pytest.raises(
        ValueError, match=r"q must have shape \(..., T, head_dim=8\), got \(2, 3, 6\)"
    ):
        rope(mg.randn(2, 3, 6), mg.randn(2, 3, 8))
    with pytest.raises(ValueError, match=r"k must have shape .*got \(2, 3, 4\)"):
        rope(mg.randn(2, 3, 8), mg.randn(2, 3, 4))
    with pytest.raises(ValueError, match="offset must be a non-negative int"):
        rope.rotate(mg.randn(3, 8), offset=-1)
    with pytest.raises(ValueError, match="unknown scaling type 'dynamic'"):
        nn.RotaryEmbedding(8, scaling={"type": "dynamic", "factor": 2})
    with pytest.raises(ValueError, match="factor must be a finite number >= 1.*0.5"):
        nn.RotaryEmbedding(8, scaling={"type": "linear", "factor": 0.5})
    with pytest.raises(ValueError, match="needs a 'factor'"):
        nn.RotaryEmbedding(8, scaling={"type": "ntk"})
    with pytest.raises(ValueError, match="original_max_position_embeddings"):
        nn.RotaryEmbedding(8, scaling={"type": "yarn", "factor": 2})
    with pytest.raises(ValueError, match=r"unknown keys \['beta_fast'\] for 'linear'"):
        nn.RotaryEmbedding(8, scaling={"type": "linear", "factor": 2, "beta_fast": 3})
    with pytest.raises(TypeError, match="scaling must be a dict"):
        nn.RotaryEmbedding(8, scaling="linear")


YARN = {"type": "yarn", "factor": 2, "original_max_position_embeddings": 16}


@pytest.mark.parametrize(
    "kwargs,error,words",
    [
        (
            dict(head_dim=0),
            ValueError,
            "head_dim must be a positive even int (features are rotated in pairs), got 0",
        ),
        (
            dict(head_dim=-4),
            ValueError,
            "head_dim must be a positive even int (features are rotated in pairs), got -4",
        ),
        (dict(head_dim=8.0), TypeError, "head_dim must be an int, got 8.0 (float)"),
        (dict(head_dim=True), TypeError, "head_dim must be an int, got True (bool)"),
        (
            dict(head_dim=8, base=0),
            ValueError,
            "base must be a finite number > 1 (the pairs' speeds",
        ),
        (
            dict(head_dim=8, base=-10000.0),
            ValueError,
            "base must be a finite number > 1 (the pairs' speeds",
        ),
        (dict(head_dim=8, base=1), ValueError, "fall from 1 towards 1/base), got 1"),
        (dict(head_dim=8, base=math.inf), ValueError, "base must be a finite number > 1"),
        (dict(head_dim=8, base="10000"), TypeError, "base must be a number, got '10000' (str)"),
        (
            dict(head_dim=8, scaling={"factor": 2}),
            ValueError,
            "no scaling 'type' (or 'rope_type'); expected one of",
        ),
        (
            dict(head_dim=8, scaling={"type": "linear", "factor": 0}),
            ValueError,
            "a finite number >= 1 (the context",
        ),
        (
            dict(head_dim=8, scaling={"type": "ntk", "factor": -2}),
            ValueError,
            "factor must be a finite number >= 1",
        ),
        (
            dict(head_dim=8, scaling={"type": "linear", "factor": math.inf}),
            ValueError,
            "finite number >= 1",
        ),
        (dict(head_dim=8, scaling={"type": "linear", "factor": "2"}), ValueError, "got '2'"),
        (
            dict(head_dim=8, scaling={**YARN, "original_max_position_embeddings": 0}),
            ValueError,
            "(a positive int)",
        ),
        (
            dict(head_dim=8, scaling={**YARN, "beta_fast": "32"}),
            ValueError,
            "yarn's beta_fast must be a number",
        ),
        (
            dict(head_dim=8, scaling={**YARN, "beta_slow": None}),
            ValueError,
            "yarn's beta_slow must be a number",
        ),
        (
            dict(head_dim=8, scaling={**YARN, "attention_factor": 0}),
            ValueError,
            "must be a positive number or None",
        ),
        (
            dict(head_dim=8, scaling={**YARN, "truncate": "no"}),
            ValueError,
            "yarn's truncate must be True or False",
        ),
        (
            dict(head_dim=2, scaling={"type": "ntk", "factor": 2}),
            ValueError,
            "'ntk' scaling needs head_dim >= 4",
        ),
    ],
)
def test_rope_argument_errors(kwargs, error, words):
    with pytest.raises(error, match=f"^RotaryEmbedding: .*{re.escape(words)}"):
        nn.RotaryEmbedding(**kwargs)


def test_rope_accepts_numpy_numbers():
    """NumPy scalars (as read from a config array) are numbers like Python's."""
    scaling = {**YARN, "factor": np.float64(2.0), "original_max_position_embeddings": np.int64(16)}
    theirs = nn.RotaryEmbedding(np.int64(8), base=np.float32(500.0), scaling=scaling)
    mine = nn.RotaryEmbedding(8, base=500.0, scaling=YARN)
    np.testing.assert_array_equal(theirs.inv_freq, mine.inv_freq)
    assert theirs.attention_factor == mine.attention_factor


# ---- sinusoidal -------------------------------------------------------------------------
def vaswani(max_len, d):
    """PE[pos, 2i] = sin(pos / 10000^(2i/d)), PE[pos, 2i+1] = cos(pos / 10000^(2i/d)), one by
    one."""
    pe = np.zeros((max_len, d))
    for pos in range(max_len):
        for j in range(d):
            i = j // 2
            angle = pos / 10000 ** (2 * i / d)
            pe[pos, j] = math.sin(angle) if j % 2 == 0 else math.cos(angle)
    return pe


@pytest.mark.parametrize("d", [4, 16, 7])
def test_sinusoidal_values_against_vaswani(d):
    module = nn.SinusoidalPositionalEncoding(d, max_len=50).double()
    x = rand(2, 30, d, seed=18)
    np.testing.assert_allclose(
        module(t64(x)).numpy() - x, np.broadcast_to(vaswani(30, d), x.shape), atol=1e-12
    )
    np.testing.assert_allclose(
        module(t64(x[:, :5]), offset=40).numpy() - x[:, :5],
        np.broadcast_to(vaswani(45, d)[40:], (2, 5, d)),
        atol=1e-12,
    )


def test_sinusoidal_against_the_pytorch_tutorial_construction():
    d, max_len = 32, 100
    position = torch.arange(max_len).unsqueeze(1)
    div_term = torch.exp(torch.arange(0, d, 2) * (-math.log(10000.0) / d))
    pe = torch.zeros(max_len, d)
    pe[:, 0::2] = torch.sin(position * div_term)
    pe[:, 1::2] = torch.cos(position * div_term)
    module = nn.SinusoidalPositionalEncoding(d, max_len)
    assert module.pe.dtype == mg.float32 and module.state_dict() == {}
    np.testing.assert_allclose(module.pe.numpy(), pe.numpy(), atol=2e-5)


def test_sinusoidal_relative_shift_is_a_rotation():
    """PE[t + k] is PE[t] with each (sin, cos) pair turned by k * w_i (Vaswani's reason)."""
    d, k = 8, 5
    pe = nn.positional.sinusoidal_table(40, d)
    w = theta(d)
    for t in (0, 3, 20):
        for i in range(d // 2):
            c, s = math.cos(k * w[i]), math.sin(k * w[i])
            sin_t, cos_t = pe[t, 2 * i], pe[t, 2 * i + 1]
            assert pe[t + k, 2 * i] == pytest.approx(sin_t * c + cos_t * s, abs=1e-12)
            assert pe[t + k, 2 * i + 1] == pytest.approx(cos_t * c - sin_t * s, abs=1e-12)


def test_sinusoidal_gradcheck():
    module = nn.SinusoidalPositionalEncoding(6, max_len=20).double()
    x = t64(rand(2, 5, 6, seed=19), requires_grad=True)
    assert gradcheck(lambda x: module(x, offset=3) ** 2, (x,))


# ---- learned --------------------------------------------------------------------------
def test_learned_init_offset_and_gradients():
    mg.manual_seed(0)
    module = nn.LearnedPositionalEmbedding(512, 64)
    assert [name for name, _ in module.named_parameters()] == ["weight"]
    assert module.weight.shape == (512, 64)
    assert 0.018 < float(module.weight.std()) < 0.022 and abs(float(module.weight.mean())) < 0.002
    x = rand(3, 4, 64, seed=20)
    y = module(t64(x), offset=10)
    np.testing.assert_allclose(
        y.detach().numpy(), x + module.weight.detach().numpy()[10:14], rtol=1e-6
    )
    g = rand(3, 4, 64, seed=21)
    y.backward(t64(g))
    expected = np.zeros((512, 64))
    expected[10:14] = g.sum(0)
    np.testing.assert_allclose(module.weight.grad.numpy(), expected, rtol=1e-6, atol=1e-6)


def test_learned_gradcheck():
    module = nn.LearnedPositionalEmbedding(8, 4, dtype=mg.float64)
    x = t64(rand(2, 3, 4, seed=22), requires_grad=True)
    # the module reads its own weight, which gradcheck perturbs in place
    assert gradcheck(lambda x, weight: module(x, offset=2) ** 2, (x, module.weight))
    assert gradcheck(lambda x: module(x, offset=5), (x,))


def test_absolute_encoding_errors():
    for module in (
        nn.SinusoidalPositionalEncoding(8, max_len=10),
        nn.LearnedPositionalEmbedding(10, 8),
    ):
        name = type(module).__name__
        with pytest.raises(
            ValueError, match=rf"{name}: positions 8 .. 11 \(offset=8, T=4\) go past max_len=10"
        ):
            module(mg.randn(2, 4, 8), offset=8)
        with pytest.raises(ValueError, match=rf"{name}: positions 0 .. 10 .*max_len=10"):
            module(mg.randn(1, 11, 8))
        with pytest.raises(
            ValueError,
            match=rf"{name}: expected input of shape \(B, T, d_model=8\), got \(2, 4, 5\)",
        ):
            module(mg.randn(2, 4, 5))
        with pytest.raises(ValueError, match="offset must be a non-negative int"):
            module(mg.randn(2, 4, 8), offset=-2)
        module(mg.randn(2, 4, 8), offset=6)  # exactly reaching max_len is fine
