"""A Module's forward hooks: how `module(x)` runs them around `forward`.

`Module.__call__` is `forward` itself while a module has no hooks; once one is registered
(`register_forward_pre_hook`, `register_forward_hook`, or a full backward hook) the call
goes through `call_with_hooks`, in PyTorch's order:

1. forward pre-hooks, `hook(module, args)`, which may replace the arguments;
2. (full backward hooks: the tensor inputs pass through an identity op that reports their
   gradient later, nn/backward_hooks.py)
3. `forward`;
4. forward hooks, `hook(module, args, output)`, which may replace the output;
5. (full backward hooks: the tensor outputs pass through the identity op too).

The hooks live in ordered dicts on the module (handle id -> hook, PyTorch's attribute
names, listed in `HOOK_REGISTRIES`); the flags of a forward hook (with_kwargs,
always_call) are the same id in the `*_with_kwargs` / `*_always_called` dicts.
"""

import warnings

from minigrad.autograd.hooks import RemovableHandle
from minigrad.nn.backward_hooks import BackwardHookRecorder

HOOK_REGISTRIES = (
    "_forward_pre_hooks",
    "_forward_pre_hooks_with_kwargs",
    "_forward_hooks",
    "_forward_hooks_with_kwargs",
    "_forward_hooks_always_called",
    "_backward_pre_hooks",
    "_backward_hooks",
    "_state_dict_pre_hooks",
    "_state_dict_hooks",
    "_load_state_dict_pre_hooks",
    "_load_state_dict_post_hooks",
)
"""The hook dicts every Module has (made empty by `Module.__init__`)."""


class ModuleHookHandle(RemovableHandle):
    """A hook's handle whose remove() also forgets the hook's flags (with_kwargs, ...)."""

    def __init__(self, hooks, *flag_dicts):
        super().__init__(hooks)
        self.flag_dicts = flag_dicts

    def remove(self):
        super().remove()
        for flags in self.flag_dicts:
            flags.pop(self.id, None)


def add_hook(module, registry, hook, prepend=False, flags=()):
    """Store `hook` in the module's dict `registry` (first if prepend) and return its
    handle; `flags` are the dicts (with_kwargs, always_call) that also record its id."""
    if not callable(hook):
        got = type(hook).__name__
        raise TypeError(f"{type(module).__name__}: a hook must be callable, got {got}")
    hooks = getattr(module, registry)
    handle = ModuleHookHandle(hooks, *(getattr(module, f) for f in flags))
    hooks[handle.id] = hook
    for f in flags:
        getattr(module, f)[handle.id] = True
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


def call_with_hooks(module, args, kwargs):
    """`module(*args, **kwargs)` for a module that has hooks (see the module docstring)."""
    result = None
    called = set()  # the always_call hooks that already ran
    try:
        for hook_id, hook in list(module._forward_pre_hooks.items()):
            if hook_id in module._forward_pre_hooks_with_kwargs:
                new = hook(module, args, kwargs)
                if new is not None:
                    if not (isinstance(new, tuple) and len(new) == 2):
                        expected = "must return None or a tuple of (new_args, new_kwargs)"
                        raise RuntimeError(f"forward pre-hook {expected}, but got {new}.")
                    args, kwargs = new
            else:
                new = hook(module, args)
                if new is not None:
                    args = new if isinstance(new, tuple) else (new,)
        recorder = None
        if module._backward_hooks or module._backward_pre_hooks:
            args, recorder = BackwardHookRecorder.wrap_inputs(module, args)
        result = module.forward(*args, **kwargs)
        for hook_id, hook in list(module._forward_hooks.items()):
            if hook_id in module._forward_hooks_always_called:
                called.add(hook_id)
            new = _run_forward_hook(module, hook_id, hook, args, kwargs, result)
            if new is not None:
                result = new
        if recorder is not None:
            result = recorder.wrap_outputs(result)
        return result
    except Exception:
        # hooks registered with always_call=True run even when forward failed (to
        # release what a pre-hook acquired, say); their own errors become warnings,
        # so the original error is the one raised
        for hook_id, hook in list(module._forward_hooks.items()):
            if hook_id not in module._forward_hooks_always_called or hook_id in called:
                continue
            try:
                new = _run_forward_hook(module, hook_id, hook, args, kwargs, result)
                if new is not None:
                    result = new
            except Exception as err:
                warnings.warn(
                    "module forward hook with ``always_call=True`` raised an exception that was "
                    f"silenced as another error was raised in forward: {err}",
                    stacklevel=3,  # the line that called the module
                )
        raise


def _run_forward_hook(module, hook_id, hook, args, kwargs, result):
    if hook_id in module._forward_hooks_with_kwargs:
        return hook(module, args, kwargs, result)
    return hook(module, args, result)
