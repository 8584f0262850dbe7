"""Tensor: an array (NumPy on the CPU, CuPy on a GPU), plus what autograd needs to send a
gradient back to it.

A tensor made by an op remembers that op in `grad_fn` (a `Function` instance, which in
turn remembers the op's input tensors). Those links are the graph that `backward` walks.
A tensor made by the user is a *leaf*: `grad_fn` is None, and if it requires grad its
gradient accumulates in `.grad`.

The methods here only check arguments and call `Function.apply` on the ops in
`minigrad/ops/` (`ops.elementwise.Exp.apply(x)`); the math lives there.
"""

import math
import warnings

import numpy as np

from minigrad import devices as _devices
from minigrad import dtypes
from minigrad import layouts as _layout
from minigrad import printing as _printing
from minigrad import random as _random
from minigrad._args import distinct_dims, normalize_dim, normalize_dims, size_args
from minigrad.array_module import on_device as _on_device
from minigrad.array_module import to_device as _to_device
from minigrad.array_module import to_host as _to_host
from minigrad.size import Size
from minigrad.tensor_runtime import RuntimeMethods

_tuple_new = tuple.__new__  # makes a Size from a tuple without Size.__new__'s checks


class VersionCounter:
    """How many times a storage was changed in place. Tensors that share storage (a
    view, a detached alias) share one counter, so a change through any of them is seen
    by `saved_tensors`, which compares it with the value recorded at save time."""

    __slots__ = ("value",)

    def __init__(self):
        self.value = 0


