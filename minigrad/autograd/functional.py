"""Higher-order derivatives of whole functions, as `torch.autograd.functional`.

For f taking tensors to tensors, with J its Jacobian (d outputs / d inputs) and H the
Hessian of a scalar f:

    vjp(f, x, v)   = (f(x), v^T J)     one backward pass (reverse mode)
    jvp(f, x, v)   = (f(x), J v)       the "double backward trick": u -> u^T J is linear in u,
                                       so its own vjp with v is (J v)^T (two backward passes)
    jacobian(f, x) = J                 one vjp per output element, stacked (its rows)
    hessian(f, x)  = H                 the Jacobian of the gradient
    vhp(f, x, v)   = (f(x), v^T H)     the vjp of the gradient
    hvp(f, x, v)   = (f(x), H v)       the jvp of the gradient (for a symmetric H, vhp's value)

`inputs` is a tensor or a tuple of tensors, and the results follow the same structure
(a tuple of tensors per output for jacobian, a tuple per input pair for hessian). With
`create_graph=True` the results are part of a graph and can be differentiated again;
with `strict=True` an input that an output does not depend on raises, where otherwise
its derivative is a tensor of zeros (the mathematically right value).

Everything is built from `autograd.grad` and `stack` (so this file sits with the ops, a layer
above the engine; `minigrad/__init__.py` makes it `mg.autograd.functional`). torch computes
`jacobian(..., vectorize=True)` with vmap; minigrad computes the same rows one at a time
either way, and `strategy="forward-mode"` builds the Jacobian's columns from jvps.
"""

import numpy as np

from minigrad.autograd import grad_mode
from minigrad.autograd.engine import grad as _grad
from minigrad.creation import from_numpy, zeros_like
from minigrad.ops.shape import stack
from minigrad.tensor import Tensor

__all__ = ["vjp", "jvp", "jacobian", "hessian", "vhp", "hvp"]


# ---- the plumbing: tuples in, tuples out -------------------------------------------------------
def _as_tuple(value, arg_name, fn_name):
    """(was it a tuple?, the value as a tuple of Tensors), with torch's TypeError otherwise."""
    is_tuple = isinstance(value, tuple)
    values = value if is_tuple else (value,)
    for i, v in enumerate(values):
        if not isinstance(v, Tensor):
            where = f"the value at index {i}" if is_tuple else f"the given {arg_name}"
            raise TypeError(
                f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors "
                f"but {where} has type {type(v)}."
            )
    return is_tuple, values


def _unpack(result, to_unpack):
    """Undo `_as_tuple`: a single tensor where the caller gave one (for two levels of
    nesting, `to_unpack` is (outer was a tuple?, inner was a tuple?))."""
    if isinstance(to_unpack, tuple):
        outer, inner = to_unpack
        if not inner:
            result = tuple(r[0] for r in result)
        if not outer:
            result = result[0]
        return result
    return result if to_unpack else result[0]


def _prepare(inputs, create_graph, need_graph):
    """New tensor objects for the inputs, so that the function's use of them is told apart
    from tensors it captured: still in the graph (a view) when the caller wants to
    differentiate the results again, else detached leaves that require grad."""
    return tuple(
        x.view_as(x) if create_graph and x.requires_grad else x.detach().requires_grad_(need_graph)
        for x in inputs
    )


def _finish(tensors, create_graph):
    """The results, cut from the graph unless create_graph asked to keep it (nested tuples too)."""
    if create_graph:
        return tensors
    return tuple(t.detach() if isinstance(t, Tensor) else _finish(t, False) for t in tensors)


def _check_v(v, other, is_other_tuple):
    if len(v) != len(other):
        if is_other_tuple:
            raise RuntimeError(
                f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}."
            )
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (a, b) in enumerate(zip(v, other)):
        if a.shape != b.shape:
            where = f"Entry {i} in " if is_other_tuple else ""
            raise RuntimeError(
                f"{where}v has invalid size: should be {tuple(b.shape)} but got {tuple(a.shape)}."
            )


def _check_outputs(outputs, strict):
    if strict:
        for i, out in enumerate(outputs):
            if not out.requires_grad:
                raise RuntimeError(
                    f"Output {i} of the user-provided function does not require gradients. The "
                    "outputs must be computed in a differentiable manner from the input when "
                    "running in strict mode."
                )


