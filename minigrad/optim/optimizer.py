"""Optimizer: the base class of every update rule (SGD, Adam, ...).

An optimizer owns two things:

- `param_groups`: a list of dicts. Each holds some parameters (`group['params']`) and
  the hyper-parameters that apply to them (`group['lr']`, `group['weight_decay']`, ...).
  Groups let one model train its layers at different rates; a learning-rate scheduler
  works by rewriting `group['lr']` between steps.
- `state`: a dict per parameter for what the rule remembers between steps (a momentum
  buffer, Adam's moment estimates, a step count), created on the parameter's first step.

`step()` is the same loop for every optimizer: for each parameter that has a gradient,
call `update(param, grad, state, group)`. A subclass writes only `update`, which holds
its equations, and `_check_group`, which rejects impossible hyper-parameters.

The update changes `param.array` in place. A Module keeps references to its Parameters,
so a new array would leave the model holding the old weights.

Hooks, as torch's: `register_step_pre_hook(hook)` runs `hook(optimizer, args, kwargs)`
before every `step` (`args` starts with the optimizer itself, as step's own arguments do;
the hook may return `(new_args, new_kwargs)` to replace them),
`register_step_post_hook` after it; `register_state_dict_pre_hook`/`_post_hook` and
`register_load_state_dict_pre_hook`/`_post_hook` around saving and loading (a post-hook of
`state_dict` and a pre-hook of `load_state_dict` may return a replacement state dict). Each
returns a handle whose `remove()` takes the hook off.
"""

import copy
import functools
import warnings
from collections import OrderedDict, defaultdict

import numpy as np

from minigrad.array_module import array_module, on_device, to_host
from minigrad.autograd import engine
from minigrad.autograd.grad_mode import enable_grad, no_grad
from minigrad.autograd.hooks import RemovableHandle
from minigrad.tensor import Tensor


