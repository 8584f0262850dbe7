"""In-place methods (`exp_`, `masked_fill_`, `scatter_`, ...), the `out=` argument of
the mg.* functions, and the Python protocols torch code relies on (`f"{loss:.4f}"`,
`len`, iteration, `bool`, `np.asarray`), against PyTorch."""

import re
import warnings

import numpy as np
import pytest
import torch

import minigrad as mg

from .helpers import rand

# The torch names whose behaviour this file checks against torch (read by tools/api_coverage.py).
TORCH_API = [
    "torch.Tensor.__array__",
    "torch.Tensor.__bool__",
    "torch.Tensor.__format__",
    "torch.Tensor.__iter__",
    "torch.Tensor.__len__",
    "torch.Tensor.abs_",
    "torch.Tensor.add_",
    "torch.Tensor.ceil_",
    "torch.Tensor.clamp_",
    "torch.Tensor.clamp_max_",
    "torch.Tensor.clamp_min_",
    "torch.Tensor.clip_",
    "torch.Tensor.copy_",
    "torch.Tensor.dim",
    "torch.Tensor.div_",
    "torch.Tensor.exp_",
    "torch.Tensor.fill_",
    "torch.Tensor.floor_",
    "torch.Tensor.index_fill_",
    "torch.Tensor.log_",
    "torch.Tensor.masked_fill_",
    "torch.Tensor.mul_",
    "torch.Tensor.neg_",
    "torch.Tensor.nelement",
    "torch.Tensor.normal_",
    "torch.Tensor.numel",
    "torch.Tensor.pow_",
    "torch.Tensor.reciprocal_",
    "torch.Tensor.relu_",
    "torch.Tensor.round_",
    "torch.Tensor.scatter_",
    "torch.Tensor.scatter_add_",
    "torch.Tensor.sigmoid_",
    "torch.Tensor.sqrt_",
    "torch.Tensor.sub_",
    "torch.Tensor.tanh_",
    "torch.Tensor.uniform_",
    "torch.Tensor.zero_",
    "torch.add",
    "torch.addmm",
    "torch.baddbmm",
    "torch.bmm",
    "torch.cumprod",
    "torch.cumsum",
    "torch.diag",
    "torch.div",
    "torch.gather",
    "torch.index_select",
    "torch.linalg.matrix_norm",
    "torch.linalg.norm",
    "torch.linalg.vector_norm",
    "torch.matmul",
    "torch.mm",
    "torch.mul",
    "torch.norm",
    "torch.pow",
    "torch.sort",
    "torch.sub",
    "torch.topk",
]

A = rand(3, 4, seed=1)
IDX = np.array([[1, 0, 3], [2, 2, 0], [0, 1, 1]])


def pair(a=A, dtype=np.float32):
    return mg.tensor(a.astype(dtype)), torch.tensor(a.astype(dtype))


def same(mine, theirs, rtol=1e-6):
    assert mine.shape == tuple(theirs.shape), (mine.shape, theirs.shape)
    assert str(mine.dtype) == str(theirs.dtype).replace("torch.", ""), (mine.dtype, theirs.dtype)
    np.testing.assert_allclose(mine.array, theirs.numpy(), rtol=rtol, atol=1e-7)


