"""torch.nn's long tail of layers against torch: activations, padding, pooling, dropout,
losses, normalization and the other layers, each built in both libraries with the same
arguments. torch's state dict is loaded into minigrad's layer (as NumPy arrays); then
the state dict's keys and shapes, the repr, the output and every gradient (input and
parameters) are compared in float64. Random layers are compared where they are
deterministic (evaluation) and by their statistics and structure in training.
"""

import numpy as np
import pytest
import torch

import minigrad as mg
from tests.helpers import assert_close, rand

# The torch names whose behaviour this file checks against torch (read by tools/api_coverage.py).
TORCH_API = [
    "torch.nn.AdaptiveAvgPool1d",
    "torch.nn.AdaptiveAvgPool3d",
    "torch.nn.AdaptiveMaxPool1d",
    "torch.nn.AdaptiveMaxPool2d",
    "torch.nn.AdaptiveMaxPool3d",
    "torch.nn.AlphaDropout",
    "torch.nn.AvgPool3d",
    "torch.nn.BatchNorm3d",
    "torch.nn.Bilinear",
    "torch.nn.Buffer",
    "torch.nn.CELU",
    "torch.nn.CTCLoss",
    "torch.nn.ChannelShuffle",
    "torch.nn.CircularPad1d",
    "torch.nn.CircularPad2d",
    "torch.nn.CircularPad3d",
    "torch.nn.ConstantPad1d",
    "torch.nn.ConstantPad2d",
    "torch.nn.ConstantPad3d",
    "torch.nn.Conv3d",
    "torch.nn.ConvTranspose1d",
    "torch.nn.CosineEmbeddingLoss",
    "torch.nn.CosineSimilarity",
    "torch.nn.Dropout1d",
    "torch.nn.Dropout2d",
    "torch.nn.Dropout3d",
    "torch.nn.EmbeddingBag",
    "torch.nn.FeatureAlphaDropout",
    "torch.nn.Fold",
    "torch.nn.GLU",
    "torch.nn.GaussianNLLLoss",
    "torch.nn.Hardshrink",
    "torch.nn.Hardsigmoid",
    "torch.nn.Hardswish",
    "torch.nn.Hardtanh",
    "torch.nn.HingeEmbeddingLoss",
    "torch.nn.InstanceNorm1d",
    "torch.nn.InstanceNorm2d",
    "torch.nn.InstanceNorm3d",
    "torch.nn.LPPool1d",
    "torch.nn.LPPool2d",
    "torch.nn.LPPool3d",
    "torch.nn.LazyBatchNorm1d",
    "torch.nn.LazyBatchNorm2d",
    "torch.nn.LazyBatchNorm3d",
    "torch.nn.LazyConv1d",
    "torch.nn.LazyConv2d",
    "torch.nn.LazyConv3d",
    "torch.nn.LazyConvTranspose1d",
    "torch.nn.LazyConvTranspose2d",
    "torch.nn.LazyInstanceNorm1d",
    "torch.nn.LazyInstanceNorm2d",
    "torch.nn.LazyInstanceNorm3d",
    "torch.nn.LazyLinear",
    "torch.nn.LocalResponseNorm",
    "torch.nn.LogSigmoid",
    "torch.nn.MarginRankingLoss",
    "torch.nn.MaxPool3d",
    "torch.nn.MaxUnpool1d",
    "torch.nn.MaxUnpool2d",
    "torch.nn.MaxUnpool3d",
    "torch.nn.Module.forward",
    "torch.nn.MultiLabelMarginLoss",
    "torch.nn.MultiLabelSoftMarginLoss",
    "torch.nn.MultiMarginLoss",
    "torch.nn.PReLU",
    "torch.nn.PairwiseDistance",
    "torch.nn.PixelShuffle",
    "torch.nn.PixelUnshuffle",
    "torch.nn.PoissonNLLLoss",
    "torch.nn.RReLU",
    "torch.nn.ReLU6",
    "torch.nn.ReflectionPad1d",
    "torch.nn.ReflectionPad2d",
    "torch.nn.ReflectionPad3d",
    "torch.nn.ReplicationPad1d",
    "torch.nn.ReplicationPad2d",
    "torch.nn.ReplicationPad3d",
    "torch.nn.SELU",
    "torch.nn.SoftMarginLoss",
    "torch.nn.Softmax2d",
    "torch.nn.Softmin",
    "torch.nn.Softshrink",
    "torch.nn.Softsign",
    "torch.nn.Tanhshrink",
    "torch.nn.Threshold",
    "torch.nn.TripletMarginLoss",
    "torch.nn.TripletMarginWithDistanceLoss",
    "torch.nn.Unfold",
    "torch.nn.UninitializedBuffer",
    "torch.nn.UninitializedParameter",
    "torch.nn.ZeroPad1d",
    "torch.nn.ZeroPad2d",
    "torch.nn.ZeroPad3d",
    "torch.nn.functional.gumbel_softmax",
]


# ---- the comparison ---------------------------------------------------------------------------
def build(name, args=(), kwargs=None):
    """(minigrad's layer, torch's layer): the same constructor call in both, in float64,
    with torch's parameters and buffers loaded into minigrad's."""
    kwargs = kwargs or {}
    t = getattr(torch.nn, name)(*args, **kwargs).double()
    m = getattr(mg.nn, name)(*args, **kwargs).double()
    state = {k: v.detach().numpy() for k, v in t.state_dict().items()}
    m.load_state_dict(state)
    return m, t


def same_state_and_repr(m, t):
    """state dict keys and shapes, and the repr, as torch's."""
    mine = {k: tuple(v.shape) for k, v in m.state_dict().items()}
    theirs = {k: tuple(v.shape) for k, v in t.state_dict().items()}
    assert mine == theirs
    assert list(m.state_dict()) == list(t.state_dict())
    assert repr(m) == repr(t)


def compare(m, t, *arrays, rtol=1e-10, atol=1e-12, grad_seed=7, constant=()):
    """Run both layers on float64 copies of `arrays` (float ones require grad, except
    those whose positions are in `constant`: targets torch refuses to differentiate); compare
    the outputs, then the gradients of every float input and every parameter for one
    random output gradient. Returns minigrad's output."""
    grad = [a.dtype.kind == "f" and i not in constant for i, a in enumerate(arrays)]
    mine = [mg.tensor(a, requires_grad=g) for a, g in zip(arrays, grad)]
    theirs = [torch.tensor(a, requires_grad=g) for a, g in zip(arrays, grad)]
    # through a copy: a torch layer with inplace=True may not write into a leaf
    out, tout = (
        m(*[x * 1 if x.requires_grad else x for x in mine]),
        t(*[x * 1 if x.requires_grad else x for x in theirs]),
    )
    assert_close(out, tout, rtol=rtol, atol=atol)
    if not tout.requires_grad:
        return out
    g = rand(*tout.shape, seed=grad_seed)
    out.backward(mg.tensor(g))
    tout.backward(torch.tensor(g))
    for x, tx in zip(mine, theirs):
        if tx.requires_grad and tx.grad is None:  # torch's result does not depend on it (a label)
            assert x.grad is None or not np.any(x.grad.numpy())
        elif tx.requires_grad:
            assert_close(x.grad, tx.grad, rtol=rtol, atol=atol)
    named = dict(t.named_parameters())
    assert sorted(named) == sorted(n for n, _ in m.named_parameters())
    for name, p in m.named_parameters():
        assert_close(p.grad, named[name].grad, rtol=rtol, atol=atol)
    return out


