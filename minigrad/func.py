"""`mg.func`: function transforms, as the two of `torch.func` that programs use most.

- `grad(f)` is the function that returns the gradient of f, a scalar function, with
  respect to its argument(s): `grad(f)(x) = df/dx`. It composes: `grad(grad(f))(x)` is the
  second derivative.
- `functional_call(module, params, args)` calls a module with some of its parameters and
  buffers replaced by the given tensors, for that call only: the model as a function of
  its weights (meta-learning, per-example gradients, ensembles).
- `vmap(f)` maps f over a batch dim of its inputs: `vmap(f)(xs)[i] = f(xs[i])`. With the
  other two it gives per-example gradients:
  `vmap(grad(loss_of_params), in_dims=(None, 0, 0))(params, inputs, targets)`.

minigrad computes them with its ordinary autograd and a loop: `grad` calls
`autograd.grad` with `create_graph=True`, `functional_call` swaps the tensors into the
module and back, and `vmap` calls f once per batch element and stacks the results (torch
runs f once on batched tensors: faster, and it refuses what a loop allows, such as
`.item()` inside f). torch's other transforms (jacrev, jvp over dual numbers) are not here.
"""

import collections.abc

from minigrad import random as _random
from minigrad.autograd import grad_mode
from minigrad.autograd.engine import grad as _autograd_grad
from minigrad.creation import zeros_like
from minigrad.ops.shape import stack
from minigrad.tensor import Tensor

__all__ = ["functional_call", "grad", "grad_and_value", "vmap"]


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
            nests = {}  # argument number -> (its tensors, made ready to differentiate; rebuild)
            for n in numbers:
                leaves, rebuild = _flatten(args[n])  # a tensor, or a tuple/list/dict of them
                if not leaves or not all(isinstance(x, Tensor) for x in leaves):
                    raise RuntimeError(
                        f"grad_and_value(f)(*args): argument {n} must be a Tensor (or a nest of "
                        "them)"
                    )
                # in the caller's graph if it is differentiated itself (grad of grad), else new
                # leaves
                leaves = [
                    x.view_as(x) if x.requires_grad else x.detach().requires_grad_() for x in leaves
                ]
                nests[n] = leaves, rebuild
                args[n] = rebuild(leaves)
            output = func(*args, **kwargs)
            aux = None
            if has_aux:
                if not (isinstance(output, tuple) and len(output) == 2):
                    raise RuntimeError(
                        "grad_and_value(f)(*args): output of function f should be a tuple: "
                        "(output, aux) if has_aux is True"
                    )
                output, aux = output
            if not isinstance(output, Tensor):
                raise RuntimeError(
                    "grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got "
                    f"{type(output)}"
                )
            if output.ndim != 0:
                raise RuntimeError(
                    "grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got "
                    f"tensor with {output.ndim} dims. Maybe you wanted to use the vjp or jacrev "
                    "APIs instead?"
                )
            inputs = [x for n in numbers for x in nests[n][0]]
            # an outer transform differentiates
            keep_graph = any(x.grad_fn is not None for x in inputs)
            if output.requires_grad:
                grads = _autograd_grad(output, inputs, create_graph=keep_graph, allow_unused=True)
            else:
                grads = (None,) * len(inputs)
            grads = [zeros_like(x) if g is None else g for g, x in zip(grads, inputs)]
        if not keep_graph:
            output = output.detach()
        per_argument, start = [], 0
        for n in numbers:  # the gradients in the shape of each argument
            leaves, rebuild = nests[n]
            per_argument.append(rebuild(grads[start : start + len(leaves)]))
            start += len(leaves)
        result = tuple(per_argument) if isinstance(argnums, tuple) else per_argument[0]
        return (result, (output, aux)) if has_aux else (result, output)

    return wrapper


