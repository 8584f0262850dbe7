"""Grad mode: the switch that says whether new ops are recorded.

Recording is what lets `backward` find its way from a loss to the leaves; switching it
off (`no_grad`) saves the memory and the time of building a graph nobody will walk,
which is what evaluation and optimizer updates want.

The switch is per thread, as in PyTorch: a `no_grad()` block in one thread (say, an
evaluation thread) does not stop another thread's training step from being recorded,
and every new thread starts with recording on.

`inference_mode()` is `no_grad()` plus a promise: the tensors made inside it will never
take part in a recorded computation. PyTorch uses the promise to skip the bookkeeping
(version counters, view tracking) that autograd needs; minigrad has little of that to
skip, but it marks those tensors as *inference tensors* and refuses, with PyTorch's
errors, what the promise rules out: saving one for a backward pass, changing one in
place outside inference mode, asking one for gradients.
"""

import functools
import inspect
import threading


class _GradModeState(threading.local):
    """One `enabled` flag per thread; `__init__` runs again in each thread that reads it."""

    def __init__(self):
        self.enabled = True
        self.inference = False  # inside inference_mode(): new tensors are inference tensors


_state = _GradModeState()


def is_grad_enabled():
    """True when ops on tensors that require grad are recorded (in this thread)."""
    return _state.enabled


def _set(mode):
    """Set this thread's mode; return the previous one (so the caller can restore it)."""
    previous, _state.enabled = _state.enabled, bool(mode)
    return previous


class set_grad_enabled:
    """Switch recording on or off; usable as a context manager, a decorator or a call.

    `set_grad_enabled(False)` takes effect at once (like PyTorch), and when used in a
    `with` block the previous mode is restored on exit.
    """

    def __init__(self, mode):
        self.prev = _set(mode)
        self.mode = bool(mode)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _set(self.prev)
        return False

    def __call__(self, fn):
        mode = self.mode
        _set(self.prev)  # as a decorator it must not change the mode at definition time

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            previous = _set(mode)
            try:
                return fn(*args, **kwargs)
            finally:
                _set(previous)

        return wrapper


class _GradModeContext:
    """Base of `no_grad` / `enable_grad`: a context manager that is also a decorator."""

    mode = True

    def __new__(cls, fn=None):
        # `@no_grad` without parentheses decorates too, as in PyTorch
        if fn is None:
            return super().__new__(cls)
        return cls()(fn)

    def __enter__(self):
        self.prev = _set(self.mode)
        return self

    def __exit__(self, *exc):
        _set(self.prev)
        return False

    def _clone(self):
        """A fresh context of the same kind, entered around each call of a decorated function."""
        return type(self)()

    def __call__(self, fn):
        context = self._clone
        if inspect.isgeneratorfunction(fn):
            # a generator runs a step at a time, long after the call returned: the mode
            # must be set around each step, not around the call that made the generator
            @functools.wraps(fn)
            def generator_wrapper(*args, **kwargs):
                generator = fn(*args, **kwargs)
                sent = None
                while True:
                    with context():
                        try:
                            item = generator.send(sent)
                        except StopIteration as stop:
                            return stop.value
                    sent = yield item

            return generator_wrapper

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with context():
                return fn(*args, **kwargs)

        return wrapper


class no_grad(_GradModeContext):
    """Do not record ops: results have `requires_grad=False` and no `grad_fn`."""

    mode = False


class enable_grad(_GradModeContext):
    """Record ops again inside a `no_grad` region."""

    mode = True


def is_inference_mode_enabled():
    """True inside `inference_mode()` (in this thread), as `torch.is_inference_mode_enabled`."""
    return _state.inference


class inference_mode(_GradModeContext):
    """`no_grad`, and the tensors made inside are *inference tensors*, as
    `torch.inference_mode(mode=True)`: a context manager and a decorator (`@inference_mode`,
    `@inference_mode()` or `@inference_mode(False)`).

    Inside, ops are not recorded (as under `no_grad`) and every new tensor is marked
    (`t.is_inference()`). Such a tensor may be used later in ordinary ops, but not in
    a recorded computation that must keep it for backward: `inference_t * w` with `w`
    requiring grad raises PyTorch's "Inference tensors cannot be saved for backward",
    while `inference_t + w`, whose gradient needs no saved input, works, as in PyTorch.
    Changing one in place or setting `requires_grad` on it outside inference mode
    raises too. Use `clone()` (outside the block) to get an ordinary tensor.

    One difference: minigrad raises where an op keeps the tensor with
    `ctx.save_for_backward`, as the elementwise, matrix and activation ops do; an op
    that keeps only the tensor's NumPy array for its backward (indexing, pooling)
    does not notice, where PyTorch would raise.

    `inference_mode(False)` switches both off (recording on, no marking) until the
    block ends; on exit both are restored, as in PyTorch.
    """

    def __new__(cls, mode=True):
        # `@inference_mode` without parentheses decorates too, as in PyTorch
        if isinstance(mode, bool):
            return object.__new__(cls)
        return cls()(mode)

    def __init__(self, mode=True):
        self.mode = mode

    def _clone(self):
        return type(self)(self.mode)

    def __enter__(self):
        self.prev = _state.enabled, _state.inference
        _state.enabled, _state.inference = not self.mode, bool(self.mode)
        return self

    def __exit__(self, *exc):
        _state.enabled, _state.inference = self.prev
        return False


class _MultithreadingState(threading.local):
    def __init__(self):
        self.enabled = True


_multithreading = _MultithreadingState()


def is_multithreading_enabled():
    """True unless `set_multithreading_enabled(False)` is in effect in this thread (the default,
    as torch.autograd.is_multithreading_enabled)."""
    return _multithreading.enabled


class set_multithreading_enabled:
    """`set_multithreading_enabled(mode)`: whether backward may run on worker threads, per
    thread, from the call on; as a context manager or decorator, the previous setting comes
    back afterwards (torch.autograd.set_multithreading_enabled).

    torch runs a backward on per-device worker threads only when an accelerator is in use;
    on the CPU it runs on the calling thread either way. minigrad's engine always runs on
    the calling thread, so the switch is recorded (and read back by
    `is_multithreading_enabled`) and changes nothing else, as torch's on a CPU-only machine.
    """

    def __init__(self, mode):
        self.prev = _multithreading.enabled
        _multithreading.enabled = bool(mode)
        self.mode = bool(mode)

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        _multithreading.enabled = self.prev
        return False

    def __call__(self, fn):
        mode = self.mode
        # as a decorator it must not change the setting at definition time
        _multithreading.enabled = self.prev

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with set_multithreading_enabled(mode):
                return fn(*args, **kwargs)

        return wrapper
