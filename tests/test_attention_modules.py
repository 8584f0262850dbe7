"""The attention modules: nn.Attention (diffusers' layer, with processors) and
nn.MultiHeadAttention (the plain form).

- nn.Attention against a PyTorch computation written from diffusers' documented math
  (with the same weights): self- and cross-attention, GQA/MQA, qk_norm, masks (float,
  bool, every accepted shape), out_dim, residual/rescale, image inputs; outputs and the
  gradients of the input and of every parameter;
- both processors give the same outputs and gradients, and AttnProcessor's kept
  probabilities are PyTorch's softmax; fuse_projections leaves the outputs unchanged;
  GQA equals full multi-head attention with repeated key/value heads;
- nn.MultiHeadAttention against torch.nn.MultiheadAttention loaded with its weights;
- float64 finite-difference gradient checks of both modules, and their errors.
"""

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import minigrad as mg
from minigrad import nn
from minigrad.autograd import gradcheck
from tests.helpers import assert_close, rand

TOL = dict(rtol=1e-9, atol=1e-11)


def tensor(array, requires_grad=False):
    return mg.tensor(np.array(array, dtype=np.float64), requires_grad=requires_grad)


def torch_params(module):
    """{name: float64 torch leaf} with the module's parameter values."""
    return {
        name: torch.tensor(p.detach().numpy(), requires_grad=True)
        for name, p in module.named_parameters()
    }


