"""Transformer layers, stacks and nn.Transformer against PyTorch's, and their properties.

- after loading a PyTorch state dict (as NumPy arrays): outputs and the gradients of the
  inputs and of every parameter, float64, pre-norm and post-norm, relu and gelu, with
  bool / float / causal masks and key padding; TransformerEncoder, TransformerDecoder and
  Transformer (with their final norms);
- PyTorch's defaults (batch_first=False: (seq, batch, d_model); norm_first=False:
  post-norm): every default argument is torch's, and modules built with the required
  arguments only compute what torch's do;
- float64 gradient checks of both layers (inputs and parameters);
- stacks hold independent deep copies; dropout only in training; a callable activation;
  generate_square_subsequent_mask; clear errors.
"""

import inspect
import re

import numpy as np
import pytest
import torch

import minigrad as mg
from minigrad import nn
from minigrad.autograd import gradcheck
from tests.helpers import assert_close, rand

# The torch names whose behaviour this file checks against torch (read by tools/api_coverage.py).
TORCH_API = [
    "torch.nn.Transformer",
    "torch.nn.TransformerDecoder",
    "torch.nn.TransformerDecoderLayer",
    "torch.nn.TransformerEncoder",
    "torch.nn.TransformerEncoderLayer",
]

D, NHEAD, FF, B, T, S = 8, 2, 16, 2, 4, 5
TOL = dict(rtol=1e-8, atol=1e-10)
# PyTorch warns that its nested-tensor fast path is off for these settings: not our concern
pytestmark = pytest.mark.filterwarnings("ignore:enable_nested_tensor is True:UserWarning")


def load_from(theirs, mine):
    """Copy a torch module's weights into the minigrad one (strictly: same names)."""
    mine.load_state_dict({k: v.detach().numpy() for k, v in theirs.state_dict().items()})
    return mine


def compare(theirs, mine, arrays, kwargs_t=None, kwargs_m=None, grad_seed=9):
    """Run both on float64 copies of `arrays`; compare the output, the input gradients and
    every parameter's gradient for one random output gradient."""
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    ms = [mg.tensor(a, requires_grad=True) for a in arrays]
    tout = theirs(*ts, **(kwargs_t or {}))
    mout = mine(*ms, **(kwargs_m or {}))
    assert_close(mout, tout, **TOL)
    g = rand(*tout.shape, seed=grad_seed)
    tout.backward(torch.tensor(g))
    mout.backward(mg.tensor(g))
    for m, t in zip(ms, ts):
        assert_close(m.grad, t.grad, **TOL)
    tparams = dict(theirs.named_parameters())
    mparams = dict(mine.named_parameters())
    assert sorted(mparams) == sorted(tparams)
    for name, p in mparams.items():
        assert_close(p.grad, tparams[name].grad, **TOL)


def torch_masks(mask_kind, Tq, Tk, seed=4):
    """(attn_mask, key_padding_mask, is_causal) as NumPy arrays; key 0 always visible."""
    rng = np.random.default_rng(seed)
    padding = rng.random((B, Tk)) < 0.4
    padding[:, 0] = False
    if mask_kind == "none":
        return None, None, False
    if mask_kind == "bool":
        m = rng.random((Tq, Tk)) < 0.4
        m[:, 0] = False
        return m, padding, False
    if mask_kind == "float":
        return rng.standard_normal((Tq, Tk)), None, False
    if mask_kind == "causal":
        return np.triu(np.ones((Tq, Tk), dtype=bool), k=1), None, True
    raise ValueError(mask_kind)


def both(arrays):
    """The same masks for torch and minigrad (None stays None)."""
    t = [None if a is None else torch.tensor(a) for a in arrays]
    m = [None if a is None else mg.tensor(a) for a in arrays]
    return t, m


def layer_pair(cls_name, norm_first, activation="relu", seed=0, **kwargs):
    torch.manual_seed(seed)
    theirs = getattr(torch.nn, cls_name)(
        D,
        NHEAD,
        FF,
        dropout=0.1,
        activation=activation,
        batch_first=True,
        norm_first=norm_first,
        **kwargs,
    ).double()
    mine = getattr(nn, cls_name)(
        D,
        NHEAD,
        FF,
        dropout=0.1,
        activation=activation,
        batch_first=True,
        norm_first=norm_first,
        **kwargs,
    )
    mine = load_from(theirs, mine.double())
    theirs.eval(), mine.eval()  # dropout off: the outputs are deterministic
    return theirs, mine


