"""Layers (Linear, Dense, Embedding, Dropout, activations, losses) against PyTorch:
parameter names, shapes, default initialisation, repr, outputs, input and parameter
gradients, and float64 gradient checks of every layer that has parameters."""

import json
import math

import numpy as np
import pytest
import torch
import torch.nn as tnn

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F
from tests.helpers import assert_close, check_against_torch, check_grads, rand

# The torch names whose behaviour this file checks against torch (read by tools/api_coverage.py).
TORCH_API = [
    "torch.nn.BCELoss",
    "torch.nn.BCEWithLogitsLoss",
    "torch.nn.CrossEntropyLoss",
    "torch.nn.Dropout",
    "torch.nn.ELU",
    "torch.nn.Embedding",
    "torch.nn.GELU",
    "torch.nn.HuberLoss",
    "torch.nn.KLDivLoss",
    "torch.nn.L1Loss",
    "torch.nn.LeakyReLU",
    "torch.nn.Linear",
    "torch.nn.LogSoftmax",
    "torch.nn.MSELoss",
    "torch.nn.Module.buffers",
    "torch.nn.Mish",
    "torch.nn.NLLLoss",
    "torch.nn.ReLU",
    "torch.nn.Sequential",
    "torch.nn.SiLU",
    "torch.nn.Sigmoid",
    "torch.nn.SmoothL1Loss",
    "torch.nn.Softmax",
    "torch.nn.Softplus",
    "torch.nn.Tanh",
]


def from_torch(module, torch_module):
    """Load a torch module's state into the minigrad module; returns the minigrad one."""
    module.load_state_dict({k: v.detach().numpy() for k, v in torch_module.state_dict().items()})
    return module


def compare_with_torch(m, t, x, rtol=1e-10, atol=1e-12):
    """Run both float64 modules on x with a random output gradient; compare outputs,
    input gradients and every parameter's gradient (by name)."""
    xm = mg.tensor(x, requires_grad=True)
    xt = torch.tensor(x, requires_grad=True)
    out, tout = m(xm), t(xt)
    assert_close(out, tout, rtol=rtol, atol=atol)
    g = rand(*tout.shape, seed=7)
    out.backward(mg.tensor(g))
    tout.backward(torch.tensor(g))
    assert_close(xm.grad, xt.grad, rtol=rtol, atol=atol)
    theirs = dict(t.named_parameters())
    for name, p in m.named_parameters():
        assert_close(p.grad, theirs[name].grad, rtol=rtol, atol=atol)


def param_shapes(module):
    return [(name, tuple(p.shape)) for name, p in module.named_parameters()]


# ---- Linear -----------------------------------------------------------------------------------
@pytest.mark.parametrize("bias", [True, False])
def test_linear_parameters_and_repr_match_torch(bias):
    m, t = nn.Linear(3, 5, bias=bias), tnn.Linear(3, 5, bias=bias)
    assert param_shapes(m) == param_shapes(t)
    assert repr(m) == repr(t)
    assert m.weight.dtype == np.float32 and (m.bias is None) == (not bias)


def test_linear_default_init_is_uniform_within_one_over_sqrt_fan_in():
    mg.manual_seed(0)
    torch.manual_seed(0)
    m, t = nn.Linear(400, 300), tnn.Linear(400, 300)
    bound = 1 / math.sqrt(400)
    w, tw = m.weight.array, t.weight.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.999 * bound
    assert abs(w.mean()) < 0.01 * bound
    assert w.std() == pytest.approx(bound / math.sqrt(3), rel=0.01)  # U(-b, b) has std b / sqrt(3)
    assert w.std() == pytest.approx(tw.std(), rel=0.02)
    b = m.bias.array
    assert np.abs(b).max() <= bound and np.abs(b).max() > 0.95 * bound and b.std() > 0.5 * bound


def test_linear_init_is_reproducible_with_manual_seed():
    mg.manual_seed(3)
    a = nn.Linear(4, 4)
    mg.manual_seed(3)
    b = nn.Linear(4, 4)
    c = nn.Linear(4, 4)
    np.testing.assert_array_equal(a.weight.array, b.weight.array)
    assert not np.array_equal(b.weight.array, c.weight.array)


@pytest.mark.parametrize("shape", [(4, 3), (2, 5, 3), (3,)], ids=str)
@pytest.mark.parametrize("bias", [True, False])
def test_linear_output_and_all_gradients_match_torch(shape, bias):
    t = tnn.Linear(3, 2, bias=bias).double()
    m = from_torch(nn.Linear(3, 2, bias=bias).double(), t)
    compare_with_torch(m, t, rand(*shape))