# ---- the oracle: diffusers' math in PyTorch ---------------------------------------------------
def diffusers_attention(attn, P, x, context=None, mask=None):
    """What diffusers' Attention computes, written out in PyTorch with the weights P.

    x (B, T_q, C) or (B, C, H, W); mask: an additive float torch mask broadcastable to
    (B, h, T_q, T_k), already per head (the oracle does no mask preparation).
    """
    residual, image = x, None
    if x.ndim == 4:
        image = x.shape
        x = x.reshape(x.shape[0], x.shape[1], -1).transpose(1, 2)
    context = x if context is None else context
    B, Tq, _ = x.shape
    h, hkv, d = attn.heads, attn.kv_heads, attn.dim_head

    def linear(name, t):
        return TF.linear(t, P[f"{name}.weight"], P.get(f"{name}.bias"))

    q = linear("to_q", x).view(B, Tq, h, d).transpose(1, 2)
    k = linear("to_k", context).view(B, -1, hkv, d).transpose(1, 2)
    v = linear("to_v", context).view(B, -1, hkv, d).transpose(1, 2)
    if attn.norm_q is not None:
        for name in ("norm_q", "norm_k"):
            t = q if name == "norm_q" else k
            if isinstance(attn.norm_q, nn.LayerNorm):
                t = TF.layer_norm(t, (d,), P[f"{name}.weight"], P[f"{name}.bias"], attn.norm_q.eps)
            else:
                t = TF.rms_norm(t, (d,), P[f"{name}.weight"], attn.norm_q.eps)
            q, k = (t, k) if name == "norm_q" else (q, t)
    k, v = k.repeat_interleave(h // hkv, dim=1), v.repeat_interleave(h // hkv, dim=1)
    scores = q @ k.transpose(-1, -2) / math.sqrt(d)
    if mask is not None:
        scores = scores + mask
    probs = scores.softmax(dim=-1)
    out = (probs @ v).transpose(1, 2).reshape(B, Tq, h * d)
    out = linear("to_out.0", out)
    if image is not None:
        out = out.transpose(1, 2).reshape(image)
    if attn.residual_connection:
        out = out + residual
    return out / attn.rescale_output_factor, probs


def check_against_diffusers_math(
    attn, x_shape, context_shape=None, mask=None, torch_mask=None, seed=0
):
    """Run the module and the oracle on the same inputs; compare the outputs and the
    gradients of the inputs and of every parameter for a random output gradient."""
    x_np = rand(*x_shape, seed=seed)
    c_np = None if context_shape is None else rand(*context_shape, seed=seed + 1)
    x = tensor(x_np, requires_grad=True)
    c = None if c_np is None else tensor(c_np, requires_grad=True)
    P = torch_params(attn)
    tx = torch.tensor(x_np, requires_grad=True)
    tc = None if c_np is None else torch.tensor(c_np, requires_grad=True)

    out = attn(x, c, attention_mask=mask)
    tout, probs = diffusers_attention(attn, P, tx, tc, torch_mask)
    assert_close(out, tout, **TOL)
    g = rand(*tout.shape, seed=seed + 7)
    out.backward(mg.tensor(g))
    tout.backward(torch.tensor(g))
    assert_close(x.grad, tx.grad, **TOL)
    if c is not None:
        assert_close(c.grad, tc.grad, **TOL)
    for name, p in attn.named_parameters():
        if P[name].grad is not None:  # to_qkv of a fused module has no counterpart
            assert_close(p.grad, P[name].grad, **TOL)
    attn.zero_grad()
    return out, probs


PROCESSORS = [nn.AttnProcessor, nn.AttnProcessor2_0]


@pytest.fixture(params=[p.__name__ for p in PROCESSORS])
def processor(request):
    return getattr(nn, request.param)


def make(processor=None, seed=0, **kwargs):
    mg.manual_seed(seed)
    kwargs.setdefault("dtype", mg.float64)
    attn = nn.Attention(processor=None if processor is None else processor(), **kwargs)
    # non-trivial norm weights and biases, not the 1 / 0 defaults
    for i, p in enumerate(attn.parameters()):
        p.array[...] = rand(*p.shape, seed=100 * seed + i) * 0.5 + (1.0 if p.ndim == 1 else 0.0)
    return attn


# ---- nn.Attention against diffusers' math -------------------------------------------------------
def test_self_attention(processor):
    attn = make(processor, query_dim=6, heads=3, dim_head=4, bias=True)
    check_against_diffusers_math(attn, (2, 5, 6))


def test_cross_attention(processor):
    attn = make(processor, query_dim=6, cross_attention_dim=5, heads=2, dim_head=3)
    check_against_diffusers_math(attn, (2, 4, 6), (2, 7, 5))


@pytest.mark.parametrize("kv_heads", [1, 2])
def test_grouped_and_multi_query(processor, kv_heads):
    attn = make(processor, query_dim=8, heads=4, kv_heads=kv_heads, dim_head=3, bias=True)
    assert attn.to_k.weight.shape == (kv_heads * 3, 8)
    check_against_diffusers_math(attn, (2, 5, 8))
    # a self-attention layer given other keys
    check_against_diffusers_math(attn, (2, 5, 8), (2, 3, 8))


@pytest.mark.parametrize("kv_heads", [1, 2])
def test_grouped_query_is_attention_with_repeated_kv_heads(processor, kv_heads):
    """GQA = full multi-head attention whose key/value heads are copies: query head j
    reads kv head j // (heads / kv_heads)."""
    gqa = make(processor, query_dim=8, heads=4, kv_heads=kv_heads, dim_head=3)
    full = make(processor, query_dim=8, heads=4, dim_head=3)
    groups = 4 // kv_heads
    for name in ("to_k", "to_v"):
        w = getattr(gqa, name).weight.detach().numpy().reshape(kv_heads, 1, 3, 8)  # (h_kv, 1, d, C)
        getattr(full, name).weight.array[...] = np.broadcast_to(
            w, (kv_heads, groups, 3, 8)
        ).reshape(12, 8)
    full.to_q.weight.array[...] = gqa.to_q.weight.array
    full.to_out[0].weight.array[...] = gqa.to_out[0].weight.array
    full.to_out[0].bias.array[...] = gqa.to_out[0].bias.array
    x = tensor(rand(2, 5, 8))
    assert_close(gqa(x), full(x).detach().numpy(), **TOL)


@pytest.mark.parametrize("qk_norm", ["layer_norm", "rms_norm"])
def test_qk_norm(processor, qk_norm):
    attn = make(processor, query_dim=6, heads=2, kv_heads=1, dim_head=4, qk_norm=qk_norm, eps=1e-3)
    norm = nn.LayerNorm if qk_norm == "layer_norm" else nn.RMSNorm
    assert (
        isinstance(attn.norm_q, norm)
        and attn.norm_q.normalized_shape == (4,)
        and attn.norm_k.eps == 1e-3
    )
    check_against_diffusers_math(attn, (2, 5, 6), (2, 3, 6))


def test_out_dim_sets_the_inner_width_and_the_heads(processor):
    # heads = 12 // 4, as diffusers
    attn = make(processor, query_dim=6, heads=8, dim_head=4, out_dim=12)
    assert (attn.heads, attn.inner_dim, attn.to_out[0].weight.shape) == (3, 12, (12, 12))
    out, _ = check_against_diffusers_math(attn, (2, 5, 6))
    assert out.shape == (2, 5, 12)


def test_residual_and_rescale(processor):
    attn = make(
        processor,
        query_dim=6,
        heads=2,
        dim_head=3,
        residual_connection=True,
        rescale_output_factor=2.5,
    )
    check_against_diffusers_math(attn, (2, 5, 6))


def test_image_input(processor):
    """(B, C, H, W) attends over its H * W pixels and comes back as an image."""
    attn = make(processor, query_dim=4, heads=2, dim_head=3, residual_connection=True)
    out, _ = check_against_diffusers_math(attn, (2, 4, 3, 5))
    assert out.shape == (2, 4, 3, 5)


# ---- masks ------------------------------------------------------------------------------------
B, TQ, TK, H = 2, 4, 5, 2


def _keep():
    keep = np.ones((B, TQ, TK), dtype=bool)
    keep[0, :, 3:] = False  # padding: batch entry 0 has 3 keys
    keep[1, 2, [0, 4]] = False
    return keep


@pytest.mark.parametrize(
    "layout",
    [
        "float (B, Tq, Tk)",
        "float (B, 1, Tk)",
        "float (B, Tk)",
        "float (B*h, Tq, Tk)",
        "bool (B, Tq, Tk)",
        "bool (B, Tk)",
    ],
)
def test_masks(processor, layout):
    attn = make(processor, query_dim=6, cross_attention_dim=3, heads=H, dim_head=3)
    additive = np.where(_keep(), 0.0, -1e4) + rand(B, TQ, TK, seed=3)  # any float values add
    per_head = np.stack([additive, additive * 0.5 - 1.0], axis=1)  # (B, h, Tq, Tk)
    if layout == "float (B, Tq, Tk)":
        mask, oracle = tensor(additive), additive[:, None]
    elif layout == "float (B, 1, Tk)":
        mask, oracle = tensor(additive[:, :1]), additive[:, None, :1]
    elif layout == "float (B, Tk)":
        mask, oracle = tensor(additive[:, 0]), additive[:, None, :1]
    elif layout == "float (B*h, Tq, Tk)":  # head j of batch b at row b * h + j, as diffusers
        mask, oracle = tensor(per_head.reshape(B * H, TQ, TK)), per_head
    elif layout == "bool (B, Tq, Tk)":
        mask, oracle = mg.tensor(_keep()), np.where(_keep(), 0.0, -np.inf)[:, None]
    else:
        mask, oracle = mg.tensor(_keep()[:, 0]), np.where(_keep()[:, :1], 0.0, -np.inf)[:, None]
    check_against_diffusers_math(attn, (B, TQ, 6), (B, TK, 3), mask, torch.tensor(oracle))


def test_prepare_attention_mask_repeats_for_each_head():
    attn = make(query_dim=6, heads=3, dim_head=2)
    mask = rand(2, 4, 5)
    prepared = attn.prepare_attention_mask(tensor(mask), target_length=5, batch_size=2)
    # diffusers' layout
    assert_close(prepared, torch.tensor(mask).repeat_interleave(3, dim=0), **TOL)
    prepared = attn.prepare_attention_mask(tensor(mask), target_length=5, batch_size=2, out_dim=4)
    assert_close(prepared, np.broadcast_to(mask[:, None], (2, 3, 4, 5)), **TOL)
    keep = np.array([[True, False, True, True, False]])
    prepared = attn.prepare_attention_mask(mg.tensor(keep), target_length=5, batch_size=1)
    assert_close(prepared, np.broadcast_to(np.where(keep, 0.0, -np.inf), (3, 1, 5)), **TOL)
    assert attn.prepare_attention_mask(None, 5, 2) is None


def test_a_query_with_every_key_masked_gets_zeros(processor):
    """As F.scaled_dot_product_attention: no NaN, the output is to_out's bias."""
    attn = make(processor, query_dim=4, heads=2, dim_head=2)
    keep = np.ones((1, 3, 3), dtype=bool)
    keep[0, 1] = False
    out = attn(tensor(rand(1, 3, 4)), attention_mask=mg.tensor(keep))
    assert_close(out[0, 1], attn.to_out[0].bias.detach().numpy(), **TOL)
    assert np.isfinite(out.detach().numpy()).all()


# ---- processors, probabilities, fused projections -----------------------------------------------
def test_processors_agree_and_can_be_swapped():
    attn = make(query_dim=8, heads=4, kv_heads=2, dim_head=3, qk_norm="rms_norm", bias=True)
    # the default, as diffusers with torch 2
    assert isinstance(attn.get_processor(), nn.AttnProcessor2_0)
    x, c = tensor(rand(2, 5, 8), requires_grad=True), tensor(rand(2, 3, 8), requires_grad=True)
    mask = tensor(rand(2, 5, 3))
    results = []
    for processor in (nn.AttnProcessor2_0(), nn.AttnProcessor()):
        attn.set_processor(processor)
        assert attn.get_processor() is processor
        out = attn(x, c, attention_mask=mask)
        out.backward(tensor(rand(2, 5, 8, seed=9)))
        results.append(
            [out.detach().numpy(), x.grad.detach().numpy(), c.grad.detach().numpy()]
            + [p.grad.detach().numpy() for p in attn.parameters()]
        )
        x.grad = c.grad = None
        attn.zero_grad()
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, **TOL)