# ---- layers -----------------------------------------------------------------------------------
@pytest.mark.parametrize("norm_first", [True, False])
@pytest.mark.parametrize("mask_kind", ["none", "bool", "float", "causal"])
def test_encoder_layer_matches_pytorch(norm_first, mask_kind):
    theirs, mine = layer_pair("TransformerEncoderLayer", norm_first)
    (tm, tp), (mm, mp) = both(torch_masks(mask_kind, T, T)[:2])
    causal = mask_kind == "causal"
    compare(
        theirs,
        mine,
        [rand(B, T, D, seed=1)],
        dict(src_mask=tm, src_key_padding_mask=tp, is_causal=causal),
        dict(src_mask=mm, src_key_padding_mask=mp, is_causal=causal),
    )


@pytest.mark.parametrize("norm_first", [True, False])
def test_encoder_layer_gelu_and_no_bias_match_pytorch(norm_first):
    theirs, mine = layer_pair("TransformerEncoderLayer", norm_first, activation="gelu", bias=False)
    compare(theirs, mine, [rand(B, T, D, seed=1)])


@pytest.mark.parametrize("norm_first", [True, False])
@pytest.mark.parametrize("mask_kind", ["none", "bool", "causal"])
def test_decoder_layer_matches_pytorch(norm_first, mask_kind):
    theirs, mine = layer_pair("TransformerDecoderLayer", norm_first, activation="gelu")
    (tm, tp), (mm, mp) = both(torch_masks(mask_kind, T, T)[:2])
    (tmm, tmp), (mmm, mmp) = both(torch_masks("bool", T, S, seed=5)[:2])
    causal = mask_kind == "causal"
    compare(
        theirs,
        mine,
        [rand(B, T, D, seed=1), rand(B, S, D, seed=2)],
        dict(
            tgt_mask=tm,
            tgt_key_padding_mask=tp,
            tgt_is_causal=causal,
            memory_mask=tmm,
            memory_key_padding_mask=tmp,
        ),
        dict(
            tgt_mask=mm,
            tgt_key_padding_mask=mp,
            tgt_is_causal=causal,
            memory_mask=mmm,
            memory_key_padding_mask=mmp,
        ),
    )


def test_seq_first_and_unbatched_layers_match_pytorch():
    torch.manual_seed(0)
    theirs = torch.nn.TransformerDecoderLayer(
        D, NHEAD, FF, dropout=0.0, batch_first=False, norm_first=False
    ).double()
    mine = nn.TransformerDecoderLayer(
        D, NHEAD, FF, dropout=0.0, batch_first=False, norm_first=False
    )
    mine = load_from(theirs, mine.double())
    compare(theirs, mine, [rand(T, B, D, seed=1), rand(S, B, D, seed=2)], dict(tgt_is_causal=False))
    compare(theirs, mine, [rand(T, D, seed=3), rand(S, D, seed=4)])  # unbatched: (T, d_model)


def test_layer_submodule_names_are_pytorchs():
    mine = nn.TransformerDecoderLayer(D, NHEAD, FF)
    names = [n for n, _ in mine.named_children()]
    for name in [
        "self_attn",
        "multihead_attn",
        "linear1",
        "dropout",
        "linear2",
        "norm1",
        "norm2",
        "norm3",
    ]:
        assert name in names
    assert {"dropout1", "dropout2", "dropout3"} <= set(names)


# ---- PyTorch's defaults: (seq, batch, d_model) inputs and post-norm layers ----------------------
# Each module is built with its required arguments only, in torch and in minigrad (the
# default dropout, 0.1, is off in eval mode), and fed (seq, batch, d_model) inputs with
# T, S and B all different, so that a layout read the wrong way round cannot pass.
MODULES = [
    "MultiheadAttention",
    "TransformerEncoderLayer",
    "TransformerDecoderLayer",
    "TransformerEncoder",
    "TransformerDecoder",
    "Transformer",
]


def default_arguments(cls):
    """{argument: default} of a class's constructor; a callable default by its name
    (torch's activation default is the function F.relu, minigrad's the name 'relu')."""
    params = inspect.signature(cls).parameters.values()
    return {
        p.name: getattr(p.default, "__name__", p.default)
        for p in params
        if p.default is not p.empty
    }


