"""A batch of size 0 through every layer, loss and functional that torch also has.

A data loader's last batch, a filtered batch or a mask that selects nothing can leave a
layer with no samples. PyTorch then returns an empty tensor of the right shape (the
'mean' of an empty loss is nan, 0 / 0), backward runs, and the parameters get zero
gradients; where it refuses (BatchNorm training on one value per channel) it raises.
Each case below is written once, over a library `lib` (torch or minigrad: the API is the
same), run in both, and the results compared: exception type, or the outputs' shapes,
dtypes and values (nan where torch's is nan), the inputs' gradients and every parameter's
gradient by name. It runs with the readable NumPy kernels and with the Numba kernels,
which must not crash or divide by zero on zero-sized arrays either.
"""

import numpy as np
import pytest
import torch

import minigrad as mg

# NumPy's divide-by-zero and invalid-value warnings are failures here: an empty batch
# must not divide by its zero size on the way (torch's nan 'mean' is silent too)
pytestmark = [
    pytest.mark.filterwarnings("error::RuntimeWarning"),
    # torch's
    pytest.mark.filterwarnings("ignore:reduction. 'mean' divides the total loss:UserWarning"),
]


def empty(lib, *shape):
    """A float32 input with a zero-sized dim that asks for its gradient."""
    return lib.zeros(*shape, requires_grad=True)


def indices(lib, *shape):
    """An int64 index tensor (class targets, token ids)."""
    return lib.zeros(*shape, dtype=lib.long)


def module(make):
    """A case that builds a layer with `make(lib.nn)` and calls it on `inputs(lib)`."""
    return lambda inputs: lambda lib: (make(lib.nn), inputs(lib))


def in_eval(layer):
    layer.eval()
    return layer


def x08(lib):
    return [empty(lib, 0, 8)]


def img(lib):
    return [empty(lib, 0, 3, 6, 6)]


def seq(lib):
    return [empty(lib, 0, 3, 7)]


def tokens(lib):  # (batch, time, embed), batch first
    return [empty(lib, 0, 5, 16)]


def pair(lib):  # an encoder-decoder's target and memory, batch first
    return [empty(lib, 0, 5, 16), empty(lib, 0, 4, 16)]


def enc(nn, batch_first=True, norm_first=False):  # both given: the defaults are being changed
    return nn.TransformerEncoderLayer(
        16, 4, 32, dropout=0.0, batch_first=batch_first, norm_first=norm_first
    )


def dec(nn, batch_first=True, norm_first=False):
    return nn.TransformerDecoderLayer(
        16, 4, 32, dropout=0.0, batch_first=batch_first, norm_first=norm_first
    )


