"""PyTorch's legacy typed constructors: `mg.FloatTensor(3, 4)`, `mg.LongTensor([1, 2])`, ...

Before `torch.tensor(data, dtype=...)` existed, a tensor of a given dtype was made by
calling a class named after it, and old programs still do. Each name here behaves as
torch's does:

- called with sizes, `FloatTensor(3, 4)`, it makes a tensor of that shape (zeros here;
  PyTorch leaves it uninitialised); with a sequence, `LongTensor([1, 2])`, a copy of the
  data in its dtype (`LongTensor([1.7])` truncates to 1); with nothing, an empty one;
  with a Tensor of its dtype, a tensor sharing that storage (another dtype is refused);
- `isinstance(t, mg.FloatTensor)` asks whether `t` is a float32 tensor, which is what it
  means in torch: the check looks at the dtype, not at the class. The result of calling
  one is an ordinary `mg.Tensor` (as `type(torch.FloatTensor(2))` is `torch.Tensor`).

The same types are what `Tensor.type()` names ('torch.FloatTensor') and accepts
(`t.type(mg.DoubleTensor)`).
"""

from minigrad import dtypes
from minigrad.tensor import Tensor


class TensorType(type):
    """The metaclass of the typed constructors: calling one makes a `Tensor` of its
    `dtype`; isinstance looks at a tensor's dtype."""

    def __call__(cls, *args, device=None):
        if len(args) == 1 and isinstance(args[0], Tensor) and args[0].dtype != cls.dtype:
            raise TypeError(
                f"{cls.__name__}: expected a tensor of dtype {cls.dtype}, got one of dtype "
                f"{args[0].dtype} (convert it with .to(mg.{cls.dtype}) or .type(mg.{cls.__name__}))"
            )
        return Tensor(*args, dtype=cls.dtype, device=device)

    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj.dtype == cls.dtype

    def __repr__(cls):
        return f"<class 'minigrad.{cls.__name__}'>"


class FloatTensor(metaclass=TensorType):
    """float32 tensors: `FloatTensor(3, 4)` (a (3, 4) tensor of zeros), `FloatTensor([1, 2])`
    (a float32 copy), and `isinstance(t, FloatTensor)` for a float32 `t`, as torch's."""

    dtype = dtypes.float32


class DoubleTensor(metaclass=TensorType):
    """float64 tensors: `DoubleTensor(*sizes)` or `DoubleTensor(data)`, as torch's."""

    dtype = dtypes.float64


class HalfTensor(metaclass=TensorType):
    """float16 tensors: `HalfTensor(*sizes)` or `HalfTensor(data)`, as torch's."""

    dtype = dtypes.float16


class LongTensor(metaclass=TensorType):
    """int64 tensors: `LongTensor([1, 2])` (floats are truncated), `LongTensor(*sizes)`, as
    torch's."""

    dtype = dtypes.int64


class IntTensor(metaclass=TensorType):
    """int32 tensors: `IntTensor(*sizes)` or `IntTensor(data)`, as torch's."""

    dtype = dtypes.int32


class ShortTensor(metaclass=TensorType):
    """int16 tensors: `ShortTensor(*sizes)` or `ShortTensor(data)`, as torch's."""

    dtype = dtypes.int16


class CharTensor(metaclass=TensorType):
    """int8 tensors: `CharTensor(*sizes)` or `CharTensor(data)`, as torch's."""

    dtype = dtypes.int8


class ByteTensor(metaclass=TensorType):
    """uint8 tensors: `ByteTensor(*sizes)` or `ByteTensor(data)`, as torch's."""

    dtype = dtypes.uint8


class BoolTensor(metaclass=TensorType):
    """bool tensors: `BoolTensor([1, 0])` is `[True, False]`; `BoolTensor(*sizes)`, as torch's."""

    dtype = dtypes.bool
