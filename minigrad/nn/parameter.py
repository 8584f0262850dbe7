"""Parameter: a Tensor that a Module registers as one of its learnable weights; Buffer,
one it registers as state; and the uninitialized forms of both that lazy layers hold
until their first input.

It differs from a Tensor in two ways only: it requires grad by default, and assigning
one to a Module attribute (`self.weight = Parameter(...)`) registers it, so that
`parameters()`, `state_dict()` and optimizers find it.
"""

import numpy as np

from minigrad.array_module import on_device, to_device
from minigrad.devices import check_device
from minigrad.tensor import Tensor


class Parameter(Tensor):
    """A leaf tensor that a Module owns; `Parameter(data, requires_grad=True)`.

    `data` may be a Tensor (its storage is shared, as in PyTorch) or anything
    `mg.tensor` accepts.
    """

    def __init__(self, data=None, requires_grad=True):
        if data is None:
            data = np.zeros(0, dtype=np.float32)
        array = data.array if isinstance(data, Tensor) else np.asarray(data)
        if not isinstance(data, (Tensor, np.ndarray)) and array.dtype.kind == "f":
            array = array.astype(np.float32)  # Python floats become float32, as mg.tensor
        self._init_leaf(array)  # shares `array`: a Parameter made from a Tensor uses its storage
        if requires_grad:
            self.requires_grad_(True)

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __reduce_ex__(self, protocol):
        # copy.deepcopy / pickle: rebuild as a Parameter with a copy of the data
        return (Parameter, (self.array.copy(), self.requires_grad))


class Buffer(Tensor):
    """A tensor to register as a buffer by assignment: `self.running = nn.Buffer(t)` in a
    Module does what `self.register_buffer("running", t, persistent)` does (torch 2.x).
    The module keeps a plain Tensor sharing `data`'s storage; `persistent=False` keeps
    it out of the state dict."""

    __slots__ = ("persistent",)

    def __init__(self, data=None, *, persistent=True):
        if data is None:
            data = np.zeros(0, dtype=np.float32)
        self._init_leaf(data.array if isinstance(data, Tensor) else np.asarray(data))
        self.persistent = persistent

    def as_tensor(self):
        """The plain Tensor a module registers: the same storage, no longer a Buffer."""
        return Tensor._make(self.array)


_UNINITIALIZED_SHAPE = (
    "Can't access the shape of an uninitialized parameter or buffer. This error usually happens in "
    "`load_state_dict` when trying to load an uninitialized parameter into an initialized one. "
    "Call `forward` to initialize the parameters before accessing their attributes."
)


class UninitializedTensorMixin:
    """A parameter or buffer whose shape is not known yet (a lazy layer's, before its first
    input): it holds an empty placeholder of its dtype, refuses to tell its shape, and
    `materialize(shape)` gives it storage of that shape and makes it the ordinary class
    (`cls_to_become`), as torch's do."""

    __slots__ = ()
    cls_to_become = None

    @property
    def shape(self):
        raise RuntimeError(_UNINITIALIZED_SHAPE)

    def materialize(self, shape, device=None, dtype=None):
        """Allocate storage of `shape` (its values are uninitialised: the layer
        initialises them) and become a Parameter (or a Tensor). The storage is made on
        `device`, or where the placeholder lives (a layer made with device="cuda")."""
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        array = np.zeros(shape, dtype=self.array.dtype if dtype is None else np.dtype(dtype))
        on_gpu = (
            on_device(self.array)
            if device is None
            else check_device(device, "materialize").type == "cuda"
        )
        self.array = to_device(array) if on_gpu else array
        self.__class__ = self.cls_to_become

    def __repr__(self):
        return f"<{type(self).__name__}>"


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A Parameter of a lazy layer before its shape is known; becomes a Parameter when
    materialized."""

    cls_to_become = Parameter

    def __init__(self, requires_grad=True, device=None, dtype=None):
        super().__init__(
            np.zeros(0, dtype=np.float32 if dtype is None else np.dtype(dtype)), requires_grad
        )

    def __reduce_ex__(self, protocol):
        return (type(self), (self.requires_grad, None, self.array.dtype))


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer of a lazy layer (running statistics) before its shape is known; becomes a
    Tensor when materialized."""

    __slots__ = ()
    cls_to_become = Tensor

    def __init__(self, requires_grad=False, device=None, dtype=None):
        self._init_leaf(np.zeros(0, dtype=np.float32 if dtype is None else np.dtype(dtype)))
        if requires_grad:
            self.requires_grad_(True)