def test_attn_processor_keeps_the_probabilities():
    processor = nn.AttnProcessor()
    attn = make(lambda: processor, query_dim=6, heads=3, dim_head=2)
    _, probs = check_against_diffusers_math(attn, (2, 4, 6), (2, 5, 6))
    kept = processor.last_attention_probs
    assert kept.shape == (2 * 3, 4, 5)
    assert_close(kept, probs.reshape(6, 4, 5), **TOL)  # row b * h + j: batch b, head j
    np.testing.assert_allclose(kept.detach().numpy().sum(-1), 1.0, rtol=1e-12)


def test_get_attention_scores_and_head_reshapes():
    attn = make(query_dim=6, heads=3, dim_head=2)
    q, k = rand(6, 4, 2), rand(6, 5, 2, seed=1)
    mask = rand(6, 1, 5, seed=2)
    expected = (
        torch.tensor(q) @ torch.tensor(k).transpose(1, 2) / math.sqrt(2) + torch.tensor(mask)
    ).softmax(-1)
    assert_close(attn.get_attention_scores(tensor(q), tensor(k), tensor(mask)), expected, **TOL)
    x = rand(2, 4, 6)  # heads are consecutive slices of the features; diffusers' layout
    split = torch.tensor(x).reshape(2, 4, 3, 2).permute(0, 2, 1, 3)
    assert_close(attn.head_to_batch_dim(tensor(x)), split.reshape(6, 4, 2), **TOL)
    assert_close(attn.head_to_batch_dim(tensor(x), out_dim=4), split, **TOL)
    assert_close(attn.batch_to_head_dim(attn.head_to_batch_dim(tensor(x))), x, **TOL)


