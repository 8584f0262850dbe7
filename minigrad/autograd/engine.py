"""The backward engine: walk the graph from the outputs back to the leaves.

1. `topological_order` lists every tensor that needs a gradient so that each tensor
   comes after all the tensors it was computed from. It uses an explicit stack, not
   recursion, so a chain of 100,000 ops does not hit Python's recursion limit.
2. `run_backward` visits that list in reverse (outputs first). When a tensor is
   reached, every op that used it has already sent its share of the gradient, so its
   gradient is complete: hooks run on it, then its `grad_fn.backward` turns it into
   gradients for the op's inputs, which are summed into their running totals
   (`_Sums`).
3. Leaves accumulate into `.grad`; `autograd.grad` instead returns the gradients of
   the tensors it was asked about and touches no `.grad`. `zero_grad` empties `.grad`
   again before the next backward (the optimizer's and the Module's call it).
"""

import sys

import numpy as np

from minigrad.array_module import array_module
from minigrad.autograd import anomaly, grad_mode, hooks, inplace
from minigrad.autograd.function import inputs_as_used
from minigrad.autograd.slice_gradient import SliceGradient
from minigrad.tensor import Tensor


def topological_order(roots):
    """Tensors reachable from `roots` (through inputs that require grad), inputs first."""
    order, seen = [], set()
    stack = [(root, False) for root in roots]
    while stack:
        tensor, inputs_done = stack.pop()
        if inputs_done:
            order.append(tensor)
            continue
        if id(tensor) in seen:
            continue
        seen.add(id(tensor))
        stack.append((tensor, True))  # revisit after all its inputs are placed
        fn = tensor.grad_fn
        if fn is not None:
            # as fn used them (inputs changed in place since: inplace.py)
            for parent in inputs_as_used(fn):
                if parent is not None and parent.requires_grad and id(parent) not in seen:
                    stack.append((parent, False))
    return order


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def run_backward(roots, root_grads, retain_graph, create_graph, inputs=None, allow_unused=False):
    """Propagate `root_grads` from `roots` to the leaves: the walk, with its checks in
    the helpers below. Finished gradients go to `kept` (the leaves' `.grad`, or the
    `inputs` that `autograd.grad` asked about)."""
    sums = _Sums(in_place=not create_graph)  # the gradient that reached each tensor so far
    for root, g in zip(roots, root_grads):
        sums.add(root, g)
    kept = _Kept(inputs, create_graph, root_grads)
    previous_mode = grad_mode._set(create_graph)  # record the backward pass only if asked
    try:
        for tensor in reversed(topological_order(roots)):
            grad = sums.pop(tensor)
            if grad is None:
                continue  # no path from the roots carries a gradient here
            if tensor._hooks:
                grad = _run_hooks(tensor, grad)  # tensor.register_hook(fn): may replace it
            fn = tensor.grad_fn
            if fn is None or tensor._retains_grad or kept.captured is not None:
                kept.take(tensor, grad)  # into a leaf's .grad, or kept for autograd.grad
            if fn is None:
                continue  # a leaf: the walk ends here
            for parent, g in _input_grads(fn, grad):  # fn's backward: the chain rule
                sums.add(parent, g)
            if not retain_graph:
                fn.release()
    finally:
        grad_mode._set(previous_mode)
    return kept.results(allow_unused)


def _run_hooks(tensor, grad):
    """The tensor's hooks, in order; each sees the gradient and may return a new one."""
    for hook in tensor._hooks.values():
        new = hook(grad)
        if new is None:
            continue
        if not isinstance(new, Tensor) or new.shape != grad.shape:
            # caught here, not as a confusing error (or a wrong .grad) further on
            got = f"shape {new.shape}" if isinstance(new, Tensor) else type(new).__name__
            raise RuntimeError(
                f"hook {getattr(hook, '__name__', hook)!r} returned {got}, but it must "
                f"return None or a Tensor of the gradient's shape {grad.shape}"
            )
        grad = new
    return grad


def _input_grads(fn, grad):
    """[(input, its gradient)] for the inputs of `fn` that take one: `fn`'s backward run
    with `fn` as ctx, and what it returned checked (count, type, shape; and the values
    under detect_anomaly), so that a wrong backward is reported at the op, by name."""
    if fn._freed:
        raise RuntimeError(
            f"{fn.name()}: trying to backward through the graph a second time. The graph "
            "is freed after backward; pass retain_graph=True to the first backward."
        )
    if anomaly._enabled:
        # the ops inside a backward would report themselves ("forward of Div");
        # the gradients are checked below under this op's name instead
        anomaly._enabled = False
        try:
            input_grads = _as_tuple(type(fn).backward(fn, grad))
        finally:
            anomaly._enabled = True
    else:
        input_grads = _as_tuple(type(fn).backward(fn, grad))
    got, expected = len(input_grads), len(fn.inputs)
    if got < expected:
        counts = f"backward returned {got} gradients but forward had {expected} inputs"
        raise RuntimeError(f"{fn.name()}: {counts}")
    pairs = []
    for i, (parent, g) in enumerate(zip(inputs_as_used(fn), input_grads)):
        if parent is None or g is None or not parent.requires_grad:
            continue
        if not isinstance(g, (Tensor, SliceGradient)):  # a user backward returning an ndarray
            raise TypeError(
                f"{fn.name()}: backward must return Tensors (or None), but gradient {i} is a "
                f"{type(g).__name__}; wrap a NumPy array with mg.from_numpy(array)"
            )
        if g.shape != parent.shape:
            shapes = f"gradient {i} has shape {g.shape} but its input has shape {parent.shape}"
            raise RuntimeError(f"{fn.name()}: {shapes}")
        if anomaly._enabled:
            values = g.part if isinstance(g, SliceGradient) else g.array  # the rest is zeros
            anomaly.check_finite(values, f"{fn.name()} (gradient for input {i})")
        pairs.append((parent, g))
    return pairs