@pytest.mark.parametrize("name", MODULES)
def test_default_arguments_are_pytorchs(name):
    assert default_arguments(getattr(nn, name)) == default_arguments(getattr(torch.nn, name))


def assert_pytorch_layout_defaults(theirs, mine):
    """batch_first False ((seq, batch, d_model)) and norm_first False (post-norm), as torch's."""
    assert mine.self_attn.batch_first is theirs.self_attn.batch_first is False
    assert mine.batch_first is False
    assert mine.norm_first is theirs.norm_first is False


def padding_of(batch, length, seed=4, additive=False):
    """A key padding mask (batch, length) for torch and for minigrad: bool, True = hidden,
    or additive (-inf = hidden); key 0 always visible."""
    hidden = np.random.default_rng(seed).random((batch, length)) < 0.4
    hidden[:, 0] = False
    if additive:
        hidden = np.where(hidden, -np.inf, 0.0)
    return torch.tensor(hidden), mg.tensor(hidden)


def test_encoder_layer_defaults_match_pytorch():
    torch.manual_seed(0)
    theirs = torch.nn.TransformerEncoderLayer(D, NHEAD).double().eval()
    mine = load_from(theirs, nn.TransformerEncoderLayer(D, NHEAD).double()).eval()
    tp, mp = padding_of(B, T)
    compare(
        theirs,
        mine,
        [rand(T, B, D, seed=1)],
        dict(src_key_padding_mask=tp),
        dict(src_key_padding_mask=mp),
    )
    assert_pytorch_layout_defaults(theirs, mine)


def test_decoder_layer_defaults_match_pytorch():
    torch.manual_seed(0)
    theirs = torch.nn.TransformerDecoderLayer(D, NHEAD).double().eval()
    mine = load_from(theirs, nn.TransformerDecoderLayer(D, NHEAD).double()).eval()
    tp, mp = padding_of(B, S)
    causal = np.triu(np.ones((T, T), dtype=bool), k=1)
    compare(
        theirs,
        mine,
        [rand(T, B, D, seed=1), rand(S, B, D, seed=2)],
        dict(tgt_mask=torch.tensor(causal), tgt_is_causal=True, memory_key_padding_mask=tp),
        dict(tgt_mask=mg.tensor(causal), tgt_is_causal=True, memory_key_padding_mask=mp),
    )
    assert_pytorch_layout_defaults(theirs, mine)
    assert mine.multihead_attn.batch_first is theirs.multihead_attn.batch_first is False


def test_encoder_stack_defaults_match_pytorch():
    torch.manual_seed(0)
    theirs = (
        torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(D, NHEAD), 2).double().eval()
    )
    mine = load_from(
        theirs, nn.TransformerEncoder(nn.TransformerEncoderLayer(D, NHEAD), 2).double()
    ).eval()
    tp, mp = padding_of(B, T, additive=True)  # float, as the mask (torch warns on mixed types)
    # detected as causal
    causal = nn.Transformer.generate_square_subsequent_mask(T, dtype=mg.float64)
    compare(
        theirs,
        mine,
        [rand(T, B, D, seed=1)],
        dict(mask=torch.tensor(causal.numpy()), src_key_padding_mask=tp),
        dict(mask=causal, src_key_padding_mask=mp),
    )
    assert mine.norm is theirs.norm is None
    for t, m in zip(theirs.layers, mine.layers):
        assert_pytorch_layout_defaults(t, m)


def test_decoder_stack_defaults_match_pytorch():
    torch.manual_seed(0)
    theirs = (
        torch.nn.TransformerDecoder(torch.nn.TransformerDecoderLayer(D, NHEAD), 2).double().eval()
    )
    mine = load_from(
        theirs, nn.TransformerDecoder(nn.TransformerDecoderLayer(D, NHEAD), 2).double()
    ).eval()
    tp, mp = padding_of(B, S)
    causal = nn.Transformer.generate_square_subsequent_mask(T, dtype=mg.float64)
    compare(
        theirs,
        mine,
        [rand(T, B, D, seed=1), rand(S, B, D, seed=2)],
        dict(tgt_mask=torch.tensor(causal.numpy()), memory_key_padding_mask=tp),
        dict(tgt_mask=causal, memory_key_padding_mask=mp),
    )
    assert mine.norm is theirs.norm is None
    for t, m in zip(theirs.layers, mine.layers):
        assert_pytorch_layout_defaults(t, m)