@pytest.mark.parametrize("kv_heads", [None, 2])
@pytest.mark.parametrize("cross", [False, True])
def test_fuse_projections_leaves_outputs_unchanged(processor, cross, kv_heads):
    attn = make(
        processor,
        query_dim=8,
        cross_attention_dim=5 if cross else None,
        heads=4,
        kv_heads=kv_heads,
        dim_head=3,
        bias=True,
    )
    x, c = tensor(rand(2, 5, 8)), tensor(rand(2, 3, 5)) if cross else None
    before = attn(x, c).detach().numpy()
    attn.fuse_projections()
    fused = attn.to_kv if cross else attn.to_qkv
    assert attn.fused_projections
    widths = (
        [attn.inner_kv_dim] * 2 if cross else [attn.inner_dim, attn.inner_kv_dim, attn.inner_kv_dim]
    )
    assert fused.weight.shape == (sum(widths), 5 if cross else 8) and fused.bias.shape == (
        sum(widths),
    )
    out = attn(x, c)
    np.testing.assert_allclose(out.detach().numpy(), before, rtol=1e-12, atol=1e-14)
    out.sum().backward()  # the fused layer is the one in use now
    assert fused.weight.grad is not None and attn.to_k.weight.grad is None
    attn.fuse_projections(False)
    np.testing.assert_allclose(attn(x, c).detach().numpy(), before, rtol=1e-12, atol=1e-14)


