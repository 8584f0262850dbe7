"""Hook handles: what `register_hook` returns, so a hook can be taken off again.

A tensor (and a Module) keeps its hooks in a dict keyed by a number that is never
reused; the handle remembers that dict and that number, and `remove()` deletes the
entry. Used as a context manager, the hook is on only inside the `with` block.
"""

import weakref


class RemovableHandle:
    """Returned by `register_hook`; `.remove()` takes the hook off again."""

    _next_id = 0

    def __init__(self, hooks):
        self.hooks = hooks
        self.id = RemovableHandle._next_id
        RemovableHandle._next_id += 1

    def remove(self):
        """Take the hook off (removing it twice is harmless)."""
        self.hooks.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


# ---- hooks that run after a leaf's gradient is accumulated ------------------------------------
# id(leaf) -> {handle id: hook}, for as long as the leaf lives (a finalizer drops the entry).
# Keyed by id, not by the tensor: a tensor's == is elementwise, so it cannot be a dict key.
_post_accumulate_grad_hooks = {}


def post_accumulate_grad_hooks(leaf):
    """The dict of `leaf`'s post-accumulate-grad hooks (made on first use)."""
    key = id(leaf)
    if key not in _post_accumulate_grad_hooks:
        _post_accumulate_grad_hooks[key] = {}
        weakref.finalize(leaf, _post_accumulate_grad_hooks.pop, key, None)
    return _post_accumulate_grad_hooks[key]


def run_post_accumulate_grad_hooks(leaf):
    """Call `hook(leaf)` for each hook registered on `leaf` (backward has just updated its
    .grad)."""
    registered = _post_accumulate_grad_hooks.get(id(leaf))
    for hook in list(registered.values()) if registered else ():
        hook(leaf)