# ---- in-place methods: same values as torch, same object, same storage ------------------------
# name: a call that works on both libraries, given the library module
INPLACE = {
    "exp_": lambda t, lib: t.exp_(),
    "log_": lambda t, lib: t.abs_().log_(),
    "sqrt_": lambda t, lib: t.abs_().sqrt_(),
    "abs_": lambda t, lib: t.abs_(),
    "neg_": lambda t, lib: t.neg_(),
    "relu_": lambda t, lib: t.relu_(),
    "sigmoid_": lambda t, lib: t.sigmoid_(),
    "tanh_": lambda t, lib: t.tanh_(),
    "floor_": lambda t, lib: t.floor_(),
    "ceil_": lambda t, lib: t.ceil_(),
    "round_": lambda t, lib: t.mul_(10).round_(),
    "reciprocal_": lambda t, lib: t.reciprocal_(),
    "pow_": lambda t, lib: t.pow_(2),
    "pow_tensor": lambda t, lib: t.abs_().pow_(lib.tensor([1.0, 2.0, 0.5, 3.0])),
    "mul_": lambda t, lib: t.mul_(lib.tensor([1.0, 2.0, 3.0, 4.0])),
    "add_alpha": lambda t, lib: t.add_(lib.ones(4), alpha=2.5),
    "sub_alpha": lambda t, lib: t.sub_(1.0, alpha=3),
    "div_": lambda t, lib: t.div_(lib.tensor([1.0, 2.0, -3.0, 4.0])),
    "div_floor": lambda t, lib: t.div_(0.3, rounding_mode="floor"),
    "div_trunc": lambda t, lib: t.div_(0.3, rounding_mode="trunc"),
    "clamp_": lambda t, lib: t.clamp_(-0.5, 0.5),
    "clamp_tensor_bound": lambda t, lib: t.clamp_(min=lib.tensor([0.0, -1.0, 0.5, 0.0])),
    "clamp_min_": lambda t, lib: t.clamp_min_(0.1),
    "clamp_max_": lambda t, lib: t.clamp_max_(0.1),
    "clip_": lambda t, lib: t.clip_(max=0.2),
    "fill_": lambda t, lib: t.fill_(2.5),
    "fill_0d_tensor": lambda t, lib: t.fill_(lib.tensor(1.5)),
    "zero_": lambda t, lib: t.zero_(),
    "copy_": lambda t, lib: t.copy_(lib.tensor([[1.0, 2.0, 3.0, 4.0]])),
    "copy_from_double": lambda t, lib: t.copy_(lib.ones(3, 4, dtype=lib.float64) / 3),
    "masked_fill_": lambda t, lib: t.masked_fill_(t > 0, -1.0),
    "masked_fill_broadcast": lambda t, lib: t.masked_fill_(
        lib.tensor([True, False, True, False]), 0.0
    ),
    "index_fill_": lambda t, lib: t.index_fill_(1, lib.tensor([0, 2]), 9.0),
    "scatter_": lambda t, lib: t.scatter_(
        1, lib.tensor(IDX[:, :1]), lib.tensor(A[:, :1].astype(np.float32))
    ),
    "scatter_value": lambda t, lib: t.scatter_(1, lib.tensor(IDX[:1]), 3.0),
    "scatter_add_": lambda t, lib: t.scatter_add_(1, lib.tensor(IDX), lib.ones(3, 3)),
}


@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_method_like_torch(name):
    fn = INPLACE[name]
    t, tt = pair()
    storage = t.array
    version = t._version
    result = fn(t, mg)
    fn(tt, torch)
    assert result is t and t.array is storage, "not in place"
    assert t._version > version  # saved-tensor checks see the change
    same(t, tt)


@pytest.mark.parametrize(
    "name, fn",
    [
        ("exp_", lambda t, lib: t.exp_()),
        ("sqrt_", lambda t, lib: t.sqrt_()),
        ("sigmoid_", lambda t, lib: t.sigmoid_()),
        ("mul_", lambda t, lib: t.mul_(1.5)),
        ("div_", lambda t, lib: t.div_(2)),
        ("pow_", lambda t, lib: t.pow_(0.5)),
        ("clamp_", lambda t, lib: t.clamp_(0.5)),
        (
            "masked_fill_",
            lambda t, lib: (
                t.masked_fill_(t > 1, 0.5) if lib is torch else t.masked_fill_(t > 1, 0.5)
            ),
        ),
    ],
)
def test_inplace_float_result_into_int_tensor_raises_like_torch(name, fn):
    a = np.array([1, 2, 3])
    t, tt = mg.tensor(a), torch.tensor(a)
    if name == "masked_fill_":  # torch casts the fill value instead
        fn(t, mg)
        fn(tt, torch)
        same(t, tt)
        return
    with pytest.raises(RuntimeError, match=rf"{re.escape(name)}.*can't be cast.*int64"):
        fn(t, mg)
    with pytest.raises(RuntimeError, match="can't be cast"):
        fn(tt, torch)
    assert t.tolist() == [1, 2, 3]


