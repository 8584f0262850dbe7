"""minigrad.nn.functional losses against torch.nn.functional: values and gradients for
every option combination, float64 gradient checks, stability and error messages."""

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import minigrad as mg
import minigrad.nn.functional as F
from tests.helpers import assert_close, check_against_torch, check_grads, leaf, rand, tleaf

# The torch names whose behaviour this file checks against torch (read by tools/api_coverage.py).
TORCH_API = [
    "torch.nn.functional.binary_cross_entropy",
    "torch.nn.functional.binary_cross_entropy_with_logits",
    "torch.nn.functional.cross_entropy",
    "torch.nn.functional.huber_loss",
    "torch.nn.functional.kl_div",
    "torch.nn.functional.l1_loss",
    "torch.nn.functional.mse_loss",
    "torch.nn.functional.nll_loss",
    "torch.nn.functional.smooth_l1_loss",
]

REDUCTIONS = ["mean", "sum", "none"]


def class_targets(shape, n_classes, seed=0):
    return np.random.default_rng(seed).integers(0, n_classes, size=shape)


def mg_long(a):
    return mg.tensor(np.asarray(a, dtype=np.int64))


def t_long(a):
    return torch.tensor(np.asarray(a, dtype=np.int64))


# ---- cross_entropy ------------------------------------------------------------------------
# input shape; the target shape is the input's without the class dim (dim 1, or 0 if 1-D)
CE_SHAPES = [(4, 5), (2, 3, 2, 2), (5,), (3, 4, 2), (2, 1), (1, 3)]


def target_shape(shape):
    return shape[:1] + shape[2:] if len(shape) > 1 else ()


def n_classes(shape):
    return shape[1] if len(shape) > 1 else shape[0]


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("label_smoothing", [0.0, 0.3])
@pytest.mark.parametrize("ignore", [None, "class", "marker"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("shape", CE_SHAPES, ids=str)
def test_cross_entropy_class_indices_match_torch(
    shape, weighted, ignore, label_smoothing, reduction
):
    c = n_classes(shape)
    target = class_targets(target_shape(shape), c, seed=1)
    kwargs = dict(reduction=reduction, label_smoothing=label_smoothing)
    if ignore == "class":  # ignore_index is a real class: positions of that class drop out
        kwargs["ignore_index"] = int(target.reshape(-1)[0])
    elif ignore == "marker":  # a value outside 0..C-1 marks padding positions
        target = target.copy()
        target.reshape(-1)[-1:] = -1
        kwargs["ignore_index"] = -1
    weight = rand(c, seed=2, positive=True) if weighted else None
    check_against_torch(
        lambda x: F.cross_entropy(
            x, mg_long(target), weight=None if weight is None else mg.tensor(weight), **kwargs
        ),
        lambda x: TF.cross_entropy(
            x, t_long(target), weight=None if weight is None else torch.tensor(weight), **kwargs
        ),
        rand(*shape, seed=3) * 2,
    )


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("label_smoothing", [0.0, 0.25])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("shape", [(4, 5), (2, 3, 2, 2), (5,)], ids=str)
def test_cross_entropy_probability_targets_match_torch(shape, weighted, label_smoothing, reduction):
    """Soft targets: the gradient flows to the target too, and is compared as well."""
    c = n_classes(shape)
    probs = np.exp(rand(*shape, seed=4))
    probs /= probs.sum(axis=1 if len(shape) > 1 else 0, keepdims=True)
    weight = rand(c, seed=2, positive=True) if weighted else None
    kwargs = dict(reduction=reduction, label_smoothing=label_smoothing)
    check_against_torch(
        lambda x, t: F.cross_entropy(
            x, t, weight=None if weight is None else mg.tensor(weight), **kwargs
        ),
        lambda x, t: TF.cross_entropy(
            x, t, weight=None if weight is None else torch.tensor(weight), **kwargs
        ),
        rand(*shape, seed=3),
        probs,
    )


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"label_smoothing": 0.2},
        {"weight": [0.5, 2.0, 1.0, 3.0]},
        {"weight": [0.5, 2.0, 1.0, 3.0], "label_smoothing": 0.1, "ignore_index": 2},
        {"reduction": "none", "label_smoothing": 0.3},
    ],
    ids=str,
)
def test_cross_entropy_gradgradcheck(kwargs):
    kwargs = dict(kwargs)
    if "weight" in kwargs:
        kwargs["weight"] = mg.tensor(np.array(kwargs["weight"]))
    target = mg_long([1, 2, 3])
    check_grads(lambda x: F.cross_entropy(x, target, **kwargs), rand(3, 4, seed=5), second=True)


