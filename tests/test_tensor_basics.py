"""Tensor attributes and methods, printing, dtype promotion, comparisons and in-place ops."""

import re

import numpy as np
import pytest
import torch

import minigrad as mg

from .helpers import assert_close, rand

# The torch names whose behaviour this file checks against torch (read by tools/api_coverage.py).
TORCH_API = [
    "torch.Tensor.__add__",
    "torch.Tensor.__bool__",
    "torch.Tensor.__eq__",
    "torch.Tensor.__ge__",
    "torch.Tensor.__gt__",
    "torch.Tensor.__iadd__",
    "torch.Tensor.__imul__",
    "torch.Tensor.__isub__",
    "torch.Tensor.__iter__",
    "torch.Tensor.__itruediv__",
    "torch.Tensor.__le__",
    "torch.Tensor.__len__",
    "torch.Tensor.__lt__",
    "torch.Tensor.__mul__",
    "torch.Tensor.__ne__",
    "torch.Tensor.__radd__",
    "torch.Tensor.__repr__",
    "torch.Tensor.__rmul__",
    "torch.Tensor.__rsub__",
    "torch.Tensor.__rtruediv__",
    "torch.Tensor.__setitem__",
    "torch.Tensor.__sub__",
    "torch.Tensor.__truediv__",
    "torch.Tensor.add_",
    "torch.Tensor.backward",
    "torch.Tensor.bool",
    "torch.Tensor.clone",
    "torch.Tensor.detach",
    "torch.Tensor.device",
    "torch.Tensor.dim",
    "torch.Tensor.div_",
    "torch.Tensor.double",
    "torch.Tensor.dtype",
    "torch.Tensor.eq",
    "torch.Tensor.float",
    "torch.Tensor.ge",
    "torch.Tensor.grad",
    "torch.Tensor.grad_fn",
    "torch.Tensor.gt",
    "torch.Tensor.is_leaf",
    "torch.Tensor.item",
    "torch.Tensor.le",
    "torch.Tensor.long",
    "torch.Tensor.lt",
    "torch.Tensor.mul_",
    "torch.Tensor.ndim",
    "torch.Tensor.ne",
    "torch.Tensor.numel",
    "torch.Tensor.numpy",
    "torch.Tensor.requires_grad",
    "torch.Tensor.requires_grad_",
    "torch.Tensor.shape",
    "torch.Tensor.size",
    "torch.Tensor.sub_",
    "torch.Tensor.to",
    "torch.Tensor.tolist",
    "torch.Tensor.zero_",
    "torch.numel",
]


def same_dtype(t_mg, t_torch):
    return str(t_mg.dtype) == str(t_torch.dtype).replace("torch.", "")


# ---- attributes -------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(), (1,), (3,), (2, 1, 4), (0, 3)], ids=repr)
def test_shape_ndim_numel_size_like_torch(shape):
    a = np.zeros(shape, dtype=np.float32)
    t, tt = mg.tensor(a), torch.tensor(a)
    assert t.shape == tuple(tt.shape)
    assert t.ndim == tt.ndim and t.dim() == tt.dim()
    assert t.numel() == tt.numel() and mg.numel(t) == tt.numel()
    assert tuple(t.size()) == tuple(tt.size())
    for d in range(-len(shape), len(shape)):
        assert t.size(d) == tt.size(d)


def test_size_rejects_bad_dim():
    with pytest.raises(IndexError, match="out of range"):
        mg.zeros(2, 3).size(2)


def test_dtype_device_and_leaf_attributes():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    assert x.dtype == mg.float32 and str(x.device) == "cpu"
    assert x.requires_grad and x.is_leaf and x.grad is None and x.grad_fn is None
    y = x * 2
    assert y.requires_grad and not y.is_leaf and y.grad_fn is not None
    z = mg.tensor([1.0]) * 2  # no input requires grad: no graph
    assert not z.requires_grad and z.is_leaf and z.grad_fn is None


def test_grad_is_filled_by_backward_on_leaves_only():
    x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * x
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 4.0, 6.0]
    assert x.grad.dtype == np.float32 and not x.grad.requires_grad
    assert y.grad is None


# ---- item / tolist / numpy ---------------------------------------------------------
@pytest.mark.parametrize(
    "data, expected", [(3.5, 3.5), ([[7]], 7), ([True], True), (-2, -2)], ids=repr
)
def test_item_returns_a_python_number(data, expected):
    value, tvalue = mg.tensor(data).item(), torch.tensor(data).item()
    assert value == expected == tvalue and type(value) is type(tvalue)


