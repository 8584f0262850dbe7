"""`binary_operands`' early returns (a float tensor with a Python number, two tensors of
one dtype) give what PyTorch's promotion gives, and what the general path gives."""

import numpy as np
import pytest
import torch

import minigrad as mg
from minigrad import dtypes
from minigrad.ops.promotion import binary_operands

from .helpers import assert_close

FLOAT_DTYPES = ["float16", "float32", "float64"]
PYTHON_NUMBERS = [0.999, -2.5, 0.0, 3, -1, 0, 2**12]
OPS = ["add", "sub", "mul", "truediv", "radd", "rsub", "rmul", "rtruediv"]


def torch_dtype(name):
    return getattr(torch, name)


@pytest.mark.parametrize("number", PYTHON_NUMBERS, ids=repr)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("shape", [(4,), ()], ids=["4", "0d"])
def test_float_tensor_with_a_python_number_keeps_the_tensors_dtype_as_torch(shape, dtype, number):
    x = mg.tensor(np.full(shape, 1.5, dtype=dtype))
    a, b = binary_operands(x, number, "mul")
    expected = torch.result_type(torch.ones(shape, dtype=torch_dtype(dtype)), number)
    assert a is x  # nothing converted
    assert str(b.dtype) == str(expected).removeprefix("torch.") == dtype
    assert b.shape == () and b.item() == np.asarray(number, dtype=dtype).item()
    # the general rule (scalar_result_type) agrees with the early return
    assert dtypes.scalar_result_type(x.dtype, number) == b.dtype


@pytest.mark.parametrize("number", [0.999, 3], ids=repr)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("op", OPS)
def test_float_tensor_with_a_python_number_gives_torchs_values_and_dtype(op, dtype, number):
    values = np.array([0.5, -1.25, 2.0], dtype=dtype)
    out = getattr(mg.tensor(values), f"__{op}__")(number)
    tout = getattr(torch.tensor(values), f"__{op}__")(number)
    assert str(out.dtype) == str(tout.dtype).removeprefix("torch.")
    assert_close(out, tout, rtol=1e-3 if dtype == "float16" else 1e-6)


def test_a_bool_is_not_taken_for_an_int_by_the_early_return():
    # True is an int to isinstance; PyTorch treats it as a bool (lowest category), and so
    # must the general path it is left to
    x = mg.tensor([1, 2], dtype=mg.int32)
    assert (x * True).dtype == mg.int32 == dtypes.scalar_result_type(mg.int32, True)
    assert str(torch.result_type(torch.tensor([1, 2], dtype=torch.int32), True)) == "torch.int32"
    b = mg.tensor([True, False])
    assert (b + 1).dtype == mg.int64 and (b + 0.5).dtype == mg.float32  # as torch
    assert (mg.tensor([1, 2]) * 0.5).dtype == mg.float32  # int tensor: not the early return


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "bool"])
@pytest.mark.parametrize("true_division", [False, True])
def test_two_tensors_of_one_dtype_as_torch(dtype, true_division):
    a_np, b_np = np.array([1, 2, 3]).astype(dtype), np.array([2, 1, 1]).astype(dtype)
    a, b = mg.tensor(a_np), mg.tensor(b_np)
    pa, pb = binary_operands(a, b, "div" if true_division else "add", true_division=true_division)
    ta, tb = torch.tensor(a_np), torch.tensor(b_np)
    expected = (ta / tb).dtype if true_division else torch.result_type(ta, tb)
    assert str(pa.dtype) == str(pb.dtype) == str(expected).removeprefix("torch.")
    if pa.dtype == a.dtype:
        assert pa is a and pb is b  # the early return converts nothing


def test_two_tensors_of_one_dtype_still_check_broadcasting_and_name_the_op():
    with pytest.raises(RuntimeError, match=r"add: .*\(3\).*\(4\)"):
        mg.ones(3) + mg.ones(4)
    with pytest.raises(RuntimeError, match=r"mul: "):
        mg.ones(2, 3) * mg.ones(2)
    assert (mg.ones(2, 3) * mg.ones(3)).shape == (2, 3)  # shapes that broadcast pass
    assert (mg.ones(2, 1) - mg.ones(1, 4)).shape == (2, 4)
    # matmul asks for no elementwise check: (2, 3) and (3, 4) do not broadcast, but multiply
    assert mg.matmul(mg.ones(2, 3), mg.ones(3, 4)).shape == (2, 4)


def test_a_parameter_and_a_tensor_of_one_dtype_take_the_early_return_with_gradients():
    w = mg.nn.Parameter(mg.tensor([1.0, 2.0]))
    x = mg.tensor([3.0, 4.0])
    a, b = binary_operands(w, x, "mul")
    assert a is w and b is x
    (w * x * 2.0 + 1).sum().backward()
    assert w.grad.tolist() == [6.0, 8.0] and w.grad.dtype == mg.float32