LAYERS = {
    "Linear": module(lambda nn: nn.Linear(8, 4))(x08),
    "Linear-3d": module(lambda nn: nn.Linear(16, 4))(tokens),
    "Identity": module(lambda nn: nn.Identity())(x08),
    "Embedding": module(lambda nn: nn.Embedding(10, 3))(lambda lib: [indices(lib, 0)]),
    "Embedding-2d": module(lambda nn: nn.Embedding(10, 3, padding_idx=0))(
        lambda lib: [indices(lib, 0, 4)]
    ),
    "Conv1d": module(lambda nn: nn.Conv1d(3, 4, 3, padding=1))(seq),
    "Conv2d": module(lambda nn: nn.Conv2d(3, 4, 3))(img),
    "Conv2d-strided-groups": module(lambda nn: nn.Conv2d(3, 6, 3, stride=2, padding=1, groups=3))(
        img
    ),
    "ConvTranspose2d": module(lambda nn: nn.ConvTranspose2d(3, 4, 3, stride=2, output_padding=1))(
        img
    ),
    "MaxPool1d": module(lambda nn: nn.MaxPool1d(2))(seq),
    "MaxPool2d": module(lambda nn: nn.MaxPool2d(2))(img),
    "MaxPool2d-padded-ceil": module(lambda nn: nn.MaxPool2d(3, 2, padding=1, ceil_mode=True))(img),
    "AvgPool1d": module(lambda nn: nn.AvgPool1d(2))(seq),
    "AvgPool2d": module(lambda nn: nn.AvgPool2d(2))(img),
    "AvgPool2d-padded": module(lambda nn: nn.AvgPool2d(3, 2, padding=1, count_include_pad=False))(
        img
    ),
    "AdaptiveAvgPool2d": module(lambda nn: nn.AdaptiveAvgPool2d(4))(img),
    "BatchNorm1d-eval": module(lambda nn: in_eval(nn.BatchNorm1d(8)))(x08),
    "BatchNorm1d-train": module(lambda nn: nn.BatchNorm1d(8))(x08),
    "BatchNorm1d-train-3d": module(lambda nn: nn.BatchNorm1d(3))(seq),
    "BatchNorm1d-train-one-value": module(lambda nn: nn.BatchNorm1d(8))(
        lambda lib: [empty(lib, 1, 8)]
    ),
    "BatchNorm2d-eval": module(lambda nn: in_eval(nn.BatchNorm2d(3)))(img),
    "BatchNorm2d-train": module(lambda nn: nn.BatchNorm2d(3))(img),
    "LayerNorm": module(lambda nn: nn.LayerNorm(8))(x08),
    "LayerNorm-3d": module(lambda nn: nn.LayerNorm(16))(tokens),
    "GroupNorm": module(lambda nn: nn.GroupNorm(3, 3))(img),
    "RMSNorm": module(lambda nn: nn.RMSNorm(8))(x08),
    "Dropout-train": module(lambda nn: nn.Dropout(0.5))(x08),
    "Dropout-eval": module(lambda nn: in_eval(nn.Dropout(0.5)))(x08),
    "ReLU": module(lambda nn: nn.ReLU())(x08),
    "LeakyReLU": module(lambda nn: nn.LeakyReLU(0.1))(x08),
    "ELU": module(lambda nn: nn.ELU())(x08),
    "GELU": module(lambda nn: nn.GELU())(x08),
    "GELU-tanh": module(lambda nn: nn.GELU(approximate="tanh"))(x08),
    "SiLU": module(lambda nn: nn.SiLU())(x08),
    "Sigmoid": module(lambda nn: nn.Sigmoid())(x08),
    "Tanh": module(lambda nn: nn.Tanh())(x08),
    "Softplus": module(lambda nn: nn.Softplus())(x08),
    "Mish": module(lambda nn: nn.Mish())(x08),
    "Softmax": module(lambda nn: nn.Softmax(dim=1))(x08),
    "Softmax-over-batch": module(lambda nn: nn.Softmax(dim=0))(x08),
    "LogSoftmax": module(lambda nn: nn.LogSoftmax(dim=-1))(tokens),
    "Flatten": module(lambda nn: nn.Flatten())(img),
    "Unflatten": module(lambda nn: nn.Unflatten(1, (2, 4)))(x08),
    "MultiheadAttention": module(lambda nn: nn.MultiheadAttention(16, 4, batch_first=True))(
        lambda lib: tokens(lib) * 3
    ),
    "MultiheadAttention-seq-first": module(
        lambda nn: nn.MultiheadAttention(16, 4, batch_first=False)
    )(lambda lib: [empty(lib, 5, 0, 16)] * 3),
    "TransformerEncoderLayer": module(lambda nn: enc(nn))(tokens),
    "TransformerEncoderLayer-norm-first": module(lambda nn: enc(nn, norm_first=True))(tokens),
    "TransformerDecoderLayer-norm-first": module(lambda nn: dec(nn, norm_first=True))(pair),
    "TransformerEncoderLayer-seq-first": module(lambda nn: enc(nn, batch_first=False))(
        lambda lib: [empty(lib, 5, 0, 16)]
    ),
    "TransformerDecoderLayer": module(lambda nn: dec(nn))(pair),
    "TransformerEncoder": module(
        lambda nn: nn.TransformerEncoder(enc(nn), 2, enable_nested_tensor=False)
    )(tokens),
    "TransformerDecoder": module(lambda nn: nn.TransformerDecoder(dec(nn), 2))(pair),
}

REDUCTIONS = ["none", "sum", "mean"]


def loss(make, inputs):
    """Cases for a loss layer `make(lib.nn, reduction)` on `inputs(lib)`, one per reduction."""
    return {r: (lambda lib, r=r: (make(lib.nn, r), inputs(lib))) for r in REDUCTIONS}


def scores_and_targets(lib):
    return [empty(lib, 0, 3), lib.zeros(0, 3)]


def logits_and_classes(lib):
    return [empty(lib, 0, 3), indices(lib, 0)]


def image_logits_and_classes(lib):  # (N, C, d1, d2) scores, (N, d1, d2) classes
    return [empty(lib, 0, 3, 2, 2), indices(lib, 0, 2, 2)]


LOSSES = {
    "MSELoss": loss(lambda nn, r: nn.MSELoss(reduction=r), scores_and_targets),
    "L1Loss": loss(lambda nn, r: nn.L1Loss(reduction=r), scores_and_targets),
    "SmoothL1Loss": loss(lambda nn, r: nn.SmoothL1Loss(reduction=r), scores_and_targets),
    "HuberLoss": loss(lambda nn, r: nn.HuberLoss(reduction=r), scores_and_targets),
    "BCELoss": loss(lambda nn, r: nn.BCELoss(reduction=r), scores_and_targets),
    "BCEWithLogitsLoss": loss(lambda nn, r: nn.BCEWithLogitsLoss(reduction=r), scores_and_targets),
    "KLDivLoss": loss(lambda nn, r: nn.KLDivLoss(reduction=r), scores_and_targets),
    "CrossEntropyLoss": loss(lambda nn, r: nn.CrossEntropyLoss(reduction=r), logits_and_classes),
    "CrossEntropyLoss-probabilities": loss(
        lambda nn, r: nn.CrossEntropyLoss(reduction=r), scores_and_targets
    ),
    "CrossEntropyLoss-smoothed": loss(
        lambda nn, r: nn.CrossEntropyLoss(reduction=r, label_smoothing=0.1), logits_and_classes
    ),
    "CrossEntropyLoss-images": loss(
        lambda nn, r: nn.CrossEntropyLoss(reduction=r), image_logits_and_classes
    ),
    "NLLLoss": loss(lambda nn, r: nn.NLLLoss(reduction=r), logits_and_classes),
}


