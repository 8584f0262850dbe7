"""Normalization (issue #3): layer norm, RMS norm, group norm and batch norm.

The functional forms and the modules against PyTorch in float64 (values and the
gradients of input, weight and bias), float64 gradchecks of every Function (and
gradgradchecks), running statistics step by step, state dicts, reprs and errors.
"""

import numpy as np
import pytest
import torch
import torch.nn as tnn
import torch.nn.functional as TF

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F
from minigrad.ops import normalization as ops
from tests.helpers import assert_close, check_against_torch, leaf, rand, tleaf

# The torch names whose behaviour this file checks against torch (read by tools/api_coverage.py).
TORCH_API = [
    "torch.nn.BatchNorm1d",
    "torch.nn.BatchNorm2d",
    "torch.nn.GroupNorm",
    "torch.nn.LayerNorm",
    "torch.nn.RMSNorm",
    "torch.nn.functional.batch_norm",
    "torch.nn.functional.group_norm",
    "torch.nn.functional.layer_norm",
    "torch.nn.functional.rms_norm",
]


def affine_args(channels, weight, bias, seed=5):
    """The (weight, bias) arrays to test with, positive weight away from 0."""
    arrays = []
    if weight:
        arrays.append(rand(*channels, seed=seed, positive=True))
    if bias:
        arrays.append(rand(*channels, seed=seed + 1))
    return arrays


def split(args, weight, bias):
    """(x, weight or None, bias or None) from the positional leaves of check_against_torch."""
    x, rest = args[0], list(args[1:])
    w = rest.pop(0) if weight else None
    b = rest.pop(0) if bias else None
    return x, w, b


AFFINE = [(True, True), (True, False), (False, False)]
AFFINE_IDS = ["affine", "weight_only", "plain"]


# ---- layer norm ---------------------------------------------------------------------------
LAYER_NORM_CASES = [
    ((4, 5), (5,)),
    ((2, 3, 4), (3, 4)),
    ((7,), (7,)),
    ((3, 1), (1,)),  # one element per row: xhat = 0, y = bias
    ((1, 5, 1), (5, 1)),
    ((2, 3, 2, 3), (2, 3)),
]


@pytest.mark.parametrize("affine", AFFINE, ids=AFFINE_IDS)
@pytest.mark.parametrize("shape,normalized_shape", LAYER_NORM_CASES, ids=str)
def test_layer_norm_matches_torch(shape, normalized_shape, affine):
    weight, bias = affine

    def mine(*a):
        x, w, b = split(a, weight, bias)
        return F.layer_norm(x, normalized_shape, w, b, eps=1e-5)

    def theirs(*a):
        x, w, b = split(a, weight, bias)
        return TF.layer_norm(x, normalized_shape, w, b, eps=1e-5)

    check_against_torch(mine, theirs, rand(*shape), *affine_args(normalized_shape, weight, bias))


def test_layer_norm_int_normalized_shape_and_grad_fn():
    x = leaf(rand(3, 4))
    y = F.layer_norm(x, 4)
    assert_close(y, TF.layer_norm(tleaf(rand(3, 4)), (4,)))
    # one fused node, not a chain of small ops
    assert type(y.grad_fn) is ops.LayerNorm and y.grad_fn.name() == "NativeLayerNormBackward0"


# ---- RMS norm -----------------------------------------------------------------------------
@pytest.mark.parametrize("eps", [None, 1e-6, 0.5])
@pytest.mark.parametrize("weight", [True, False], ids=["weight", "plain"])
@pytest.mark.parametrize("shape,normalized_shape", LAYER_NORM_CASES, ids=str)
def test_rms_norm_matches_torch(shape, normalized_shape, weight, eps):
    def mine(*a):
        return F.rms_norm(a[0], normalized_shape, a[1] if weight else None, eps=eps)

    def theirs(*a):
        return TF.rms_norm(a[0], normalized_shape, a[1] if weight else None, eps=eps)

    check_against_torch(
        mine, theirs, rand(*shape, seed=2), *affine_args(normalized_shape, weight, False)
    )


