"""In-place ops inside the graph: how `scores.masked_fill_(mask, -inf)` is recorded.

An in-place op writes new values into a tensor's storage. On a tensor autograd has
already seen, two things must stay true, and minigrad keeps them as PyTorch does:

1. **The graph still describes the computation.** After `x.mul_(2)`, `x` holds values
   made by a new op, so `x.grad_fn` becomes that op's node, whose input is `x` as it
   was. But ops that used `x` *before* the change used the old values: their
   gradient must reach `x`'s old node. So the old node moves to a new, hidden tensor,
   and `x` keeps a history, "nodes recorded before step s used <that tensor>". Nodes
   are numbered as they are recorded (`ctx.seq`), and the engine reads each node's
   inputs as the node used them (`function.inputs_as_used`).
2. **No gradient is computed from overwritten values.** Every storage has a version
   counter that each in-place write bumps; `save_for_backward` notes the version and
   `saved_tensors` raises if it changed. Where the in-place op itself needs the old
   values for its gradient (`mul_` needs them for the other factor's), it keeps a copy.

A view (`x[1:]`, `x.T`, `x.view(...)`) shares its base's storage, so writing into a
view changes the base: the base gets a `CopySlices` node ("the base, with the view's
elements replaced by the new values"), and the view is taken again from the new base.
Other views of the same storage see that their version is out of date, and are taken
again from their base when next used (`renew_view`).

A leaf that requires grad (a parameter) refuses in-place ops outside `no_grad`, as in
PyTorch: its `.grad` is a gradient with respect to the values it holds.
"""

import weakref

import numpy as np

from minigrad.array_module import same_memory
from minigrad.autograd import function, grad_mode
from minigrad.autograd.function import Function
from minigrad.tensor import Tensor


def is_recorded(op, target, operands):
    """Whether the in-place op `op` on `target` with `operands` must be recorded in the
    graph (else it is a plain write). Raises PyTorch's errors for the writes it refuses."""
    if not grad_mode._state.enabled:
        return False
    hint = (
        f"(shape {target.shape}). Change it under `with mg.no_grad():`, or use the out-of-place op."
    )
    if target.requires_grad and target.grad_fn is None and target._view is None:
        raise RuntimeError(
            f"{op}: a leaf Variable that requires grad is being used in an in-place operation "
            f"{hint}"
        )
    if target._view is not None:
        base = root_of(target)
        if base.requires_grad:
            if base.grad_fn is None:
                raise RuntimeError(
                    f"{op}: a view of a leaf Variable that requires grad is being used in an "
                    f"in-place operation {hint}"
                )
            if not target._view.grad_mode:
                raise RuntimeError(
                    f"{op}: a view was created in no_grad mode and is being modified in-place with "
                    "grad mode enabled. Take the view with grad mode enabled, or make the change "
                    "under no_grad too."
                )
            return True
    return target.requires_grad or any(isinstance(t, Tensor) and t.requires_grad for t in operands)


def record(target, compute):
    """Write `compute(target)` (the op, out of place, recorded as usual) into target's
    storage, and make the graph say so (see the module docstring)."""
    if target._view is not None and target._view.version != target._version:
        renew_view(target)
    start = function.next_seq()
    result = compute(target)
    if result.dtype != target.dtype:
        # the storage keeps its dtype (checked castable by the caller)
        result = result.to(target.dtype)
    old = split_off(target)
    _keep_overwritten_inputs(result, target, old, start)
    if target._view is None:
        np.copyto(target.array, result.array)
        target._version_counter().value += 1
        _take_node(target, result)
    else:
        base = root_of(target)
        old_base = split_off(base)
        new_base = CopySlices.apply(old_base, result, view=_path(target), region=target.array)
        target._version_counter().value += 1
        _take_node(base, new_base)
        renew_view(target)
    return target


def split_off(t):
    """Move t's node (and the hooks registered so far) to a new tensor that shares t's
    storage, and note in t's history that nodes recorded until now used that one.
    t is then free to take the node of the op that changes it."""
    before = Tensor._make(t.array)
    before._counter = t._version_counter()
    before.requires_grad, before.grad_fn = t.requires_grad, t.grad_fn
    before._hooks, t._hooks = t._hooks, None  # hooks see the gradient of the value they were put on
    t._history = (*(t._history or ()), (function.next_seq(split=True), before))
    return before


def _take_node(t, result):
    """t now holds result's values: it becomes the output of result's node. If that node
    saved its output (exp_ saves y = e^x), the saved output is t, at t's new version."""
    t.grad_fn, t.requires_grad = result.grad_fn, result.requires_grad
    node = result.grad_fn
    if node is None or not node._saved:
        return
    saved, versions = list(node._saved), list(node._saved_versions)
    for i, s in enumerate(saved):
        if s is result or (type(s) is weakref.ref and s() is result):
            saved[i], versions[i] = weakref.ref(t), t._version  # weak: t -> node -> t is a cycle
    node._saved, node._saved_versions = tuple(saved), tuple(versions)


