"""Module: the base class of every layer and model.

A Module is a container with three registries filled by plain attribute assignment:

- `_parameters`: Parameters (`self.weight = Parameter(...)`), the learnable state;
- `_buffers`: tensors that are state but not learned (BatchNorm's running mean),
  registered with `register_buffer`; persistent ones are saved in the state dict;
- `_modules`: child Modules (`self.fc = Linear(...)`), which makes models trees.

Everything else — `parameters()`, `state_dict()`, `train()`, `zero_grad()`, `to()`,
the nested `repr` — is a walk over that tree. Names follow PyTorch exactly
("features.0.weight"), so a PyTorch state dict (as NumPy arrays) loads into the same
minigrad model. Elsewhere: where the parameters live and in which dtype (`to`, `cuda`,
`float`: module_device.py), how `module(x)` runs the hooks (module_hooks.py, and
backward_hooks.py for the full backward hooks), and Keras's spellings (keras.py).
"""

import inspect
import warnings
from collections import OrderedDict, namedtuple
from collections.abc import Iterator

import numpy as np

from minigrad.array_module import on_device, to_device, to_host
from minigrad.autograd import engine
from minigrad.autograd.grad_mode import no_grad
from minigrad.creation import from_numpy
from minigrad.nn.module_device import DeviceMethods, place_on_factory_device
from minigrad.nn.module_hooks import HOOK_REGISTRIES, add_hook, call_with_hooks
from minigrad.nn.parameter import Buffer, Parameter
from minigrad.tensor import Tensor

_READ_ONCE = "<an iterator, read once by the constructor>"
IncompatibleKeys = namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])
_EXTRA_STATE_KEY = "_extra_state"


