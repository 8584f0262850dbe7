"""`mg.func`: function transforms, as the two of `torch.func` that programs use most.

- `grad(f)` is the function that returns the gradient of f, a scalar function, with
  respect to its argument(s): `grad(f)(x) = df/dx`. It composes: `grad(grad(f))(x)` is the
  second derivative.
- `functional_call(module, params, args)` calls a module with some of its parameters and
  buffers replaced by the given tensors, for that call only: the model as a function of
  its weights (meta-learning, per-example gradients, ensembles).

minigrad computes both with its ordinary autograd: `grad` calls `autograd.grad` with
`create_graph=True`, and `functional_call` swaps the tensors into the module and back.
torch's other transforms (vmap, jacrev, jvp over dual numbers) are not here.
"""

import collections.abc

from minigrad.autograd import grad_mode
from minigrad.autograd.engine import grad as _autograd_grad
from minigrad.creation import zeros_like
from minigrad.tensor import Tensor

__all__ = ["functional_call", "grad", "grad_and_value"]


def _argnums(argnums, count):
    numbers = argnums if isinstance(argnums, tuple) else (argnums,)
    if not numbers or not all(isinstance(n, int) and not isinstance(n, bool) for n in numbers):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {argnums!r}")
    for n in numbers:
        if not -count <= n < count:
            raise RuntimeError(f"Got argnums={argnums}, but only {count} positional inputs")
    return tuple(n % count for n in numbers)


def grad_and_value(func, argnums=0, has_aux=False):
    """Like `grad`, but the function returns (gradient, value) — ((gradient, (value, aux))
    with has_aux)."""

    def wrapper(*args, **kwargs):
        numbers = _argnums(argnums, len(args))
        with grad_mode.enable_grad():
            args = list(args)
            for n in numbers:
                if not isinstance(args[n], Tensor):
                    raise RuntimeError(f"grad_and_value(f)(*args): argument {n} must be a Tensor to differentiate")
                x = args[n]
                # in the caller's graph if it is differentiated itself (grad of grad), else a new leaf
                args[n] = x.view_as(x) if x.requires_grad else x.detach().requires_grad_()
            output = func(*args, **kwargs)
            aux = None
            if has_aux:
                if not (isinstance(output, tuple) and len(output) == 2):
                    raise RuntimeError(
                        "grad_and_value(f)(*args): output of function f should be a tuple: (output, aux) if has_aux is True"
                    )
                output, aux = output
            if not isinstance(output, Tensor):
                raise RuntimeError(
                    f"grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got {type(output)}"
                )
            if output.ndim != 0:
                raise RuntimeError(
                    f"grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got tensor with "
                    f"{output.ndim} dims. Maybe you wanted to use the vjp or jacrev APIs instead?"
                )
            inputs = [args[n] for n in numbers]
            keep_graph = any(args[n].grad_fn is not None for n in numbers)  # an outer transform differentiates
            if output.requires_grad:
                grads = _autograd_grad(output, inputs, create_graph=keep_graph, allow_unused=True)
            else:
                grads = (None,) * len(inputs)
            grads = tuple(zeros_like(x) if g is None else g for g, x in zip(grads, inputs))
        if not keep_graph:
            output = output.detach()
        result = grads if isinstance(argnums, tuple) else grads[0]
        return (result, (output, aux)) if has_aux else (result, output)

    return wrapper


def grad(func, argnums=0, has_aux=False):
    """The function x -> d func(x) / dx, for a `func` returning a scalar tensor.

    `argnums` picks the argument(s) to differentiate (an int, or a tuple: then a tuple of
    gradients); with `has_aux=True`, func returns (scalar, aux) and the new function
    (gradient, aux). Applied to an argument that requires grad (inside another `grad`, or
    a tensor of your graph), the gradient stays in the graph, so grad(grad(f)) works."""
    with_value = grad_and_value(func, argnums, has_aux)

    def wrapper(*args, **kwargs):
        gradients, value = with_value(*args, **kwargs)
        return (gradients, value[1]) if has_aux else gradients

    return wrapper


# ---- calling a module with other weights -----------------------------------------------------
def _owner(module, name):
    """(the submodule that holds `name`, the attribute's own name)."""
    path, _, attribute = name.rpartition(".")
    return (module.get_submodule(path) if path else module), attribute


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """`module(*args, **kwargs)` with the named parameters and buffers replaced by the given
    tensors for this call only (the module is restored afterwards, even on an error).

    `parameter_and_buffer_dicts` is a dict {'layer.weight': tensor, ...} or a tuple of them
    (no name in two). With `strict=True`, every parameter and buffer must be given, and
    nothing else. With `tie_weights=True` (the default), a tensor given for one name of a
    parameter the module shares under several names (tied embeddings) replaces all of them.
    """
    dicts = parameter_and_buffer_dicts
    dicts = tuple(dicts) if isinstance(dicts, (tuple, list)) else (dicts,)
    replacements, seen = {}, set()
    for d in dicts:
        if not isinstance(d, collections.abc.Mapping):
            raise ValueError(
                f"Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but got {type(d)}"
            )
        repeated = seen & set(d)
        if repeated:
            raise ValueError(
                f"{sorted(repeated)} appeared in multiple dictionaries; behavior of functional call is ambiguous"
            )
        seen |= set(d)
        replacements.update(d)

    named = list(module.named_parameters(remove_duplicate=False)) + list(module.named_buffers(remove_duplicate=False))
    if strict:
        names = {name for name, _ in named}
        missing, unexpected = sorted(names - set(replacements)), sorted(set(replacements) - names)
        if missing or unexpected:
            lines = [f"Error(s) in reparametrizing for {type(module).__name__}:"]
            if unexpected:
                lines.append("\tUnexpected key(s): " + ", ".join(f"'{k}'" for k in unexpected) + ".")
            if missing:
                lines.append("\tMissing key(s): " + ", ".join(f"'{k}'" for k in missing) + ".")
            raise RuntimeError("\n".join(lines))
    if tie_weights:
        names_of = {}  # id(tensor) -> every name it has in the module
        for name, tensor in named:
            names_of.setdefault(id(tensor), []).append(name)
        for name, tensor in named:
            if name in replacements:
                for tied in names_of[id(tensor)]:
                    replacements.setdefault(tied, replacements[name])

    saved = []  # (registry or None, owner, attribute, old value) to put back
    try:
        for name, value in replacements.items():
            owner, attribute = _owner(module, name)
            registry = next((r for r in (owner._parameters, owner._buffers) if attribute in r), None)
            if registry is not None:
                saved.append((registry, owner, attribute, registry[attribute]))
                registry[attribute] = value  # straight into the registry: a plain tensor may stand in for a Parameter
            else:
                saved.append((None, owner, attribute, owner.__dict__.get(attribute, _MISSING)))
                object.__setattr__(owner, attribute, value)
        args = args if isinstance(args, tuple) else (() if args is None else (args,))
        return module(*args, **(kwargs or {}))
    finally:
        for registry, owner, attribute, old in reversed(saved):
            if registry is not None:
                registry[attribute] = old
            elif old is _MISSING:
                del owner.__dict__[attribute]
            else:
                object.__setattr__(owner, attribute, old)


_MISSING = object()