# ---- activations ------------------------------------------------------------------------------
ACTIVATIONS = [
    ("ReLU6", (), {}, 4.0),
    ("ReLU6", (True,), {}, 4.0),
    ("Hardtanh", (), {}, 1.0),
    ("Hardtanh", (-2.0, 3), {"inplace": True}, 2.0),
    ("Hardsigmoid", (), {}, 4.0),
    ("Hardswish", (), {"inplace": True}, 4.0),
    ("SELU", (), {}, 1.0),
    ("SELU", (True,), {}, 1.0),
    ("CELU", (), {}, 1.0),
    ("CELU", (2.0, True), {}, 1.0),
    ("GLU", (), {}, 1.0),
    ("GLU", (0,), {}, 1.0),
    ("LogSigmoid", (), {}, 10.0),
    ("Softmin", (1,), {}, 1.0),
    ("Softmax2d", (), {}, 1.0),
    ("Softsign", (), {}, 1.0),
    ("Softshrink", (), {}, 1.0),
    ("Softshrink", (0.3,), {}, 1.0),
    ("Hardshrink", (), {}, 1.0),
    ("Tanhshrink", (), {}, 1.0),
    ("Threshold", (0.1, 20), {}, 1.0),
    ("Threshold", (0.1, 20.0, True), {}, 1.0),
    ("RReLU", (), {}, 1.0),
    ("RReLU", (0.1, 0.3, True), {}, 1.0),
    ("PReLU", (), {}, 1.0),
    ("PReLU", (4, 0.1), {}, 1.0),
]


@pytest.mark.parametrize(
    "name, args, kwargs, scale", ACTIVATIONS, ids=[f"{a[0]}{a[1]}" for a in ACTIVATIONS]
)
def test_activation_layers_match_torch(name, args, kwargs, scale):
    m, t = build(name, args, kwargs)
    same_state_and_repr(m, t)
    m.eval(), t.eval()  # RReLU: the deterministic slope
    # torch's hardsigmoid backward multiplies by 1/6 rounded to float32, even in float64
    rtol = 1e-7 if name == "Hardsigmoid" else 1e-10
    compare(m, t, rand(2, 4, 3, 2, seed=3) * scale, rtol=rtol)


def test_prelu_weight_is_a_parameter_initialised_as_torch():
    m, t = mg.nn.PReLU(3, init=0.5), torch.nn.PReLU(3, init=0.5)
    assert isinstance(m.weight, mg.nn.Parameter) and m.weight.dtype == mg.float32
    assert_close(m.weight, t.weight)
    with pytest.raises(RuntimeError, match="channel size"):
        m(mg.ones(2, 4))


def test_prelu_per_channel_slopes_get_per_channel_gradients():
    m, t = build("PReLU", (3,))
    with torch.no_grad():
        t.weight.copy_(torch.tensor([0.1, -0.5, 2.0], dtype=torch.float64))
    m.load_state_dict({"weight": t.weight.detach().numpy()})
    compare(m, t, rand(5, 3, seed=4))
    x, w = (
        mg.tensor(rand(2, 3, 2, seed=5), requires_grad=True),
        mg.tensor(rand(3, seed=6), requires_grad=True),
    )
    assert mg.autograd.gradcheck(mg.nn.functional.prelu, [x, w])


BREAKPOINTS = [
    ("relu6", lambda F, x: F.relu6(x), [0.0, 6.0, -1.0, 3.0, 7.0]),
    ("hardtanh", lambda F, x: F.hardtanh(x, -0.5, 0.5), [-0.5, 0.5, 0.0, -1.0, 1.0]),
    ("hardsigmoid", lambda F, x: F.hardsigmoid(x), [-3.0, 3.0, 0.0, -4.0, 4.0]),
    ("hardswish", lambda F, x: F.hardswish(x), [-3.0, 3.0, 0.0, -4.0, 4.0]),
    ("threshold", lambda F, x: F.threshold(x, 0.5, 2.0), [0.5, 0.0, 1.0]),
    ("softshrink", lambda F, x: F.softshrink(x, 0.5), [-0.5, 0.5, 0.0, 1.0, -1.0]),
    ("hardshrink", lambda F, x: F.hardshrink(x, 0.5), [-0.5, 0.5, 0.0, 1.0, -1.0]),
    ("rrelu", lambda F, x: F.rrelu(x), [0.0, 1.0, -1.0]),
]


@pytest.mark.parametrize("name, fn, values", BREAKPOINTS, ids=[b[0] for b in BREAKPOINTS])
def test_gradients_at_the_breakpoints_are_torchs(name, fn, values):
    """At a kink the derivative is a choice: each op makes torch's (finite differences
    cannot check this, so torch is the reference)."""
    x = mg.tensor(values, dtype=mg.float64, requires_grad=True)
    tx = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    y, ty = fn(mg.nn.functional, x), fn(torch.nn.functional, tx)
    assert_close(y, ty)
    y.sum().backward(), ty.sum().backward()
    assert_close(x.grad, tx.grad)


def test_prelu_gradient_at_zero_is_torchs():
    grads = []
    for lib in (mg, torch):
        x = lib.tensor([0.0, 1.0, -1.0], dtype=lib.float64, requires_grad=True)
        w = lib.tensor([0.3], dtype=lib.float64, requires_grad=True)
        lib.nn.functional.prelu(x, w).sum().backward()
        grads.append((x.grad.numpy(), w.grad.numpy()))
    (x_mine, w_mine), (x_theirs, w_theirs) = grads
    np.testing.assert_allclose(x_mine, x_theirs)
    np.testing.assert_allclose(w_mine, w_theirs)


def test_rrelu_in_training_draws_a_slope_per_negative_element_within_the_bounds():
    mg.manual_seed(0)
    layer = mg.nn.RReLU(0.1, 0.3)
    assert layer.training
    x = mg.tensor(-np.abs(rand(200, 50, seed=8)) - 0.01, requires_grad=True)
    y = layer(x)
    slopes = (y / x).detach().numpy()
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3
    assert abs(slopes.mean() - 0.2) < 0.005 and abs(slopes.std() - 0.2 / np.sqrt(12)) < 0.005
    assert np.unique(slopes).size > 9000  # one draw per element
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), slopes, rtol=1e-6)  # dy/dx is the drawn slope
    positive = mg.tensor(np.abs(rand(3, 4, seed=9)))
    assert np.array_equal(layer(positive).numpy(), positive.numpy())  # x > 0 passes unchanged
    layer.eval()
    np.testing.assert_allclose(layer(x).detach().numpy(), x.detach().numpy() * 0.2)


