"""The base of every learning-rate scheduler: `LRScheduler` counts the steps and writes
each step's learning rates into the optimizer's param groups; a schedule is a subclass
that says, in `get_lr()`, what the rate at step `last_epoch` is (see the package
docstring, lr_scheduler/__init__.py, for the closed and the update forms).

The helpers below it are shared by the schedules in the other files: the wrapper that
notices a scheduler stepped before its optimizer, and the checks of their arguments.
"""

import functools
import types
import warnings
import weakref

from minigrad.optim.optimizer import Optimizer

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being "
    "deprecated where possible. Please use `scheduler.step()` to step the "
    "scheduler. During the deprecation, if epoch is different from None, the "
    "closed form is used instead of the new chainable form, where available."
)


class LRScheduler:
    """Base class: a subclass implements `get_lr()`, the learning rate of each param
    group at step `self.last_epoch`, from `self.base_lrs` (a closed form) or from the
    groups' current `'lr'` (an update, which chains).

    Making a scheduler already takes its first step (to `last_epoch = 0`), so the
    optimizer starts with the schedule's first learning rate. (`_LRScheduler`, the old
    name, is a subclass kept for code that subclasses it, as in PyTorch.)
    """

    _get_lr_called_within_step = False  # get_lr() outside step() warns, as in PyTorch
    _is_initial = False  # True during the first step, which __init__ takes

    # --8<-- [start:base]
    def __init__(self, optimizer, last_epoch=-1):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(
                f"{type(self).__name__}: expected an Optimizer, but got {type(optimizer).__name__}"
            )
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"{type(self).__name__}: param 'initial_lr' is not specified in "
                        f"param_groups[{i}] when resuming with last_epoch={last_epoch}; load the "
                        "optimizer's state_dict first, or start with last_epoch=-1"
                    )
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        _note_optimizer_steps(optimizer)
        self._initial_step()

    def _initial_step(self):
        """Take the first step (to last_epoch = 0, or one past a resumed count)."""
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def get_lr(self):
        """The learning rate of each param group at step `self.last_epoch`."""
        raise NotImplementedError(f"{type(self).__name__} must implement get_lr()")

    def step(self, epoch=None):
        """Advance one step and set every group's learning rate for it. (`epoch`, which
        PyTorch deprecates, jumps to that count instead, with the closed form.)"""
        if self._step_count == 1:  # the first step after __init__'s own
            _warn_if_optimizer_has_not_stepped(self.optimizer)
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch=None):
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                lrs = self.get_lr()
            else:
                self.last_epoch = epoch
                closed_form = getattr(self, "_get_closed_form_lr", None)
                lrs = closed_form() if closed_form is not None else self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, lrs):
            group["lr"] = lr
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    # --8<-- [end:base]

    def get_last_lr(self):
        """The learning rates that the last `step()` set, one per param group."""
        return list(self._last_lr)

    def state_dict(self):
        """Everything but the optimizer (which saves itself): the step count, the base
        learning rates and the schedule's settings."""
        return {key: value for key, value in self.__dict__.items() if key != "optimizer"}

    def load_state_dict(self, state_dict):
        """Restore what `state_dict` returned (make the scheduler first, then load)."""
        self.__dict__.update(state_dict)

    def _current_lrs(self):
        return [group["lr"] for group in self.optimizer.param_groups]

    def _warn_outside_step(self):
        """An update-form get_lr() called by hand computes the *next* step's rates."""
        if not self._get_lr_called_within_step:
            warnings.warn(
                "To get the last learning rate computed by the scheduler, please use "
                "`get_last_lr()`.",
                UserWarning,
                stacklevel=3,
            )


class _LRScheduler(LRScheduler):
    """The old name of `LRScheduler`, kept (as in PyTorch) for code that subclasses it."""


def _note_optimizer_steps(optimizer):
    """Wrap `optimizer.step` so that it records that it ran (`optimizer._opt_called`):
    the scheduler's first step can then tell whether it was called too early."""
    if hasattr(optimizer.step, "_wrapped_by_lr_sched"):
        return
    step = optimizer.step.__func__
    # a strong reference would be a cycle through its own __dict__
    optimizer_ref = weakref.ref(optimizer)

    @functools.wraps(step)
    def wrapper(*args, **kwargs):
        opt = optimizer_ref()
        opt._opt_called = True
        return step(opt, *args, **kwargs)

    wrapper._wrapped_by_lr_sched = True
    optimizer.step = wrapper


def _warn_if_optimizer_has_not_stepped(optimizer):
    # Since PyTorch 1.1 the first learning rate is used by optimizer.step() before the
    # scheduler's first step; stepping the scheduler first skips it.
    if not hasattr(optimizer.step, "_wrapped_by_lr_sched"):
        warnings.warn(
            "Seems like `optimizer.step()` has been overridden after learning rate scheduler "
            "initialization. Please, make sure to call `optimizer.step()` before "
            "`lr_scheduler.step()`.",
            UserWarning,
            stacklevel=3,
        )
    elif not getattr(optimizer, "_opt_called", False):
        warnings.warn(
            "Detected call of `lr_scheduler.step()` before `optimizer.step()`. "
            "In PyTorch 1.1.0 and later, you should call them in the opposite order: "
            "`optimizer.step()` before `lr_scheduler.step()`.  Failure to do this "
            "will result in PyTorch skipping the first value of the learning rate schedule.",
            UserWarning,
            stacklevel=3,
        )


def _one_per_group(name, optimizer, value):
    """A list with one value per param group, from one value or from a list."""
    if isinstance(value, (list, tuple)):
        if len(value) != len(optimizer.param_groups):
            raise ValueError(
                f"{name} must have the same length as optimizer.param_groups: "
                f"{name} has {len(value)} values, param_groups has {len(optimizer.param_groups)}"
            )
        return list(value)
    return [value] * len(optimizer.param_groups)


def _check_positive_int(scheduler, name, value):
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"{scheduler}: {name} must be a positive integer, but got {value!r}")


def _saved_attributes(fn):
    """What a state_dict keeps of a function the user gave: the attributes of a callable
    object, or None for a plain function (code, which the user re-creates)."""
    if fn is None or isinstance(fn, types.FunctionType) or not hasattr(fn, "__dict__"):
        return None
    return dict(fn.__dict__)
