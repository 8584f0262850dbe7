"""Functions that make new tensors: from data, filled with a constant, or random.

Each takes torch's `device=` keyword: the CPU (`None`, `'cpu'`, `mg.device('cpu')`, a
`torch.device('cpu')`) or, where there is a GPU, `'cuda'`. Constants are made on the GPU
directly; random numbers are drawn there (`random.device_generator`); data given by the
caller is copied over. `dtype=None` means the default float dtype (`mg.get_default_dtype()`)
for float results.
"""

import numpy as np

from minigrad import dtypes
from minigrad import random as _random
from minigrad._args import size_args
from minigrad.array_module import array_module, on_device, to_device
from minigrad.autograd import grad_mode
from minigrad.cuda import runtime
from minigrad.devices import check_device
from minigrad.tensor import Tensor


def _new(array, dtype, device, requires_grad, op):
    """Wrap `array` (cast to `dtype` if given) as a leaf on the (checked) device."""
    if check_device(device, op).type == "cuda" and array_module(array) is np:
        array = to_device(array)
    dtype = dtypes.to_dtype(dtype, op)
    t = Tensor._make(array if dtype is None else array.astype(dtype, copy=False))
    t._inference = grad_mode.is_inference_mode_enabled()  # made inside mg.inference_mode()
    if requires_grad:
        t.requires_grad_(True)
    return t


def tensor(data, dtype=None, device=None, requires_grad=False):
    """A new tensor holding a copy of `data` (Python floats get the default float dtype,
    ints int64, bools bool; NumPy arrays keep their dtype), on `device`."""
    device = check_device(device, "tensor")
    if isinstance(data, Tensor):
        data = data.array
    dtype = dtypes.to_dtype(dtype, "tensor")
    if array_module(data) is not np:  # data on the GPU already: copied there
        t = Tensor._make(data.astype(dtype or data.dtype, copy=True))
    else:
        t = Tensor._from_data(data, dtype)
    if t.device != device:
        t = Tensor._make(to_device(t.array) if device.type == "cuda" else t.array.get())
    t._inference = grad_mode.is_inference_mode_enabled()
    if requires_grad:
        t.requires_grad_(True)
    return t


def as_tensor(data, dtype=None, device=None):
    """`data` as a tensor, without a copy where possible: a Tensor of the right dtype is
    returned as is and a NumPy array of the right dtype is shared, as `torch.as_tensor`.

    The ops call it on their inputs, so `mg.exp([1.0, 2.0])` works as in torch; other
    data (lists, numbers, arrays of strings) goes through `mg.tensor`'s checks."""
    device = None if device is None else check_device(device, "as_tensor")
    if dtype is not None:
        dtype = dtypes.to_dtype(dtype, "as_tensor")
    if isinstance(data, Tensor):
        return data.to(device=device, dtype=dtype)
    if device is not None and device.type == "cuda":
        return tensor(data, dtype=dtype, device=device)
    if (
        isinstance(data, np.ndarray)
        and (dtype is None or dtype == data.dtype)
        and data.dtype.kind in "biufc"
    ):
        return Tensor._make(data)
    return Tensor._from_data(data, dtype)


def from_numpy(array):
    """A tensor that shares memory with `array` (changes to one show in the other).

    This is also how a `Function` turns an array into a Tensor: the built-in ops'
    backward methods wrap their masks with it (`grad * mg.from_numpy(x.array > 0 ...)`),
    and so can yours. It copies nothing; it only checks that `array` is an ndarray of a
    dtype a Tensor can hold (a NumPy scalar becomes a 0-d tensor). So that the same
    Function body runs on both devices, a GPU array (CuPy's, the array of a CUDA tensor)
    is wrapped as it is too, as a CUDA tensor; `torch.from_numpy` takes NumPy arrays only.
    """
    if isinstance(array, np.generic):  # a NumPy scalar, as NumPy's reductions return
        array = np.asarray(array)
    elif not isinstance(array, np.ndarray) and not on_device(array):
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
    shape = size_args(size)
    if any(s < 0 for s in shape):
        raise RuntimeError(
            f"{op}: trying to create a tensor with negative dimension {min(shape)}: size {shape}"
        )
    return shape