def test_linear_gradcheck_over_input_weight_and_bias():
    x, w, b = rand(4, 3), rand(2, 3, seed=1), rand(2, seed=2)
    check_grads(lambda x, w, b: F.linear(x, w, b), x, w, b, second=True)
    check_grads(lambda x, w: F.linear(x, w), rand(2, 3, 3), w, second=True)
    # and through the module: gradcheck perturbs its inputs in place, so passing the
    # module's own parameters checks the gradients that reach them
    m = nn.Linear(3, 2).double()
    x = mg.tensor(rand(4, 3), requires_grad=True)
    assert mg.autograd.gradcheck(lambda x, w, b: m(x), [x, m.weight, m.bias])


def test_linear_rejects_the_wrong_feature_size():
    with pytest.raises(ValueError, match=r"Linear: expected input with last dimension 3.*\(2, 4\)"):
        nn.Linear(3, 2)(mg.zeros(2, 4))
    with pytest.raises(ValueError, match="non-negative"):
        nn.Linear(-1, 2)


# ---- Dense (lazy Linear) -----------------------------------------------------------------------
def test_dense_infers_in_features_on_the_first_call():
    d = nn.Dense(4)
    weight, bias = d.weight, d.bias
    assert not d.is_built and d.in_features == 0 and d.weight.shape == (4, 0)
    assert repr(d) == "Dense(in_features=0, out_features=4, bias=True)"
    y = d(mg.ones(2, 7, 3))
    assert y.shape == (2, 7, 4)
    assert d.is_built and d.in_features == 3 and d.weight.shape == (4, 3) and d.bias.shape == (4,)
    # filled in place: references held elsewhere stay valid
    assert d.weight is weight and d.bias is bias
    assert repr(d) == "Dense(in_features=3, out_features=4, bias=True)"
    assert isinstance(d, nn.Linear)


def test_dense_parameters_taken_before_the_first_call_are_the_built_ones():
    model = nn.Sequential(nn.Dense(5), nn.ReLU(), nn.Dense(2, bias=False))
    params = list(model.parameters())
    model(mg.ones(3, 6))
    assert [tuple(p.shape) for p in params] == [(5, 6), (5,), (2, 5)]
    assert list(model.state_dict()) == ["0.weight", "0.bias", "2.weight"]


def test_dense_default_init_is_linears():
    mg.manual_seed(0)
    d = nn.Dense(300)
    d(mg.zeros(1, 400))
    bound = 1 / math.sqrt(400)
    assert np.abs(d.weight.array).max() <= bound and np.abs(d.weight.array).max() > 0.999 * bound
    assert d.weight.array.std() == pytest.approx(bound / math.sqrt(3), rel=0.01)
    assert np.abs(d.bias.array).max() <= bound and d.bias.array.std() > 0.5 * bound


def test_dense_keeps_the_dtype_it_was_given_before_building():
    d = nn.Dense(3).double()
    d.build(2)
    assert d.weight.dtype == np.float64 and d.bias.dtype == np.float64
    assert nn.Dense(3, dtype=mg.float64)(mg.ones(1, 2, dtype=mg.float64)).dtype == np.float64


@pytest.mark.parametrize("bias", [True, False])
def test_dense_output_and_gradients_match_torch_linear(bias):
    t = tnn.Linear(5, 3, bias=bias).double()
    m = from_torch(nn.Dense(3, bias=bias).double().build(5), t)
    compare_with_torch(m, t, rand(4, 5))


def test_dense_gradcheck_over_input_and_parameters():
    d = nn.Dense(3).double().build(4)
    x = mg.tensor(rand(2, 4), requires_grad=True)
    # gradcheck perturbs its inputs in place, so passing the module's own parameters
    # checks the gradients that reach them through the module
    assert mg.autograd.gradcheck(lambda x, w, b: d(x), [x, d.weight, d.bias])
    assert mg.autograd.gradgradcheck(lambda x, w, b: d(x), [x, d.weight, d.bias])


def test_dense_errors():
    d = nn.Dense(2)
    d(mg.zeros(3, 4))
    with pytest.raises(ValueError, match="last dimension 4"):
        d(mg.zeros(3, 5))  # in_features is fixed by the first call
    with pytest.raises(RuntimeError, match="already built"):
        d.build(4)
    with pytest.raises(ValueError, match="feature dimension"):
        nn.Dense(2)(mg.tensor(1.0))


def test_dense_state_dict_loads_into_a_linear():
    d = nn.Dense(3)
    d(mg.zeros(1, 2))
    lin = nn.Linear(2, 3)
    lin.load_state_dict(d.state_dict())
    x = mg.tensor(rand(4, 2, dtype=np.float32))
    np.testing.assert_array_equal(lin(x).array, d(x).array)