def grad(func, argnums=0, has_aux=False):
    """The function x -> d func(x) / dx, for a `func` returning a scalar tensor.

    `argnums` picks the argument(s) to differentiate (an int, or a tuple: then a tuple of
    gradients); an argument may be a tensor or a tuple, list or dict of them (a model's
    parameters), and its gradient has the same structure; with `has_aux=True`, func returns
    (scalar, aux) and the new function (gradient, aux). Applied to an argument that requires grad
    (inside another `grad`, or a tensor of your graph), the gradient stays in the graph, so
    grad(grad(f)) works."""
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


def functional_call(
    module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True, strict=False
):
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
                "Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but "
                f"got {type(d)}"
            )
        repeated = seen & set(d)
        if repeated:
            raise ValueError(
                f"{sorted(repeated)} appeared in multiple dictionaries; behavior of functional "
                "call is ambiguous"
            )
        seen |= set(d)
        replacements.update(d)

    named = list(module.named_parameters(remove_duplicate=False)) + list(
        module.named_buffers(remove_duplicate=False)
    )
    if strict:
        names = {name for name, _ in named}
        missing, unexpected = sorted(names - set(replacements)), sorted(set(replacements) - names)
        if missing or unexpected:
            lines = [f"Error(s) in reparametrizing for {type(module).__name__}:"]
            if unexpected:
                lines.append(
                    "\tUnexpected key(s): " + ", ".join(f"'{k}'" for k in unexpected) + "."
                )
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
            registry = next(
                (r for r in (owner._parameters, owner._buffers) if attribute in r), None
            )
            if registry is not None:
                saved.append((registry, owner, attribute, registry[attribute]))
                # straight into the registry: a plain tensor may stand in for a Parameter
                registry[attribute] = value
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


# ---- mapping over a batch dim ------------------------------------------------------------------
def _flatten(tree):
    """(leaves, rebuild) of a nest of tuples, lists and dicts: rebuild(new leaves) makes the
    same nest around them."""
    if isinstance(tree, (tuple, list)):
        parts = [_flatten(item) for item in tree]
        counts = [len(leaves) for leaves, _ in parts]

        def rebuild(leaves):
            items, start = [], 0
            for (_, build), count in zip(parts, counts):
                items.append(build(leaves[start : start + count]))
                start += count
            return type(tree)(items)

        return [leaf for leaves, _ in parts for leaf in leaves], rebuild
    if isinstance(tree, dict):
        keys = list(tree)
        leaves, build = _flatten([tree[k] for k in keys])
        return leaves, lambda new: dict(zip(keys, build(new)))
    return [tree], lambda new: new[0]


def _broadcast_dims(dims, tree, name, describe):
    """One dim (or None) per leaf of `tree`: an int or None applies to every leaf under it,
    a tuple/list/dict must follow the tree's own structure."""
    if dims is None or isinstance(dims, int) and not isinstance(dims, bool):
        return [dims] * len(_flatten(tree)[0])
    if (
        isinstance(dims, (tuple, list))
        and isinstance(tree, (tuple, list))
        and len(dims) == len(tree)
    ):
        return [
            d for sub, item in zip(dims, tree) for d in _broadcast_dims(sub, item, name, describe)
        ]
    if isinstance(dims, dict) and isinstance(tree, dict) and set(dims) == set(tree):
        return [d for key in tree for d in _broadcast_dims(dims[key], tree[key], name, describe)]
    if isinstance(dims, (tuple, list, dict)):
        raise ValueError(f"{describe}: {name} is not compatible with the structure of `inputs`.")
    raise ValueError(
        f"{describe}: expected `{name}` to be int or a (potentially nested) tuple matching the "
        f"structure of inputs, got: {type(dims)}."
    )


