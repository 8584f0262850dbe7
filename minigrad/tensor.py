"""Tensor: an array (NumPy on the CPU, CuPy on a GPU), plus what autograd needs to send a
gradient back to it.

A tensor made by an op remembers that op in `grad_fn` (a `Function` instance, which in
turn remembers the op's input tensors). Those links are the graph that `backward` walks.
A tensor made by the user is a *leaf*: `grad_fn` is None, and if it requires grad its
gradient accumulates in `.grad`.

This file holds the tensor itself: its data and autograd attributes, construction,
`backward`, `repr` and the operators (`+`, `*`, `@`, `==`, `t[i]`, ...). The other
methods come from mixins, one family per file: tensor_elementwise.py (`exp`, `clamp`,
...), tensor_reductions.py (`sum`, `max`, `sort`, ...), tensor_shape.py (`view`,
`permute`, `gather`, ...), tensor_linalg.py (`mm`, `det`, ...), tensor_inplace.py (`add_`,
`copy_`, ...), tensor_random.py (`normal_`, `bernoulli`, ...), tensor_conversion.py (`to`,
`item`, `numpy`, `new_zeros`, ...) and tensor_runtime.py (torch's device probes, memory
layout and legacy methods).

All the methods only check arguments and call `Function.apply` on the ops in
`minigrad/ops/` (`ops.elementwise.Exp.apply(x)`); the math lives there.
"""

import sys

import numpy as np

from minigrad import devices as _devices
from minigrad import dtypes
from minigrad import printing as _printing
from minigrad._args import normalize_dim
from minigrad.array_module import on_device as _on_device
from minigrad.array_module import to_device as _to_device
from minigrad.array_module import to_host as _to_host
from minigrad.cuda import runtime as _runtime
from minigrad.size import Size
from minigrad.tensor_conversion import ConversionMethods, _array_from_data
from minigrad.tensor_elementwise import ElementwiseMethods
from minigrad.tensor_inplace import InplaceMethods, _as_array, _data
from minigrad.tensor_inplace_math import InplaceMathMethods
from minigrad.tensor_linalg import LinalgMethods
from minigrad.tensor_random import RandomMethods
from minigrad.tensor_reductions import ReductionMethods
from minigrad.tensor_runtime import RuntimeMethods
from minigrad.tensor_shape import ShapeMethods

_tuple_new = tuple.__new__  # makes a Size from a tuple without Size.__new__'s checks


class VersionCounter:
    """How many times a storage was changed in place. Tensors that share storage (a
    view, a detached alias) share one counter, so a change through any of them is seen
    by `saved_tensors`, which compares it with the value recorded at save time."""

    __slots__ = ("value",)

    def __init__(self):
        self.value = 0


