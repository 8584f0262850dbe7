"""Hook handles: what `register_hook` returns, so a hook can be taken off again.

A tensor (and a Module) keeps its hooks in a dict keyed by a number that is never
reused; the handle remembers that dict and that number, and `remove()` deletes the
entry. Used as a context manager, the hook is on only inside the `with` block.
"""


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
