"""minigrad.nn.functional helpers: dropout, one_hot, pad and linear."""

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import minigrad as mg
import minigrad.nn.functional as F
from tests.helpers import assert_close, check_against_torch, check_grads, leaf, rand

# The torch names whose behaviour this file checks against torch (read by tools/api_coverage.py).
TORCH_API = [
    "torch.nn.functional.dropout",
    "torch.nn.functional.linear",
    "torch.nn.functional.one_hot",
    "torch.nn.functional.pad",
]


# ---- dropout ------------------------------------------------------------------------------
@pytest.mark.parametrize("p", [0.1, 0.5, 0.8])
def test_dropout_zeroes_and_rescales_survivors(p):
    mg.manual_seed(0)
    x = rand(50, 40, positive=True)
    y = F.dropout(leaf(x), p=p).array
    kept = y != 0
    np.testing.assert_allclose(y[kept], x[kept] / (1 - p), rtol=1e-12)
    # 2000 Bernoulli(1 - p) draws: the kept fraction is within 5 standard deviations of 1 - p
    assert abs(kept.mean() - (1 - p)) < 5 * np.sqrt(p * (1 - p) / kept.size)


def test_dropout_expected_value_is_unchanged():
    mg.manual_seed(1)
    y = F.dropout(mg.ones(20_000, dtype=mg.float64), p=0.3)
    assert abs(y.array.mean() - 1.0) < 0.03


def test_dropout_gradient_is_the_scaled_mask():
    mg.manual_seed(2)
    x = leaf(rand(6, 7, positive=True))
    y = F.dropout(x, p=0.4)
    g = rand(6, 7, seed=3)
    y.backward(mg.tensor(g))
    mask = (y.array != 0) / 0.6
    np.testing.assert_allclose(x.grad.array, g * mask, rtol=1e-12)


def test_dropout_same_seed_same_mask_and_different_seed_different_mask():
    x = leaf(rand(8, 9, positive=True))
    mg.manual_seed(123)
    a = F.dropout(x, p=0.5).array
    b = F.dropout(x, p=0.5).array
    mg.manual_seed(123)
    c = F.dropout(x, p=0.5).array
    mg.manual_seed(124)
    d = F.dropout(x, p=0.5).array
    np.testing.assert_array_equal(a, c)
    assert not np.array_equal(a != 0, b != 0)  # the generator moved on
    assert not np.array_equal(a != 0, d != 0)


def test_dropout_p0_and_eval_are_identity_p1_is_zero():
    x = leaf(rand(3, 4))
    np.testing.assert_array_equal(F.dropout(x, p=0.0).array, x.array)
    np.testing.assert_array_equal(F.dropout(x, p=0.7, training=False).array, x.array)
    zero = F.dropout(x, p=1.0)
    np.testing.assert_array_equal(zero.array, np.zeros((3, 4)))
    assert np.all(np.isfinite(zero.array))
    zero.sum().backward()
    np.testing.assert_array_equal(x.grad.array, np.zeros((3, 4)))


def test_dropout_eval_gradient_passes_through():
    x = leaf(rand(2, 3))
    (F.dropout(x, p=0.5, training=False) * 2.0).sum().backward()
    np.testing.assert_array_equal(x.grad.array, np.full((2, 3), 2.0))


@pytest.mark.parametrize("p", [-0.1, 1.5])
def test_dropout_bad_p_raises(p):
    with pytest.raises(ValueError, match=str(p)):
        F.dropout(leaf(rand(3)), p=p)


def test_dropout_keeps_dtype_and_shape():
    mg.manual_seed(0)
    for shape in [(), (1,), (2, 1, 3)]:
        x = mg.tensor(rand(*shape).astype(np.float32))
        y = F.dropout(x, p=0.5)
        assert y.dtype == np.float32 and y.shape == shape


# ---- one_hot ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "values,num_classes",
    [([0, 2, 1], -1), ([0, 2, 1], 5), ([[1, 0], [3, 3]], -1), (2, 4), ([[[0]]], 1), ([], 3)],
    ids=str,
)
def test_one_hot_matches_torch(values, num_classes):
    data = np.array(values, dtype=np.int64)
    mine = F.one_hot(mg.tensor(data), num_classes=num_classes)
    theirs = TF.one_hot(torch.tensor(data), num_classes=num_classes)
    assert mine.dtype == np.int64
    assert_close(mine, theirs)


def test_one_hot_infers_num_classes_from_the_largest_index():
    assert F.one_hot(mg.tensor(np.array([3, 0]))).shape == (2, 4)


@pytest.mark.parametrize(
    "values,num_classes,match", [([0, -1], -1, "-1"), ([0, 3], 3, "3"), ([5], 2, "5")]
)
def test_one_hot_rejects_out_of_range(values, num_classes, match):
    with pytest.raises(RuntimeError, match=match):
        F.one_hot(mg.tensor(np.array(values, dtype=np.int64)), num_classes=num_classes)