def test_dropout_acts_on_the_output_in_training_only():
    attn = make(query_dim=8, heads=2, dim_head=4, dropout=0.5)
    x = tensor(rand(3, 20, 8))
    attn.eval()
    expected = attn(x).detach().numpy()
    attn.train()
    mg.manual_seed(1)
    out = attn(x).detach().numpy()
    dropped = out == 0.0
    assert 0.3 < dropped.mean() < 0.7
    np.testing.assert_allclose(out[~dropped], 2.0 * expected[~dropped], rtol=1e-12)


# ---- gradient checks -----------------------------------------------------------------------------
@pytest.mark.parametrize("processor_name", ["AttnProcessor", "AttnProcessor2_0"])
def test_attention_gradcheck(processor_name):
    attn = make(
        getattr(nn, processor_name), query_dim=4, cross_attention_dim=3, heads=2, kv_heads=1,
        dim_head=2, qk_norm="layer_norm", bias=True, residual_connection=True,
        rescale_output_factor=1.5,
    )  # fmt: skip
    x, c = (
        tensor(rand(2, 3, 4), requires_grad=True),
        tensor(rand(2, 2, 3, seed=1), requires_grad=True),
    )
    mask = tensor(rand(2, 1, 2, seed=2))
    assert gradcheck(lambda x, c: attn(x, c, attention_mask=mask), [x, c])
    # ... and the parameters: gradcheck perturbs its inputs in place, so the module's own
    # parameters can be the inputs of a function that just runs the module
    params = [attn.to_q.weight, attn.to_k.bias, attn.norm_k.weight, attn.to_out[0].weight]
    assert gradcheck(lambda *params: attn(x.detach(), c.detach(), attention_mask=mask), params)


def test_multi_head_attention_gradcheck():
    mg.manual_seed(0)
    mha = nn.MultiHeadAttention(4, 2, dtype=mg.float64)
    q, k, v = (tensor(rand(2, 3, 4, seed=s), requires_grad=True) for s in range(3))
    assert gradcheck(lambda q, k, v: mha(q, k, v), [q, k, v])
    assert gradcheck(lambda q: mha(q, q, q, is_causal=True), [q])
    mask = tensor(rand(2, 2, 3, 3, seed=5))
    assert gradcheck(lambda q, k, v: mha(q, k, v, attn_mask=mask), [q, k, v])
    assert gradcheck(
        lambda *params: mha(q.detach(), k.detach(), v.detach()), list(mha.parameters())
    )


# ---- nn.MultiHeadAttention against PyTorch's MultiheadAttention ----------------------------------
def torch_mha(mha):
    t = torch.nn.MultiheadAttention(
        mha.d_model, mha.num_heads, batch_first=True, dtype=torch.float64
    )
    with torch.no_grad():
        t.in_proj_weight.copy_(
            torch.tensor(
                np.concatenate(
                    [
                        mha.W_q.weight.detach().numpy(),
                        mha.W_k.weight.detach().numpy(),
                        mha.W_v.weight.detach().numpy(),
                    ]
                )
            )
        )
        t.in_proj_bias.copy_(
            torch.tensor(
                np.concatenate(
                    [
                        mha.W_q.bias.detach().numpy(),
                        mha.W_k.bias.detach().numpy(),
                        mha.W_v.bias.detach().numpy(),
                    ]
                )
            )
        )
        t.out_proj.weight.copy_(torch.tensor(mha.W_o.weight.detach().numpy()))
        t.out_proj.bias.copy_(torch.tensor(mha.W_o.bias.detach().numpy()))
    return t