def test_rms_norm_default_eps_is_the_dtypes_machine_epsilon():
    tiny = rand(2, 3) * 1e-9  # so small that eps decides the output
    for dtype, tdtype in ((np.float64, torch.float64), (np.float32, torch.float32)):
        y = F.rms_norm(mg.tensor(tiny.astype(dtype)), (3,))
        expected = TF.rms_norm(torch.tensor(tiny, dtype=tdtype), (3,))
        assert y.dtype == dtype
        assert_close(y, expected, rtol=1e-5)


# ---- group norm ---------------------------------------------------------------------------
GROUP_NORM_CASES = [
    ((2, 6, 5), 1),
    ((2, 6, 5), 2),
    ((2, 6, 5), 3),
    ((2, 6, 5), 6),  # one channel per group: instance norm
    ((3, 4), 2),  # no positions
    ((2, 4, 3, 2), 2),
    ((1, 3, 7), 3),
    ((2, 3), 3),  # one value per group and sample: y = bias
]


@pytest.mark.parametrize("affine", AFFINE, ids=AFFINE_IDS)
@pytest.mark.parametrize("shape,groups", GROUP_NORM_CASES, ids=str)
def test_group_norm_matches_torch(shape, groups, affine):
    weight, bias = affine

    def mine(*a):
        x, w, b = split(a, weight, bias)
        return F.group_norm(x, groups, w, b, eps=1e-5)

    def theirs(*a):
        x, w, b = split(a, weight, bias)
        return TF.group_norm(x, groups, w, b, eps=1e-5)

    check_against_torch(mine, theirs, rand(*shape, seed=3), *affine_args((shape[1],), weight, bias))


# ---- batch norm (functional) -----------------------------------------------------------------
BATCH_NORM_SHAPES = [(5, 3), (4, 3, 7), (2, 3, 5, 3), (1, 3, 2), (7, 1), (2, 2, 1, 1), (3, 5, 1)]


@pytest.mark.parametrize("affine", AFFINE, ids=AFFINE_IDS)
@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("shape", BATCH_NORM_SHAPES, ids=str)
def test_batch_norm_matches_torch(shape, training, affine):
    weight, bias = affine
    c = shape[1]
    stats = rand(c, seed=8), rand(c, seed=9, positive=True)
    running = {}

    def mine(*a):
        x, w, b = split(a, weight, bias)
        running["mine"] = rm, rv = mg.tensor(stats[0]), mg.tensor(stats[1])
        return F.batch_norm(x, rm, rv, w, b, training=training, momentum=0.3, eps=1e-4)

    def theirs(*a):
        x, w, b = split(a, weight, bias)
        running["theirs"] = rm, rv = torch.tensor(stats[0]), torch.tensor(stats[1])
        return TF.batch_norm(x, rm, rv, w, b, training=training, momentum=0.3, eps=1e-4)

    check_against_torch(mine, theirs, rand(*shape, seed=4), *affine_args((c,), weight, bias))
    for m, t in zip(running["mine"], running["theirs"]):
        assert_close(m, t)  # updated in place in training, untouched in eval


def test_batch_norm_without_running_stats_in_training():
    x = rand(6, 4, 3)
    y = F.batch_norm(mg.tensor(x), None, None, training=True)
    assert_close(y, TF.batch_norm(torch.tensor(x), None, None, training=True))


# ---- float64 gradient checks of every Function ------------------------------------------------
# the layer, RMS, group and batch norm gradchecks are the normalization exercise's
# (tests/test_exercise_normalization.py)


@pytest.mark.parametrize("affine", [(True, True), (True, False), (False, False)], ids=AFFINE_IDS)
def test_layer_norm_backward_on_arrays_equals_the_tensor_op_backward(affine):
    """An ordinary backward takes LayerNorm's NumPy path (layer_norm_backward_arrays);
    create_graph=True takes the Tensor-op path: the same gradients, to rounding."""
    weight, bias = affine
    x = rand(3, 2, 4, seed=3)
    params = [leaf(a) for a in affine_args((2, 4), weight, bias)]
    w = params[0] if weight else None
    b = params[1] if bias else None
    grads = []
    for create_graph in (False, True):
        xs = leaf(x)
        y = F.layer_norm(xs, (2, 4), w, b)
        inputs = [xs] + params
        g = mg.autograd.grad(
            (y * mg.tensor(rand(3, 2, 4, seed=4))).sum(), inputs, create_graph=create_graph
        )
        grads.append([t.detach().numpy() for t in g])
    for fast, recorded in zip(*grads):
        np.testing.assert_allclose(fast, recorded, rtol=1e-12, atol=1e-12)


