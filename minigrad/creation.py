"""Functions that make new tensors: from data, filled with a constant, or random."""

import numpy as np

from minigrad import dtypes
from minigrad import random as _random
from minigrad.tensor import Tensor, _size_args


def _new(array, dtype, requires_grad):
    t = Tensor._make(array if dtype is None else array.astype(dtypes.to_dtype(dtype), copy=False))
    if requires_grad:
        t.requires_grad_(True)
    return t


def tensor(data, dtype=None, requires_grad=False):
    """A new tensor holding a copy of `data` (Python floats become float32, ints int64,
    NumPy arrays keep their dtype)."""
    if isinstance(data, Tensor):
        data = data.data
    return Tensor(data, dtype=dtype, requires_grad=requires_grad)


def from_numpy(array):
    """A tensor that shares memory with `array` (changes to one show in the other)."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"from_numpy: expected an np.ndarray, got {type(array).__name__}")
    if array.dtype.kind not in "biufc":
        raise TypeError(
            f"from_numpy: can't convert np.ndarray of type numpy.{array.dtype.type.__name__}; "
            "the supported types are floating point, integer and bool"
        )
    return Tensor._make(array)


def _shape(size, op):
    """The shape from f(2, 3) or f((2, 3)), checked: a negative size is an error, as in
    PyTorch (NumPy's "negative dimensions are not allowed" would not name the op)."""
    shape = _size_args(size)
    if any(s < 0 for s in shape):
        raise RuntimeError(f"{op}: trying to create a tensor with negative dimension {min(shape)}: size {shape}")
    return shape


def _filled(fill, size, dtype, requires_grad, op):
    shape = _shape(size, op)
    return _new(np.full(shape, fill, dtype=dtypes.to_dtype(dtype) or dtypes.default_float), None, requires_grad)


def zeros(*size, dtype=None, requires_grad=False):
    return _filled(0, size, dtype, requires_grad, "zeros")


def ones(*size, dtype=None, requires_grad=False):
    return _filled(1, size, dtype, requires_grad, "ones")


def empty(*size, dtype=None, requires_grad=False):
    """Like torch.empty; minigrad fills it with zeros so nothing is ever uninitialised."""
    return _filled(0, size, dtype, requires_grad, "empty")


def full(size, fill_value, dtype=None, requires_grad=False):
    if dtype is None:  # the fill value decides, as in PyTorch
        dtype = dtypes.infer_dtype(fill_value)
    return _filled(fill_value, (size,) if isinstance(size, int) else size, dtype, requires_grad, "full")


def zeros_like(t, dtype=None, requires_grad=False):
    return _filled(0, t.shape, dtype or t.dtype, requires_grad, "zeros_like")


def ones_like(t, dtype=None, requires_grad=False):
    return _filled(1, t.shape, dtype or t.dtype, requires_grad, "ones_like")


def empty_like(t, dtype=None, requires_grad=False):
    return _filled(0, t.shape, dtype or t.dtype, requires_grad, "empty_like")


def full_like(t, fill_value, dtype=None, requires_grad=False):
    return _filled(fill_value, t.shape, dtype or t.dtype, requires_grad, "full_like")


def rand(*size, dtype=None, requires_grad=False):
    """Uniform samples in [0, 1) from the global generator."""
    shape = _shape(size, "rand")
    return _new(
        _random.generator().random(shape, dtype=np.float64).astype(dtypes.to_dtype(dtype) or dtypes.default_float),
        None,
        requires_grad,
    )


def randn(*size, dtype=None, requires_grad=False):
    """Standard normal samples from the global generator."""
    shape = _shape(size, "randn")
    return _new(
        _random.generator().standard_normal(shape).astype(dtypes.to_dtype(dtype) or dtypes.default_float),
        None,
        requires_grad,
    )


def rand_like(t, dtype=None, requires_grad=False):
    return rand(t.shape, dtype=dtype or t.dtype, requires_grad=requires_grad)


def randn_like(t, dtype=None, requires_grad=False):
    return randn(t.shape, dtype=dtype or t.dtype, requires_grad=requires_grad)


def randint(low, high=None, size=None, dtype=None):
    """Integers uniform in [low, high): randint(high, size) or randint(low, high, size)."""
    if size is None:
        if high is None or not isinstance(high, (tuple, list)):
            raise TypeError("randint: size is required, e.g. randint(10, (3,)) or randint(0, 10, (3,))")
        low, high, size = 0, low, high
    elif high is None:
        low, high = 0, low
    if high <= low:
        raise RuntimeError(f"randint: expected low < high, got low={low}, high={high}")
    shape = _shape((size,) if isinstance(size, int) else tuple(size), "randint")
    out = _random.generator().integers(low, high, size=shape)
    return Tensor._make(out.astype(dtypes.to_dtype(dtype) or np.int64))


def randperm(n, dtype=None):
    if n < 0:
        raise RuntimeError(f"randperm: n must be non-negative, got {n}")
    return Tensor._make(_random.generator().permutation(n).astype(dtypes.to_dtype(dtype) or np.int64))


def arange(start, end=None, step=1, dtype=None, requires_grad=False):
    """Values from start to end (exclusive) by step; int64 if all arguments are ints."""
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("arange: step must be nonzero")
    if dtype is None:
        ints = all(isinstance(v, (int, np.integer)) for v in (start, end, step))
        dtype = np.int64 if ints else dtypes.default_float
    # computed in float64 then cast, so float32 ranges match PyTorch's element count
    return _new(np.arange(start, end, step).astype(dtypes.to_dtype(dtype)), None, requires_grad)


def linspace(start, end, steps, dtype=None, requires_grad=False):
    if steps < 0:
        raise RuntimeError(f"linspace: number of steps must be non-negative, got {steps}")
    return _new(
        np.linspace(start, end, steps).astype(dtypes.to_dtype(dtype) or dtypes.default_float), None, requires_grad
    )


def eye(n, m=None, dtype=None, requires_grad=False):
    if n < 0 or (m is not None and m < 0):
        raise RuntimeError(f"eye: n and m must be non-negative, got n={n}, m={m}")
    return _new(np.eye(n, m, dtype=dtypes.to_dtype(dtype) or dtypes.default_float), None, requires_grad)