def _grads(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """autograd.grad that skips the outputs that need no gradient, and returns None for
    the inputs that nothing reaches."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    outs, gouts = zip(*pairs)
    return _grad(
        outs, inputs, gouts, retain_graph=retain_graph, create_graph=create_graph, allow_unused=True
    )


_INDEPENDENT = {
    "back": "The output of the user-provided function is independent of input {i}. This is not "
    "allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the "
    "grad_outputs when using the double backward trick to compute forward mode gradients. This is "
    "not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. This "
    "is not allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {i} in "
    "the grad_jacobian. This is not allowed in strict mode as it prevents from using the double "
    "backward trick to replace forward mode AD.",
}


def _zeros_for_none(grads, refs, strict, create_graph, stage):
    """Replace the None gradients (an input nothing depends on) by zeros, or raise in strict
    mode."""
    result = []
    for i, (g, ref) in enumerate(zip(grads, refs)):
        if g is None:
            if strict:
                raise RuntimeError(_INDEPENDENT[stage].format(i=i))
            g = zeros_like(ref)
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(
                f"The {what} of the user-provided function is independent of input {i}. This is "
                "not allowed in strict mode when create_graph=True."
            )
        result.append(g)
    return tuple(result)


def _check_gradients_depend(grads, kind, strict):
    if not strict:
        return
    for i, g in enumerate(grads):
        if g is None:
            raise RuntimeError(
                f"The output of the user-provided function is independent of input {i}. This is "
                "not allowed in strict mode."
            )
        if not g.requires_grad:
            if kind == "grad_inputs":
                raise RuntimeError(
                    f"The gradient with respect to input {i} is independent of the inputs of the "
                    "user-provided function. This is not allowed in strict mode."
                )
            raise RuntimeError(
                "While computing the hessian, found that the jacobian of the user-provided "
                f"function with respect to input {i} is independent of the input. This is not "
                "allowed in strict mode. You should ensure that your function is twice "
                "differentiable and that the jacobian depends on the inputs (this would be "
                "violated by a linear function for example)."
            )


def _vector(v, refs, is_refs_tuple, create_graph, fn_name, what):
    """The vector of a product: checked against `refs`, or 1 for a single one-element input."""
    if v is None:
        if len(refs) != 1 or refs[0].numel() != 1:
            raise RuntimeError(
                f"The vector v can only be None if {what} a single Tensor with a single element."
            )
        return None
    _, v = _as_tuple(v, "v", fn_name)
    v = _prepare(v, create_graph, need_graph=False)
    _check_v(v, refs, is_refs_tuple)
    return v


def _scalar_output(outputs, is_tuple, fn_name):
    if is_tuple:
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outputs[0].numel() != 1:
        raise RuntimeError(
            f"The Tensor returned by the function given to {fn_name} should contain a single "
            "element"
        )


# ---- the products --------------------------------------------------------------------------------
def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T J): the vector-Jacobian product, one backward pass. `v` has the
    outputs' shapes (it may be left out when the output is a single element)."""
    with grad_mode.enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        is_outputs_tuple, outputs = _as_tuple(
            func(*inputs), "outputs of the user-provided function", "vjp"
        )
        _check_outputs(outputs, strict)
        v = _vector(
            v, outputs, is_outputs_tuple, create_graph, "vjp", "the user-provided function returns"
        )
    with grad_mode.set_grad_enabled(create_graph or grad_mode.is_grad_enabled()):
        result = _zeros_for_none(
            _grads(outputs, inputs, v, create_graph), inputs, strict, create_graph, "back"
        )
    return _unpack(_finish(outputs, create_graph), is_outputs_tuple), _unpack(
        _finish(result, create_graph), is_inputs_tuple
    )


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), J v): the Jacobian-vector product, by the double backward trick.
    g(u) = u^T J is linear in u, so its vjp with v is (J v)^T: differentiate a backward pass
    with respect to its own incoming gradient u (any value: zeros)."""
    with grad_mode.enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        v = _vector(
            v,
            inputs,
            is_inputs_tuple,
            create_graph,
            "jvp",
            "the input to the user-provided function is",
        )
        is_outputs_tuple, outputs = _as_tuple(
            func(*inputs), "outputs of the user-provided function", "jvp"
        )
        _check_outputs(outputs, strict)
        u = tuple(zeros_like(out, requires_grad=True) for out in outputs)
        grad_inputs = _grads(outputs, inputs, u, create_graph=True)
        _check_gradients_depend(grad_inputs, "grad_inputs", strict)
    with grad_mode.set_grad_enabled(create_graph or grad_mode.is_grad_enabled()):
        result = _grads(grad_inputs, u, v, create_graph=create_graph)
        result = _zeros_for_none(result, outputs, strict, create_graph, "back_trick")
    return _unpack(_finish(outputs, create_graph), is_outputs_tuple), _unpack(
        _finish(result, create_graph), is_outputs_tuple
    )


def jacobian(
    func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"
):
    """J, the Jacobian of func at inputs: for an output of shape O and an input of shape I, a
    tensor of shape O + I; a tuple over the inputs when `inputs` is a tuple, a tuple (over the
    outputs) of such when func returns a tuple.

    "reverse-mode" (the default) computes one row per output element with a vjp;
    "forward-mode" one column per input element with a jvp, which torch offers only with
    `vectorize=True` (its vmap); minigrad loops either way, and gives the same values.
    """
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
            'function has more outputs than inputs, "forward-mode" tends to be more performant. '
            'Otherwise, prefer to use "reverse-mode".'
        )
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                "torch.autograd.functional.jacobian: `create_graph=True` and "
                '`strategy="forward-mode"` are not '
                "supported together (yet). Please either set `create_graph=False` or "
                '`strategy="reverse-mode"`.'
            )
        if strict:
            raise RuntimeError(
                'torch.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` '
                "are not supported together (yet). Please either set `strict=False` or "
                '`strategy="reverse-mode"`.'
            )
        if not vectorize:
            raise NotImplementedError(
                "Computing Jacobian using forward-AD or forward-over-reverse Hessian is only "
                "implemented for `vectorize=True`."
            )
        return _jacobian_by_columns(func, inputs)
    if vectorize and strict:
        raise RuntimeError(
            "torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not "
            "supported together. Please either set `strict=False` or `vectorize=False`."
        )
    with grad_mode.enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        is_outputs_tuple, outputs = _as_tuple(
            func(*inputs), "outputs of the user-provided function", "jacobian"
        )
        _check_outputs(outputs, strict)
        jacobians = []
        for i, out in enumerate(outputs):
            rows = [[] for _ in inputs]  # rows[k][j]: d out_j / d input k, one per output element j
            flat = out.reshape(-1)
            for j in range(out.numel()):
                row = _grads((flat[j],), inputs, retain_graph=True, create_graph=create_graph)
                for k, (g, x) in enumerate(zip(row, inputs)):
                    if g is None:
                        if strict:
                            raise RuntimeError(
                                f"Output {i} of the user-provided function is independent of input "
                                f"{k}. This is "
                                "not allowed in strict mode."
                            )
                        g = zeros_like(x)
                    elif strict and create_graph and not g.requires_grad:
                        raise RuntimeError(
                            "The jacobian of the user-provided function is independent of input "
                            f"{i}. This is "
                            "not allowed in strict mode when create_graph=True."
                        )
                    rows[k].append(g)
            jacobians.append(
                tuple(
                    _stack(rows[k], x).reshape(tuple(out.shape) + tuple(x.shape))
                    for k, x in enumerate(inputs)
                )
            )
        return _unpack(_finish(tuple(jacobians), create_graph), (is_outputs_tuple, is_inputs_tuple))


def _stack(rows, like):
    if rows:
        return stack(rows, 0)
    return zeros_like(like).reshape((0,) + tuple(like.shape))  # an output with no elements


def _jacobian_by_columns(func, inputs):
    """The Jacobian a column at a time: J e_m, a jvp with the m-th unit vector of an input.
    As torch's forward mode, the result stays differentiable with respect to the inputs."""
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    columns = None  # columns[i][k]: J_ik e_m for each element m of input k
    for k, x in enumerate(inputs):
        for m in range(x.numel()):
            unit = np.zeros(x.numel(), dtype=x.dtype)
            unit[m] = 1.0
            directions = tuple(
                from_numpy(unit.reshape(x.shape)) if j == k else zeros_like(y)
                for j, y in enumerate(inputs)
            )
            outputs, products = jvp(func, inputs, directions, create_graph=True)
            is_outputs_tuple = isinstance(outputs, tuple)
            outputs, products = (
                (outputs, products) if is_outputs_tuple else ((outputs,), (products,))
            )
            if columns is None:
                columns = [[[] for _ in inputs] for _ in outputs]
            for i, p in enumerate(products):
                columns[i][k].append(p)
    # stacked, a column's index comes first: move the input's dims behind the output's
    jacobians = tuple(
        tuple(
            _stack(columns[i][k], out)
            .reshape(tuple(x.shape) + tuple(out.shape))
            .permute(*range(x.ndim, x.ndim + out.ndim), *range(x.ndim))
            for k, x in enumerate(inputs)
        )
        for i, out in enumerate(outputs)
    )
    return _unpack(jacobians, (is_outputs_tuple, is_inputs_tuple))


