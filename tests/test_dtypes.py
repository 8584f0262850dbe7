"""Dtype names, the default dtype, finfo/iinfo and Tensor.type(), against PyTorch."""

import numpy as np
import pytest
import torch

import minigrad as mg
import minigrad.nn as nn

# The torch names whose behaviour this file checks against torch (read by tools/api_coverage.py).
TORCH_API = [
    "torch.Tensor.is_floating_point",
    "torch.Tensor.type",
    "torch.bool",
    "torch.double",
    "torch.finfo",
    "torch.float",
    "torch.float16",
    "torch.float32",
    "torch.float64",
    "torch.get_default_dtype",
    "torch.half",
    "torch.iinfo",
    "torch.int",
    "torch.int16",
    "torch.int32",
    "torch.int64",
    "torch.int8",
    "torch.is_floating_point",
    "torch.long",
    "torch.set_default_dtype",
    "torch.short",
    "torch.uint8",
]

NAMES = (
    "float32 float float64 double float16 half int64 long int32 int int16 short int8 uint8 bool"
).split()


@pytest.mark.parametrize("name", NAMES)
def test_dtype_names_and_aliases_are_torchs(name):
    mine, theirs = getattr(mg, name), getattr(torch, name)
    assert str(mine) == str(theirs).removeprefix("torch.")  # float -> float32, as torch.float
    assert torch.zeros(1, dtype=theirs).numpy().dtype == mine


@pytest.mark.parametrize("name", NAMES)
def test_tensor_dtype_is_the_dtype_object_itself(name):
    dtype = getattr(mg, name)
    t = mg.zeros(2, dtype=dtype)
    assert t.dtype == dtype and t.dtype is dtype
    assert {dtype: "found"}[t.dtype] == "found"  # dicts keyed by dtype work, as with torch


def test_bfloat16_exists_and_fails_clearly_where_used():
    assert repr(mg.bfloat16) == "minigrad.bfloat16"
    for call in (
        lambda: mg.zeros(2, dtype=mg.bfloat16),
        lambda: mg.tensor([1.0], dtype=mg.bfloat16),
        lambda: mg.ones(2).to(mg.bfloat16),
        lambda: mg.ones(2).to(torch.bfloat16),
        lambda: nn.Linear(2, 2).to(mg.bfloat16),
        lambda: mg.finfo(mg.bfloat16),
        lambda: mg.set_default_dtype(mg.bfloat16),
    ):
        with pytest.raises(TypeError, match="bfloat16 is not supported: NumPy has no bfloat16"):
            call()


@pytest.mark.parametrize(
    "name", ["float32", "float64", "int64", "int8", "uint8", "bool", "float16"]
)
def test_torch_dtypes_are_accepted(name):
    assert mg.zeros(2, dtype=getattr(torch, name)).dtype == getattr(mg, name)


@pytest.mark.parametrize("bad", ["float99", "cpu", object(), 3])
def test_a_bad_dtype_names_the_call(bad):
    with pytest.raises(TypeError, match=r"zeros: .* is not a dtype"):
        mg.zeros(2, dtype=bad)


# ---- is_floating_point ------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_is_floating_point_as_torch(name):
    t, tt = mg.zeros(2, dtype=getattr(mg, name)), torch.zeros(2, dtype=getattr(torch, name))
    assert t.is_floating_point() == tt.is_floating_point()
    assert mg.is_floating_point(t) == torch.is_floating_point(tt)


def test_is_floating_point_rejects_a_non_tensor():
    with pytest.raises(TypeError, match="is_floating_point: expected a Tensor, got float"):
        mg.is_floating_point(1.5)
    with pytest.raises(TypeError):
        torch.is_floating_point(1.5)


# ---- the default dtype ------------------------------------------------------------------
@pytest.fixture
def default_float64():
    mg.set_default_dtype(mg.float64)
    torch.set_default_dtype(torch.float64)
    yield
    mg.set_default_dtype(mg.float32)
    torch.set_default_dtype(torch.float32)


def test_default_dtype_is_float32():
    assert mg.get_default_dtype() is mg.float32
    assert str(mg.get_default_dtype()) == str(torch.get_default_dtype()).removeprefix("torch.")