def test_cross_entropy_probability_targets_gradgradcheck():
    probs = np.array([[0.2, 0.5, 0.3], [0.6, 0.1, 0.3]])
    check_grads(
        lambda x, t: F.cross_entropy(
            x, t, weight=mg.tensor(np.array([1.0, 2.0, 0.5])), label_smoothing=0.1
        ),
        rand(2, 3, seed=6),
        probs,
        second=True,
    )


# the spatial cross-entropy's gradcheck is the losses exercise's (tests/test_exercise_losses.py)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cross_entropy_is_stable_for_huge_logits(reduction):
    x = np.array([[1e4, 0.0, -1e4], [-1e4, 1e4, 0.0], [1e4, 1e4, -1e4]])
    target = np.array([1, 1, 0])
    with np.errstate(over="raise"):
        check_against_torch(
            lambda t: F.cross_entropy(t, mg_long(target), reduction=reduction, label_smoothing=0.1),
            lambda t: TF.cross_entropy(t, t_long(target), reduction=reduction, label_smoothing=0.1),
            x,
        )
    loss = F.cross_entropy(leaf(x), mg_long(target), reduction="none")
    np.testing.assert_allclose(loss.array, [1e4, 0.0, np.log(2)], rtol=1e-12)


def test_cross_entropy_all_ignored_mean_is_nan_as_torch():
    x = rand(2, 3)
    target = [-100, -100]
    loss = F.cross_entropy(leaf(x), mg_long(target))
    assert np.isnan(loss.item())
    assert torch.isnan(TF.cross_entropy(tleaf(x), t_long(target)))
    assert F.cross_entropy(leaf(x), mg_long(target), reduction="sum").item() == 0.0


def test_cross_entropy_float32_stays_float32():
    x = mg.tensor(rand(3, 4).astype(np.float32), requires_grad=True)
    loss = F.cross_entropy(x, mg_long([0, 3, 1]), weight=mg.tensor(np.ones(4)))
    assert loss.dtype == np.float32 and loss.shape == ()
    loss.backward()
    assert x.grad.dtype == np.float32


def test_cross_entropy_float32_probability_targets_gradients_stay_float32():
    x = mg.tensor(rand(3, 4).astype(np.float32), requires_grad=True)
    t = mg.tensor(np.full((3, 4), 0.25, dtype=np.float32), requires_grad=True)
    loss = F.cross_entropy(x, t, weight=mg.tensor(np.arange(1.0, 5.0)), label_smoothing=0.1)
    # autograd.grad hands back the op's own gradients (.grad would be cast to the leaf's dtype)
    grad_x, grad_t = mg.autograd.grad(loss, [x, t])
    assert grad_x.dtype == np.float32 and grad_t.dtype == np.float32


@pytest.mark.parametrize(
    "x_shape,t_shape",
    [((4, 5), (3,)), ((4, 5), (4, 1)), ((2, 3, 4), (2, 3)), ((5,), (1,)), ((2, 3, 2, 2), (2, 2))],
    ids=str,
)
def test_cross_entropy_wrong_target_shape_names_both_shapes(x_shape, t_shape):
    with pytest.raises(RuntimeError) as info:  # a shape mismatch: RuntimeError, as PyTorch
        F.cross_entropy(leaf(rand(*x_shape)), mg_long(np.zeros(t_shape)))
    message = str(info.value)
    assert "cross_entropy" in message
    assert str(x_shape) in message and str(t_shape) in message


def test_cross_entropy_probability_target_shape_mismatch():
    with pytest.raises(RuntimeError, match=r"\(4, 5\).*\(4, 3\)"):
        F.cross_entropy(leaf(rand(4, 5)), leaf(rand(4, 3)))


