"""nn.MultiheadAttention against torch.nn.MultiheadAttention, and its own properties.

- parameter names and shapes as PyTorch (packed in_proj_weight, or q/k/v_proj_weight
  when kdim/vdim differ; bias=False; add_bias_kv), initialisation as PyTorch;
- after loading a PyTorch state dict: outputs, attention weights (averaged and per
  head) and the gradients of the inputs and of every parameter, in float64, with masks
  (bool and float attn_mask, 2-D and per head, bool and float key padding), is_causal,
  kdim/vdim, add_bias_kv, add_zero_attn, batch_first=False and unbatched inputs;
- need_weights=False runs F.scaled_dot_product_attention; dropout only in training;
- float64 gradient checks against finite differences, of inputs, parameters, a float mask;
- clear errors for bad arguments.
"""

import re

import numpy as np
import pytest
import torch

import minigrad as mg
import minigrad.nn.functional as F
from minigrad import nn
from minigrad.autograd import gradcheck
from tests.helpers import assert_close, rand

# The torch names whose behaviour this file checks against torch (read by tools/api_coverage.py).
TORCH_API = [
    "torch.nn.MultiheadAttention",
]

E, H, B, L, S = 8, 2, 3, 4, 5
TOL = dict(rtol=1e-9, atol=1e-11)


def pair(seed=0, **kwargs):
    """A torch MultiheadAttention (batch_first=True, float64) and a minigrad one holding
    the same weights."""
    torch.manual_seed(seed)
    theirs = torch.nn.MultiheadAttention(
        E, H, batch_first=kwargs.pop("batch_first", True), **kwargs
    ).double()
    mine = nn.MultiheadAttention(E, H, batch_first=theirs.batch_first, **kwargs).double()
    mine.load_state_dict({k: v.detach().numpy() for k, v in theirs.state_dict().items()})
    return theirs, mine


def masks(kind, seed=3):
    """(attn_mask, key_padding_mask) as NumPy arrays for each kind; every query keeps
    key 0 visible, so no row is fully masked (PyTorch gives NaN there, minigrad zeros)."""
    rng = np.random.default_rng(seed)
    hidden = rng.random((L, S)) < 0.4
    hidden[:, 0] = False
    padding = rng.random((B, S)) < 0.4
    padding[:, 0] = False
    per_head = rng.random((B * H, L, S)) < 0.4
    per_head[:, :, 0] = False
    return {
        "none": (None, None),
        "bool": (hidden, None),
        "float": (rng.standard_normal((L, S)), None),
        "bool_per_head": (per_head, None),
        "float_per_head": (rng.standard_normal((B * H, L, S)), None),
        "padding_bool": (None, padding),
        "padding_float": (None, np.where(padding, -1e9, 0.0) + 0.1 * rng.standard_normal((B, S))),
        "both": (hidden, padding),
    }[kind]


def run_both(theirs, mine, q, k, v, grad_seed=7, **kwargs):
    """Forward both on copies of q, k, v (the same array for a self-attention call),
    backward the same random output gradient; compare outputs, weights and gradients."""
    self_attention = q is k and k is v
    tq, tk, tv = (torch.tensor(a, requires_grad=True) for a in (q, k, v))
    mq, mk, mv = (mg.tensor(a, requires_grad=True) for a in (q, k, v))
    if self_attention:
        tk = tv = tq
        mk = mv = mq
    targs = {n: (torch.tensor(a) if isinstance(a, np.ndarray) else a) for n, a in kwargs.items()}
    margs = {n: (mg.tensor(a) if isinstance(a, np.ndarray) else a) for n, a in kwargs.items()}
    tout, tw = theirs(tq, tk, tv, **targs)
    mout, mw = mine(mq, mk, mv, **margs)
    assert_close(mout, tout, **TOL)
    assert (mw is None) == (tw is None)
    if tw is not None:
        assert_close(mw, tw, **TOL)
    g = rand(*tout.shape, seed=grad_seed)
    tout.backward(torch.tensor(g))
    mout.backward(mg.tensor(g))
    for m, t in ((mq, tq), (mk, tk), (mv, tv)):
        assert_close(m.grad, t.grad, **TOL)
    tparams = dict(theirs.named_parameters())
    for name, p in mine.named_parameters():
        assert_close(p.grad, tparams[name].grad, **TOL)