def test_one_hot_rejects_float_input():
    with pytest.raises(TypeError, match="integer"):
        F.one_hot(mg.tensor([0.0, 1.0]))


# ---- pad ------------------------------------------------------------------------------------
CONSTANT_CASES = [
    ((5,), (1, 2)),
    ((5,), (0, 0)),
    ((5,), (-1, 2)),
    ((1,), (3, 0)),
    ((2, 3), (1, 1)),
    ((2, 3), (1, 0, 2, 1)),
    ((2, 3), (-1, 1, 0, -1)),
    ((2, 3, 4), (1, 2, 0, 1, 2, 0)),
    ((2, 3, 4), (-1, -2, 1, 1)),
    ((1, 2, 3, 4), (1, 1, 1, 1)),
    ((1, 2, 3, 4), (0, 1, 2, 0, 1, 0, 0, 1)),
    ((2, 2, 3, 4), (-1, 2, 1, -2, 0, 0, 1, 0)),
]


@pytest.mark.parametrize("value", [None, 0.0, 2.5])
@pytest.mark.parametrize("shape,amounts", CONSTANT_CASES, ids=str)
def test_pad_constant_matches_torch(shape, amounts, value):
    kwargs = {} if value is None else {"value": value}
    check_against_torch(
        lambda x: F.pad(x, amounts, **kwargs),
        lambda x: TF.pad(x, amounts, **kwargs),
        rand(*shape, seed=1),
    )


# modes other than 'constant': PyTorch pads the last 1, 2 or 3 dims of an input with one
# or two more dims (a batch and/or channel dim); every amount here is valid for all three
MODE_CASES = [
    ((2, 5), (1, 2)),
    ((2, 5), (0, 4)),
    ((1, 2, 5), (3, 1)),
    ((1, 2, 5), (2, 2, 1, 0)),
    ((2, 3, 4), (1, 3, 2, 2)),
    ((1, 2, 3, 4), (1, 2, 0, 1)),
    ((1, 1, 3, 3, 4), (1, 2, 2, 0, 1, 2)),
    ((2, 3, 3, 4), (3, 1, 1, 2, 0, 2)),
]


@pytest.mark.parametrize("shape,amounts", MODE_CASES, ids=str)
@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_pad_modes_match_torch(mode, shape, amounts):
    check_against_torch(
        lambda x: F.pad(x, amounts, mode=mode),
        lambda x: TF.pad(x, amounts, mode=mode),
        rand(*shape, seed=2),
    )


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_pad_modes_on_1d_input_match_numpy(mode):
    """PyTorch wants a channel dim for these modes; minigrad pads any trailing dims."""
    x = rand(5, seed=3)
    y = F.pad(leaf(x), (2, 3), mode=mode)
    np.testing.assert_allclose(
        y.array, np.pad(x, (2, 3), mode={"replicate": "edge", "circular": "wrap"}.get(mode, mode))
    )


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
def test_pad_gradcheck(mode):
    amounts = (2, 1, 1, 2) if mode != "constant" else (2, -1, 1, 2)
    check_grads(lambda x: F.pad(x, amounts, mode=mode), rand(1, 3, 4, seed=4), second=True)


def test_pad_reflect_gradient_accumulates_on_repeated_elements():
    x = leaf([1.0, 2.0, 3.0])
    F.pad(x[None], (2, 2), mode="reflect").sum().backward()
    # padded row: 3 2 | 1 2 3 | 2 1  -> element 1 appears twice, element 2 three times
    np.testing.assert_array_equal(x.grad.array, [2.0, 3.0, 2.0])


@pytest.mark.parametrize(
    "shape,amounts,kwargs,error,match",
    [  # the padding's length against the input's shape: a RuntimeError, as in PyTorch
        ((2, 3), (1,), {}, RuntimeError, "even"),
        ((2, 3), (1, 2, 3), {"mode": "reflect"}, RuntimeError, "even"),
        ((1, 2, 3), (3, 0), {"mode": "reflect"}, ValueError, "reflect"),
        ((1, 2, 3), (0, 1, 2, 0), {"mode": "reflect"}, ValueError, "reflect"),
        ((1, 2, 3), (4, 0), {"mode": "circular"}, ValueError, "circular"),
        ((3,), (1, 1, 1, 1), {}, RuntimeError, r"\(3,\)"),
        (
            (2, 3),
            (-2, -2),
            {},
            RuntimeError,
            r"input size 3, plus negative padding -2 and -2.* size -1",
        ),
        ((2, 3), (1, 1), {"mode": "wrap"}, ValueError, "mode"),
        ((2, 3), (-1, 1), {"mode": "replicate"}, ValueError, "negative"),
        ((2, 3), (1, 1), {"mode": "reflect", "value": 1.0}, ValueError, "value"),
    ],
    ids=str,
)
def test_pad_errors(shape, amounts, kwargs, error, match):
    with pytest.raises(error, match=match):
        F.pad(leaf(rand(*shape)), amounts, **kwargs)