class Optimizer:
    """Base class: `Optimizer(params, defaults)`.

    `params` is an iterable of Tensors (usually `model.parameters()`), or a list of
    dicts `{'params': ..., 'lr': ..., ...}`, one per parameter group; a hyper-parameter
    a group does not set is taken from `defaults`.

    PyTorch's optimizers take switches between implementations of one update rule:
    `foreach` (one multi-tensor kernel per group), `fused` (one fused kernel),
    `capturable` (state kept on the device, for CUDA graphs) and `differentiable`
    (autograd through the step). minigrad has one implementation, a loop over the
    parameters, which computes the same numbers; each optimizer accepts the switches
    PyTorch's takes, keeps them in its groups (so state dicts have torch's keys), and
    they change nothing, except `differentiable=True`, which is refused: the step runs
    under `no_grad` and cannot be differentiated.
    """

    # entries of a parameter's state that the update rule keeps on the host even for a
    # CUDA parameter (scalars it reads back as Python numbers); the rest live with the parameter
    _host_state = frozenset()

    def __init__(self, params, defaults):
        name = type(self).__name__
        # the hooks, each an ordered dict {handle id: hook} that its handle removes from
        self._optimizer_step_pre_hooks = OrderedDict()
        self._optimizer_step_post_hooks = OrderedDict()
        self._optimizer_state_dict_pre_hooks = OrderedDict()
        self._optimizer_state_dict_post_hooks = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks = OrderedDict()
        self._optimizer_load_state_dict_post_hooks = OrderedDict()
        _run_hooks_around_step(type(self))
        self.defaults = dict(defaults)
        # A parameter's state appears on first use: `self.state[p]['step'] = 0` just works.
        self.state = defaultdict(dict)
        self.param_groups = []
        if isinstance(params, Tensor):
            raise TypeError(
                f"{name}: params should be an iterable of Tensors or dicts, but got a single "
                "Tensor; pass [tensor] or model.parameters()"
            )
        groups = _ordered_list(name, params)  # model.parameters() is a generator: read it once
        if not groups:
            raise ValueError(f"{name}: optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def add_param_group(self, param_group):
        """Add a group of parameters, with hyper-parameters of its own; whatever it
        leaves out is filled in from the optimizer's defaults. The parameters may come
        with names, as `model.named_parameters()` gives them: the group then keeps the
        names in `group['param_names']` (as in PyTorch, all groups or none)."""
        name = type(self).__name__
        if not isinstance(param_group, dict):
            raise TypeError(
                f"{name}: a param group must be a dict, but got {type(param_group).__name__}"
            )
        if "params" not in param_group:
            # KeyError, as PyTorch raises
            raise KeyError(
                f"{name}: a param group must have a 'params' entry, got keys {sorted(param_group)}"
            )
        params = param_group["params"]
        params = [params] if isinstance(params, Tensor) else _ordered_list(name, params)
        params, param_names = _split_names(name, params)
        for p in params:
            if not isinstance(p, Tensor):
                raise TypeError(
                    f"{name}: optimizer can only optimize Tensors, but one of the params is "
                    f"{type(p).__name__}"
                )
            if not p.is_leaf:
                raise ValueError(
                    f"{name}: can't optimize a non-leaf Tensor (it was made by {p.grad_fn!r})"
                )

        group = dict(param_group, params=params)
        if param_names is not None:
            group["param_names"] = param_names
        if any(("param_names" in group) != ("param_names" in g) for g in self.param_groups):
            raise ValueError(
                f"{name}: all optimizer param groups should be with/without names; cannot add a "
                f"param group {'with' if param_names is not None else 'without'} names to this "
                "optimizer"
            )
        for key, default in self.defaults.items():
            group.setdefault(key, default)

        if len({id(p) for p in params}) != len(params):
            warnings.warn(
                f"{name}: a parameter group contains the same parameter twice", stacklevel=2
            )
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in seen for p in params):
            raise ValueError(
                f"{name}: some parameters appear in more than one parameter group "
                "(each parameter can belong to one group only)"
            )
        _check_implementation_flags(name, group)
        self._check_group(group)
        self.param_groups.append(group)

    def _check_group(self, group):
        """Raise ValueError for hyper-parameters the update rule cannot use."""

    def _check(self, ok, message):
        """Raise a ValueError that names this optimizer unless `ok`."""
        if not ok:
            raise ValueError(f"{type(self).__name__}: {message}")

    def step(self, closure=None):
        """Update every parameter that has a gradient, once.

        `closure`, if given, re-computes the loss (with gradients) and returns it; `step`
        returns that loss. Parameters whose `.grad` is None are left alone: they took
        no part in the loss, and their state is not created.
        """
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        # The update itself is not part of any model: recording it would only build a
        # graph that nobody walks back through.
        with no_grad():
            for group in self.param_groups:
                for param in group["params"]:
                    if param.grad is not None:
                        self.update(param, param.grad.array, self.state[param], group)
        return loss

    def update(self, param, grad, state, group):
        """Change `param` in place, given its gradient `grad` (a NumPy array, not to be
        modified), its `state` dict and its `group`'s hyper-parameters."""
        raise NotImplementedError(
            f"{type(self).__name__} must implement update(param, grad, state, group)"
        )

    def zero_grad(self, set_to_none=True):
        """Forget the gradients, before the next backward accumulates new ones: drop each
        `.grad` (the default) or, with `set_to_none=False`, fill it with zeros."""
        engine.zero_grad((p for group in self.param_groups for p in group["params"]), set_to_none)

    # ---- saving and loading -------------------------------------------------------------
    def state_dict(self):
        """A snapshot of the optimizer, in PyTorch's format:

            {'state': {0: {'step': 3, 'exp_avg': array, ...}, 1: {...}},
             'param_groups': [{'lr': 0.01, ..., 'params': [0, 1]}, ...]}

        Parameters are named by their position, counted across the groups in order, so
        the snapshot holds only arrays, numbers, tuples and strings and never the
        parameters themselves (those belong to the model's own state_dict).
        """
        for hook in list(self._optimizer_state_dict_pre_hooks.values()):
            hook(self)
        index = {}  # id(param) -> its position
        param_groups = []
        for group in self.param_groups:
            for p in group["params"]:
                index.setdefault(id(p), len(index))
            packed = {k: copy.deepcopy(v) for k, v in group.items() if k != "params"}
            packed["params"] = [index[id(p)] for p in group["params"]]
            param_groups.append(packed)
        state = {index[id(p)]: copy.deepcopy(s) for p, s in self.state.items()}
        state_dict = {"state": state, "param_groups": param_groups}
        for hook in list(self._optimizer_state_dict_post_hooks.values()):
            result = hook(self, state_dict)
            if result is not None:
                state_dict = result
        return state_dict

    def load_state_dict(self, state_dict):
        """Restore a snapshot made by `state_dict` (here or by PyTorch, with its tensors
        turned into NumPy arrays) into an optimizer built over the same parameters.

        The saved groups are matched to this optimizer's groups in order, and saved
        parameter `i` to this optimizer's parameter at the same position. Hyper-parameters
        come from the snapshot; the parameters stay this optimizer's own.
        """
        name = type(self).__name__
        state_dict = dict(state_dict)  # a shallow copy, which the pre-hooks may change (as torch)
        for hook in list(self._optimizer_load_state_dict_pre_hooks.values()):
            result = hook(self, state_dict)
            if result is not None:
                state_dict = result
        saved_groups = state_dict["param_groups"]
        if len(saved_groups) != len(self.param_groups):
            raise ValueError(
                f"{name}.load_state_dict: loaded state dict has {len(saved_groups)} parameter "
                f"groups, but the optimizer has {len(self.param_groups)}"
            )
        param_at = {}  # saved index -> this optimizer's parameter
        for i, (saved, group) in enumerate(zip(saved_groups, self.param_groups)):
            if len(saved["params"]) != len(group["params"]):
                raise ValueError(
                    f"{name}.load_state_dict: loaded state dict contains a parameter group that "
                    f"doesn't match the size of optimizer's group: group {i} has "
                    f"{len(saved['params'])} parameters saved, {len(group['params'])} here"
                )
            for index, p in zip(saved["params"], group["params"]):
                param_at[int(index)] = p

        state = defaultdict(dict)
        for index, saved_state in state_dict["state"].items():
            if int(index) not in param_at:
                raise ValueError(
                    f"{name}.load_state_dict: state for parameter {index}, which no group contains"
                )
            p = param_at[int(index)]
            state[p] = {
                key: _load_value(key, value, p, self._host_state)
                for key, value in saved_state.items()
            }
        self.state = state
        self.param_groups = [
            _loaded_group(saved, group) for saved, group in zip(saved_groups, self.param_groups)
        ]
        for hook in list(self._optimizer_load_state_dict_post_hooks.values()):
            hook(self)

    # ---- hooks --------------------------------------------------------------------------
    def register_step_pre_hook(self, hook):
        """Run `hook(optimizer, args, kwargs)` before each step, `args` being step's positional
        arguments, the optimizer first; it may return `(new_args, new_kwargs)`, which step then
        receives. Returns a handle."""
        return _add_hook(self._optimizer_step_pre_hooks, hook, prepend=False)

    def register_step_post_hook(self, hook):
        """Run `hook(optimizer, args, kwargs)` after each step. Returns a handle."""
        return _add_hook(self._optimizer_step_post_hooks, hook, prepend=False)

    def register_state_dict_pre_hook(self, hook, prepend=False):
        """Run `hook(optimizer)` before `state_dict` makes its snapshot (`prepend=True`: before
        the hooks already registered). Returns a handle."""
        return _add_hook(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend=False):
        """Run `hook(optimizer, state_dict)` on the snapshot `state_dict` made; it may change it
        in place or return a new one, which state_dict then returns. Returns a handle."""
        return _add_hook(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend=False):
        """Run `hook(optimizer, state_dict)` before `load_state_dict` reads the snapshot (a
        shallow copy of it); it may return a new one, which is loaded instead. Returns a handle."""
        return _add_hook(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend=False):
        """Run `hook(optimizer)` after `load_state_dict` has loaded. Returns a handle."""
        return _add_hook(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    def __repr__(self):
        lines = [f"{type(self).__name__} ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            lines.extend(f"    {key}: {group[key]}" for key in sorted(group) if key != "params")
        lines.append(")")
        return "\n".join(lines)


def _add_hook(hooks, hook, prepend):
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


def _run_hooks_around_step(cls):
    """Wrap the `step` of an optimizer's class (once) so that it runs the step hooks.

    As torch, the class of the optimizer being made is patched, the first time one is made:
    a subclass's own `step` gets the hooks without having to call them. (Its `super().step()`
    runs them again if the base class was patched too, having made an optimizer of its own,
    as in torch.)
    """
    step = cls.step
    if getattr(step, "runs_hooks", False):
        return

    @functools.wraps(step)
    def step_with_hooks(*args, **kwargs):
        self = args[0]  # the hooks see step's arguments as torch's do: the optimizer first
        for hook in list(self._optimizer_step_pre_hooks.values()):
            result = hook(self, args, kwargs)
            if result is not None:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError(
                        f"{type(self).__name__}.step: a step pre-hook must return None or a tuple "
                        f"of (new_args, new_kwargs), but got {result}."
                    )
                args, kwargs = result
        out = step(*args, **kwargs)
        for hook in list(self._optimizer_step_post_hooks.values()):
            hook(self, args, kwargs)
        return out

    step_with_hooks.runs_hooks = True
    cls.step = step_with_hooks


def _check_implementation_flags(name, group):
    """Refuse what the one implementation cannot do; accept the rest (see Optimizer)."""
    if group.get("fused") and group.get("foreach"):
        raise RuntimeError(f"{name}: `fused` and `foreach` cannot be `True` together.")
    if group.get("differentiable"):
        raise NotImplementedError(
            f"{name}: differentiable=True is not supported: minigrad's optimizer step runs under "
            "no_grad, so autograd cannot go through it (use differentiable=False, the default)"
        )


def _check_adam_family(optimizer, group):
    """The checks Adam, Adamax, NAdam and RAdam share (PyTorch's messages)."""
    check = optimizer._check
    check(group["lr"] >= 0, f"Invalid learning rate: {group['lr']} (expected lr >= 0)")
    check(group["eps"] >= 0, f"Invalid epsilon value: {group['eps']} (expected eps >= 0)")
    betas = group["betas"]
    check(len(betas) == 2, f"Invalid betas: {betas} (expected a pair (beta1, beta2))")
    for i, beta in enumerate(betas):
        check(
            0 <= beta < 1,
            f"Invalid beta parameter at index {i}: {beta} (expected 0 <= betas[{i}] < 1)",
        )
    check(
        group["weight_decay"] >= 0,
        f"Invalid weight_decay value: {group['weight_decay']} (expected weight_decay >= 0)",
    )


def _split_names(name, params):
    """(tensors, names) from a list of tensors or of (name, tensor) pairs; names is None
    for plain tensors."""
    pairs = [p for p in params if isinstance(p, tuple)]
    if not pairs:
        return params, None
    if len(pairs) != len(params):
        raise ValueError(
            f"{name}: all optimizer params should be with/without names. Some param names are "
            "missing"
        )
    return [tensor for _, tensor in pairs], [param_name for param_name, _ in pairs]


def _ordered_list(name, params):
    # state_dict refers to parameters by position, so their order must be fixed
    if isinstance(params, (set, frozenset)):
        raise TypeError(
            f"{name}: optimizer parameters need to be an ordered collection (a list), "
            "but got a set, whose order changes between runs"
        )
    return list(params)


def _loaded_group(saved, group):
    """A saved group's hyper-parameters over this optimizer's parameters (and their names,
    unless the snapshot has names of its own)."""
    loaded = copy.deepcopy({k: v for k, v in saved.items() if k != "params"})
    if "param_names" in group and "param_names" not in loaded:
        loaded["param_names"] = group["param_names"]
    return {**loaded, "params": group["params"]}


def _load_value(key, value, param, host_keys):
    """One entry of a parameter's saved state, copied so the snapshot stays independent.
    Arrays take the parameter's float dtype and its device (as torch: a snapshot saved
    on the CPU loads into an optimizer over CUDA parameters), except the numbers the
    update rule keeps on the host (`host_keys`); the step count becomes a Python number."""
    if isinstance(value, Tensor):
        value = value.array
    if key == "step":
        return to_host(value).item()
    if isinstance(value, np.ndarray) or on_device(value):
        dtype = param.array.dtype if value.dtype.kind == "f" else value.dtype
        if key in host_keys or not on_device(param.array):
            return np.array(to_host(value), dtype=dtype)
        return array_module(param.array).array(value, dtype=dtype)  # a copy, on the GPU
    return copy.deepcopy(value)