class Tensor(RuntimeMethods):
    """An n-dimensional array that can record the ops applied to it.

    Make tensors with `mg.tensor(data, dtype=None, requires_grad=False)` and the other
    creation functions. Calling the class itself is PyTorch's legacy constructor, as
    `torch.Tensor`: `Tensor(2, 3)` is a (2, 3) tensor of the default float dtype (filled
    with zeros here; PyTorch leaves it uninitialised), `Tensor([1, 2])` a copy of the data
    in the default float dtype (whatever the data's type: `float32` unless changed), and
    `Tensor()` an empty one. `Tensor(t)` of a Tensor shares `t`'s storage and keeps its
    dtype (a new leaf, cut from the graph: PyTorch returns a differentiable alias).
    `dtype=` and `requires_grad=` are accepted too, which PyTorch's constructor refuses.
    `mg.FloatTensor`, `mg.LongTensor`, ... are the typed forms.
    """

    __slots__ = (
        "array", "requires_grad", "_grad", "grad_fn", "_hooks", "_retains_grad", "_counter",
        "_view", "_history", "_inference", "__weakref__",
    )  # fmt: skip
    # annotations only (a class value would clash with the slot): where the docs read them
    requires_grad: bool
    """True when autograd records the ops on this tensor, so that backward reaches it; set it
    with `requires_grad=True` at creation or `requires_grad_()`. An op's result requires grad
    when any input does (outside `no_grad`)."""
    grad_fn: object
    """The backward node of the Function that made this tensor (`<MulBackward0>`), or None
    for a leaf; `grad_fn.next_functions` leads to the inputs' nodes."""
    __array_ufunc__ = None  # make `ndarray + Tensor` call Tensor.__radd__, not NumPy
    __hash__ = object.__hash__  # hash by identity even though == is elementwise

    def __init__(self, *args, dtype=None, requires_grad=False, device=None):
        device = _devices.check_device(device, "Tensor")
        data = args[0] if len(args) == 1 else None
        self._init_leaf(_legacy_array(args, dtypes.to_dtype(dtype, "Tensor"), "Tensor"))
        if device.type == "cuda" and not _on_device(self.array):
            self.array = _to_device(self.array)
        if isinstance(data, Tensor) and self.array is data.array:
            self._counter = data._version_counter()  # one storage: in-place changes show in both
        self._inference = autograd.grad_mode.is_inference_mode_enabled()
        if requires_grad:
            self.requires_grad_(True)

    def _init_leaf(self, array):
        """Make this a leaf holding `array`, with no gradient, graph or hooks yet."""
        self.array = array
        self.requires_grad = False
        self._grad = None
        self.grad_fn = None
        self._hooks = None
        self._retains_grad = False
        self._counter = None  # made on first need (most tensors are never changed in place)
        self._view = None  # how this tensor was taken from its base, if it is a view
        self._history = None  # its nodes before in-place changes (autograd/inplace.py)
        self._inference = False  # made inside mg.inference_mode() (see autograd/grad_mode.py)

    @classmethod
    def _make(cls, array):
        """Wrap an ndarray without copying or checking (the ops' fast path)."""
        t = object.__new__(cls)
        t._init_leaf(array)
        return t

    @classmethod
    def _from_data(cls, data, dtype=None):
        """A leaf holding a copy of array-like `data` in `dtype`, or, with dtype None, in
        the dtype `mg.tensor` infers (Python floats: the default float dtype, ints: int64)."""
        return cls._make(_array_from_data(data.array if isinstance(data, Tensor) else data, dtype))

    # ---- attributes ------------------------------------------------------------------
    @property
    def shape(self):
        """The size of each dimension, an `mg.Size`: a tuple of ints with `numel()`, as
        torch's `torch.Size`."""
        return _tuple_new(Size, self.array.shape)  # no checks: an array's shape is ints already

    @property
    def ndim(self):
        """The number of dimensions (0 for a scalar tensor)."""
        return self.array.ndim

    @property
    def dtype(self):
        """The element type: a NumPy dtype under PyTorch's name (`mg.float32 is t.dtype`)."""
        return self.array.dtype

    @property
    def device(self):
        """Where the data lives: `mg.device('cpu')` (a NumPy array in host memory) or
        `mg.device('cuda', 0)` (a CuPy array in GPU memory)."""
        if isinstance(self.array, np.ndarray):  # checked first: the common case costs one test
            return _devices.cpu
        return _devices.cuda if _on_device(self.array) else _devices.cpu

    @property
    def is_cuda(self):
        """True when the data is in GPU memory."""
        return self.device.type == "cuda"

    @property
    def is_cpu(self):
        """True when the data is in host memory."""
        return self.device.type == "cpu"

    # What device-agnostic programs probe before they pick a code path; each says what
    # minigrad's tensors are not: on another device, sparse, quantized, ... (all False).
    @property
    def is_xpu(self):
        """False: no tensor lives on an Intel GPU (torch's `xpu` device)."""
        return False

    @property
    def is_mps(self):
        """False: no tensor lives on Apple's GPU (torch's `mps` device)."""
        return False

    @property
    def is_meta(self):
        """False: every tensor holds its data (torch's `meta` tensors have only a shape)."""
        return False

    @property
    def is_sparse(self):
        """False: every tensor is dense, strided (torch's `sparse_coo` layout is not here)."""
        return False

    @property
    def is_sparse_csr(self):
        """False: every tensor is dense, strided (no compressed sparse rows)."""
        return False

    @property
    def is_quantized(self):
        """False: no tensor is quantized (torch.quint8 and the like are not here)."""
        return False

    @property
    def is_nested(self):
        """False: no tensor is a nested (ragged) tensor."""
        return False

    @property
    def is_mkldnn(self):
        """False: no tensor uses oneDNN's (MKL-DNN's) opaque layout."""
        return False

    def is_complex(self):
        """True for a complex dtype, which minigrad's ops do not support: False for its tensors."""
        return self.dtype.kind == "c"

    @property
    def is_leaf(self):
        """True for a tensor that no recorded op made (`grad_fn is None`): one you created, or one
        made under `no_grad`. `backward()` fills the `.grad` of leaves that require grad.
        """
        return self.grad_fn is None

    @property
    def T(self):
        """All dimensions reversed (for a matrix: the transpose)."""
        return self.permute(*reversed(range(self.ndim)))

    @property
    def mT(self):
        """The last two dimensions swapped (a batch of transposed matrices)."""
        if self.ndim < 2:
            raise RuntimeError(f"mT: tensor must have at least 2 dimensions, got shape {self.shape}")
        return self.transpose(-2, -1)

    def size(self, dim=None):
        """The shape as a tuple, or with `dim`, the size of that one dimension (negative counts from
        the end).
        """
        if dim is None:
            return self.shape
        return self.shape[normalize_dim(dim, self.ndim, "size")]

    def dim(self):
        """The number of dimensions (the same as `ndim`)."""
        return self.ndim

    def numel(self):
        """The number of elements: the product of the shape."""
        return int(self.array.size)

    def nelement(self):
        """The number of elements (the same as `numel()`)."""
        return int(self.array.size)

    def ndimension(self):
        """The number of dimensions (the same as `dim()`)."""
        return self.ndim

    # ---- memory layout: where the elements are, as torch reports it ------------------------
    # The storage is a NumPy array; NumPy counts strides in bytes and torch in elements,
    # so each stride is divided by the element size.
    def element_size(self):
        """The size of one element in bytes (4 for float32)."""
        return self.array.itemsize

    @property
    def itemsize(self):
        """The size of one element in bytes (the same as `element_size()`)."""
        return self.array.itemsize

    @property
    def nbytes(self):
        """The bytes the elements take: `numel() * element_size()` (an expanded tensor
        counts each element it shows, as torch's does)."""
        return self.array.size * self.array.itemsize

    def stride(self, dim=None):
        """The step in elements from one index to the next along each dim (a tuple), or
        along `dim`: (3, 1) for a contiguous (2, 3) tensor, (1, 3) for its transpose, 0
        along an expanded dim."""
        strides = tuple(s // self.array.itemsize for s in self.array.strides)
        return strides if dim is None else strides[normalize_dim(dim, self.ndim, "stride")]

    def storage_offset(self):
        """Where the first element is in the storage, in elements: 0 for a tensor that
        owns its memory, 1 for `x[1:]`. (The storage is the NumPy array the tensor's
        array is a view of.)"""
        storage = self.array
        while isinstance(storage.base, np.ndarray):
            storage = storage.base
        return (_address(self.array) - _address(storage)) // self.array.itemsize

    def data_ptr(self):
        """The memory address of the first element (an int): two tensors that share
        storage from the same element give the same number."""
        return _address(self.array)

    def is_contiguous(self, memory_format=None):
        """True when the elements lie in memory in row-major order, with no gaps (sizes of
        1 may have any stride, as in torch); with `memory_format=mg.channels_last` (or
        `channels_last_3d`), in that format's order instead."""
        order = _layout_order(memory_format, "is_contiguous")
        if order is None:
            return bool(self.array.flags.c_contiguous)
        return self.ndim == len(order) and bool(self.array.transpose(order).flags.c_contiguous)

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
                f"Tensor.__contains__ only supports Tensor or scalar, but you passed in a {type(element)}."
            )
        return bool((self == element).any().item())

    def item(self):
        """The value of a one-element tensor as a Python number (raises for more elements);
        from a CUDA tensor this copies the number to the host, and waits for the GPU."""
        if self.array.size != 1:
            raise RuntimeError(f"item: a Tensor with {self.array.size} elements cannot be converted to a Python number")
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
            raise RuntimeError("numpy: can't call numpy() on a Tensor that requires grad; use tensor.detach().numpy()")
        if not isinstance(self.array, np.ndarray) and self.is_cuda:
            raise TypeError(
                "can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor "
                "to host memory first."
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
            raise ValueError(f"__array__: can't convert a {self.dtype} tensor to {np.dtype(dtype)} without a copy")
        return self.array.astype(dtype)

    def __format__(self, format_spec):
        """f"{t}" prints the tensor; f"{loss:.4f}" formats the number of a one-element
        tensor (PyTorch allows a spec only for 0-d tensors; one element is accepted here)."""
        if self.ndim == 0 or (format_spec and self.array.size == 1):
            return format(self.item(), format_spec)
        if not format_spec:
            return str(self)
        raise TypeError(
            f"unsupported format string {format_spec!r} passed to Tensor.__format__: only a tensor with one "
            f"element can be formatted as a number, this one has shape {self.shape}"
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
            raise RuntimeError(f"Boolean value of Tensor with {what} is ambiguous (shape {self.shape})")
        return bool(self.item())

    # ---- autograd ---------------------------------------------------------------------
    def requires_grad_(self, requires_grad=True):
        """Set `requires_grad` in place and return self. Only on a leaf: a tensor made by ops gets
        its `requires_grad` from its inputs (`detach()` gives a new leaf).
        """
        if not self.is_leaf:
            raise RuntimeError(
                "requires_grad_: you can only change requires_grad of leaf tensors; use .detach() to get a new leaf"
            )
        if requires_grad and self.dtype.kind != "f":
            raise RuntimeError(f"only Tensors of floating point dtype can require gradients, got {self.dtype}")
        if requires_grad and self._inference and not autograd.grad_mode.is_inference_mode_enabled():
            raise RuntimeError(
                "requires_grad_: Setting requires_grad=True on inference tensor outside InferenceMode is "
                "not allowed (it was made in mg.inference_mode(); use clone() for an ordinary tensor)."
            )
        self.requires_grad = bool(requires_grad)
        return self

    def is_inference(self):
        """True for a tensor made inside `mg.inference_mode()` (or a view of one): it may
        not be saved for a backward pass, nor changed in place outside inference mode."""
        return self._inference

    def retain_grad(self):
        """Keep `.grad` for this non-leaf tensor after backward (leaves always keep it)."""
        if not self.requires_grad:
            raise RuntimeError("retain_grad: can't retain_grad on a Tensor that has requires_grad=False")
        if not self.is_leaf:
            self._retains_grad = True

    @property
    def retains_grad(self):
        """True after `retain_grad()` on a non-leaf: backward then keeps its `.grad`."""
        return self._retains_grad

    def register_hook(self, hook):
        """Call `hook(grad)` when this tensor's gradient is computed; if it returns a
        Tensor, that replaces the gradient. Returns a handle with `.remove()`."""
        if not self.requires_grad:
            raise RuntimeError("register_hook: cannot register a hook on a tensor that doesn't require gradient")
        if self._hooks is None:
            self._hooks = {}
        handle = autograd.hooks.RemovableHandle(self._hooks)
        self._hooks[handle.id] = hook
        return handle

    def backward(self, gradient=None, retain_graph=None, create_graph=False):
        """Accumulate d(self)/d(leaf) into `.grad` of every leaf that requires grad."""
        autograd.engine.backward(self, gradient, retain_graph=retain_graph, create_graph=create_graph)

    def detach(self):
        """A new leaf sharing this data (and its version counter), cut from the graph."""
        t = Tensor._make(self.array)
        t._counter = self._version_counter()
        t._inference = self._inference
        return t

    @property
    def data(self):
        """The values as a Tensor that shares this one's storage, cut from the graph, as
        torch's `.data`: `p.data.add_(u)` changes `p` and is not recorded. (`detach()`
        is the safer twin: it shares the in-place version counter, so autograd notices
        when a tensor it saved is changed through it; `.data` does not, as in torch.)
        The NumPy array itself is `.array` (or `.numpy()`)."""
        return Tensor._make(self.array)

    @data.setter
    def data(self, value):
        # `p.data = p.data - lr * p.grad`: p keeps its identity (and its place in the
        # model and the optimizer) but holds new values
        if not isinstance(value, Tensor):
            raise TypeError(f"data: can only assign a Tensor to .data, got {type(value).__name__}")
        self.array = value.array

    @property
    def grad(self):
        """The gradient accumulated by `backward` (a leaf's, or a `retain_grad()` tensor's)."""
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"grad: assigned grad expected to be a Tensor or None but got {type(value).__name__}")
            if value.shape != self.shape:
                raise RuntimeError(
                    f"grad: assigned grad has data of a different size: {tuple(value.shape)} for a tensor of "
                    f"shape {tuple(self.shape)}"
                )
            if value.dtype != self.dtype:
                raise RuntimeError(
                    f"grad: assigned grad has data of a different type: {value.dtype} for a tensor of {self.dtype}"
                )
        self._grad = value

    def _version_counter(self):
        if self._counter is None:
            self._counter = VersionCounter()
        return self._counter

    @property
    def _version(self):
        """The number of in-place changes to this tensor's storage (as torch's _version)."""
        return 0 if self._counter is None else self._counter.value

    def detach_(self):
        """Detach in place: this tensor becomes a leaf, cut from the graph that made it; returns self."""
        self.grad_fn = None
        self.requires_grad = False
        return self

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
        float32 ('torch.LongTensor' for int64, ...), so that a program's
        `x.type() == 'torch.FloatTensor'` holds as in torch. With a dtype, such a name
        ('torch.DoubleTensor', 'minigrad.DoubleTensor', 'DoubleTensor') or a type
        (`mg.DoubleTensor`): the tensor converted to it, as `to(dtype)`."""
        if dtype is None:
            return dtypes.tensor_type_name(self.dtype)
        if isinstance(dtype, str):
            return self.to(dtypes.dtype_from_type_name(dtype))
        if isinstance(dtype, type) and dtype.__name__.endswith("Tensor"):  # torch.FloatTensor
            return self.to(dtypes.dtype_from_type_name(dtype.__name__))
        return self.to(dtype)

    def type_as(self, tensor):
        """This tensor converted to `tensor`'s dtype (self if it has it already), as
        `self.type(tensor.type())`; the gradient flows back, cast to self's dtype."""
        if not isinstance(tensor, Tensor):
            raise TypeError(f"type_as(): argument 'other' (position 1) must be Tensor, not {type(tensor).__name__}")
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
            raise RuntimeError(f"is_nonzero: Boolean value of Tensor with {which} is ambiguous (shape {self.shape})")
        return bool(self.array.reshape(()) != 0)

    # ---- printing ----------------------------------------------------------------------
    def __repr__(self):
        """`tensor([...], dtype=..., grad_fn=<...>)`, laid out as torch lays it out (see
        minigrad/printing.py, and `mg.set_printoptions` to change it). A CUDA tensor's
        values are copied to the host to be printed, and it says `device='cuda:0'`."""
        data = _to_host(self.array)
        suffixes = [] if isinstance(self.array, np.ndarray) or self.is_cpu else ["device='cuda:0'"]
        has_default_dtype = data.dtype in (dtypes.default_float, np.int64, np.bool_)  # torch omits these
        if data.size == 0:
            if data.ndim != 1:
                suffixes.append(f"size={tuple(data.shape)}")
            if data.dtype != dtypes.default_float:
                suffixes.append(f"dtype=minigrad.{data.dtype}")
            body = "[]"
        else:
            if not _printing.PRINT_OPTS.edgeitems:
                suffixes.append(f"size={tuple(data.shape)}")
            if not has_default_dtype:
                suffixes.append(f"dtype=minigrad.{data.dtype}")
            body = _printing.array_str(data, indent=len("tensor("))
        if self.grad_fn is not None:
            suffixes.append(f"grad_fn={self.grad_fn!r}")
        elif self.requires_grad:
            suffixes.append("requires_grad=True")
        return _printing.with_suffixes("tensor(" + body, suffixes, indent=len("tensor("))

    __str__ = __repr__

    # ---- arithmetic operators ------------------------------------------------------
    def __add__(self, other):
        a, b = ops.promotion.binary_operands(self, other, "add")
        return ops.elementwise.Add.apply(a, b)

    def __radd__(self, other):
        b, a = ops.promotion.binary_operands(self, other, "add")
        return ops.elementwise.Add.apply(a, b)

    def __sub__(self, other):
        a, b = ops.promotion.binary_operands(self, other, "sub")
        return ops.elementwise.Sub.apply(a, b)

    def __rsub__(self, other):
        b, a = ops.promotion.binary_operands(self, other, "sub")
        return ops.elementwise.Sub.apply(a, b)

    # --8<-- [start:tensor_mul]
    def __mul__(self, other):
        a, b = ops.promotion.binary_operands(self, other, "mul")
        return ops.elementwise.Mul.apply(a, b)

    # --8<-- [end:tensor_mul]

    def __rmul__(self, other):
        b, a = ops.promotion.binary_operands(self, other, "mul")
        return ops.elementwise.Mul.apply(a, b)

    def __truediv__(self, other):
        a, b = ops.promotion.binary_operands(self, other, "div", true_division=True)
        return ops.elementwise.Div.apply(a, b)

    def __rtruediv__(self, other):
        b, a = ops.promotion.binary_operands(self, other, "div", true_division=True)
        return ops.elementwise.Div.apply(a, b)

    def __floordiv__(self, other):
        a, b = ops.promotion.binary_operands(self, other, "floor_divide")
        return ops.elementwise.DivRounding.apply(a, b, rounding_mode="floor", op="floor_divide")

    def __rfloordiv__(self, other):
        b, a = ops.promotion.binary_operands(self, other, "floor_divide")
        return ops.elementwise.DivRounding.apply(a, b, rounding_mode="floor", op="floor_divide")

    def __mod__(self, other):
        a, b = ops.promotion.binary_operands(self, other, "remainder")
        return ops.elementwise.Remainder.apply(a, b)

    def __rmod__(self, other):
        b, a = ops.promotion.binary_operands(self, other, "remainder")
        return ops.elementwise.Remainder.apply(a, b)

    def __pow__(self, exponent):
        if isinstance(exponent, (int, float)) and not isinstance(exponent, bool):
            if self.dtype.kind != "f" and isinstance(exponent, float):
                return self.float() ** exponent
            if self.dtype.kind != "f" and exponent < 0:
                raise RuntimeError(
                    f"pow: integers to negative integer powers are not allowed ({self.dtype} ** {exponent})"
                )
            return ops.elementwise.PowScalar.apply(self, exponent=exponent)
        a, b = ops.promotion.binary_operands(self, exponent, "pow")
        return ops.elementwise.Pow.apply(a, b)

    def __rpow__(self, base):
        b, a = ops.promotion.binary_operands(self, base, "pow")
        return ops.elementwise.Pow.apply(a, b)

    def __matmul__(self, other):
        return ops.linalg.matmul(self, other)

    def __rmatmul__(self, other):
        return ops.linalg.matmul(other, self)

    def __neg__(self):
        if self.dtype.kind == "b":
            raise RuntimeError("neg: negation, the `-` operator, on a bool tensor is not supported; use logical_not()")
        return ops.elementwise.Neg.apply(self)

    def __pos__(self):
        return self

    def __abs__(self):
        return self.abs()

    # ---- comparisons (no gradient: the result is bool) --------------------------------
    def _compare(self, other, op):
        if not isinstance(other, (Tensor, int, float, bool, np.number, np.bool_, np.ndarray, list, tuple)):
            return NotImplemented  # so `t == None` is False, as for any unrelated object
        a, b = ops.promotion.binary_operands(self, other, op.__name__)
        return Tensor._make(np.asarray(op(a.array, b.array)))

    def __eq__(self, other):
        return self._compare(other, np.equal)

    def __ne__(self, other):
        return self._compare(other, np.not_equal)

    def __lt__(self, other):
        return self._compare(other, np.less)

    def __le__(self, other):
        return self._compare(other, np.less_equal)

    def __gt__(self, other):
        return self._compare(other, np.greater)

    def __ge__(self, other):
        return self._compare(other, np.greater_equal)

    eq, ne, lt, le, gt, ge = __eq__, __ne__, __lt__, __le__, __gt__, __ge__
    # torch's longer names for them
    greater, greater_equal, less, less_equal, not_equal = __gt__, __ge__, __lt__, __le__, __ne__

    # ---- logic and bits (no gradient: the results are bools or integers) -------------------
    # `&`, `|`, `^`, `~`, `<<`, `>>` are the bitwise ops of ops/bitwise.py: on bools they are
    # the logical ones; integers and bools promote as any binary op; floats raise.
    def __and__(self, other):
        return ops.bitwise.bitwise_and(self, other)

    def __rand__(self, other):
        return ops.bitwise.bitwise_and(other, self)

    def __or__(self, other):
        return ops.bitwise.bitwise_or(self, other)

    def __ror__(self, other):
        return ops.bitwise.bitwise_or(other, self)

    def __xor__(self, other):
        return ops.bitwise.bitwise_xor(self, other)

    def __rxor__(self, other):
        return ops.bitwise.bitwise_xor(other, self)

    def __invert__(self):
        return ops.bitwise.bitwise_not(self)

    def __lshift__(self, other):
        return ops.bitwise.bitwise_left_shift(self, other)

    def __rlshift__(self, other):
        return ops.bitwise.bitwise_left_shift(other, self)

    def __rshift__(self, other):
        return ops.bitwise.bitwise_right_shift(self, other)

    def __rrshift__(self, other):
        return ops.bitwise.bitwise_right_shift(other, self)

    def bitwise_and(self, other):
        """The bits set in both (logical and for bools); integer and bool tensors, as `&`."""
        return ops.bitwise.bitwise_and(self, other)

    def bitwise_or(self, other):
        """The bits set in either (logical or for bools); integer and bool tensors, as `|`."""
        return ops.bitwise.bitwise_or(self, other)

    def bitwise_xor(self, other):
        """The bits set in exactly one (logical xor for bools); integer and bool tensors, as `^`."""
        return ops.bitwise.bitwise_xor(self, other)

    def bitwise_not(self):
        """Every bit flipped (not, for bools); integer and bool tensors, as `~`."""
        return ops.bitwise.bitwise_not(self)

    def bitwise_left_shift(self, other):
        """self * 2^other by shifting bits left; integer tensors, as `<<`."""
        return ops.bitwise.bitwise_left_shift(self, other)

    def bitwise_right_shift(self, other):
        """floor(self / 2^other) by shifting bits right; integer tensors, as `>>`."""
        return ops.bitwise.bitwise_right_shift(self, other)

    def logical_and(self, other):
        """Elementwise and, zero read as False: a bool tensor, no gradient."""
        return ops.bitwise.logical_and(self, other)

    def logical_or(self, other):
        """Elementwise or, zero read as False: a bool tensor, no gradient."""
        return ops.bitwise.logical_or(self, other)

    def logical_xor(self, other):
        """Elementwise exclusive or, zero read as False: a bool tensor, no gradient."""
        return ops.bitwise.logical_xor(self, other)

    def logical_not(self):
        """Elementwise not (zero is False): a bool tensor, no gradient."""
        return ops.bitwise.logical_not(self)

    def signbit(self):
        """Elementwise: True where the sign bit is set (negatives, -0.0), a bool tensor."""
        return ops.rounding.signbit(self)

    def isposinf(self):
        """Elementwise: True where the value is +inf (a bool tensor, no gradient)."""
        return ops.compare.isposinf(self)

    def isneginf(self):
        """Elementwise: True where the value is -inf (a bool tensor, no gradient)."""
        return ops.compare.isneginf(self)

    def isnan(self):
        """Elementwise: True where the value is NaN (a bool tensor, no gradient)."""
        return Tensor._make(np.asarray(np.isnan(self.array)))

    def isinf(self):
        """Elementwise: True where the value is +inf or -inf (a bool tensor, no gradient)."""
        return Tensor._make(np.asarray(np.isinf(self.array)))

    def isfinite(self):
        """Elementwise: True where the value is neither inf nor NaN (a bool tensor, no gradient)."""
        return Tensor._make(np.asarray(np.isfinite(self.array)))

    def any(self, dim=None, keepdim=False):
        """True if any element (along `dim`, or of all) is nonzero; a bool tensor, no gradient."""
        return ops.logic.any(self, dim, keepdim)

    def all(self, dim=None, keepdim=False):
        """True if every element (along `dim`, or of all) is nonzero; a bool tensor, no gradient."""
        return ops.logic.all(self, dim, keepdim)

    def equal(self, other):
        """True if both have the same shape and elements (one Python bool, as torch.equal)."""
        return ops.logic.equal(self, other)

    def allclose(self, other, rtol=1e-5, atol=1e-8, equal_nan=False):
        """True if every |self - other| <= atol + rtol * |other| (a Python bool), as `mg.allclose`."""
        return ops.logic.allclose(self, other, rtol, atol, equal_nan)

    def isclose(self, other, rtol=1e-5, atol=1e-8, equal_nan=False):
        """Elementwise |self - other| <= atol + rtol * |other| (a bool tensor), as `mg.isclose`."""
        return ops.logic.isclose(self, other, rtol, atol, equal_nan)

    # ---- in-place ops -----------------------------------------------------------------
    # Each writes an op's result into this tensor's own storage and returns self. On a
    # tensor autograd has seen, or with an operand that requires grad, the write is
    # recorded in the graph as PyTorch records it (autograd/inplace.py); otherwise it is
    # a plain write. Either way the version counter moves on, so a backward that saved
    # the old values notices. A leaf that requires grad (a parameter) refuses, except
    # under `mg.no_grad()`: the optimizer's update.
    def _inplace(self, op, compute, operands=(), write=None):
        """self <- compute(self), the out-of-place op's result. `write()`, when given, is
        the plain write without a temporary (a ufunc with out=), used when nothing is
        recorded."""
        if self._inference and not autograd.grad_mode.is_inference_mode_enabled():
            raise RuntimeError(
                f"{op}: Inplace update to inference tensor outside InferenceMode is not allowed. You can "
                "make a clone to get a normal tensor before doing inplace update."
            )
        if not self.array.flags.writeable:
            raise RuntimeError(
                f"{op}: unsupported operation: more than one element of the written-to tensor refers to a "
                f"single memory location (a read-only or expanded tensor of shape {self.shape}). Please "
                "clone() the tensor before performing the operation."
            )
        if autograd.inplace.is_recorded(op, self, operands):
            return autograd.inplace.record(self, lambda t: self._checked(op, compute(t)))
        if write is not None:
            write()
        else:
            np.copyto(self.array, self._checked(op, compute(self)).array, casting="unsafe")
        self._version_counter().value += 1
        return self

    def _checked(self, op, result):
        """The result of an in-place op, checked as PyTorch does: it must keep self's
        shape (an operand may broadcast, not grow it) and cast to self's dtype."""
        result = result if isinstance(result, Tensor) else Tensor._make(np.asarray(result))
        self._check_shape(op, result.shape)
        ops.out.check_cast(result.dtype, self.dtype, op)
        return result

    def _check_shape(self, op, shape):
        """An operand of `shape` must broadcast to self's shape, not grow it."""
        if shape == self.shape:
            return
        try:
            out = np.broadcast_shapes(self.shape, shape)
        except ValueError:
            out = None
        if out != self.shape:
            got = f"the broadcast shape {out}" if out else f"an operand of shape {shape}"
            raise RuntimeError(f"{op}: output with shape {self.shape} doesn't match {got}")

    def _ufunc_(self, op, ufunc, other):
        """The plain write of add_/sub_/mul_/div_: straight into the storage, checked."""
        other = other.array if isinstance(other, Tensor) else other
        self._check_shape(op, np.shape(other))
        result_type = np.result_type(self.array, 1.0 if op == "div_" else other)  # div_ is true division
        ops.out.check_cast(result_type, self.dtype, op)
        return lambda: ufunc(self.array, other, out=self.array, casting="unsafe")

    def add_(self, other, *, alpha=1):
        """`self += alpha * other`, in place; returns self."""
        other = ops.elementwise.scaled(self, other, alpha, "add_")
        return self._inplace("add_", lambda t: t + other, (other,), self._ufunc_("add_", np.add, other))

    def sub_(self, other, *, alpha=1):
        """`self -= alpha * other`, in place; returns self."""
        other = ops.elementwise.scaled(self, other, alpha, "sub_")
        return self._inplace("sub_", lambda t: t - other, (other,), self._ufunc_("sub_", np.subtract, other))

    def mul_(self, other):
        """`self *= other`, in place; returns self."""
        return self._inplace("mul_", lambda t: t * other, (other,), self._ufunc_("mul_", np.multiply, other))

    def div_(self, other, *, rounding_mode=None):
        """`self /= other` (with `rounding_mode` 'trunc' or 'floor', an integer division), in
        place; returns self."""
        if rounding_mode is not None:
            return self._inplace("div_", lambda t: t.div(other, rounding_mode=rounding_mode), (other,))
        return self._inplace("div_", lambda t: t / other, (other,), self._ufunc_("div_", np.divide, other))

    def pow_(self, exponent):
        """`self = self ** exponent`, in place; returns self."""
        return self._inplace("pow_", lambda t: t**exponent, (exponent,))

    def __iadd__(self, other):
        return self.add_(other)

    def __isub__(self, other):
        return self.sub_(other)

    def __imul__(self, other):
        return self.mul_(other)

    def __itruediv__(self, other):
        return self.div_(other)

    def copy_(self, src, non_blocking=False):
        """Copy src's values (broadcast to self's shape, cast to self's dtype) into self;
        the gradient flows to src."""
        src = src if isinstance(src, Tensor) else Tensor._from_data(src, self.dtype)
        self._check_shape("copy_", src.shape)
        write = lambda: np.copyto(self.array, src.array, casting="unsafe")  # noqa: E731
        return self._inplace("copy_", lambda t: _replaced(t, src.expand(t.shape).to(t.dtype)), (src,), write)

    def fill_(self, value):
        """Set every element to `value` (a number or a 0-d tensor), in place; returns self."""
        if isinstance(value, Tensor) and value.ndim != 0:
            raise RuntimeError(
                f"fill_ only supports 0-dimension value tensor but got tensor with {value.ndim} dimensions."
            )
        write = lambda: self.array.fill(_data(value))  # noqa: E731
        return self._inplace("fill_", lambda t: _replaced(t, value), (value,), write)

    def zero_(self):
        """Set every element to 0, in place; returns self."""
        return self.fill_(0)

    def clamp_(self, min=None, max=None):
        """Limit the values to [min, max], in place; returns self."""
        return self._inplace("clamp_", lambda t: t.clamp(min, max), (min, max))

    clip_ = clamp_

    def clamp_min_(self, min):
        """Limit the values from below: `clamp_(min=min)`."""
        return self.clamp_(min=min)

    def clamp_max_(self, max):
        """Limit the values from above: `clamp_(max=max)`."""
        return self.clamp_(max=max)

    def exp_(self):
        """exp, in place; returns self."""
        return self._inplace("exp_", Tensor.exp)

    def log_(self):
        """log, in place; returns self."""
        return self._inplace("log_", Tensor.log)

    def sqrt_(self):
        """sqrt, in place; returns self."""
        return self._inplace("sqrt_", Tensor.sqrt)

    def abs_(self):
        """abs, in place; returns self."""
        return self._inplace("abs_", Tensor.abs)

    def neg_(self):
        """Negate in place; returns self."""
        return self._inplace("neg_", Tensor.neg)

    def relu_(self):
        """relu, in place; returns self."""
        return self._inplace("relu_", Tensor.relu)

    def sigmoid_(self):
        """sigmoid, in place; returns self."""
        return self._inplace("sigmoid_", Tensor.sigmoid)

    def tanh_(self):
        """tanh, in place; returns self."""
        return self._inplace("tanh_", Tensor.tanh)

    def floor_(self):
        """floor, in place; returns self."""
        return self._inplace("floor_", Tensor.floor)

    def ceil_(self):
        """ceil, in place; returns self."""
        return self._inplace("ceil_", Tensor.ceil)

    def round_(self, decimals=0):
        """round, in place; returns self."""
        return self._inplace("round_", lambda t: t.round(decimals))

    def reciprocal_(self):
        """1 / x, in place; returns self."""
        return self._inplace("reciprocal_", Tensor.reciprocal)

    # the in-place twins of the elementwise math (minigrad/ops/trig.py, explog.py, ...)
    def sin_(self):
        """sin, in place; returns self."""
        return self._inplace("sin_", Tensor.sin)

    def cos_(self):
        """cos, in place; returns self."""
        return self._inplace("cos_", Tensor.cos)

    def tan_(self):
        """tan, in place; returns self."""
        return self._inplace("tan_", Tensor.tan)

    def asin_(self):
        """asin, in place; returns self."""
        return self._inplace("asin_", Tensor.asin)

    def acos_(self):
        """acos, in place; returns self."""
        return self._inplace("acos_", Tensor.acos)

    def atan_(self):
        """atan, in place; returns self."""
        return self._inplace("atan_", Tensor.atan)

    def sinh_(self):
        """sinh, in place; returns self."""
        return self._inplace("sinh_", Tensor.sinh)

    def cosh_(self):
        """cosh, in place; returns self."""
        return self._inplace("cosh_", Tensor.cosh)

    def asinh_(self):
        """asinh, in place; returns self."""
        return self._inplace("asinh_", Tensor.asinh)

    def acosh_(self):
        """acosh, in place; returns self."""
        return self._inplace("acosh_", Tensor.acosh)

    def atanh_(self):
        """atanh, in place; returns self."""
        return self._inplace("atanh_", Tensor.atanh)

    def atan2_(self, other):
        """atan2(self, other), in place; returns self."""
        return self._inplace("atan2_", lambda t: t.atan2(other), (other,))

    def hypot_(self, other):
        """hypot(self, other), in place; returns self."""
        return self._inplace("hypot_", lambda t: t.hypot(other), (other,))

    arcsin_, arccos_, arctan_, arctan2_ = asin_, acos_, atan_, atan2_
    arcsinh_, arccosh_, arctanh_ = asinh_, acosh_, atanh_

    def sinc_(self):
        """sinc, in place; returns self."""
        return self._inplace("sinc_", Tensor.sinc)

    def deg2rad_(self):
        """Degrees to radians, in place; returns self."""
        return self._inplace("deg2rad_", Tensor.deg2rad)

    def rad2deg_(self):
        """Radians to degrees, in place; returns self."""
        return self._inplace("rad2deg_", Tensor.rad2deg)

    def rsqrt_(self):
        """rsqrt, in place; returns self."""
        return self._inplace("rsqrt_", Tensor.rsqrt)

    def square_(self):
        """square, in place; returns self."""
        return self._inplace("square_", Tensor.square)

    def log1p_(self):
        """log1p, in place; returns self."""
        return self._inplace("log1p_", Tensor.log1p)

    def expm1_(self):
        """expm1, in place; returns self."""
        return self._inplace("expm1_", Tensor.expm1)

    def log2_(self):
        """log2, in place; returns self."""
        return self._inplace("log2_", Tensor.log2)

    def log10_(self):
        """log10, in place; returns self."""
        return self._inplace("log10_", Tensor.log10)

    def exp2_(self):
        """exp2, in place; returns self."""
        return self._inplace("exp2_", Tensor.exp2)

    def logit_(self, eps=None):
        """logit, in place; returns self."""
        return self._inplace("logit_", lambda t: t.logit(eps))

    def xlogy_(self, other):
        """xlogy(self, other), in place; returns self."""
        return self._inplace("xlogy_", lambda t: t.xlogy(other), (other,))

    def float_power_(self, exponent):
        """float_power, in place; self must be float64 (the result's dtype), as in torch."""
        if self.dtype != dtypes.float64:
            raise RuntimeError(
                f"float_power_: the base given to float_power_ has dtype {self.dtype} but the operation's "
                "result requires dtype float64"
            )
        return self._inplace("float_power_", lambda t: t.float_power(exponent), (exponent,))

    def ldexp_(self, other):
        """self * 2^other, in place; returns self."""
        return self._inplace("ldexp_", lambda t: t.ldexp(other), (other,))

    def erf_(self):
        """erf, in place; returns self."""
        return self._inplace("erf_", Tensor.erf)

    def erfc_(self):
        """erfc, in place; returns self."""
        return self._inplace("erfc_", Tensor.erfc)

    def erfinv_(self):
        """erfinv, in place; returns self."""
        return self._inplace("erfinv_", Tensor.erfinv)

    def lgamma_(self):
        """lgamma, in place; returns self."""
        return self._inplace("lgamma_", Tensor.lgamma)

    def digamma_(self):
        """digamma, in place; returns self."""
        return self._inplace("digamma_", Tensor.digamma)

    def polygamma_(self, n):
        """polygamma(n, self), in place; returns self."""
        return self._inplace("polygamma_", lambda t: t.polygamma(n))

    def mvlgamma_(self, p):
        """mvlgamma(self, p), in place; returns self."""
        return self._inplace("mvlgamma_", lambda t: t.mvlgamma(p))

    def i0_(self):
        """i0, in place; returns self."""
        return self._inplace("i0_", Tensor.i0)

    def igamma_(self, other):
        """igamma(self, other), in place; returns self."""
        return self._inplace("igamma_", lambda t: t.igamma(other), (other,))

    def igammac_(self, other):
        """igammac(self, other), in place; returns self."""
        return self._inplace("igammac_", lambda t: t.igammac(other), (other,))

    def sign_(self):
        """sign, in place; returns self."""
        return self._inplace("sign_", Tensor.sign)

    def sgn_(self):
        """sgn, in place; returns self."""
        return self._inplace("sgn_", Tensor.sgn)

    def trunc_(self):
        """trunc, in place; returns self."""
        return self._inplace("trunc_", Tensor.trunc)

    fix_ = trunc_

    def frac_(self):
        """frac, in place; returns self."""
        return self._inplace("frac_", Tensor.frac)

    def fmod_(self, other):
        """fmod(self, other), in place; returns self."""
        return self._inplace("fmod_", lambda t: t.fmod(other), (other,))

    def remainder_(self, other):
        """remainder(self, other), Python's %, in place; returns self."""
        return self._inplace("remainder_", lambda t: t.remainder(other), (other,))

    def floor_divide_(self, other):
        """floor_divide(self, other), Python's //, in place; returns self."""
        return self._inplace("floor_divide_", lambda t: t.floor_divide(other), (other,))

    def copysign_(self, other):
        """copysign(self, other), in place; returns self."""
        return self._inplace("copysign_", lambda t: t.copysign(other), (other,))

    def nextafter_(self, other):
        """nextafter(self, other), in place; returns self."""
        return self._inplace("nextafter_", lambda t: t.nextafter(other), (other,))

    def heaviside_(self, values):
        """heaviside(self, values), in place; returns self."""
        return self._inplace("heaviside_", lambda t: t.heaviside(values), (values,))

    def addcmul_(self, tensor1, tensor2, *, value=1):
        """self += value * tensor1 * tensor2; returns self."""
        compute = lambda t: t.addcmul(tensor1, tensor2, value=value)  # noqa: E731
        return self._inplace("addcmul_", compute, (tensor1, tensor2))

    def addcdiv_(self, tensor1, tensor2, *, value=1):
        """self += value * tensor1 / tensor2; returns self."""
        compute = lambda t: t.addcdiv(tensor1, tensor2, value=value)  # noqa: E731
        return self._inplace("addcdiv_", compute, (tensor1, tensor2))

    def lerp_(self, end, weight):
        """self += weight * (end - self); returns self."""
        return self._inplace("lerp_", lambda t: t.lerp(end, weight), (end, weight))

    def nan_to_num_(self, nan=0.0, posinf=None, neginf=None):
        """nan_to_num, in place; returns self."""
        return self._inplace("nan_to_num_", lambda t: t.nan_to_num(nan, posinf, neginf))

    def gcd_(self, other):
        """gcd(self, other), in place; returns self."""
        return self._inplace("gcd_", lambda t: t.gcd(other), (other,))

    def lcm_(self, other):
        """lcm(self, other), in place; returns self."""
        return self._inplace("lcm_", lambda t: t.lcm(other), (other,))

    def cumsum_(self, dim, *, dtype=None):
        """cumsum along `dim`, in place; returns self."""
        return self._inplace("cumsum_", lambda t: t.cumsum(dim, dtype=dtype))

    def cumprod_(self, dim, *, dtype=None):
        """cumprod along `dim`, in place; returns self."""
        return self._inplace("cumprod_", lambda t: t.cumprod(dim, dtype=dtype))

    # torch's other names for the in-place arithmetic
    negative_, absolute_ = neg_, abs_
    subtract_, multiply_, divide_, true_divide_ = sub_, mul_, div_, div_

    # the in-place comparisons: self <- 1 where the comparison holds, else 0, in self's dtype
    def eq_(self, other):
        """self == other as 1 or 0 in self's dtype, in place; returns self."""
        return self._inplace("eq_", lambda t: ops.compare.compared_in(t, other, np.equal, "eq_"), (other,))

    def ne_(self, other):
        """self != other as 1 or 0 in self's dtype, in place; returns self."""
        return self._inplace("ne_", lambda t: ops.compare.compared_in(t, other, np.not_equal, "ne_"), (other,))

    def lt_(self, other):
        """self < other as 1 or 0 in self's dtype, in place; returns self."""
        return self._inplace("lt_", lambda t: ops.compare.compared_in(t, other, np.less, "lt_"), (other,))

    def le_(self, other):
        """self <= other as 1 or 0 in self's dtype, in place; returns self."""
        return self._inplace("le_", lambda t: ops.compare.compared_in(t, other, np.less_equal, "le_"), (other,))

    def gt_(self, other):
        """self > other as 1 or 0 in self's dtype, in place; returns self."""
        return self._inplace("gt_", lambda t: ops.compare.compared_in(t, other, np.greater, "gt_"), (other,))

    def ge_(self, other):
        """self >= other as 1 or 0 in self's dtype, in place; returns self."""
        return self._inplace("ge_", lambda t: ops.compare.compared_in(t, other, np.greater_equal, "ge_"), (other,))

    greater_, greater_equal_, less_, less_equal_, not_equal_ = gt_, ge_, lt_, le_, ne_

    # the in-place logic and bits: the result, a bool or integer tensor, cast to self's dtype
    def logical_and_(self, other):
        """logical_and(self, other) as 1 or 0 in self's dtype, in place; returns self."""
        return self._inplace("logical_and_", lambda t: t.logical_and(other))

    def logical_or_(self, other):
        """logical_or(self, other) as 1 or 0 in self's dtype, in place; returns self."""
        return self._inplace("logical_or_", lambda t: t.logical_or(other))

    def logical_xor_(self, other):
        """logical_xor(self, other) as 1 or 0 in self's dtype, in place; returns self."""
        return self._inplace("logical_xor_", lambda t: t.logical_xor(other))

    def logical_not_(self):
        """logical_not as 1 or 0 in self's dtype, in place; returns self."""
        return self._inplace("logical_not_", Tensor.logical_not)

    def bitwise_and_(self, other):
        """self &= other; returns self."""
        return self._inplace("bitwise_and_", lambda t: t.bitwise_and(other))

    def bitwise_or_(self, other):
        """self |= other; returns self."""
        return self._inplace("bitwise_or_", lambda t: t.bitwise_or(other))

    def bitwise_xor_(self, other):
        """self ^= other; returns self."""
        return self._inplace("bitwise_xor_", lambda t: t.bitwise_xor(other))

    def bitwise_not_(self):
        """self = ~self; returns self."""
        return self._inplace("bitwise_not_", Tensor.bitwise_not)

    def bitwise_left_shift_(self, other):
        """self <<= other; returns self."""
        return self._inplace("bitwise_left_shift_", lambda t: t.bitwise_left_shift(other))

    def bitwise_right_shift_(self, other):
        """self >>= other; returns self."""
        return self._inplace("bitwise_right_shift_", lambda t: t.bitwise_right_shift(other))

    def __iand__(self, other):
        return self.bitwise_and_(other)

    def __ior__(self, other):
        return self.bitwise_or_(other)

    def __ixor__(self, other):
        return self.bitwise_xor_(other)

    def __ilshift__(self, other):
        return self.bitwise_left_shift_(other)

    def __irshift__(self, other):
        return self.bitwise_right_shift_(other)

    def __ipow__(self, exponent):
        return self.pow_(exponent)

    def __imod__(self, other):
        return self.remainder_(other)

    def __ifloordiv__(self, other):
        return self.floor_divide_(other)

    def masked_fill_(self, mask, value):
        """Set the elements where `mask` (a bool tensor, broadcast) is True to `value`, in
        place; returns self."""
        return self._inplace("masked_fill_", lambda t: ops.index.masked_fill(t, mask, value), (value,))

    def index_fill_(self, dim, index, value):
        """Set the slices `index` along `dim` to `value`, in place; returns self."""
        return self._inplace("index_fill_", lambda t: ops.index.index_fill(t, dim, index, value), (value,))

    def scatter_(self, dim, index, src=None, *, value=None, reduce=None):
        """scatter, in place: write `src` (or `value`) at `index` along `dim`; returns self."""
        compute = lambda t: ops.index.scatter(t, dim, index, src, value=value, reduce=reduce)  # noqa: E731
        return self._inplace("scatter_", compute, (src,))

    def scatter_add_(self, dim, index, src):
        """scatter_add, in place: add `src` at `index` along `dim`; returns self."""
        return self._inplace("scatter_add_", lambda t: ops.index.scatter_add(t, dim, index, src), (src,))

    # In-place view ops change the shape (and strides) the tensor sees its storage with,
    # not its values: the tensor becomes the view (autograd/inplace.py, change_view).
    def _inplace_view(self, op, view):
        if self._inference and not autograd.grad_mode.is_inference_mode_enabled():
            raise RuntimeError(f"{op}: Inplace update to inference tensor outside InferenceMode is not allowed.")
        try:
            return autograd.inplace.change_view(self, view)
        except RuntimeError as e:
            raise RuntimeError(str(e).replace("in-place view op", op, 1)) from None

    def squeeze_(self, dim=None):
        """squeeze, in place: this tensor loses its size-1 dims (or only `dim`); returns self."""
        return self._inplace_view("squeeze_", lambda t: t.squeeze(dim))

    def unsqueeze_(self, dim):
        """unsqueeze, in place: this tensor gains a size-1 dim at `dim`; returns self."""
        return self._inplace_view("unsqueeze_", lambda t: t.unsqueeze(dim))

    def transpose_(self, dim0, dim1):
        """transpose, in place: this tensor's dims `dim0` and `dim1` swap; returns self."""
        return self._inplace_view("transpose_", lambda t: t.transpose(dim0, dim1))

    swapaxes_ = swapdims_ = transpose_

    def t_(self):
        """t, in place: this matrix becomes its transpose; returns self."""
        return self._inplace_view("t_", Tensor.t)

    def as_strided_(self, size, stride, storage_offset=None):
        """as_strided, in place: this tensor sees its storage with new sizes and strides;
        returns self."""
        return self._inplace_view("as_strided_", lambda t: t.as_strided(size, stride, storage_offset))

    def addmm_(self, mat1, mat2, *, beta=1, alpha=1):
        """addmm, in place: self = beta * self + alpha * (mat1 @ mat2); returns self."""
        compute = lambda t: ops.linalg.addmm(t, mat1, mat2, beta=beta, alpha=alpha)  # noqa: E731
        return self._inplace("addmm_", compute, (mat1, mat2))

    def addmv_(self, mat, vec, *, beta=1, alpha=1):
        """addmv, in place: self = beta * self + alpha * (mat @ vec); returns self."""
        compute = lambda t: ops.linalg.addmv(t, mat, vec, beta=beta, alpha=alpha)  # noqa: E731
        return self._inplace("addmv_", compute, (mat, vec))

    def addr_(self, vec1, vec2, *, beta=1, alpha=1):
        """addr, in place: self = beta * self + alpha * outer(vec1, vec2); returns self."""
        compute = lambda t: ops.linalg.addr(t, vec1, vec2, beta=beta, alpha=alpha)  # noqa: E731
        return self._inplace("addr_", compute, (vec1, vec2))

    def addbmm_(self, batch1, batch2, *, beta=1, alpha=1):
        """addbmm, in place: self = beta * self + alpha * sum_b batch1[b] @ batch2[b]; returns self."""
        compute = lambda t: ops.linalg.addbmm(t, batch1, batch2, beta=beta, alpha=alpha)  # noqa: E731
        return self._inplace("addbmm_", compute, (batch1, batch2))

    def baddbmm_(self, batch1, batch2, *, beta=1, alpha=1):
        """baddbmm, in place: self = beta * self + alpha * (batch1 @ batch2); returns self."""
        compute = lambda t: ops.linalg.baddbmm(t, batch1, batch2, beta=beta, alpha=alpha)  # noqa: E731
        return self._inplace("baddbmm_", compute, (batch1, batch2))

    def renorm_(self, p, dim, maxnorm):
        """renorm, in place: the slices along `dim` scaled down to p-norm at most `maxnorm`;
        returns self."""
        return self._inplace("renorm_", lambda t: ops.norms.renorm(t, p, dim, maxnorm))

    def tril_(self, diagonal=0):
        """tril, in place: zero the elements above the `diagonal`-th diagonal; returns self."""
        return self._inplace("tril_", lambda t: t.tril(diagonal))

    def triu_(self, diagonal=0):
        """triu, in place: zero the elements below the `diagonal`-th diagonal; returns self."""
        return self._inplace("triu_", lambda t: t.triu(diagonal))

    def index_add_(self, dim, index, source, *, alpha=1):
        """index_add, in place: add `alpha * source` at the slices `index` along `dim`; returns self."""
        compute = lambda t: ops.index_write.index_add(t, dim, index, source, alpha=alpha)  # noqa: E731
        return self._inplace("index_add_", compute, (source,))

    def index_copy_(self, dim, index, source):
        """index_copy, in place: replace the slices `index` along `dim` by source's; returns self."""
        return self._inplace("index_copy_", lambda t: ops.index_write.index_copy(t, dim, index, source), (source,))

    def index_put_(self, indices, values, accumulate=False):
        """index_put, in place: write (or add) `values` at `self[indices]`; returns self."""
        compute = lambda t: ops.index_write.index_put(t, indices, values, accumulate)  # noqa: E731
        return self._inplace("index_put_", compute, (values,))

    def put_(self, index, source, accumulate=False):
        """put, in place: write (or add) `source` at the flat positions `index`; returns self."""
        return self._inplace("put_", lambda t: ops.index_write.put(t, index, source, accumulate), (source,))

    def masked_scatter_(self, mask, source):
        """masked_scatter, in place: fill the masked places in order from `source`; returns self."""
        return self._inplace("masked_scatter_", lambda t: ops.index_write.masked_scatter(t, mask, source), (source,))

    def scatter_reduce_(self, dim, index, src, reduce, *, include_self=True):
        """scatter_reduce, in place: reduce `src` into the places `index` names; returns self."""
        compute = lambda t: ops.scatter_reduce.scatter_reduce(t, dim, index, src, reduce, include_self=include_self)  # noqa: E731
        return self._inplace("scatter_reduce_", compute, (src,))

    def index_reduce_(self, dim, index, source, reduce, *, include_self=True):
        """index_reduce, in place: reduce source's slices into the slices `index`; returns self."""
        compute = lambda t: ops.scatter_reduce.index_reduce(t, dim, index, source, reduce, include_self=include_self)  # noqa: E731
        return self._inplace("index_reduce_", compute, (source,))

    def fill_diagonal_(self, fill_value, wrap=False):
        """Set the main diagonal (the elements whose indices are all equal) to `fill_value`, in
        place; returns self. A 2-D tensor may be any shape; with more dims all must be equal.
        With `wrap=True`, a tall matrix's diagonal starts again below a row left out, every
        columns + 1 rows, as NumPy's fill_diagonal."""
        if self.ndim < 2:
            raise RuntimeError(f"fill_diagonal_: dimensions must larger than 1, got shape {tuple(self.shape)}")
        if self.ndim > 2 and len(set(self.shape)) != 1:
            raise RuntimeError(
                f"fill_diagonal_: all dimensions of input must be of equal length, got {tuple(self.shape)}"
            )
        on_diagonal = np.zeros(self.shape, dtype=bool)
        np.fill_diagonal(on_diagonal, True, wrap=wrap)
        mask = Tensor._make(on_diagonal)
        return self._inplace("fill_diagonal_", lambda t: ops.index.masked_fill(t, mask, fill_value))

    # The random fills draw from the global generator, or from `generator=` (a
    # mg.Generator, or a NumPy Generator), which leaves the global stream untouched.
    def uniform_(self, a=0.0, b=1.0, *, generator=None):
        """Fill with samples from U(a, b), drawn from the global generator (or `generator`),
        in place; returns self."""
        rng = _random.numpy_generator(generator, "uniform_")
        return self._inplace("uniform_", lambda t: _replaced(t, rng.uniform(a, b, size=t.shape)))

    def normal_(self, mean=0.0, std=1.0, *, generator=None):
        """Fill with samples from N(mean, std^2), drawn from the global generator (or
        `generator`), in place; returns self."""
        rng = _random.numpy_generator(generator, "normal_")
        return self._inplace("normal_", lambda t: _replaced(t, rng.normal(mean, std, size=t.shape)))

    def random_(self, from_=0, to=None, *, generator=None):
        """Fill with integers uniform in [from_, to), in place (`random_(to)` for [0, to));
        without bounds, [0, 2**mantissa] for a float dtype or the dtype's range for an
        integer one, as torch's `random_(from, to)` (`from` is a Python keyword, so the
        first argument is positional here). Returns self."""
        if to is None and from_ != 0:
            from_, to = 0, from_
        if to is None:
            to = 2 ** (np.finfo(self.dtype).nmant + 1) + 1 if self.dtype.kind == "f" else None
            to = to if to is not None else (2 if self.dtype.kind == "b" else int(np.iinfo(self.dtype).max) + 1)
        if to <= from_:
            raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={from_} >= to={to}")
        rng = _random.numpy_generator(generator, "random_")
        return self._inplace("random_", lambda t: _replaced(t, rng.integers(from_, to, size=t.shape)))

    def bernoulli_(self, p=0.5, *, generator=None):
        """Fill with 1 (probability p, a number or a tensor) or 0, in place; returns self."""
        compute = lambda t: _replaced(t, ops.sampling.bernoulli(t, p, generator=generator).array)  # noqa: E731
        return self._inplace("bernoulli_", compute)

    def exponential_(self, lambd=1.0, *, generator=None):
        """Fill with samples of the exponential distribution of rate `lambd` (mean 1/lambd),
        in place; returns self."""
        rng = _random.numpy_generator(generator, "exponential_")
        return self._inplace("exponential_", lambda t: _replaced(t, rng.exponential(1.0 / lambd, size=t.shape)))

    def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
        """Fill with samples of the Cauchy distribution, median + sigma * tan(pi (u - 1/2)),
        in place; returns self."""
        rng = _random.numpy_generator(generator, "cauchy_")
        return self._inplace("cauchy_", lambda t: _replaced(t, median + sigma * rng.standard_cauchy(t.shape)))

    def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
        """Fill with samples of exp(N(mean, std^2)) (mean and std of the underlying normal),
        in place; returns self."""
        rng = _random.numpy_generator(generator, "log_normal_")
        return self._inplace("log_normal_", lambda t: _replaced(t, rng.lognormal(mean, std, size=t.shape)))

    def geometric_(self, p, *, generator=None):
        """Fill with the number of Bernoulli(p) trials up to the first success (1, 2, ...),
        in place; returns self."""
        if not 0 < p <= 1:
            raise RuntimeError(f"geometric_ expects p to be in (0, 1], but got p={p}")
        rng = _random.numpy_generator(generator, "geometric_")
        return self._inplace("geometric_", lambda t: _replaced(t, rng.geometric(p, size=t.shape)))

    def __setitem__(self, index, value):
        index = ops.index.normalize_index(index)
        write = lambda: ops.index.assign(self, index, _data(value))  # noqa: E731
        self._inplace("setitem", lambda t: ops.index.index_put(t, index, value), (value,), write)

    # ---- indexing ---------------------------------------------------------------------
    def __getitem__(self, index):
        return ops.index.GetItem.apply(self, index=ops.index.normalize_index(index))

    # ---- math -------------------------------------------------------------------------
    def exp(self):
        """y = e^x; dL/dx = dL/dy * y."""
        return ops.elementwise.Exp.apply(ops.promotion.floating(self))

    def log(self):
        """y = ln x (natural log); dL/dx = dL/dy / x."""
        return ops.elementwise.Log.apply(ops.promotion.floating(self))

    def sqrt(self):
        """y = sqrt(x); dL/dx = dL/dy / (2 y)."""
        return ops.elementwise.Sqrt.apply(ops.promotion.floating(self))

    def rsqrt(self):
        """y = 1 / sqrt(x); dL/dx = dL/dy * (-y^3 / 2)."""
        return ops.elementwise.Rsqrt.apply(ops.promotion.floating(self))

    def sin(self):
        """y = sin x; dL/dx = dL/dy * cos x."""
        return ops.elementwise.Sin.apply(ops.promotion.floating(self))

    def cos(self):
        """y = cos x; dL/dx = -dL/dy * sin x."""
        return ops.elementwise.Cos.apply(ops.promotion.floating(self))

    def tanh(self):
        """y = tanh x; dL/dx = dL/dy * (1 - y^2)."""
        return ops.elementwise.Tanh.apply(ops.promotion.floating(self))

    def sigmoid(self):
        """y = 1 / (1 + e^-x); dL/dx = dL/dy * y (1 - y)."""
        return ops.elementwise.Sigmoid.apply(ops.promotion.floating(self))

    def erf(self):
        """y = erf(x); dL/dx = dL/dy * 2 / sqrt(pi) * exp(-x^2)."""
        return ops.elementwise.Erf.apply(ops.promotion.floating(self))

    def relu(self):
        """y = max(x, 0); dL/dx = dL/dy where x > 0, else 0."""
        return ops.elementwise.Relu.apply(self)

    def prelu(self, weight):
        """y = x where x > 0, else weight * x, one learned slope per channel (dim 1) or one
        for all; as `F.prelu`."""
        return ops.piecewise.prelu(self, weight)

    def hardshrink(self, lambd=0.5):
        """y = x where |x| > lambd, else 0; dL/dx = dL/dy where |x| > lambd; as `F.hardshrink`."""
        return ops.piecewise.hardshrink(self, lambd)

    def abs(self):
        """y = |x|; dL/dx = dL/dy * sign(x) (0 at x = 0, as PyTorch)."""
        return ops.elementwise.Abs.apply(self)

    def sign(self):
        """-1, 0 or 1 by the sign of x; its gradient is zero everywhere (of a bool tensor:
        a copy)."""
        if self.dtype.kind == "b":
            return Tensor._make(self.array.copy())
        return ops.elementwise.Sign.apply(self)

    def floor(self):
        """The largest integer <= x, elementwise; its gradient is zero (a step function)."""
        return ops.elementwise.Floor.apply(self)

    def ceil(self):
        """The smallest integer >= x, elementwise; its gradient is zero (a step function)."""
        return ops.elementwise.Ceil.apply(self)

    def round(self, decimals=0):
        """x rounded to `decimals` places, halves to even (as PyTorch); its gradient is zero."""
        return ops.elementwise.Round.apply(self, decimals=decimals)

    def pow(self, exponent):
        """y = x ** exponent, the same as the `**` operator;
        dL/dx = dL/dy * exponent * x^(exponent - 1).
        """
        return self**exponent

    def square(self):
        """y = x * x; dL/dx = dL/dy * 2x (a bool tensor squares to int64, as `x ** 2` in torch)."""
        x = self.to(dtypes.int64) if self.dtype.kind == "b" else self
        return x * x

    def reciprocal(self):
        """y = 1 / x; dL/dx = -dL/dy / x^2."""
        return 1.0 / self

    def clamp(self, min=None, max=None):
        """Limit values to [min, max]; the gradient passes where min <= x <= max."""
        if min is None and max is None:
            raise ValueError("clamp: at least one of min and max must be given")
        if isinstance(min, Tensor) or isinstance(max, Tensor):
            # `where`, not maximum/minimum: at a tie x keeps the whole gradient, as PyTorch
            out = self if min is None else ops.elementwise.where(self < min, min, self)
            return out if max is None else ops.elementwise.where(out > max, max, out)
        x = self
        for bound in (min, max):  # an int tensor clamped to a float bound becomes float32, as PyTorch
            if bound is not None and dtypes.scalar_result_type(x.dtype, bound) != x.dtype:
                x = x.to(dtypes.scalar_result_type(x.dtype, bound))
        return ops.elementwise.Clamp.apply(x, min=min, max=max)

    clip = clamp
    """An alias of clamp (NumPy's name)."""

    def maximum(self, other):
        """The elementwise larger of self and other (broadcast); the gradient goes to the larger,
        split in half at a tie (as PyTorch).
        """
        return ops.elementwise.maximum(self, other)

    def minimum(self, other):
        """The elementwise smaller of self and other (broadcast); the gradient goes to the smaller,
        split in half at a tie (as PyTorch).
        """
        return ops.elementwise.minimum(self, other)

    def softmax(self, dim):
        """exp(x) / sum(exp(x)) along `dim`, computed stably; dL/dx = y * (dL/dy - sum(dL/dy * y))."""
        return ops.activation.Softmax.apply(ops.promotion.floating(self), dim=normalize_dim(dim, self.ndim, "softmax"))

    def log_softmax(self, dim):
        """x - logsumexp(x) along `dim`, computed stably; dL/dx = dL/dy - softmax(x) * sum(dL/dy)."""
        return ops.activation.LogSoftmax.apply(
            ops.promotion.floating(self), dim=normalize_dim(dim, self.ndim, "log_softmax")
        )

    # ---- math: the long tail (minigrad/ops/trig.py, explog.py, special_functions.py, ...) --
    # Integer and bool tensors are computed in the default float dtype, as torch does.
    def tan(self):
        """y = tan x; dL/dx = dL/dy * (1 + y^2)."""
        return ops.trig.Tan.apply(ops.promotion.floating(self))

    def asin(self):
        """y = asin x, in [-pi/2, pi/2]; dL/dx = dL/dy / sqrt(1 - x^2)."""
        return ops.trig.Asin.apply(ops.promotion.floating(self))

    def acos(self):
        """y = acos x, in [0, pi]; dL/dx = -dL/dy / sqrt(1 - x^2)."""
        return ops.trig.Acos.apply(ops.promotion.floating(self))

    def atan(self):
        """y = atan x, in (-pi/2, pi/2); dL/dx = dL/dy / (1 + x^2)."""
        return ops.trig.Atan.apply(ops.promotion.floating(self))

    def sinh(self):
        """y = sinh x; dL/dx = dL/dy * cosh x."""
        return ops.trig.Sinh.apply(ops.promotion.floating(self))

    def cosh(self):
        """y = cosh x; dL/dx = dL/dy * sinh x."""
        return ops.trig.Cosh.apply(ops.promotion.floating(self))

    def asinh(self):
        """y = asinh x; dL/dx = dL/dy / sqrt(x^2 + 1)."""
        return ops.trig.Asinh.apply(ops.promotion.floating(self))

    def acosh(self):
        """y = acosh x (x >= 1); dL/dx = dL/dy / sqrt(x^2 - 1)."""
        return ops.trig.Acosh.apply(ops.promotion.floating(self))

    def atanh(self):
        """y = atanh x (|x| < 1); dL/dx = dL/dy / (1 - x^2)."""
        return ops.trig.Atanh.apply(ops.promotion.floating(self))

    def atan2(self, other):
        """z = atan2(self, other), the angle of the point (other, self); see `mg.atan2`."""
        return ops.trig.atan2(self, other)

    def hypot(self, other):
        """z = sqrt(self^2 + other^2), without overflow; see `mg.hypot`."""
        return ops.trig.hypot(self, other)

    arcsin, arccos, arctan, arctan2 = asin, acos, atan, atan2
    arcsinh, arccosh, arctanh = asinh, acosh, atanh

    def sinc(self):
        """y = sin(pi x) / (pi x), 1 at x = 0; dL/dx = dL/dy * (cos(pi x) - y) / x (0 at 0)."""
        return ops.trig.Sinc.apply(ops.promotion.floating(self))

    def deg2rad(self):
        """y = x * pi / 180; dL/dx = dL/dy * pi / 180."""
        return ops.promotion.floating(self) * (math.pi / 180.0)

    def rad2deg(self):
        """y = x * 180 / pi; dL/dx = dL/dy * 180 / pi."""
        return ops.promotion.floating(self) * (180.0 / math.pi)

    def log1p(self):
        """y = ln(1 + x), accurate for tiny x; dL/dx = dL/dy / (1 + x)."""
        return ops.explog.Log1p.apply(ops.promotion.floating(self))

    def expm1(self):
        """y = e^x - 1, accurate for tiny x; dL/dx = dL/dy * (y + 1)."""
        return ops.explog.Expm1.apply(ops.promotion.floating(self))

    def log2(self):
        """y = log2 x; dL/dx = dL/dy / (x ln 2)."""
        return ops.explog.Log2.apply(ops.promotion.floating(self))

    def log10(self):
        """y = log10 x; dL/dx = dL/dy / (x ln 10)."""
        return ops.explog.Log10.apply(ops.promotion.floating(self))

    def exp2(self):
        """y = 2^x; dL/dx = dL/dy * y ln 2."""
        return ops.explog.Exp2.apply(ops.promotion.floating(self))

    def logit(self, eps=None):
        """y = ln(p / (1 - p)), p = x clamped to [eps, 1 - eps] if eps is given; dL/dx =
        dL/dy / (x (1 - x)), 0 where the clamp holds x."""
        return ops.explog.Logit.apply(ops.promotion.floating(self), eps=eps)

    def xlogy(self, other):
        """z = self * ln(other), 0 where self is 0; see `mg.xlogy`."""
        return ops.explog.xlogy(self, other)

    def logaddexp(self, other):
        """z = ln(e^self + e^other), without overflow; see `mg.logaddexp`."""
        return ops.explog.logaddexp(self, other)

    def logaddexp2(self, other):
        """z = log2(2^self + 2^other), without overflow; see `mg.logaddexp2`."""
        return ops.explog.logaddexp2(self, other)

    def float_power(self, exponent):
        """self ** exponent computed in float64; see `mg.float_power`."""
        return ops.explog.float_power(self, exponent)

    def ldexp(self, other):
        """self * 2^other; see `mg.ldexp`."""
        return ops.explog.ldexp(self, other)

    def frexp(self):
        """(mantissa, exponent) with self = mantissa * 2^exponent; see `mg.frexp`."""
        return ops.explog.frexp(self)

    def erfc(self):
        """y = erfc x = 1 - erf x; dL/dx = -dL/dy * 2 / sqrt(pi) * exp(-x^2)."""
        return ops.special_functions.Erfc.apply(ops.promotion.floating(self))

    def erfinv(self):
        """y = erfinv x (erf y = x); dL/dx = dL/dy * sqrt(pi) / 2 * exp(y^2)."""
        return ops.special_functions.Erfinv.apply(ops.promotion.floating(self))

    def lgamma(self):
        """y = ln |Gamma(x)|; dL/dx = dL/dy * digamma(x)."""
        return ops.special_functions.Lgamma.apply(ops.promotion.floating(self))

    def digamma(self):
        """y = digamma(x) = d/dx ln Gamma(x); dL/dx = dL/dy * polygamma(1, x)."""
        return ops.special_functions.Polygamma.apply(ops.promotion.floating(self), n=0)

    def polygamma(self, n):
        """y = polygamma(n, x), the n-th derivative of digamma; dL/dx = dL/dy * polygamma(n + 1, x)."""
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise RuntimeError(f"polygamma(n, x) does not support negative n (or a non-integer n), got {n!r}")
        return ops.special_functions.Polygamma.apply(ops.promotion.floating(self), n=n)

    def mvlgamma(self, p):
        """y = lgamma(x) + lgamma(x - 1/2) + ... + lgamma(x - (p-1)/2) + p (p - 1) / 4 * ln(pi),
        the log of the multivariate gamma function; dL/dx = dL/dy * (the sum of the same
        digammas)."""
        return ops.special_functions.multivariate_lgamma(self, p)

    def i0(self):
        """y = I0(x), the modified Bessel function of order 0; dL/dx = dL/dy * I1(x)."""
        return ops.special_functions.I0.apply(ops.promotion.floating(self))

    def igamma(self, other):
        """z = P(self, other), the regularized lower incomplete gamma function; see `mg.igamma`."""
        return ops.special_functions.igamma(self, other)

    def igammac(self, other):
        """z = Q(self, other) = 1 - P(self, other); see `mg.igammac`."""
        return ops.special_functions.igammac(self, other)

    def sgn(self):
        """The sign of x, -1, 0 or 1 (for real tensors, sign); its gradient is zero."""
        return self.sign()

    def trunc(self):
        """x rounded toward zero, elementwise; its gradient is zero (a step function)."""
        if self.dtype.kind == "b":
            raise NotImplementedError("trunc: not implemented for bool tensors")
        return ops.rounding.Trunc.apply(self)

    fix = trunc
    """An alias of trunc (NumPy's name)."""

    def frac(self):
        """y = x - trunc(x), the fractional part with x's sign; dL/dx = dL/dy."""
        if self.dtype.kind != "f":
            raise NotImplementedError(f"frac: not implemented for {self.dtype} tensors; expected floating point")
        return ops.rounding.Frac.apply(self)

    def fmod(self, other):
        """The remainder of self / other with self's sign (C's fmod); see `mg.fmod`."""
        return ops.rounding.fmod(self, other)

    def remainder(self, other):
        """The remainder of self / other with other's sign, as `%`; see `mg.remainder`."""
        return ops.rounding.remainder(self, other)

    def floor_divide(self, other):
        """self / other rounded down, as `//`; its gradient is zero."""
        return ops.rounding.floor_divide(self, other)

    def true_divide(self, other):
        """self / other, true division (integers give floats), as `/`."""
        return self / other

    def copysign(self, other):
        """|self| with other's sign; see `mg.copysign`."""
        return ops.rounding.copysign(self, other)

    def nextafter(self, other):
        """The next float after self toward other; see `mg.nextafter`."""
        return ops.rounding.nextafter(self, other)

    def heaviside(self, values):
        """The step function: 0 below 0, values at 0, 1 above; see `mg.heaviside`."""
        return ops.rounding.heaviside(self, values)

    def addcmul(self, tensor1, tensor2, *, value=1):
        """self + value * tensor1 * tensor2; see `mg.addcmul`."""
        return ops.arithmetic.addcmul(self, tensor1, tensor2, value=value)

    def addcdiv(self, tensor1, tensor2, *, value=1):
        """self + value * tensor1 / tensor2; see `mg.addcdiv`."""
        return ops.arithmetic.addcdiv(self, tensor1, tensor2, value=value)

    def lerp(self, end, weight):
        """self + weight * (end - self), linear interpolation; see `mg.lerp`."""
        return ops.arithmetic.lerp(self, end, weight)

    def fmax(self, other):
        """The larger of the two, ignoring NaN; see `mg.fmax`."""
        return ops.arithmetic.fmax(self, other)

    def fmin(self, other):
        """The smaller of the two, ignoring NaN; see `mg.fmin`."""
        return ops.arithmetic.fmin(self, other)

    def nan_to_num(self, nan=0.0, posinf=None, neginf=None):
        """NaN, +inf and -inf replaced by numbers; see `mg.nan_to_num`."""
        return ops.arithmetic.nan_to_num(self, nan, posinf, neginf)

    def gcd(self, other):
        """The greatest common divisor, elementwise (integer tensors)."""
        return ops.arithmetic.gcd(self, other)

    def lcm(self, other):
        """The least common multiple, elementwise (integer tensors)."""
        return ops.arithmetic.lcm(self, other)

    def positive(self):
        """self itself, as `+self` (bool tensors raise, as in torch)."""
        return ops.arithmetic.positive(self)

    absolute = abs
    """An alias of abs: |x|."""

    # ---- reductions ---------------------------------------------------------------------
    def sum(self, dim=None, keepdim=False, dtype=None):
        """Sum over `dim` (an int, a tuple, or None for all), keeping reduced dims as size 1 if
        `keepdim`. dL/dx = dL/dy broadcast back over the summed dims. Integer sums are int64.
        """
        x = self if dtype is None else self.to(dtype)
        if x.dtype.kind in "biu" and x.dtype != np.int64:
            x = x.to(np.int64)  # integer sums do not overflow their input type, as PyTorch
        return ops.reduce.Sum.apply(x, dim=normalize_dims(dim, x.ndim, "sum"), keepdim=keepdim)

    def mean(self, dim=None, keepdim=False):
        """Mean over `dim` (an int, a tuple, or None for all); floating point only.
        dL/dx = dL/dy / N broadcast back, N the number of elements averaged.
        """
        if self.dtype.kind != "f":
            raise RuntimeError(f"mean: input dtype must be floating point, got {self.dtype}")
        axes = normalize_dims(dim, self.ndim, "mean")
        count = ops.reduce.reduced_count(self.shape, axes)
        total = ops.reduce.Sum.apply(self, dim=axes, keepdim=keepdim)
        # the mean of no elements is 0 / 0 = nan, as torch; a product, so NumPy does not
        # warn of a division by zero (the loss of an empty batch, reduction='mean')
        return total / count if count else total * float("nan")

    def var(self, dim=None, correction=1, keepdim=False, unbiased=None):
        """Variance sum((x - mean)^2) / (N - correction); correction=1 is Bessel's."""
        if unbiased is not None:
            correction = int(unbiased)
        x = ops.promotion.floating(self)
        axes = normalize_dims(dim, x.ndim, "var")
        count = ops.reduce.reduced_count(x.shape, axes)
        centred = x - x.mean(dim=axes, keepdim=True)
        return (centred * centred).sum(dim=axes, keepdim=keepdim) / max(count - correction, 0)

    def std(self, dim=None, correction=1, keepdim=False, unbiased=None):
        """Standard deviation sqrt(var) over `dim`, with `correction=1` (Bessel's) by default:
        dL/dx = dL/dy * (x - mean) / ((N - correction) * std).
        """
        dim = normalize_dims(dim, self.ndim, "std")  # here, so that errors name std, not var
        return ops.reduce.Std.apply(self.var(dim=dim, correction=correction, keepdim=keepdim, unbiased=unbiased))

    def max(self, dim=None, keepdim=False):
        """Without dim: the largest element. With dim: a (values, indices) pair."""
        if isinstance(dim, Tensor):
            return ops.elementwise.maximum(self, dim)
        return ops.reduce.max_or_min(self, dim, keepdim, largest=True)

    def min(self, dim=None, keepdim=False):
        """Without dim: the smallest element. With dim: a (values, indices) pair. The gradient goes
        to the element(s) chosen (with dim, to the index returned).
        """
        if isinstance(dim, Tensor):
            return ops.elementwise.minimum(self, dim)
        return ops.reduce.max_or_min(self, dim, keepdim, largest=False)

    def amax(self, dim=None, keepdim=False):
        """The largest value over `dim` (an int or tuple; all by default), without indices; the
        gradient is shared evenly between tied maxima.
        """
        return ops.reduce.Amax.apply(self, dim=normalize_dims(dim, self.ndim, "amax"), keepdim=keepdim, largest=True)

    def amin(self, dim=None, keepdim=False):
        """The smallest value over `dim` (an int or tuple; all by default), without indices; the
        gradient is shared evenly between tied minima.
        """
        return ops.reduce.Amax.apply(self, dim=normalize_dims(dim, self.ndim, "amin"), keepdim=keepdim, largest=False)

    def argmax(self, dim=None, keepdim=False):
        """The index of the largest element (of the flattened tensor, or along `dim`); int64, no gradient."""
        return ops.reduce.arg_extreme(self, dim, keepdim, np.argmax, "argmax")

    def argmin(self, dim=None, keepdim=False):
        """The index of the smallest element (of the flattened tensor, or along `dim`); int64, no gradient."""
        return ops.reduce.arg_extreme(self, dim, keepdim, np.argmin, "argmin")

    def prod(self, dim=None, keepdim=False):
        """The product over `dim` (or all elements); dL/dx_i = dL/dy times the product of the
        other elements (zeros handled).
        """
        if dim is not None and not isinstance(dim, int):
            raise TypeError(f"prod: dim must be an int or None, got {dim!r}")
        return ops.reduce.Prod.apply(
            self, dim=None if dim is None else normalize_dim(dim, self.ndim, "prod"), keepdim=keepdim
        )

    def logsumexp(self, dim, keepdim=False):
        """log(sum(exp(x))) over `dim`, computed stably as m + log(sum(exp(x - m))) with m the max;
        dL/dx = dL/dy * softmax(x).
        """
        return ops.reduce.LogSumExp.apply(
            ops.promotion.floating(self), dim=normalize_dims(dim, self.ndim, "logsumexp"), keepdim=keepdim
        )

    def norm(self, p="fro", dim=None, keepdim=False, dtype=None):
        """The p-norm over `dim` (the Frobenius / 2-norm by default): (sum |x|^p)^(1/p); for p = 2,
        dL/dx = dL/dy * x / norm.
        """
        return ops.reduce.norm_function(self, p, dim, keepdim, dtype=dtype)

    def cumsum(self, dim, *, dtype=None):
        """Running sums along `dim`: y_i = x_0 + ... + x_i; dL/dx is the reversed running sum of dL/dy."""
        return ops.reduce.cumsum(self, dim, dtype=dtype)

    def cumprod(self, dim, *, dtype=None):
        """Running products along `dim`: y_i = x_0 * ... * x_i."""
        return ops.reduce.cumprod(self, dim, dtype=dtype)

    # ---- shape ----------------------------------------------------------------------------
    def reshape(self, *shape):
        """The same elements in a new shape (one size may be -1, inferred). A view when the memory
        allows; dL/dx is dL/dy reshaped back.
        """
        shape = ops.shape.infer_shape(size_args(shape), self.array.size, self.shape, "reshape")
        if shape == self.shape:
            return self if not self.requires_grad else ops.shape.Reshape.apply(self, shape=shape)
        return ops.shape.Reshape.apply(self, shape=shape)

    def view(self, *shape):
        """The same elements in a new shape, sharing this tensor's memory: never a copy, so
        it raises where the strides allow no such view (`x.T.view(-1)`; use reshape, which
        copies then). dL/dx is dL/dy reshaped back. `view(dtype)` converts to that dtype
        (a copy; PyTorch reinterprets the bytes).
        """
        if len(shape) == 1 and not isinstance(shape[0], (int, tuple, list)):
            return self.to(shape[0])
        shape = ops.shape.infer_shape(size_args(shape), self.array.size, self.shape, "view")
        return ops.shape.View.apply(self, shape=shape)

    def view_as(self, other):
        """view(other.shape): a view, never a copy."""
        return self.view(other.shape)

    def reshape_as(self, other):
        """reshape(other.shape)."""
        return self.reshape(other.shape)

    def flatten(self, start_dim=0, end_dim=-1):
        """Merge dims `start_dim`..`end_dim` into one (all of them by default); a reshape."""
        if self.ndim == 0:
            return self.reshape(1)
        start = normalize_dim(start_dim, self.ndim, "flatten")
        end = normalize_dim(end_dim, self.ndim, "flatten")
        if start > end:
            raise ValueError(f"flatten: start_dim {start_dim} comes after end_dim {end_dim} for shape {self.shape}")
        size = int(np.prod(self.shape[start : end + 1]))
        return self.reshape(self.shape[:start] + (size,) + self.shape[end + 1 :])

    def unflatten(self, dim, sizes):
        """Split dim `dim` into `sizes` (one may be -1); the inverse of flatten, a reshape."""
        d = normalize_dim(dim, self.ndim, "unflatten")
        sizes = ops.shape.infer_shape(tuple(sizes), self.shape[d], (self.shape[d],), "unflatten")
        return self.reshape(self.shape[:d] + sizes + self.shape[d + 1 :])

    def squeeze(self, dim=None):
        """Remove size-1 dims (all of them, or only `dim`, an int or tuple); a reshape."""
        if dim is None:
            return self.reshape(tuple(s for s in self.shape if s != 1))
        dims = distinct_dims(dim if isinstance(dim, (tuple, list)) else (dim,), self.ndim, "squeeze")
        return self.reshape(tuple(s for i, s in enumerate(self.shape) if not (i in dims and s == 1)))

    def unsqueeze(self, dim):
        """Insert a size-1 dim at position `dim`; a reshape."""
        d = normalize_dim(dim, self.ndim + 1, "unsqueeze")
        return self.reshape(self.shape[:d] + (1,) + self.shape[d:])

    def permute(self, *dims):
        """Reorder the dims (`dims[i]` is the input dim that becomes dim i); a view. dL/dx is dL/dy
        permuted by the inverse permutation.
        """
        dims = size_args(dims)
        if len(dims) != self.ndim:
            raise RuntimeError(f"permute: got {len(dims)} dims {dims} for a tensor of shape {self.shape}")
        dims = tuple(normalize_dim(d, self.ndim, "permute") for d in dims)
        if sorted(dims) != list(range(self.ndim)):
            raise RuntimeError(f"permute: dims {dims} are not a permutation of 0..{self.ndim - 1}")
        return ops.shape.Permute.apply(self, dims=dims)

    def transpose(self, dim0, dim1):
        """Swap dims `dim0` and `dim1`; a view, and its gradient swaps them back."""
        d0 = normalize_dim(dim0, self.ndim, "transpose")
        d1 = normalize_dim(dim1, self.ndim, "transpose")
        dims = list(range(self.ndim))
        dims[d0], dims[d1] = dims[d1], dims[d0]
        return ops.shape.Permute.apply(self, dims=tuple(dims))

    def t(self):
        """The transpose of a matrix (dims 0 and 1); a 0-d or 1-d tensor keeps its shape."""
        if self.ndim > 2:
            raise RuntimeError(f"t: expects a tensor with <= 2 dimensions, got shape {self.shape}")
        return self.T

    def expand(self, *sizes):
        """A view with size-1 dims repeated to `sizes` (-1 keeps a size), without copying. dL/dx
        sums dL/dy over the expanded dims.
        """
        return ops.shape.expand(self, size_args(sizes))

    def expand_as(self, other):
        """expand(other.shape)."""
        return ops.shape.expand(self, other.shape)

    def broadcast_to(self, shape):
        """A view broadcast to `shape` without copying, as `expand`; dL/dx sums dL/dy over the
        broadcast dims.
        """
        return ops.shape.expand(self, tuple(shape))

    def repeat(self, *repeats):
        """Tile the tensor `repeats[i]` times along dim i (copies); dL/dx sums the tiles of dL/dy."""
        repeats = size_args(repeats)
        if len(repeats) < self.ndim:
            raise RuntimeError(
                f"repeat: number of repeats {len(repeats)} can't be smaller than the number of dims {self.ndim}"
            )
        return ops.shape.Repeat.apply(self, repeats=repeats)

    def contiguous(self, memory_format=_layout.contiguous_format):
        """Self if its memory is laid out in `memory_format` (row-major by default), else a
        copy laid out so (the gradient passes through). `mg.channels_last` lays a 4-D
        (N, C, H, W) tensor out as (N, H, W, C), `channels_last_3d` a 5-D one likewise."""
        order = _layout_order(memory_format, "contiguous")
        if order is not None and self.ndim != len(order):
            raise RuntimeError(f"required rank {len(order)} tensor to use {memory_format.name} format")
        if self.is_contiguous(memory_format):
            return self
        if memory_format is _layout.preserve_format:
            raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
        if order is None:
            return ops.shape.Contiguous.apply(self)
        return ops.shape.Relayout.apply(self, order=order)

    def clone(self):
        """A copy with its own memory, recorded in the graph: dL/dx = dL/dy."""
        return ops.shape.Clone.apply(self)

    def chunk(self, chunks, dim=0):
        """Split into `chunks` pieces along `dim` (the last may be smaller), as views."""
        d = normalize_dim(dim, self.ndim, "chunk")
        if chunks <= 0:
            raise ValueError(f"chunk: chunks must be positive, got {chunks}")
        size = -(-self.shape[d] // chunks)  # ceil, as torch.chunk
        return self.split(max(size, 1), dim=d)

    def split(self, split_size_or_sections, dim=0):
        """Split along `dim` into pieces of `split_size_or_sections` (an int), or of the listed
        sizes; the pieces are views.
        """
        d = normalize_dim(dim, self.ndim, "split")
        n = self.shape[d]
        if isinstance(split_size_or_sections, int):
            if split_size_or_sections <= 0:
                raise ValueError(f"split: split_size must be positive, got {split_size_or_sections}")
            sizes = [min(split_size_or_sections, n - s) for s in range(0, n, split_size_or_sections)] or [0]
        else:
            sizes = list(split_size_or_sections)
            if sum(sizes) != n:
                raise ValueError(f"split: sections {sizes} sum to {sum(sizes)} but dim {d} has size {n}")
        pieces, start = [], 0
        for s in sizes:
            index = (slice(None),) * d + (slice(start, start + s),)
            pieces.append(self[index])
            start += s
        return tuple(pieces)

    def unbind(self, dim=0):
        """The slices along `dim` as a tuple of views, one per index (the dim removed)."""
        d = normalize_dim(dim, self.ndim, "unbind")
        return tuple(self[(slice(None),) * d + (i,)] for i in range(self.shape[d]))

    def flip(self, *dims, **kwargs):
        """x.flip(0, 1), x.flip((0, 1)) or x.flip(dims=(0, 1))."""
        if set(kwargs) - {"dims"}:
            raise TypeError(f"flip() got unexpected keyword arguments {sorted(set(kwargs) - {'dims'})}")
        return ops.shape.flip(self, kwargs.pop("dims") if "dims" in kwargs else size_args(dims))

    def tril(self, diagonal=0):
        """The lower triangle of the last two dims (below and on `diagonal`), zeros elsewhere."""
        return ops.linalg.tril(self, diagonal)

    def triu(self, diagonal=0):
        """The upper triangle of the last two dims (above and on `diagonal`), zeros elsewhere."""
        return ops.linalg.triu(self, diagonal)

    def masked_fill(self, mask, value):
        """Replace elements where `mask` is True by `value` (gradient 0 there)."""
        return ops.index.masked_fill(self, mask, value)

    def where(self, condition, other):
        """`mg.where(condition, self, other)`: self where condition is True, else other."""
        return ops.elementwise.where(condition, self, other)

    def matmul(self, other):
        """self @ other, with NumPy's / PyTorch's batched broadcasting rules (see `mg.matmul`)."""
        return ops.linalg.matmul(self, other)

    def add(self, other, *, alpha=1):
        """self + alpha * other, broadcast; dL/dself = dL/dy, dL/dother = alpha * dL/dy (each summed
        over its broadcast dims).
        """
        return ops.elementwise.add(self, other, alpha=alpha)

    def sub(self, other, *, alpha=1):
        """self - alpha * other, broadcast; dL/dself = dL/dy, dL/dother = -alpha * dL/dy."""
        return ops.elementwise.sub(self, other, alpha=alpha)

    def mul(self, other):
        """self * other, broadcast: the `*` operator; dL/dself = dL/dy * other, dL/dother = dL/dy * self."""
        return self * other

    def div(self, other, *, rounding_mode=None):
        """self / other, broadcast; dL/dself = dL/dy / other, dL/dother = -dL/dy * self / other^2.
        With `rounding_mode` ('trunc' or 'floor') the quotient is rounded and its gradient is 0.
        """
        return ops.elementwise.div(self, other, rounding_mode=rounding_mode)

    multiply, subtract, divide = mul, sub, div

    def neg(self):
        """-self; dL/dx = -dL/dy."""
        return -self

    negative = neg
    """An alias of neg: -x."""

    # ---- tensor functions everyday torch code calls (math in minigrad/ops/) -------------
    def sort(self, dim=-1, descending=False, *, stable=False):
        """(values, indices) sorted along `dim` (ascending unless `descending`); the gradient goes
        back to the positions the values came from.
        """
        return ops.sort.sort(self, dim, descending, stable=stable)

    def argsort(self, dim=-1, descending=False, *, stable=False):
        """The indices that sort the tensor along `dim` (int64, no gradient)."""
        return ops.sort.argsort(self, dim, descending, stable=stable)

    def msort(self):
        """Sorted along the first dim: `sort(dim=0)`'s values."""
        return ops.sort.msort(self)

    def topk(self, k, dim=None, largest=True, sorted=True):
        """(values, indices) of the k largest (or smallest, `largest=False`) along `dim` (the last
        by default).
        """
        return ops.sort.topk(self, k, dim, largest, sorted)

    def unique(self, sorted=True, return_inverse=False, return_counts=False, dim=None):
        """The distinct values (sorted), with the inverse indices and counts if asked; no gradient."""
        return ops.sort.unique(self, sorted, return_inverse, return_counts, dim)

    def multinomial(self, num_samples, replacement=False, *, generator=None):
        """`num_samples` indices drawn with the probabilities in each row (weights need not sum to
        1); int64.
        """
        return ops.sampling.multinomial(self, num_samples, replacement, generator=generator)

    def bernoulli(self, p=None, *, generator=None):
        """0 or 1 per element, 1 with probability self (or `p`), from the global generator."""
        return ops.sampling.bernoulli(self, p, generator=generator)

    def mm(self, mat2):
        """The matrix product of two 2-d tensors (no broadcasting); see matmul."""
        return ops.linalg.mm(self, mat2)

    def bmm(self, mat2):
        """The batched matrix product of two 3-d tensors (b, n, m) @ (b, m, p)."""
        return ops.linalg.bmm(self, mat2)

    def addmm(self, mat1, mat2, *, beta=1, alpha=1):
        """beta * self + alpha * (mat1 @ mat2)."""
        return ops.linalg.addmm(self, mat1, mat2, beta=beta, alpha=alpha)

    def baddbmm(self, batch1, batch2, *, beta=1, alpha=1):
        """beta * self + alpha * (batch1 @ batch2), batched."""
        return ops.linalg.baddbmm(self, batch1, batch2, beta=beta, alpha=alpha)

    def diag(self, diagonal=0):
        """The `diagonal`-th diagonal of a matrix as a vector, or a vector as a diagonal matrix."""
        return ops.linalg.diag(self, diagonal)

    def trace(self):
        """The sum of the main diagonal of a matrix; dL/dx is dL/dy on the diagonal."""
        return ops.linalg.trace(self)

    def gather(self, dim, index, *, sparse_grad=False):
        """As `mg.gather`: `out[i][j] = self[i][index[i][j]]` for dim=1; the gradient scatters back,
        adding at repeated indices.
        """
        return ops.index.gather(self, dim, index)

    def scatter(self, dim, index, src=None, *, value=None, reduce=None):
        """As `mg.scatter`: a copy with `src` (or `value`) written at `index` along `dim`."""
        return ops.index.scatter(self, dim, index, src, value=value, reduce=reduce)

    def scatter_add(self, dim, index, src):
        """As `mg.scatter_add`: a copy with `src` added at `index` along `dim`."""
        return ops.index.scatter_add(self, dim, index, src)

    def index_select(self, dim, index):
        """The slices `index` (a 1-d int tensor) along `dim`; the gradient adds back at repeated indices."""
        return ops.index.index_select(self, dim, index)

    def index_fill(self, dim, index, value):
        """A copy with the slices `index` along `dim` set to `value`."""
        return ops.index.index_fill(self, dim, index, value)

    def roll(self, shifts, dims=None):
        """Shift the elements by `shifts` along `dims` (all elements, flattened, if dims is None),
        wrapping around.
        """
        return ops.shape.roll(self, shifts, dims)

    def clamp_min(self, min):
        """Limit the values from below: `clamp(min=min)`."""
        return self.clamp(min=min)

    def clamp_max(self, max):
        """Limit the values from above: `clamp(max=max)`."""
        return self.clamp(max=max)

    def narrow(self, dim, start, length):
        """The `length` entries from `start` along `dim` (`x[:, start:start + length]` for
        dim=1), as a view sharing this tensor's storage; see `mg.narrow`."""
        return ops.index.narrow(self, dim, start, length)

    def nonzero(self, *, as_tuple=False):
        """The indices of the non-zero elements: (count, ndim) int64, or with `as_tuple=True`
        one 1-D tensor per dim; see `mg.nonzero`."""
        return ops.index.nonzero(self, as_tuple=as_tuple)

    def argwhere(self):
        """The indices of the non-zero elements, one row each: `nonzero()`."""
        return ops.index.argwhere(self)

    def dot(self, other):
        """The dot product with another 1-D tensor of the same length and dtype, sum_i a_i b_i;
        dL/da = dL/dy * b. See `mg.dot`."""
        return ops.linalg.dot(self, other)

    def vdot(self, other):
        """The dot product with another 1-D tensor (the conjugate of self, which for real
        tensors is self): `dot`."""
        return ops.linalg.vdot(self, other)

    def inner(self, other):
        """The inner product over the last dim; see `mg.inner`."""
        return ops.linalg.inner(self, other)

    def outer(self, vec2):
        """The outer product with another vector: out[i, j] = self[i] * vec2[j]."""
        return ops.linalg.outer(self, vec2)

    def cross(self, other, dim=None):
        """The cross product of 3-vectors along `dim` (without it, the first dim of size 3,
        with PyTorch's warning); see `mg.cross`."""
        return ops.linalg.cross(self, other, dim)

    # ---- shape: moving dims, turning, tiling, windows and diagonals (math in minigrad/ops/) ---
    def movedim(self, source, destination):
        """The dims `source` moved to positions `destination` (ints or sequences), the others
        keeping their order; a view. See `mg.movedim`."""
        return ops.shape.movedim(self, source, destination)

    moveaxis = movedim

    def swapaxes(self, axis0, axis1):
        """Two dims swapped: `transpose` under NumPy's name; a view."""
        return self.transpose(axis0, axis1)

    swapdims = swapaxes

    def ravel(self):
        """Flattened to 1-D: a view when the memory allows, else a copy."""
        return self.reshape(-1)

    def tile(self, *dims):
        """Repeated `dims[i]` times along dim i, fewer dims counting as leading 1s; see `mg.tile`."""
        return ops.shape.tile(self, size_args(dims))

    def rot90(self, k=1, dims=(0, 1)):
        """Rotated by 90 degrees `k` times in the plane of `dims`; see `mg.rot90`."""
        return ops.shape.rot90(self, k, dims)

    def fliplr(self):
        """Reversed along dim 1 (left to right)."""
        return ops.shape.fliplr(self)

    def flipud(self):
        """Reversed along dim 0 (upside down)."""
        return ops.shape.flipud(self)

    def adjoint(self):
        """The conjugate transpose of each matrix (its last two dims swapped; for real
        tensors, `mT`); a view."""
        return ops.shape.adjoint(self)

    @property
    def mH(self):
        """The conjugate transpose of each matrix: for real tensors, `mT`."""
        if self.ndim < 2:
            raise RuntimeError(
                f"tensor.mH is only supported on matrices or batches of matrices. Got {self.ndim}-D tensor."
            )
        return self.transpose(-2, -1)

    @property
    def H(self):
        """The conjugate transpose of a matrix (2-D only): for real tensors, its transpose."""
        if self.ndim != 2:
            raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {self.ndim}-D tensor.")
        return self.transpose(0, 1)

    def unfold(self, dimension, size, step):
        """Every window of `size` elements along `dimension`, one every `step`: that dim
        becomes (n - size) // step + 1 windows and a new last dim of `size` runs along each.
        A view sharing this tensor's storage; the gradient adds back where windows overlap."""
        return ops.strided.unfold(self, dimension, size, step)

    def as_strided(self, size, stride, storage_offset=None):
        """A view of this tensor's storage with the given sizes and strides; see `mg.as_strided`."""
        return ops.strided.as_strided(self, size, stride, storage_offset)

    def diagonal(self, offset=0, dim1=0, dim2=1):
        """The `offset`-th diagonal in the plane of `dim1` and `dim2`, as a last dim; a view.
        See `mg.diagonal`."""
        return ops.strided.diagonal(self, offset, dim1, dim2)

    def diag_embed(self, offset=0, dim1=-2, dim2=-1):
        """Matrices with the last dim on their diagonal; see `mg.diag_embed`."""
        return ops.linalg.diag_embed(self, offset, dim1, dim2)

    def diagflat(self, offset=0):
        """A square matrix with the elements on its `offset`-th diagonal; see `mg.diagflat`."""
        return ops.linalg.diagflat(self, offset)

    def tensor_split(self, indices_or_sections, dim=0):
        """Split into views along `dim`: n nearly equal pieces, or cut before each index; see
        `mg.tensor_split`."""
        return ops.joining.tensor_split(self, indices_or_sections, dim)

    def hsplit(self, indices_or_sections):
        """Split along dim 1 (dim 0 for a vector); see `mg.hsplit`."""
        return ops.joining.hsplit(self, indices_or_sections)

    def vsplit(self, indices_or_sections):
        """Split along dim 0 of a tensor with at least 2 dims; see `mg.vsplit`."""
        return ops.joining.vsplit(self, indices_or_sections)

    def dsplit(self, indices_or_sections):
        """Split along dim 2 of a tensor with at least 3 dims; see `mg.dsplit`."""
        return ops.joining.dsplit(self, indices_or_sections)

    def split_with_sizes(self, split_sizes, dim=0):
        """Split along `dim` into views of the listed sizes, which must add up to the dim's size."""
        d = normalize_dim(dim, self.ndim, "split_with_sizes")
        if sum(split_sizes) != self.shape[d]:
            raise RuntimeError(
                f"split_with_sizes expects split_sizes to sum exactly to {self.shape[d]} (input tensor's size at "
                f"dimension {d}), but got split_sizes={list(split_sizes)}"
            )
        return self.split(list(split_sizes), d)

    def repeat_interleave(self, repeats=None, dim=None, *, output_size=None):
        """Each element (or slice along `dim`) repeated `repeats` times in a row; see
        `mg.repeat_interleave`."""
        return ops.index.repeat_interleave(self, repeats, dim, output_size=output_size)

    # ---- indexing: reads and writes at indices (math in minigrad/ops/) ----------------------
    def select(self, dim, index):
        """The slice at `index` along `dim`, that dim removed; a view. See `mg.select`."""
        return ops.index.select(self, dim, index)

    def narrow_copy(self, dim, start, length):
        """`narrow(dim, start, length)` as a copy with its own memory."""
        return ops.index.narrow_copy(self, dim, start, length)

    def take(self, index):
        """The elements at flat positions `index` (the tensor read as 1-D); see `mg.take`."""
        return ops.index.take(self, index)

    def take_along_dim(self, indices, dim=None):
        """Read along `dim` at `indices` (gather with broadcasting); see `mg.take_along_dim`."""
        return ops.index.take_along_dim(self, indices, dim)

    def masked_select(self, mask):
        """The elements where the bool `mask` is True, as a 1-D tensor; see `mg.masked_select`."""
        return ops.index.masked_select(self, mask)

    def nonzero_static(self, *, size, fill_value=-1):
        """`nonzero()` cut or padded to exactly `size` rows; see `mg.nonzero_static`."""
        return ops.index.nonzero_static(self, size=size, fill_value=fill_value)

    def select_scatter(self, src, dim, index):
        """A copy with `src` in place of `select(dim, index)`; see `mg.select_scatter`."""
        return ops.view_scatter.select_scatter(self, src, dim, index)

    def slice_scatter(self, src, dim=0, start=None, end=None, step=1):
        """A copy with `src` in place of the slice start:end:step along `dim`."""
        return ops.view_scatter.slice_scatter(self, src, dim, start, end, step)

    def diagonal_scatter(self, src, offset=0, dim1=0, dim2=1):
        """A copy with `src` in place of `diagonal(offset, dim1, dim2)`."""
        return ops.view_scatter.diagonal_scatter(self, src, offset, dim1, dim2)

    def as_strided_scatter(self, src, size, stride, storage_offset=None):
        """A copy with `src` in place of `as_strided(size, stride, storage_offset)`."""
        return ops.view_scatter.as_strided_scatter(self, src, size, stride, storage_offset)

    def index_add(self, dim, index, source, *, alpha=1):
        """A copy with `alpha * source` added at the slices `index` along `dim`; see `mg.index_add`."""
        return ops.index_write.index_add(self, dim, index, source, alpha=alpha)

    def index_copy(self, dim, index, source):
        """A copy with the slices `index` along `dim` replaced by source's; see `mg.index_copy`."""
        return ops.index_write.index_copy(self, dim, index, source)

    def index_put(self, indices, values, accumulate=False):
        """A copy with `values` written (or added) at `self[indices]`; see `mg.index_put`."""
        return ops.index_write.index_put(self, indices, values, accumulate)

    def put(self, index, source, accumulate=False):
        """A copy with `source` written (or added) at the flat positions `index`; see `mg.put`."""
        return ops.index_write.put(self, index, source, accumulate)

    def masked_scatter(self, mask, source):
        """A copy with the masked places filled in order by source's elements; see
        `mg.masked_scatter`."""
        return ops.index_write.masked_scatter(self, mask, source)

    def scatter_reduce(self, dim, index, src, reduce, *, include_self=True):
        """A copy with `src` reduced into the places `index` names; see `mg.scatter_reduce`."""
        return ops.scatter_reduce.scatter_reduce(self, dim, index, src, reduce, include_self=include_self)

    def index_reduce(self, dim, index, source, reduce, *, include_self=True):
        """A copy with source's slices reduced into the slices `index`; see `mg.index_reduce`."""
        return ops.scatter_reduce.index_reduce(self, dim, index, source, reduce, include_self=include_self)

    # ---- reductions: order statistics, running extremes, NaN-skipping sums, statistics -------
    def cummax(self, dim):
        """(values, indices): the running maximum along `dim` and where it is; see `mg.cummax`."""
        return ops.cumulative.cummax(self, dim)

    def cummin(self, dim):
        """(values, indices): the running minimum along `dim` and where it is; see `mg.cummin`."""
        return ops.cumulative.cummin(self, dim)

    def logcumsumexp(self, dim):
        """Running log(sum(exp(x))) along `dim`, computed stably; see `mg.logcumsumexp`."""
        return ops.cumulative.logcumsumexp(self, dim)

    def kthvalue(self, k, dim=-1, keepdim=False):
        """(values, indices) of the k-th smallest element along `dim`; see `mg.kthvalue`."""
        return ops.order_stats.kthvalue(self, k, dim, keepdim)

    def median(self, dim=None, keepdim=False):
        """The lower median (of all elements, or (values, indices) along `dim`); see `mg.median`."""
        return ops.order_stats.median(self, dim, keepdim)

    def nanmedian(self, dim=None, keepdim=False):
        """`median` of the non-NaN elements; see `mg.nanmedian`."""
        return ops.order_stats.nanmedian(self, dim, keepdim)

    def mode(self, dim=-1, keepdim=False):
        """(values, indices) of the most frequent value along `dim`; see `mg.mode`."""
        return ops.order_stats.mode(self, dim, keepdim)

    def quantile(self, q, dim=None, keepdim=False, *, interpolation="linear"):
        """The q-th quantiles along `dim`; see `mg.quantile`."""
        return ops.order_stats.quantile(self, q, dim, keepdim, interpolation=interpolation)

    def nanquantile(self, q, dim=None, keepdim=False, *, interpolation="linear"):
        """The q-th quantiles of the non-NaN elements along `dim`; see `mg.nanquantile`."""
        return ops.order_stats.nanquantile(self, q, dim, keepdim, interpolation=interpolation)

    def nansum(self, dim=None, keepdim=False, *, dtype=None):
        """The sum over `dim` of the elements that are not NaN; see `mg.nansum`."""
        return ops.statistics.nansum(self, dim, keepdim, dtype=dtype)

    def nanmean(self, dim=None, keepdim=False, *, dtype=None):
        """The mean over `dim` of the elements that are not NaN; see `mg.nanmean`."""
        return ops.statistics.nanmean(self, dim, keepdim, dtype=dtype)

    def aminmax(self, *, dim=None, keepdim=False):
        """(min, max) over `dim`; see `mg.aminmax`."""
        return ops.statistics.aminmax(self, dim=dim, keepdim=keepdim)

    def cov(self, *, correction=1, fweights=None, aweights=None):
        """The covariance matrix of the variables in the rows; see `mg.cov`."""
        return ops.statistics.cov(self, correction=correction, fweights=fweights, aweights=aweights)

    def corrcoef(self):
        """The correlation coefficients of the variables in the rows; see `mg.corrcoef`."""
        return ops.statistics.corrcoef(self)

    def diff(self, n=1, dim=-1, prepend=None, append=None):
        """The n-th forward difference along `dim`; see `mg.diff`."""
        return ops.calculus.diff(self, n, dim, prepend, append)

    def dist(self, other, p=2):
        """The p-norm of self - other; see `mg.dist`."""
        return ops.norms.dist(self, other, p)

    def renorm(self, p, dim, maxnorm):
        """The slices along `dim` scaled down to p-norm at most `maxnorm`; see `mg.renorm`."""
        return ops.norms.renorm(self, p, dim, maxnorm)

    # ---- counting --------------------------------------------------------------------------
    def bincount(self, weights=None, minlength=0):
        """How often each value 0, 1, ... occurs (or the sum of `weights` in each bin); see
        `mg.bincount`."""
        return ops.search.bincount(self, weights, minlength)

    def histc(self, bins=100, min=0, max=0):  # noqa: A002  (torch's argument names)
        """The histogram in `bins` equal bins between min and max; see `mg.histc`."""
        return ops.search.histc(self, bins, min, max)

    def histogram(self, bins=100, *, range=None, weight=None, density=False):  # noqa: A002
        """(hist, bin_edges); see `mg.histogram`."""
        return ops.search.histogram(self, bins, range=range, weight=weight, density=density)

    def count_nonzero(self, dim=None):
        """The number of non-zero elements over `dim`; see `mg.count_nonzero`."""
        return ops.search.count_nonzero(self, dim)

    def unique_consecutive(self, return_inverse=False, return_counts=False, dim=None):
        """Each run of equal consecutive elements squeezed to one; see `mg.unique_consecutive`."""
        return ops.sort.unique_consecutive(self, return_inverse, return_counts, dim)

    # ---- linear algebra: products, inverses, determinants, matrix functions -----------------
    def mv(self, vec):
        """This matrix times the vector `vec`."""
        return ops.linalg.mv(self, vec)

    def addmv(self, mat, vec, *, beta=1, alpha=1):
        """beta * self + alpha * (mat @ vec)."""
        return ops.linalg.addmv(self, mat, vec, beta=beta, alpha=alpha)

    def addr(self, vec1, vec2, *, beta=1, alpha=1):
        """beta * self + alpha * outer(vec1, vec2)."""
        return ops.linalg.addr(self, vec1, vec2, beta=beta, alpha=alpha)

    def addbmm(self, batch1, batch2, *, beta=1, alpha=1):
        """beta * self + alpha * the sum over the batch of batch1[b] @ batch2[b]."""
        return ops.linalg.addbmm(self, batch1, batch2, beta=beta, alpha=alpha)

    def kron(self, other):
        """The Kronecker product with `other`; see `mg.kron`."""
        return ops.linalg.kron(self, other)

    def inverse(self):
        """The inverse of each square matrix; see `mg.inverse`."""
        return ops.inverse.inverse(self)

    def det(self):
        """The determinant of each square matrix; see `mg.det`."""
        return ops.inverse.det(self)

    def logdet(self):
        """log(det) of each square matrix (NaN for a negative determinant); see `mg.logdet`."""
        return ops.inverse.logdet(self)

    def slogdet(self):
        """(sign, logabsdet) of the determinant of each square matrix; see `mg.slogdet`."""
        return ops.inverse.slogdet(self)

    def pinverse(self, rcond=1e-15):
        """The Moore-Penrose pseudo-inverse of each matrix; see `mg.pinverse`."""
        return ops.inverse.pinverse(self, rcond)

    def cholesky_inverse(self, upper=False):
        """The inverse of L L^T from this Cholesky factor L; see `mg.cholesky_inverse`."""
        return ops.inverse.cholesky_inverse(self, upper)

    def cholesky_solve(self, input2, upper=False):
        """X with (L L^T) X = self, L = input2 a Cholesky factor; see `mg.cholesky_solve`."""
        return ops.inverse.cholesky_solve(self, input2, upper)

    def matrix_exp(self):
        """The exponential of each square matrix; see `mg.matrix_exp`."""
        return ops.matrix_powers.matrix_exp(self)

    # ---- new tensors like this one: its dtype (and device) unless told otherwise --------
    @staticmethod
    def _new_leaf(array, requires_grad):
        t = Tensor._make(array)
        t._inference = autograd.grad_mode.is_inference_mode_enabled()
        if requires_grad:
            t.requires_grad_(True)
        return t

    def new_zeros(self, *size, dtype=None, device=None, requires_grad=False):
        """Zeros of shape `size` (`new_zeros(2, 3)` or `new_zeros((2, 3))`), of this tensor's
        dtype unless `dtype` is given."""
        return self.new_full(_new_shape(size, "new_zeros"), 0, dtype=dtype, device=device, requires_grad=requires_grad)

    def new_ones(self, *size, dtype=None, device=None, requires_grad=False):
        """Ones of shape `size`, of this tensor's dtype unless `dtype` is given."""
        return self.new_full(_new_shape(size, "new_ones"), 1, dtype=dtype, device=device, requires_grad=requires_grad)

    def new_empty(self, *size, dtype=None, device=None, requires_grad=False):
        """A tensor of shape `size` and this tensor's dtype unless `dtype` is given (zeros
        here; PyTorch leaves it uninitialised)."""
        return self.new_full(_new_shape(size, "new_empty"), 0, dtype=dtype, device=device, requires_grad=requires_grad)

    def new_empty_strided(self, size, stride, *, dtype=None, device=None, requires_grad=False):
        """A tensor of shape `size` laid out with the given strides (see `mg.empty_strided`),
        of this tensor's dtype unless `dtype` is given."""
        from minigrad.creation import empty_strided  # creation.py imports this module

        dtype = dtypes.to_dtype(dtype, "new_empty_strided") or self.dtype
        return empty_strided(size, stride, dtype=dtype, device=device, requires_grad=requires_grad)

    def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False):
        """`fill_value` in a tensor of shape `size` (a tuple or list), of this tensor's dtype
        unless `dtype` is given (the value is cast to it: 7.5 becomes 7 in an int64 one)."""
        _devices.check_device(device, "new_full")
        if not isinstance(size, (tuple, list)):
            raise TypeError(
                f"new_full(): argument 'size' (position 1) must be tuple of ints, not {type(size).__name__}"
            )
        shape = _new_shape((tuple(size),), "new_full")
        dtype = dtypes.to_dtype(dtype, "new_full") or self.dtype
        return self._new_leaf(np.full(shape, _data(fill_value), dtype=dtype), requires_grad)

    def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False):
        """A copy of `data` (a list, an array, a number or a Tensor) as a new leaf of this
        tensor's dtype unless `dtype` is given. A Tensor `data` is copied and cut from the
        graph, with PyTorch's advice to write `data.detach().clone()` instead."""
        _devices.check_device(device, "new_tensor")
        if isinstance(data, Tensor):
            warnings.warn(
                "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
                "sourceTensor.detach().clone().requires_grad_(True), rather than tensor.new_tensor(sourceTensor).",
                UserWarning,
                stacklevel=2,
            )
        array = _array_from_data(_data(data), dtypes.to_dtype(dtype, "new_tensor") or self.dtype)
        return self._new_leaf(array, requires_grad)