def test_transformer_defaults_match_pytorch():
    """The sizes are given (the default model, 512 wide and 6 + 6 layers deep, has 44M
    parameters; test_default_arguments_are_pytorchs checks those defaults); the layout,
    the norm placement, the activation, eps, bias and dropout are left to the defaults."""
    torch.manual_seed(0)
    sizes = dict(
        d_model=D, nhead=NHEAD, num_encoder_layers=2, num_decoder_layers=2, dim_feedforward=FF
    )
    theirs = torch.nn.Transformer(**sizes).double().eval()
    mine = load_from(theirs, nn.Transformer(**sizes).double()).eval()
    tp, mp = padding_of(B, S)
    causal = nn.Transformer.generate_square_subsequent_mask(T, dtype=mg.float64)
    compare(
        theirs,
        mine,
        [rand(S, B, D, seed=1), rand(T, B, D, seed=2)],
        dict(
            tgt_mask=torch.tensor(causal.numpy()),
            src_key_padding_mask=tp,
            memory_key_padding_mask=tp,
        ),
        dict(tgt_mask=causal, src_key_padding_mask=mp, memory_key_padding_mask=mp),
    )
    assert mine.batch_first is theirs.batch_first is False
    for t, m in zip(
        [*theirs.encoder.layers, *theirs.decoder.layers],
        [*mine.encoder.layers, *mine.decoder.layers],
    ):
        assert_pytorch_layout_defaults(t, m)


# ---- stacks and the whole model ----------------------------------------------------------------
@pytest.mark.parametrize("norm_first", [True, False])
def test_encoder_stack_matches_pytorch(norm_first):
    torch.manual_seed(0)
    tlayer = torch.nn.TransformerEncoderLayer(
        D, NHEAD, FF, dropout=0.0, batch_first=True, norm_first=norm_first
    )
    theirs = torch.nn.TransformerEncoder(
        tlayer, 2, norm=torch.nn.LayerNorm(D), enable_nested_tensor=False
    ).double()
    mlayer = nn.TransformerEncoderLayer(
        D, NHEAD, FF, dropout=0.0, batch_first=True, norm_first=norm_first
    )
    mine = load_from(theirs, nn.TransformerEncoder(mlayer, 2, norm=nn.LayerNorm(D)).double())
    padding = torch_masks("bool", T, T)[1]
    compare(
        theirs,
        mine,
        [rand(B, T, D, seed=1)],
        dict(src_key_padding_mask=torch.tensor(padding)),
        dict(src_key_padding_mask=mg.tensor(padding)),
    )


def test_decoder_stack_matches_pytorch():
    torch.manual_seed(0)
    tlayer = torch.nn.TransformerDecoderLayer(
        D, NHEAD, FF, dropout=0.0, batch_first=True, norm_first=True
    )
    theirs = torch.nn.TransformerDecoder(tlayer, 2, norm=torch.nn.LayerNorm(D)).double()
    mlayer = nn.TransformerDecoderLayer(
        D, NHEAD, FF, dropout=0.0, batch_first=True, norm_first=True
    )
    mine = nn.TransformerDecoder(mlayer, 2, norm=nn.LayerNorm(D))
    mine = load_from(theirs, mine.double())
    causal = torch.nn.Transformer.generate_square_subsequent_mask(T, dtype=torch.float64)
    compare(
        theirs,
        mine,
        [rand(B, T, D, seed=1), rand(B, S, D, seed=2)],
        dict(tgt_mask=causal, tgt_is_causal=True),
        dict(
            tgt_mask=nn.Transformer.generate_square_subsequent_mask(T, dtype=mg.float64),
            tgt_is_causal=True,
        ),
    )


@pytest.mark.parametrize("norm_first", [True, False])
def test_transformer_matches_pytorch(norm_first):
    torch.manual_seed(0)
    kwargs = dict(
        num_encoder_layers=2,
        num_decoder_layers=2,
        dim_feedforward=FF,
        dropout=0.1,
        norm_first=norm_first,
    )
    kwargs["batch_first"] = True
    theirs = torch.nn.Transformer(D, NHEAD, **kwargs).double().eval()
    mine = load_from(theirs, nn.Transformer(D, NHEAD, **kwargs).double()).eval()
    src_padding = torch_masks("bool", S, S)[1]
    tmask = torch.nn.Transformer.generate_square_subsequent_mask(T, dtype=torch.float64)
    compare(
        theirs,
        mine,
        [rand(B, S, D, seed=1), rand(B, T, D, seed=2)],
        dict(
            tgt_mask=tmask,
            src_key_padding_mask=torch.tensor(src_padding),
            memory_key_padding_mask=torch.tensor(src_padding),
        ),
        dict(
            tgt_mask=mg.tensor(tmask.numpy()),
            src_key_padding_mask=mg.tensor(src_padding),
            memory_key_padding_mask=mg.tensor(src_padding),
        ),
    )


