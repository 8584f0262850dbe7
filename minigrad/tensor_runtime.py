"""Tensor's methods about the runtime rather than the math, as torch's: the probes
device-agnostic programs make (`is_xpu`, `is_mps`, `is_sparse`, ...: each False, naming
what a minigrad tensor is not), how its memory is laid out (`stride`, `data_ptr`,
`is_contiguous`, ...), torch's legacy constructor `new`, the CPU-only in-place maps that
run a Python function per element, `resize_`, and the hook that runs after a leaf's
gradient is accumulated.

`Tensor` inherits them (tensor.py); they are kept here so that the Tensor file holds the
tensor a student reads.
"""

import numpy as np

from minigrad import dtypes
from minigrad import layouts as _layout
from minigrad._args import normalize_dim, size_args
from minigrad.array_module import array_module, storage_start
from minigrad.cuda import runtime as _runtime


def _refuse_gpu(op, self):
    """torch's error for a Python-callable map on a CUDA tensor: the callable runs on the
    host, one element at a time, which would copy every element there and back."""
    if self.is_cuda:
        raise TypeError(f"{op} is only implemented on CPU tensors")


def _refuse_grad(op, *tensors):
    """torch's error for a Python-callable map on a tensor that requires grad: the callable's
    work cannot be recorded."""
    if any(t.requires_grad for t in tensors):
        raise RuntimeError(
            f"Can't call {op}() on Variable that requires grad. Use var.detach().{op}() instead."
        )


def _map_operand(op, self, other, name):
    """`other` as an array broadcast to self's shape, of self's dtype (torch's checks)."""
    if other.dtype != self.dtype:
        raise TypeError(
            f"{op}: expected {dtypes.tensor_type_name(self.dtype)} for '{name}' "
            f"(got {dtypes.tensor_type_name(other.dtype)})"
        )
    try:
        return np.broadcast_to(other.array, self.shape)
    except ValueError:
        raise RuntimeError(
            f"{op}: the expanded size of the tensor must match the existing size: '{name}' has "
            f"shape {tuple(other.shape)}, which does not broadcast to {tuple(self.shape)}"
        ) from None


