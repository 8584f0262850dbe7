"""Creation functions: mg.tensor, zeros/ones/full, *_like, ranges, eye, random, from_numpy.

Dtypes, shapes and values are held against PyTorch's for the same call.
"""

import numpy as np
import pytest
import torch

import minigrad as mg

from .helpers import assert_close

# The torch names whose behaviour this file checks against torch (read by tools/api_coverage.py).
TORCH_API = [
    "torch.Tensor.dtype",
    "torch.Tensor.grad",
    "torch.Tensor.grad_fn",
    "torch.Tensor.is_leaf",
    "torch.Tensor.requires_grad",
    "torch.Tensor.shape",
    "torch.Tensor.tolist",
    "torch.arange",
    "torch.empty",
    "torch.empty_like",
    "torch.eye",
    "torch.from_numpy",
    "torch.full",
    "torch.full_like",
    "torch.is_tensor",
    "torch.linspace",
    "torch.manual_seed",
    "torch.ones",
    "torch.ones_like",
    "torch.rand",
    "torch.rand_like",
    "torch.randint",
    "torch.randn",
    "torch.randn_like",
    "torch.tensor",
    "torch.zeros",
    "torch.zeros_like",
]


def same_dtype(t_mg, t_torch):
    """minigrad's NumPy dtype names the same type as torch's dtype (float32 ~ torch.float32)."""
    return str(t_mg.dtype) == str(t_torch.dtype).replace("torch.", "")


# ---- mg.tensor: dtype inference ----------------------------------------------------------
@pytest.mark.parametrize(
    "data",
    [
        [1.0, 2.0],
        [1, 2, 3],
        [True, False],
        [1, 2.5],  # mixed int and float: float
        [True, 1],  # mixed bool and int: int
        3.5,
        7,
        False,
        [[1.0, 2.0], [3.0, 4.0]],
        [[1], [2]],
    ],
    ids=repr,
)
def test_tensor_infers_dtype_from_python_data_like_torch(data):
    t, tt = mg.tensor(data), torch.tensor(data)
    assert same_dtype(t, tt), f"{t.dtype} vs {tt.dtype}"
    assert t.shape == tuple(tt.shape)
    assert t.tolist() == tt.tolist()


@pytest.mark.parametrize(
    "np_dtype", [np.float64, np.float32, np.int32, np.int64, np.bool_, np.float16]
)
def test_tensor_from_numpy_array_keeps_its_dtype(np_dtype):
    a = np.arange(6).reshape(2, 3).astype(np_dtype)
    t = mg.tensor(a)
    assert t.dtype == np_dtype
    assert same_dtype(t, torch.tensor(a))
    np.testing.assert_array_equal(t.array, a)


@pytest.mark.parametrize(
    "scalar", [np.float64(2.5), np.float32(2.5), np.int32(3)], ids=lambda s: type(s).__name__
)
def test_tensor_from_numpy_scalar_keeps_its_dtype(scalar):
    t, tt = mg.tensor(scalar), torch.tensor(scalar)
    assert t.shape == ()
    assert same_dtype(t, tt), f"{t.dtype} vs {tt.dtype}"


def test_tensor_class_constructor():
    t = mg.Tensor([1.0, 2.0])
    assert isinstance(t, mg.Tensor) and t.dtype == np.float32 and not t.requires_grad
    # the legacy constructor gives the default float dtype whatever the data, as torch.Tensor
    assert mg.Tensor([1, 2]).dtype == np.float32 and torch.Tensor([1, 2]).dtype == torch.float32
    assert mg.Tensor([1.0], dtype=mg.float64, requires_grad=True).requires_grad
    assert mg.is_tensor(t) and not mg.is_tensor(np.zeros(1))


def test_tensor_copies_its_data():
    a = np.array([1.0, 2.0])
    t = mg.tensor(a)
    a[0] = 100.0
    assert t.tolist() == [1.0, 2.0]


@pytest.mark.parametrize(
    "dtype, expected",
    [
        (mg.float64, np.float64),
        (mg.int64, np.int64),
        (mg.float32, np.float32),
        (mg.bool, np.bool_),
        ("float64", np.float64),
    ],
)
def test_tensor_explicit_dtype(dtype, expected):
    assert mg.tensor([1, 0, 2], dtype=dtype).dtype == expected


def test_tensor_requires_grad_flag():
    t = mg.tensor([1.0, 2.0], requires_grad=True)
    assert t.requires_grad and t.is_leaf and t.grad is None and t.grad_fn is None
    assert not mg.tensor([1.0]).requires_grad


def test_tensor_of_ints_cannot_require_grad():
    with pytest.raises(RuntimeError, match="floating point"):
        mg.tensor([1, 2], requires_grad=True)