# ---- Embedding ---------------------------------------------------------------------------------
@pytest.mark.parametrize("padding_idx", [None, 0, 3, -1, -5])
def test_embedding_parameters_padding_idx_and_repr_match_torch(padding_idx):
    m, t = nn.Embedding(5, 3, padding_idx=padding_idx), tnn.Embedding(5, 3, padding_idx=padding_idx)
    assert param_shapes(m) == param_shapes(t) == [("weight", (5, 3))]
    assert m.padding_idx == t.padding_idx
    assert repr(m) == repr(t)
    if padding_idx is not None:
        assert not m.weight.array[padding_idx].any()


def test_embedding_default_init_is_standard_normal():
    mg.manual_seed(0)
    w = nn.Embedding(1000, 64, padding_idx=2).weight.array
    assert abs(w.mean()) < 0.01 and w.std() == pytest.approx(1.0, abs=0.01)
    assert np.abs(w).max() > 3.5  # normal tails, not a bounded uniform
    assert not w[2].any() and np.count_nonzero(w.any(axis=1)) == 999


def embedding_pair(padding_idx=None, zero_padding_row=True):
    t = tnn.Embedding(6, 4, padding_idx=padding_idx).double()
    if not zero_padding_row:
        with torch.no_grad():
            t.weight[padding_idx] = 5.0  # a padding row set by the user is read as is
    return from_torch(nn.Embedding(6, 4, padding_idx=padding_idx).double(), t), t


@pytest.mark.parametrize("padding_idx, zero_row", [(None, True), (2, True), (-1, False)])
@pytest.mark.parametrize(
    "ids", [[[2, 0, 2, 5], [1, 2, 2, 3]], [4, 4, 4], 3], ids=["2d-repeats", "1d-same", "0d"]
)
def test_embedding_output_and_weight_gradient_match_torch(ids, padding_idx, zero_row):
    m, t = embedding_pair(padding_idx, zero_row)
    ids = np.array(ids, dtype=np.int64)
    out, tout = m(mg.tensor(ids)), t(torch.tensor(ids))
    assert_close(out, tout, rtol=0, atol=0)
    g = rand(*tout.shape, seed=3)
    out.backward(mg.tensor(g))
    tout.backward(torch.tensor(g))
    assert_close(m.weight.grad, t.weight.grad, rtol=1e-12, atol=1e-12)
    if padding_idx is not None:
        assert not m.weight.grad.array[padding_idx].any()


def test_embedding_gradient_adds_up_repeated_ids():
    e = nn.Embedding(3, 2).double()
    e(mg.tensor([1, 1, 1, 0])).sum().backward()
    np.testing.assert_array_equal(e.weight.grad.array, [[1, 1], [3, 3], [0, 0]])


def test_embedding_gradcheck_over_the_weight():
    ids = mg.tensor([[0, 1, 3], [1, 1, 2]])
    check_grads(lambda w: F.embedding(ids, w), rand(4, 3), second=True)


def test_embedding_gradcheck_with_padding_idx():
    """The padding row's gradient is 0 by design, not by calculus; multiplying the
    outputs that read it by 0 makes 0 its true derivative, and the other rows are
    checked as usual through the detach-at-padding path."""
    ids = mg.tensor([[0, 1, 3], [1, 1, 2]])
    not_padding = mg.tensor((ids.array != 1)[..., None].astype(np.float64))
    check_grads(lambda w: F.embedding(ids, w, padding_idx=1) * not_padding, rand(4, 3), second=True)


def test_embedding_errors_name_the_index_and_the_table():
    e = nn.Embedding(10, 2)
    for bad in (10, -1):
        with pytest.raises(IndexError, match=rf"index {bad} is out of range.*10 rows"):
            e(mg.tensor([0, bad, 3]))
    with pytest.raises(
        RuntimeError, match="embedding: expected indices of dtype int64 or int32, but got float32"
    ):
        e(mg.tensor([1.0]))  # torch raises RuntimeError too
    with pytest.raises(ValueError, match="padding_idx 10"):
        nn.Embedding(10, 2, padding_idx=10)
    with pytest.raises(ValueError, match="padding_idx -11"):
        nn.Embedding(10, 2, padding_idx=-11)


@pytest.mark.parametrize("freeze", [True, False])
def test_embedding_from_pretrained(freeze):
    table = rand(4, 3)
    m = nn.Embedding.from_pretrained(mg.tensor(table), freeze=freeze, padding_idx=1)
    t = tnn.Embedding.from_pretrained(torch.tensor(table), freeze=freeze, padding_idx=1)
    assert_close(m.weight, t.weight, rtol=0, atol=0)  # the given padding row is kept
    assert m.weight.requires_grad == t.weight.requires_grad == (not freeze)
    assert repr(m) == repr(t)
    table[0, 0] = 100.0
    assert m.weight.array[0, 0] != 100.0  # a copy