def test_rrelu_draws_are_reproducible_with_manual_seed():
    x = mg.tensor(-np.ones((4, 5)))
    mg.manual_seed(3)
    a = mg.nn.functional.rrelu(x, training=True)
    mg.manual_seed(3)
    b = mg.nn.functional.rrelu(x, training=True)
    assert np.array_equal(a.numpy(), b.numpy())


def test_activation_constructor_errors_match_torch():
    with pytest.raises(AssertionError):
        torch.nn.Hardtanh(1.0, -1.0)
    with pytest.raises(AssertionError, match="max_val"):
        mg.nn.Hardtanh(1.0, -1.0)
    for lib in (mg, torch):
        with pytest.raises(ValueError, match="3D or 4D"):
            lib.nn.Softmax2d()(lib.ones(3))


# ---- padding ----------------------------------------------------------------------------------
PADDINGS = [
    ("ZeroPad1d", (2,), (2, 3, 5)),
    ("ZeroPad1d", ((1, 0),), (3, 5)),
    ("ZeroPad2d", (1,), (2, 3, 4, 5)),
    ("ZeroPad2d", ((1, 2, 0, 3),), (3, 4, 5)),
    ("ZeroPad3d", ((1, 0, 2, 1, 0, 1),), (1, 2, 3, 4, 2)),
    ("ConstantPad1d", (2, 3.5), (2, 3, 5)),
    # constant padding takes any number of leading dims
    ("ConstantPad1d", ((0, 2), -1), (2, 3, 4, 5)),
    ("ConstantPad2d", ((1, 0, 2, 0), 1), (2, 3, 4, 5)),
    ("ConstantPad3d", (1, -1.0), (2, 2, 3, 2)),
    ("ReflectionPad1d", (2,), (2, 3, 5)),
    ("ReflectionPad1d", ((3, 1),), (3, 5)),
    ("ReflectionPad2d", ((1, 1, 2, 0),), (2, 3, 4, 5)),
    ("ReflectionPad2d", (2,), (3, 4, 5)),
    ("ReflectionPad3d", (1,), (1, 2, 3, 4, 2)),
    ("ReplicationPad1d", (2,), (2, 3, 5)),
    ("ReplicationPad2d", ((0, 3, 1, 2),), (2, 3, 4, 5)),
    ("ReplicationPad3d", ((1, 1, 1, 1, 1, 0),), (2, 3, 2, 4)),
    ("CircularPad1d", ((1, 3),), (2, 3, 5)),
    ("CircularPad2d", ((1, 2, 0, 1),), (2, 3, 4, 5)),
    ("CircularPad3d", (1,), (1, 2, 3, 4, 2)),
]


@pytest.mark.parametrize("name, args, shape", PADDINGS, ids=[f"{p[0]}{p[1]}" for p in PADDINGS])
def test_padding_layers_match_torch(name, args, shape):
    m, t = build(name, args)
    same_state_and_repr(m, t)
    assert m.padding == t.padding
    compare(m, t, rand(*shape, seed=11))


@pytest.mark.parametrize("name", ["ReflectionPad2d", "ReplicationPad2d", "CircularPad2d"])
def test_non_constant_padding_layers_want_a_batched_or_unbatched_input_like_torch(name):
    error = ValueError if name.startswith("Circular") else NotImplementedError
    for lib in (mg, torch):
        layer = getattr(lib.nn, name)(1)
        with pytest.raises(error):
            layer(lib.ones(4, 4))  # (H, W): no channel dim
        assert layer(lib.ones(1, 1, 4, 4)).shape == (1, 1, 6, 6)


def test_padding_layers_refuse_the_wrong_number_of_amounts():
    with pytest.raises(ValueError, match=r"ZeroPad2d: padding must be an int or a tuple of 4 ints"):
        mg.nn.ZeroPad2d((1, 2))


# ---- losses -----------------------------------------------------------------------------------
SIGNS = np.array([1.0, -1.0, -1.0, 1.0, 1.0])
CLASSES = np.array([2, 0, 3, 3, 1])
LABEL_LISTS = np.array([[3, 0, -1, 1], [1, -1, 2, 2], [0, 1, 2, 3], [2, 2, -1, -1], [-1, 0, 1, 2]])
MULTI_HOT = np.array([[1.0, 0, 0, 1], [0, 1, 0, 0], [1, 1, 1, 1], [0, 0, 1, 0], [0, 0, 0, 0]])
X54, Y54, Z54 = rand(5, 4, seed=20), rand(5, 4, seed=21), rand(5, 4, seed=22)

LOSSES = [  # (layer, constructor kwargs, forward arguments, positions that are constants)
    ("MarginRankingLoss", {}, (X54[:, 0], Y54[:, 0], SIGNS), ()),
    ("MarginRankingLoss", {"margin": 0.5, "reduction": "none"}, (X54[:, 0], Y54[:, 0], SIGNS), ()),
    ("HingeEmbeddingLoss", {}, (np.abs(X54[:, 0]), SIGNS), ()),
    ("HingeEmbeddingLoss", {"margin": 2.0, "reduction": "sum"}, (np.abs(X54[:, 0]), SIGNS), ()),
    ("SoftMarginLoss", {}, (X54[:, 0], SIGNS), (1,)),
    ("SoftMarginLoss", {"reduction": "none"}, (X54[:, 0], SIGNS), (1,)),
    ("CosineEmbeddingLoss", {}, (X54, Y54, SIGNS), ()),
    ("CosineEmbeddingLoss", {"margin": 0.3, "reduction": "sum"}, (X54, Y54, SIGNS), ()),
    ("TripletMarginLoss", {}, (X54, Y54, Z54), ()),
    (
        "TripletMarginLoss",
        {"margin": 2.0, "p": 1.0, "swap": True, "reduction": "none"},
        (X54, Y54, Z54),
        (),
    ),
    ("TripletMarginWithDistanceLoss", {}, (X54, Y54, Z54), ()),
    ("TripletMarginWithDistanceLoss", {"margin": 0.5, "swap": True}, (X54, Y54, Z54), ()),
    ("MultiMarginLoss", {}, (X54, CLASSES), ()),
    (
        "MultiMarginLoss",
        {"p": 2, "margin": 0.5, "weight": np.array([0.5, 2.0, 1.0, 0.25])},
        (X54, CLASSES),
        (),
    ),
    ("MultiLabelMarginLoss", {}, (X54, LABEL_LISTS), ()),
    ("MultiLabelMarginLoss", {"reduction": "none"}, (X54, LABEL_LISTS), ()),
    ("MultiLabelSoftMarginLoss", {}, (X54, MULTI_HOT), ()),
    ("MultiLabelSoftMarginLoss", {"weight": np.array([0.5, 2.0, 1.0, 0.25])}, (X54, MULTI_HOT), ()),
    ("GaussianNLLLoss", {}, (X54, Y54, np.abs(Z54) + 0.1), ()),
    (
        "GaussianNLLLoss",
        {"full": True, "reduction": "none"},
        (X54, Y54, np.abs(Z54[:, 0]) + 0.1),
        (),
    ),
    ("PoissonNLLLoss", {}, (X54, np.abs(Y54) * 3), ()),
    (
        "PoissonNLLLoss",
        {"log_input": False, "full": True},
        (np.abs(X54) + 0.1, np.abs(Y54) * 3),
        (),
    ),
]


