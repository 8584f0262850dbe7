"""Tensor's conversions: to Python numbers, lists and NumPy arrays (and the protocols
`len`, `iter`, `float`, `bool`, ... that use them), to another dtype or device (`to`,
`float()`, `cuda()`, ...), and new tensors like this one (`new_zeros`, `new_tensor`).

`Tensor` inherits them (tensor.py).
"""

import warnings

import numpy as np

from minigrad import devices as _devices
from minigrad import dtypes
from minigrad import layouts as _layout
from minigrad._args import size_args
from minigrad.array_module import array_module
from minigrad.array_module import to_device as _to_device
from minigrad.array_module import to_host as _to_host
from minigrad.cuda import runtime as _runtime
from minigrad.tensor_runtime import _layout_order, _suggested_format

# Bound by tensor.py once they exist: the Tensor class, and the autograd and ops packages
# that import it (the one break in the import circle is at the bottom of tensor.py).
Tensor = autograd = ops = None


class ConversionMethods:
    """The mixin Tensor inherits these methods from (see the module docstring)."""

    __slots__ = ()

    # ---- Python's protocols: len, iteration, numbers, NumPy ------------------------------
    def __len__(self):
        if self.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(len(self)))

    def __reversed__(self):
        """reversed(t): the tensor flipped along dim 0 (a 0-d tensor is itself), as torch's."""
        return self if self.ndim == 0 else self.flip(0)

    def __contains__(self, element):
        """`element in t`: whether any element equals `element` (a number or a tensor)."""
        if not isinstance(element, (Tensor, int, float, bool, np.number, np.bool_)):
            raise RuntimeError(
                "Tensor.__contains__ only supports Tensor or scalar, but you passed in a "
                f"{type(element)}."
            )
        return bool((self == element).array.any())  # one number back from the GPU, as torch

    def item(self):
        """The value of a one-element tensor as a Python number (raises for more elements);
        from a CUDA tensor this copies the number to the host, and waits for the GPU."""
        if self.array.size != 1:
            raise RuntimeError(
                f"item: a Tensor with {self.array.size} elements cannot be converted to a Python "
                "number"
            )
        return self.array.reshape(()).item()

    def tolist(self):
        """The data as nested Python lists (a number for a 0-d tensor), copied to the host."""
        return self.array.tolist()

    def numpy(self, *, force=False):
        """The data as a NumPy array (shares memory, like torch's .numpy()). A CUDA tensor
        raises, as in torch: its data is in GPU memory (`.cpu().numpy()` copies it over);
        `force=True` copies it for you (and detaches), as torch's `numpy(force=True)`."""
        if force:
            return _to_host(self.array)
        if self.requires_grad:
            raise RuntimeError(
                "numpy: can't call numpy() on a Tensor that requires grad; use "
                "tensor.detach().numpy()"
            )
        if not isinstance(self.array, np.ndarray) and self.is_cuda:
            raise TypeError(
                "can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the "
                "tensor to host memory first."
            )
        return self.array

    def __array__(self, dtype=None, copy=None):
        """NumPy's hook for np.asarray(t) / np.array(t): the data itself, unless a copy
        or another dtype is asked for (copy=False with a new dtype cannot be honoured).
        A CUDA tensor raises, as `numpy()` does."""
        if not isinstance(self.array, np.ndarray) and self.is_cuda:
            self.numpy()  # raises torch's error
        if dtype is None or np.dtype(dtype) == self.dtype:
            return self.array.copy() if copy else self.array
        if copy is False:
            raise ValueError(
                f"__array__: can't convert a {self.dtype} tensor to {np.dtype(dtype)} without a "
                "copy"
            )
        return self.array.astype(dtype)

    def __format__(self, format_spec):
        """f"{t}" prints the tensor; f"{loss:.4f}" formats the number of a one-element
        tensor (PyTorch allows a spec only for 0-d tensors; one element is accepted here)."""
        if self.ndim == 0 or (format_spec and self.array.size == 1):
            return format(self.item(), format_spec)
        if not format_spec:
            return str(self)
        raise TypeError(
            f"unsupported format string {format_spec!r} passed to Tensor.__format__: only a tensor "
            f"with one element can be formatted as a number, this one has shape {self.shape}"
        )

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __index__(self):
        if self.dtype.kind not in "iu":
            raise TypeError(f"only integer tensors can be used as an index, got {self.dtype}")
        return int(self.item())

    def __bool__(self):
        if self.array.size != 1:
            what = "no values" if self.array.size == 0 else "more than one value"
            raise RuntimeError(
                f"Boolean value of Tensor with {what} is ambiguous (shape {self.shape})"
            )
        return bool(self.item())

    # ---- conversion ------------------------------------------------------------------
    def to(self, *args, **kwargs):
        """Convert to another dtype and/or device, as torch's `to`:

        `to(dtype)`, `to(device)`, `to(device, dtype)`, `to(other)` (other's dtype and
        device), with optional `dtype=`, `device=`, `non_blocking=`, `copy=`, and
        `memory_format=` (a layout to copy into, see `contiguous`). Returns self when
        nothing changes, unless `copy=True`. The result is differentiable: the
        gradient of a dtype cast is cast back. `to("cuda")` copies the data into GPU
        memory and `to("cpu")` back; the copy is differentiable too (the gradient goes
        back to the device the input is on).
        """
        device, dtype, copy = _devices.parse_to(args, kwargs, "to")
        result = self
        if device is not None and device != self.device:
            result = ops.device.ToDevice.apply(self, device=device)
            copy = False  # a move is a copy already
        if dtype is not None and dtype != result.dtype:
            result = ops.shape.Cast.apply(result, dtype=dtype)
        elif copy:
            result = ops.shape.Clone.apply(self)
        memory_format = kwargs.get("memory_format", _layout.preserve_format)
        if memory_format is not _layout.preserve_format:
            _layout_order(memory_format, "to")  # a clear error for what is no memory format
            # as torch: without a copy, only a tensor whose layout suggests another format
            # (a channels-last one asked for row-major, or the reverse) is copied into this one
            if result is not self or _suggested_format(self) is not memory_format:
                result = result.contiguous(memory_format)
        return result

    def cpu(self):
        """This tensor in host memory: a copy of a CUDA tensor, or self when it is there."""
        return self.to(_devices.cpu)

    def cuda(self, device=None, non_blocking=False):
        """This tensor in GPU memory: a copy of a CPU tensor, or self when it is there.
        Without a GPU it raises, saying what is missing."""
        return self.to(_devices.check_cuda(device, "cuda"))

    def type(self, dtype=None, non_blocking=False):
        """Without an argument: torch's name of the tensor type, 'torch.FloatTensor' for
        float32 ('torch.LongTensor' for int64, ...; 'torch.cuda.FloatTensor' on a GPU), so
        that a program's `x.type() == 'torch.FloatTensor'` holds as in torch. With a dtype,
        such a name ('torch.DoubleTensor', 'minigrad.DoubleTensor', 'DoubleTensor') or a
        type (`mg.DoubleTensor`): the tensor converted to it, as `to(dtype)`; a name says
        the device too, as in torch ('torch.cuda.DoubleTensor' is on the GPU, the others
        on the CPU)."""
        if dtype is None:
            name = dtypes.tensor_type_name(self.dtype)
            return name.replace("torch.", "torch.cuda.", 1) if self.is_cuda else name
        if isinstance(dtype, str):
            device = _devices.cuda if ".cuda." in f".{dtype}" else _devices.cpu
            name = dtype.replace("cuda.", "", 1)
            return self.to(device, dtypes.dtype_from_type_name(name))
        if isinstance(dtype, type) and dtype.__name__.endswith("Tensor"):  # torch.FloatTensor
            return self.to(dtypes.dtype_from_type_name(dtype.__name__))
        return self.to(dtype)

    def type_as(self, tensor):
        """This tensor converted to `tensor`'s dtype (self if it has it already), as
        `self.type(tensor.type())`; the gradient flows back, cast to self's dtype."""
        if not isinstance(tensor, Tensor):
            raise TypeError(
                "type_as(): argument 'other' (position 1) must be Tensor, not "
                f"{type(tensor).__name__}"
            )
        return self.to(tensor.dtype)

    def float(self):
        """A float32 copy (self if it is float32 already); the gradient flows back, cast to the
        input's dtype.
        """
        return self.to(dtypes.float32)

    def double(self):
        """A float64 copy (self if it is float64 already); the gradient flows back, cast to the
        input's dtype.
        """
        return self.to(dtypes.float64)

    def half(self):
        """A float16 copy (self if it is float16 already); the gradient flows back, cast to the
        input's dtype.
        """
        return self.to(dtypes.float16)

    def long(self):
        """An int64 copy (self if it is int64 already); integer tensors carry no gradient."""
        return self.to(dtypes.int64)

    def int(self):
        """An int32 copy (self if it is int32 already); integer tensors carry no gradient."""
        return self.to(dtypes.int32)

    def bool(self):
        """A bool copy (nonzero is True); it carries no gradient."""
        return self.to(dtypes.bool)

    def is_floating_point(self):
        """True for float16/32/64 tensors."""
        return self.dtype.kind == "f"

    def is_signed(self):
        """True if the dtype can hold negative numbers: the floats and the signed integers
        (not bool or uint8)."""
        return self.dtype.kind in "fi"

    def is_same_size(self, other):
        """True if `other` has this tensor's shape."""
        return self.shape == other.shape

    def is_nonzero(self):
        """The truth of a one-element tensor (a Python bool); raises, as torch, for none or
        several elements, whose truth is ambiguous."""
        if self.array.size != 1:
            which = "no values" if self.array.size == 0 else "more than one value"
            raise RuntimeError(
                f"is_nonzero: Boolean value of Tensor with {which} is ambiguous (shape "
                f"{self.shape})"
            )
        return bool(self.array.reshape(()) != 0)

    # ---- new tensors like this one: its dtype (and device) unless told otherwise --------
    @staticmethod
    def _new_leaf(array, requires_grad):
        t = Tensor._make(array)
        t._inference = autograd.grad_mode.is_inference_mode_enabled()
        if requires_grad:
            t.requires_grad_(True)
        return t

    # As torch's, they are made on this tensor's device unless `device=` says otherwise.
    def _new_device(self, device, op):
        """The device a new_* method makes its tensor on: `device` if given, else self's."""
        return self.device if device is None else _devices.check_device(device, op)

    def new_zeros(self, *size, dtype=None, device=None, requires_grad=False):
        """Zeros of shape `size` (`new_zeros(2, 3)` or `new_zeros((2, 3))`), of this tensor's
        dtype unless `dtype` is given."""
        return self.new_full(
            _new_shape(size, "new_zeros"),
            0,
            dtype=dtype,
            device=device,
            requires_grad=requires_grad,
        )

    def new_ones(self, *size, dtype=None, device=None, requires_grad=False):
        """Ones of shape `size`, of this tensor's dtype unless `dtype` is given."""
        return self.new_full(
            _new_shape(size, "new_ones"), 1, dtype=dtype, device=device, requires_grad=requires_grad
        )

    def new_empty(self, *size, dtype=None, device=None, requires_grad=False):
        """A tensor of shape `size` and this tensor's dtype unless `dtype` is given (zeros
        here; PyTorch leaves it uninitialised)."""
        return self.new_full(
            _new_shape(size, "new_empty"),
            0,
            dtype=dtype,
            device=device,
            requires_grad=requires_grad,
        )

    def new_empty_strided(self, size, stride, *, dtype=None, device=None, requires_grad=False):
        """A tensor of shape `size` laid out with the given strides (see `mg.empty_strided`),
        of this tensor's dtype unless `dtype` is given."""
        from minigrad.creation import empty_strided  # creation.py imports this module

        dtype = dtypes.to_dtype(dtype, "new_empty_strided") or self.dtype
        device = self._new_device(device, "new_empty_strided")
        return empty_strided(size, stride, dtype=dtype, device=device, requires_grad=requires_grad)

    def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False):
        """`fill_value` in a tensor of shape `size` (a tuple or list), of this tensor's dtype
        unless `dtype` is given (the value is cast to it: 7.5 becomes 7 in an int64 one)."""
        device = self._new_device(device, "new_full")
        if not isinstance(size, (tuple, list)):
            raise TypeError(
                "new_full(): argument 'size' (position 1) must be tuple of ints, not "
                f"{type(size).__name__}"
            )
        shape = _new_shape((tuple(size),), "new_full")
        dtype = dtypes.to_dtype(dtype, "new_full") or self.dtype
        if isinstance(fill_value, Tensor):  # a number, as torch reads it (from a GPU: a copy)
            fill_value = fill_value.item()
        xp = _runtime.require("new_full") if device.type == "cuda" else np  # made there, not copied
        return self._new_leaf(xp.full(shape, fill_value, dtype=dtype), requires_grad)

    def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False):
        """A copy of `data` (a list, an array, a number or a Tensor) as a new leaf of this
        tensor's dtype unless `dtype` is given. A Tensor `data` is copied and cut from the
        graph, with PyTorch's advice to write `data.detach().clone()` instead. The data is
        copied to this tensor's device (or `device`)."""
        device = self._new_device(device, "new_tensor")
        if isinstance(data, Tensor):
            warnings.warn(
                "To copy construct from a tensor, it is recommended to use "
                "sourceTensor.detach().clone() or "
                "sourceTensor.detach().clone().requires_grad_(True), rather than "
                "tensor.new_tensor(sourceTensor).",
                UserWarning,
                stacklevel=2,
            )
        dtype = dtypes.to_dtype(dtype, "new_tensor") or self.dtype
        if isinstance(data, Tensor):
            array = data.array.astype(dtype)  # a copy, on data's device
        else:
            array = _array_from_data(data, dtype)
        return self._new_leaf(_array_on(array, device), requires_grad)