# ---- Dropout -----------------------------------------------------------------------------------
@pytest.mark.parametrize("p", [0.1, 0.5, 0.8])
def test_dropout_zeroes_a_fraction_p_and_scales_the_rest(p):
    mg.manual_seed(0)
    x = mg.tensor(rand(200, 500) + 10.0, requires_grad=True)  # no zeros in x
    y = nn.Dropout(p)(x)
    dropped = y.array == 0
    assert dropped.mean() == pytest.approx(p, abs=0.005)
    np.testing.assert_allclose(y.array[~dropped], x.array[~dropped] / (1 - p), rtol=1e-12)
    y.sum().backward()  # dL/dx = mask / (1 - p)
    np.testing.assert_allclose(x.grad.array, np.where(dropped, 0.0, 1 / (1 - p)), rtol=1e-12)


def test_dropout_is_the_identity_in_eval_and_at_p_zero():
    x = mg.tensor(rand(3, 4))
    assert np.array_equal(nn.Dropout(0.5).eval()(x).array, x.array)
    assert np.array_equal(nn.Dropout(0.0)(x).array, x.array)
    assert not nn.Dropout(1.0)(x).array.any()


def test_dropout_masks_are_reproducible_with_manual_seed():
    x = mg.ones(1000)
    mg.manual_seed(5)
    a = nn.Dropout()(x)
    mg.manual_seed(5)
    b = nn.Dropout()(x)
    c = nn.Dropout()(x)
    assert np.array_equal(a.array, b.array) and not np.array_equal(b.array, c.array)


@pytest.mark.parametrize("p", [-0.1, 1.5])
def test_dropout_rejects_a_bad_probability_like_torch(p):
    with pytest.raises(ValueError):
        tnn.Dropout(p)
    with pytest.raises(ValueError, match="between 0 and 1"):
        nn.Dropout(p)


def test_dropout_repr_matches_torch():
    assert repr(nn.Dropout(0.2)) == repr(tnn.Dropout(0.2))
    assert repr(nn.Dropout()) == repr(tnn.Dropout())


# ---- activation modules --------------------------------------------------------------------------
ACTIVATIONS = [
    ("ReLU()", nn.ReLU(), tnn.ReLU()),
    ("LeakyReLU()", nn.LeakyReLU(), tnn.LeakyReLU()),
    ("LeakyReLU(0.2)", nn.LeakyReLU(0.2), tnn.LeakyReLU(0.2)),
    ("ELU()", nn.ELU(), tnn.ELU()),
    ("ELU(0.5)", nn.ELU(alpha=0.5), tnn.ELU(alpha=0.5)),
    ("GELU()", nn.GELU(), tnn.GELU()),
    ("GELU(tanh)", nn.GELU("tanh"), tnn.GELU("tanh")),
    ("SiLU()", nn.SiLU(), tnn.SiLU()),
    ("Sigmoid()", nn.Sigmoid(), tnn.Sigmoid()),
    ("Tanh()", nn.Tanh(), tnn.Tanh()),
    ("Softmax(1)", nn.Softmax(dim=1), tnn.Softmax(dim=1)),
    ("Softmax(-1)", nn.Softmax(dim=-1), tnn.Softmax(dim=-1)),
    ("LogSoftmax(0)", nn.LogSoftmax(dim=0), tnn.LogSoftmax(dim=0)),
    ("Softplus()", nn.Softplus(), tnn.Softplus()),
    ("Softplus(2, 5)", nn.Softplus(beta=2.0, threshold=5.0), tnn.Softplus(beta=2.0, threshold=5.0)),
    ("Mish()", nn.Mish(), tnn.Mish()),
]


@pytest.mark.parametrize("name, mine, theirs", ACTIVATIONS, ids=[a[0] for a in ACTIVATIONS])
def test_activation_modules_match_torch(name, mine, theirs):
    x = rand(3, 4, 5) * 4  # values on both sides of every kink, and past softplus's threshold
    check_against_torch(lambda x: mine(x), lambda x: theirs(x), x, rtol=1e-7, atol=1e-10)
    assert repr(mine) == repr(theirs)
    assert list(mine.parameters()) == [] and list(mine.state_dict()) == []


@pytest.mark.parametrize(
    "make", [lambda lib: lib.ReLU(inplace=True), lambda lib: lib.LeakyReLU(0.1, inplace=True)]
)
def test_inplace_flag_is_accepted_and_shown_but_the_input_is_kept(make):
    assert repr(make(nn)) == repr(make(tnn))
    x = mg.tensor([-1.0, 2.0])
    make(nn)(x)
    np.testing.assert_array_equal(x.array, [-1.0, 2.0])