def build_loss(name, kwargs):
    """(minigrad's loss, torch's): a weight array becomes each library's tensor."""

    def made(lib):
        given = {k: lib.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
        return getattr(lib.nn, name)(**given)

    return made(mg), made(torch)


@pytest.mark.parametrize(
    "name, kwargs, arrays, constant", LOSSES, ids=[f"{c[0]}{c[1]}" for c in LOSSES]
)
def test_loss_layers_match_torch(name, kwargs, arrays, constant):
    m, t = build_loss(name, kwargs)
    same_state_and_repr(m, t)
    compare(m, t, *arrays, constant=constant)


def test_loss_layers_reject_bad_settings_like_torch():
    for lib in (mg, torch):
        with pytest.raises(ValueError, match="margin"):
            lib.nn.TripletMarginLoss(margin=0.0)
        with pytest.raises(ValueError, match="margin"):
            lib.nn.TripletMarginWithDistanceLoss(margin=-1.0)
        with pytest.raises(ValueError, match="p == 1 and p == 2"):
            lib.nn.MultiMarginLoss(p=3)


def test_triplet_loss_takes_any_distance_layer():
    distance = {lib: lib.nn.CosineSimilarity(dim=1) for lib in (mg, torch)}
    m = mg.nn.TripletMarginWithDistanceLoss(distance_function=lambda a, b: 1.0 - distance[mg](a, b))
    t = torch.nn.TripletMarginWithDistanceLoss(
        distance_function=lambda a, b: 1.0 - distance[torch](a, b)
    )
    compare(m, t, X54, Y54, Z54)


def test_gaussian_nll_clamps_a_small_variance_but_passes_its_gradient_like_torch():
    """var below eps is replaced by eps in the value, while its gradient flows as if it were
    not clamped (torch clamps a copy outside the graph). Finite differences would see a
    constant there, so torch is the reference."""
    var = np.abs(Z54) * 1e-4
    m, t = mg.nn.GaussianNLLLoss(eps=1e-3), torch.nn.GaussianNLLLoss(eps=1e-3)
    compare(m, t, X54, Y54, var, rtol=1e-9)


def test_distance_layers_match_torch():
    for name, kwargs in [
        ("PairwiseDistance", {}),
        ("PairwiseDistance", {"p": 1.0, "eps": 0.1, "keepdim": True}),
        ("CosineSimilarity", {}),
        ("CosineSimilarity", {"dim": 0, "eps": 1e-3}),
    ]:
        m, t = build(name, (), kwargs)
        same_state_and_repr(m, t)
        compare(m, t, X54, Y54)


# ---- dropout ----------------------------------------------------------------------------------
DROPOUTS = [
    ("Dropout1d", (2, 3, 4)),
    ("Dropout2d", (2, 3, 4, 5)),
    ("Dropout3d", (2, 3, 2, 2, 2)),
    ("AlphaDropout", (2, 3, 4)),
    ("FeatureAlphaDropout", (2, 3, 4, 5)),
]


@pytest.mark.parametrize("name, shape", DROPOUTS, ids=[d[0] for d in DROPOUTS])
def test_dropout_layers_are_the_identity_in_eval_and_print_like_torch(name, shape):
    m, t = build(name, (0.3,))
    same_state_and_repr(m, t)
    assert m.training
    m.eval(), t.eval()
    out = compare(m, t, rand(*shape, seed=12))
    assert np.array_equal(out.detach().numpy(), rand(*shape, seed=12))  # exactly, not nearly
    with pytest.raises(ValueError, match="between 0 and 1"):
        getattr(mg.nn, name)(1.5)


@pytest.mark.parametrize("name, shape", DROPOUTS[:3], ids=[d[0] for d in DROPOUTS[:3]])
def test_channel_dropout_zeroes_whole_channels_and_scales_the_rest(name, shape):
    mg.manual_seed(0)
    p = 0.4
    big = (200, 30) + shape[2:]  # 6000 channels
    x = mg.tensor(np.abs(rand(*big, seed=13)) + 1.0, requires_grad=True)  # never 0 itself
    y = getattr(mg.nn, name)(p)(x)
    ratio = (y / x).detach().numpy().reshape(200, 30, -1)
    per_channel = ratio[:, :, 0]
    # a draw per channel
    np.testing.assert_allclose(ratio, np.broadcast_to(per_channel[:, :, None], ratio.shape))
    assert np.all(np.isclose(per_channel, 0.0) | np.isclose(per_channel, 1 / (1 - p)))
    assert abs((per_channel == 0).mean() - p) < 0.03
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), ratio.reshape(big))  # dL/dx = mask / (1 - p)


def test_dropout1d_and_dropout3d_take_unbatched_inputs_like_torch():
    mg.manual_seed(1)
    for name, shape in [("Dropout1d", (50, 4)), ("Dropout3d", (50, 2, 2, 2))]:
        y = getattr(mg.nn, name)(0.5)(mg.ones(*shape)).numpy().reshape(50, -1)
        assert np.all(y == y[:, :1]) and 0 < (y[:, 0] == 0).sum() < 50  # channels are dim 0 here


@pytest.mark.parametrize("p", [0.2, 0.5])
def test_alpha_dropout_takes_torchs_two_values_and_keeps_mean_and_variance(p):
    """torch's and minigrad's draws differ, but each element of either output is one of
    two values: the kept a x + b or the dropped constant; both must be the same affine map."""
    x = rand(400, 100, seed=14)
    mg.manual_seed(2), torch.manual_seed(2)
    outputs = {
        lib: lib.nn.functional.alpha_dropout(lib.tensor(x), p, training=True).numpy()
        for lib in (mg, torch)
    }
    fits = {}
    for lib, y in outputs.items():
        values, counts = np.unique(y, return_counts=True)
        dropped_value = values[np.argmax(counts)]  # the constant most elements share
        kept = y != dropped_value
        a, b = np.polyfit(x[kept], y[kept], 1)  # kept elements lie on one line a x + b
        np.testing.assert_allclose(y[kept], a * x[kept] + b, rtol=1e-5, atol=1e-5)
        fits[lib] = (a, b, dropped_value, 1 - kept.mean())
    (a, b, d, frac), (ta, tb, td, tfrac) = fits[mg], fits[torch]
    np.testing.assert_allclose([a, b, d], [ta, tb, td], rtol=1e-5)
    assert abs(frac - p) < 0.02 and abs(tfrac - p) < 0.02
    y = outputs[mg]
    assert abs(y.mean()) < 0.03 and abs(y.std() - 1.0) < 0.03  # the self-normalizing property