def test_integer_in_place_ops_like_torch():
    t, tt = mg.tensor([7, -7, 4]), torch.tensor([7, -7, 4])
    for fn in (
        lambda x: x.div_(2, rounding_mode="floor"),
        lambda x: x.add_(3, alpha=2),
        lambda x: x.pow_(2),
        lambda x: x.abs_(),
        lambda x: x.neg_(),
        lambda x: x.clamp_(-5, 5),
    ):
        fn(t)
        fn(tt)
        assert t.tolist() == tt.tolist() and t.dtype == np.int64


@pytest.mark.parametrize(
    "fn, pattern",
    [
        (lambda t: t.add_(mg.ones(2, 3, 4)), r"add_.*output with shape \(3, 4\).*\(2, 3, 4\)"),
        (lambda t: t.mul_(mg.ones(5)), r"mul_.*\(3, 4\).*\(5,\)"),
        (lambda t: t.copy_(mg.ones(3)), r"copy_.*\(3, 4\).*\(3,\)"),
        (lambda t: t.pow_(mg.ones(2, 3, 4)), r"pow_.*\(3, 4\).*\(2, 3, 4\)"),
        (lambda t: t.masked_fill_(mg.ones(2, 3, 4, dtype=mg.bool), 0.0), r"masked_fill_.*\(3, 4\)"),
        (lambda t: t.fill_(mg.ones(2)), r"fill_.*0-dimension"),
    ],
)
def test_inplace_result_must_keep_the_shape(fn, pattern):
    t = mg.zeros(3, 4)
    with pytest.raises(RuntimeError) as info:
        fn(t)
    assert re.search(pattern, str(info.value)), str(info.value)
    assert np.all(t.array == 0)


def index(t, values):
    """An index tensor of t's library."""
    return (torch.tensor if isinstance(t, torch.Tensor) else mg.tensor)(values)


INPLACE_ON_GRAD = [
    lambda t: t.exp_(),
    lambda t: t.relu_(),
    lambda t: t.clamp_(0.0),
    lambda t: t.masked_fill_(t > 0, 0.0),
    lambda t: t.scatter_(0, index(t, [[0]]), 1.0),
    lambda t: t.index_fill_(0, index(t, [0]), 1.0),
    lambda t: t.normal_(),
    lambda t: t.bernoulli_(),
    lambda t: t.pow_(2),
    lambda t: t.div_(2.0, rounding_mode="floor"),
]


@pytest.mark.parametrize("fn", INPLACE_ON_GRAD)
def test_inplace_on_a_leaf_that_requires_grad_raises_torchs_error(fn):
    x = mg.tensor([[1.0, -2.0]], requires_grad=True)
    with pytest.raises(
        RuntimeError,
        match="a leaf Variable that requires grad is being used in an in-place operation",
    ):
        fn(x)
    assert x.tolist() == [[1.0, -2.0]]
    with mg.no_grad():
        fn(x)  # allowed, as in torch
    assert x.is_leaf and x.requires_grad


@pytest.mark.parametrize("fn", INPLACE_ON_GRAD)
def test_inplace_on_a_non_leaf_is_recorded_as_torchs(fn):
    def run(lib):
        # normal_ and bernoulli_ draw; their values differ, their gradient (0) not
        lib.manual_seed(0)
        x = lib.tensor([[1.0, -2.0]], requires_grad=True)
        h = x * 2.0
        fn(h)
        (h * x).sum().backward()
        return h, x.grad

    (h, grad), (expected_h, expected_grad) = run(mg), run(torch)
    if fn not in (INPLACE_ON_GRAD[6], INPLACE_ON_GRAD[7]):  # the random fills
        np.testing.assert_allclose(h.array, expected_h.detach().numpy(), rtol=1e-6)
        np.testing.assert_allclose(grad.array, expected_grad.numpy(), rtol=1e-6)
    assert h.grad_fn is not None and h._version == 1