# ---- helpers of the methods above ------------------------------------------------------
def _data(x):
    return x.array if isinstance(x, Tensor) else x


def _replaced(t, values):
    """`values` (a Tensor, an array or a number, broadcast) in place of all of t: the
    result of fill_, copy_ and the random fills. In the graph t's gradient is 0 there
    (and a Tensor `values` gets the gradient), as PyTorch records those ops."""
    everywhere = Tensor._make(np.ones(t.shape, dtype=bool))
    if isinstance(values, Tensor):
        values = values if values.dtype == t.dtype else values.to(t.dtype)
    else:
        values = Tensor._make(np.asarray(values, dtype=t.dtype))
    return ops.elementwise.Where.apply(everywhere, values, t)


def _new_shape(size, op):
    """The shape of new_zeros(2, 3) and of new_zeros((2, 3)), checked as creation's are."""
    if not size:
        raise TypeError(f'{op}() missing 1 required positional arguments: "size"')
    shape = size_args(size)
    if any(s < 0 for s in shape):
        raise RuntimeError(f"{op}: Trying to create tensor with negative dimension {min(shape)}: {list(shape)}")
    return shape


def _address(array):
    """The memory address of an array's first element."""
    return array.__array_interface__["data"][0]


def _is_size(value):
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _suggested_format(tensor):
    """The memory format a tensor's strides suggest (torch's `suggest_memory_format`):
    channels_last(_3d) for a 4-D (5-D) tensor laid out so, and not row-major too, else
    contiguous_format."""
    for memory_format in (_layout.channels_last, _layout.channels_last_3d):
        if tensor.ndim == len(memory_format.order) and not tensor.array.flags.c_contiguous:
            if tensor.is_contiguous(memory_format):
                return memory_format
    return _layout.contiguous_format