def test_transformer_initialisation_and_structure():
    mg.manual_seed(0)
    model = nn.Transformer(16, 2, 2, 3, 32)
    assert isinstance(model.encoder.norm, nn.LayerNorm) and isinstance(
        model.decoder.norm, nn.LayerNorm
    )
    assert len(model.encoder.layers) == 2 and len(model.decoder.layers) == 3
    # (32, 16): Xavier, not Linear's default
    w = model.encoder.layers[0].linear1.weight.detach().numpy()
    assert np.abs(w).max() <= np.sqrt(6 / 48) and np.abs(w).max() > np.sqrt(1 / 16)
    assert sum(p.numel() for p in model.parameters()) == sum(
        p.numel() for p in torch.nn.Transformer(16, 2, 2, 3, 32).parameters()
    )


@pytest.mark.parametrize("sz", [5, 1, 0, np.int64(3)])
def test_generate_square_subsequent_mask_as_pytorch(sz):
    mine = nn.Transformer.generate_square_subsequent_mask(sz)
    theirs = torch.nn.Transformer.generate_square_subsequent_mask(sz)
    assert mine.dtype == np.float32 and mine.shape == (sz, sz)  # 0: the empty (0, 0) mask
    np.testing.assert_array_equal(mine.numpy(), theirs.numpy())


@pytest.mark.parametrize(
    "sz,error,words",
    [
        (-1, RuntimeError, "sz (the sequence length) must be >= 0, got -1"),
        (2.0, TypeError, "sz (the sequence length) must be an int, got 2.0 (float)"),
        (True, TypeError, "must be an int, got True (bool)"),
        ("3", TypeError, "must be an int, got '3' (str)"),
    ],
)
def test_generate_square_subsequent_mask_errors(sz, error, words):
    """torch raises the same types: RuntimeError for a negative size, TypeError for no int."""
    with pytest.raises(
        error, match=r"^Transformer\.generate_square_subsequent_mask: .*" + re.escape(words)
    ):
        nn.Transformer.generate_square_subsequent_mask(sz)
    with pytest.raises(error):
        torch.nn.Transformer.generate_square_subsequent_mask(sz)


def test_stacks_hold_independent_deep_copies():
    layer = nn.TransformerEncoderLayer(D, NHEAD, FF)
    stack = nn.TransformerEncoder(layer, 3)
    weights = [lay.linear1.weight for lay in stack.layers]
    assert len({id(w) for w in weights}) == 3 and all(
        w is not layer.linear1.weight for w in weights
    )
    # copies ...
    np.testing.assert_array_equal(weights[0].detach().numpy(), weights[2].detach().numpy())
    with mg.no_grad():
        weights[0].mul_(2.0)
    # ... independent
    assert not np.allclose(weights[0].detach().numpy(), weights[1].detach().numpy())
    assert len(list(stack.parameters())) == 3 * len(list(layer.parameters()))


def test_causal_encoder_does_not_look_ahead():
    mg.manual_seed(0)
    layer = nn.TransformerEncoderLayer(D, NHEAD, FF, dropout=0.0, batch_first=True, norm_first=True)
    stack = nn.TransformerEncoder(layer, 2).double()
    x = rand(B, T, D)
    y = x.copy()
    y[:, -1] += 1.0
    out_x = stack(mg.tensor(x), is_causal=True).detach().numpy()
    out_y = stack(mg.tensor(y), is_causal=True).detach().numpy()
    np.testing.assert_allclose(out_x[:, :-1], out_y[:, :-1], rtol=1e-12)
    assert not np.allclose(out_x[:, -1], out_y[:, -1])