MAKERS = {
    "tensor": lambda m: m.tensor([1.5, 2.0]),
    "tensor_of_ints": lambda m: m.tensor([1, 2]),
    "zeros": lambda m: m.zeros(2),
    "ones": lambda m: m.ones(2),
    "full_float": lambda m: m.full((2,), 1.5),
    "arange_float": lambda m: m.arange(0.0, 2.0),
    "arange_int": lambda m: m.arange(3),
    "linspace": lambda m: m.linspace(0, 1, 3),
    "eye": lambda m: m.eye(2),
    "rand": lambda m: m.rand(2),
    "randn": lambda m: m.randn(2),
    "int_times_float": lambda m: m.tensor([1, 2]) * 0.5,
    "int_div_int": lambda m: m.tensor([1, 2]) / 2,
    "linear_weight": lambda m: m.nn.Linear(2, 2).weight,
    "from_float32_array": lambda m: m.tensor(np.zeros(2, dtype=np.float32)),
}


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_set_default_dtype_changes_what_float_data_becomes_as_torch(name, default_float64):
    mine, theirs = MAKERS[name](mg), MAKERS[name](torch)
    assert str(mine.dtype) == str(theirs.dtype).removeprefix("torch.")


def test_repr_omits_the_default_dtype_as_torch(default_float64):
    assert repr(mg.tensor([1.5])) == repr(torch.tensor([1.5])) == "tensor([1.5000])"
    assert repr(mg.tensor([1.5], dtype=mg.float32)) == "tensor([1.5000], dtype=minigrad.float32)"
    assert repr(torch.tensor([1.5], dtype=torch.float32)) == "tensor([1.5000], dtype=torch.float32)"


@pytest.mark.parametrize("bad", [mg.int64, mg.bool, "long"])
def test_set_default_dtype_only_takes_floating_point_types(bad):
    with pytest.raises(
        TypeError, match="only floating-point types are supported as the default type"
    ):
        mg.set_default_dtype(bad)
    assert mg.get_default_dtype() is mg.float32


# ---- finfo and iinfo ----------------------------------------------------------------------
@pytest.mark.parametrize("name", ["float32", "float64", "float16", "float", "double", "half"])
def test_finfo_as_torch(name):
    mine, theirs = mg.finfo(getattr(mg, name)), torch.finfo(getattr(torch, name))
    for field in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        assert getattr(mine, field) == getattr(theirs, field), field
    assert repr(mine) == repr(theirs)


def test_finfo_without_argument_is_the_default_dtype(default_float64):
    assert mg.finfo().dtype == torch.finfo().dtype == "float64"


@pytest.mark.parametrize("name", ["int64", "int32", "int16", "int8", "uint8", "long", "int"])
def test_iinfo_as_torch(name):
    mine, theirs = mg.iinfo(getattr(mg, name)), torch.iinfo(getattr(torch, name))
    for field in ("bits", "max", "min", "dtype"):
        assert getattr(mine, field) == getattr(theirs, field), field
    assert repr(mine) == repr(theirs)


def test_finfo_and_iinfo_refuse_the_other_kind():
    with pytest.raises(
        TypeError, match="finfo: requires a floating point dtype, got int32; use mg.iinfo"
    ):
        mg.finfo(mg.int32)
    with pytest.raises(
        TypeError, match="iinfo: requires an integer dtype, got float32; use mg.finfo"
    ):
        mg.iinfo(mg.float32)
    with pytest.raises(TypeError):
        torch.finfo(torch.int32)


# ---- Tensor.type() ----------------------------------------------------------------------
@pytest.mark.parametrize(
    "name", ["float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8", "bool"]
)
def test_type_names_the_tensor_type_as_torch(name):
    # torch's own strings, so that a program's `x.type() == 'torch.FloatTensor'` holds
    t, tt = mg.zeros(1, dtype=getattr(mg, name)), torch.zeros(1, dtype=getattr(torch, name))
    assert t.type() == tt.type()


@pytest.mark.parametrize(
    "target",
    [
        "torch.DoubleTensor",
        "minigrad.DoubleTensor",
        "DoubleTensor",
        torch.DoubleTensor,
        mg.float64,
        "float64",
    ],
)
def test_type_with_a_dtype_or_a_type_name_converts(target):
    x = mg.tensor([1.5, 2.0], requires_grad=True)
    y = x.type(target)
    assert y.dtype == mg.float64 and y.type() == "torch.DoubleTensor"
    y.sum().backward()  # differentiable, as to(dtype)
    assert x.grad.dtype == mg.float32 and x.grad.tolist() == [1.0, 1.0]


def test_type_rejects_an_unknown_name():
    with pytest.raises(TypeError, match="type: 'torch.FancyTensor' is not a dtype"):
        mg.zeros(1).type("torch.FancyTensor")