def test_feature_alpha_dropout_draws_one_value_per_channel():
    mg.manual_seed(3)
    x = mg.tensor(rand(100, 20, 3, 3, seed=15))
    y = mg.nn.FeatureAlphaDropout(0.5)(x).numpy().reshape(100, 20, 9)
    dropped = np.all(y == y[:, :, :1], axis=2)  # a dropped map holds one constant
    assert 0.4 < dropped.mean() < 0.6
    assert np.unique(y[dropped][:, 0]).size == 1


# ---- pooling ----------------------------------------------------------------------------------
POOLS = [
    ("AdaptiveAvgPool1d", (3,), (2, 3, 7)),
    ("AdaptiveAvgPool1d", ((4,),), (3, 9)),
    ("AdaptiveMaxPool1d", (3,), (2, 3, 8)),
    ("AdaptiveMaxPool2d", ((3, None),), (2, 3, 7, 5)),
    ("AdaptiveMaxPool2d", (2,), (3, 5, 5)),
    ("LPPool1d", (2, 3), (2, 3, 8)),
    ("LPPool2d", (1.5, (2, 3), 1, True), (2, 3, 5, 6)),
    ("LPPool2d", (2, 2), (3, 4, 4)),
    ("AvgPool3d", (2,), (2, 3, 4, 5, 4)),
    ("AvgPool3d", ((2, 3, 2), 1, 1, True, False, 3), (2, 2, 4, 5, 3)),
    ("MaxPool3d", (2,), (2, 3, 4, 5, 4)),
    ("MaxPool3d", (3, 2, 1, 2, False, True), (2, 2, 6, 5, 7)),
    ("AdaptiveAvgPool3d", ((2, None, 3),), (2, 3, 5, 4, 7)),
    ("AdaptiveMaxPool3d", (2,), (3, 5, 4, 5)),
    ("LPPool3d", (2, 3), (2, 2, 4, 5, 6)),
]


@pytest.mark.parametrize("name, args, shape", POOLS, ids=[f"{p[0]}{p[1]}" for p in POOLS])
def test_pooling_layers_match_torch(name, args, shape):
    m, t = build(name, args)
    same_state_and_repr(m, t)
    compare(m, t, np.abs(rand(*shape, seed=16)) + 0.1)


@pytest.mark.parametrize(
    "name, shape", [("AdaptiveMaxPool1d", (2, 3, 9)), ("AdaptiveMaxPool2d", (2, 3, 9, 7))]
)
def test_adaptive_max_pooling_returns_torchs_indices(name, shape):
    m, t = build(name, (4,), {"return_indices": True})
    x = rand(*shape, seed=17)
    (y, i), (ty, ti) = m(mg.tensor(x)), t(torch.tensor(x))
    assert_close(y, ty)
    assert i.dtype == mg.int64 and np.array_equal(i.numpy(), ti.numpy())


def test_adaptive_max_pooling_picks_the_first_of_equal_maxima_and_nan_like_torch():
    x = np.array([[[[1.0, 3.0, 3.0], [3.0, 2.0, 0.0], [np.nan, 1.0, 5.0]]]])
    for size in (1, 2):
        (y, i), (ty, ti) = [
            lib.nn.functional.adaptive_max_pool2d(lib.tensor(x), size, True) for lib in (mg, torch)
        ]
        np.testing.assert_array_equal(y.numpy(), ty.numpy())
        np.testing.assert_array_equal(i.numpy(), ti.numpy())


@pytest.mark.parametrize(
    "pool, unpool, shape",
    [
        ((2,), (2,), (2, 3, 6, 4)),
        ((3, 2, 1), (3, 2, 1), (2, 3, 7, 6)),  # overlapping windows: an element may be chosen twice
        ((3, 1, 1), (3, 1, 1), (1, 2, 5, 5)),
    ],
)
def test_max_unpool2d_puts_the_maxima_back_like_torch(pool, unpool, shape):
    """Forward and gradient as torch's, overlapping windows included: there two windows
    write one value to one place, and both read its gradient back (torch's gather)."""
    m, t = build("MaxUnpool2d", unpool)
    same_state_and_repr(m, t)
    x = rand(*shape, seed=18)
    results = []
    for lib in (mg, torch):
        leaf = lib.tensor(x, requires_grad=True)
        values, indices = lib.nn.functional.max_pool2d(leaf, *pool, return_indices=True)
        layer = m if lib is mg else t
        y = layer(values, indices, output_size=leaf.shape)
        y.backward(lib.tensor(rand(*y.shape, seed=19)))
        results.append((y, leaf.grad))
    assert_close(results[0][0], results[1][0])
    assert_close(results[0][1], results[1][1])


def test_max_pool3d_and_unpool3d_return_and_take_torchs_indices():
    m, t = build("MaxUnpool3d", ((1, 2, 2),))
    same_state_and_repr(m, t)
    x = rand(2, 3, 3, 6, 4, seed=21)
    results = []
    for lib, layer in ((mg, m), (torch, t)):
        pool = lib.nn.MaxPool3d((1, 2, 2), return_indices=True)
        leaf = lib.tensor(x, requires_grad=True)
        values, indices = pool(leaf)
        y = layer(values, indices)
        y.backward(lib.tensor(rand(*y.shape, seed=22)))
        results.append((indices, y, leaf.grad))
    for mine, theirs in zip(*results):
        assert_close(mine, theirs)
    assert results[0][0].dtype == mg.int64


def test_max_unpool1d_matches_torch():
    m, t = build("MaxUnpool1d", (2,))
    same_state_and_repr(m, t)
    x = rand(2, 3, 8, seed=20)
    ys = []
    for lib, layer in ((mg, m), (torch, t)):
        values, indices = lib.nn.functional.max_pool1d(lib.tensor(x), 2, return_indices=True)
        ys.append(layer(values, indices))
    assert_close(*ys)


# ---- normalization ----------------------------------------------------------------------------
INSTANCE_NORMS = [
    ("InstanceNorm1d", (3,), {}, (2, 3, 6)),
    ("InstanceNorm1d", (3,), {"affine": True}, (3, 6)),
    ("InstanceNorm2d", (3,), {"affine": True, "track_running_stats": True}, (2, 3, 4, 5)),
    (
        "InstanceNorm2d",
        (4,),
        {"momentum": None, "track_running_stats": True, "eps": 0.1},
        (4, 3, 3),
    ),
    ("InstanceNorm3d", (2,), {"affine": True, "bias": False}, (2, 2, 3, 2, 2)),
]