@pytest.mark.parametrize(
    "fn",
    [
        lambda t, w: t.add_(w),
        lambda t, w: t.mul_(w),
        lambda t, w: t.masked_fill_(t > 0, w.sum()),
        lambda t, w: t.scatter_add_(1, index(t, [[0, 1]]), w),
        lambda t, w: t.copy_(w),
    ],
)
def test_inplace_with_an_operand_that_requires_grad_brings_the_gradient_as_torch(fn):
    def run(lib):
        t, w = lib.ones(1, 2), lib.tensor([[2.0, 3.0]], requires_grad=True)
        fn(t, w)
        assert t.requires_grad and not t.is_leaf
        (t * lib.tensor([[5.0, 7.0]])).sum().backward()
        return t.detach().numpy() if lib is torch else t.array, w.grad

    (mine, grad), (theirs, expected) = run(mg), run(torch)
    np.testing.assert_allclose(mine, theirs)
    np.testing.assert_allclose(grad.array, expected.numpy())


def test_a_saved_tensor_changed_by_a_new_inplace_method_makes_backward_raise():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    h = x * 1.0
    y = h.exp()  # saves its output
    with mg.no_grad():
        y.sigmoid_()
    with pytest.raises(RuntimeError, match="in-place"):
        y.sum().backward()


def test_random_fills_follow_the_seed_and_the_distribution():
    mg.manual_seed(0)
    a = mg.zeros(5000).normal_(2.0, 0.5)
    b = mg.zeros(5000).uniform_(-1.0, 3.0)
    mg.manual_seed(0)
    assert mg.zeros(5000).normal_(2.0, 0.5).tolist() == a.tolist()
    assert abs(a.array.mean() - 2.0) < 0.03 and abs(a.array.std() - 0.5) < 0.02
    assert b.array.min() >= -1.0 and b.array.max() < 3.0 and abs(b.array.mean() - 1.0) < 0.06


# ---- out= ----------------------------------------------------------------------------------------
OUT_CASES = {
    "add": (lambda lib, a, out: lib.add(a, 1.0, alpha=2, out=out), (3, 4)),
    "sub": (lambda lib, a, out: lib.sub(a, a, out=out), (3, 4)),
    "mul": (lambda lib, a, out: lib.mul(a, a, out=out), (3, 4)),
    "div": (lambda lib, a, out: lib.div(a, 2.0, out=out), (3, 4)),
    "div_floor": (lambda lib, a, out: lib.div(a, 0.3, rounding_mode="floor", out=out), (3, 4)),
    "pow": (lambda lib, a, out: lib.pow(a, 2, out=out), (3, 4)),
    "matmul": (lambda lib, a, out: lib.matmul(a, a.T, out=out), (3, 3)),
    "mm": (lambda lib, a, out: lib.mm(a.T, a, out=out), (4, 4)),
    "bmm": (
        lambda lib, a, out: lib.bmm(a.reshape(1, 3, 4), a.T.reshape(1, 4, 3), out=out),
        (1, 3, 3),
    ),
    "addmm": (lambda lib, a, out: lib.addmm(a[:, :3], a, a.T, beta=2, out=out), (3, 3)),
    "baddbmm": (
        lambda lib, a, out: lib.baddbmm(
            a[:2, :2].reshape(1, 2, 2), a[:2].reshape(1, 2, 4), a[:2].T.reshape(1, 4, 2), out=out
        ),
        (1, 2, 2),
    ),  # fmt: skip
    "cumsum": (lambda lib, a, out: lib.cumsum(a, 1, out=out), (3, 4)),
    "cumprod": (lambda lib, a, out: lib.cumprod(a, 0, out=out), (3, 4)),
    "gather": (lambda lib, a, out: lib.gather(a, 1, lib.tensor(IDX), out=out), (3, 3)),
    "index_select": (
        lambda lib, a, out: lib.index_select(a, 0, lib.tensor([2, 0]), out=out),
        (2, 4),
    ),
    "diag": (lambda lib, a, out: lib.diag(a, 1, out=out), (3,)),
    "norm": (lambda lib, a, out: lib.norm(a, 2, 1, out=out), (3,)),
    "linalg.norm": (lambda lib, a, out: lib.linalg.norm(a, out=out), ()),
    "linalg.vector_norm": (lambda lib, a, out: lib.linalg.vector_norm(a, 1, 0, out=out), (4,)),
    "linalg.matrix_norm": (lambda lib, a, out: lib.linalg.matrix_norm(a, out=out), ()),
}


