"""The recorded graph as PyTorch shows it: node names, `next_functions`, `AccumulateGrad`.

minigrad's graph links *tensors*: a node (`grad_fn`) keeps the tensors it consumed in
`inputs`, and the engine walks those. PyTorch shows users a graph of *nodes* instead,
and programs that print `loss.grad_fn` or draw the graph (torchviz, say) walk that:

    node.next_functions = ((next node, input_nr), ...)   one pair per tensor input

where the next node is the input's own `grad_fn`, an `AccumulateGrad` node when the
input is a leaf that requires grad (its `.variable` is the leaf), or None when the input
needs no gradient. `input_nr` says which output of the next node the input was; every
minigrad op has one output, so it is always 0. This file builds that view from minigrad's
graph, and gives the nodes PyTorch's names where minigrad records the same op.
"""

import abc
import threading
import weakref
from typing import NamedTuple

# minigrad op -> the name PyTorch gives the node of the same op. The digit is PyTorch's
# overload number (`a ** 2` is PowBackward0, `a ** b` PowBackward1). An op whose PyTorch
# counterpart differs (PyTorch builds `max(dim)` and `min(dim)` with two ops, sums a
# cross-entropy as NllLoss of LogSoftmax, ...) keeps its own name, the class name +
# "Backward", which is also what PyTorch calls the node of a custom Function.
_NAMES_BY_MODULE = {
    "minigrad.ops.elementwise": {
        "Add": "AddBackward0",
        "Sub": "SubBackward0",
        "Mul": "MulBackward0",
        "Div": "DivBackward0",
        "DivRounding": "DivBackward2",
        "Neg": "NegBackward0",
        "PowScalar": "PowBackward0",
        "Pow": "PowBackward1",
        "Exp": "ExpBackward0",
        "Log": "LogBackward0",
        "Sqrt": "SqrtBackward0",
        "Rsqrt": "RsqrtBackward0",
        "Sin": "SinBackward0",
        "Cos": "CosBackward0",
        "Tanh": "TanhBackward0",
        "Sigmoid": "SigmoidBackward0",
        "Erf": "ErfBackward0",
        "Relu": "ReluBackward0",
        "Abs": "AbsBackward0",
        "Sign": "SignBackward0",
        "Floor": "FloorBackward0",
        "Ceil": "CeilBackward0",
        "Round": "RoundBackward0",
    },
    "minigrad.ops.choose": {
        "Clamp": "ClampBackward1",
        "Maximum": "MaximumBackward0",
        "Minimum": "MinimumBackward0",
        "Where": "WhereBackward0",
    },
    "minigrad.ops.activation": {
        "LeakyRelu": "LeakyReluBackward0",
        "Elu": "EluBackward0",
        "Gelu": "GeluBackward0",
        "Silu": "SiluBackward0",
        "Softplus": "SoftplusBackward0",
        "Softmax": "SoftmaxBackward0",
        "LogSoftmax": "LogSoftmaxBackward0",
    },
    "minigrad.ops.linalg": {
        # every matmul is one op here; PyTorch's name for the common 2-D case (batched
        # products are BmmBackward0 there, behind reshapes)
        "MatMul": "MmBackward0",
        "Linear": "AddmmBackward0",  # F.linear with a bias; for N-D x PyTorch adds a view
    },
    "minigrad.ops.reduce": {
        "Sum": "SumBackward0",
        "Prod": "ProdBackward0",
        "LogSumExp": "LogsumexpBackward0",
        "Norm2": "LinalgVectorNormBackward0",
        "CumSum": "CumsumBackward0",
        "CumProd": "CumprodBackward0",
    },
    "minigrad.ops.shape": {
        "Reshape": "ViewBackward0",
        "Permute": "PermuteBackward0",
        "Expand": "ExpandBackward0",
        "Repeat": "RepeatBackward0",
        "Flip": "FlipBackward0",
        "Roll": "RollBackward0",
        "Clone": "CloneBackward0",
        "Contiguous": "CloneBackward0",
        "Cast": "ToCopyBackward0",
        "Cat": "CatBackward0",
        "ConstantPad": "ConstantPadNdBackward0",
    },
    "minigrad.ops.index": {
        "Gather": "GatherBackward0",
        "ScatterAdd": "ScatterAddBackward0",
        "Scatter": "ScatterBackward0",
        "IndexPut": "IndexPutBackward0",
    },
    "minigrad.autograd.inplace": {
        "CopySlices": "CopySlices",
    },
    "minigrad.ops.conv": {
        "Conv2d": "ConvolutionBackward0",
        "ConvTranspose2d": "ConvolutionBackward0",
    },
    "minigrad.ops.pool": {
        "MaxPool2d": "MaxPool2DWithIndicesBackward0",
        "AvgPool2d": "AvgPool2DBackward0",
    },
    "minigrad.ops.normalization": {
        "LayerNorm": "NativeLayerNormBackward0",
        "GroupNorm": "NativeGroupNormBackward0",
        "BatchNorm": "NativeBatchNormBackward0",
    },
    "minigrad.ops.loss": {
        "BinaryCrossEntropy": "BinaryCrossEntropyBackward0",
        "BinaryCrossEntropyWithLogits": "BinaryCrossEntropyWithLogitsBackward0",
    },
    "minigrad.nn.backward_hooks": {
        "HookIdentity": "BackwardHookFunctionBackward",
    },
}
TORCH_NAMES = {
    f"{module}.{op}": name
    for module, names in _NAMES_BY_MODULE.items()
    for op, name in names.items()
}