@pytest.mark.parametrize("bad", [5, 7, -2])
def test_cross_entropy_out_of_range_class_raises(bad):
    with pytest.raises(IndexError, match=rf"{bad}.*5 classes"):
        F.cross_entropy(leaf(rand(3, 5)), mg_long([0, bad, 1]))


@pytest.mark.parametrize(
    "kwargs,error,match",
    [
        ({"reduction": "avg"}, ValueError, "reduction"),
        ({"label_smoothing": 1.5}, ValueError, "label_smoothing"),
        ({"label_smoothing": -0.1}, ValueError, "label_smoothing"),
        ({"weight": mg.tensor(np.ones(4))}, RuntimeError, "weight"),  # a shape mismatch, as PyTorch
    ],
    ids=str,
)
def test_cross_entropy_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        F.cross_entropy(leaf(rand(2, 3)), mg_long([0, 1]), **kwargs)


def test_cross_entropy_rejects_0d_and_integer_logits():
    with pytest.raises(ValueError, match="0-d"):
        F.cross_entropy(leaf(1.0), mg_long(0))
    with pytest.raises(TypeError, match="floating"):
        F.cross_entropy(mg_long([[1, 2]]), mg_long([0]))


# ---- nll_loss -----------------------------------------------------------------------------
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("ignore_index", [-100, 1])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 4), (2, 3, 2, 2), (3,)], ids=str)
def test_nll_loss_matches_torch(shape, weighted, ignore_index, reduction):
    c = n_classes(shape)
    target = class_targets(target_shape(shape), c, seed=9)
    weight = rand(c, seed=2, positive=True) if weighted else None
    check_against_torch(
        lambda x: F.nll_loss(
            x,
            mg_long(target),
            weight=None if weight is None else mg.tensor(weight),
            ignore_index=ignore_index,
            reduction=reduction,
        ),
        lambda x: TF.nll_loss(
            x,
            t_long(target),
            weight=None if weight is None else torch.tensor(weight),
            ignore_index=ignore_index,
            reduction=reduction,
        ),
        rand(*shape, seed=10),
    )


# nll_loss's gradcheck is the losses exercise's (tests/test_exercise_losses.py)
@pytest.mark.parametrize(
    "x_shape,t_shape", [((4, 3), (3,)), ((2, 3, 4), (2, 3)), ((3,), (3,))], ids=str
)
def test_nll_loss_wrong_target_shape_names_both_shapes(x_shape, t_shape):
    with pytest.raises(RuntimeError) as info:
        F.nll_loss(leaf(rand(*x_shape)), mg_long(np.zeros(t_shape)))
    message = str(info.value)
    assert "nll_loss" in message and str(x_shape) in message and str(t_shape) in message


def test_nll_loss_bad_input():
    with pytest.raises(IndexError, match="3 classes"):
        F.nll_loss(leaf(rand(2, 3)), mg_long([0, 3]))
    with pytest.raises(ValueError, match="reduction"):
        F.nll_loss(leaf(rand(2, 3)), mg_long([0, 1]), reduction="batchmean")
    with pytest.raises(TypeError, match="int"):
        F.nll_loss(leaf(rand(2, 3)), leaf([0.0, 1.0]))


# ---- regression losses ------------------------------------------------------------------
REGRESSION = {
    "mse_loss": (F.mse_loss, TF.mse_loss, {}),
    "l1_loss": (F.l1_loss, TF.l1_loss, {}),
    "smooth_l1_loss": (F.smooth_l1_loss, TF.smooth_l1_loss, {}),
    "smooth_l1_loss_beta0.5": (F.smooth_l1_loss, TF.smooth_l1_loss, {"beta": 0.5}),
    "smooth_l1_loss_beta0": (F.smooth_l1_loss, TF.smooth_l1_loss, {"beta": 0.0}),
    "huber_loss": (F.huber_loss, TF.huber_loss, {}),
    "huber_loss_delta2": (F.huber_loss, TF.huber_loss, {"delta": 2.0}),
    "huber_loss_delta0.3": (F.huber_loss, TF.huber_loss, {"delta": 0.3}),
}