@pytest.mark.parametrize("shape", [(2,), (0,), (1, 2)], ids=repr)
def test_item_raises_unless_one_element(shape):
    with pytest.raises(RuntimeError, match="item"):
        mg.zeros(*shape).item()


@pytest.mark.parametrize(
    "data", [[[1.5, 2.0], [3.0, 4.0]], [1, 2, 3], 2.5, [[True], [False]], []], ids=repr
)
def test_tolist_like_torch(data):
    out, expected = mg.tensor(data).tolist(), torch.tensor(data).tolist()
    assert out == expected
    assert type(out) is type(expected)


def test_numpy_shares_memory_and_refuses_tensors_that_require_grad():
    t = mg.tensor([1.0, 2.0])
    a = t.numpy()
    assert isinstance(a, np.ndarray) and a.dtype == np.float32
    a[0] = 9.0
    assert t.tolist() == [9.0, 2.0]
    x = mg.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="detach"):
        x.numpy()
    with pytest.raises(RuntimeError, match="detach"):
        (x * 2).numpy()
    assert x.detach().numpy().tolist() == [1.0]


# ---- detach / clone / requires_grad_ --------------------------------------------------
def test_detach_shares_data_and_cuts_the_graph():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    d = y.detach()
    assert not d.requires_grad and d.is_leaf and d.grad_fn is None
    assert np.shares_memory(d.array, y.array)
    (x * d).sum().backward()  # d is a constant: x.grad = d
    assert x.grad.tolist() == [3.0, 6.0]


def test_clone_copies_and_passes_the_gradient():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    c = x.clone()
    assert not c.is_leaf and c.requires_grad and c.grad_fn is not None
    assert not np.shares_memory(c.array, x.array)
    (c * mg.tensor([5.0, 7.0])).sum().backward()
    assert x.grad.tolist() == [5.0, 7.0]
    n = mg.tensor([1.0, 2.0]).clone()
    n.array[0] = 0.0
    assert not n.requires_grad


def test_requires_grad_():
    t = mg.tensor([1.0, 2.0])
    assert t.requires_grad_() is t and t.requires_grad
    t.requires_grad_(False)
    assert not t.requires_grad


@pytest.mark.parametrize("data", [[1, 2], [True, False]], ids=repr)
def test_requires_grad_raises_for_non_float_tensors(data):
    with pytest.raises(RuntimeError, match="floating point"):
        mg.tensor(data).requires_grad_()
    with pytest.raises(RuntimeError):
        torch.tensor(data).requires_grad_()  # torch agrees


def test_requires_grad_raises_for_non_leaves():
    y = mg.tensor([1.0], requires_grad=True) * 2
    with pytest.raises(RuntimeError, match="leaf"):
        y.requires_grad_(False)


# ---- conversions ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "method, dtype",
    [("float", np.float32), ("double", np.float64), ("long", np.int64), ("bool", np.bool_)],
)
@pytest.mark.parametrize("data", [[1.5, -2.7, 0.0], [3, 0, -1]], ids=repr)
def test_dtype_conversion_methods_like_torch(method, dtype, data):
    t, tt = getattr(mg.tensor(data), method)(), getattr(torch.tensor(data), method)()
    assert t.dtype == dtype and same_dtype(t, tt)
    assert t.tolist() == tt.tolist()


@pytest.mark.parametrize("dtype", [mg.float64, np.float64, "float64", mg.int64, mg.float32])
def test_to_dtype(dtype):
    t = mg.tensor([1.0, 2.0]).to(dtype)
    assert t.dtype == np.dtype(dtype)


def test_to_same_dtype_or_cpu_returns_self_and_cuda_raises():
    t = mg.tensor([1.0])
    assert t.to(mg.float32) is t and t.to("cpu") is t
    assert t.to(mg.tensor([1.0], dtype=mg.float64)).dtype == np.float64  # to(other) takes its dtype
    with pytest.raises(RuntimeError, match="cuda"):
        t.to("cuda")


@pytest.mark.parametrize("method", ["double", "float"])
def test_cast_gradient_arrives_in_the_input_dtype(method):
    x = mg.tensor(
        [1.0, 2.0], dtype=mg.float64 if method == "float" else mg.float32, requires_grad=True
    )
    y = getattr(x, method)()
    assert y.requires_grad and y.dtype != x.dtype
    (y * y).sum().backward()
    assert x.grad.dtype == x.dtype
    assert x.grad.tolist() == [2.0, 4.0]