def test_second_derivative_matches_torch():
    """A gradient penalty through batch norm and layer norm: d/dx of |dL/dx|^2."""
    x_np, w_np = rand(4, 3, 2), rand(3, positive=True)

    def penalty(lib, functional, x, w):
        h = functional.batch_norm(x, None, None, w, None, training=True)
        out = functional.layer_norm(h.tanh(), (2,))
        loss = (out * out * out).sum()
        (g,) = lib.autograd.grad(loss, x, create_graph=True)
        return (g * g).sum()

    x, w = leaf(x_np), leaf(w_np)
    tx, tw = tleaf(x_np), tleaf(w_np)
    penalty(mg, F, x, w).backward()
    penalty(torch, TF, tx, tw).backward()
    assert_close(x.grad, tx.grad)
    assert_close(w.grad, tw.grad)


def _torch_standardize(x, dims, eps, centred=True):
    """xhat composed of torch ops: the oracle for third derivatives, which PyTorch's
    fused layer_norm and batch_norm get wrong (their second derivative is not
    differentiated correctly once more; finite differences agree with the composition)."""
    if centred:
        x = x - x.mean(dim=dims, keepdim=True)
        return x / (x * x).mean(dim=dims, keepdim=True).add(eps).sqrt()
    return x / (x * x).mean(dim=dims, keepdim=True).add(eps).sqrt()


RUNNING_MEAN, RUNNING_VAR = rand(3, seed=8), rand(3, seed=9, positive=True)
THIRD_ORDER_CASES = {  # name: (minigrad, torch composition, input shape, weight and bias shape)
    "layer_norm": (
        lambda x, w, b: F.layer_norm(x, (3, 2), w, b),
        lambda x, w, b: _torch_standardize(x, (1, 2), 1e-5) * w + b,
        (4, 3, 2),
        (3, 2),
    ),
    "rms_norm": (
        lambda x, w, b: F.rms_norm(x, (3, 2), w, eps=1e-3),
        lambda x, w, b: _torch_standardize(x, (1, 2), 1e-3, centred=False) * w,
        (4, 3, 2),
        (3, 2),
    ),
    "group_norm": (
        lambda x, w, b: F.group_norm(x, 2, w, b),
        lambda x, w, b: (
            _torch_standardize(x.reshape(2, 2, 6), 2, 1e-5).reshape(2, 4, 3) * w[:, None]
            + b[:, None]
        ),
        (2, 4, 3),
        (4,),
    ),
    "batch_norm train": (
        lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True),
        lambda x, w, b: _torch_standardize(x, (0, 2), 1e-5) * w[:, None] + b[:, None],
        (4, 3, 2),
        (3,),
    ),
    "batch_norm eval": (
        lambda x, w, b: F.batch_norm(x, mg.tensor(RUNNING_MEAN), mg.tensor(RUNNING_VAR), w, b),
        lambda x, w, b: (
            (x - torch.tensor(RUNNING_MEAN)[:, None])
            / torch.tensor(RUNNING_VAR + 1e-5)[:, None].sqrt()
            * w[:, None]
            + b[:, None]
        ),
        (4, 3, 2),
        (3,),
    ),
}