@pytest.mark.parametrize(
    "name, args, kwargs, shape", INSTANCE_NORMS, ids=[f"{n[0]}{n[2]}" for n in INSTANCE_NORMS]
)
def test_instance_norm_layers_match_torch_in_training_and_evaluation(name, args, kwargs, shape):
    m, t = build(name, args, kwargs)
    if m.affine:  # not the ones and zeros they start at, so that a mix-up would show
        state = {
            k: rand(*v.shape, seed=30) for k, v in t.state_dict().items() if k in ("weight", "bias")
        }
        t.load_state_dict({k: torch.tensor(v) for k, v in state.items()}, strict=False)
        m.load_state_dict(state, strict=False)
    same_state_and_repr(m, t)
    for step in range(2):  # the running statistics move in training ...
        compare(m, t, rand(*shape, seed=31 + step) * 3 + 1)
    for v, tv in zip(m.state_dict().values(), t.state_dict().values()):
        assert_close(v, tv, rtol=1e-10)
    m.eval(), t.eval()  # ... and are used in evaluation when tracked
    compare(m, t, rand(*shape, seed=33))


def test_instance_norm_checks_the_input_like_torch():
    for lib in (mg, torch):
        with pytest.raises(ValueError, match="3D or 4D"):
            lib.nn.InstanceNorm2d(3)(lib.ones(3, 4))
        with pytest.raises(ValueError, match="num_features"):
            lib.nn.InstanceNorm2d(3, affine=True)(lib.ones(1, 4, 2, 2))
        with pytest.warns(UserWarning, match="num_features"):
            lib.nn.InstanceNorm2d(3)(lib.ones(1, 4, 2, 2))


@pytest.mark.parametrize(
    "args, shape", [((3,), (2, 5, 4, 3)), ((2, 0.1, 0.5, 2.0), (2, 6, 7)), ((4,), (1, 5, 2, 3, 2))]
)
def test_local_response_norm_matches_torch(args, shape):
    m, t = build("LocalResponseNorm", args)
    same_state_and_repr(m, t)
    compare(m, t, rand(*shape, seed=34))


# ---- linear, rearranging and convolution layers --------------------------------------------------
LAYERS = [  # (layer, constructor args, kwargs, input shapes)
    ("Bilinear", (3, 2, 4), {}, [(5, 3), (5, 2)]),
    ("Bilinear", (3, 2, 4), {"bias": False}, [(2, 5, 3), (2, 5, 2)]),
    ("PixelShuffle", (2,), {}, [(2, 8, 3, 2)]),
    ("PixelUnshuffle", (3,), {}, [(2, 2, 6, 3)]),
    ("ChannelShuffle", (2,), {}, [(2, 6, 3, 2)]),
    ("Unfold", (2,), {}, [(2, 3, 4, 5)]),
    ("Unfold", ((2, 3), 2, 1, (1, 2)), {}, [(2, 3, 5, 6)]),
    ("Fold", ((4, 5), 2), {}, [(2, 12, 12)]),
    ("Fold", (7, (2, 3), 2, 1, 2), {}, [(2, 18, 12)]),
    ("ConvTranspose1d", (3, 4, 3), {}, [(2, 3, 5)]),
    ("ConvTranspose1d", (4, 6, 3, 2, 1, 1, 2, False, 2), {}, [(2, 4, 5)]),
    ("ConvTranspose1d", (2, 3, 2), {"stride": 3}, [(2, 6)]),
    ("Conv3d", (3, 4, 3), {}, [(2, 3, 5, 4, 4)]),
    (
        "Conv3d",
        (4, 6, (2, 3, 2)),
        {"stride": (2, 1, 1), "padding": 1, "groups": 2, "bias": False},
        [(1, 4, 5, 4, 5)],
    ),
    ("Conv3d", (2, 3, 3), {"padding": "same", "padding_mode": "reflect"}, [(2, 4, 5, 4)]),
]


@pytest.mark.parametrize(
    "name, args, kwargs, shapes", LAYERS, ids=[f"{c[0]}{c[1]}" for c in LAYERS]
)
def test_layers_match_torch(name, args, kwargs, shapes):
    m, t = build(name, args, kwargs)
    same_state_and_repr(m, t)
    compare(m, t, *[rand(*s, seed=40 + i) for i, s in enumerate(shapes)])


@pytest.mark.parametrize(
    "name, args", [("Bilinear", (20, 7, 5)), ("ConvTranspose1d", (4, 6, 3)), ("Conv3d", (4, 6, 3))]
)
def test_default_initialisation_has_torchs_range(name, args):
    """The bound is 1/sqrt(fan_in) for weight and bias alike (torch's), and it is reached."""
    mg.manual_seed(0)
    m = getattr(mg.nn, name)(*args)
    bound = 1 / np.sqrt(args[0] if name == "Bilinear" else int(np.prod(m.weight.shape[1:])))
    weights, biases = np.abs(m.weight.detach().numpy()), np.abs(m.bias.detach().numpy())
    # hundreds of draws reach the bound
    assert weights.max() <= bound and weights.max() > 0.95 * bound
    assert biases.max() <= bound


def test_conv_transpose1d_output_size_picks_the_output_padding_like_torch():
    m, t = build("ConvTranspose1d", (2, 3, 3), {"stride": 2})
    x = rand(1, 2, 4, seed=45)
    for size in (9, 10):
        assert_close(m(mg.tensor(x), output_size=[size]), t(torch.tensor(x), output_size=[size]))
    with pytest.raises(ValueError, match="output size"):
        m(mg.tensor(x), output_size=[11])


def test_fold_of_unfold_counts_each_pixel_once_per_window():
    """fold is unfold's adjoint: fold(unfold(ones)) is how many windows hold each pixel."""
    x = mg.ones(1, 1, 4, 5)
    counts = mg.nn.functional.fold(mg.nn.functional.unfold(x, 2), (4, 5), 2).numpy()[0, 0]
    expected = np.outer([1, 2, 2, 1], [1, 2, 2, 2, 1])
    np.testing.assert_array_equal(counts, expected)


# ---- bags of embeddings -------------------------------------------------------------------------
IDS = np.array([1, 2, 4, 5, 4, 3, 2, 0, 5, 4])
OFFSETS = np.array([0, 2, 2, 6])  # bags [1 2], [] (empty), [4 5 4 3], [2 0 5 4]

BAGS = [  # (constructor kwargs, forward arguments)
    ({}, (IDS.reshape(2, 5),)),
    ({"mode": "sum"}, (IDS, OFFSETS)),
    ({"mode": "max", "padding_idx": 4}, (IDS, OFFSETS)),
    (
        {"mode": "mean", "padding_idx": -1, "include_last_offset": True},
        (IDS, np.array([0, 3, 7, 10])),
    ),
    ({"mode": "sum", "norm_type": 1.0}, (IDS.reshape(5, 2),)),
]


@pytest.mark.parametrize("kwargs, arrays", BAGS, ids=[str(b[0]) for b in BAGS])
def test_embedding_bag_matches_torch(kwargs, arrays):
    m, t = build("EmbeddingBag", (6, 3), kwargs)
    same_state_and_repr(m, t)
    compare(m, t, *arrays)


def test_embedding_bag_per_sample_weights_get_torchs_gradient():
    m, t = build("EmbeddingBag", (6, 3), {"mode": "sum"})
    compare(m, t, IDS, OFFSETS, rand(10, seed=50))