@pytest.mark.parametrize("name", list(OUT_CASES))
def test_out_writes_into_the_given_tensor_and_returns_it(name):
    fn, shape = OUT_CASES[name]
    a, ta = pair()
    out, tout = mg.zeros(shape), torch.zeros(shape)
    storage = out.array
    result = fn(mg, a, out)
    fn(torch, ta, tout)
    assert result is out and out.array is storage
    same(out, tout, rtol=1e-5)


def test_out_of_the_wrong_shape_is_resized_with_a_warning_unless_empty():
    a, ta = pair()
    out = mg.zeros(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mg.mul(a, 2.0, out=out)  # empty: resized silently, as torch
    assert out.shape == (3, 4)
    out = mg.zeros(5)
    with pytest.warns(UserWarning, match=r"mul.*\(5,\).*\(3, 4\)"):
        mg.mul(a, 2.0, out=out)
    same(out, torch.mul(ta, 2.0))


def test_out_checks_dtype_and_autograd_like_torch():
    a = mg.tensor([1.5, 2.5])
    with pytest.raises(
        RuntimeError, match="result type float32 can't be cast to the desired output type int64"
    ):
        mg.add(a, a, out=mg.zeros(2, dtype=mg.int64))
    with pytest.raises(RuntimeError, match="can't be cast"):
        torch.add(torch.tensor([1.5]), 1.0, out=torch.zeros(1, dtype=torch.long))
    out = mg.zeros(2, dtype=mg.float64)  # a wider float is fine
    assert mg.add(a, a, out=out).tolist() == [3.0, 5.0] and out.dtype == np.float64
    w = mg.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(
        RuntimeError, match=r"add\(\): functions with out=... arguments don't support automatic"
    ):
        mg.add(w, 1.0, out=mg.zeros(2))
    with mg.no_grad():
        assert mg.add(w, 1.0, out=mg.zeros(2)).tolist() == [2.0, 3.0]
    with pytest.raises(TypeError, match="out must be a Tensor"):
        mg.add(a, a, out=np.zeros(2))


@pytest.mark.parametrize("name", ["sort", "topk"])
def test_out_tuple_for_values_and_indices(name):
    a, ta = pair()
    call = {
        "sort": lambda lib, x, out: lib.sort(x, 1, out=out),
        "topk": lambda lib, x, out: lib.topk(x, 2, out=out),
    }
    values, indices = mg.zeros(0), mg.zeros(0, dtype=mg.int64)
    result = call[name](mg, a, (values, indices))
    theirs = call[name](torch, ta, (torch.zeros(0), torch.zeros(0, dtype=torch.long)))
    assert result.values is values and result.indices is indices
    same(values, theirs.values)
    same(indices, theirs.indices)


def test_out_for_logical_reductions_and_sampling():
    data = np.array([[True, False], [True, True]])
    out = mg.zeros(2, dtype=mg.bool)
    assert mg.all(mg.tensor(data), 1, out=out) is out and out.tolist() == [False, True]
    assert mg.any(mg.tensor(data), dim=0, out=out).tolist() == [True, True]
    draws = mg.zeros(3, dtype=mg.int64)
    assert mg.multinomial(mg.tensor([1.0, 1.0, 1.0]), 3, out=draws) is draws
    assert sorted(draws.tolist()) == [0, 1, 2]


# ---- Python protocols ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "value, spec",
    [(1.23456, ".4f"), (1.23456, ""), (3, "d"), (3, ">5"), (0.5, ".1%"), (2.0, "e")],
)
def test_format_of_a_0d_tensor_formats_its_number_like_torch(value, spec):
    t, tt = mg.tensor(value), torch.tensor(value)
    assert format(t, spec) == format(tt, spec)
    assert f"{t:{spec}}" == format(tt, spec)