# ---- parameters and initialisation ------------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"kdim": 6, "vdim": 5},
        {"bias": False},
        {"add_bias_kv": True},
        {"kdim": 3, "bias": False},
    ],
)
def test_parameters_match_pytorch(kwargs):
    theirs = torch.nn.MultiheadAttention(E, H, **kwargs)
    mine = nn.MultiheadAttention(E, H, **kwargs)
    assert {k: tuple(v.shape) for k, v in mine.state_dict().items()} == {
        k: tuple(v.shape) for k, v in theirs.state_dict().items()
    }
    assert mine._qkv_same_embed_dim == theirs._qkv_same_embed_dim
    assert type(mine.out_proj).__name__ == "NonDynamicallyQuantizableLinear"
    assert isinstance(mine.out_proj, nn.Linear)
    assert mine.head_dim == E // H and mine.batch_first == theirs.batch_first


def test_initialisation_as_pytorch():
    mg.manual_seed(0)
    mha = nn.MultiheadAttention(64, 4, add_bias_kv=True)
    w = mha.in_proj_weight.detach().numpy()
    bound = np.sqrt(6 / (64 + 3 * 64))  # xavier_uniform_ on the whole (3E, E) matrix
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.95 * bound
    assert abs(w.std() - bound / np.sqrt(3)) < 0.05 * bound
    assert (
        not mha.in_proj_bias.detach().numpy().any() and not mha.out_proj.bias.detach().numpy().any()
    )
    assert np.abs(mha.out_proj.weight.detach().numpy()).max() <= 1 / np.sqrt(64)  # Linear's default
    assert mha.bias_k.detach().numpy().std() > 0
    separate = nn.MultiheadAttention(64, 4, kdim=32)
    assert np.abs(separate.k_proj_weight.detach().numpy()).max() <= np.sqrt(6 / (64 + 32))


# ---- parity with PyTorch --------------------------------------------------------------------
@pytest.mark.parametrize(
    "kind", ["none", "bool", "float", "bool_per_head", "float_per_head", "padding_bool", "both"]
)
@pytest.mark.parametrize("need_weights,average", [(True, True), (True, False), (False, True)])
def test_matches_pytorch_with_masks(kind, need_weights, average):
    theirs, mine = pair()
    attn_mask, padding = masks(kind)
    q, k, v = rand(B, L, E, seed=0), rand(B, S, E, seed=1), rand(B, S, E, seed=2)
    run_both(
        theirs,
        mine,
        q,
        k,
        v,
        attn_mask=attn_mask,
        key_padding_mask=padding,
        need_weights=need_weights,
        average_attn_weights=average,
    )


def test_float_key_padding_mask_matches_pytorch():
    theirs, mine = pair()
    _, padding = masks("padding_float")
    q, k, v = rand(B, L, E, seed=0), rand(B, S, E, seed=1), rand(B, S, E, seed=2)
    run_both(theirs, mine, q, k, v, key_padding_mask=padding, need_weights=False)
    run_both(theirs, mine, q, k, v, key_padding_mask=padding, average_attn_weights=False)


@pytest.mark.parametrize(
    "kwargs",
    [{"kdim": 6, "vdim": 5}, {"bias": False}, {"add_bias_kv": True}, {"add_zero_attn": True}],
)
@pytest.mark.parametrize("need_weights", [True, False])
def test_options_match_pytorch(kwargs, need_weights):
    theirs, mine = pair(**kwargs)
    attn_mask, padding = masks("both")
    q = rand(B, L, E, seed=0)
    k, v = rand(B, S, kwargs.get("kdim", E), seed=1), rand(B, S, kwargs.get("vdim", E), seed=2)
    run_both(
        theirs,
        mine,
        q,
        k,
        v,
        attn_mask=attn_mask,
        key_padding_mask=padding,
        need_weights=need_weights,
    )