@pytest.mark.parametrize(
    "case", ["self", "cross", "causal", "bool 2-D", "float 3-D", "float per head", "bool per head"]
)
def test_multi_head_attention_against_pytorch(case):
    mg.manual_seed(0)
    mha = nn.MultiHeadAttention(6, 3, dtype=mg.float64)
    t = torch_mha(mha)
    Tq, Tk = 4, (4 if case in ("self", "causal") else 5)
    arrays = [rand(2, Tq, 6), rand(2, Tk, 6, seed=1), rand(2, Tk, 6, seed=2)]
    if case == "self":
        arrays[1] = arrays[2] = arrays[0]
    mine = [tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    keep = rand(2, 3, Tq, Tk, seed=4) > -0.8
    keep[..., 0] = True  # every query sees a key (PyTorch's MHA gives NaN otherwise)
    kwargs, tkwargs = {}, {}
    if case == "causal":
        kwargs = dict(is_causal=True)
        tkwargs = dict(
            attn_mask=torch.triu(torch.ones(Tq, Tk, dtype=torch.bool), 1), is_causal=True
        )
    elif case == "bool 2-D":  # minigrad: True = may attend; PyTorch's MHA: True = masked
        kwargs, tkwargs = (
            dict(attn_mask=mg.tensor(keep[0, 0])),
            dict(attn_mask=torch.tensor(~keep[0, 0])),
        )
    elif case == "float 3-D":
        m = rand(2, Tq, Tk, seed=6)
        kwargs = dict(attn_mask=tensor(m))
        # PyTorch: (B * h, Tq, Tk)
        tkwargs = dict(attn_mask=torch.tensor(m).repeat_interleave(3, dim=0))
    elif case == "float per head":
        m = rand(2, 3, Tq, Tk, seed=6)
        kwargs, tkwargs = (
            dict(attn_mask=tensor(m)),
            dict(attn_mask=torch.tensor(m).reshape(6, Tq, Tk)),
        )
    elif case == "bool per head":
        kwargs, tkwargs = (
            dict(attn_mask=mg.tensor(keep)),
            dict(attn_mask=torch.tensor(~keep).reshape(6, Tq, Tk)),
        )
    out = mha(*mine, **kwargs)
    tout, _ = t(*theirs, need_weights=False, **tkwargs)
    assert_close(out, tout, **TOL)
    g = rand(*tout.shape, seed=8)
    out.backward(tensor(g))
    tout.backward(torch.tensor(g))
    for a, b in zip(mine, theirs):
        if case == "self":
            a, b = mine[0], theirs[0]
        assert_close(a.grad, b.grad, **TOL)
    assert_close(mha.W_o.weight.grad, t.out_proj.weight.grad, **TOL)
    w_grad = np.concatenate(
        [
            mha.W_q.weight.grad.detach().numpy(),
            mha.W_k.weight.grad.detach().numpy(),
            mha.W_v.weight.grad.detach().numpy(),
        ]
    )
    assert_close(w_grad, t.in_proj_weight.grad, **TOL)


def test_multi_head_attention_dropout_and_options():
    mg.manual_seed(0)
    mha = nn.MultiHeadAttention(8, 2, dropout=0.5, bias=False, dtype=mg.float64)
    assert mha.W_q.bias is None and mha.d_k == 4 and mha.W_q.weight.dtype == np.float64
    x = tensor(rand(2, 6, 8))
    mha.eval()
    a, b = mha(x, x, x).detach().numpy(), mha(x, x, x).detach().numpy()
    np.testing.assert_array_equal(a, b)  # eval: no dropout
    mha.train()
    mg.manual_seed(1)
    c = mha(x, x, x).detach().numpy()
    mg.manual_seed(1)
    np.testing.assert_array_equal(c, mha(x, x, x).detach().numpy())  # seeded
    assert not np.allclose(a, c)


# ---- errors -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(query_dim=8, heads=4, kv_heads=3), "kv_heads \\(3\\) must divide heads \\(4\\)"),
        (dict(query_dim=8, qk_norm="batch_norm"), "unknown qk_norm"),
        (
            dict(query_dim=8, out_dim=10, dim_head=4),
            "out_dim \\(10\\) must be a multiple of dim_head \\(4\\)",
        ),
        (
            dict(query_dim=8, out_dim=12, dim_head=4, residual_connection=True),
            "out_dim \\(12\\) must equal query_dim",
        ),
        (dict(query_dim=0), "query_dim must be a positive integer"),
        (dict(query_dim=8, dropout=1.5), "dropout must be a probability"),
    ],
)
def test_attention_config_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        nn.Attention(**kwargs)