# ---- printing ---------------------------------------------------------------------------
def _torch_repr_in_minigrad_terms(tt):
    """torch's repr with minigrad's module name: `minigrad.float64` (the node names,
    `grad_fn=<MulBackward0>`, are the same)."""
    return repr(tt).replace("torch.", "minigrad.")


@pytest.mark.parametrize(
    "make",
    [
        "tensor([1., 2.], requires_grad=True)",
        "tensor([1.5, 2.25])",
        "tensor([1, 2, 3])",
        "tensor([True, False])",
        "tensor([1., 2.], dtype={f64})",
        "tensor([1., 2.], dtype={f64}, requires_grad=True)",
        "tensor(3.5)",
        "tensor(-2)",
        "tensor([[1., 2.], [3., 4.]])",
        "tensor([0.1, 2.0])",
        "tensor([1e-5, 1.0])",
        "tensor([1.23456789])",
        "tensor([1., 2.], requires_grad=True) * 2",
        "tensor([1., 2.], requires_grad=True) + 1",
        "tensor([1., 2.], dtype={f64}, requires_grad=True).exp()",
    ],
)
def test_repr_like_torch(make):
    mine = eval(make.format(f64="mg.float64").replace("tensor(", "mg.tensor(", 1))
    theirs = eval(make.format(f64="torch.float64").replace("tensor(", "torch.tensor(", 1))
    assert repr(mine) == _torch_repr_in_minigrad_terms(theirs)


def test_repr_examples_from_the_spec():
    assert repr(mg.tensor([1.0, 2.0], requires_grad=True)) == "tensor([1., 2.], requires_grad=True)"
    assert (
        repr(mg.tensor([1.0, 2.0], requires_grad=True) * 2)
        == "tensor([2., 4.], grad_fn=<MulBackward0>)"
    )
    assert repr(mg.tensor([1.0], dtype=mg.float64)) == "tensor([1.], dtype=minigrad.float64)"
    assert str(mg.tensor([1, 2])) == "tensor([1, 2])"


# ---- dtype promotion (as PyTorch) --------------------------------------------------
SCALARS = [2, 2.5, True]
TENSOR_DTYPES = ["float32", "float64", "int64", "int32", "bool"]


@pytest.mark.parametrize("scalar", SCALARS, ids=repr)
@pytest.mark.parametrize("dtype", TENSOR_DTYPES)
@pytest.mark.parametrize("op", ["add", "sub", "mul", "truediv", "radd", "rsub", "rmul", "rtruediv"])
def test_tensor_scalar_promotion_like_torch(op, dtype, scalar):
    if (dtype == "bool" or scalar is True) and op in ("sub", "rsub"):
        pytest.skip("torch forbids subtracting bools")
    a = np.array([1, 2, 3]).astype(dtype)
    out = getattr(mg.tensor(a), f"__{op}__")(scalar)
    tout = getattr(torch.tensor(a), f"__{op}__")(scalar)
    assert same_dtype(out, tout), f"{dtype} {op} {scalar!r}: {out.dtype} vs {tout.dtype}"
    assert_close(out, tout, rtol=1e-6)


@pytest.mark.parametrize("a_dtype", TENSOR_DTYPES)
@pytest.mark.parametrize("b_dtype", TENSOR_DTYPES)
@pytest.mark.parametrize("op", ["add", "mul", "truediv"])
@pytest.mark.parametrize("b_0d", [False, True], ids=["3", "0d"])
def test_tensor_tensor_promotion_like_torch(op, a_dtype, b_dtype, b_0d):
    """A 0-d tensor only matters when its category is higher (float32 * 0-d float64 is float32)."""
    a = np.array([1, 2, 3]).astype(a_dtype)
    b = (np.array(2) if b_0d else np.array([3, 1, 2])).astype(b_dtype)
    out = getattr(mg.tensor(a), f"__{op}__")(mg.tensor(b))
    tout = getattr(torch.tensor(a), f"__{op}__")(torch.tensor(b))
    assert same_dtype(out, tout), f"{a_dtype} {op} {b_dtype}: {out.dtype} vs {tout.dtype}"
    assert_close(out, tout, rtol=1e-6)