def test_defaults_match_pytorch():
    """Built with embed_dim and num_heads only: batch_first=False, (seq, batch, embed)
    inputs, as torch's; L, S and B all differ, so a layout misread cannot pass."""
    torch.manual_seed(0)
    theirs = torch.nn.MultiheadAttention(E, H).double()
    mine = nn.MultiheadAttention(E, H).double()
    mine.load_state_dict({k: v.detach().numpy() for k, v in theirs.state_dict().items()})
    attn_mask, padding = masks("both")
    q, k, v = rand(L, B, E, seed=0), rand(S, B, E, seed=1), rand(S, B, E, seed=2)
    run_both(theirs, mine, q, k, v, attn_mask=attn_mask, key_padding_mask=padding)
    run_both(theirs, mine, q, k, v, key_padding_mask=padding, need_weights=False)
    x = rand(L, B, E, seed=3)
    run_both(
        theirs, mine, x, x, x, is_causal=True, attn_mask=np.triu(np.ones((L, L), dtype=bool), k=1)
    )
    assert mine.batch_first is theirs.batch_first is False
    assert mine.dropout == theirs.dropout == 0.0


@pytest.mark.parametrize("need_weights", [True, False])
def test_self_attention_packed_projection_matches_pytorch(need_weights):
    theirs, mine = pair()
    x = rand(B, L, E, seed=0)
    run_both(theirs, mine, x, x, x, need_weights=need_weights)


def test_seq_first_and_unbatched_match_pytorch():
    theirs, mine = pair(batch_first=False)
    attn_mask, padding = masks("both")
    run_both(
        theirs,
        mine,
        rand(L, B, E, seed=0),
        rand(S, B, E, seed=1),
        rand(S, B, E, seed=2),
        attn_mask=attn_mask,
        key_padding_mask=padding,
    )
    theirs, mine = pair()
    for per_head in (False, True):
        mask = masks("bool_per_head")[0][:H] if per_head else masks("bool")[0]
        run_both(
            theirs,
            mine,
            rand(L, E, seed=0),
            rand(S, E, seed=1),
            rand(S, E, seed=2),
            attn_mask=mask,
            key_padding_mask=masks("padding_bool")[1][0],
            average_attn_weights=per_head,
        )


@pytest.mark.parametrize("need_weights", [True, False])
@pytest.mark.parametrize("with_padding", [False, True])
def test_is_causal_matches_pytorch(need_weights, with_padding):
    theirs, mine = pair()
    causal = np.triu(np.ones((L, L), dtype=bool), k=1)
    padding = masks("padding_bool")[1][:, :L] if with_padding else None
    x = rand(B, L, E, seed=0)
    run_both(
        theirs,
        mine,
        x,
        x,
        x,
        attn_mask=causal,
        is_causal=True,
        need_weights=need_weights,
        key_padding_mask=padding,
    )


@pytest.mark.parametrize("need_weights", [True, False])
def test_is_causal_without_a_mask_implies_the_causal_mask(need_weights):
    """PyTorch requires the mask along with the hint; minigrad builds it."""
    _, mine = pair()
    x = mg.tensor(rand(B, L, E))
    implied, _ = mine(x, x, x, is_causal=True, need_weights=need_weights)
    causal = mg.tensor(np.triu(np.ones((L, L), dtype=bool), k=1))
    explicit, _ = mine(x, x, x, attn_mask=causal, need_weights=need_weights)
    assert_close(implied, explicit.detach().numpy(), **TOL)
    # and position t does not depend on the inputs after it
    y = x.detach().numpy().copy()
    y[:, -1] += 1.0
    changed, _ = mine(
        mg.tensor(y), mg.tensor(y), mg.tensor(y), is_causal=True, need_weights=need_weights
    )
    np.testing.assert_allclose(
        changed.detach().numpy()[:, :-1], implied.detach().numpy()[:, :-1], rtol=1e-12
    )
    assert not np.allclose(changed.detach().numpy()[:, -1], implied.detach().numpy()[:, -1])