def test_softmax_without_dim_warns_and_uses_torchs_legacy_choice():
    x = rand(2, 3)
    with pytest.warns(UserWarning, match="dim"):
        out = nn.Softmax()(mg.tensor(x))
    with pytest.warns(UserWarning):
        expected = tnn.Softmax()(torch.tensor(x))
    assert_close(out, expected)
    assert repr(nn.Softmax()) == repr(tnn.Softmax())


def test_gelu_rejects_an_unknown_approximation():
    with pytest.raises(ValueError, match="approximate"):
        nn.GELU("fast")


# ---- loss modules --------------------------------------------------------------------------------
def logits(*shape):
    return rand(*shape, seed=11) * 2


def classes(shape, n, seed=12):
    return np.random.default_rng(seed).integers(0, n, size=shape)


def probabilities(*shape):
    x = np.abs(rand(*shape, seed=13)) + 0.1
    return x / x.sum(axis=1, keepdims=True)


def unit(*shape):
    return 1 / (1 + np.exp(-rand(*shape, seed=14)))


CLASS_WEIGHT = np.array([0.5, 2.0, 1.0, 1.5])
TARGET = classes((6,), 4)
TARGET_2D = classes((2, 3, 3), 4)
PROB_TARGET = probabilities(6, 4)
REAL_TARGET = rand(6, 4, seed=15) * 2
BINARY_TARGET = classes((6, 4), 2).astype(np.float64)


def W(T, array):
    return T.tensor(array)


# name, (lib, T, reduction) -> criterion, input array, target (lib, T) -> target
LOSSES = [
    (
        "MSELoss",
        lambda lib, T, r: lib.MSELoss(reduction=r),
        logits(6, 4),
        lambda T: T.tensor(REAL_TARGET),
    ),
    (
        "L1Loss",
        lambda lib, T, r: lib.L1Loss(reduction=r),
        logits(6, 4),
        lambda T: T.tensor(REAL_TARGET),
    ),
    (
        "SmoothL1Loss",
        lambda lib, T, r: lib.SmoothL1Loss(reduction=r),
        logits(6, 4),
        lambda T: T.tensor(REAL_TARGET),
    ),
    (
        "SmoothL1Loss(beta)",
        lambda lib, T, r: lib.SmoothL1Loss(reduction=r, beta=0.5),
        logits(6, 4),
        lambda T: T.tensor(REAL_TARGET),
    ),
    (
        "HuberLoss",
        lambda lib, T, r: lib.HuberLoss(reduction=r, delta=0.7),
        logits(6, 4),
        lambda T: T.tensor(REAL_TARGET),
    ),
    (
        "CrossEntropyLoss",
        lambda lib, T, r: lib.CrossEntropyLoss(reduction=r),
        logits(6, 4),
        lambda T: T.tensor(TARGET),
    ),
    (
        "CrossEntropyLoss(all options)",
        lambda lib, T, r: lib.CrossEntropyLoss(
            weight=W(T, CLASS_WEIGHT), ignore_index=int(TARGET[0]), label_smoothing=0.2, reduction=r
        ),
        logits(6, 4),
        lambda T: T.tensor(TARGET),
    ),
    (
        "CrossEntropyLoss(2d)",
        lambda lib, T, r: lib.CrossEntropyLoss(weight=W(T, CLASS_WEIGHT), reduction=r),
        logits(2, 4, 3, 3),
        lambda T: T.tensor(TARGET_2D),
    ),
    (
        "CrossEntropyLoss(probabilities)",
        lambda lib, T, r: lib.CrossEntropyLoss(label_smoothing=0.1, reduction=r),
        logits(6, 4),
        lambda T: T.tensor(PROB_TARGET),
    ),
    (
        "NLLLoss",
        lambda lib, T, r: lib.NLLLoss(weight=W(T, CLASS_WEIGHT), ignore_index=1, reduction=r),
        np.log(probabilities(6, 4)),
        lambda T: T.tensor(TARGET),
    ),
    (
        "BCELoss",
        lambda lib, T, r: lib.BCELoss(weight=W(T, rand(6, 4, seed=16, positive=True)), reduction=r),
        unit(6, 4),
        lambda T: T.tensor(BINARY_TARGET),
    ),
    (
        "BCEWithLogitsLoss",
        lambda lib, T, r: lib.BCEWithLogitsLoss(pos_weight=W(T, CLASS_WEIGHT), reduction=r),
        logits(6, 4),
        lambda T: T.tensor(BINARY_TARGET),
    ),
    (
        "KLDivLoss",
        lambda lib, T, r: lib.KLDivLoss(reduction=r),
        np.log(probabilities(6, 4)),
        lambda T: T.tensor(PROB_TARGET),
    ),
    (
        "KLDivLoss(log_target)",
        lambda lib, T, r: lib.KLDivLoss(reduction=r, log_target=True),
        np.log(probabilities(6, 4)),
        lambda T: T.tensor(np.log(PROB_TARGET[::-1].copy())),
    ),
]