def _filled(fill, size, dtype, device, requires_grad, op):
    dtype = dtypes.to_dtype(dtype, op) or dtypes.default_float
    xp = _module(device, op)  # made where it will live: no copy to the GPU
    return _new(xp.full(_shape(size, op), fill, dtype=dtype), None, device, requires_grad, op)


def _module(device, op):
    """The array module of `device`: NumPy for the CPU, CuPy for 'cuda'."""
    return runtime.require(op) if check_device(device, op).type == "cuda" else np


def zeros(*size, dtype=None, device=None, requires_grad=False):
    """A tensor of the given size filled with 0 (`mg.zeros(2, 3)` or `mg.zeros((2, 3))`)."""
    return _filled(0, size, dtype, device, requires_grad, "zeros")


def ones(*size, dtype=None, device=None, requires_grad=False):
    """A tensor of the given size filled with 1 (`mg.ones(2, 3)` or `mg.ones((2, 3))`)."""
    return _filled(1, size, dtype, device, requires_grad, "ones")


def empty(*size, dtype=None, device=None, requires_grad=False):
    """Like torch.empty; minigrad fills it with zeros so nothing is ever uninitialised."""
    return _filled(0, size, dtype, device, requires_grad, "empty")


def full(size, fill_value, dtype=None, device=None, requires_grad=False):
    """A tensor of shape `size` filled with `fill_value`; its dtype follows the value (as
    PyTorch)."""
    if dtype is None:  # the fill value decides, as in PyTorch
        dtype = dtypes.infer_dtype(fill_value)
    return _filled(
        fill_value, (size,) if isinstance(size, int) else size, dtype, device, requires_grad, "full"
    )


# The *_like functions take the shape (and, unless dtype= says otherwise, the dtype) of `t`.
def zeros_like(t, dtype=None, device=None, requires_grad=False):
    """Zeros with the shape (and, unless given, the dtype) of `t`."""
    return _filled(0, t.shape, dtype or t.dtype, device or t.device, requires_grad, "zeros_like")


def ones_like(t, dtype=None, device=None, requires_grad=False):
    """Ones with the shape (and, unless given, the dtype) of `t`."""
    return _filled(1, t.shape, dtype or t.dtype, device or t.device, requires_grad, "ones_like")


def empty_like(t, dtype=None, device=None, requires_grad=False):
    return _filled(0, t.shape, dtype or t.dtype, device or t.device, requires_grad, "empty_like")


def full_like(t, fill_value, dtype=None, device=None, requires_grad=False):
    """`fill_value` with the shape (and, unless given, the dtype) of `t`."""
    return _filled(
        fill_value, t.shape, dtype or t.dtype, device or t.device, requires_grad, "full_like"
    )


# The random functions draw from the global generator, or from `generator=` (a
# `mg.Generator`): an independent stream, which leaves the global one untouched.
def rand(*size, generator=None, dtype=None, device=None, requires_grad=False):
    """Uniform samples in [0, 1) from the global generator (or `generator`)."""
    shape = _shape(size, "rand")
    if _on_gpu(device, generator, "rand"):  # drawn on the GPU
        samples = _random.device_generator().random_sample(shape)
    else:
        samples = _random.numpy_generator(generator, "rand").random(shape, dtype=np.float64)
    return _new(samples, dtype or dtypes.default_float, device, requires_grad, "rand")


def _on_gpu(device, generator, op):
    """Whether to draw on the GPU: device='cuda' and no CPU `generator=` given."""
    return check_device(device, op).type == "cuda" and generator is None


def randn(*size, generator=None, dtype=None, device=None, requires_grad=False):
    """Standard normal samples from the global generator (or `generator`)."""
    shape = _shape(size, "randn")
    if _on_gpu(device, generator, "randn"):
        samples = _random.device_generator().standard_normal(shape)
    else:
        samples = _random.numpy_generator(generator, "randn").standard_normal(shape)
    return _new(samples, dtype or dtypes.default_float, device, requires_grad, "randn")


def rand_like(t, dtype=None, device=None, requires_grad=False, *, generator=None):
    """Uniform [0, 1) samples with the shape (and, unless given, the dtype) of `t`."""
    device = t.device if device is None else check_device(device, "rand_like")
    return rand(
        t.shape,
        generator=generator,
        dtype=dtype or t.dtype,
        device=device,
        requires_grad=requires_grad,
    )