def regression_pair(shape, seed=11):
    """Input and target whose differences stay away from 0 and from every beta/delta used."""
    x = rand(*shape, seed=seed) * 2
    d = rand(*shape, seed=seed + 1) * 2
    d = np.where(np.abs(d) < 0.1, 0.15, d)
    for kink in (0.3, 0.5, 1.0, 2.0):
        d = np.where(np.abs(np.abs(d) - kink) < 0.05, np.sign(d) * (kink + 0.07), d)
    return x, x - d


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", [(), (1,), (7,), (2, 3), (2, 1, 3)], ids=str)
@pytest.mark.parametrize("name", REGRESSION)
def test_regression_loss_matches_torch(name, shape, reduction):
    fn, tfn, kwargs = REGRESSION[name]
    x, y = regression_pair(shape)
    check_against_torch(
        lambda a, b: fn(a, b, reduction=reduction, **kwargs),
        lambda a, b: tfn(a, b, reduction=reduction, **kwargs),
        x,
        y,
    )


@pytest.mark.parametrize("name", REGRESSION)
def test_regression_loss_gradcheck(name):
    fn, _, kwargs = REGRESSION[name]
    check_grads(
        lambda a, b: fn(a, b, **kwargs),
        *regression_pair((2, 3), seed=12),
        second=name == "mse_loss",
    )


def test_smooth_l1_and_huber_cover_both_branches():
    """Differences on both sides of beta/delta: quadratic inside, linear outside."""
    x = leaf([0.0, 0.0, 0.0, 0.0])
    y = leaf([0.2, -0.4, 1.5, -3.0])
    np.testing.assert_allclose(
        F.smooth_l1_loss(x, y, reduction="none", beta=0.5).array,
        [0.04, 0.16, 1.25, 2.75],
        rtol=1e-12,
    )
    np.testing.assert_allclose(
        F.huber_loss(x, y, reduction="none", delta=0.5).array, [0.02, 0.08, 0.625, 1.375]
    )


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"])
def test_regression_loss_shape_mismatch_raises_naming_both_shapes(name):
    """PyTorch warns and broadcasts; minigrad raises, since it is almost always a bug
    (a RuntimeError, as PyTorch's for shapes that do not broadcast)."""
    with pytest.raises(RuntimeError) as info:
        getattr(F, name)(leaf(rand(4, 1)), leaf(rand(4)))
    message = str(info.value)
    assert name in message and "(4, 1)" in message and "(4,)" in message


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"])
def test_regression_loss_bad_reduction(name):
    with pytest.raises(ValueError, match="reduction.*'avg'"):
        getattr(F, name)(leaf(rand(3)), leaf(rand(3)), reduction="avg")


def test_smooth_l1_negative_beta_and_huber_nonpositive_delta_raise():
    with pytest.raises(ValueError, match="beta"):
        F.smooth_l1_loss(leaf(rand(3)), leaf(rand(3)), beta=-1.0)
    with pytest.raises(ValueError, match="delta"):
        F.huber_loss(leaf(rand(3)), leaf(rand(3)), delta=0.0)


# ---- binary cross-entropy ------------------------------------------------------------------
def probabilities(*shape, seed=13):
    return 1.0 / (1.0 + np.exp(-rand(*shape, seed=seed) * 2))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("shape", [(), (5,), (3, 4), (2, 1, 3)], ids=str)
def test_binary_cross_entropy_matches_torch(shape, weighted, reduction):
    weight = rand(*shape[-1:], seed=14, positive=True) if weighted else None
    check_against_torch(
        lambda x, y: F.binary_cross_entropy(
            x, y, weight=None if weight is None else mg.tensor(weight), reduction=reduction
        ),
        lambda x, y: TF.binary_cross_entropy(
            x, y, weight=None if weight is None else torch.tensor(weight), reduction=reduction
        ),
        probabilities(*shape),
        probabilities(*shape, seed=15),
    )


def test_binary_cross_entropy_gradcheck():
    check_grads(
        F.binary_cross_entropy, probabilities(2, 3), probabilities(2, 3, seed=16), second=True
    )