class RuntimeMethods:
    """The mixin Tensor inherits these methods from (see the module docstring)."""

    __slots__ = ()

    # ---- what device-agnostic programs probe: each says what minigrad's tensors are not ----
    @property
    def is_xla(self):
        """False: no tensor lives on a TPU (torch's `xla` device)."""
        return False

    @property
    def is_ipu(self):
        """False: no tensor lives on a Graphcore IPU."""
        return False

    @property
    def is_maia(self):
        """False: no tensor lives on a Microsoft MAIA accelerator."""
        return False

    @property
    def is_mtia(self):
        """False: no tensor lives on a Meta MTIA accelerator."""
        return False

    @property
    def is_vulkan(self):
        """False: no tensor lives on a Vulkan device."""
        return False

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

    def get_device(self):
        """The index of the tensor's GPU (0: minigrad uses one GPU), or -1 for a CPU tensor."""
        return 0 if self.is_cuda else -1

    def is_pinned(self, device=None):
        """False: pinned (page-locked) memory is for fast copies to a GPU; minigrad's CPU
        tensors stay in ordinary (pageable) host memory, and a CUDA tensor is not in host
        memory at all, as in torch."""
        return False

    def pin_memory(self, device=None):
        """torch copies a CPU tensor into pinned (page-locked) host memory, from which the
        GPU copies faster and without waiting. minigrad does not pin (a NumPy array lives in
        pageable memory; CuPy copies from it just as well, only less fast), so this returns
        a copy (differentiable, as torch's) in ordinary memory, and `is_pinned()` stays False.
        As in torch, it raises on a machine without a GPU, and for a CUDA tensor."""
        if self.is_cuda:
            raise RuntimeError(f"cannot pin '{self.type()}' only dense CPU tensors can be pinned")
        if _runtime.cupy() is None:
            raise RuntimeError("Cannot access accelerator device when none is available.")
        return self.clone()

    # ---- memory layout ---------------------------------------------------------------------
    # The storage is a NumPy array (a CuPy array on a GPU); both count strides in bytes and
    # torch in elements, so each stride is divided by the element size.
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
        owns its memory, 1 for `x[1:]`. (The storage is the NumPy or CuPy array the
        tensor's array is a view of.)"""
        start = storage_start(self.array, _storage(self.array))
        return (_address(self.array) - start) // self.array.itemsize

    def data_ptr(self):
        """The memory address of the first element (an int): two tensors that share
        storage from the same element give the same number. For a CUDA tensor it is an
        address in GPU memory, as torch's."""
        return _address(self.array)

    def is_contiguous(self, memory_format=None):
        """True when the elements lie in memory in row-major order, with no gaps (sizes of
        1 may have any stride, as in torch); with `memory_format=mg.channels_last` (or
        `channels_last_3d`), in that format's order instead."""
        order = _layout_order(memory_format, "is_contiguous")
        if order is None:
            return bool(self.array.flags.c_contiguous)
        return self.ndim == len(order) and bool(self.array.transpose(order).flags.c_contiguous)

    @property
    def layout(self):
        """`mg.strided`: every minigrad tensor is a dense array indexed by strides."""
        return _layout.strided

    def const_data_ptr(self):
        """The address of the first element, as `data_ptr()` (torch's read-only twin)."""
        return self.data_ptr()

    # ---- conversions ----------------------------------------------------------------------
    def byte(self):
        """A uint8 copy (self if it is uint8 already), as `to(mg.uint8)`."""
        return self.to(dtypes.uint8)

    def char(self):
        """An int8 copy (self if it is int8 already), as `to(mg.int8)`."""
        return self.to(dtypes.int8)

    def short(self):
        """An int16 copy (self if it is int16 already), as `to(mg.int16)`."""
        return self.to(dtypes.int16)

    # ---- torch's legacy constructor ------------------------------------------------------------
    def new(self, *args, device=None):
        """torch's legacy constructor, in this tensor's dtype: `new()` is empty, `new(2, 3)`
        a (2, 3) tensor (zeros here; torch leaves it uninitialised), `new([1, 2])` (a list
        or tuple) a copy of the data, `new(t)` a tensor sharing t's storage (t must have
        this dtype). The result never requires grad; it is on this tensor's device (or
        `device`), as torch's."""
        from minigrad import devices
        from minigrad.tensor import Tensor

        device = self.device if device is None else devices.check_device(device, "new")
        if len(args) == 1 and isinstance(args[0], Tensor):
            other = args[0]
            if other.dtype != self.dtype:
                raise TypeError(
                    f"new(): expected a tensor of dtype {self.dtype} (this tensor's), got "
                    f"{other.dtype}"
                )
            if other.device != device:
                where = f"on {device} (this tensor's device, or `device`)"
                raise RuntimeError(f"new(): expected a tensor {where}, got one on {other.device}")
            return Tensor(other)
        if len(args) == 1 and isinstance(args[0], (list, tuple)):
            return Tensor._from_data(args[0], dtype=self.dtype).to(device)
        if len(args) == 1 and isinstance(args[0], (float, bool, complex)):
            raise TypeError(f"new(): data must be a sequence (got {type(args[0]).__name__})")
        xp = _runtime.require("new") if device.type == "cuda" else np  # made there, not copied
        return Tensor._make(xp.zeros(size_args(args) if args else (0,), dtype=self.dtype))

    # ---- element-by-element Python functions (CPU only, as in torch) ----------------------------
    def apply_(self, callable):
        """self[i] = callable(self[i]) for every element, in place, with Python numbers in
        and out (slow: a Python call per element). Not differentiable: refused on a tensor
        that requires grad, as torch. Returns self."""
        _refuse_gpu("apply_", self)
        _refuse_grad("apply_", self)
        flat = np.asarray([callable(v) for v in self.array.reshape(-1).tolist()])
        return self._write("apply_", flat.reshape(self.shape))

    def map_(self, tensor, callable):
        """self[i] = callable(self[i], tensor[i]) for every element (`tensor` broadcast to
        self's shape, of self's dtype), in place. Returns self."""
        _refuse_gpu("map_", self)
        _refuse_grad("map_", self, tensor)
        other = _map_operand("map_", self, tensor, "other")
        pairs = zip(self.array.reshape(-1).tolist(), other.reshape(-1).tolist())
        return self._write(
            "map_", np.asarray([callable(a, b) for a, b in pairs]).reshape(self.shape)
        )

    def map2_(self, x, y, callable):
        """self[i] = callable(self[i], x[i], y[i]) for every element, in place. Returns self."""
        _refuse_gpu("map2_", self)
        _refuse_grad("map2_", self, x, y)
        xs, ys = _map_operand("map2_", self, x, "x"), _map_operand("map2_", self, y, "y")
        triples = zip(
            self.array.reshape(-1).tolist(), xs.reshape(-1).tolist(), ys.reshape(-1).tolist()
        )
        return self._write(
            "map2_", np.asarray([callable(a, b, c) for a, b, c in triples]).reshape(self.shape)
        )

    def _write(self, op, values):
        """Copy `values` into self's storage (cast to its dtype, as torch casts a Python
        number), counting it as an in-place change."""
        if not self.array.flags.writeable:
            raise RuntimeError(
                f"{op}: the tensor is read-only or expanded (shape {self.shape}); clone() it first"
            )
        np.copyto(self.array, values, casting="unsafe")
        self._version_counter().value += 1
        return self

    # ---- resizing the storage ----------------------------------------------------------------
    def resize_(self, *sizes, memory_format=None):
        """Give the tensor a new shape in place, reading its storage in order from the
        tensor's first element, as torch's `resize_`: shrinking keeps the first elements
        (and the storage, so growing back within it finds them again); growing past the
        storage allocates a larger one, whose new elements are zeros here (uninitialised
        in torch). Refused on a tensor that requires grad, as torch. Returns self."""
        if self.requires_grad:
            raise RuntimeError("cannot resize variables that require grad")
        if memory_format is not None and memory_format is not _layout.contiguous_format:
            raise RuntimeError(
                f"resize_: only memory_format=contiguous_format is supported, got {memory_format}"
            )
        shape = size_args(sizes)
        if any(s < 0 for s in shape):
            raise RuntimeError(
                f"resize_: trying to create a tensor with negative dimension: {list(shape)}"
            )
        root = _storage(self.array)
        if not root.flags.c_contiguous:
            raise RuntimeError(
                "resize_: the tensor's storage is not one contiguous block (a NumPy array's "
                "strided view); clone() it first"
            )
        storage = root.reshape(-1)
        offset = self.storage_offset()
        needed = offset + int(np.prod(shape, dtype=np.int64))
        if needed > storage.size:
            if self._counter is not None:
                # torch moves every view of the storage along to the new one; NumPy views would
                # keep the old memory, and silently stop sharing it with this tensor
                raise RuntimeError(
                    f"resize_: growing the tensor to {list(shape)} needs a larger storage, and "
                    "other tensors may view this one's storage (minigrad cannot move them along "
                    "with it); clone() the tensor first"
                )
            bigger = array_module(storage).zeros(needed, dtype=storage.dtype)
            bigger[: storage.size] = storage
            storage = bigger
        self.array = storage[offset:needed].reshape(shape)
        self._view = None  # no longer the view it was made as
        self._version_counter().value += 1
        return self

    def resize_as_(self, tensor, memory_format=None):
        """`resize_(tensor.shape)`."""
        return self.resize_(tensor.shape, memory_format=memory_format)

    # ---- shapes and hooks ------------------------------------------------------------------------
    def sum_to_size(self, *size):
        """Sum down to `size`, which must broadcast to this tensor's shape: the reduction
        broadcasting undoes (a bias gradient summed over the batch). Differentiable."""
        shape = size_args(size)
        try:
            fits = len(shape) <= self.ndim and np.broadcast_shapes(shape, self.shape) == self.shape
        except ValueError:
            fits = False
        if not fits:
            raise RuntimeError(
                f"size {{{list(shape)}}} is not expandable to size {{{list(self.shape)}}}."
            )
        if shape == self.shape:
            return self
        # sum the leading dims broadcasting added, and the dims where `size` has a 1 (as
        # unbroadcast)
        lead = self.ndim - len(shape)
        dims = tuple(range(lead)) + tuple(
            lead + i for i, s in enumerate(shape) if s == 1 and self.shape[lead + i] != 1
        )
        return (self.sum(dim=dims) if dims else self).reshape(shape)

    def register_post_accumulate_grad_hook(self, hook):
        """Call `hook(tensor)` after backward has accumulated this leaf's gradient into
        `.grad` (an optimizer can step each parameter as soon as its gradient is complete).
        Returns a handle with `.remove()`."""
        from minigrad.autograd import hooks

        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            raise RuntimeError(
                "post accumulate grad hooks cannot be registered on non-leaf tensors"
            )
        registered = hooks.post_accumulate_grad_hooks(self)
        handle = hooks.RemovableHandle(registered)
        registered[handle.id] = hook
        return handle


def _address(array):
    """The memory address of an array's first element: NumPy's says it in its
    `__array_interface__`, CuPy's in its memory pointer `data.ptr` (an address on the GPU)."""
    if isinstance(array, np.ndarray):
        return array.__array_interface__["data"][0]
    return array.data.ptr


def _storage(array):
    """The array that owns `array`'s memory: the base of its base ... (NumPy's and CuPy's
    views both name the array they look into as `base`)."""
    kind = array_module(array).ndarray
    while isinstance(array.base, kind):
        array = array.base
    return array


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
    if (
        memory_format is None
        or memory_format is _layout.contiguous_format
        or memory_format is _layout.preserve_format
    ):
        return None
    if not isinstance(memory_format, _layout.memory_format):
        raise TypeError(
            f"{op}: memory_format must be a minigrad.memory_format, got "
            f"{type(memory_format).__name__}"
        )
    return memory_format.order