class _Sums:
    """The gradient that has reached each tensor so far: the sum of what the backward
    of every op that used it sent back (the multivariable chain rule).

    The first gradient to arrive is kept as it is, since it may be shared: the backward
    of a + b hands the same tensor to both inputs, and a root's gradient is the caller's.
    A second one makes a new array, their sum, which nothing else holds; so, unless the
    backward pass is being recorded (create_graph=True, where every sum is an op of the
    graph), the ones after it are added into that array in place, with no new full-size
    array each. A `SliceGradient` (x[index]'s backward) is added at its slice only: the
    pieces of `x.split(...)` fill one array of x's shape, a slice each.
    """

    def __init__(self, in_place):
        self.in_place = in_place
        self.sums = {}  # id(tensor) -> Tensor or SliceGradient
        self.owned = set()  # ids of the tensors whose sum is an array made here

    def add(self, tensor, g):
        key = id(tensor)
        total = self.sums.get(key)
        if total is None:
            self.sums[key] = g  # kept as it is (see above)
            return
        if key not in self.owned:
            if self.in_place and isinstance(total, SliceGradient) and g.dtype == total.dtype:
                total = total.dense()  # a new array, to add g into below
            else:
                total = _dense(total) + _dense(g)  # a new array: the sum of the two
                g = None
            self.sums[key] = total
            # a 0-d sum can come out as a NumPy scalar, which cannot be added into
            if self.in_place and not _read_only(total.array):
                self.owned.add(key)
        if g is None:
            return
        if g.dtype != total.dtype:  # a backward that returned another dtype: promoted, as `+` does
            self.sums[key] = total + _dense(g)
            self.owned.discard(key)
        elif isinstance(g, SliceGradient):
            g.add_into(total.array)
        else:
            total.array += g.array

    def pop(self, tensor):
        """The finished gradient of `tensor` (None if none reached it), as a Tensor."""
        self.owned.discard(id(tensor))
        return _dense(self.sums.pop(id(tensor), None))


def _dense(g):
    return g.dense() if isinstance(g, SliceGradient) else g


class _Kept:
    """Where the walk leaves each finished gradient.

    `backward` (inputs=None): a leaf's gradient, and that of a non-leaf that called
    `retain_grad()`, is added into its `.grad`; then a leaf's post-accumulate-grad hooks
    run. `autograd.grad` (inputs given): the gradients of `inputs` are kept, to be
    returned by `results`, and no `.grad` is touched.
    """

    def __init__(self, inputs, create_graph, root_grads):
        self.inputs = inputs
        self.captured = None if inputs is None else {id(t): None for t in inputs}
        self.create_graph = create_graph
        self.handed_out = {id(g) for g in root_grads}  # gradient tensors something else may hold

    def take(self, tensor, grad):
        if self.captured is not None:
            if id(tensor) in self.captured:
                self.captured[id(tensor)] = grad
        elif tensor.grad_fn is None or tensor._retains_grad:
            _accumulate_leaf(tensor, grad, self.create_graph, self.handed_out)
            if tensor.grad_fn is None:
                hooks.run_post_accumulate_grad_hooks(tensor)  # its .grad is complete now

    def results(self, allow_unused):
        """autograd.grad's answer, one gradient per input (None for backward)."""
        if self.captured is None:
            return None
        results = []
        for i, t in enumerate(self.inputs):
            g = self.captured[id(t)]
            if g is None and not allow_unused:
                raise RuntimeError(
                    f"autograd.grad: input {i} (shape {t.shape}) was not used to compute the "
                    "outputs; pass allow_unused=True to get None for it"
                )
            results.append(g)
        return tuple(results)


def _read_only(array):
    """Whether NumPy marks `array` as not to be written (read-only, or expanded). CuPy's
    flags have no `writeable`: all its arrays can be written (an expanded one is a view,
    which the caller tells by its base)."""
    return not getattr(array.flags, "writeable", True)