class Tensor(
    ElementwiseMethods,
    ReductionMethods,
    ShapeMethods,
    LinalgMethods,
    InplaceMethods,
    InplaceMathMethods,
    RandomMethods,
    ConversionMethods,
    RuntimeMethods,
):
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
        xp = _runtime.require("Tensor") if device.type == "cuda" else np  # where zeros are made
        self._init_leaf(_legacy_array(args, dtypes.to_dtype(dtype, "Tensor"), "Tensor", xp))
        if device.type == "cuda" and not _on_device(self.array):
            self.array = _to_device(self.array)  # data given on the host is copied over
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
            raise RuntimeError(
                f"mT: tensor must have at least 2 dimensions, got shape {self.shape}"
            )
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

    # ---- autograd ---------------------------------------------------------------------
    def requires_grad_(self, requires_grad=True):
        """Set `requires_grad` in place and return self. Only on a leaf: a tensor made by ops gets
        its `requires_grad` from its inputs (`detach()` gives a new leaf).
        """
        if not self.is_leaf:
            raise RuntimeError(
                "requires_grad_: you can only change requires_grad of leaf tensors; use .detach() "
                "to get a new leaf"
            )
        if requires_grad and self.dtype.kind != "f":
            raise RuntimeError(
                f"only Tensors of floating point dtype can require gradients, got {self.dtype}"
            )
        if requires_grad and self._inference and not autograd.grad_mode.is_inference_mode_enabled():
            raise RuntimeError(
                "requires_grad_: Setting requires_grad=True on inference tensor outside "
                "InferenceMode is not allowed (it was made in mg.inference_mode(); use clone() for "
                "an ordinary tensor)."
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
            raise RuntimeError(
                "retain_grad: can't retain_grad on a Tensor that has requires_grad=False"
            )
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
            raise RuntimeError(
                "register_hook: cannot register a hook on a tensor that doesn't require gradient"
            )
        if self._hooks is None:
            self._hooks = {}
        handle = autograd.hooks.RemovableHandle(self._hooks)
        self._hooks[handle.id] = hook
        return handle

    def backward(self, gradient=None, retain_graph=None, create_graph=False):
        """Accumulate d(self)/d(leaf) into `.grad` of every leaf that requires grad."""
        autograd.engine.backward(
            self, gradient, retain_graph=retain_graph, create_graph=create_graph
        )

    def detach(self):
        """A new leaf sharing this data (and its version counter), cut from the graph."""
        t = Tensor._make(self.array)
        t._counter = self._version_counter()
        t._inference = self._inference
        return t

    @property
    def data(self):
        """The values as a Tensor that shares this one's storage, cut from the graph, as
        torch's `.data`: `p.data.add_(u)` changes `p` and is not recorded, and assigning
        `p.data = p.data - lr * p.grad` gives `p` new values while it stays the same object
        (the one the model and the optimizer hold). (`detach()` is the safer twin: it
        shares the in-place version counter, so autograd notices when a tensor it saved is
        changed through it; `.data` does not, as in torch.) The array itself is `.array`,
        a NumPy array (a CuPy one for a CUDA tensor); `.numpy()` gives a CPU tensor's."""
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
                raise TypeError(
                    "grad: assigned grad expected to be a Tensor or None but got "
                    f"{type(value).__name__}"
                )
            if value.shape != self.shape:
                raise RuntimeError(
                    f"grad: assigned grad has data of a different size: {tuple(value.shape)} for a "
                    f"tensor of shape {tuple(self.shape)}"
                )
            if value.dtype != self.dtype:
                raise RuntimeError(
                    f"grad: assigned grad has data of a different type: {value.dtype} for a tensor "
                    f"of {self.dtype}"
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
        """Detach in place: this tensor becomes a leaf, cut from the graph that made it; returns
        self."""
        self.grad_fn = None
        self.requires_grad = False
        return self

    # ---- printing ----------------------------------------------------------------------
    def __repr__(self):
        """`tensor([...], dtype=..., grad_fn=<...>)`, laid out as torch lays it out (see
        minigrad/printing.py, and `mg.set_printoptions` to change it). A CUDA tensor's
        values are copied to the host to be printed, and it says `device='cuda:0'`."""
        data = _to_host(self.array)
        suffixes = [] if isinstance(self.array, np.ndarray) or self.is_cpu else ["device='cuda:0'"]
        # torch omits these
        has_default_dtype = data.dtype in (dtypes.default_float, np.int64, np.bool_)
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

    def __mul__(self, other):
        a, b = ops.promotion.binary_operands(self, other, "mul")
        return ops.elementwise.Mul.apply(a, b)

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
                    f"pow: integers to negative integer powers are not allowed ({self.dtype} ** "
                    f"{exponent})"
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
            raise RuntimeError(
                "neg: negation, the `-` operator, on a bool tensor is not supported; use "
                "logical_not()"
            )
        return ops.elementwise.Neg.apply(self)

    def __pos__(self):
        return self

    def __abs__(self):
        return self.abs()

    # ---- comparisons (no gradient: the result is bool) --------------------------------
    def _compare(self, other, op):
        if not isinstance(
            other, (Tensor, int, float, bool, np.number, np.bool_, np.ndarray, list, tuple)
        ):
            return NotImplemented  # so `t == None` is False, as for any unrelated object
        a, b = ops.promotion.binary_operands(self, other, op.__name__)
        if _runtime.in_use:  # a CUDA tensor exists: check the devices, as Function.apply does
            a, b = autograd.function._same_device(op.__name__, (a, b))
        return Tensor._make(_as_array(op(a.array, b.array)))  # a 0-d NumPy result is a scalar

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

    def __setitem__(self, index, value):
        if isinstance(value, Tensor) and value.device != self.device:
            value = value.to(self.device)  # copied over, as torch's `t[i] = u` copies u
        index = ops.index.normalize_index(index)
        write = lambda: ops.index.assign(self, index, _data(value))  # noqa: E731
        self._inplace("setitem", lambda t: ops.index.index_put(t, index, value), (value,), write)

    # ---- indexing ---------------------------------------------------------------------
    def __getitem__(self, index):
        return ops.index.GetItem.apply(self, index=ops.index.normalize_index(index))


# ---- helpers of the methods above ------------------------------------------------------
def _is_size(value):
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _legacy_array(args, dtype, op, xp=np):
    """The array of PyTorch's legacy constructor `Tensor(*args)` (and of `mg.FloatTensor(...)`,
    ...): nothing (empty), sizes (zeros, made by the array module `xp`), one Tensor (its
    own array, shared) or one sequence of data (a copy). `dtype` None means the default
    float dtype, except for a Tensor, which keeps its own."""
    if len(args) == 1 and isinstance(args[0], Tensor):
        data = args[0].array
        return data if dtype is None or dtype == data.dtype else data.astype(dtype)
    dtype = dtype or dtypes.default_float
    if all(_is_size(a) for a in args):  # also Tensor(): no sizes, an empty tensor
        shape = tuple(int(a) for a in args) or (0,)
        if min(shape) < 0:
            raise RuntimeError(
                f"{op}: Trying to create tensor with negative dimension {min(shape)}: {list(shape)}"
            )
        return xp.zeros(shape, dtype=dtype)  # PyTorch leaves it uninitialised; zeros, as mg.empty
    if len(args) > 1:
        raise TypeError(f"{op}: expected sizes (ints) or one sequence of data, got {args!r}")
    if not isinstance(args[0], (list, tuple, np.ndarray)):
        raise TypeError(f"{op}: new(): data must be a sequence (got {type(args[0]).__name__})")
    return _array_from_data(args[0], dtype)


# The one break in the import circle. Tensor's methods call the ops and the autograd
# engine, and every one of those modules imports Tensor from here. So they are imported
# last, once the class exists, and the methods reach them as attributes looked up when
# a method runs (`ops.elementwise.Exp.apply(...)`, `autograd.engine.backward(...)`).
from minigrad import autograd, ops  # noqa: E402

# The methods of the mixin files (tensor_elementwise.py, ...) name the same globals, and
# Tensor itself. Each file declares those it uses as None, and gets them here, once they
# all exist: the circle is broken in this one place, not once per file.
for _base in Tensor.__bases__:
    for _name in ("Tensor", "autograd", "ops"):
        if hasattr(sys.modules[_base.__module__], _name):
            setattr(sys.modules[_base.__module__], _name, globals()[_name])