def test_binary_cross_entropy_clamps_log_at_minus_100_like_torch():
    """Inputs exactly 0 or 1: PyTorch clamps each log at -100, so the loss is 100 (not inf)
    where the target disagrees, 0 where it agrees, and the gradients stay finite."""
    x = [0.0, 1.0, 0.0, 1.0, 0.0, 0.5]
    y = [1.0, 0.0, 0.0, 1.0, 0.5, 0.3]
    mx, tx = leaf(x), tleaf(x)
    loss = F.binary_cross_entropy(mx, leaf(y), reduction="none")
    tloss = TF.binary_cross_entropy(tx, tleaf(y, requires_grad=False), reduction="none")
    assert_close(loss, tloss)
    np.testing.assert_allclose(loss.array[:4], [100.0, 100.0, 0.0, 0.0])
    loss.sum().backward()
    tloss.sum().backward()
    assert np.all(np.isfinite(mx.grad.array)), mx.grad
    assert_close(mx.grad, tx.grad)


def test_binary_cross_entropy_float32_saturated_sigmoid():
    """The common way to hit x == 0 exactly: a float32 sigmoid that underflows."""
    logits = mg.tensor(np.array([-120.0, 120.0, 0.3], dtype=np.float32), requires_grad=True)
    target = mg.tensor(np.array([0.0, 1.0, 1.0], dtype=np.float32))
    loss = F.binary_cross_entropy(logits.sigmoid(), target)
    loss.backward()
    assert np.isfinite(loss.item()) and np.all(np.isfinite(logits.grad.array))
    tl = torch.tensor(logits.array, requires_grad=True)
    expected = TF.binary_cross_entropy(torch.sigmoid(tl), torch.tensor(target.array))
    expected.backward()
    assert_close(loss, expected, rtol=1e-5)
    assert_close(logits.grad, tl.grad, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("bad", [-0.1, 1.2])
def test_binary_cross_entropy_rejects_inputs_outside_0_1(bad):
    with pytest.raises(RuntimeError, match="between 0 and 1"):  # PyTorch's type
        F.binary_cross_entropy(leaf([0.5, bad]), leaf([0.0, 1.0]))


def test_binary_cross_entropy_shape_and_reduction_errors():
    with pytest.raises(RuntimeError, match=r"\(3,\).*\(3, 1\)|\(3, 1\).*\(3,\)"):
        F.binary_cross_entropy(leaf([[0.5], [0.2], [0.1]]), leaf([0.0, 1.0, 1.0]))
    with pytest.raises(ValueError, match="reduction"):
        F.binary_cross_entropy(leaf([0.5]), leaf([1.0]), reduction="batchmean")


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize(
    "weighted,pos_weighted", [(False, False), (True, False), (False, True), (True, True)]
)
@pytest.mark.parametrize("shape", [(), (5,), (3, 4), (2, 3, 4)], ids=str)
def test_bce_with_logits_matches_torch(shape, weighted, pos_weighted, reduction):
    weight = rand(*shape[-1:], seed=17, positive=True) if weighted else None
    pos_weight = rand(*shape[-1:], seed=18, positive=True) if pos_weighted else None
    check_against_torch(
        lambda x, y: F.binary_cross_entropy_with_logits(
            x,
            y,
            weight=None if weight is None else mg.tensor(weight),
            pos_weight=None if pos_weight is None else mg.tensor(pos_weight),
            reduction=reduction,
        ),
        lambda x, y: TF.binary_cross_entropy_with_logits(
            x,
            y,
            weight=None if weight is None else torch.tensor(weight),
            pos_weight=None if pos_weight is None else torch.tensor(pos_weight),
            reduction=reduction,
        ),
        rand(*shape, seed=19) * 3,
        probabilities(*shape, seed=20),
    )


def test_bce_with_logits_gradgradcheck():
    pos_weight = mg.tensor(np.array([0.5, 2.0, 3.0]))
    check_grads(
        lambda x, y: F.binary_cross_entropy_with_logits(x, y, pos_weight=pos_weight),
        rand(2, 3, seed=21),
        probabilities(2, 3, seed=22),
        second=True,
    )


def test_bce_with_logits_is_stable_for_large_logits():
    x = np.array([100.0, -100.0, 100.0, -100.0, 800.0, -800.0])
    y = np.array([1.0, 0.0, 0.0, 1.0, 0.0, 1.0])
    pos_weight = np.array([2.0])
    with np.errstate(over="raise"):
        check_against_torch(
            lambda a: F.binary_cross_entropy_with_logits(a, mg.tensor(y), reduction="none"),
            lambda a: TF.binary_cross_entropy_with_logits(a, torch.tensor(y), reduction="none"),
            x,
        )
        check_against_torch(
            lambda a: F.binary_cross_entropy_with_logits(
                a, mg.tensor(y), pos_weight=mg.tensor(pos_weight)
            ),
            lambda a: TF.binary_cross_entropy_with_logits(
                a, torch.tensor(y), pos_weight=torch.tensor(pos_weight)
            ),
            x,
        )
    loss = F.binary_cross_entropy_with_logits(leaf(x), mg.tensor(y), reduction="none")
    np.testing.assert_allclose(loss.array, [0.0, 0.0, 100.0, 100.0, 800.0, 800.0], atol=1e-40)


def test_bce_with_logits_equals_bce_of_sigmoid():
    x, y = rand(3, 4, seed=23), probabilities(3, 4, seed=24)
    a = F.binary_cross_entropy_with_logits(leaf(x), leaf(y))
    b = F.binary_cross_entropy(leaf(x).sigmoid(), leaf(y))
    np.testing.assert_allclose(a.array, b.array, rtol=1e-12)


def test_bce_with_logits_errors():
    with pytest.raises(RuntimeError, match=r"\(2, 2\).*\(4,\)|\(4,\).*\(2, 2\)"):
        F.binary_cross_entropy_with_logits(leaf(rand(4)), leaf(rand(2, 2)))
    with pytest.raises(ValueError, match="reduction"):
        F.binary_cross_entropy_with_logits(leaf(rand(4)), leaf(rand(4)), reduction="max")


# ---- kl_div ------------------------------------------------------------------------------
def log_probs(*shape, seed):
    x = rand(*shape, seed=seed)
    if not shape:  # a single log-probability
        return -np.abs(x) - 0.1
    return x - np.log(np.exp(x).sum(axis=-1, keepdims=True))


# PyTorch's nudge to batchmean
@pytest.mark.filterwarnings("ignore:reduction. 'mean' divides:UserWarning")
@pytest.mark.parametrize("reduction", REDUCTIONS + ["batchmean"])
@pytest.mark.parametrize("log_target", [False, True])
@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 2), (5,), (1, 1), ()], ids=str)
def test_kl_div_matches_torch(shape, log_target, reduction):
    target = log_probs(*shape, seed=26)
    if not log_target:
        target = np.exp(target)
    kwargs = dict(reduction=reduction, log_target=log_target)
    check_against_torch(
        lambda x, t: F.kl_div(x, t, **kwargs),
        lambda x, t: TF.kl_div(x, t, **kwargs),
        log_probs(*shape, seed=25),
        target,
    )


