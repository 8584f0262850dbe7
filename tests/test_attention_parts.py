"""The shared pieces of the attention layers (minigrad/nn/functional/attention_parts.py),
and the bool-mask convention of every public attention class, held against PyTorch.

- split_heads / merge_heads, causal_mask, additive_mask, repeat_kv and attention
  against the same computation in PyTorch (float64), and a finite-difference check of
  attention's gradient;
- each class's bool mask, given to it as its docstring says, against PyTorch on the same
  weights: nn.MultiheadAttention and F.scaled_dot_product_attention against torch's own
  (True = masked out, True = may attend); nn.MultiHeadAttention and nn.Attention (True =
  may attend) against torch's F.scaled_dot_product_attention on their projections.
  A convention read the wrong way round hides the other keys and fails the comparison.
"""

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import minigrad as mg
import minigrad.nn.functional as F
from minigrad import nn
from minigrad.autograd import gradcheck
from minigrad.nn.functional.attention_parts import (
    additive_mask,
    attention,
    causal_mask,
    check_mask,
    merge_heads,
    repeat_kv,
    split_heads,
)
from tests.helpers import assert_close, rand

TOL = dict(rtol=1e-9, atol=1e-11)
B, H, T_Q, T_K, D = 2, 4, 3, 5, 3


def keep_mask(shape, seed=0):
    """A random bool keep mask (True = may attend) in which every row keeps some keys and
    hides others, so that reading it the other way round changes every row."""
    keep = np.random.default_rng(seed).random(shape) < 0.5
    keep[..., 0], keep[..., 1] = True, False
    return keep


def weights(module):
    """{name: float64 torch tensor} of a module's parameters."""
    return {name: torch.tensor(p.detach().numpy()) for name, p in module.named_parameters()}


def torch_heads(x, h):
    """(B, T, h * d) -> (B, h, T, d), in PyTorch."""
    return x.view(x.shape[0], x.shape[1], h, -1).transpose(1, 2)


def torch_merge(x):
    """(B, h, T, d) -> (B, T, h * d), in PyTorch."""
    return x.transpose(1, 2).reshape(x.shape[0], x.shape[2], -1)


# ---- the pieces ----------------------------------------------------------------------------------
def test_split_and_merge_heads_are_torchs_view_and_transpose():
    x = rand(B, T_K, H * D, seed=1)
    heads = split_heads(mg.tensor(x), H)
    assert_close(heads, torch_heads(torch.tensor(x), H), **TOL)
    assert_close(merge_heads(heads), x, **TOL)


@pytest.mark.parametrize("past", [0, 2])
def test_causal_mask_is_the_shifted_lower_triangle(past):
    expected = torch.ones(T_Q, past + T_Q, dtype=torch.bool).tril(diagonal=past)
    assert np.array_equal(causal_mask(T_Q, past + T_Q, past).numpy(), expected.numpy())


def test_additive_mask_reads_a_bool_mask_as_keep_and_keeps_a_float_one():
    keep = keep_mask((T_Q, T_K))
    additive = additive_mask(mg.tensor(keep), np.float64).numpy()
    assert np.array_equal(additive, np.where(keep, 0.0, -np.inf)) and additive.dtype == np.float64
    bias = mg.tensor(rand(T_Q, T_K, seed=2).astype(np.float32), requires_grad=True)
    cast = additive_mask(bias, np.float64)
    cast.sum().backward()
    assert cast.dtype == np.float64
    assert np.array_equal(bias.grad.numpy(), np.ones((T_Q, T_K), np.float32))
    assert additive_mask(None, np.float64) is None


def test_check_mask_names_the_op_the_argument_and_the_convention():
    with pytest.raises(TypeError, match=r"^Op: m must be a Tensor \(bool or float\), got list"):
        check_mask([True], "Op", "m")
    words = r"m must be float .* or bool \(True = masked out\), got int64"
    with pytest.raises(TypeError, match=r"^Op: .*" + words):
        check_mask(mg.tensor([1, 0]), "Op", "m", bool_means="True = masked out")


def test_repeat_kv_is_repeat_interleave_and_sums_the_gradient_back():
    x = rand(B, 2, T_K, D, seed=3)
    mine = mg.tensor(x, requires_grad=True)
    theirs = torch.tensor(x, requires_grad=True)
    out, expected = repeat_kv(mine, 3), theirs.repeat_interleave(3, dim=-3)
    assert_close(out, expected, **TOL)
    g = rand(*expected.shape, seed=4)
    out.backward(mg.tensor(g))
    expected.backward(torch.tensor(g))
    assert_close(mine.grad, theirs.grad, **TOL)
    assert repeat_kv(mine, 1) is mine


@pytest.mark.parametrize("causal", [False, True])
def test_attention_is_torchs_softmax_attention_with_its_weights(causal):
    q, k, v = rand(B, H, T_Q, D, seed=5), rand(B, H, T_K, D, seed=6), rand(B, H, T_K, 2, seed=7)
    keep = keep_mask((T_Q, T_K), seed=8)
    mask = None if causal else additive_mask(mg.tensor(keep), np.float64)
    out, probs = attention(mg.tensor(q), mg.tensor(k), mg.tensor(v), mask, is_causal=causal)
    tq, tk, tv = torch.tensor(q), torch.tensor(k), torch.tensor(v)
    t_mask = None if causal else torch.tensor(keep)
    expected = TF.scaled_dot_product_attention(tq, tk, tv, t_mask, is_causal=causal)
    assert_close(out, expected, **TOL)
    allowed = torch.ones(T_Q, T_K, dtype=torch.bool).tril() if causal else torch.tensor(keep)
    scores = (tq @ tk.transpose(-1, -2) / D**0.5).masked_fill(~allowed, float("-inf"))
    assert_close(probs, scores.softmax(-1), **TOL)