def node_name(cls):
    """The name of the nodes an op class records: PyTorch's, or the class name + "Backward"."""
    return TORCH_NAMES.get(f"{cls.__module__}.{cls.__qualname__}") or cls.__name__ + "Backward"


class AccumulateGrad:
    """The node at a leaf that requires grad: where a path of the graph ends, and where
    the gradient that arrives is added into `variable.grad` (the engine does the adding).

    It has no `next_functions` of its own. One node stands for one leaf while anything
    holds it, so two ops that use the same parameter lead to the *same* node, as in
    PyTorch, and a graph walker that collects nodes in a set finds each parameter once.
    """

    next_functions = ()

    def __init__(self, variable):
        self.variable = variable

    @staticmethod
    def name():
        return "torch::autograd::AccumulateGrad"  # PyTorch's (C++) name, for code that compares it

    def __repr__(self):
        return "<AccumulateGrad>"


# id(leaf) -> its AccumulateGrad, held weakly: a node lives while someone holds it (a graph
# walker's set of nodes, say), not as long as the leaf (leaf -> node -> leaf would be a
# reference cycle). The node holds the leaf, so no other tensor takes the leaf's id while
# the entry exists.
_accumulators = weakref.WeakValueDictionary()


def accumulate_grad(leaf):
    """The `AccumulateGrad` node of `leaf` (made on first use)."""
    node = _accumulators.get(id(leaf))
    if node is None:
        node = _accumulators[id(leaf)] = AccumulateGrad(leaf)
    return node


def end_of(tensor):
    """Where the edge from an op to its input `tensor` leads: the tensor's `grad_fn`, the
    tensor itself when it is a leaf that requires grad (its `AccumulateGrad` is made only
    when someone asks for it), or None when it needs no gradient."""
    if not tensor.requires_grad:
        return None
    return tensor.grad_fn if tensor.grad_fn is not None else tensor


# ---- torch.autograd.graph's public names ------------------------------------------------------
class Node(abc.ABC):
    """The base class of the graph's nodes, as torch.autograd.graph.Node: every `grad_fn`
    (a Function instance) and every `AccumulateGrad` is one, so `isinstance(t.grad_fn,
    Node)` holds. A node has a `name()` and `next_functions` (see the module docstring)."""

    @abc.abstractmethod
    def name(self):
        """The node's name, as `grad_fn=<...>` prints it."""

    @property
    @abc.abstractmethod
    def next_functions(self):
        """((next node, input_nr), ...), one pair per input of the op."""


