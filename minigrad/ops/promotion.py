"""Type promotion: the dtype an op on mixed operands computes in, as PyTorch decides it.

`x + 1` keeps float32, `int_tensor * 0.5` becomes float32, `float32 + float64` becomes
float64, and a 0-d tensor counts for less than a tensor with dimensions. The binary
operators and the elementwise binary ops (`mg.maximum`, `mg.where` ...) bring their two
operands to one dtype here before the Function runs, so every Function sees operands of
one dtype. The rules themselves are in `minigrad/dtypes.py`.

Products, convolutions, normalizations and attention do not promote, as in PyTorch:
`check_same_dtype` refuses their operands of two dtypes.
"""

import numpy as np

from minigrad import dtypes
from minigrad.creation import as_tensor, from_numpy
from minigrad.ops.broadcast import broadcastable, check_broadcast
from minigrad.ops.out import can_cast as result_castable
from minigrad.tensor import Tensor


def floating(t):
    """`t` itself if it is floating point; an integer or bool tensor becomes the default
    float dtype (float32), as PyTorch promotes them for float math (exp, softmax ...)."""
    return t if t.dtype.kind == "f" else t.to(dtypes.default_float)


def binary_operands(tensor, other, op, true_division=False, elementwise=True):
    """Return (tensor, other) as Tensors of one dtype, promoted as PyTorch would; for an
    elementwise op, check that their shapes broadcast.

    `other` may be a Tensor, a Python or NumPy number, an ndarray or a (nested) list.
    `true_division` makes integer results float (`/` always gives floats).
    """
    # Every binary operator on a tensor comes through here, so the two commonest cases
    # return early (a model's forward and backward make thousands of these calls, and
    # each check below costs a fraction of a microsecond on tiny tensors):
    dtype = tensor.array.dtype
    if (type(other) is float or type(other) is int) and dtype.kind == "f":
        # `x * 0.5` or `x + 1` on a float tensor: a Python number is "weak", so the
        # tensor's dtype wins (scalar_result_type's answer), nothing needs converting, and
        # a 0-d operand broadcasts with any shape. The array is made here, so from_numpy's
        # checks of it could not fail. (`type(...) is`, not isinstance: a bool is an int.)
        # Beside a GPU array the number is a NumPy scalar (see `_number`), written out here
        # because this line runs for every `x * 0.5` of a model.
        number = np.asarray(other, dtype=dtype)
        return tensor, Tensor._make(number if type(tensor.array) is np.ndarray else number[()])
    if (
        isinstance(other, Tensor)
        and other.array.dtype == dtype
        and (dtype.kind == "f" or not true_division)
    ):
        # two tensors of one dtype (`a + b` inside a model): no promotion, no conversion;
        # only the shapes are left to check
        if elementwise and tensor.array.shape != other.array.shape:
            _check_shapes(op, tensor.array.shape, other.array.shape)
        return tensor, other

    # The general case: mixed dtypes, scalars with integer or bool tensors, NumPy numbers,
    # arrays, lists.
    if isinstance(other, Tensor):
        dtype = dtypes.result_type(dtype, other.dtype, tensor.ndim == 0, other.ndim == 0)
    elif isinstance(other, (int, float, bool, np.number, np.bool_)):
        dtype = dtypes.scalar_result_type(dtype, other)
        other = _number(other, dtype, tensor.array)
    elif isinstance(other, np.ndarray):
        other = from_numpy(other)
        dtype = dtypes.result_type(dtype, other.dtype)
    elif isinstance(other, (list, tuple)):
        other = as_tensor(other)
        dtype = dtypes.result_type(dtype, other.dtype)
    else:
        return unsupported_operand(op, other)
    if true_division and dtype.kind != "f":
        dtype = dtypes.default_float
    if elementwise and tensor.shape != other.shape:
        _check_shapes(op, tensor.shape, other.shape)
    if tensor.dtype != dtype:
        tensor = tensor.to(dtype)
    if other.dtype != dtype:
        other = other.to(dtype)
    return tensor, other


def _number(value, dtype, beside):
    """The number `value` as a 0-d tensor of `dtype`, to stand beside the array `beside`:
    on the host a 0-d array; beside a GPU array a NumPy scalar, which CuPy hands to its
    kernel as an argument (a host array, even a 0-d one, it refuses to mix with its own)."""
    number = np.asarray(value, dtype=dtype)
    return Tensor._make(number if type(beside) is np.ndarray else number[()])