def randn_like(t, dtype=None, device=None, requires_grad=False, *, generator=None):
    """Standard normal samples with the shape (and, unless given, the dtype) of `t`."""
    device = t.device if device is None else check_device(device, "randn_like")
    return randn(
        t.shape,
        generator=generator,
        dtype=dtype or t.dtype,
        device=device,
        requires_grad=requires_grad,
    )


def _integers(low, high, shape, generator, op):
    if high <= low:
        raise RuntimeError(f"{op}: expected low < high, got low={low}, high={high}")
    return _random.numpy_generator(generator, op).integers(low, high, size=shape)


def randint(
    low, high=None, size=None, *, generator=None, dtype=None, device=None, requires_grad=False
):
    """Integers uniform in [low, high): randint(high, size) or randint(low, high, size)."""
    if size is None:
        if high is None or not isinstance(high, (tuple, list)):
            raise TypeError(
                "randint: size is required, e.g. randint(10, (3,)) or randint(0, 10, (3,))"
            )
        low, high, size = 0, low, high
    elif high is None:
        low, high = 0, low
    shape = _shape((size,) if isinstance(size, int) else tuple(size), "randint")
    out = _integers(low, high, shape, generator, "randint")
    return _new(out, dtype or np.int64, device, requires_grad, "randint")


def randint_like(
    input, low=0, high=None, *, generator=None, dtype=None, device=None, requires_grad=False
):
    """Integers uniform in [low, high) with the shape (and, unless given, the dtype) of
    `input`: randint_like(t, high) or randint_like(t, low, high)."""
    if high is None:
        low, high = 0, low
    out = _integers(low, high, input.shape, generator, "randint_like")
    return _new(out, dtype or input.dtype, device or input.device, requires_grad, "randint_like")


def randperm(n, *, generator=None, dtype=None, device=None, requires_grad=False):
    """A random permutation of 0..n-1."""
    if n < 0:
        raise RuntimeError(f"randperm: n must be non-negative, got {n}")
    rng = _random.numpy_generator(generator, "randperm")
    return _new(rng.permutation(n), dtype or np.int64, device, requires_grad, "randperm")


def arange(start, end=None, step=1, dtype=None, device=None, requires_grad=False):
    """Values from start to end (exclusive) by step; int64 if all arguments are ints."""
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("arange: step must be nonzero")
    if dtype is None:
        ints = all(isinstance(v, (int, np.integer)) for v in (start, end, step))
        dtype = np.int64 if ints else dtypes.default_float
    # computed in float64 then cast, so float32 ranges match PyTorch's element count
    return _new(np.arange(start, end, step), dtype, device, requires_grad, "arange")


def linspace(start, end, steps, dtype=None, device=None, requires_grad=False):
    """`steps` evenly spaced values from `start` to `end`, both included."""
    if steps < 0:
        raise RuntimeError(f"linspace: number of steps must be non-negative, got {steps}")
    return _new(
        np.linspace(start, end, steps),
        dtype or dtypes.default_float,
        device,
        requires_grad,
        "linspace",
    )


def eye(n, m=None, dtype=None, device=None, requires_grad=False):
    """An n x m (m = n by default) matrix with ones on the diagonal and zeros elsewhere."""
    if n < 0 or (m is not None and m < 0):
        raise RuntimeError(f"eye: n and m must be non-negative, got n={n}, m={m}")
    dtype = dtypes.to_dtype(dtype, "eye") or dtypes.default_float
    return _new(np.eye(n, m, dtype=dtype), None, device, requires_grad, "eye")


# ---- torch-level functions: mg.exp(x) is x.exp() ---------------------------------------
# (two questions about a tensor, kept beside the functions that make one)
def is_tensor(obj):
    """True if obj is a minigrad Tensor."""
    return isinstance(obj, Tensor)


def numel(input):
    """The number of elements of the tensor input (a Python int); see Tensor.numel."""
    return input.numel()


# ---- more ways to make a tensor ---------------------------------------------------------------
def logspace(start, end, steps, base=10.0, dtype=None, device=None, requires_grad=False):
    """`steps` values from base**start to base**end, evenly spaced in the exponent."""
    if steps < 0:
        raise RuntimeError(f"logspace: number of steps must be non-negative, got {steps}")
    values = np.power(float(base), np.linspace(start, end, steps))
    return _new(values, dtype or dtypes.default_float, device, requires_grad, "logspace")


