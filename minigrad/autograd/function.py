"""`Function`: one differentiable op = a forward, a backward, and what it saved.

Calling `SomeOp.apply(x, y)` runs `forward` on the inputs and, when grad mode is on and
an input requires grad, makes the new `Function` instance the output's `grad_fn`. That
instance *is* the context (`ctx`) the two static methods receive: it remembers the
input tensors (the edges of the graph) and whatever `forward` saved for `backward`.

`backward` receives the gradient of the loss with respect to the output, as a Tensor,
and returns one gradient per input of `forward`. Built-in ops write `backward` with
Tensor operations, so when the engine runs it with grad mode on (`create_graph=True`)
the backward pass is itself recorded and can be differentiated again.

Ops whose gradient is written with their own output (exp, tanh, sigmoid, relu, sqrt,
softmax ...) save that output. The node holds it through a weak reference: a strong one
would close a loop, output -> grad_fn -> saved output, which only Python's cycle
collector can free, so a forward pass's activations would outlive the last name that
refers to them (an evaluation loop without no_grad would keep growing).
"""

import itertools
import weakref

import numpy as np

from minigrad.array_module import array_module, on_device, same_memory
from minigrad.autograd import anomaly, grad_mode, graph
from minigrad.cuda import runtime as _runtime
from minigrad.tensor import Tensor


