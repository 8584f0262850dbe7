"""A whole Module as data: what `mg.save(model, path)` writes and `mg.load` builds again.

`torch.save(model)` pickles the model, and unpickling runs whatever the file says. A
minigrad file describes the model instead, one record per module, in JSON:

    {"type": "module", "id": 0, "class": "minigrad.nn.linear.Linear",
     "args": [NODE, ...], "kwargs": {"in_features": NODE, ...},   the constructor's arguments
     "training": true,
     "parameters": {"weight": NODE, "bias": NODE},                 the tensors, as arrays
     "buffers": {"running_mean": NODE, ...}, "non_persistent_buffers": ["..."],
     "modules": {"0": RECORD, ...},                                 children, each a record
     "extra_state": NODE}                                           (if the class has one)

The arguments are those `get_config` reports (recorded when the module was built), kept
as they were: a tuple stays a tuple, a dtype a dtype, and a module passed to a
constructor (`TransformerEncoder(layer, 6)`, `Sequential(Linear(...), ...)`) is a record
of its own. A module met a second time (a shared block) is `{"type": "module_ref",
"id": n}`, so it is shared again after loading.

Loading a record: find the class (only minigrad's own or allow-listed, see
`minigrad.allowlist`), call it with the recorded arguments, then make it what was saved:
its parameters and buffers become the file's tensors (so dtype, requires_grad and tied
weights are as saved), its children the recorded ones, its training flag the saved one.
A child the constructor built is kept when it matches its record (same class, same
arguments), so whatever the parent's constructor set on it stays; a child that differs
(`model.fc = nn.Linear(512, 10)` after construction) is built from its record.

What a record does not hold, and a pickle would: attributes set after construction that
are not parameters, buffers or submodules (use get_extra_state for those), and hooks.
Building the modules draws random numbers (their initialisation), so the global random
stream is put back afterwards: loading a model leaves it where it was, as torch.load does.
"""

import inspect
import pickle  # only for its exception type, which torch.save raises for a lambda
import sys
from collections import OrderedDict

import numpy as np

from minigrad import devices as _devices
from minigrad import random as _random
from minigrad.nn.module import Module
from minigrad.nn.parameter import Parameter
from minigrad.tensor import Tensor


# ---- save -----------------------------------------------------------------------------------
def encode_module(module, encode, module_ids, where):
    """The record of `module`. `encode(value, where)` encodes an argument or a tensor;
    `module_ids` maps id(module) -> (record id, module) for the modules recorded so far
    (holding the module keeps its id from being reused by another)."""
    if id(module) in module_ids:
        return {"type": "module_ref", "id": module_ids[id(module)][0]}
    record_id = len(module_ids)
    module_ids[id(module)] = (record_id, module)
    cls = type(module)
    args, kwargs = constructor_call(module, where)
    name = cls.__qualname__
    node = {
        "type": "module",
        "id": record_id,
        "class": import_path(cls, where),
        "args": [
            encode(value, f"{where} (argument {i} of {name})") for i, value in enumerate(args)
        ],
        "kwargs": {
            key: encode(value, f"{where} (argument '{key}' of {name})")
            for key, value in kwargs.items()
        },
        "training": bool(module.training),
        "parameters": {key: encode(p, f"{where}.{key}") for key, p in module._parameters.items()},
        "buffers": {key: encode(b, f"{where}.{key}") for key, b in module._buffers.items()},
        "non_persistent_buffers": sorted(module._non_persistent_buffers & set(module._buffers)),
        "modules": {
            key: {"type": "none"}
            if child is None
            else encode_module(child, encode, module_ids, f"{where}.{key}")
            for key, child in module._modules.items()
        },
    }
    if module._has_extra_state():
        node["extra_state"] = encode(
            module.get_extra_state(), f"{where} (get_extra_state of {name})"
        )
    return node


def import_path(obj, where):
    """The path a class or function is found by when loading, "module.QualName". One that
    no path finds (a lambda, one defined inside a function) raises pickle.PicklingError,
    as torch.save does for it."""
    module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    found = (
        sys.modules.get(module) if isinstance(module, str) and isinstance(qualname, str) else None
    )
    for part in qualname.split(".") if found is not None else []:
        found = getattr(found, part, None)
    if found is not obj:
        what = (
            "a lambda"
            if str(qualname).endswith("<lambda>")
            else "it is not defined at the top level of a module, so it"
        )
        raise pickle.PicklingError(
            f"save: cannot save {obj!r} at {where}: a file names classes and functions by their "
            f"import path, and {what} has none; define it at the top level of a module (and allow "
            "it when loading, with mg.serialization.add_safe_globals)"
        )
    return f"{module}.{qualname}"