def test_promotion_examples():
    f32 = mg.tensor([1.0, 2.0])
    assert (f32 * 2.5).dtype == np.float32  # a Python float does not widen a tensor
    assert (mg.tensor([1, 2]) + 0.5).dtype == np.float32  # int64 + float -> default float
    assert (mg.tensor([1, 2]) / mg.tensor([2, 4])).dtype == np.float32  # true division of ints
    assert (mg.tensor([3]) / 2).tolist() == [1.5]
    assert (f32 + mg.tensor([1.0], dtype=mg.float64)).dtype == np.float64
    assert (f32 + mg.tensor(1.0, dtype=mg.float64)).dtype == np.float32  # 0-d: like a scalar
    assert (mg.tensor(1.0, dtype=mg.float64) - f32).dtype == np.float32
    assert (mg.tensor([1, 2]) * 2).dtype == np.int64


def test_mixed_float_dtypes_send_each_gradient_in_its_own_dtype():
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    b = mg.tensor([3.0, 4.0], dtype=mg.float64, requires_grad=True)
    out = a * b
    assert out.dtype == np.float64
    out.sum().backward()
    ta = torch.tensor([1.0, 2.0], requires_grad=True)
    tb = torch.tensor([3.0, 4.0], dtype=torch.float64, requires_grad=True)
    (ta * tb).sum().backward()
    assert a.grad.dtype == np.float32 and b.grad.dtype == np.float64
    assert same_dtype(a.grad, ta.grad) and same_dtype(b.grad, tb.grad)
    assert_close(a.grad, ta.grad) and assert_close(b.grad, tb.grad)


def test_0d_float64_tensor_with_float32_tensor_gradients():
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    s = mg.tensor(3.0, dtype=mg.float64, requires_grad=True)
    ta = torch.tensor([1.0, 2.0], requires_grad=True)
    ts = torch.tensor(3.0, dtype=torch.float64, requires_grad=True)
    out, tout = a * s, ta * ts
    assert out.dtype == np.float32 and same_dtype(out, tout)
    out.sum().backward()
    tout.sum().backward()
    assert a.grad.dtype == np.float32 and s.grad.dtype == np.float64 and s.grad.shape == ()
    assert_close(a.grad, ta.grad) and assert_close(s.grad, ts.grad)


def test_float_tensor_with_int_tensor_gradient():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    (x * mg.tensor([3, 4])).sum().backward()
    assert x.grad.dtype == np.float32 and x.grad.tolist() == [3.0, 4.0]


def test_operand_of_unsupported_type_raises_type_error():
    with pytest.raises(TypeError):
        mg.tensor([1.0]) + "a"
    with pytest.raises(TypeError):
        mg.tensor([1.0]) * object()


def test_numpy_array_on_the_left_uses_the_tensor_operator():
    out = np.array([1.0, 2.0]) + mg.tensor([1.0, 1.0])
    assert isinstance(out, mg.Tensor) and out.tolist() == [2.0, 3.0]


# ---- comparisons --------------------------------------------------------------------
@pytest.mark.parametrize("op", ["eq", "ne", "lt", "le", "gt", "ge"])
@pytest.mark.parametrize("other", ["tensor", "broadcast", "scalar", "int_tensor"])
def test_comparisons_like_torch_and_without_grad(op, other):
    a = np.array([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]])
    x, tx = mg.tensor(a, requires_grad=True), torch.tensor(a)
    b = {
        "tensor": np.array([[1.0, 3.0, 2.0], [3.0, 1.0, 1.0]]),
        "broadcast": np.array([2.0, 2.0, 2.0]),
        "scalar": 2.0,
        "int_tensor": np.array([1, 2, 4]),
    }[other]
    mb = b if np.isscalar(b) else mg.tensor(b)
    tb = b if np.isscalar(b) else torch.tensor(b)
    out = getattr(x, f"__{op}__")(mb)
    tout = getattr(tx, f"__{op}__")(tb)
    assert out.dtype == np.bool_
    assert not out.requires_grad and out.grad_fn is None
    np.testing.assert_array_equal(out.array, tout.numpy())
    assert getattr(x, op)(mb).tolist() == tout.tolist()


def test_reflected_comparison_with_scalar_on_the_left():
    x = mg.tensor([1.0, 2.0, 3.0])
    assert (2.0 < x).tolist() == [False, False, True]
    assert (2 == x).tolist() == [False, True, False]


# ---- in-place operators -----------------------------------------------------------------
INPLACE = [
    ("iadd", "add_", lambda a, b: a + b),
    ("isub", "sub_", lambda a, b: a - b),
    ("imul", "mul_", lambda a, b: a * b),
    ("itruediv", "div_", lambda a, b: a / b),
]