def _array_on(array, device):
    """`array` on `device` (a copy between host and GPU where it is not there yet)."""
    on_gpu = array_module(array) is not np
    if device.type == "cuda":
        return array if on_gpu else _to_device(array)
    return _to_host(array) if on_gpu else array


def _new_shape(size, op):
    """The shape of new_zeros(2, 3) and of new_zeros((2, 3)), checked as creation's are."""
    if not size:
        raise TypeError(f'{op}() missing 1 required positional arguments: "size"')
    shape = size_args(size)
    if any(s < 0 for s in shape):
        raise RuntimeError(
            f"{op}: Trying to create tensor with negative dimension {min(shape)}: {list(shape)}"
        )
    return shape


def _array_from_data(data, dtype):
    """np.array(data, dtype) for mg.tensor(data), or PyTorch's errors, naming mg.tensor,
    for data that is not numbers: string or object arrays, ragged nested lists."""
    if isinstance(data, np.ndarray) and data.dtype.kind not in "biufc":
        raise TypeError(
            f"mg.tensor: can't convert np.ndarray of type numpy.{data.dtype.type.__name__}; "
            "the supported types are floating point, integer and bool"
        )
    try:
        return np.array(data, dtype=dtypes.to_dtype(dtype) or dtypes.infer_dtype(data))
    except (ValueError, TypeError):
        problem = _not_numbers(data)
        if problem is None:
            raise
        raise problem from None


def _not_numbers(data):
    """What makes nested lists `data` not a tensor, as an exception (None if not found):
    a non-number, or lists of different lengths at one depth."""
    level, dim = [data], 0
    while True:
        seqs = [x for x in level if isinstance(x, (list, tuple))]
        if not seqs:
            for x in level:
                if not isinstance(x, (int, float, bool, complex, np.number, np.bool_)):
                    return TypeError(
                        f"mg.tensor: expected numbers, got {type(x).__name__} {x!r:.40}"
                    )
            return None
        length = len(seqs[0])
        for x in level:
            if not isinstance(x, (list, tuple)) or len(x) != length:
                got = len(x) if isinstance(x, (list, tuple)) else f"{type(x).__name__} {x!r:.40}"
                return ValueError(
                    f"mg.tensor: expected sequence of length {length} at dim {dim} (got {got})"
                )
        level, dim = [y for x in seqs for y in x], dim + 1