@pytest.mark.parametrize("reduction", ["batchmean", "sum", "none"])
def test_kl_div_zero_targets_contribute_zero(reduction):
    """0 * log 0 = 0: zero target probabilities add nothing (PyTorch's xlogy). The input
    gradient matches PyTorch; the target gradient there is 0 rather than PyTorch's NaN."""
    target = np.array([[0.0, 0.5, 0.5], [1.0, 0.0, 0.0]])
    x = log_probs(2, 3, seed=27)
    mt, tt = leaf(target), tleaf(target)
    mx, tx = leaf(x), tleaf(x)
    loss, tloss = F.kl_div(mx, mt, reduction=reduction), TF.kl_div(tx, tt, reduction=reduction)
    assert_close(loss, tloss)
    g = rand(*tloss.shape, seed=28)
    loss.backward(mg.tensor(g))
    tloss.backward(torch.tensor(g))
    assert_close(mx.grad, tx.grad)
    positive = target > 0
    assert_close(mt.grad.array[positive], tt.grad.numpy()[positive])
    assert np.all(mt.grad.array[~positive] == 0)


def test_kl_div_gradgradcheck_and_batchmean_is_true_kl():
    p = np.array([[0.1, 0.6, 0.3], [0.25, 0.25, 0.5]])
    check_grads(
        lambda x, t: F.kl_div(x, t, reduction="batchmean"), log_probs(2, 3, seed=29), p, second=True
    )
    check_grads(
        lambda x, t: F.kl_div(x, t, log_target=True),
        log_probs(2, 3, seed=30),
        np.log(p),
        second=True,
    )
    q = np.exp(log_probs(2, 3, seed=31))
    expected = np.mean(np.sum(p * np.log(p / q), axis=1))
    np.testing.assert_allclose(
        F.kl_div(leaf(np.log(q)), leaf(p), reduction="batchmean").item(), expected
    )