# torch's KLDivLoss notice
@pytest.mark.filterwarnings("ignore:reduction. 'mean' divides the total loss")
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("name, make, x, target", LOSSES, ids=[loss[0] for loss in LOSSES])
def test_loss_modules_match_torch(name, make, x, target, reduction):
    mine, theirs = make(nn, mg, reduction), make(tnn, torch, reduction)
    check_against_torch(
        lambda x: mine(x, target(mg)), lambda x: theirs(x, target(torch)), x, rtol=1e-7, atol=1e-10
    )
    assert repr(mine) == repr(theirs)
    assert list(mine.state_dict()) == list(theirs.state_dict())


def test_kl_div_loss_batchmean_matches_torch():
    p, q = probabilities(6, 4), PROB_TARGET[::-1].copy()
    check_against_torch(
        lambda x: nn.KLDivLoss(reduction="batchmean")(x, mg.tensor(q)),
        lambda x: tnn.KLDivLoss(reduction="batchmean")(x, torch.tensor(q)),
        np.log(p),
    )


def test_loss_weights_are_buffers_in_the_state_dict_and_follow_dtype():
    ce = nn.CrossEntropyLoss(weight=mg.tensor([1.0, 2.0]))
    assert list(ce.state_dict()) == list(
        tnn.CrossEntropyLoss(weight=torch.tensor([1.0, 2.0])).state_dict()
    )
    assert list(ce.buffers()) == [ce.weight] and list(ce.parameters()) == []
    assert ce.double().weight.dtype == np.float64
    bce = nn.BCEWithLogitsLoss(weight=mg.ones(2), pos_weight=mg.ones(2))
    assert list(bce.state_dict()) == ["weight", "pos_weight"]
    assert list(nn.CrossEntropyLoss().state_dict()) == [] and nn.CrossEntropyLoss().weight is None


def test_loss_argument_errors():
    with pytest.raises(ValueError, match="reduction"):
        nn.MSELoss(reduction="avg")
    with pytest.raises(ValueError, match="reduction"):
        nn.CrossEntropyLoss(reduction="batchmean")  # only KLDivLoss has batchmean
    with pytest.raises(ValueError, match="deprecated"):
        nn.MSELoss(size_average=False)
    with pytest.raises(ValueError, match="label_smoothing"):
        nn.CrossEntropyLoss(label_smoothing=1.5)
    with pytest.raises(RuntimeError, match="shape"):
        nn.MSELoss()(mg.zeros(2, 3), mg.zeros(3, 2))


def test_a_small_model_trained_with_modules_matches_torch_step_for_step():
    """Linear + GELU + Dropout(eval) + Linear + CrossEntropyLoss: the loss and every
    parameter gradient equal torch's, so the layers compose correctly."""
    torch.manual_seed(1)
    t = (
        tnn.Sequential(tnn.Linear(5, 7), tnn.GELU(), tnn.Dropout(0.3), tnn.Linear(7, 3))
        .double()
        .eval()
    )
    m = from_torch(
        nn.Sequential(nn.Linear(5, 7), nn.GELU(), nn.Dropout(0.3), nn.Linear(7, 3)).double().eval(),
        t,
    )
    x, y = rand(8, 5), classes((8,), 3)
    loss = nn.CrossEntropyLoss(label_smoothing=0.1)(m(mg.tensor(x)), mg.tensor(y))
    tloss = tnn.CrossEntropyLoss(label_smoothing=0.1)(t(torch.tensor(x)), torch.tensor(y))
    loss.backward()
    tloss.backward()
    assert_close(loss, tloss, rtol=1e-12)
    theirs = dict(t.named_parameters())
    for name, p in m.named_parameters():
        assert_close(p.grad, theirs[name].grad, rtol=1e-10, atol=1e-12)


# ---- Keras-style spellings: initializer=, is_built, Dense config, aliases ------------------------
def test_conv2d_transpose_spellings_are_one_class():
    assert nn.Conv2dTranspose is nn.Conv2DTranspose is nn.ConvTranspose2d and nn.Conv2D is nn.Conv2d


def test_the_keras_names_are_defined_in_one_module_and_not_in_the_pytorch_layer_files():
    import minigrad.nn.keras as keras
    from minigrad.nn import conv, linear, normalization, pooling

    names = ["Dense", "Conv2D", "Conv2DTranspose", "Conv2dTranspose", "BatchNorm1D", "BatchNorm2D"]
    names += ["MaxPool2D", "AvgPool2D", "GlobalAvgPool2D"]
    for name in names:
        assert getattr(nn, name) is getattr(keras, name), name
        assert not any(hasattr(m, name) for m in (conv, linear, normalization, pooling)), name
    assert nn.Dense.__module__ == "minigrad.nn.keras"