def hessian(
    func,
    inputs,
    create_graph=False,
    strict=False,
    vectorize=False,
    outer_jacobian_strategy="reverse-mode",
):
    """H, the Hessian of a scalar func at inputs: the Jacobian of its gradient. For one
    input of shape I, a tensor of shape I + I; for a tuple of inputs, a tuple of tuples
    (`H[i][j]` of shape `I_i + I_j`)."""
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def scalar_func(*x):
        out = func(*x)
        is_tuple, outs = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_outputs(outs, strict)
        _scalar_output(outs, is_tuple, "hessian")
        return out.squeeze()

    def gradient(*x):
        if outer_jacobian_strategy == "forward-mode":
            x = tuple(t if t.requires_grad else t.requires_grad_(True) for t in x)
        g = jacobian(scalar_func, x, create_graph=True)
        _check_gradients_depend(g, "jacobian", strict)
        return g

    result = jacobian(
        gradient,
        inputs,
        create_graph=create_graph,
        strict=strict,
        vectorize=vectorize,
        strategy=outer_jacobian_strategy,
    )
    return _unpack(result, (is_inputs_tuple, is_inputs_tuple))


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T H) for a scalar func: the vjp of its gradient."""
    with grad_mode.enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vhp")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        v = _vector(
            v,
            inputs,
            is_inputs_tuple,
            create_graph,
            "vhp",
            "the input to the user-provided function is",
        )
        is_outputs_tuple, outputs = _as_tuple(
            func(*inputs), "outputs of the user-provided function", "vhp"
        )
        _check_outputs(outputs, strict)
        _scalar_output(outputs, is_outputs_tuple, "vhp")
        gradients = _grads(outputs, inputs, create_graph=True)
        _check_gradients_depend(gradients, "jacobian", strict)
    with grad_mode.set_grad_enabled(create_graph or grad_mode.is_grad_enabled()):
        result = _grads(gradients, inputs, v, create_graph=create_graph)
        result = _zeros_for_none(result, inputs, strict, create_graph, "double_back")
    return _unpack(_finish(outputs, create_graph), is_outputs_tuple), _unpack(
        _finish(result, create_graph), is_inputs_tuple
    )


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), H v) for a scalar func: the jvp of its gradient (double backward trick)."""
    with grad_mode.enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hvp")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        v = _vector(
            v,
            inputs,
            is_inputs_tuple,
            create_graph,
            "hvp",
            "the input to the user-provided function is",
        )
        is_outputs_tuple, outputs = _as_tuple(
            func(*inputs), "outputs of the user-provided function", "hvp"
        )
        _check_outputs(outputs, strict)
        _scalar_output(outputs, is_outputs_tuple, "hvp")
        gradients = _grads(outputs, inputs, create_graph=True)
        _check_gradients_depend(gradients, "jacobian", strict)
        u = tuple(zeros_like(x, requires_grad=True) for x in inputs)
        double_back = _grads(gradients, inputs, u, create_graph=True)
    with grad_mode.set_grad_enabled(create_graph or grad_mode.is_grad_enabled()):
        result = _grads(double_back, u, v, create_graph=create_graph)
        result = _zeros_for_none(result, inputs, strict, create_graph, "double_back_trick")
    return _unpack(_finish(outputs, create_graph), is_outputs_tuple), _unpack(
        _finish(result, create_graph), is_inputs_tuple
    )