def scalar_tensor(s, dtype=None, device=None, requires_grad=False):
    """A 0-d tensor holding the number `s`, of the default float dtype unless `dtype` says
    otherwise (an int or a bool becomes a float too, unlike `mg.tensor`)."""
    return _new(
        np.asarray(s, dtype=np.float64),
        dtype or dtypes.default_float,
        device,
        requires_grad,
        "scalar_tensor",
    )


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=None):
    """`obj` (a Tensor, a NumPy array, a number or nested lists) as a tensor, sharing its
    memory where it can, as `torch.asarray`: a Tensor of the right dtype is returned
    itself, an array of the right dtype is shared; `copy=True` always copies, and
    `copy=False` raises where sharing is impossible. A Tensor's copy or conversion stays
    in the graph (`requires_grad` follows obj's unless given, as torch 2's)."""
    check_device(device, "asarray")
    dtype = dtypes.to_dtype(dtype, "asarray")
    shareable = isinstance(obj, (Tensor, np.ndarray)) and (dtype is None or dtype == obj.dtype)
    if copy is False and not shareable:
        raise ValueError(
            f"asarray: can't share the memory of a {type(obj).__name__} (copy=False) with dtype "
            f"{dtype}"
        )
    if isinstance(obj, Tensor):
        t = obj if dtype is None or dtype == obj.dtype else obj.to(dtype)
        t = t.clone() if copy and t is obj else t
        if requires_grad is False:
            t = t.detach()
    else:
        t = as_tensor(obj) if shareable and not copy else tensor(obj, dtype=dtype)
    if requires_grad and not t.requires_grad:
        t.requires_grad_(True)
    return t


def empty_strided(size, stride, *, dtype=None, device=None, requires_grad=False):
    """A tensor of shape `size` laid out in memory with the given element `stride`s (as
    `x.stride()` reports them), over a storage just big enough; zeros here (torch leaves it
    uninitialised)."""
    size, stride = tuple(int(s) for s in size), tuple(int(s) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError(
            f"empty_strided: mismatch in length of strides and shape ({len(stride)} != {len(size)})"
        )
    dtype = dtypes.to_dtype(dtype, "empty_strided") or dtypes.default_float
    length = 0 if 0 in size else 1 + sum((n - 1) * s for n, s in zip(size, stride))
    storage = np.zeros(length, dtype=dtype)
    itemsize = storage.itemsize
    array = np.ndarray(size, dtype, buffer=storage, strides=tuple(s * itemsize for s in stride))
    return _new(array, None, device, requires_grad, "empty_strided")


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-D tensor that shares the memory of a Python object with the buffer protocol
    (bytes, bytearray, array.array, mmap ...): `count` elements of `dtype` (all by
    default) from byte `offset`. A write to one shows in the other; a read-only buffer
    (bytes) gives a read-only tensor."""
    dtype = dtypes.to_dtype(dtype, "frombuffer")
    length = memoryview(buffer).nbytes - offset
    if count == -1 and length % dtype.itemsize:
        raise ValueError(
            f"buffer length ({length} bytes) after offset ({offset} bytes) must be a multiple of "
            f"element size ({dtype.itemsize})"
        )
    return _new(
        np.frombuffer(buffer, dtype=dtype, count=count, offset=offset),
        None,
        None,
        requires_grad,
        "frombuffer",
    )


def empty_permuted(size, physical_layout, *, dtype=None, device=None, requires_grad=False):
    """A tensor of shape `size` whose dims lie in memory in the order `physical_layout`
    (outermost first): (0, 2, 3, 1) lays an (N, C, H, W) tensor out channels-last. Made
    as a contiguous array of the permuted shape, seen back in `size`'s order; zeros here
    (torch leaves it uninitialised)."""
    size, layout = tuple(int(s) for s in size), tuple(int(d) for d in physical_layout)
    if sorted(layout) != list(range(len(size))):
        problem = (
            "Duplicate dim not allowed"
            if len(set(layout)) != len(layout)
            else "not a permutation of the dims"
        )
        raise RuntimeError(f"empty_permuted: {problem}: physical_layout {layout} for size {size}")
    dtype = dtypes.to_dtype(dtype, "empty_permuted") or dtypes.default_float
    storage = np.zeros(tuple(size[d] for d in layout), dtype=dtype)
    return _new(
        storage.transpose(np.argsort(layout)), None, device, requires_grad, "empty_permuted"
    )