def test_float32_matches_pytorch():
    torch.manual_seed(0)
    theirs = torch.nn.MultiheadAttention(E, H, batch_first=True)
    mine = nn.MultiheadAttention(E, H, batch_first=True)
    mine.load_state_dict({k: v.detach().numpy() for k, v in theirs.state_dict().items()})
    x = rand(B, L, E, dtype=np.float32)
    out, _ = mine(mg.tensor(x), mg.tensor(x), mg.tensor(x), need_weights=False)
    tout, _ = theirs(torch.tensor(x), torch.tensor(x), torch.tensor(x), need_weights=False)
    assert out.dtype == np.float32
    assert_close(out, tout, rtol=1e-5, atol=1e-6)


# ---- the fused kernel, dropout ---------------------------------------------------------------
def test_need_weights_false_calls_the_fused_kernel(monkeypatch):
    calls = []
    original = F.scaled_dot_product_attention

    def spy(*args, **kwargs):
        calls.append(kwargs)
        return original(*args, **kwargs)

    monkeypatch.setattr(F, "scaled_dot_product_attention", spy)
    _, mine = pair()
    x = mg.tensor(rand(B, L, E))
    mine(x, x, x, need_weights=False, is_causal=True)
    assert len(calls) == 1 and calls[0]["is_causal"] is True and calls[0]["attn_mask"] is None
    mine(x, x, x, need_weights=True)
    assert len(calls) == 1  # the weights are spelt out, not taken from the kernel


@pytest.mark.parametrize("need_weights", [True, False])
def test_dropout_on_the_weights_in_training_only(need_weights):
    mg.manual_seed(0)
    mha = nn.MultiheadAttention(E, H, dropout=0.5, batch_first=True).double()
    plain = nn.MultiheadAttention(E, H, batch_first=True).double()
    plain.load_state_dict(mha.state_dict())
    x = mg.tensor(rand(B, L, E))
    mha.eval()
    assert_close(
        mha(x, x, x, need_weights=need_weights)[0], plain(x, x, x)[0].detach().numpy(), **TOL
    )
    mha.train()
    mg.manual_seed(1)
    first, weights = mha(x, x, x, need_weights=need_weights, average_attn_weights=False)
    mg.manual_seed(1)
    again, _ = mha(x, x, x, need_weights=need_weights)
    assert_close(first, again.detach().numpy(), **TOL)  # the global generator decides
    assert not np.allclose(first.detach().numpy(), plain(x, x, x)[0].detach().numpy())
    if need_weights:  # each weight dropped (0) or scaled by 1 / (1 - p)
        w = weights.detach().numpy()
        _, kept = plain(x, x, x, average_attn_weights=False)
        kept = kept.detach().numpy()
        assert np.all(np.isclose(w, 0) | np.isclose(w, 2 * kept)) and (w == 0).any()


# ---- gradients against finite differences ---------------------------------------------------
@pytest.mark.parametrize("need_weights", [True, False])
def test_gradcheck_inputs_parameters_and_float_mask(need_weights):
    mg.manual_seed(0)
    mha = nn.MultiheadAttention(4, 2, kdim=3, vdim=5, batch_first=True).double()
    q = mg.tensor(rand(2, 3, 4, seed=0), requires_grad=True)
    k = mg.tensor(rand(2, 2, 3, seed=1), requires_grad=True)
    v = mg.tensor(rand(2, 2, 5, seed=2), requires_grad=True)
    mask = mg.tensor(rand(3, 2, seed=3), requires_grad=True)
    params = list(mha.parameters())

    def f(q, k, v, mask, *_):
        out, w = mha(q, k, v, attn_mask=mask, need_weights=need_weights, average_attn_weights=False)
        return (out, w) if need_weights else out

    assert gradcheck(f, [q, k, v, mask, *params])


def test_gradcheck_self_attention_with_bias_kv_zero_attn_and_padding():
    mg.manual_seed(0)
    mha = nn.MultiheadAttention(
        4, 2, add_bias_kv=True, add_zero_attn=True, batch_first=True
    ).double()
    x = mg.tensor(rand(2, 3, 4, seed=0), requires_grad=True)
    padding = mg.tensor(np.array([[False, False, True], [False, False, False]]))
    params = list(mha.parameters())
    assert gradcheck(
        lambda x, *_: mha(x, x, x, key_padding_mask=padding, is_causal=True)[0], [x, *params]
    )