def _check_shapes(op, a, b):
    """Raise, naming the op and both shapes, unless shapes `a` and `b` broadcast."""
    if not broadcastable(a, b):
        check_broadcast(op, a, b)


def unsupported_operand(op, other):
    """Raise the TypeError of an operand that is not a tensor, a number or an array."""
    raise TypeError(f"{op}: unsupported operand of type {type(other).__name__}")


def check_same_dtype(op, **operands):
    """Raise unless the tensors `operands` (name=tensor; None is skipped) have one dtype,
    naming the op and each operand's dtype.

    A matrix product, a convolution, a normalization or attention does not promote, as
    in PyTorch ("mat1 and mat2 must have the same dtype"): a float64 batch through a
    float32 layer is a mistake to report, not a reason to run that layer, and every one
    after it, in float64, and to hand float32 weights float64 gradients.
    """
    dtype = None
    for t in operands.values():
        if t is None:
            continue
        if dtype is None:
            dtype = t.dtype
        elif t.dtype != dtype:
            given = {name: t for name, t in operands.items() if t is not None}
            names = ", ".join(list(given)[:-1]) + " and " + list(given)[-1]
            got = ", ".join(f"{name} {t.dtype}" for name, t in given.items())
            raise RuntimeError(
                f"{op}: expected {names} to have the same dtype, but got {got}; convert one with "
                ".to(dtype)"
            )


# ---- what a program asks about dtypes: torch.result_type, promote_types, can_cast ----------
def result_type(tensor1, tensor2):
    """The dtype an arithmetic op on `tensor1` and `tensor2` (tensors or Python numbers)
    computes in, by PyTorch's rules: a higher category (bool < integer < float) wins
    whatever its size; within a category, a tensor with dims outranks a 0-d tensor, which
    outranks a Python number, and otherwise the larger type wins."""
    if isinstance(tensor1, Tensor) and isinstance(tensor2, Tensor):
        return dtypes.result_type(
            tensor1.dtype, tensor2.dtype, tensor1.ndim == 0, tensor2.ndim == 0
        )
    if isinstance(tensor1, Tensor):
        return dtypes.scalar_result_type(tensor1.dtype, tensor2)
    if isinstance(tensor2, Tensor):
        return dtypes.scalar_result_type(tensor2.dtype, tensor1)
    # two numbers: each as a tensor would be made
    kinds = {_number_kind(tensor1), _number_kind(tensor2)}
    if "float" in kinds:
        return dtypes.default_float
    return dtypes.int64 if "int" in kinds else dtypes.bool


def _number_kind(value):
    if isinstance(value, (bool, np.bool_)):
        return "bool"
    return "int" if isinstance(value, (int, np.integer)) else "float"


def promote_types(type1, type2):
    """The smallest dtype both dtypes convert to without losing their kind: a float beats
    an integer (int64 and float16 give float16), an integer beats bool, and within a kind
    the larger wins (uint8 and int8 give int16)."""
    return dtypes.result_type(
        dtypes.to_dtype(type1, "promote_types"), dtypes.to_dtype(type2, "promote_types")
    )


def can_cast(from_, to):
    """Whether PyTorch's type promotion allows casting `from_` to `to`: not a float to an
    integer, nor a number to bool; a larger to a smaller type of the same kind is fine."""
    return result_castable(dtypes.to_dtype(from_, "can_cast"), dtypes.to_dtype(to, "can_cast"))


def float_operands(input, other, op, integers=True):
    """(input, other) as Tensors of one floating dtype, for the float math of two operands
    (atan2, hypot, logaddexp ...). Either may be a number; they are promoted as for any
    binary op, and then integers and bools become the default float dtype, as torch
    computes atan2(int, int) in float32. With `integers=False` (hypot, logaddexp,
    nextafter, igamma: torch has no integer version of them) two integer or bool
    operands raise torch's NotImplementedError instead.
    """
    if isinstance(input, Tensor):
        a, b = binary_operands(input, other, op)
    elif isinstance(other, Tensor):
        b, a = binary_operands(other, input, op)
    else:
        a, b = binary_operands(as_tensor(input), other, op)
    if a.dtype.kind != "f":
        if not integers:
            raise NotImplementedError(
                f"{op}: not implemented for {a.dtype} tensors; expected floating point"
            )
        a, b = a.to(dtypes.default_float), b.to(dtypes.default_float)
    return a, b