def _select(x, dim, index):
    """x with `dim` fixed at `index` (a view, differentiable)."""
    return x[(slice(None),) * dim + (index,)]


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """The function that maps `func` over a dim of its inputs: for a batch of size B,
    `vmap(func)(*args)` calls `func` on each slice `args[..., b, ...]` (the dim `in_dims`
    says, per argument: an int, None for an argument given whole to every call, or a
    nested tuple) and stacks the results along `out_dims`.

    `randomness` says what random ops in func do, as torch's: "error" (the default) raises
    if func draws from the global generator, "different" lets each call draw its own,
    "same" gives every call the same draws. `chunk_size` is accepted; every element is
    computed on its own here anyway."""
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(
            "Only allowed values for randomness are 'error', 'different', or 'same'. Got "
            f"{randomness}"
        )
    name = getattr(func, "__name__", repr(func))

    def wrapper(*args, **kwargs):
        describe = f"vmap({name}, in_dims={in_dims}, ...)(<inputs>)"
        if not isinstance(in_dims, (int, tuple, list, dict)) or isinstance(in_dims, bool):
            raise ValueError(
                f"{describe}: expected `in_dims` to be int or a (potentially nested) tuple "
                f"matching the structure of inputs, got: {type(in_dims)}."
            )
        leaves, rebuild = _flatten(list(args))
        dims = _broadcast_dims(in_dims, list(args), "in_dims", describe)
        sizes = []
        for leaf, dim in zip(leaves, dims):
            if dim is None:
                continue
            if not isinstance(leaf, Tensor):
                raise ValueError(
                    f"{describe}: Got in_dim={dim} for an input but the input is of type "
                    f"{type(leaf)}. We cannot "
                    "vmap over non-Tensor arguments, please use None as the respective in_dim"
                )
            if not -leaf.ndim <= dim < leaf.ndim:
                raise ValueError(
                    f"{describe}: Got in_dim={dim} for some input, but that input is a Tensor of "
                    f"dimensionality {leaf.ndim} so expected in_dim to satisfy -{leaf.ndim} <= "
                    f"in_dim < {leaf.ndim}."
                )
            sizes.append(leaf.shape[dim % leaf.ndim])
        if not sizes:
            raise ValueError(
                f"{describe}: at least one input must be mapped over (every in_dim is None)"
            )
        if len(set(sizes)) != 1:
            raise ValueError(
                "vmap: Expected all tensors to have the same size in the mapped dimension, got "
                f"sizes {sizes} for "
                "the mapped dimension"
            )
        generator = _random._current()
        start = generator.get_state()
        results = []
        for b in range(sizes[0]):
            if randomness == "same":
                generator.set_state(start)  # every element draws what the first draws
            before = generator.get_state() if randomness == "error" else None
            sliced = [
                leaf if dim is None else _select(leaf, dim % leaf.ndim, b)
                for leaf, dim in zip(leaves, dims)
            ]
            output = func(*rebuild(sliced), **kwargs)
            if before is not None and not _random_state_equal(before, generator.get_state()):
                raise RuntimeError(
                    "vmap: called random operation while in randomness error mode. Please either "
                    "use the 'same' or 'different' randomness flags on vmap or perform the "
                    "randomness operation out of vmap"
                )
            results.append(output)
        return _stack_outputs(results, out_dims, name)

    return wrapper


def _random_state_equal(a, b):
    return bool((a.array == b.array).all())


def _stack_outputs(results, out_dims, name):
    leaves_per_call = []
    for output in results:
        leaves, rebuild = _flatten(output)
        for leaf in leaves:
            if not isinstance(leaf, Tensor):
                raise ValueError(
                    f"vmap({name}, ...): `{name}` must only return Tensors, got type {type(leaf)}. "
                    "Did you mean to set out_dims= to None for output?"
                )
        leaves_per_call.append(leaves)
    dims = _broadcast_dims(out_dims, results[0], "out_dims", f"vmap({name}, ...)")
    stacked = []
    for i, dim in enumerate(dims):
        column = [leaves[i] for leaves in leaves_per_call]
        if dim is None:
            if any(not bool((c.array == column[0].array).all()) for c in column[1:]):
                raise ValueError(
                    f"vmap({name}, ...): `{name}` can not return a BatchedTensor when out_dim is "
                    "None"
                )
            stacked.append(column[0])
        else:
            stacked.append(stack(column, dim))
    return rebuild(stacked)