def test_kl_div_errors():
    with pytest.raises(ValueError, match="reduction"):
        F.kl_div(leaf(rand(2, 3)), leaf(rand(2, 3)), reduction="avg")
    with pytest.raises(RuntimeError, match=r"\(2, 3\).*\(3,\)|\(3,\).*\(2, 3\)"):
        F.kl_div(leaf(rand(2, 3)), leaf(rand(3)))


@pytest.mark.parametrize(
    "fn",
    [
        lambda x, y: F.mse_loss(x, y),
        lambda x, y: F.l1_loss(x, y, reduction="sum"),
        lambda x, y: F.cross_entropy(x, y.softmax(dim=1)),
    ],
)
def test_losses_of_float32_stay_float32(fn):
    x = mg.tensor(rand(2, 3).astype(np.float32), requires_grad=True)
    y = mg.tensor(rand(2, 3, seed=1).astype(np.float32))
    out = fn(x, y)
    out.backward()
    assert out.dtype == np.float32 and x.grad.dtype == np.float32


# ---- masked classes and float32 cancellation (regressions) ---------------------------------
def test_nll_and_cross_entropy_ignore_minus_inf_in_other_classes():
    inf = float("inf")
    log_probs = [[-inf, -1.0, -0.5], [-0.2, -inf, -3.0]]
    target = [2, 0]
    for mine, theirs in (
        (
            F.nll_loss(mg.tensor(log_probs), mg.tensor(target)),
            TF.nll_loss(torch.tensor(log_probs), torch.tensor(target)),
        ),
        (
            F.cross_entropy(mg.tensor(log_probs), mg.tensor(target)),
            TF.cross_entropy(torch.tensor(log_probs), torch.tensor(target)),
        ),
    ):
        assert np.isfinite(mine.item())
        assert mine.item() == pytest.approx(theirs.item(), rel=1e-6)
    x = mg.tensor(log_probs, requires_grad=True)
    F.cross_entropy(x, mg.tensor(target)).backward()
    assert np.isfinite(x.grad.array).all()


@pytest.mark.parametrize("pos_weight", [None, 2.0])
def test_bce_with_logits_keeps_tiny_losses_and_gradients_in_float32(pos_weight):
    """float32 minigrad against float64 PyTorch (the exact value): at x = -20 the loss is
    2e-9, which a float32 -20 + softplus(20) would round to 0 (PyTorch's float32 CPU kernel
    does: it returns 0 there)."""
    values, targets = [-20.0, -8.0, 0.0, 3.0, 20.0], [0.0, 0.0, 0.5, 1.0, 1.0]
    x = mg.tensor(values, requires_grad=True)
    xt = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    mine_pw = None if pos_weight is None else mg.tensor(pos_weight)
    theirs_pw = None if pos_weight is None else torch.tensor(pos_weight, dtype=torch.float64)
    loss = F.binary_cross_entropy_with_logits(
        x, mg.tensor(targets), reduction="none", pos_weight=mine_pw
    )
    exact = TF.binary_cross_entropy_with_logits(
        xt, torch.tensor(targets, dtype=torch.float64), reduction="none", pos_weight=theirs_pw
    )
    loss.sum().backward()
    exact.sum().backward()
    assert loss.dtype == mg.float32
    np.testing.assert_allclose(loss.array, exact.detach().numpy(), rtol=1e-5, atol=0)
    np.testing.assert_allclose(x.grad.array, xt.grad.numpy(), rtol=1e-5, atol=1e-12)
    assert loss.array[0] > 0 and x.grad.array[0] > 0  # 2e-9, not rounded away
