"""Dtypes and type promotion, following PyTorch rather than NumPy where they differ.

minigrad stores data as NumPy arrays, so its dtypes *are* NumPy's. Two rules differ
from NumPy and are applied here: Python floats and ints are "weak" (a float32 tensor
times 2.5 stays float32), and mixing an integer tensor with a float gives the float
side's dtype (int64 + 0.5 is float32, the default, not float64 as in NumPy).
"""

import builtins

import numpy as np

float16 = np.float16
float32 = np.float32
float64 = np.float64
int32 = np.int32
int64 = np.int64
bool = np.bool_  # noqa: A001  (the public name is mg.bool, as torch.bool)

default_float = np.dtype(np.float32)

_ALIASES = {"float": float32, "double": float64, "long": int64, "int": int32, "half": float16}


def to_dtype(dtype):
    """Normalise a dtype argument (np type, np.dtype, string, Python type) to np.dtype."""
    if dtype is None:
        return None
    if isinstance(dtype, str) and dtype in _ALIASES:
        dtype = _ALIASES[dtype]
    if dtype is float:
        return default_float
    if dtype is int:
        return np.dtype(np.int64)
    try:
        return np.dtype(dtype)
    except TypeError:
        raise TypeError(f"minigrad: {dtype!r} is not a dtype (use mg.float32, mg.float64, mg.int64, mg.bool)") from None


def is_floating(dtype):
    return np.dtype(dtype).kind == "f"


def infer_dtype(data):
    """The dtype mg.tensor(data) gets: arrays keep theirs, Python floats become float32."""
    if isinstance(data, (np.ndarray, np.generic)):
        return data.dtype
    kind = np.asarray(data).dtype.kind
    if kind == "f" or kind == "c":
        return default_float
    if kind in "iu":
        return np.dtype(np.int64)
    if kind == "b":
        return np.dtype(np.bool_)
    raise TypeError(f"mg.tensor: cannot make a tensor from {type(data).__name__} data")


def result_type(a, b, a_is_0d=False, b_is_0d=False):
    """Dtype of a binary op between two tensor dtypes (PyTorch's category rule).

    A 0-d tensor meeting a tensor with dimensions counts like a Python scalar: it only
    matters if its category (bool < integer < float) is higher, so a float32 tensor times
    a 0-d float64 tensor stays float32, as in PyTorch.
    """
    a, b = np.dtype(a), np.dtype(b)
    if a == b:
        return a
    if a_is_0d != b_is_0d and _category(a) == _category(b):
        return b if a_is_0d else a
    a_float, b_float = a.kind == "f", b.kind == "f"
    if a_float != b_float:  # a float wins over an integer or bool, whatever its size
        return a if a_float else b
    return np.promote_types(a, b)


def _category(dtype):
    return "biuf".index(dtype.kind) if dtype.kind in "biuf" else 4


def scalar_result_type(tensor_dtype, scalar):
    """Dtype of tensor (op) Python scalar: the scalar only matters if its kind is higher."""
    tensor_dtype = np.dtype(tensor_dtype)
    # `bool` in this module is np.bool_ (mg.bool); Python's bool is builtins.bool
    if isinstance(scalar, (builtins.bool, np.bool_)):
        return tensor_dtype
    if isinstance(scalar, (int, np.integer)):
        return np.dtype(np.int64) if tensor_dtype.kind == "b" else tensor_dtype
    if tensor_dtype.kind == "f":
        return tensor_dtype
    return default_float