@pytest.mark.parametrize("op, name, ref", INPLACE, ids=[i[1] for i in INPLACE])
@pytest.mark.parametrize("other", [2.0, "tensor", "broadcast"])
def test_inplace_on_tensor_without_grad(op, name, ref, other):
    a = np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32)
    b = {
        "tensor": np.array([[2.0, 4.0], [0.5, 1.0]], dtype=np.float32),
        "broadcast": np.array([2.0, 4.0]),
    }.get(other, other)
    t = mg.tensor(a)
    storage = t.array
    result = getattr(t, f"__{op}__")(mg.tensor(b) if isinstance(b, np.ndarray) else b)
    assert result is t and t.array is storage  # really in place
    assert t.dtype == np.float32
    np.testing.assert_allclose(t.array, ref(a, b).astype(np.float32), rtol=1e-6)
    t2 = mg.tensor(a)
    getattr(t2, name)(mg.tensor(b) if isinstance(b, np.ndarray) else b)
    np.testing.assert_allclose(t2.array, ref(a, b), rtol=1e-6)


def test_inplace_statements_keep_identity():
    t = mg.tensor([1.0, 2.0])
    before = t
    t += 1
    t *= 2
    t -= 1
    t /= 3
    assert t is before
    np.testing.assert_allclose(t.array, [1.0, 5.0 / 3.0], rtol=1e-6)


def test_inplace_on_int_tensor():
    t = mg.tensor([1, 2])
    t *= 2
    t += 1
    assert t.dtype == np.int64 and t.tolist() == [3, 5]
    with pytest.raises(RuntimeError, match="add_"):
        t += 0.5  # result float can't go into an int tensor, as PyTorch
    with pytest.raises(RuntimeError):
        torch.tensor([1, 2]).add_(0.5)


@pytest.mark.parametrize("op, name, ref", INPLACE, ids=[i[1] for i in INPLACE])
def test_inplace_on_a_leaf_that_requires_grad_raises_naming_the_op(op, name, ref):
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=re.escape(name) + ".*leaf Variable that requires grad"):
        getattr(x, f"__{op}__")(2.0)
    with pytest.raises(RuntimeError, match=re.escape(name)):
        getattr(x, name)(2.0)
    assert x.tolist() == [1.0, 2.0]  # nothing was written


@pytest.mark.parametrize("op, name, ref", INPLACE, ids=[i[1] for i in INPLACE])
def test_inplace_on_a_non_leaf_is_recorded_as_torchs(op, name, ref):
    x, t = mg.tensor([1.0, 2.0], requires_grad=True), torch.tensor([1.0, 2.0], requires_grad=True)
    h, g = x * 3.0, t * 3.0
    getattr(h, f"__{op}__")(x)
    getattr(g, f"__{op}__")(t)
    (h * h).sum().backward()
    (g * g).sum().backward()
    np.testing.assert_allclose(h.array, g.detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(x.grad.array, t.grad.numpy(), rtol=1e-6)


def test_inplace_under_no_grad_is_allowed_and_keeps_the_leaf():
    w = mg.tensor([1.0, 2.0], requires_grad=True)
    (w * w).sum().backward()
    with mg.no_grad():
        w -= 0.5 * w.grad
        w *= 2.0
    assert w.requires_grad and w.is_leaf and w.grad_fn is None
    np.testing.assert_allclose(w.array, [0.0, 0.0])
    # the updated parameter is still usable in a new graph
    (w + 1.0).sum().backward()
    np.testing.assert_allclose(w.grad.array, [3.0, 5.0])


def test_setitem_and_fill_check_like_inplace_ops():
    t = mg.zeros(3)
    t[1] = 5.0
    t[mg.tensor([True, False, False])] = 2.0
    assert t.tolist() == [2.0, 5.0, 0.0]
    x = mg.zeros(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="in-place"):
        x[0] = 1.0
    with pytest.raises(RuntimeError, match="in-place"):
        x.zero_()
    with mg.no_grad():
        x[0] = 1.0
    assert x.tolist() == [1.0, 0.0, 0.0]


def test_bool_of_tensor():
    assert bool(mg.tensor([1.0])) and not bool(mg.tensor(0))
    with pytest.raises(RuntimeError, match="ambiguous"):
        bool(mg.tensor([1.0, 2.0]))


def test_len_and_iteration():
    x = mg.tensor(rand(3, 2))
    assert len(x) == 3
    rows = list(x)
    assert len(rows) == 3 and rows[1].shape == (2,)
    np.testing.assert_array_equal(rows[2].array, x.array[2])
    with pytest.raises(TypeError):
        len(mg.tensor(1.0))