@pytest.mark.parametrize("mode", ["sum", "mean"])
def test_embedding_bag_scale_grad_by_freq_is_embeddings(mode):
    """Each row's gradient divided by its id's count in the batch, as torch's F.embedding
    with scale_grad_by_freq does it. (torch 2.13's own embedding_bag scales the rows by the
    counts of other ids on the CPU, a torch bug; bags of F.embedding are the reference.)"""
    ids, w = IDS.reshape(5, 2), rand(6, 3, seed=51)
    g = rand(5, 3, seed=52)
    weight = mg.tensor(w, requires_grad=True)
    mg.nn.functional.embedding_bag(
        mg.tensor(ids), weight, mode=mode, scale_grad_by_freq=True
    ).backward(mg.tensor(g))
    tw = torch.tensor(w, requires_grad=True)
    bags = torch.nn.functional.embedding(torch.tensor(ids), tw, scale_grad_by_freq=True)
    (bags.sum(1) if mode == "sum" else bags.mean(1)).backward(torch.tensor(g))
    assert_close(weight.grad, tw.grad, rtol=1e-12)
    plain = mg.tensor(w, requires_grad=True)
    mg.nn.functional.embedding_bag(mg.tensor(ids), plain, mode=mode).backward(mg.tensor(g))
    counts = np.bincount(IDS, minlength=6)[:, None]
    # the scaling happened
    np.testing.assert_allclose(weight.grad.numpy() * counts, plain.grad.numpy())


def test_embedding_bag_max_norm_renormalizes_the_rows_it_reads_like_torch():
    m, t = build("EmbeddingBag", (6, 3), {"max_norm": 1.0, "mode": "sum"})
    with torch.no_grad():
        t.weight.mul_(3.0)  # most rows above the norm
    m.load_state_dict({"weight": t.weight.detach().numpy()})
    compare(m, t, IDS[:5], np.array([0, 2]))
    assert_close(m.weight, t.weight)  # rows 1, 2, 4, 5 renormalized in place, 0 and 3 not
    assert np.linalg.norm(m.weight.detach().numpy()[[0, 3]], axis=1).min() > 1.0


def test_embedding_bag_default_init_and_padding_row():
    mg.manual_seed(0)
    m = mg.nn.EmbeddingBag(1000, 8, padding_idx=2)
    w = m.weight.detach().numpy()
    assert np.all(w[2] == 0) and abs(w.std() - 1.0) < 0.03
    with pytest.raises(ValueError, match="sparse"):
        mg.nn.EmbeddingBag(5, 3, sparse=True)


# ---- lazy layers, buffers and uninitialized parameters -------------------------------------------
LAZIES = [  # (lazy layer, args, kwargs, input shape)
    ("LazyLinear", (4,), {}, (2, 5, 3)),
    ("LazyLinear", (2,), {"bias": False}, (3,)),
    ("LazyConv1d", (4, 3), {"stride": 2}, (2, 3, 7)),
    ("LazyConv2d", (4, 3), {"padding": 1, "groups": 2}, (2, 6, 5, 5)),
    ("LazyConv2d", (3, 2), {}, (2, 4, 4)),  # unbatched: in_channels is dim 0
    ("LazyConv3d", (4, 2), {}, (1, 3, 3, 4, 3)),
    ("LazyConvTranspose1d", (4, 3), {"stride": 2}, (2, 3, 5)),
    ("LazyConvTranspose2d", (2, 3), {"output_padding": 1, "stride": 2}, (1, 3, 4, 4)),
    ("LazyBatchNorm1d", (), {}, (4, 3)),
    ("LazyBatchNorm2d", (), {"affine": False}, (2, 3, 4, 4)),
    ("LazyBatchNorm3d", (), {"momentum": 0.3}, (2, 3, 2, 2, 2)),
    ("LazyInstanceNorm1d", (), {}, (2, 3, 5)),
    ("LazyInstanceNorm2d", (), {"track_running_stats": False}, (2, 3, 4, 4)),
    ("LazyInstanceNorm3d", (), {"affine": False}, (2, 3, 2, 3, 2)),
]


@pytest.mark.parametrize("name, args, kwargs, shape", LAZIES, ids=[f"{c[0]}{c[2]}" for c in LAZIES])
def test_lazy_layers_become_torchs_layer_at_the_first_call(name, args, kwargs, shape):
    t = getattr(torch.nn, name)(*args, **kwargs, dtype=torch.float64)
    m = getattr(mg.nn, name)(*args, **kwargs, dtype=mg.float64)
    assert repr(m) == repr(t)
    assert m.has_uninitialized_params() == t.has_uninitialized_params()
    uninitialized = [
        n for n, p in m.named_parameters() if isinstance(p, mg.nn.UninitializedParameter)
    ]
    assert uninitialized == [
        n for n, p in t.named_parameters() if isinstance(p, torch.nn.UninitializedParameter)
    ]
    x = rand(*shape, seed=60)
    m(mg.tensor(x)), t(torch.tensor(x))
    assert type(m).__name__ == type(t).__name__ and type(m) is getattr(mg.nn, type(t).__name__)
    assert all(type(p) is mg.nn.Parameter for p in m.parameters())
    same_state_and_repr(m, t)
    m.load_state_dict({k: v.detach().numpy() for k, v in t.state_dict().items()})
    compare(m, t, rand(*shape, seed=61))


@pytest.mark.parametrize(
    "name, args, shape",
    [
        ("LazyLinear", (4,), (2, 3)),
        ("LazyConv2d", (4, 3), (1, 2, 5, 5)),
        ("LazyBatchNorm2d", (), (2, 3, 2, 2)),
    ],
)
def test_lazy_layers_materialize_from_a_state_dict(name, args, shape):
    t = getattr(torch.nn, name)(*args, dtype=torch.float64)
    t(torch.tensor(rand(*shape, seed=62)))
    m = getattr(mg.nn, name)(*args, dtype=mg.float64)
    m.load_state_dict({k: v.detach().numpy() for k, v in t.state_dict().items()})
    assert not m.has_uninitialized_params()
    t.eval(), m.eval()
    compare(m, t, rand(*shape, seed=63))
    assert repr(m) == repr(t)


def test_lazy_linear_default_initialisation_is_linears():
    mg.manual_seed(0)
    layer = mg.nn.LazyLinear(200)
    layer(mg.ones(1, 50))
    w = layer.weight.detach().numpy()
    assert w.max() <= 1 / np.sqrt(50) and w.max() > 0.95 / np.sqrt(50)


def test_uninitialized_parameters_and_buffers_behave_like_torchs():
    for lib in (mg, torch):
        p, b = lib.nn.UninitializedParameter(), lib.nn.UninitializedBuffer()
        assert repr(p) == "<UninitializedParameter>" and repr(b) == "<UninitializedBuffer>"
        with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized"):
            _ = p.shape
        assert p.requires_grad and not b.requires_grad
        p.materialize((2, 3)), b.materialize((4,))
        assert type(p) is lib.nn.Parameter and type(b) is lib.Tensor
        assert tuple(p.shape) == (2, 3) and tuple(b.shape) == (4,)