def test_attention_gradient_against_finite_differences():
    keep = mg.tensor(keep_mask((T_Q, T_K), seed=9))
    mask = additive_mask(keep, np.float64)
    inputs = [mg.tensor(rand(2, T_Q, D, seed=10), requires_grad=True)]
    inputs += [mg.tensor(rand(2, T_K, D, seed=s), requires_grad=True) for s in (11, 12)]
    assert gradcheck(lambda q, k, v: attention(q, k, v, mask)[0], inputs)


# ---- each class's bool convention, against PyTorch ---------------------------------------
def test_scaled_dot_product_attention_true_may_attend_as_torch():
    q, k, v = rand(B, H, T_Q, D, seed=13), rand(B, H, T_K, D, seed=14), rand(B, H, T_K, D, seed=15)
    keep = keep_mask((B, 1, T_Q, T_K), seed=16)
    mine = F.scaled_dot_product_attention(*map(mg.tensor, (q, k, v)), attn_mask=mg.tensor(keep))
    tq, tk, tv = map(torch.tensor, (q, k, v))
    theirs = TF.scaled_dot_product_attention(tq, tk, tv, attn_mask=torch.tensor(keep))
    assert_close(mine, theirs, **TOL)


@pytest.mark.parametrize("need_weights", [True, False])
def test_torch_style_multihead_attention_true_is_masked_out_as_torch(need_weights):
    torch.manual_seed(0)
    theirs = torch.nn.MultiheadAttention(H * D, H, batch_first=True).double()
    mine = nn.MultiheadAttention(H * D, H, batch_first=True).double()
    mine.load_state_dict({k: v.numpy() for k, v in theirs.state_dict().items()})
    x = rand(B, T_K, H * D, seed=17)
    hidden, padding = ~keep_mask((T_K, T_K), seed=18), ~keep_mask((B, T_K), seed=19)
    padding[:, 0] = False  # (with the attn_mask's key 0 visible, no row is all hidden)
    m_masks = dict(attn_mask=mg.tensor(hidden), key_padding_mask=mg.tensor(padding))
    t_masks = dict(attn_mask=torch.tensor(hidden), key_padding_mask=torch.tensor(padding))
    out, w = mine(*[mg.tensor(x)] * 3, need_weights=need_weights, **m_masks)
    t_out, t_w = theirs(*[torch.tensor(x)] * 3, need_weights=need_weights, **t_masks)
    assert_close(out, t_out.detach(), **TOL)
    if need_weights:
        assert_close(w, t_w.detach(), **TOL)


def test_seed_multi_head_attention_true_may_attend_as_torch_sdpa():
    mg.manual_seed(0)
    mha = nn.MultiHeadAttention(H * D, H, dtype=mg.float64)
    P = weights(mha)
    query, memory = rand(B, T_Q, H * D, seed=20), rand(B, T_K, H * D, seed=21)
    keep = keep_mask((B, T_Q, T_K), seed=22)
    mine = mha(mg.tensor(query), mg.tensor(memory), mg.tensor(memory), attn_mask=mg.tensor(keep))

    def project(name, x):
        return torch_heads(TF.linear(torch.tensor(x), P[f"{name}.weight"], P[f"{name}.bias"]), H)

    q, k, v = project("W_q", query), project("W_k", memory), project("W_v", memory)
    heads = TF.scaled_dot_product_attention(q, k, v, attn_mask=torch.tensor(keep).unsqueeze(1))
    assert_close(mine, TF.linear(torch_merge(heads), P["W_o.weight"], P["W_o.bias"]), **TOL)


@pytest.mark.parametrize("processor", [nn.AttnProcessor, nn.AttnProcessor2_0])
def test_diffusers_attention_true_may_attend_as_torch_sdpa(processor):
    mg.manual_seed(0)
    attn = nn.Attention(6, heads=H, kv_heads=2, dim_head=D, bias=True, processor=processor())
    attn = attn.double()
    P = weights(attn)
    x = rand(B, T_K, 6, seed=23)
    keep = keep_mask((B, T_K, T_K), seed=24)
    mine = attn(mg.tensor(x), attention_mask=mg.tensor(keep))

    def project(name, heads):
        y = TF.linear(torch.tensor(x), P[f"{name}.weight"], P[f"{name}.bias"])
        return torch_heads(y, heads)

    q, k, v = project("to_q", H), project("to_k", 2), project("to_v", 2)
    k, v = k.repeat_interleave(H // 2, dim=1), v.repeat_interleave(H // 2, dim=1)
    heads = TF.scaled_dot_product_attention(q, k, v, attn_mask=torch.tensor(keep).unsqueeze(1))
    expected = TF.linear(torch_merge(heads), P["to_out.0.weight"], P["to_out.0.bias"])
    assert_close(mine, expected, **TOL)