class Module(DeviceMethods):
    """Base class for all layers and models: subclass it, create parameters and
    submodules in `__init__` (after `super().__init__()`), and define `forward`."""

    training: bool
    """True in training mode (the default), False after `eval()`; Dropout and BatchNorm read it."""
    _version = 1  # recorded in state_dict()._metadata; a layer whose format changes bumps it

    def __init__(self, *args, **kwargs):
        if args or kwargs:
            raise TypeError(
                f"{type(self).__name__}.__init__() got unexpected arguments {args} {kwargs}"
            )
        # object.__setattr__: our own __setattr__ needs these dicts to exist already
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_non_persistent_buffers", set())
        object.__setattr__(self, "_modules", OrderedDict())
        # hooks: handle id -> hook, in call order (torch's attribute names); the flags of
        # each forward hook live in the *_with_kwargs / *_always_called dicts by the same id
        for registry in HOOK_REGISTRIES:
            object.__setattr__(self, registry, OrderedDict())

    def __new__(cls, *args, **kwargs):
        """Note the constructor's arguments (`__new__` sees what `__init__` will), for
        `get_config` and `mg.save`: see `_constructor_arguments`."""
        module = super().__new__(cls)
        # an iterator (ModuleList(Block() for _ in range(n))) is read once, by __init__: keep
        # a placeholder, so that copying or pickling the module never meets a generator
        args = tuple([_READ_ONCE if isinstance(a, Iterator) else a for a in args])
        kwargs = {k: _READ_ONCE if isinstance(v, Iterator) else v for k, v in kwargs.items()}
        object.__setattr__(module, "_config", (cls, args, kwargs))
        return module

    # ---- forward ----------------------------------------------------------------------
    def forward(self, *args, **kwargs):
        """The computation of the module: define it in every subclass. Call the module (`model(x)`),
        not `forward`, so that the hooks run.
        """
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function'
        )

    def __call__(self, *args, **kwargs):
        """forward(*args, **kwargs), with the module's hooks around it if it has any
        (their order, PyTorch's: nn/module_hooks.py)."""
        hooked = self._forward_pre_hooks or self._forward_hooks
        if hooked or self._backward_hooks or self._backward_pre_hooks:
            return call_with_hooks(self, args, kwargs)
        return self.forward(*args, **kwargs)

    # ---- registration -------------------------------------------------------------------
    def __setattr__(self, name, value):
        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._remove_from(name, self.__dict__, self._buffers, self._modules)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{type(value).__name__}' as parameter '{name}' (a Parameter or "
                    "None is expected)"
                )
            params[name] = None
        # `self.name = nn.Buffer(t)` registers a buffer, as torch 2.x
        elif isinstance(value, Buffer):
            if params is None:
                raise AttributeError("cannot assign buffers before Module.__init__() call")
            self._remove_from(name, self.__dict__, self._parameters, self._modules)
            self.register_buffer(name, value.as_tensor(), persistent=value.persistent)
        elif isinstance(value, Module):
            if params is None:
                raise AttributeError("cannot assign a module before Module.__init__() call")
            self._remove_from(name, self.__dict__, self._parameters, self._buffers)
            place_on_factory_device(self, value)
            self._modules[name] = value
        elif params is not None and name in self._modules:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{type(value).__name__}' as child module '{name}' (a Module or "
                    "None)"
                )
            self._modules[name] = None
        elif params is not None and name in self._buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(
                    f"cannot assign '{type(value).__name__}' as buffer '{name}' (a Tensor or None)"
                )
            self._buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    @staticmethod
    def _remove_from(name, *dicts):
        for d in dicts:
            d.pop(name, None)

    def __getattr__(self, name):
        # only called when normal lookup fails: look in the registries
        d = self.__dict__
        for registry in ("_parameters", "_buffers", "_modules"):
            if registry in d and name in d[registry]:
                return d[registry][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        for registry in (self._parameters, self._buffers, self._modules):
            if name in registry:
                del registry[name]
                self._non_persistent_buffers.discard(name)
                return
        object.__delattr__(self, name)

    def _check_name(self, name, kind):
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string, got {type(name).__name__}")
        if name == "" or "." in name:
            raise KeyError(f'{kind} name can\'t be empty or contain ".", got "{name}"')
        if name in self.__dict__ and name not in self._parameters and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")

    def register_parameter(self, name, param):
        """Add a Parameter (or None, a declared-but-absent parameter such as a disabled bias)."""
        self._check_name(name, "parameter")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{type(param).__name__}' object to parameter '{name}' (a Parameter "
                "or None is expected; wrap a tensor with nn.Parameter)"
            )
        if param is not None:
            place_on_factory_device(self, param)
        self._parameters[name] = param

    def register_buffer(self, name, tensor, persistent=True):
        """Add non-learned state; persistent buffers are part of state_dict()."""
        self._check_name(name, "buffer")
        if name in self._parameters:
            raise KeyError(f"attribute '{name}' already exists as a parameter")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{type(tensor).__name__}' object to buffer '{name}' (a Tensor or "
                "None)"
            )
        if tensor is not None:
            place_on_factory_device(self, tensor)
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers.discard(name)
        else:
            self._non_persistent_buffers.add(name)

    def add_module(self, name, module):
        """Add a child module under `name` (same as assigning `self.name = module`)."""
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        self._check_name(name, "module")
        if module is not None:
            place_on_factory_device(self, module)
        self._modules[name] = module

    register_module = add_module
    """An alias of add_module (PyTorch has both names)."""

    # ---- walking the tree ---------------------------------------------------------------
    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """(name, module) for this module and every descendant, depth first, parents first."""
        if memo is None:
            memo = set()
        if remove_duplicate:
            if id(self) in memo:
                return
            memo.add(id(self))
        yield prefix, self
        for name, child in self._modules.items():
            if child is None:
                continue
            yield from child.named_modules(
                memo, prefix + ("." if prefix else "") + name, remove_duplicate
            )

    def modules(self):
        """Every module in the tree, self first, each once (see named_modules)."""
        for _, m in self.named_modules():
            yield m

    def named_children(self):
        """(name, module) pairs of the direct submodules, each module once."""
        seen = set()
        for name, child in self._modules.items():
            if child is not None and id(child) not in seen:
                seen.add(id(child))
                yield name, child

    def children(self):
        """The direct submodules, each once."""
        for _, child in self.named_children():
            yield child

    def _named_members(self, registry, prefix, recurse, remove_duplicate=True):
        seen = set()
        modules = (
            self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
            if recurse
            else [(prefix, self)]
        )
        for module_prefix, module in modules:
            for name, value in getattr(module, registry).items():
                if value is None or (remove_duplicate and id(value) in seen):
                    continue
                seen.add(id(value))
                yield module_prefix + ("." if module_prefix else "") + name, value

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """(dotted name, Parameter) pairs; a parameter shared by two modules is yielded once."""
        yield from self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse=True):
        """Every Parameter of this module (and, with `recurse`, its submodules), each once; what an
        optimizer takes.
        """
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        """(dotted name, buffer) pairs, e.g. ('bn.running_mean', tensor), each buffer once."""
        yield from self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        """Every buffer (a tensor of state that is not a parameter, e.g. BatchNorm's running mean),
        each once.
        """
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def get_submodule(self, target):
        """The module at dotted path `target` ('' is self)."""
        module = self
        if target == "":
            return module
        for i, part in enumerate(target.split(".")):
            child = module._modules.get(part)
            if not isinstance(child, Module):
                where = ".".join(target.split(".")[:i]) or type(self).__name__
                raise AttributeError(
                    f"get_submodule: {where} has no submodule '{part}' (path '{target}')"
                )
            module = child
        return module

    def set_submodule(self, target, module, strict=False):
        """Put `module` at dotted path `target`, replacing what is there. The parent
        ('a.b' of 'a.b.c') must exist; with strict=True the last name must exist too
        (replace only, never add)."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        parent_path, _, name = target.rpartition(".")
        parent = self.get_submodule(parent_path)
        exists = hasattr(parent, name)
        if strict and not exists:
            raise AttributeError(f"{parent._get_name()} has no attribute `{name}`")
        if exists and not isinstance(getattr(parent, name), Module):
            raise AttributeError(f"`{name}` is not an nn.Module")
        setattr(parent, name, module)

    def _get_member(self, target, registry, kind):
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        members = getattr(module, registry)
        if name not in members or members[name] is None:
            raise AttributeError(
                f"get_{kind}: '{module_path or type(self).__name__}' has no {kind} '{name}'"
            )
        return members[name]

    def get_parameter(self, target):
        """The parameter at dotted path `target` ('layer.0.weight'); raises AttributeError naming
        the path.
        """
        return self._get_member(target, "_parameters", "parameter")

    def get_buffer(self, target):
        """The buffer at dotted path `target` ('bn.running_mean'); raises AttributeError naming the
        path.
        """
        return self._get_member(target, "_buffers", "buffer")

    def apply(self, fn):
        """Call fn(m) on every submodule (children first) and then on self; returns self."""
        for child in self.children():
            child.apply(fn)
        fn(self)
        return self

    # ---- modes and housekeeping ----------------------------------------------------------
    def train(self, mode=True):
        """Set training mode (Dropout drops, BatchNorm uses batch statistics) recursively."""
        if not isinstance(mode, bool):
            raise ValueError(f"train: mode is expected to be a bool, got {mode!r}")
        self.training = mode
        for child in self.children():
            child.train(mode)
        return self

    def eval(self):
        """Evaluation mode: `train(False)` (Dropout is the identity, BatchNorm uses its running
        stats). Returns self.
        """
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        """Set `requires_grad` of every parameter (False freezes the module); returns self."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Reset every parameter's .grad: to None (the default), or to zeros in place."""
        engine.zero_grad(self.parameters(), set_to_none)

    def backward(self, loss, gradient=None, retain_graph=None, create_graph=False):
        """`model.backward(loss)`: run `loss.backward(...)`, filling this model's parameters'
        `.grad` (the spelling of frameworks that put the backward call on the model, such
        as DeepSpeed's engine; plain PyTorch code calls `loss.backward()`)."""
        if not isinstance(loss, Tensor):
            raise TypeError(
                f"{type(self).__name__}.backward: expected the loss as a Tensor, got "
                f"{type(loss).__name__}"
            )
        loss.backward(gradient=gradient, retain_graph=retain_graph, create_graph=create_graph)

    # ---- state dict -----------------------------------------------------------------------
    def get_extra_state(self):
        """Override (with set_extra_state) to save extra, non-tensor state in state_dict."""
        raise RuntimeError("get_extra_state: this module does not define extra state")

    def set_extra_state(self, state):
        """Restore what get_extra_state returned (load_state_dict calls it); override both
        together."""
        raise RuntimeError("set_extra_state: this module does not define extra state")

    def _has_extra_state(self):
        return type(self).get_extra_state is not Module.get_extra_state

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        """Put this module's own entries (not its children's) into `destination`: its
        parameters, persistent buffers and extra state. A layer with a special format
        overrides this (and `_load_from_state_dict`), as in PyTorch."""
        for name, p in self._parameters.items():
            if p is not None:
                destination[prefix + name] = p if keep_vars else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers:
                destination[prefix + name] = b if keep_vars else b.detach()
        if self._has_extra_state():
            destination[prefix + _EXTRA_STATE_KEY] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """Ordered {dotted name: tensor} of parameters and persistent buffers (detached
        unless keep_vars), plus `_extra_state` entries where a module defines them.

        Each module runs its state-dict pre-hooks, saves its own entries, recurses into
        its children and runs its post-hooks. The returned dict carries `_metadata`
        ({module prefix: {"version": ...}}), as PyTorch's does. Positional
        (destination, prefix, keep_vars) still work, with PyTorch's FutureWarning.
        """
        if args:
            warnings.warn(
                "Positional args are being deprecated, use kwargs instead "
                "(state_dict(destination=..., prefix=..., keep_vars=...))",
                FutureWarning,
                stacklevel=2,
            )
            destination = args[0] if destination is None else destination
            prefix = args[1] if len(args) > 1 and prefix == "" else prefix
            keep_vars = args[2] if len(args) > 2 and keep_vars is False else keep_vars
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = {"version": self._version}
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in list(self._state_dict_pre_hooks.values()):
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, child in self._modules.items():
            if child is not None:
                child.state_dict(
                    destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars
                )
        for hook in list(self._state_dict_hooks.values()):
            if hook(self, destination, prefix, local_metadata) is not None:
                raise RuntimeError(
                    "state_dict post-hook must return None (change the state_dict in place)"
                )
        return destination

    def _load_from_state_dict(
        self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
    ):
        """Load this module's own entries (not its children's) from `state_dict`, after
        running its load-state-dict pre-hooks (which may edit `state_dict`, a copy).
        Missing and unexpected keys and errors are appended to the three lists."""
        for hook in list(self._load_state_dict_pre_hooks.values()):
            hook(
                self,
                state_dict,
                prefix,
                local_metadata,
                strict,
                missing_keys,
                unexpected_keys,
                error_msgs,
            )
        local = {name: (p, "_parameters") for name, p in self._parameters.items() if p is not None}
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers:
                local[name] = (b, "_buffers")
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, (target, registry) in local.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            value = state_dict[key]
            array = value.array if isinstance(value, Tensor) else value
            array = array if on_device(array) else np.asarray(array)
            if array.dtype.hasobject:
                error_msgs.append(
                    f'While copying the parameter named "{key}", expected a Tensor or NumPy array '
                    "from the "
                    f"checkpoint but received {type(value)}"
                )
                continue
            if array.shape != target.shape:
                error_msgs.append(
                    f"size mismatch for {key}: copying a param with shape {array.shape} from "
                    f"checkpoint, the shape in current model is {target.shape}."
                )
                continue
            with no_grad():
                if assign:
                    new = array.astype(target.dtype, copy=True)
                    if registry == "_parameters":
                        self._parameters[name] = Parameter(new, requires_grad=target.requires_grad)
                    else:
                        self._buffers[name] = from_numpy(new)
                # the values go where the parameter lives (torch's param.copy_ across devices)
                else:
                    target.array[...] = (
                        to_device(array) if on_device(target.array) else to_host(array)
                    )
                    target._version_counter().value += 1
        extra_key = prefix + _EXTRA_STATE_KEY
        if type(self).set_extra_state is not Module.set_extra_state:
            if extra_key in state_dict:
                self.set_extra_state(state_dict[extra_key])
            elif strict:
                missing_keys.append(extra_key)
        elif strict and extra_key in state_dict:
            unexpected_keys.append(extra_key)
        if strict:
            for key in state_dict:
                if not key.startswith(prefix) or key == extra_key:
                    continue
                head, dot, _ = key[len(prefix) :].partition(".")
                if (dot and head not in self._modules) or (not dot and head not in local):
                    unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copy values from `state_dict` (minigrad Tensors or NumPy arrays) into this
        module's parameters and buffers; returns (missing_keys, unexpected_keys).

        strict=True raises with both lists if either is non-empty; a shape mismatch
        always raises, naming the key and both shapes. assign=True replaces the tensors
        instead of copying into them.

        As in PyTorch, each module loads its own entries (`_load_from_state_dict`, which
        runs its load-state-dict pre-hooks first) and then its children's; after a
        module and its children are done, its post-hooks see (and may edit) the
        missing and unexpected keys before strict decides whether to raise.
        """
        if not hasattr(state_dict, "keys"):
            raise TypeError(
                f"load_state_dict: expected a dict-like state_dict, got {type(state_dict).__name__}"
            )
        missing, unexpected, errors = [], [], []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)  # a copy: pre-hooks may rename or drop keys
        if metadata is not None:
            state_dict._metadata = metadata

        def load(module, local_state_dict, prefix=""):
            local_metadata = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
            if assign:
                local_metadata["assign_to_params_buffers"] = True
            # strict=True here, always: the lists are filled either way and returned
            module._load_from_state_dict(
                local_state_dict, prefix, local_metadata, True, missing, unexpected, errors
            )
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    child_state_dict = {
                        k: v for k, v in local_state_dict.items() if k.startswith(child_prefix)
                    }
                    load(child, child_state_dict, child_prefix)
            incompatible = IncompatibleKeys(missing, unexpected)
            for hook in list(module._load_state_dict_post_hooks.values()):
                if hook(module, incompatible) is not None:
                    raise RuntimeError(
                        "load_state_dict post-hooks must return None; edit "
                        "incompatible_keys.missing_keys / .unexpected_keys in place instead"
                    )

        load(self, state_dict)
        if strict:
            if unexpected:
                errors.insert(
                    0,
                    "Unexpected key(s) in state_dict: "
                    + ", ".join(f'"{k}"' for k in unexpected)
                    + ".",
                )
            if missing:
                errors.insert(
                    0, "Missing key(s) in state_dict: " + ", ".join(f'"{k}"' for k in missing) + "."
                )
        if errors:
            raise RuntimeError(
                f"Error(s) in loading state_dict for {type(self).__name__}:\n\t"
                + "\n\t".join(errors)
            )
        return IncompatibleKeys(missing, unexpected)

    # ---- hooks --------------------------------------------------------------------------
    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """hook(module, args) runs before forward and may return new args (a tuple, or
        a single value that becomes a 1-tuple). With with_kwargs=True it is
        hook(module, args, kwargs) and may return a new (args, kwargs) pair.
        prepend=True runs it before the hooks already registered."""
        flags = ("_forward_pre_hooks_with_kwargs",) if with_kwargs else ()
        return add_hook(self, "_forward_pre_hooks", hook, prepend, flags)

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        """hook(module, args, output) runs after forward and may return a new output;
        with with_kwargs=True it is hook(module, args, kwargs, output). always_call=True
        runs it even if forward (or an earlier hook) raised (output is then None, or
        what forward returned). prepend=True runs it before the hooks already registered."""
        flags = (("_forward_hooks_with_kwargs",) if with_kwargs else ()) + (
            ("_forward_hooks_always_called",) if always_call else ()
        )
        return add_hook(self, "_forward_hooks", hook, prepend, flags)

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """hook(module, grad_output) runs when the gradients with respect to the module's
        outputs have been computed, before they flow into the module. grad_output is a
        tuple (None for outputs that are not Tensors); the hook may return a new tuple
        of the same length to use instead (supported for modules with one output that
        requires grad)."""
        return add_hook(self, "_backward_pre_hooks", hook, prepend)

    def register_full_backward_hook(self, hook, prepend=False):
        """hook(module, grad_input, grad_output) runs when the gradients with respect to
        the module's tensor inputs are computed; it may return a new grad_input tuple
        (replacement is supported for modules with one input that requires grad)."""
        return add_hook(self, "_backward_hooks", hook, prepend)

    def register_state_dict_pre_hook(self, hook):
        """hook(module, prefix, keep_vars) runs before this module's entries are saved by
        state_dict() (also when a parent's state_dict reaches it)."""
        return add_hook(self, "_state_dict_pre_hooks", hook)

    def register_state_dict_post_hook(self, hook):
        """hook(module, state_dict, prefix, local_metadata) runs after this module and
        its children are saved; it may change `state_dict` in place (and must return None)."""
        return add_hook(self, "_state_dict_hooks", hook)

    def register_load_state_dict_pre_hook(self, hook):
        """hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs) runs before this module loads its entries; it may
        edit `state_dict` (a copy of the caller's), e.g. to rename old keys."""
        return add_hook(self, "_load_state_dict_pre_hooks", hook)

    def register_load_state_dict_post_hook(self, hook):
        """hook(module, incompatible_keys) runs after this module and its children are
        loaded; it may edit incompatible_keys.missing_keys / .unexpected_keys in place
        (clearing them keeps strict loading from raising) and must return None."""
        return add_hook(self, "_load_state_dict_post_hooks", hook)

    # ---- constructor arguments ----------------------------------------------------------
    def _constructor_arguments(self):
        """{argument name: value} that rebuild this module with `type(self)`: the constructor's
        arguments (noted by `__new__`), defaults filled in; {} if none were recorded. get_config
        turns them into JSON; mg.save records them as they are. A layer whose shape is settled
        later (the lazy Dense) overrides it to add what it learned."""
        return self._recorded_arguments() or {}

    def _recorded_arguments(self):
        """The arguments `__new__` noted, bound to the constructor's parameters; None if
        they were not a constructor call (`__new__` alone, as copy and pickle call it), the
        module's class has changed since (a lazy layer's), or it has no constructor of its own."""
        recorded, cls = self.__dict__.get("_config"), type(self)
        if recorded is None or recorded[0] is not cls or cls.__init__ is Module.__init__:
            return None
        try:
            bound = inspect.signature(cls.__init__).bind(self, *recorded[1], **recorded[2])
        except TypeError:
            return None
        bound.apply_defaults()
        return dict(list(bound.arguments.items())[1:])  # without self

    # ---- Keras's spellings (seed 004): nn/keras.py ------------------------------------------
    @property
    def is_built(self):
        """Keras's `built`: False while a lazy layer in it (a Dense) has not seen an input."""
        return keras.is_built(self)

    @is_built.setter
    def is_built(self, value):
        keras.set_built(self, value)  # a lazy layer of your own marks itself (un)built

    def get_config(self):
        """The constructor's arguments as JSON, for `type(m).from_config(cfg)` to rebuild it."""
        return keras.get_config(self)

    @classmethod
    def from_config(cls, config):
        """A new module built from `get_config()`'s dict: `type(m).from_config(m.get_config())`."""
        return keras.from_config(cls, config)

    # ---- printing -----------------------------------------------------------------------
    def extra_repr(self):
        """The text inside this module's parentheses in repr; layers override it."""
        return ""

    def _get_name(self):
        return type(self).__name__

    def __repr__(self):
        lines = [line for line in self.extra_repr().split("\n") if line]
        for name, child in self._modules.items():
            child_repr = repr(child).replace("\n", "\n  ")
            lines.append(f"({name}): {child_repr}")
        # a leaf with a one-line extra_repr fits on one line
        if not self._modules and len(lines) <= 1:
            return f"{self._get_name()}({''.join(lines)})"
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"

    def __dir__(self):
        return sorted(
            set(super().__dir__()) | set(self._parameters) | set(self._buffers) | set(self._modules)
        )


from minigrad.nn import keras  # noqa: E402  (it defines layers, which are Modules)