def constructor_call(module, where):
    """(args, kwargs) such that `type(module)(*args, **kwargs)` builds it again, from
    the arguments its constructor recorded (`Module._constructor_arguments`)."""
    cls = type(module)
    if cls.__init__ is Module.__init__:  # no constructor of its own: nothing to record
        return [], {}
    if module._recorded_arguments() is None:  # made without its constructor, or its class changed
        raise TypeError(
            f"save: cannot save the {cls.__qualname__} at {where}: its constructor arguments were "
            "not recorded"
        )
    arguments = module._constructor_arguments()
    parameters = list(inspect.signature(cls.__init__).parameters.values())[1:]  # without self
    # arguments before a *args must be passed by position
    by_position = any(p.kind is p.VAR_POSITIONAL and arguments.get(p.name) for p in parameters)
    args, kwargs = [], {}
    for p in parameters:
        if p.name not in arguments:
            continue
        value = arguments.pop(p.name)
        if p.kind is p.VAR_POSITIONAL:
            args.extend(value)
        elif p.kind is p.VAR_KEYWORD:
            kwargs.update(value)
        elif p.kind is p.POSITIONAL_ONLY or (by_position and p.kind is p.POSITIONAL_OR_KEYWORD):
            args.append(value)
        else:
            kwargs[p.name] = value
    kwargs.update(arguments)  # anything else a subclass's _constructor_arguments added
    return args, kwargs


# ---- load -----------------------------------------------------------------------------------
class Invalid(Exception):
    """A record that is not what encode_module writes."""


class Builder:
    """Builds modules from records. `decode(node, where)` decodes an argument or a
    tensor; `classes` maps each class path in the file to the class, already checked
    against the allow-list."""

    def __init__(self, decode, classes):
        self.decode, self.classes = decode, classes
        self.modules = {}  # record id -> the module built from it
        # (id(array), type, requires_grad) -> the parameter or buffer made from it
        self.tensors = {}

    def module(self, node, where, existing=None):
        """The module a record (or a module_ref) describes; `existing` is a child the
        parent's constructor made in its place, used if it matches the record."""
        if node.get("type") == "module_ref":
            if isinstance(node.get("id"), bool) or self.modules.get(node.get("id")) is None:
                raise Invalid(
                    f"the module at {where} refers to a module record {node.get('id')!r} the file "
                    "has not defined"
                )
            return self.modules[node["id"]]
        record_id = node.get("id")
        if (
            not isinstance(record_id, int)
            or isinstance(record_id, bool)
            or record_id in self.modules
        ):
            raise Invalid(
                f"the module at {where} has the record id {record_id!r}, which is not a new one"
            )
        self.modules[record_id] = None  # taken; the module is filled in once it is built
        cls = self.classes.get(node.get("class")) if isinstance(node.get("class"), str) else None
        if not (isinstance(cls, type) and issubclass(cls, Module)):
            raise Invalid(
                f"the module at {where} has the class {node.get('class')}, which is not an "
                "nn.Module"
            )
        args, kwargs = self._arguments(node, where)
        if existing is not None and _same(existing, (cls, args, kwargs)):
            module = existing
        else:
            try:
                module = cls(*args, **kwargs)
            except Exception as err:  # the file's arguments are the file's problem
                raise Invalid(
                    f"{node['class']}(...) at {where} failed with the file's arguments: "
                    f"{type(err).__name__}: {err}"
                ) from None
        self.modules[record_id] = module
        self._restore(module, node, where)
        return module

    def _arguments(self, node, where):
        args, kwargs = node.get("args"), node.get("kwargs")
        if not isinstance(args, list) or not isinstance(kwargs, dict):
            raise Invalid(f"the module at {where} has no list of args and dict of kwargs")
        name = node["class"].rpartition(".")[2]
        args = [
            self.decode(value, f"{where} (argument {i} of {name})") for i, value in enumerate(args)
        ]
        kwargs = {
            key: self.decode(value, f"{where} (argument '{key}' of {name})")
            for key, value in kwargs.items()
        }
        return args, kwargs

    def _restore(self, module, node, where):
        """Make a freshly built module what the record saved."""
        parameters = self._tensors(node, "parameters", Parameter, where)
        buffers = self._tensors(node, "buffers", Tensor, where)
        children = _named(node, "modules", where)
        non_persistent = node.get("non_persistent_buffers")
        if not isinstance(non_persistent, list) or not set(non_persistent) <= set(buffers):
            raise Invalid(
                f"the module at {where} lists non-persistent buffers {non_persistent!r} it does "
                "not have"
            )
        if not isinstance(node.get("training"), bool):
            raise Invalid(f"the module at {where} has training={node.get('training')!r}")
        modules = OrderedDict()
        for key, child in children.items():
            if child.get("type") == "none":
                modules[key] = None
            else:
                modules[key] = self.module(
                    child, f"{where}.{key}", existing=module._modules.get(key)
                )
        names = [*parameters, *buffers, *modules]
        if len(set(names)) != len(names):
            raise Invalid(f"the module at {where} uses a name twice among {names}")
        for key in names:  # a plain attribute of the same name would hide the registered one
            module.__dict__.pop(key, None)
        for registry, items in (
            ("_parameters", parameters),
            ("_buffers", buffers),
            ("_modules", modules),
        ):
            getattr(module, registry).clear()
            getattr(module, registry).update(items)
        object.__setattr__(module, "_non_persistent_buffers", set(non_persistent))
        object.__setattr__(module, "training", node["training"])
        if "extra_state" in node:
            module.set_extra_state(self.decode(node["extra_state"], f"{where} (extra state)"))

    def _tensors(self, node, registry, kind, where):
        """The parameters or buffers of a record, by name. A tensor whose array was met
        before (a tied weight) is that same tensor again."""
        tensors = OrderedDict()
        for key, value_node in _named(node, registry, where).items():
            value = self.decode(value_node, f"{where}.{key}")
            if value is not None:
                if not isinstance(value, kind):
                    raise Invalid(
                        f"the {registry[:-1]} {where}.{key} is a {type(value).__name__}, not a "
                        f"{kind.__name__}"
                    )
                value = self.tensors.setdefault(
                    (id(value.array), type(value), value.requires_grad), value
                )
            tensors[key] = value
        return tensors