@pytest.mark.parametrize("case", THIRD_ORDER_CASES)
def test_third_derivatives_match_a_torch_composition(case):
    """Differentiate a second derivative again: every order must go through the
    statistics' dependence on x (not only the first, whose backward reads saved arrays)."""
    mine, theirs, x_shape, p_shape = THIRD_ORDER_CASES[case]
    arrays = rand(*x_shape), rand(*p_shape, seed=2, positive=True), rand(*p_shape, seed=3)

    def third(lib, fn, x, w, b):
        loss = (fn(x, w, b).tanh() * x).sum()
        (gx,) = lib.autograd.grad(loss, x, create_graph=True)
        (ggx,) = lib.autograd.grad((gx * gx).sum(), x, create_graph=True)
        return (ggx * ggx).sum()

    xs, ts = [leaf(a) for a in arrays], [tleaf(a) for a in arrays]
    third(mg, mine, *xs).backward()
    third(torch, theirs, *ts).backward()
    for x, t in zip(xs, ts):
        if t.grad is None:  # rms_norm has no bias
            assert x.grad is None
        else:
            assert_close(x.grad, t.grad, rtol=1e-6, atol=1e-9)


# ---- modules -----------------------------------------------------------------------------------
def module_pairs():
    """(minigrad module, torch module, input shape) with the same constructor arguments."""
    return [
        (nn.LayerNorm(5), tnn.LayerNorm(5), (3, 5)),
        (nn.LayerNorm([2, 3], bias=False), tnn.LayerNorm([2, 3], bias=False), (2, 2, 3)),
        (
            nn.LayerNorm(4, eps=1e-3, elementwise_affine=False),
            tnn.LayerNorm(4, 1e-3, False),
            (3, 4),
        ),
        (nn.RMSNorm(4), tnn.RMSNorm(4), (3, 4)),
        (
            nn.RMSNorm([2, 3], eps=1e-6, elementwise_affine=False),
            tnn.RMSNorm([2, 3], 1e-6, False),
            (1, 2, 3),
        ),
        (nn.GroupNorm(2, 4), tnn.GroupNorm(2, 4), (3, 4, 5)),
        (nn.GroupNorm(3, 3, affine=False), tnn.GroupNorm(3, 3, affine=False), (2, 3, 2, 2)),
        (nn.GroupNorm(1, 2, bias=False), tnn.GroupNorm(1, 2, bias=False), (2, 2)),
        (nn.BatchNorm1d(3), tnn.BatchNorm1d(3), (4, 3)),
        (nn.BatchNorm1d(3, momentum=None), tnn.BatchNorm1d(3, momentum=None), (4, 3, 5)),
        (nn.BatchNorm2d(2, affine=False), tnn.BatchNorm2d(2, affine=False), (3, 2, 3, 2)),
        (nn.BatchNorm2d(2, bias=False), tnn.BatchNorm2d(2, bias=False), (3, 2, 1, 3)),
        (
            nn.BatchNorm2d(3, eps=1e-3, momentum=0.5, track_running_stats=False),
            tnn.BatchNorm2d(3, eps=1e-3, momentum=0.5, track_running_stats=False),
            (2, 3, 2, 2),
        ),
    ]


@pytest.mark.parametrize("index", range(len(module_pairs())))
def test_module_matches_torch_layout_repr_and_outputs(index):
    m, t, shape = module_pairs()[index]
    assert repr(m) == repr(t)
    # parameters and buffers: names, shapes, dtypes and initial values
    state, tstate = m.state_dict(), t.state_dict()
    assert list(state) == list(tstate)
    for key in state:
        assert_close(state[key], tstate[key])
        assert state[key].dtype == tstate[key].numpy().dtype, key
    assert [n for n, _ in m.named_parameters()] == [n for n, _ in t.named_parameters()]
    # random weights from torch load into minigrad, and then both compute the same thing
    with torch.no_grad():
        for p in t.parameters():
            p.copy_(torch.randn_like(p))
    m.load_state_dict({k: v.numpy() for k, v in t.state_dict().items()})
    m.double()
    t.double()
    for mode in (True, False):
        m.train(mode)
        t.train(mode)
        x = rand(*shape, seed=int(mode))
        xm, xt = leaf(x), tleaf(x)
        y, yt = m(xm), t(xt)
        assert_close(y, yt)
        g = rand(*shape, seed=7)
        y.backward(mg.tensor(g))
        yt.backward(torch.tensor(g))
        assert_close(xm.grad, xt.grad)
        for p, tp in zip(m.parameters(), t.parameters()):
            assert_close(p.grad, tp.grad)
            p.grad, tp.grad = None, None
        for b, tb in zip(m.buffers(), t.buffers()):
            assert_close(b, tb)