class Function:
    """Base class of every differentiable op (built-in or user-defined).

    Subclasses define two static methods::

        @staticmethod
        def forward(ctx, *args, **kwargs) -> np.ndarray | Tensor
        @staticmethod
        def backward(ctx, grad_output: Tensor) -> Tensor | None | tuple

    `forward` receives Tensors (read `.array` for the NumPy array) and runs with grad
    mode off; `backward` returns one gradient (or None) per positional input.
    """

    _node_name = "FunctionBackward"  # each subclass gets its own (__init_subclass__)

    # What a node holds before `apply` records it (and again after `release`): class-level
    # defaults, read through the instance, rather than an `__init__` that sets them on
    # every one of the thousands of nodes a training step makes. They are immutable, so
    # sharing them is safe; `apply` and `save_for_backward` set the instance's own.
    inputs = ()
    needs_input_grad = ()
    _saved = ()
    _saved_versions = ()
    _freed = False
    seq = 0  # when the node was recorded (see `apply`); in-place ops compare it

    # ---- the context API used inside forward/backward ---------------------------
    # --8<-- [start:save_for_backward]
    def save_for_backward(self, *tensors):
        """Keep tensors for backward; in-place changes to them are detected later. (Inside
        `autograd.graph.saved_tensors_hooks`, what is kept is the pack hook's result.)"""
        hooks = graph.current_saved_tensors_hooks() if graph.saved_hooks_in_use else None
        if hooks is not None and getattr(self, "_packs", True):
            pack, unpack = hooks
            self._saved = tuple(
                [graph.Packed(pack(t), unpack) if isinstance(t, Tensor) else t for t in tensors]
            )
            # the hooks hold the data: nothing to compare
            self._saved_versions = (None,) * len(tensors)
            return
        self._saved = tensors
        self._saved_versions = tuple([getattr(t, "_version", None) for t in tensors])

    @property
    def saved_tensors(self):
        """The tensors given to save_for_backward, for use in backward. Raises if the graph was
        freed by an earlier backward, or if a saved tensor was changed in place since.
        """
        if self._freed:
            raise RuntimeError(
                f"{self.name()}: trying to backward through the graph a second time (or to "
                "use saved tensors after they were freed). Saved tensors are freed after "
                "backward; pass retain_graph=True to the first backward to keep them."
            )
        saved = tuple([_unpack(self, t) for t in self._saved])
        for i, (t, v) in enumerate(zip(saved, self._saved_versions)):
            if v is not None and t._version != v:
                raise RuntimeError(
                    f"{self.name()}: one of the variables needed for gradient computation has been "
                    f"modified by an in-place operation: saved tensor {i} of shape {t.shape} is at "
                    f"version {t._version}; expected version {v} instead. Use an out-of-place op "
                    "(x = x + y), or clone() the tensor before changing it."
                )
        return saved

    # --8<-- [end:save_for_backward]

    @classmethod
    def name(cls):
        """What made the tensor, as `grad_fn=<...>` prints it: PyTorch's name where
        minigrad records the same op (`MulBackward0`), else the class name + "Backward"."""
        return cls._node_name

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._node_name = graph.node_name(cls)  # looked up once per op, not per node

    def __repr__(self):
        return f"<{self.name()}>"

    @property
    def next_functions(self):
        """PyTorch's view of the graph: one `(node, 0)` pair per tensor input, the node
        being the input's `grad_fn`, its `AccumulateGrad` (a leaf that requires grad) or
        None (an input that needs no gradient). See `minigrad.autograd.graph`."""
        ends = (
            self._ends
            if self._freed
            else (graph.end_of(t) for t in inputs_as_used(self) if t is not None)
        )
        return tuple(
            (graph.accumulate_grad(end) if isinstance(end, Tensor) else end, 0) for end in ends
        )

    def release(self):
        """Free what backward needed; a later backward through this node raises.

        Everything forward kept goes: the inputs, the saved tensors, and whatever it
        stored on ctx (masks, indices). Only the edges stay, as `next_functions`, so the
        graph can still be walked (and printed) after backward, as in PyTorch.
        """
        ends = tuple([graph.end_of(t) for t in inputs_as_used(self) if t is not None])
        # inputs, needs_input_grad and the saved tensors read as the class's empty defaults again
        self.__dict__ = {"_ends": ends, "_freed": True}  # _ends: what next_functions is made of

    # ---- graph building -----------------------------------------------------------
    @staticmethod
    def forward(ctx, *args, **kwargs):
        """Compute the op's output (an array or a Tensor) from the Tensors and keyword
        arguments passed to `apply`. Override it in a subclass as a staticmethod
        `forward(ctx, *args)`; keep what backward needs with `ctx.save_for_backward(...)` or
        as attributes of `ctx`.
        """
        raise NotImplementedError("a Function subclass must define forward(ctx, ...)")

    @staticmethod
    def backward(ctx, grad_output):
        raise NotImplementedError("a Function subclass must define backward(ctx, grad_output)")

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run `forward` and, if any input requires grad, record the op in the graph.
        (Every op passes here: why it is written as it is for speed is told in
        benchmarks/RESULTS.md, "Per-op overhead since 11-21, traced".)"""
        ctx = cls()
        mode = grad_mode._state  # this thread's grad mode
        previous = mode.enabled
        if previous:
            for a in args:
                if isinstance(a, Tensor) and a._view is not None and a._view.version != a._version:
                    # its storage was changed in place since the view was taken
                    inplace.renew_view(a)
        if _runtime.in_use:  # a CUDA tensor exists: the inputs must share one device
            args = _same_device(cls.__name__, args)
        needs = tuple([isinstance(a, Tensor) and a.requires_grad for a in args])
        record = previous and True in needs
        if graph.saved_hooks_in_use:
            ctx._packs = record  # pack hooks see only what a recorded op saves, as in torch

        mode.enabled = False  # forward itself is never recorded
        try:
            out = cls.forward(ctx, *args, **kwargs)
        finally:
            mode.enabled = previous

        if not isinstance(out, Tensor):
            out = Tensor._make(out if type(out) is np.ndarray else array_module(out).asarray(out))
        elif any([out is a for a in args]):  # forward returned an input: give it a new node
            out = Tensor._make(out.array)
        if out.array.base is not None or on_device(out.array):  # a view (reshape, ...) shares
            # its input's storage, so it shares the in-place counter
            _note_view(out, cls, args, kwargs, previous)
        if mode.inference and not previous:  # made in inference_mode (which turns recording off)
            out._inference = True
        if anomaly._enabled:
            anomaly.check_finite(out.array, f"forward of {cls.__name__}")
        if record and out.array.dtype.kind == "f":  # integer and bool results carry no gradient
            ctx.inputs = tuple([a if isinstance(a, Tensor) else None for a in args])
            ctx.needs_input_grad = needs
            ctx.seq = next(_sequence)
            out.grad_fn = ctx
            out.requires_grad = True
            if ctx._saved:
                _check_saved(ctx, out)  # no inference tensors; the output itself held weakly
        return out


def _same_device(op, args):
    """`args`, checked to be on one device, as torch checks them: a CPU tensor with
    dimensions next to a CUDA tensor raises. A 0-d CPU tensor is a number there (`x * 0.5`
    makes one): it is handed to the GPU as a NumPy scalar, which CuPy passes to its kernel
    as an argument, with no copy (or, if it requires grad, moved over in the graph)."""
    devices = {a.device for a in args if isinstance(a, Tensor)}
    if len(devices) < 2:
        return args
    if any(a.ndim and a.device.type == "cpu" for a in args if isinstance(a, Tensor)):
        raise RuntimeError(
            f"{op}: Expected all tensors to be on the same device, but found at least two devices, "
            "cuda:0 and cpu!"
        )
    return tuple([_as_device_number(a) for a in args])


def _as_device_number(a):
    if not isinstance(a, Tensor) or a.device.type != "cpu":
        return a
    if a.requires_grad:
        return a.to("cuda")
    return a if isinstance(a.array, np.generic) else Tensor._make(a.array[()])


def _check_saved(ctx, out):
    """What a recorded node saved: inference tensors are refused (as in torch), and the
    op's own output is held through a weak reference. A strong one would close a loop,
    out -> ctx -> out, that only Python's cycle collector frees (module docstring). The
    engine reaches the node only through the output, so the output is alive whenever
    backward needs it (and it is the same tensor, so a recorded backward,
    create_graph=True, still differentiates through it)."""
    if True in [getattr(t, "_inference", False) for t in ctx._saved]:
        raise RuntimeError(
            f"{type(ctx).__name__}: Inference tensors cannot be saved for backward. Please do not "
            "use Tensors created in inference mode in computation tracked by autograd. To work "
            "around this, you can make a clone to get a normal tensor and use it in autograd, or "
            "use `mg.no_grad()` instead of `mg.inference_mode()`."
        )
    if any([t is out for t in ctx._saved]):
        ctx._saved = tuple([weakref.ref(t) if t is out else t for t in ctx._saved])


def _unpack(ctx, saved):
    """A saved tensor, the output behind a weak reference (see `apply`), or what an unpack
    hook makes of a packed one (autograd.graph.saved_tensors_hooks)."""
    if type(saved) is graph.Packed:
        return saved.unpack(saved.value)
    if type(saved) is not weakref.ref:
        return saved
    tensor = saved()
    if tensor is None:
        raise RuntimeError(
            f"{ctx.name()}: the output this op saved for backward no longer exists (it was "
            "dropped, and only the grad_fn kept); backward runs from the output tensor"
        )
    return tensor


_sequence = itertools.count(1)  # numbers the recorded nodes in the order they were made


_last_split = 0  # the number of the latest in-place change to a tensor in the graph


def next_seq(split=False):
    """A number larger than that of every node recorded so far; `split=True` notes it as
    the time of an in-place change (see `inputs_as_used`)."""
    global _last_split
    seq = next(_sequence)
    if split:
        _last_split = seq
    return seq


class ViewStep:
    """How a view was made from its base: `op.apply(*args, **kwargs)` with the base at
    `args[pos]`, so that it can be made again from the base after an in-place change
    (autograd/inplace.py). `version` is the storage's version the view's node reflects."""

    __slots__ = ("base", "pos", "op", "args", "kwargs", "version", "grad_mode")

    def __init__(self, base, pos, op, args, kwargs, version, grad_mode):
        self.base, self.pos, self.op, self.args, self.kwargs = base, pos, op, args, kwargs
        self.version, self.grad_mode = version, grad_mode

    def of(self, base):
        """The same view, taken from `base` (a tensor of the base's shape)."""
        args = (*self.args[: self.pos], base, *self.args[self.pos + 1 :])
        return self.op.apply(*args, **self.kwargs)


def _note_view(out, op, args, kwargs, grad_mode):
    """`out` shares the storage of one of the inputs: it shares its version counter, and
    remembers how it was made from it."""
    base = out.array.base
    for pos, a in enumerate(args):
        if not isinstance(a, Tensor):
            continue
        if base is not None:
            viewed = a.array is base or a.array.base is base
        else:  # CuPy's as_strided leaves base empty: the allocation tells the view
            viewed = (
                a.array is not out.array and on_device(a.array) and same_memory(a.array, out.array)
            )
        if viewed:
            out._counter = a._version_counter()
            out._inference = out._inference or a._inference  # a view of an inference tensor is one
            out._view = ViewStep(a, pos, op, args, kwargs, out._counter.value, grad_mode)
            return


def inputs_as_used(node):
    """The input tensors of `node` as it used them. An input changed in place after the
    node was recorded has a new node of its own; the node reaches the input's value
    from before the change through the input's history (autograd/inplace.py)."""
    if node.seq > _last_split:  # no tensor was changed in place since the node was recorded
        return node.inputs
    return [t if t is None or t._history is None else _as_of(t, node.seq) for t in node.inputs]


def _as_of(tensor, seq):
    for changed_at, before in tensor._history:
        if seq < changed_at:
            return before
    return tensor


graph.Node.register(Function)  # every grad_fn is an autograd.graph.Node, as in torch

from minigrad.autograd import inplace  # noqa: E402  (it defines Functions: imported after Function)