def test_tensor_from_tensor_copies():
    a = mg.tensor([1.0, 2.0])
    b = mg.tensor(a)
    b.array[0] = 5.0
    assert a.tolist() == [1.0, 2.0]


# ---- constant fills -----------------------------------------------------------------------
@pytest.mark.parametrize("name", ["zeros", "ones", "empty"])
@pytest.mark.parametrize("size", [(2, 3), ((2, 3),), ([4],), (1, 1, 5), ((),), (0, 2)], ids=repr)
def test_fills_take_size_as_varargs_or_tuple(name, size):
    t, tt = getattr(mg, name)(*size), getattr(torch, name)(*size)
    assert t.shape == tuple(tt.shape)
    assert t.dtype == np.float32
    if name != "empty":  # torch.empty is uninitialised
        assert_close(t, tt)


@pytest.mark.parametrize("name", ["zeros", "ones"])
@pytest.mark.parametrize("dtype", [mg.float64, mg.int64, mg.bool])
def test_fills_with_dtype(name, dtype):
    t = getattr(mg, name)(2, 2, dtype=dtype)
    assert t.dtype == dtype
    np.testing.assert_array_equal(t.array, np.full((2, 2), 1 if name == "ones" else 0, dtype=dtype))


def test_fills_requires_grad():
    t = mg.zeros(2, requires_grad=True)
    assert t.requires_grad and t.is_leaf


def test_fills_reject_negative_size():
    with pytest.raises(RuntimeError, match="negative"):
        mg.zeros(2, -1)


@pytest.mark.parametrize("fill", [3, 3.0, True, -2.5], ids=repr)
@pytest.mark.parametrize("size", [(2, 3), (4,), ()], ids=repr)
def test_full_dtype_comes_from_fill_value(fill, size):
    t, tt = mg.full(size, fill), torch.full(size, fill)
    assert t.shape == tuple(tt.shape)
    assert same_dtype(t, tt), f"{t.dtype} vs {tt.dtype}"
    assert t.tolist() == tt.tolist()


def test_full_with_explicit_dtype():
    t = mg.full((2,), 3, dtype=mg.float64)
    assert t.dtype == np.float64 and t.tolist() == [3.0, 3.0]


@pytest.mark.parametrize(
    "name", ["zeros_like", "ones_like", "empty_like", "rand_like", "randn_like"]
)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_like_functions_keep_shape_and_dtype(name, dtype):
    src = mg.tensor(np.ones((3, 1, 2), dtype=dtype))
    t = getattr(mg, name)(src)
    assert t.shape == (3, 1, 2) and t.dtype == dtype
    if name in ("zeros_like", "ones_like", "empty_like"):
        assert_close(t, getattr(torch, name.replace("empty", "zeros"))(torch.tensor(src.array)))


def test_like_functions_keep_integer_dtype_and_accept_dtype():
    src = mg.tensor([1, 2, 3])
    assert mg.zeros_like(src).dtype == np.int64
    assert mg.ones_like(src, dtype=mg.float64).dtype == np.float64
    t, tt = mg.full_like(src, 2.7), torch.full_like(torch.tensor([1, 2, 3]), 2.7)
    assert same_dtype(t, tt) and t.tolist() == tt.tolist()  # cast to the integer dtype, as torch
    assert mg.full_like(mg.zeros(2), 7).tolist() == [7.0, 7.0]


def test_like_functions_requires_grad():
    t = mg.zeros_like(mg.ones(2), requires_grad=True)
    assert t.requires_grad


# ---- ranges -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "args",
    [
        (5,),
        (2, 7),
        (0, 10, 3),
        (5, 0, -1),
        (-3, 3, 2),
        (5.0,),
        (0, 1, 0.1),
        (1, 2.5, 0.5),
        (0.5, 3),
        (-1.0, 1.0, 0.25),
    ],
    ids=repr,
)
def test_arange_matches_torch_values_and_dtype(args):
    t, tt = mg.arange(*args), torch.arange(*args)
    assert same_dtype(t, tt), f"{t.dtype} vs {tt.dtype}"
    assert_close(t, tt, rtol=1e-6, atol=1e-6)


def test_arange_dtype_and_zero_step():
    assert mg.arange(4, dtype=mg.float64).dtype == np.float64
    with pytest.raises(RuntimeError, match="step"):
        mg.arange(0, 5, 0)


@pytest.mark.parametrize(
    "args", [(0, 1, 5), (-1, 1, 5), (2, -3, 7), (0, 1, 1), (3, 3, 4), (0, 1, 0)], ids=repr
)
def test_linspace_matches_torch(args):
    t, tt = mg.linspace(*args), torch.linspace(*args)
    assert t.dtype == np.float32
    assert_close(t, tt, rtol=1e-6, atol=1e-6)