def test_attention_input_errors():
    attn = make(query_dim=6, cross_attention_dim=4, heads=2, dim_head=3)
    x, c = tensor(rand(2, 5, 6)), tensor(rand(2, 3, 4))
    with pytest.raises(
        ValueError, match="hidden_states must have shape \\(B, T, query_dim\\).*got \\(2, 5, 7\\)"
    ):
        attn(tensor(rand(2, 5, 7)), c)
    with pytest.raises(
        ValueError,
        match="encoder_hidden_states must have shape .*cross_attention_dim = 4, got \\(2, 3, 6\\)",
    ):
        attn(x, tensor(rand(2, 3, 6)))
    with pytest.raises(ValueError, match="B = 2.*got \\(1, 3, 4\\)"):
        attn(x, tensor(rand(1, 3, 4)))
    with pytest.raises(ValueError, match="give encoder_hidden_states"):
        attn(x)
    with pytest.raises(
        ValueError, match="attention_mask must have shape .*T_k = 3, got \\(2, 5, 4\\)"
    ):
        attn(x, c, attention_mask=tensor(rand(2, 5, 4)))
    with pytest.raises(
        ValueError, match="attention_mask must have shape .*heads = 2.*got \\(3, 5, 3\\)"
    ):
        attn(x, c, attention_mask=tensor(rand(3, 5, 3)))
    with pytest.raises(TypeError, match="attention_mask must be float .* or bool .*got int64"):
        attn(x, c, attention_mask=mg.tensor(np.ones((2, 3), dtype=np.int64)))
    with pytest.raises(ValueError, match="only_cross_attention=True needs encoder_hidden_states"):
        make(query_dim=6, heads=2, dim_head=3, only_cross_attention=True)(x)
    with pytest.raises(TypeError, match="processor must be callable"):
        attn.set_processor("sdpa")
    with pytest.raises(
        TypeError, match="pass a processor instance, AttnProcessor\\(\\), not the class"
    ):
        attn.set_processor(nn.AttnProcessor)


def test_multi_head_attention_errors():
    with pytest.raises(ValueError, match="d_model \\(10\\) must be divisible by num_heads \\(4\\)"):
        nn.MultiHeadAttention(10, 4)
    with pytest.raises(ValueError, match="num_heads must be a positive integer"):
        nn.MultiHeadAttention(8, 0)
    mha = nn.MultiHeadAttention(8, 2)
    x = mg.randn(2, 5, 8)
    with pytest.raises(
        ValueError, match="key must have shape \\(batch, length, d_model=8\\), got \\(2, 5, 6\\)"
    ):
        mha(x, mg.randn(2, 5, 6), x)
    with pytest.raises(ValueError, match="key and value must have the same length"):
        mha(x, mg.randn(2, 4, 8), x)
    with pytest.raises(ValueError, match="same batch size"):
        mha(x, mg.randn(3, 5, 8), mg.randn(3, 5, 8))
    for bad in [(5,), (5, 4), (3, 5, 5), (2, 3, 5, 5), (1, 2, 1, 5, 5)]:
        with pytest.raises(ValueError, match=f"attn_mask must have shape .*got \\({bad[0]}"):
            mha(x, x, x, attn_mask=mg.zeros(*bad))
    with pytest.raises(TypeError, match="attn_mask must be bool .* or float"):
        mha(x, x, x, attn_mask=mg.tensor(np.zeros((5, 5), dtype=np.int64)))
    with pytest.raises(ValueError, match="not both"):
        mha(x, x, x, attn_mask=mg.zeros(5, 5), is_causal=True)