@pytest.mark.parametrize("amounts", [(1.5, 1), (1.0, 1), (True, 1), 2], ids=str)
def test_pad_widths_must_be_ints_like_torch(amounts):
    with pytest.raises(TypeError):
        TF.pad(torch.zeros(2, 3), amounts)
    with pytest.raises(TypeError, match=r"pad: pad must be a tuple of ints"):
        F.pad(leaf(rand(2, 3)), amounts)


def test_pad_accepts_numpy_ints_and_lists():
    x = leaf(rand(2, 3))
    assert F.pad(x, [np.int64(1), 2]).shape == (2, 6)


def test_negative_padding_may_crop_to_nothing_but_not_below():
    assert F.pad(leaf(rand(2, 3)), (-2, -1)).shape == (2, 0)  # as PyTorch
    assert F.pad(leaf(rand(2, 3)), (-1, -1)).shape == (2, 1)


def test_pad_keeps_float32_and_integers():
    x = mg.tensor(rand(2, 3).astype(np.float32))
    assert F.pad(x, (1, 1), mode="reflect").dtype == np.float32
    assert F.pad(x, (1, 1), value=1.0).dtype == np.float32
    ints = F.pad(mg.tensor(np.array([[1, 2]], dtype=np.int64)), (1, 0), value=7)
    assert ints.dtype == np.int64
    np.testing.assert_array_equal(ints.array, [[7, 1, 2]])


# ---- linear ---------------------------------------------------------------------------------
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("x_shape", [(4,), (1, 4), (3, 4), (2, 3, 4), (2, 1, 3, 4)], ids=str)
def test_linear_matches_torch(x_shape, bias):
    arrays = [rand(*x_shape, seed=5), rand(3, 4, seed=6)] + ([rand(3, seed=7)] if bias else [])
    check_against_torch(F.linear, TF.linear, *arrays)


@pytest.mark.parametrize("bias_shape", [(), (1,), (1, 3), (2, 3)], ids=str)
def test_linear_with_a_broadcast_bias_matches_torch(bias_shape):
    """A bias other than (out,) broadcasts as in torch (a product and an addition here)."""
    arrays = [rand(2, 4, seed=5), rand(3, 4, seed=6), rand(*bias_shape, seed=7)]
    check_against_torch(F.linear, TF.linear, *arrays)


@pytest.mark.parametrize("x_shape", [(4,), (3, 4), (2, 3, 4)], ids=str)
def test_linear_with_a_bias_is_one_op_as_torchs_addmm(x_shape):
    """With a bias (out,), F.linear records one node, named as PyTorch's for a batch of
    rows (AddmmBackward0), whose backward gives dL/dx = G W, dL/dW = G^T x, dL/db = sum G
    (the values against torch above; here the graph and the dtypes in float32)."""
    x = mg.tensor(rand(*x_shape, seed=1, dtype=np.float32), requires_grad=True)
    w = mg.tensor(rand(3, 4, seed=2, dtype=np.float32), requires_grad=True)
    b = mg.tensor(rand(3, seed=3, dtype=np.float32), requires_grad=True)
    y = F.linear(x, w, b)
    assert y.grad_fn.name() == "AddmmBackward0"
    # straight to the three leaves: no transpose or addition node in between
    assert [type(n).__name__ for n, _ in y.grad_fn.next_functions] == ["AccumulateGrad"] * 3
    assert y.shape == (*x_shape[:-1], 3) and y.dtype == mg.float32
    y.sum().backward()
    rows = x.detach().numpy().reshape(-1, 4)
    np.testing.assert_allclose(w.grad.numpy(), np.ones((rows.shape[0], 3)).T @ rows, rtol=1e-5)
    np.testing.assert_allclose(b.grad.numpy(), np.full(3, rows.shape[0]), rtol=0)
    assert x.grad.dtype == w.grad.dtype == b.grad.dtype == mg.float32


def test_linear_second_derivative_on_a_batch_of_sequences():
    check_grads(F.linear, rand(2, 3, 4), rand(5, 4, seed=1), rand(5, seed=2), second=True)


def test_linear_single_output_matches_torch():
    """(F.linear's gradchecks are the linear exercise's, in tests/test_exercise_linear.py.)"""
    check_against_torch(F.linear, TF.linear, rand(2, 4), rand(1, 4, seed=1), rand(1, seed=2))


def test_linear_shape_mismatch_names_shapes():
    with pytest.raises(RuntimeError, match=r"\(2, 5\).*\(4, 3\)|\(4, 3\).*\(2, 5\)|\(5, 3\)"):
        F.linear(leaf(rand(2, 5)), leaf(rand(3, 4)))