Node.register(AccumulateGrad)


class GradientEdge(NamedTuple):
    """Where a tensor's gradient flows in the graph: the `node` that receives it (its
    grad_fn, or the AccumulateGrad of a leaf) and which output of that node it is."""

    node: object
    output_nr: int
    ownership_token: object = None


def get_gradient_edge(tensor):
    """The GradientEdge of a tensor that requires grad (torch.autograd.graph.get_gradient_edge)."""
    if not tensor.requires_grad:
        raise RuntimeError(
            "It is not possible to get the gradient edge for a Tensor that does not require "
            "gradients"
        )
    node = tensor.grad_fn if tensor.grad_fn is not None else accumulate_grad(tensor)
    return GradientEdge(node, 0)


def increment_version(tensor):
    """Count an in-place change made behind autograd's back (through `.array`, say), so that
    a backward that saved the tensor before it notices (torch.autograd.graph.increment_version).
    Takes a tensor or an iterable of them."""
    for t in (tensor,) if hasattr(tensor, "_version_counter") else tensor:
        t._version_counter().value += 1


# Hooks on what ops save for backward: inside `saved_tensors_hooks(pack, unpack)`, every
# tensor an op passes to ctx.save_for_backward is stored as pack(tensor), and backward gets
# unpack(packed) back. Programs use it to move saved activations off to another place (the
# CPU, a file, a compressed form) until backward needs them.
class _SavedTensorsHooksState(threading.local):
    def __init__(self):
        self.stack = []  # (pack_hook, unpack_hook), the innermost last
        self.disabled = None  # the error message while disable_saved_tensors_hooks is on


_saved_hooks = _SavedTensorsHooksState()
# how many saved_tensors_hooks blocks are open, in all threads: 0 skips the lookup
saved_hooks_in_use = 0


class Packed:
    """A saved tensor as its pack hook returned it, with the unpack hook that restores it."""

    __slots__ = ("value", "unpack")

    def __init__(self, value, unpack):
        self.value, self.unpack = value, unpack


def current_saved_tensors_hooks():
    """The innermost (pack_hook, unpack_hook) of this thread, or None."""
    return _saved_hooks.stack[-1] if saved_hooks_in_use and _saved_hooks.stack else None


class saved_tensors_hooks:
    """`with saved_tensors_hooks(pack_hook, unpack_hook):` every tensor saved for backward
    inside the block is kept as `pack_hook(tensor)` (anything), and backward receives
    `unpack_hook(packed)`, which must return a tensor of the same values.

    minigrad calls the hooks on what an op passes to `ctx.save_for_backward` (what custom
    Functions and most built-in ops save); an op that keeps a NumPy array of its own on
    ctx (a mask, indices) keeps it without the hooks."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self):
        global saved_hooks_in_use
        if _saved_hooks.disabled is not None:
            raise RuntimeError(_saved_hooks.disabled)
        _saved_hooks.stack.append((self.pack_hook, self.unpack_hook))
        saved_hooks_in_use += 1
        return self

    def __exit__(self, *exc):
        global saved_hooks_in_use
        _saved_hooks.stack.pop()
        saved_hooks_in_use -= 1
        return False


class disable_saved_tensors_hooks:
    """`with disable_saved_tensors_hooks(error_message):` opening a saved_tensors_hooks block
    inside raises RuntimeError(error_message) (for code whose saved tensors must stay as they
    are)."""

    def __init__(self, error_message):
        self.error_message = error_message

    def __enter__(self):
        self.previous, _saved_hooks.disabled = _saved_hooks.disabled, self.error_message
        return self

    def __exit__(self, *exc):
        _saved_hooks.disabled = self.previous
        return False