def _keep_overwritten_inputs(result, target, old, start):
    """The nodes `compute` just recorded may have saved `target` for their backward
    (`mul_` saves it for the other factor's gradient). Its storage is about to be
    overwritten, so they keep `old` instead, with a copy of the values."""
    copied = False
    for node in _nodes_since(result, start):
        if not any(s is target for s in node._saved):
            continue
        if not copied:  # one copy, with a counter of its own that no later write bumps
            old.array = old.array.copy()
            old._counter = type(target._counter)()
            old._counter.value = target._version
            copied = True
        node._saved = tuple(old if s is target else s for s in node._saved)


def _nodes_since(result, start):
    """The nodes recorded to compute `result` (those numbered after `start`)."""
    stack, seen = [result.grad_fn], set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen or node.seq <= start:
            continue
        seen.add(id(node))
        yield node
        stack.extend(t.grad_fn for t in node.inputs if t is not None)


# ---- views -------------------------------------------------------------------------------
def root_of(t):
    """The tensor that owns the storage a view (of a view ...) looks into."""
    while t._view is not None:
        t = t._view.base
    return t


def _path(view):
    """The view steps from its root to `view`, outermost first."""
    steps = []
    while view._view is not None:
        steps.append(view._view)
        view = view._view.base
    return tuple(reversed(steps))


def take_view(path, t):
    """Apply the view steps `path` to `t` (a tensor of the root's shape)."""
    for step in path:
        t = step.of(t)
    return t


def renew_view(view):
    """Take `view` again from its base, so its node reflects the base's latest in-place
    change (nodes recorded before keep the view as it was, through its history)."""
    info = view._view
    base = info.base
    if not base.requires_grad and not view.requires_grad:
        info.version = view._version  # no graph on either side: nothing to take again
        return
    if base._view is not None and base._view.version != base._version:
        renew_view(base)
    fresh = info.of(base)
    info.version = view._version
    if fresh.grad_fn is not view.grad_fn or fresh.requires_grad != view.requires_grad:
        split_off(view)
        view.grad_fn, view.requires_grad = fresh.grad_fn, fresh.requires_grad


class CopySlices(Function):
    """base' = base with the elements of one of its views replaced by `values`:
    an in-place op on a view, written into the view's base.

    dL/dbase = dL/dbase' with the view's elements zeroed (they were overwritten);
    dL/dvalues = the same view of dL/dbase'.
    """

    @staticmethod
    def forward(ctx, base, values, view, region):
        ctx.view = view
        # where the view's elements lie: the same view of a bool array laid out as base's storage
        ctx.written = np.zeros_like(base.array, dtype=bool)
        marks = take_view(view, Tensor._make(ctx.written)).array
        if not same_memory(marks, ctx.written):
            raise RuntimeError(
                f"in-place op on a view: cannot locate the view of shape {region.shape} in its base"
            )
        marks[...] = True
        np.copyto(region, values.array)  # region: the view's window into base's storage
        return base.array

    @staticmethod
    def backward(ctx, grad):
        # the view is taken of a gradient laid out in memory as a fresh base is: an as_strided
        # view names storage positions, and an expanded gradient has a storage of one element
        grad_values = take_view(ctx.view, grad.contiguous()) if ctx.needs_input_grad[1] else None
        grad_base = (
            grad.masked_fill(Tensor._make(ctx.written), 0.0) if ctx.needs_input_grad[0] else None
        )
        return grad_base, grad_values


# ---- in-place view ops: the tensor takes a new shape over the same storage ------------------
def change_view(target, view):
    """`target.unsqueeze_(0)`, `target.t_()`, ...: target becomes `view(target)`, a view of
    its own storage with a new shape and strides; no value changes.

    Autograd sees it as the view op applied to target's old self: target takes the view
    op's node, whose input is target as it was (moved to a new tensor by `split_off`, as
    for any in-place op). A view of some base stays a view of it, one step longer."""
    recorded = is_recorded("in-place view op", target, ())
    if target._view is not None and target._view.version != target._version:
        renew_view(target)
    if recorded:
        before = split_off(target)
    else:  # nothing to record: the old self only lends its storage (and its place under a base)
        before = Tensor._make(target.array)
        before._counter = target._version_counter()
    before._view = target._view
    result = view(before)
    target.array = result.array
    if recorded:
        target.grad_fn, target.requires_grad = result.grad_fn, result.requires_grad
    if target._view is not None:  # a view of a base: keep the path to it, through the old self
        target._view = result._view
    target._version_counter().value += 1
    return target