def counter(lib):
    """A module that registers its buffers by assigning nn.Buffer, in torch or minigrad."""

    class Counter(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.total = lib.nn.Buffer(lib.zeros(2))
            self.scratch = lib.nn.Buffer(lib.ones(3), persistent=False)

    return Counter()


def test_buffer_assignment_registers_a_buffer_like_torch():
    for lib in (mg, torch):
        m = counter(lib)
        assert list(m.state_dict()) == ["total"]
        assert [n for n, _ in m.named_buffers()] == ["total", "scratch"]
        assert type(m.total) is lib.Tensor and m.total.tolist() == [0.0, 0.0]


def test_batchnorm3d_matches_torch():
    m, t = build("BatchNorm3d", (3,), {"momentum": 0.2})
    same_state_and_repr(m, t)
    compare(m, t, rand(2, 3, 2, 3, 2, seed=64))
    assert_close(m.running_var, t.running_var)
    with pytest.raises(ValueError, match="5D"):
        m(mg.ones(2, 3, 4, 4))


def test_module_without_forward_raises_torchs_error():
    for lib in (mg, torch):

        class NoForward(lib.nn.Module):
            pass

        with pytest.raises(
            NotImplementedError,
            match=r'Module \[NoForward\] is missing the required "forward" function',
        ):
            NoForward()(lib.ones(1))


# ---- gumbel softmax ------------------------------------------------------------------------------
@pytest.mark.parametrize("hard", [False, True])
@pytest.mark.parametrize("tau, dim", [(1.0, -1), (0.5, 0)])
def test_gumbel_softmax_with_the_same_noise_is_torchs(monkeypatch, hard, tau, dim):
    """The same Exp(1) draws fed to both (torch's through Tensor.exponential_, which its
    gumbel_softmax calls): values and gradients, the straight-through one included."""
    logits = rand(4, 5, seed=70)
    draws = np.random.default_rng(71).exponential(size=(4, 5))
    monkeypatch.setattr(
        torch.Tensor, "exponential_", lambda self, *a, **k: self.copy_(torch.tensor(draws))
    )
    monkeypatch.setattr(mg.nn.functional.activation, "_gumbel_noise", lambda x: -np.log(draws))
    xm, xt = mg.tensor(logits, requires_grad=True), torch.tensor(logits, requires_grad=True)
    ym = mg.nn.functional.gumbel_softmax(xm, tau, hard, dim=dim)
    yt = torch.nn.functional.gumbel_softmax(xt, tau, hard, dim=dim)
    assert_close(ym, yt, rtol=1e-12)
    g = rand(4, 5, seed=72)
    ym.backward(mg.tensor(g)), yt.backward(torch.tensor(g))
    assert_close(xm.grad, xt.grad, rtol=1e-10)


def test_gumbel_softmax_samples_the_categorical_distribution():
    """argmax of the sample is distributed as softmax(logits) (the Gumbel-max trick); a soft
    sample sums to 1, a hard one is one-hot."""
    mg.manual_seed(5)
    logits = mg.tensor(np.log([0.1, 0.2, 0.3, 0.4])).expand(20000, 4)
    hard = mg.nn.functional.gumbel_softmax(logits, hard=True).numpy()
    assert np.all(hard.sum(1) == 1) and set(np.unique(hard)) == {0.0, 1.0}
    np.testing.assert_allclose(hard.mean(0), [0.1, 0.2, 0.3, 0.4], atol=0.015)
    soft = mg.nn.functional.gumbel_softmax(logits, tau=0.1).numpy()
    np.testing.assert_allclose(soft.sum(1), 1.0)
    assert (soft.max(1) > 0.9).mean() > 0.8  # a low temperature is nearly one-hot


@pytest.mark.parametrize("align_corners", [False, True])
def test_the_identity_affine_grid_samples_the_image_back(align_corners):
    """affine_grid of the identity puts each point on a pixel centre, so grid_sample
    reads the image back unchanged, in every mode."""
    x = mg.tensor(rand(2, 3, 4, 5, seed=80))
    theta = mg.tensor(np.tile(np.eye(2, 3), (2, 1, 1)))
    grid = mg.nn.functional.affine_grid(theta, x.shape, align_corners=align_corners)
    for mode in ("bilinear", "nearest", "bicubic"):
        y = mg.nn.functional.grid_sample(x, grid, mode, align_corners=align_corners)
        np.testing.assert_allclose(y.numpy(), x.numpy(), atol=1e-12)


# ---- CTC -----------------------------------------------------------------------------------------
def test_ctc_loss_layer_matches_torch_through_log_softmax():
    m, t = build("CTCLoss", (), {"blank": 1, "zero_infinity": True})
    same_state_and_repr(m, t)
    logits = rand(7, 2, 4, seed=90)
    targets, lengths = np.array([[2, 3, 3], [0, 2, 0]]), np.array([3, 2])
    xm, xt = mg.tensor(logits, requires_grad=True), torch.tensor(logits, requires_grad=True)
    lm = m(xm.log_softmax(2), mg.tensor(targets), mg.tensor([7, 5]), mg.tensor(lengths))
    lt = t(xt.log_softmax(2), torch.tensor(targets), torch.tensor([7, 5]), torch.tensor(lengths))
    assert_close(lm, lt, rtol=1e-12)
    lm.backward(), lt.backward()
    assert_close(xm.grad, xt.grad, rtol=1e-9, atol=1e-14)


def test_ctc_gradient_for_log_probs_is_the_true_one_and_torchs_adds_exp_log_probs():
    """torch returns d(loss)/d(log_probs) + exp(log_probs) at the steps each sequence uses
    (the gradient for logits fed through log_softmax); minigrad returns the derivative
    itself, which its gradient check confirms."""
    # (T, N, C), rows sum to 1
    lp = np.log(np.random.default_rng(91).dirichlet(np.ones(4), size=(6, 2)))
    targets, inputs, lengths = np.array([[1, 2], [3, 3]]), np.array([6, 4]), np.array([2, 2])
    xm, xt = mg.tensor(lp, requires_grad=True), torch.tensor(lp, requires_grad=True)
    mg.nn.functional.ctc_loss(xm, mg.tensor(targets), inputs, lengths, reduction="sum").backward()
    torch.nn.functional.ctc_loss(
        xt, torch.tensor(targets), torch.tensor(inputs), torch.tensor(lengths), reduction="sum"
    ).backward()
    used = (np.arange(6)[:, None] < inputs[None, :])[..., None]  # (T, N, 1)
    np.testing.assert_allclose(xm.grad.numpy() + np.exp(lp) * used, xt.grad.numpy(), atol=1e-12)

    def loss(x):
        return mg.nn.functional.ctc_loss(x, mg.tensor(targets), inputs, lengths, reduction="sum")

    assert mg.autograd.gradcheck(loss, [mg.tensor(lp, requires_grad=True)])
