"""Module: the base class of every layer and model.

A Module is a container with three registries filled by plain attribute assignment:

- `_parameters`: Parameters (`self.weight = Parameter(...)`), the learnable state;
- `_buffers`: tensors that are state but not learned (BatchNorm's running mean),
  registered with `register_buffer`; persistent ones are saved in the state dict;
- `_modules`: child Modules (`self.fc = Linear(...)`), which makes models trees.

Everything else — `parameters()`, `state_dict()`, `train()`, `to()`, `zero_grad()`,
the nested `repr` — is a walk over that tree. Names follow PyTorch exactly
("features.0.weight"), so a PyTorch state dict (as NumPy arrays) loads into the same
minigrad model.
"""

import functools
import inspect
import json
from collections import OrderedDict, namedtuple

import numpy as np

from minigrad import dtypes
from minigrad.autograd.function import Function
from minigrad.autograd.grad_mode import no_grad
from minigrad.nn.parameter import Parameter
from minigrad.tensor import RemovableHandle, Tensor

IncompatibleKeys = namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])

_EXTRA_STATE_KEY = "_extra_state"


class Module:
    """Base class for all layers and models: subclass it, create parameters and
    submodules in `__init__` (after `super().__init__()`), and define `forward`."""

    training: bool

    def __init__(self, *args, **kwargs):
        if args or kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got unexpected arguments {args} {kwargs}")
        # object.__setattr__: our own __setattr__ needs these dicts to exist already
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_non_persistent_buffers", set())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "_forward_pre_hooks", OrderedDict())
        object.__setattr__(self, "_forward_hooks", OrderedDict())
        object.__setattr__(self, "_backward_hooks", OrderedDict())

    def __init_subclass__(cls, **kwargs):
        """Record each model's constructor arguments (for get_config) by wrapping the
        subclass's own __init__; only the outermost call records."""
        super().__init_subclass__(**kwargs)
        if "__init__" not in cls.__dict__:
            return
        init = cls.__dict__["__init__"]
        signature = inspect.signature(init)

        @functools.wraps(init)
        def __init__(self, *args, **kwargs):
            outermost = "_config" not in self.__dict__
            if outermost:
                bound = signature.bind(self, *args, **kwargs)
                bound.apply_defaults()
                arguments = dict(list(bound.arguments.items())[1:])  # drop self
                object.__setattr__(self, "_config", (type(self), arguments))
            init(self, *args, **kwargs)

        cls.__init__ = __init__

    # ---- forward ----------------------------------------------------------------------
    def forward(self, *args, **kwargs):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    def __call__(self, *args, **kwargs):
        for hook in list(self._forward_pre_hooks.values()):
            result = hook(self, args)
            if result is not None:
                args = result if isinstance(result, tuple) else (result,)
        if self._backward_hooks:
            args, recorder = _BackwardHookRecorder.wrap_inputs(self, args)
        output = self.forward(*args, **kwargs)
        for hook in list(self._forward_hooks.values()):
            result = hook(self, args, output)
            if result is not None:
                output = result
        if self._backward_hooks:
            output = recorder.wrap_outputs(output)
        return output

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
                    f"cannot assign '{type(value).__name__}' as parameter '{name}' (a Parameter or None is expected)"
                )
            params[name] = None
        elif isinstance(value, Module):
            if params is None:
                raise AttributeError("cannot assign a module before Module.__init__() call")
            self._remove_from(name, self.__dict__, self._parameters, self._buffers)
            self._modules[name] = value
        elif params is not None and name in self._modules:
            if value is not None:
                raise TypeError(f"cannot assign '{type(value).__name__}' as child module '{name}' (a Module or None)")
            self._modules[name] = None
        elif params is not None and name in self._buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{type(value).__name__}' as buffer '{name}' (a Tensor or None)")
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
                f"cannot assign '{type(param).__name__}' object to parameter '{name}' (a Parameter or None is "
                "expected; wrap a tensor with nn.Parameter)"
            )
        self._parameters[name] = param

    def register_buffer(self, name, tensor, persistent=True):
        """Add non-learned state; persistent buffers are part of state_dict()."""
        self._check_name(name, "buffer")
        if name in self._parameters:
            raise KeyError(f"attribute '{name}' already exists as a parameter")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{type(tensor).__name__}' object to buffer '{name}' (a Tensor or None)")
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
        self._modules[name] = module

    register_module = add_module

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
            yield from child.named_modules(memo, prefix + ("." if prefix else "") + name, remove_duplicate)

    def modules(self):
        for _, m in self.named_modules():
            yield m

    def named_children(self):
        seen = set()
        for name, child in self._modules.items():
            if child is not None and id(child) not in seen:
                seen.add(id(child))
                yield name, child

    def children(self):
        for _, child in self.named_children():
            yield child

    def _named_members(self, registry, prefix, recurse, remove_duplicate=True):
        seen = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
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
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
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
                raise AttributeError(f"get_submodule: {where} has no submodule '{part}' (path '{target}')")
            module = child
        return module

    def _get_member(self, target, registry, kind):
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        members = getattr(module, registry)
        if name not in members or members[name] is None:
            raise AttributeError(f"get_{kind}: '{module_path or type(self).__name__}' has no {kind} '{name}'")
        return members[name]

    def get_parameter(self, target):
        return self._get_member(target, "_parameters", "parameter")

    def get_buffer(self, target):
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
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Reset every parameter's .grad: to None (the default), or to zeros in place."""
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                p.grad = p.grad.detach()
                p.grad.array[...] = 0

    def to(self, *args, **kwargs):
        """Convert floating-point parameters and buffers to a dtype in place; returns self.

        Takes the arguments of torch's `Module.to`: `to(dtype)`, `to(device)`,
        `to(device, dtype)`, `to(tensor)`, with `non_blocking=`. The device can only be
        the CPU, where the parameters already are (another device raises: the GPU
        kernels are selected with `mg.backends.use('cuda')`).
        """
        from minigrad import devices as _devices

        _, dtype, _ = _devices.parse_to(args, kwargs, "Module.to")
        if dtype is None:
            return self
        if dtype.kind != "f":
            raise TypeError(f"Module.to only accepts floating point dtypes, got {dtype}")
        for t in list(self.parameters()) + list(self.buffers()):
            if t.dtype.kind == "f" and t.dtype != dtype:
                t.array = t.array.astype(dtype)
                if t.grad is not None:
                    t.grad = Tensor._make(t.grad.array.astype(dtype))
        return self

    def cpu(self):
        """Self: parameters and buffers are in host memory already."""
        return self

    def cuda(self, device=None):
        """Raises: minigrad tensors live in host memory (see `mg.backends.use('cuda')`)."""
        from minigrad import devices as _devices

        _devices.refuse_cuda(device, "Module.cuda")

    def float(self):
        return self.to(dtypes.float32)

    def double(self):
        return self.to(dtypes.float64)

    def half(self):
        return self.to(dtypes.float16)

    # ---- state dict -----------------------------------------------------------------------
    def get_extra_state(self):
        """Override (with set_extra_state) to save extra, non-tensor state in state_dict."""
        raise RuntimeError("get_extra_state: this module does not define extra state")

    def set_extra_state(self, state):
        raise RuntimeError("set_extra_state: this module does not define extra state")

    def _has_extra_state(self):
        return type(self).get_extra_state is not Module.get_extra_state

    def state_dict(self, destination=None, prefix="", keep_vars=False):
        """Ordered {dotted name: tensor} of parameters and persistent buffers (detached
        unless keep_vars), plus `_extra_state` entries where a module defines them."""
        if destination is None:
            destination = OrderedDict()
        for name, p in self._parameters.items():
            if p is not None:
                destination[prefix + name] = p if keep_vars else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers:
                destination[prefix + name] = b if keep_vars else b.detach()
        if self._has_extra_state():
            destination[prefix + _EXTRA_STATE_KEY] = self.get_extra_state()
        for name, child in self._modules.items():
            if child is not None:
                child.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        return destination

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copy values from `state_dict` (minigrad Tensors or NumPy arrays) into this
        module's parameters and buffers; returns (missing_keys, unexpected_keys).

        strict=True raises with both lists if either is non-empty; a shape mismatch
        always raises, naming the key and both shapes. assign=True replaces the tensors
        instead of copying into them.
        """
        if not hasattr(state_dict, "keys"):
            raise TypeError(f"load_state_dict: expected a dict-like state_dict, got {type(state_dict).__name__}")
        expected = {}
        for prefix, module in self.named_modules(remove_duplicate=False):
            dot = prefix + "." if prefix else ""
            for name, p in module._parameters.items():
                if p is not None:
                    expected[dot + name] = (module, "_parameters", name)
            for name, b in module._buffers.items():
                if b is not None and name not in module._non_persistent_buffers:
                    expected[dot + name] = (module, "_buffers", name)
            if module._has_extra_state():
                expected[dot + _EXTRA_STATE_KEY] = (module, None, None)
        missing = [k for k in expected if k not in state_dict]
        unexpected = [k for k in state_dict if k not in expected]
        errors = []
        with no_grad():
            for key, (module, registry, name) in expected.items():
                if key not in state_dict:
                    continue
                value = state_dict[key]
                if registry is None:
                    module.set_extra_state(value)
                    continue
                target = getattr(module, registry)[name]
                array = np.asarray(value.array if isinstance(value, Tensor) else value)
                if array.shape != target.shape:
                    errors.append(
                        f"size mismatch for {key}: copying a param with shape {array.shape} from checkpoint, "
                        f"the shape in current model is {target.shape}."
                    )
                    continue
                if assign:
                    new = array.astype(target.dtype, copy=True)
                    if registry == "_parameters":
                        module._parameters[name] = Parameter(new, requires_grad=target.requires_grad)
                    else:
                        module._buffers[name] = Tensor._make(new)
                else:
                    target.array[...] = array
                    target._version_counter().value += 1
        if strict and (missing or unexpected):
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: " + ", ".join(f'"{k}"' for k in unexpected) + ".")
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: " + ", ".join(f'"{k}"' for k in missing) + ".")
        if errors:
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}:\n\t" + "\n\t".join(errors))
        return IncompatibleKeys(missing, unexpected)

    # ---- hooks --------------------------------------------------------------------------
    def register_forward_pre_hook(self, hook):
        """hook(module, args) runs before forward; it may return new args."""
        handle = RemovableHandle(self._forward_pre_hooks)
        self._forward_pre_hooks[handle.id] = hook
        return handle

    def register_forward_hook(self, hook):
        """hook(module, args, output) runs after forward; it may return a new output."""
        handle = RemovableHandle(self._forward_hooks)
        self._forward_hooks[handle.id] = hook
        return handle

    def register_full_backward_hook(self, hook):
        """hook(module, grad_input, grad_output) runs when the gradients with respect to
        the module's tensor inputs are computed; it may return a new grad_input tuple
        (replacement is supported for modules with one input that requires grad)."""
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        return handle

    # ---- config -------------------------------------------------------------------------
    def get_config(self):
        """The constructor's arguments as a JSON-able dict, so `type(m).from_config(cfg)`
        builds an identical (freshly initialised) module."""
        recorded = self.__dict__.get("_config")
        if recorded is None or recorded[0] is not type(self):
            return {}
        config = {}
        for name, value in recorded[1].items():
            config[name] = _jsonable(value, f"{type(self).__name__}.get_config: argument '{name}'")
        return config

    @classmethod
    def from_config(cls, config):
        return cls(**config)

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
        if not self._modules and len(lines) <= 1:  # a leaf with a one-line extra_repr fits on one line
            return f"{self._get_name()}({''.join(lines)})"
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._parameters) | set(self._buffers) | set(self._modules))


def _jsonable(value, where):
    """Convert constructor arguments to JSON types, or raise naming the argument."""
    if isinstance(value, tuple):
        value = list(value)
    if isinstance(value, (np.integer, np.floating, np.bool_)):
        value = value.item()
    if isinstance(value, type) and issubclass(value, np.generic):
        value = np.dtype(value).name
    if isinstance(value, np.dtype):
        value = value.name
    try:
        json.dumps(value)
    except TypeError:
        raise TypeError(f"{where} of type {type(value).__name__} is not JSON-serialisable") from None
    return value


# ---- full backward hooks --------------------------------------------------------------------
class _HookIdentity(Function):
    """y = x;  dL/dx = dL/dy, after showing dL/dy to a callback (which may replace it)."""

    @staticmethod
    def forward(ctx, x, on_grad):
        ctx.on_grad = on_grad
        return x.array

    @staticmethod
    def backward(ctx, grad):
        new = ctx.on_grad(grad)
        return (grad if new is None else new), None


class _BackwardHookRecorder:
    """Collects grad_output and grad_input of one call and calls the module's hooks."""

    def __init__(self, module, n_inputs_with_grad):
        self.module = module
        self.n_waiting = n_inputs_with_grad
        self.grad_inputs = None
        self.grad_outputs = None
        self.input_slots = []

    @classmethod
    def wrap_inputs(cls, module, args):
        slots = [i for i, a in enumerate(args) if isinstance(a, Tensor) and a.requires_grad]
        recorder = cls(module, len(slots))
        recorder.input_slots = slots
        recorder.grad_inputs = [None] * len(args)
        args = list(args)
        for i in slots:
            args[i] = _HookIdentity.apply(args[i], on_grad=functools.partial(recorder._on_input_grad, i))
        return tuple(args), recorder

    def wrap_outputs(self, output):
        outputs = output if isinstance(output, tuple) else (output,)
        self.grad_outputs = [None] * len(outputs)
        wrapped = [
            _HookIdentity.apply(o, on_grad=functools.partial(self._on_output_grad, i))
            if isinstance(o, Tensor) and o.requires_grad
            else o
            for i, o in enumerate(outputs)
        ]
        return tuple(wrapped) if isinstance(output, tuple) else wrapped[0]

    def _on_output_grad(self, i, grad):
        self.grad_outputs[i] = grad
        if self.n_waiting == 0:  # no input needs a gradient: the hook sees grad_input = (None, ...)
            self._call_hooks()

    def _on_input_grad(self, i, grad):
        self.grad_inputs[i] = grad
        self.n_waiting -= 1
        if self.n_waiting == 0:
            new = self._call_hooks()
            if new is not None:
                return new[i]
        return None

    def _call_hooks(self):
        replacement = None
        for hook in self.module._backward_hooks.values():
            grad_input = tuple(self.grad_inputs) if replacement is None else replacement
            result = hook(self.module, grad_input, tuple(self.grad_outputs))
            if result is not None:
                if len(self.input_slots) > 1:
                    raise NotImplementedError(
                        f"{type(self.module).__name__}: a full backward hook may only replace grad_input "
                        "for modules with one input that requires grad"
                    )
                replacement = tuple(result) if isinstance(result, (tuple, list)) else (result,)
        return replacement