def test_a_built_dense_round_trips_through_its_config():
    d = nn.Dense(4, initializer="xavier_uniform")
    assert not d.is_built and d.get_config()["in_features"] is None
    d(mg.ones(2, 3))
    config = d.get_config()
    assert config == {
        "out_features": 4,
        "bias": True,
        "device": None,
        "dtype": None,
        "in_features": 3,
        "initializer": "xavier_uniform",
    }
    rebuilt = nn.Dense.from_config(json.loads(json.dumps(config)))
    assert rebuilt.is_built and rebuilt.weight.shape == (4, 3) and rebuilt.in_features == 3
    rebuilt.load_state_dict(d.state_dict())  # the same shapes: the weights move across
    np.testing.assert_array_equal(rebuilt(mg.ones(1, 3)).array, d(mg.ones(1, 3)).array)
    assert rebuilt.get_config() == config


def test_dense_in_features_builds_at_once():
    d = nn.Dense(2, in_features=5)
    assert d.is_built and d.weight.shape == (2, 5)
    with pytest.raises(RuntimeError, match="already built with in_features=5"):
        d.build(5)
    with pytest.raises(ValueError, match="in_features must be a non-negative integer, got 2.5"):
        nn.Dense(2, in_features=2.5)


def test_is_built_looks_at_the_whole_model():
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Dense(2))
    assert model[0].is_built and not model[2].is_built and not model.is_built
    model(mg.ones(1, 3))
    assert model.is_built and nn.Conv2d(1, 1, 3).is_built


def _weight_stats(layer):
    w = layer.weight.array
    return w.std(), np.abs(w).max()


@pytest.mark.parametrize(
    "make",
    [
        lambda init: nn.Dense(200, in_features=300, initializer=init),
        lambda init: nn.Conv2d(20, 30, 5, initializer=init),
        lambda init: nn.Conv1d(20, 30, 5, initializer=init),
        lambda init: nn.ConvTranspose2d(30, 20, 5, initializer=init),
    ],
    ids=["Dense", "Conv2d", "Conv1d", "ConvTranspose2d"],
)
def test_named_initializers_give_their_schemes_statistics(make):
    default = make(None)
    fan_in, fan_out = nn.init._calculate_fan_in_and_fan_out(default.weight)
    std, top = _weight_stats(make("xavier_uniform"))
    bound = math.sqrt(6 / (fan_in + fan_out))
    assert top <= bound and std == pytest.approx(bound / math.sqrt(3), rel=0.05)
    std, _ = _weight_stats(make("kaiming_normal"))
    assert std == pytest.approx(math.sqrt(2 / fan_in), rel=0.05)
    assert not make("zeros").weight.array.any() and (make("ones").weight.array == 1).all()
    std, top = _weight_stats(default)  # PyTorch's default: U(+-1/sqrt(fan_in))
    assert top <= 1 / math.sqrt(fan_in) and std == pytest.approx(
        1 / math.sqrt(3 * fan_in), rel=0.05
    )
    # the bias keeps the default whatever the weight's initializer
    assert 0 < np.abs(make("zeros").bias.array).max() <= 1 / math.sqrt(fan_in)


def test_an_initializer_function_receives_the_weight():
    seen = []

    def fill(weight):
        seen.append(weight.shape)
        nn.init.constant_(weight, 0.25)

    d = nn.Dense(3, initializer=fill)
    assert seen == []  # nothing to fill before the layer is built
    d(mg.ones(1, 2))
    assert seen == [(3, 2)] and (d.weight.array == 0.25).all()
    conv = nn.Conv2d(2, 4, 3, initializer=fill)
    assert seen[-1] == (4, 2, 3, 3) and (conv.weight.array == 0.25).all()


def test_initializer_is_reproducible_with_manual_seed():
    mg.manual_seed(5)
    a = nn.Conv2d(3, 4, 3, initializer="orthogonal").weight.array.copy()
    mg.manual_seed(5)
    np.testing.assert_array_equal(nn.Conv2d(3, 4, 3, initializer="orthogonal_").weight.array, a)


@pytest.mark.parametrize(
    "make, error, message",
    [
        (
            lambda: nn.Dense(2, initializer="glorot_normal"),
            ValueError,
            r"Dense: unknown initializer 'glorot_normal'",
        ),
        (
            lambda: nn.Conv2d(1, 1, 3, initializer=3),
            TypeError,
            r"Conv2d: initializer must be a name",
        ),
        (
            lambda: nn.ConvTranspose2d(1, 1, 3, initializer="nope"),
            ValueError,
            "ConvTranspose2d: unknown initializer",
        ),
    ],
)
def test_bad_initializers_are_refused_when_the_layer_is_made(make, error, message):
    with pytest.raises(error, match=message):
        make()


