"""Dtypes and type promotion, following PyTorch rather than NumPy where they differ.

minigrad stores data as NumPy arrays, so its dtypes *are* NumPy's: `mg.float32` is
`np.dtype('float32')`, the very object a float32 tensor's `.dtype` returns, so
`t.dtype == mg.float32`, `t.dtype is mg.float32` and `{mg.float32: ...}[t.dtype]` all
work as with torch. They print as NumPy prints them (`float32`, not `torch.float32`).
PyTorch's names and aliases are all here (`mg.float`, `mg.double`, `mg.long`, ...).
NumPy has no bfloat16, so `mg.bfloat16` exists only to fail with a clear message.

Two promotion rules differ from NumPy and are applied here: Python floats and ints are
"weak" (a float32 tensor times 2.5 stays float32), and mixing an integer tensor with a
float gives the float side's dtype (int64 + 0.5 is float32, the default, not float64 as
in NumPy). The default float dtype can be changed with `set_default_dtype`.
"""

import builtins

import numpy as np

float16 = half = np.dtype(np.float16)
"""16-bit float (`torch.float16`, alias `mg.half`); NumPy computes in it, but slowly on most
CPUs."""
float32 = float = np.dtype(np.float32)  # noqa: A001  (mg.float, as torch.float)
"""32-bit float (`torch.float32`, alias `mg.float`): the default dtype of floating-point tensors."""
float64 = double = np.dtype(np.float64)
"""64-bit float (`torch.float64`, alias `mg.double`): what gradient checks use."""
int8 = np.dtype(np.int8)
"""8-bit signed integer (`torch.int8`)."""
int16 = short = np.dtype(np.int16)
"""16-bit signed integer (`torch.int16`, alias `mg.short`)."""
int32 = int = np.dtype(np.int32)  # noqa: A001  (mg.int, as torch.int)
"""32-bit signed integer (`torch.int32`, alias `mg.int`)."""
int64 = long = np.dtype(np.int64)
"""64-bit signed integer (`torch.int64`, alias `mg.long`): the dtype of indices and class
targets."""
uint8 = np.dtype(np.uint8)
"""8-bit unsigned integer (`torch.uint8`), e.g. image pixels."""
bool = np.dtype(np.bool_)  # noqa: A001  (the public name is mg.bool, as torch.bool)
"""Booleans (`torch.bool`): comparisons and masks."""


class _UnsupportedDtype:
    """A PyTorch dtype that NumPy cannot store: it exists so that the name resolves and
    using it fails with a message that names it, rather than an AttributeError."""

    def __init__(self, name, advice):
        self.name, self.advice = name, advice

    def __repr__(self):
        return f"minigrad.{self.name}"

    def error(self, op):
        return TypeError(
            f"{op}: {self!r} is not supported: NumPy has no {self.name} type; {self.advice}"
        )


bfloat16 = _UnsupportedDtype("bfloat16", "use mg.float32, or mg.float16 to save memory")

default_float = float32  # changed by set_default_dtype

_ALIASES = {
    "float": float32,
    "double": float64,
    "half": float16,
    "long": int64,
    "int": int32,
    "short": int16,
    "char": int8,
    "byte": uint8,
}

# what Tensor.type() calls each dtype, as torch's legacy tensor types (torch.FloatTensor)
_TENSOR_TYPE_NAMES = {
    float32: "FloatTensor",
    float64: "DoubleTensor",
    float16: "HalfTensor",
    int64: "LongTensor",
    int32: "IntTensor",
    int16: "ShortTensor",
    int8: "CharTensor",
    uint8: "ByteTensor",
    bool: "BoolTensor",
}


def to_dtype(dtype, op="minigrad"):
    """Normalise a dtype argument to an np.dtype (None stays None).

    Accepted: minigrad/NumPy dtypes and types, names ("float32", "float", "long"),
    Python's float/int/bool, and torch dtypes (torch.float32), so code that passes
    them runs unchanged.
    """
    if dtype is None:
        return None
    if isinstance(dtype, _UnsupportedDtype):
        raise dtype.error(op)
    if dtype is builtins.float:
        return default_float
    if dtype is builtins.int:
        return int64
    if dtype is builtins.bool:
        return bool
    if type(dtype).__module__ == "torch":  # a torch.dtype prints as "torch.float32"
        dtype = str(dtype).removeprefix("torch.")
        if dtype == "bfloat16":
            raise bfloat16.error(op)
    if isinstance(dtype, str):
        dtype = _ALIASES.get(dtype, dtype)
    try:
        return np.dtype(dtype)
    except TypeError:
        raise TypeError(
            f"{op}: {dtype!r} is not a dtype (use mg.float32, mg.float64, mg.int64, mg.bool, ...)"
        ) from None