# ---- errors ----------------------------------------------------------------------------------
# (arguments, exception, the message's words, whether torch raises the same type): torch
# refuses a size that is no int with TypeError, sizes <= 0 with ValueError, a dropout
# above 1 with ValueError (at the first forward in training). Where torch differs: it
# asserts (AssertionError) that num_heads divides embed_dim, accepts num_heads=2.0, kdim=0
# and a negative dropout (never applied), and fails in torch.empty (RuntimeError) on
# kdim=-1; minigrad raises ValueError or TypeError, as for the other sizes.
CONSTRUCTION_ERRORS = [
    ((8.0, 2), {}, TypeError, "embed_dim must be an int, got 8.0 (float)", True),
    ((True, 1), {}, TypeError, "embed_dim must be an int, got True (bool)", True),
    (("8", 2), {}, TypeError, "embed_dim must be an int, got '8' (str)", True),
    ((8, 2.0), {}, TypeError, "num_heads must be an int, got 2.0 (float)", False),
    (
        (0, 2),
        {},
        ValueError,
        "embed_dim and num_heads must be positive, got embed_dim=0, num_heads=2",
        True,
    ),
    ((-8, 2), {}, ValueError, "must be positive, got embed_dim=-8, num_heads=2", True),
    ((8, 0), {}, ValueError, "must be positive, got embed_dim=8, num_heads=0", True),
    ((8, -2), {}, ValueError, "must be positive, got embed_dim=8, num_heads=-2", True),
    ((10, 3), {}, ValueError, "embed_dim must be divisible by num_heads (each head gets", False),
    (
        (8, 2),
        {"kdim": 0},
        ValueError,
        "kdim (the width of the keys) must be positive or None, got 0",
        False,
    ),
    (
        (8, 2),
        {"kdim": -1},
        ValueError,
        "kdim (the width of the keys) must be positive or None, got -1",
        False,
    ),
    (
        (8, 2),
        {"vdim": 0},
        ValueError,
        "vdim (the width of the values) must be positive or None, got 0",
        False,
    ),
    ((8, 2), {"kdim": 3.0}, TypeError, "kdim must be an int, got 3.0 (float)", True),
    (
        (8, 2),
        {"dropout": 1.5},
        ValueError,
        "dropout probability has to be between 0 and 1, but got 1.5",
        True,
    ),
    (
        (8, 2),
        {"dropout": -0.1},
        ValueError,
        "dropout probability has to be between 0 and 1, but got -0.1",
        False,
    ),
    (
        (8, 2),
        {"dropout": "0.1"},
        TypeError,
        "dropout must be a number (a probability), got '0.1'",
        True,
    ),
]


@pytest.mark.parametrize("args,kwargs,error,words,as_torch", CONSTRUCTION_ERRORS)
def test_construction_errors(args, kwargs, error, words, as_torch):
    with pytest.raises(error, match=f"^MultiheadAttention: .*{re.escape(words)}"):
        nn.MultiheadAttention(*args, **kwargs)
    if as_torch:
        with pytest.raises(error):
            theirs = torch.nn.MultiheadAttention(*args, **kwargs)
            x = torch.randn(3, 2, 8)
            theirs(x, x, x)  # torch checks dropout only here