def attention_inputs(lib, batch=0, queries=5, keys=5):
    return [
        empty(lib, batch, 2, queries, 4),
        empty(lib, batch, 2, keys, 4),
        empty(lib, batch, 2, keys, 4),
    ]


FUNCTIONS = {
    "F.scaled_dot_product_attention": (
        lambda lib: (lib.nn.functional.scaled_dot_product_attention, attention_inputs(lib))
    ),
    "F.scaled_dot_product_attention-causal": (
        lambda lib: (
            lambda q, k, v: lib.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True),
            attention_inputs(lib),
        )
    ),
    "F.scaled_dot_product_attention-no-queries": (
        lambda lib: (lib.nn.functional.scaled_dot_product_attention, attention_inputs(lib, 2, 0, 5))
    ),
    "F.cross_entropy": lambda lib: (lib.nn.functional.cross_entropy, logits_and_classes(lib)),
    "F.cross_entropy-weighted": (
        lambda lib: (
            lambda x, t: lib.nn.functional.cross_entropy(x, t, weight=lib.ones(3)),
            logits_and_classes(lib),
        )
    ),
    "F.linear": lambda lib: (lib.nn.functional.linear, [empty(lib, 0, 8), lib.ones(4, 8)]),
    "F.layer_norm": lambda lib: (lambda x: lib.nn.functional.layer_norm(x, (8,)), x08(lib)),
}

CASES = {
    **LAYERS,
    **{
        f"{name}-{r}": case
        for name, by_reduction in LOSSES.items()
        for r, case in by_reduction.items()
    },
    **FUNCTIONS,
}


def run(lib, case):
    """Call the case in `lib`; ('raised', exception type) or ('ran', outputs, inputs, layer)."""
    fn, inputs = case(lib)
    try:
        out = fn(*inputs)
    except Exception as e:  # the type is compared with torch's
        return "raised", type(e), str(e)
    outputs = [o for o in (out if isinstance(out, tuple) else (out,)) if o is not None]
    differentiable = [o for o in outputs if o.requires_grad]
    if differentiable:
        sum(o.sum() for o in differentiable).backward()
    layer = fn if isinstance(fn, (torch.nn.Module, mg.nn.Module)) else None
    return "ran", outputs, inputs, layer


def as_numpy(t):
    """A tensor's values as an ndarray (None stays None)."""
    return None if t is None else t.detach().numpy()


def assert_same(mine, theirs, what):
    """Same presence, shape, dtype and values (nan where theirs is nan)."""
    a, b = as_numpy(mine), as_numpy(theirs)
    assert (a is None) == (b is None), f"{what}: minigrad gives {a!r}, torch {b!r}"
    if a is None:
        return
    assert a.shape == b.shape, f"{what}: shape {a.shape} != torch's {b.shape}"
    assert a.dtype == b.dtype, f"{what}: dtype {a.dtype} != torch's {b.dtype}"
    np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7, err_msg=what)


@pytest.fixture(params=["numpy", "numba"])
def backend(request):
    """Each case with the reference kernels and with the compiled ones."""
    with mg.backends.use(request.param):
        yield request.param


@pytest.mark.parametrize("name", list(CASES))
def test_empty_batch_matches_torch(name, backend):
    case = CASES[name]
    torch.manual_seed(0)
    theirs = run(torch, case)
    mg.manual_seed(0)
    mine = run(mg, case)
    if theirs[0] == "raised":
        assert mine[0] == "raised", (
            f"{name}: torch raises {theirs[1].__name__} ({theirs[2]}), minigrad does not"
        )
        assert issubclass(mine[1], theirs[1]), (
            f"{name}: minigrad raises {mine[1].__name__}: {mine[2]}"
        )
        return
    assert mine[0] == "ran", f"{name}: minigrad raises {mine[1].__name__}: {mine[2]}"
    _, outputs, inputs, layer = mine
    _, t_outputs, t_inputs, t_layer = theirs
    assert len(outputs) == len(t_outputs)
    for i, (out, t_out) in enumerate(zip(outputs, t_outputs)):
        assert_same(out, t_out, f"{name}: output {i}")
    for i, (x, t_x) in enumerate(zip(inputs, t_inputs)):
        assert_same(x.grad, t_x.grad, f"{name}: gradient of input {i}")
    if layer is not None:
        t_params = dict(t_layer.named_parameters())
        params = dict(layer.named_parameters())
        assert sorted(params) == sorted(t_params)
        for p_name, p in params.items():
            assert_same(p.grad, t_params[p_name].grad, f"{name}: gradient of {p_name}")
        t_buffers = dict(t_layer.named_buffers())
        for b_name, b in layer.named_buffers():
            assert_same(b, t_buffers[b_name], f"{name}: buffer {b_name}")