def _named(node, field, where):
    """A record's {name: node} field, its names checked as Module checks them."""
    items = node.get(field)
    if not isinstance(items, dict) or not all(isinstance(v, dict) for v in items.values()):
        raise Invalid(f"the module at {where} has no {field} object")
    for key in items:
        if not key or "." in key:
            raise Invalid(f"the module at {where} has a {field[:-1]} named {key!r}")
    return items


def named_globals(structure):
    """{path: "class" or "class or function"} for every class a module record names and
    every global node's path, in the order the file names them: what must be allowed
    before anything is built."""
    paths, stack = {}, [structure]
    while stack:  # a loop, not recursion: the structure may be nested deeply
        node = stack.pop()
        if isinstance(node, dict):
            if node.get("type") == "module" and isinstance(node.get("class"), str):
                paths.setdefault(node["class"], "class")
            elif node.get("type") == "global" and isinstance(node.get("path"), str):
                paths.setdefault(node["path"], "class or function")
            stack.extend(reversed(node.values()))
        elif isinstance(node, list):
            stack.extend(reversed(node))
    return paths


class random_stream_kept:
    """Put the global random stream back as it was: building modules initialises them."""

    def __enter__(self):
        self.generator = _random._current()
        self.state = self.generator.get_state()

    def __exit__(self, *exc):
        self.generator.set_state(self.state)
        return False


# ---- comparing a child the constructor made with its record ----------------------------------
def _call(module):
    """(class, args, kwargs) that build `module`, or None if its arguments were not recorded."""
    try:
        return (type(module), *constructor_call(module, ""))
    except TypeError:
        return None


def _same(a, b):
    """Would these two constructor arguments build the same module? A module is compared
    by its call, (class, args, kwargs), which is also how a record's call is passed in."""
    if isinstance(a, Module) or isinstance(b, Module):
        a, b = (_call(x) if isinstance(x, Module) else x for x in (a, b))
        if a is None or b is None:
            return False
    if _is_dtype(a) or _is_dtype(b):
        return _is_dtype(a) and _is_dtype(b) and np.dtype(a) == np.dtype(b)
    if isinstance(a, type) or isinstance(b, type):
        return a is b
    if isinstance(a, (Tensor, np.ndarray)) or isinstance(b, (Tensor, np.ndarray)):
        a, b = (x.array if isinstance(x, Tensor) else x for x in (a, b))
        return (
            type(a) is type(b)
            and a.dtype == b.dtype
            and a.shape == b.shape
            and np.array_equal(a, b)
        )
    if _devices._is_device(a) or _devices._is_device(b):
        return str(a) == str(b)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:  # an argument whose == does not give a truth value: build afresh
        return False


def _is_dtype(x):
    return isinstance(x, np.dtype) or (isinstance(x, type) and issubclass(x, np.generic))