def _layout_order(memory_format, op):
    """The dim order of a memory format (None for row-major), or a clear error."""
    if memory_format is None or memory_format is _layout.contiguous_format or memory_format is _layout.preserve_format:
        return None
    if not isinstance(memory_format, _layout.memory_format):
        raise TypeError(f"{op}: memory_format must be a minigrad.memory_format, got {type(memory_format).__name__}")
    return memory_format.order


def _legacy_array(args, dtype, op):
    """The array of PyTorch's legacy constructor `Tensor(*args)` (and of `mg.FloatTensor(...)`,
    ...): nothing (empty), sizes (zeros), one Tensor (its own array, shared) or one
    sequence of data (a copy). `dtype` None means the default float dtype, except for a
    Tensor, which keeps its own."""
    if len(args) == 1 and isinstance(args[0], Tensor):
        data = args[0].array
        return data if dtype is None or dtype == data.dtype else data.astype(dtype)
    dtype = dtype or dtypes.default_float
    if all(_is_size(a) for a in args):  # also Tensor(): no sizes, an empty tensor
        shape = tuple(int(a) for a in args) or (0,)
        if min(shape) < 0:
            raise RuntimeError(f"{op}: Trying to create tensor with negative dimension {min(shape)}: {list(shape)}")
        return np.zeros(shape, dtype=dtype)  # PyTorch leaves it uninitialised; zeros, as mg.empty
    if len(args) > 1:
        raise TypeError(f"{op}: expected sizes (ints) or one sequence of data, got {args!r}")
    if not isinstance(args[0], (list, tuple, np.ndarray)):
        raise TypeError(f"{op}: new(): data must be a sequence (got {type(args[0]).__name__})")
    return _array_from_data(args[0], dtype)


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
                    return TypeError(f"mg.tensor: expected numbers, got {type(x).__name__} {x!r:.40}")
            return None
        length = len(seqs[0])
        for x in level:
            if not isinstance(x, (list, tuple)) or len(x) != length:
                got = len(x) if isinstance(x, (list, tuple)) else f"{type(x).__name__} {x!r:.40}"
                return ValueError(f"mg.tensor: expected sequence of length {length} at dim {dim} (got {got})")
        level, dim = [y for x in seqs for y in x], dim + 1


# The one break in the import circle. Tensor's methods call the ops and the autograd
# engine, and every one of those modules imports Tensor from here. So they are imported
# last, once the class exists, and the methods reach them as attributes looked up when
# a method runs (`ops.elementwise.Exp.apply(...)`, `autograd.engine.backward(...)`).
from minigrad import autograd, ops  # noqa: E402