def test_format_of_other_tensors():
    loss = mg.tensor([0.123456])
    assert f"{loss:.4f}" == "0.1235"  # one element: formatted as its number (torch raises here)
    t = mg.tensor([1.5, 2.0])
    assert f"{t}" == str(t) == "tensor([1.5000, 2.0000])" == f"{torch.tensor([1.5, 2.0])}"
    with pytest.raises(TypeError, match=r"unsupported format string.*\(2,\)"):
        f"{t:.4f}"
    with pytest.raises(TypeError):
        f"{torch.tensor([1.5, 2.0]):.4f}"


def test_len_and_iteration_like_torch():
    t, tt = pair()
    assert len(t) == len(tt) == 3
    rows = list(t)
    assert len(rows) == 3 and all(r.shape == (4,) for r in rows)
    np.testing.assert_allclose(rows[1].array, tt[1].numpy())
    assert [float(v) for v in mg.tensor([1.0, 2.0])] == [1.0, 2.0]
    with pytest.raises(TypeError, match="iteration over a 0-d tensor"):
        iter(mg.tensor(1.0))
    with pytest.raises(TypeError, match="iteration over a 0-d tensor"):
        iter(torch.tensor(1.0))
    with pytest.raises(TypeError, match="len"):
        len(mg.tensor(1.0))


def test_iteration_passes_gradients_back():
    x = mg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    total = sum(row.sum() * (i + 1) for i, row in enumerate(x))
    total.backward()
    assert x.grad.tolist() == [[1.0, 1.0], [2.0, 2.0]]


def test_bool_like_torch():
    assert bool(mg.tensor([2.0])) and not bool(mg.tensor(0)) and bool(mg.tensor([[True]]))
    with pytest.raises(
        RuntimeError, match="Boolean value of Tensor with more than one value is ambiguous"
    ):
        bool(mg.tensor([1.0, 2.0]))
    with pytest.raises(RuntimeError, match="Boolean value of Tensor with no values is ambiguous"):
        bool(mg.zeros(0))
    assert (1 if mg.tensor(3) > 2 else 0) == 1  # the `if loss < best:` pattern


def test_array_protocol():
    t = mg.tensor([1.5, 2.5])
    assert np.asarray(t) is t.array  # no copy unless asked
    copied = np.array(t)
    copied[0] = 9.0
    assert t.tolist() == [1.5, 2.5]
    as_int = np.asarray(t, dtype=np.int64)
    assert as_int.dtype == np.int64 and as_int.tolist() == [1, 2]
    with pytest.raises(ValueError, match="without a copy"):
        np.array(t, dtype=np.int64, copy=False)
    np.testing.assert_allclose(np.exp(np.asarray(t)), np.exp([1.5, 2.5]))
    assert np.asarray(mg.tensor(3.0)).shape == ()


def test_nelement_numel_dim():
    t, tt = pair()
    assert t.nelement() == tt.nelement() == t.numel() == 12
    assert t.dim() == tt.dim() == 2 and mg.numel(t) == torch.numel(tt)