def test_module_defaults_and_float32():
    m = nn.BatchNorm2d(4)
    assert (m.eps, m.momentum, m.affine, m.track_running_stats) == (1e-5, 0.1, True, True)
    assert m.weight.dtype == np.float32 and m.running_var.dtype == np.float32
    assert m.num_batches_tracked.dtype == np.int64 and m.num_batches_tracked.shape == ()
    assert nn.BatchNorm1D is nn.BatchNorm1d and nn.BatchNorm2D is nn.BatchNorm2d
    x = rand(3, 4, 2, 2, dtype=np.float32)
    y = m(mg.tensor(x))
    assert y.dtype == np.float32
    assert_close(y, tnn.BatchNorm2d(4)(torch.tensor(x)), rtol=1e-4, atol=1e-5)
    ln = nn.LayerNorm((2, 2), dtype=mg.float64)
    assert ln.normalized_shape == (2, 2) and ln.weight.dtype == np.float64
    assert nn.LayerNorm.from_config(ln.get_config()).normalized_shape == (2, 2)


@pytest.mark.parametrize("momentum", [0.1, 0.7, None])
@pytest.mark.parametrize("shape", [(6, 3), (4, 3, 5), (2, 3, 3, 2)], ids=str)
def test_running_statistics_follow_torch_over_several_steps(shape, momentum):
    cls, tcls = (
        (nn.BatchNorm2d, tnn.BatchNorm2d) if len(shape) == 4 else (nn.BatchNorm1d, tnn.BatchNorm1d)
    )
    m, t = cls(3, momentum=momentum).double(), tcls(3, momentum=momentum).double()
    for step in range(4):
        x = rand(*shape, seed=10 + step) * (step + 1) + step  # statistics that change
        assert_close(m(leaf(x)), t(tleaf(x)))
        assert_close(m.running_mean, t.running_mean)
        assert_close(m.running_var, t.running_var)
        assert m.num_batches_tracked.item() == t.num_batches_tracked.item() == step + 1
    m.eval()
    t.eval()
    x = rand(*shape, seed=20)
    assert_close(m(leaf(x)), t(tleaf(x)))
    assert m.num_batches_tracked.item() == 4  # evaluation leaves the statistics alone
    m.reset_running_stats()
    assert m.num_batches_tracked.item() == 0 and np.all(m.running_var.array == 1)


def test_eval_uses_running_statistics_so_samples_do_not_interact():
    m = nn.BatchNorm1d(2).double()
    m(mg.tensor(rand(8, 2) * 3 + 1))
    m.eval()
    batch = rand(5, 2, seed=1)
    alone = m(mg.tensor(batch[:1]))  # one sample is fine in evaluation
    together = m(mg.tensor(batch))
    assert_close(alone, together.array[:1])
    expected = (batch - m.running_mean.array) / np.sqrt(m.running_var.array + m.eps)
    assert_close(together, expected)


def test_running_variance_is_unbiased():
    x = rand(5, 2)
    rm, rv = mg.zeros(2, dtype=mg.float64), mg.ones(2, dtype=mg.float64)
    F.batch_norm(mg.tensor(x), rm, rv, training=True, momentum=1.0)
    assert_close(rm, x.mean(axis=0))
    assert_close(rv, x.var(axis=0, ddof=1))


# ---- errors --------------------------------------------------------------------------------------
def raises_like_torch(mine, theirs, match):
    """Both raise the same exception type, and minigrad's message names `match`."""
    with pytest.raises(Exception) as t_err:
        theirs()
    with pytest.raises(t_err.type, match=match):
        mine()