def is_floating(dtype):
    return np.dtype(dtype).kind == "f"


def is_floating_point(input):
    """True if tensor `input` has a floating point dtype (as `torch.is_floating_point`)."""
    if not hasattr(input, "dtype") or isinstance(input, (np.dtype, builtins.type)):
        raise TypeError(
            f"is_floating_point: expected a Tensor, got {builtins.type(input).__name__}"
        )
    return np.dtype(input.dtype).kind == "f"


def get_default_dtype():
    """The dtype float data and float creation functions get (float32 unless changed)."""
    return default_float


def set_default_dtype(d):
    """Make `d` (a floating point dtype) the default: `mg.tensor([1.5])`, `mg.zeros(2)`,
    new layers' parameters and int/float promotion use it from now on, as in PyTorch."""
    global default_float
    dtype = to_dtype(d, "set_default_dtype")
    if dtype.kind != "f":
        raise TypeError(
            "set_default_dtype: only floating-point types are supported as the default type, got "
            f"{dtype}"
        )
    default_float = dtype


def tensor_type_name(dtype):
    """'torch.FloatTensor' for float32, ...: torch's names, which programs compare
    `Tensor.type()` with."""
    return "torch." + _TENSOR_TYPE_NAMES[np.dtype(dtype)]


def dtype_from_type_name(name, op="type"):
    """The dtype of a legacy type name: 'torch.FloatTensor' or 'minigrad.FloatTensor'."""
    for dtype, type_name in _TENSOR_TYPE_NAMES.items():
        if name in (type_name, "torch." + type_name, "minigrad." + type_name):
            return dtype
    return to_dtype(name, op)


def infer_dtype(data):
    """The dtype mg.tensor(data) gets: arrays keep theirs, Python floats the default."""
    if isinstance(data, (np.ndarray, np.generic)):
        return data.dtype
    kind = np.asarray(data).dtype.kind
    if kind == "f" or kind == "c":
        return default_float
    if kind in "iu":
        return int64
    if kind == "b":
        return bool
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
    """bool < integer (signed or not) < float: the categories of PyTorch's promotion."""
    return "biif".index(dtype.kind.replace("u", "i")) if dtype.kind in "biuf" else 4


def scalar_result_type(tensor_dtype, scalar):
    """Dtype of tensor (op) Python scalar: the scalar only matters if its kind is higher."""
    tensor_dtype = np.dtype(tensor_dtype)
    # `bool` in this module is mg.bool; Python's bool is builtins.bool
    if isinstance(scalar, (builtins.bool, np.bool_)):
        return tensor_dtype
    if isinstance(scalar, (builtins.int, np.integer)):
        return int64 if tensor_dtype.kind == "b" else tensor_dtype
    if tensor_dtype.kind == "f":
        return tensor_dtype
    return default_float


# ---- limits of a dtype (torch.finfo / torch.iinfo) ---------------------------------------
class finfo:
    """Limits of a floating point dtype, as `torch.finfo` (default: the default dtype).

    bits, eps (smallest e with 1 + e != 1), max, min (= -max), tiny (= smallest_normal,
    the smallest positive normal number), resolution (10**-precision), dtype (a name).
    """

    def __init__(self, type=None):  # noqa: A002  (torch's argument name)
        dtype = default_float if type is None else to_dtype(type, "finfo")
        if dtype.kind != "f":
            raise TypeError(
                f"finfo: requires a floating point dtype, got {dtype}; use mg.iinfo for integer "
                "dtypes"
            )
        info = np.finfo(dtype)
        self.bits = info.bits
        self.eps = builtins.float(info.eps)
        self.max = builtins.float(info.max)
        self.min = builtins.float(info.min)
        self.tiny = self.smallest_normal = builtins.float(info.smallest_normal)
        self.resolution = 10.0**-info.precision  # exact 1e-06, not float32(1e-06)
        self.dtype = dtype.name

    def __repr__(self):
        return (
            f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
            f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, "
            f"dtype={self.dtype})"
        )


class iinfo:
    """Limits of an integer dtype, as `torch.iinfo`: bits, max, min, dtype (a name)."""

    def __init__(self, type):  # noqa: A002  (torch's argument name)
        dtype = to_dtype(type, "iinfo")
        if dtype.kind not in "iu":
            raise TypeError(
                f"iinfo: requires an integer dtype, got {dtype}; use mg.finfo for floating point "
                "dtypes"
            )
        info = np.iinfo(dtype)
        self.bits, self.dtype = info.bits, dtype.name
        self.max, self.min = builtins.int(info.max), builtins.int(info.min)

    def __repr__(self):
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"