def test_stacks_detect_the_float_causal_mask(monkeypatch):
    """is_causal=None: a float causal mask is recognised, and the kernel's causal mask
    used instead of reading it (as PyTorch); any other mask is read as it is."""
    import minigrad.nn.functional as F

    calls = []
    original = F.scaled_dot_product_attention

    def spy(*args, **kwargs):
        calls.append(kwargs)
        return original(*args, **kwargs)

    monkeypatch.setattr(F, "scaled_dot_product_attention", spy)
    mg.manual_seed(0)
    layer = nn.TransformerEncoderLayer(D, NHEAD, FF, dropout=0.0, batch_first=True, norm_first=True)
    stack = nn.TransformerEncoder(layer, 2).double()
    x = mg.tensor(rand(B, T, D))
    causal = nn.Transformer.generate_square_subsequent_mask(T, dtype=mg.float64)
    detected = stack(x, mask=causal).detach().numpy()
    assert [c["is_causal"] for c in calls] == [True, True] and calls[0]["attn_mask"] is None
    calls.clear()
    read = stack(x, mask=causal, is_causal=False).detach().numpy()
    assert [c["is_causal"] for c in calls] == [False, False] and calls[0]["attn_mask"] is not None
    np.testing.assert_allclose(detected, read, rtol=1e-12)
    calls.clear()
    other = causal.numpy().copy()
    other[2, 0] = -np.inf
    stack(x, mask=mg.tensor(other))
    assert [c["is_causal"] for c in calls] == [False, False]


def test_dropout_only_in_training():
    mg.manual_seed(0)
    layer = nn.TransformerEncoderLayer(
        D, NHEAD, FF, dropout=0.3, batch_first=True, norm_first=True
    ).double()
    x = mg.tensor(rand(B, T, D))
    layer.eval()
    a, b = layer(x).detach().numpy(), layer(x).detach().numpy()
    np.testing.assert_array_equal(a, b)
    layer.train()
    assert not np.allclose(layer(x).detach().numpy(), a)


def test_callable_activation_and_unknown_name():
    torch.manual_seed(0)
    theirs = torch.nn.TransformerEncoderLayer(
        D,
        NHEAD,
        FF,
        dropout=0.0,
        activation=torch.nn.functional.silu,
        batch_first=True,
        norm_first=True,
    ).double()
    mine = nn.TransformerEncoderLayer(
        D, NHEAD, FF, dropout=0.0, activation=nn.SiLU(), batch_first=True, norm_first=True
    )
    mine = load_from(theirs, mine.double())
    compare(theirs, mine, [rand(B, T, D, seed=1)])
    with pytest.raises(
        RuntimeError, match="TransformerEncoderLayer: activation should be relu/gelu, not swish"
    ):
        nn.TransformerEncoderLayer(D, NHEAD, activation="swish")


# ---- gradients against finite differences -------------------------------------------------------
@pytest.mark.parametrize("norm_first", [True, False])
def test_gradcheck_encoder_layer(norm_first):
    mg.manual_seed(0)
    layer = nn.TransformerEncoderLayer(
        4, 2, 6, dropout=0.0, activation="gelu", batch_first=True, norm_first=norm_first
    )
    layer = layer.double()
    x = mg.tensor(rand(2, 3, 4), requires_grad=True)  # (batch, seq, d_model)
    padding = mg.tensor(np.array([[False, False, True], [False, False, False]]))
    assert gradcheck(lambda x, *_: layer(x, src_key_padding_mask=padding), [x, *layer.parameters()])


@pytest.mark.slow
@pytest.mark.parametrize("norm_first", [True, False])
def test_gradcheck_decoder_layer(norm_first):
    mg.manual_seed(0)
    layer = nn.TransformerDecoderLayer(
        4, 2, 6, dropout=0.0, batch_first=True, norm_first=norm_first
    ).double()
    x = mg.tensor(rand(2, 3, 4, seed=1), requires_grad=True)
    memory = mg.tensor(rand(2, 2, 4, seed=2), requires_grad=True)
    assert gradcheck(
        lambda x, m, *_: layer(x, m, tgt_is_causal=True), [x, memory, *layer.parameters()]
    )