def test_one_value_per_channel_in_training_raises_as_torch():
    x = rand(1, 3)
    raises_like_torch(
        lambda: nn.BatchNorm1d(3)(mg.tensor(x)),
        lambda: tnn.BatchNorm1d(3)(torch.tensor(x)),
        "more than 1 value",
    )
    x = rand(1, 3, 1, 1)
    raises_like_torch(
        lambda: nn.BatchNorm2d(3)(mg.tensor(x)),
        lambda: tnn.BatchNorm2d(3)(torch.tensor(x)),
        r"\(1, 3, 1, 1\)",
    )
    raises_like_torch(
        lambda: F.group_norm(mg.tensor(rand(1, 3)), 3),
        lambda: TF.group_norm(torch.tensor(rand(1, 3)), 3),
        "value",
    )
    assert nn.BatchNorm2d(3).eval()(mg.tensor(x, dtype=mg.float32)).shape == (1, 3, 1, 1)


def test_wrong_channel_count_and_dims():
    raises_like_torch(
        lambda: nn.BatchNorm1d(3)(mg.tensor(rand(4, 5))),
        lambda: tnn.BatchNorm1d(3)(torch.randn(4, 5)),
        "3 channels",
    )
    raises_like_torch(
        lambda: nn.BatchNorm1d(3)(mg.tensor(rand(4, 3, 2, 2))),
        lambda: tnn.BatchNorm1d(3)(torch.randn(4, 3, 2, 2)),
        "2D or 3D input",
    )
    raises_like_torch(
        lambda: nn.BatchNorm2d(3)(mg.tensor(rand(4, 3, 2))),
        lambda: tnn.BatchNorm2d(3)(torch.randn(4, 3, 2)),
        "4D input",
    )
    raises_like_torch(
        lambda: nn.GroupNorm(2, 4)(mg.tensor(rand(2, 6))),
        lambda: tnn.GroupNorm(2, 4)(torch.randn(2, 6)),
        "4 channels",
    )
    raises_like_torch(lambda: nn.GroupNorm(2, 3), lambda: tnn.GroupNorm(2, 3), "divisible")
    raises_like_torch(
        lambda: F.group_norm(mg.tensor(rand(2, 3)), 2),
        lambda: TF.group_norm(torch.randn(2, 3), 2),
        "divisible",
    )
    raises_like_torch(
        lambda: F.group_norm(mg.tensor(rand(3)), 1),
        lambda: TF.group_norm(torch.randn(3), 1),
        "2 dims",
    )
    raises_like_torch(
        lambda: F.batch_norm(mg.tensor(rand(4, 3)), mg.zeros(4), mg.ones(4)),
        lambda: TF.batch_norm(torch.randn(4, 3), torch.zeros(4), torch.ones(4)),
        r"running_mean must have shape \(3,\)",
    )
    raises_like_torch(
        lambda: F.batch_norm(mg.tensor(rand(4, 3)), None, None),
        lambda: TF.batch_norm(torch.randn(4, 3), None, None),
        "evaluation mode",
    )
    raises_like_torch(
        lambda: F.batch_norm(mg.tensor(rand(4, 3)), mg.zeros(3), None, training=True),
        lambda: TF.batch_norm(torch.randn(4, 3), torch.zeros(3), None, training=True),
        "both be None",
    )


@pytest.mark.parametrize(
    "mine,theirs", [(F.layer_norm, TF.layer_norm), (F.rms_norm, TF.rms_norm)], ids=["layer", "rms"]
)
def test_layer_and_rms_norm_shape_errors(mine, theirs):
    raises_like_torch(
        lambda: mine(mg.tensor(rand(4, 3)), (4,)),
        lambda: theirs(torch.randn(4, 3), (4,)),
        r"\(\*, 4\)",
    )
    raises_like_torch(
        lambda: mine(mg.tensor(rand(4, 3)), (3,), mg.ones(4)),
        lambda: theirs(torch.randn(4, 3), (3,), torch.ones(4)),
        "weight must have shape",
    )
    raises_like_torch(
        lambda: mine(mg.tensor(rand(3)), ()), lambda: theirs(torch.randn(3), ()), "at least one"
    )


def test_layer_norm_module_and_dtype_errors():
    raises_like_torch(
        lambda: nn.LayerNorm(4)(mg.tensor(rand(4, 3))),
        lambda: tnn.LayerNorm(4)(torch.randn(4, 3)),
        "shape",
    )
    with pytest.raises(TypeError, match="floating point"):
        F.layer_norm(mg.tensor([[1, 2]]), (2,))