def test_input_errors():
    mha = nn.MultiheadAttention(E, H, kdim=6, batch_first=True)
    q, k, v = mg.randn(B, L, E), mg.randn(B, S, 6), mg.randn(B, S, E)
    with pytest.raises(ValueError, match=r"query's last dim must be embed_dim=8.*\(3, 4, 7\)"):
        mha(mg.randn(B, L, 7), k, v)
    with pytest.raises(ValueError, match=r"key's last dim must be kdim=6"):
        mha(q, mg.randn(B, S, E), v)
    with pytest.raises(ValueError, match=r"value's last dim must be vdim=8"):
        mha(q, k, mg.randn(B, S, 6))
    with pytest.raises(ValueError, match="same sequence length"):
        mha(q, k, mg.randn(B, S + 1, E))
    with pytest.raises(ValueError, match="same batch size"):
        mha(q, mg.randn(B + 1, S, 6), mg.randn(B + 1, S, E))
    with pytest.raises(
        ValueError, match=r"all be 3-D \(batched\) or all 2-D \(unbatched\), got query \(3, 4, 8\)"
    ):
        mha(q, k[0], v[0])
    with pytest.raises(ValueError, match=r"all be 3-D .*got query \(4, 8\), key \(3, 5, 6\)"):
        mha(q[0], k, v)
    with pytest.raises(ValueError, match=r"all be 3-D .*got query \(1, 3, 4, 8\)"):
        mha(q[None], k[None], v[None])
    with pytest.raises(ValueError, match=r"all be 3-D .*got query \(8,\)"):
        mha(q[0, 0], k[0, 0], v[0, 0])
    with pytest.raises(TypeError, match="Tensor"):
        mha(q.numpy(), k, v)


def test_input_errors_sequence_first_and_unbatched():
    """The default layout (seq, batch, embed): the batch is dim 1, the sequence dim 0."""
    mha = nn.MultiheadAttention(E, H)
    q, kv = mg.randn(L, B, E), mg.randn(S, B, E)
    with pytest.raises(
        ValueError, match=r"same batch size, got query \(4, 3, 8\), key \(5, 2, 8\)"
    ):
        mha(q, mg.randn(S, B - 1, E), mg.randn(S, B - 1, E))
    with pytest.raises(
        ValueError, match=r"same sequence length, got .*key \(5, 3, 8\), value \(6, 3, 8\)"
    ):
        mha(q, kv, mg.randn(S + 1, B, E))
    with pytest.raises(
        ValueError, match=r"key_padding_mask must have shape \(batch, S\) = \(3, 5\) .*got \(5, 3\)"
    ):
        mha(q, kv, kv, key_padding_mask=mg.zeros(S, B, dtype=mg.bool))
    with pytest.raises(ValueError, match=r"attn_mask must have shape \(L, S\) = \(4, 5\)"):
        mha(q, kv, kv, attn_mask=mg.zeros(S, L, dtype=mg.bool))
    # unbatched: the key padding mask is (S,), as torch's (which also refuses (1, S))
    q1, kv1 = q[:, 0], kv[:, 0]
    with pytest.raises(
        ValueError, match=r"key_padding_mask must have shape \(S,\) = \(5,\) for unbatched inputs"
    ):
        mha(q1, kv1, kv1, key_padding_mask=mg.zeros(L, dtype=mg.bool))
    with pytest.raises(ValueError, match=r"\(S,\) = \(5,\) for unbatched inputs, got \(1, 5\)"):
        mha(q1, kv1, kv1, key_padding_mask=mg.zeros(1, S, dtype=mg.bool))


def test_mask_errors():
    mha = nn.MultiheadAttention(E, H, batch_first=True)
    q, kv = mg.randn(B, L, E), mg.randn(B, S, E)
    with pytest.raises(
        ValueError,
        match=r"attn_mask must have shape \(L, S\) = \(4, 5\).*\(6, 4, 5\), got \(5, 4\)",
    ):
        mha(q, kv, kv, attn_mask=mg.zeros(S, L, dtype=mg.bool))
    with pytest.raises(ValueError, match=r"attn_mask .* got \(3, 4, 5\)"):
        mha(q, kv, kv, attn_mask=mg.zeros(B, L, S))
    with pytest.raises(
        ValueError, match=r"key_padding_mask must have shape \(batch, S\) = \(3, 5\).*got \(3, 4\)"
    ):
        mha(q, kv, kv, key_padding_mask=mg.zeros(B, L, dtype=mg.bool))
    with pytest.raises(TypeError, match="only bool and floating types of attn_mask.*int64"):
        mha(q, kv, kv, attn_mask=mg.zeros(L, S, dtype=mg.int64))
    with pytest.raises(TypeError, match="key_padding_mask must be a Tensor"):
        mha(q, kv, kv, key_padding_mask=np.zeros((B, S), dtype=bool))