# ---- errors ------------------------------------------------------------------------------------
def test_errors():
    with pytest.raises(ValueError, match="embed_dim must be divisible by num_heads"):
        nn.TransformerEncoderLayer(10, 3)
    # the batch is read from dim 1 by default (seq, batch, d_model), from dim 0 when batch-first
    for batch_first, src, tgt in [(False, (5, 2, 8), (4, 3, 8)), (True, (2, 5, 8), (3, 4, 8))]:
        model = nn.Transformer(8, 2, 1, 1, 16, batch_first=batch_first)
        with pytest.raises(
            RuntimeError, match=re.escape(f"must be equal, got src {src}, tgt {tgt}")
        ):
            model(mg.randn(*src), mg.randn(*tgt))
        assert model(mg.randn(*src), mg.randn(*src)).shape == src
    with pytest.raises(RuntimeError, match=r"feature number .* d_model=8"):
        model(mg.randn(2, 5, 8), mg.randn(2, 4, 6))
    for batch_first, src in [(False, (4, 2, 8)), (True, (2, 4, 8))]:  # L = 4 either way
        layer = nn.TransformerEncoderLayer(8, 2, batch_first=batch_first)
        with pytest.raises(ValueError, match=r"attn_mask must have shape \(L, S\) = \(4, 4\)"):
            layer(mg.randn(*src), src_mask=mg.zeros(4, 5))
    with pytest.raises(TypeError, match="expected a layer Module"):
        nn.TransformerEncoder("layer", 2)


# ---- the encoder-decoder toy model -------------------------------------------------------------
def reversal_batch(rng, batch, n=6, vocab=10, start_id=0):
    """Source: n random digits 1..vocab-1; target: the same reversed; decoder input: the
    target shifted right behind the start id."""
    src = rng.integers(1, vocab, size=(batch, n))
    tgt = src[:, ::-1].copy()
    decoder_input = np.concatenate([np.full((batch, 1), start_id), tgt[:, :-1]], axis=1)
    return mg.tensor(src), mg.tensor(decoder_input), mg.tensor(tgt)


def test_seq2seq_learns_to_reverse_a_sequence():
    from minigrad import optim
    from minigrad.models import Seq2SeqTransformer

    mg.manual_seed(0)
    rng = np.random.default_rng(0)
    model = Seq2SeqTransformer(
        10,
        10,
        d_model=32,
        nhead=2,
        num_encoder_layers=1,
        num_decoder_layers=1,
        dim_feedforward=64,
        max_len=8,
    )
    opt = optim.Adam(model.parameters(), lr=3e-3)
    for _ in range(100):
        src, decoder_input, tgt = reversal_batch(rng, 64)
        loss = mg.nn.functional.cross_entropy(
            model(src, decoder_input).reshape(-1, 10), tgt.reshape(-1)
        )
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    src, _, tgt = reversal_batch(np.random.default_rng(1), 200)  # sequences it has not seen
    predicted = model.greedy_decode(src, 6, start_id=0).numpy()
    # whole sequences right (chance: 1e-6)
    assert (predicted == tgt.numpy()).all(axis=1).mean() >= 0.95


def test_seq2seq_decoder_is_causal_and_padding_is_hidden():
    from minigrad.models import Seq2SeqTransformer

    mg.manual_seed(0)
    model = Seq2SeqTransformer(
        7,
        9,
        d_model=16,
        nhead=2,
        num_encoder_layers=1,
        num_decoder_layers=1,
        dim_feedforward=32,
        pad_id=6,
    ).double()
    src = np.array([[1, 2, 3, 6, 6], [4, 5, 1, 2, 3]])
    tgt = np.array([[0, 3, 2, 1], [0, 5, 4, 8]])
    logits = model(mg.tensor(src), mg.tensor(tgt)).detach().numpy()
    assert logits.shape == (2, 4, 9)
    changed = tgt.copy()
    changed[:, 2:] = 7  # later target tokens: earlier logits must not move
    later = model(mg.tensor(src), mg.tensor(changed)).detach().numpy()
    np.testing.assert_allclose(later[:, :2], logits[:, :2], rtol=1e-12)
    # padded source == the same source without the padding: the pads are hidden from
    # the encoder's self-attention and from the decoder's cross-attention
    alone = model(mg.tensor(src[:1, :3]), mg.tensor(tgt[:1])).detach().numpy()
    np.testing.assert_allclose(alone, logits[:1], rtol=1e-10)
    unmasked = model.double()
    unmasked.pad_id = None  # the same weights, the pads now seen: the logits move
    assert not np.allclose(unmasked(mg.tensor(src[:1]), mg.tensor(tgt[:1])).detach().numpy(), alone)
    with pytest.raises(ValueError, match="max_len=64"):
        model(mg.tensor(np.ones((1, 65), dtype=np.int64)), mg.tensor(tgt))