def test_a_layer_with_a_function_initializer_says_its_config_cannot_be_saved():
    with pytest.raises(
        TypeError, match="argument 'initializer' of type function is not JSON-serialisable"
    ):
        nn.Dense(2, initializer=lambda w: None).get_config()


def test_a_lazy_layer_of_your_own_sets_is_built():
    class Lazy(nn.Module):
        def __init__(self):
            super().__init__()
            self.is_built = False

        def forward(self, x):
            self.is_built = True
            return x

    model = nn.Sequential(Lazy())
    assert not model.is_built
    model(mg.ones(1))
    assert model.is_built


# ---- PyTorch's factory keywords: device= and dtype= ---------------------------------------------
FACTORY_LAYERS = {
    "Linear": lambda lib, **kw: lib.Linear(3, 4, **kw),
    "Dense": lambda lib, **kw: (
        nn.Dense(4, in_features=3, **kw) if lib is nn else tnn.LazyLinear(4, **kw)
    ),
    "Embedding": lambda lib, **kw: lib.Embedding(5, 3, **kw),
    "Conv1d": lambda lib, **kw: lib.Conv1d(2, 4, 3, **kw),
    "Conv2d": lambda lib, **kw: lib.Conv2d(2, 4, 3, **kw),
    "ConvTranspose2d": lambda lib, **kw: lib.ConvTranspose2d(2, 4, 3, **kw),
    "BatchNorm1d": lambda lib, **kw: lib.BatchNorm1d(3, **kw),
    "BatchNorm2d": lambda lib, **kw: lib.BatchNorm2d(3, **kw),
    "LayerNorm": lambda lib, **kw: lib.LayerNorm(3, **kw),
    "GroupNorm": lambda lib, **kw: lib.GroupNorm(1, 3, **kw),
    "RMSNorm": lambda lib, **kw: lib.RMSNorm(3, **kw),
}


def _dtypes(module):
    return {name: str(t.dtype).replace("torch.", "") for name, t in module.state_dict().items()}


@pytest.mark.parametrize("name", list(FACTORY_LAYERS))
@pytest.mark.parametrize("device", ["cpu", "device", "torch.device"])
def test_layers_take_device_and_dtype_as_torch(name, device):
    device = {"cpu": "cpu", "device": mg.device("cpu"), "torch.device": torch.device("cpu")}[device]
    layer = FACTORY_LAYERS[name](nn, device=device, dtype=mg.float64)
    theirs = FACTORY_LAYERS[name](tnn, device="cpu", dtype=torch.float64)
    if name == "Dense":  # torch's lazy layer gets its shape from a first input
        theirs(torch.zeros(1, 3, dtype=torch.float64))
    mine = _dtypes(layer)
    assert mine and all(d == "float64" for k, d in mine.items() if k != "num_batches_tracked")
    assert mine == _dtypes(theirs)  # the same names and dtypes, num_batches_tracked int64
    assert all(p.device == mg.device("cpu") for p in layer.parameters())


@pytest.mark.parametrize("name", list(FACTORY_LAYERS))
def test_layers_default_to_float32_and_keep_their_config_with_device(name):
    layer = FACTORY_LAYERS[name](nn)
    assert {d for k, d in _dtypes(layer).items() if k != "num_batches_tracked"} == {"float32"}
    made = FACTORY_LAYERS[name](nn, device=mg.device("cpu"), dtype=mg.float64)
    config = json.loads(json.dumps(made.get_config()))
    assert config["device"] == "cpu" and config["dtype"] == "float64"
    assert _dtypes(type(made).from_config(config)) == _dtypes(made)


@pytest.mark.parametrize("name", list(FACTORY_LAYERS))
@pytest.mark.parametrize("device", ["cuda", "cuda:0", "mps"])
def test_layers_on_a_missing_gpu_raise_naming_the_layer_and_what_is_missing(name, device, no_gpu):
    missing = (
        "no CUDA device is available: CuPy is not installed"
        if "cuda" in device
        else ".*cannot be placed on 'mps'"
    )
    with pytest.raises(RuntimeError, match=rf"{name}: {missing}"):
        FACTORY_LAYERS[name](nn, device=device)


def test_linear_takes_device_and_dtype_in_torchs_positions():
    mine, theirs = (
        nn.Linear(3, 4, False, "cpu", mg.float64),
        tnn.Linear(3, 4, False, "cpu", torch.float64),
    )
    assert _dtypes(mine) == _dtypes(theirs) == {"weight": "float64"}
    x = rand(2, 3)
    assert from_torch(mine, theirs)(mg.tensor(x)).dtype == mg.float64