def test_linspace_dtype():
    assert mg.linspace(0, 1, 3, dtype=mg.float64).dtype == np.float64


@pytest.mark.parametrize("args", [(3,), (1,), (2, 3), (4, 2), (0,)], ids=repr)
def test_eye_matches_torch(args):
    t, tt = mg.eye(*args), torch.eye(*args)
    assert t.dtype == np.float32
    assert_close(t, tt)


def test_eye_dtype():
    assert mg.eye(2, dtype=mg.int64).dtype == np.int64


# ---- random -----------------------------------------------------------------------------
@pytest.mark.parametrize("size", [(3, 4), ((3, 4),), (1,), ((),)], ids=repr)
def test_rand_shape_range_dtype(size):
    t = mg.rand(*size)
    assert t.shape == tuple(torch.rand(*size).shape)
    assert t.dtype == np.float32
    assert np.all((t.array >= 0) & (t.array < 1))


def test_rand_is_uniform_ish_and_randn_is_normal_ish():
    mg.manual_seed(0)
    u, n = mg.rand(20000), mg.randn(20000)
    assert abs(u.array.mean() - 0.5) < 0.02 and abs(u.array.var() - 1 / 12) < 0.01
    assert abs(n.array.mean()) < 0.03 and abs(n.array.std() - 1) < 0.03
    assert n.array.min() < -2 and n.array.max() > 2


@pytest.mark.parametrize("name", ["rand", "randn"])
def test_random_floats_dtype_and_requires_grad(name):
    t = getattr(mg, name)(2, 3, dtype=mg.float64, requires_grad=True)
    assert t.shape == (2, 3) and t.dtype == np.float64 and t.requires_grad and t.is_leaf


@pytest.mark.parametrize(
    "args, low, high, shape",
    [
        ((0, 10, (100,)), 0, 10, (100,)),
        ((5, (3, 4)), 0, 5, (3, 4)),
        ((-3, 3, (50,)), -3, 3, (50,)),
        ((1, 2, (4,)), 1, 2, (4,)),
    ],
    ids=repr,
)
def test_randint_range_shape_dtype(args, low, high, shape):
    mg.manual_seed(1)
    t = mg.randint(*args)
    assert t.shape == tuple(torch.randint(*args).shape) == shape
    assert t.dtype == np.int64
    assert t.array.min() >= low and t.array.max() < high
    if high - low > 1 and t.numel() >= 50:
        assert t.array.min() == low and t.array.max() == high - 1  # both ends are reached


def test_randint_rejects_empty_range():
    with pytest.raises(RuntimeError, match="low"):
        mg.randint(3, 3, (2,))


@pytest.mark.parametrize(
    "make",
    [
        lambda: mg.rand(5),
        lambda: mg.randn(2, 3),
        lambda: mg.randint(0, 100, (6,)),
        lambda: mg.rand_like(mg.zeros(4)),
        lambda: mg.randperm(7),
    ],
    ids=["rand", "randn", "randint", "rand_like", "randperm"],
)
def test_manual_seed_makes_random_draws_reproducible(make):
    mg.manual_seed(123)
    a, b = make(), make()
    mg.manual_seed(123)
    c, d = make(), make()
    np.testing.assert_array_equal(a.array, c.array)
    np.testing.assert_array_equal(b.array, d.array)
    assert not np.array_equal(a.array, b.array)  # the generator advances between draws
    mg.manual_seed(124)
    assert not np.array_equal(make().array, a.array)


def test_manual_seed_rejects_non_int():
    with pytest.raises(TypeError, match="seed"):
        mg.manual_seed(1.5)


# ---- from_numpy -----------------------------------------------------------------------
def test_from_numpy_shares_memory_both_ways():
    a = np.zeros((2, 3), dtype=np.float64)
    t = mg.from_numpy(a)
    assert t.dtype == np.float64 and t.shape == (2, 3)
    a[0, 1] = 5.0
    assert t.tolist()[0][1] == 5.0
    t.array[1, 2] = -1.0
    assert a[1, 2] == -1.0
    t += 1  # in place on the tensor shows in the array
    assert a[0, 0] == 1.0


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32, np.bool_])
def test_from_numpy_keeps_dtype(dtype):
    a = np.ones(3, dtype=dtype)
    assert mg.from_numpy(a).dtype == dtype == torch.from_numpy(a).numpy().dtype


def test_from_numpy_rejects_non_arrays():
    with pytest.raises(TypeError, match="ndarray"):
        mg.from_numpy([1, 2, 3])