def _owns_its_memory(array):
    """Whether `array` alone sees its memory: a fresh array, or a view of one that covers
    all of it in C order and that nothing else holds (the reshape of a kernel's fresh
    result, as attention's (B H, T, d) gradients seen as (B, H, T, d)). Such a view is as
    good as a fresh array, and `.grad` keeps it without a copy, as PyTorch's AccumulateGrad
    keeps a gradient no other tensor uses. The base's references counted: the view's own,
    the name `base` here and getrefcount's argument; any other holder (another view of it,
    a saved array) makes more, and the gradient is copied."""
    base = array.base
    if base is None:
        return True
    return (
        type(base) is np.ndarray
        and base.base is None
        and array.flags.c_contiguous
        and array.size == base.size
        and sys.getrefcount(base) == 3
    )


def _accumulate_leaf(tensor, grad, create_graph, handed_out):
    """Add `grad` into `tensor.grad` (a leaf, or a non-leaf that called retain_grad)."""
    if grad.dtype != tensor.dtype:
        grad = grad.to(tensor.dtype)
    if tensor.grad is not None:
        tensor.grad = tensor.grad + grad
    elif create_graph:
        tensor.grad = grad
    elif id(grad) in handed_out or not _owns_its_memory(grad.array) or _read_only(grad.array):
        # `.grad` must own its storage: the same gradient tensor can be handed to
        # several inputs (a + b gives both the incoming gradient), and a view would
        # change when its base does. Fresh arrays (the common case) are kept as they are.
        # The copy is laid out in C order, as the parameter is: a Linear's weight gradient
        # arrives as a transposed view, and an optimizer that reads it next to the
        # parameter and its C-ordered state would stride across memory (AdamW's step on
        # the baby GPT took a third of its time with C-ordered gradients and one more
        # change: benchmarks/RESULTS.md).
        tensor.grad = Tensor._make(grad.array.copy(order="C"))
    else:
        tensor.grad = grad.detach()
    handed_out.add(id(tensor.grad))
    handed_out.add(id(grad))


def zero_grad(tensors, set_to_none=True):
    """Forget the gradients accumulated in the `.grad` of `tensors` (parameters), before
    the next backward accumulates new ones: `Optimizer.zero_grad` and `Module.zero_grad`.

    `set_to_none=True` (the default) drops each `.grad`, which frees its memory and lets
    an optimizer's `step` skip parameters that then get no gradient; `False` fills the
    existing gradient tensors with zeros, in place.
    """
    for t in tensors:
        if t.grad is None:
            continue
        if set_to_none:
            t.grad = None
        else:
            t.grad.detach_()  # a gradient made with create_graph=True has a graph of its own
            t.grad.zero_()


def _check_roots(outputs, grad_outputs, caller):
    outputs = _as_tuple(outputs)
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    grad_outputs = _as_tuple(grad_outputs)
    if len(grad_outputs) != len(outputs):
        raise ValueError(f"{caller}: got {len(outputs)} outputs but {len(grad_outputs)} gradients")
    grads = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if (
            out._view is not None
            and out._view.version != out._version
            and grad_mode.is_grad_enabled()
        ):
            inplace.renew_view(out)  # a view whose base was changed in place since it was taken
        if not out.requires_grad:
            raise RuntimeError(
                f"{caller}: element {i} of the outputs does not require grad and has no grad_fn "
                "(was it computed under no_grad, or from tensors with requires_grad=False?)"
            )
        if g is None:
            if out.numel() != 1:
                raise RuntimeError(
                    f"{caller}: grad can be implicitly created only for scalar outputs, but the "
                    f"output has shape {out.shape}; pass a gradient of that shape"
                )
            g = Tensor._make(array_module(out.array).ones(out.shape, dtype=out.dtype))
        elif not isinstance(g, Tensor):
            g = Tensor._make(array_module(out.array).asarray(g, dtype=out.dtype))
        if g.shape != out.shape:
            raise RuntimeError(
                f"{caller}: gradient has shape {g.shape} but the output has shape {out.shape}"
            )
        grads.append(g)
    return outputs, grads


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False):
    """Accumulate d(tensors)/d(leaf) into every leaf's `.grad` (like torch.autograd.backward)."""
    roots, grads = _check_roots(tensors, grad_tensors, "backward")
    if retain_graph is None:
        retain_graph = create_graph
    run_backward(roots, grads, retain_graph, create_graph)


def grad(
    outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, allow_unused=False
):
    """Return d(outputs)/d(inputs) as a tuple, without touching any `.grad`.

    With `create_graph=True` the returned gradients are part of a graph and can be
    differentiated again (second derivatives, Hessian-vector products).
    """
    roots, grads = _check_roots(outputs, grad_outputs, "autograd.grad")
    inputs = _as_tuple(inputs)
    for i, t in enumerate(inputs):
        if not isinstance(t, Tensor) or not t.requires_grad:
            raise RuntimeError(f"autograd.grad: input {i} is not a Tensor that requires grad")
    if retain_graph is None:
        retain_graph = create_graph
    return run_backward(
        roots, grads, retain_graph, create_graph, inputs=inputs, allow_unused=allow_unused
    )
