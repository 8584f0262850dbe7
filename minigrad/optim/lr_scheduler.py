"""Learning-rate schedules: change `group['lr']` of an optimizer as training goes on.

A scheduler counts steps in `last_epoch` (the name is PyTorch's; it counts whatever you
call `scheduler.step()` once per: an epoch, or a batch). Each `step()` advances the count
and writes the learning rate for the new count into every param group. The usual loop is

    for batch in data:
        loss = ...; loss.backward()
        optimizer.step(); optimizer.zero_grad()
        scheduler.step()              # after optimizer.step()

Each schedule's docstring gives its closed form, lr = f(base_lr, last_epoch), where
`base_lr` is the group's learning rate when the scheduler was made (saved as
`group['initial_lr']`). `step()` computes most of them as PyTorch does, though: as an
*update* of the current `group['lr']`, multiplying it by f(t) / f(t − 1), rather than
by overwriting it with f(t). When one scheduler drives the optimizer alone the two are
the same numbers (the tests check both against torch); the update is what lets two
schedulers drive one optimizer at once, each multiplying in its own factor
(`ChainedScheduler`), and lets a change you make to `group['lr']` yourself carry on.
`step(epoch)` (deprecated in PyTorch, still accepted) jumps to a count and uses the
closed form, `_get_closed_form_lr`.

The schedulers that combine others (`SequentialLR`, `ChainedScheduler`) and the one that
watches a metric (`ReduceLROnPlateau`) are at the end of the file.
"""

import functools
import math
import types
import warnings
import weakref
from bisect import bisect_right

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
            raise TypeError(f"{type(self).__name__}: expected an Optimizer, but got {type(optimizer).__name__}")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"{type(self).__name__}: param 'initial_lr' is not specified in param_groups[{i}] when "
                        f"resuming with last_epoch={last_epoch}; load the optimizer's state_dict first, "
                        "or start with last_epoch=-1"
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
                "To get the last learning rate computed by the scheduler, please use `get_last_lr()`.",
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
    optimizer_ref = weakref.ref(optimizer)  # a strong reference would be a cycle through its own __dict__

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


# ---- schedules given by a function ------------------------------------------------------------
class _FunctionsPerGroup:
    """What LambdaLR and MultiplicativeLR share: one function per param group, and a
    state_dict that keeps what can be saved of them."""

    def _set_lambdas(self, optimizer, lr_lambda):
        name = type(self).__name__
        if isinstance(lr_lambda, (list, tuple)):
            if len(lr_lambda) != len(optimizer.param_groups):
                raise ValueError(
                    f"{name}: expected {len(optimizer.param_groups)} lr_lambdas (one per param group), "
                    f"but got {len(lr_lambda)}"
                )
            self.lr_lambdas = list(lr_lambda)
        else:
            self.lr_lambdas = [lr_lambda] * len(optimizer.param_groups)
        for fn in self.lr_lambdas:
            if not callable(fn):
                raise TypeError(f"{name}: lr_lambda should be a function, but got {type(fn).__name__}")

    def state_dict(self):
        """As the base class's, with each function replaced by the attributes of a callable
        object, or None for a plain function (re-create those in code)."""
        state = {key: value for key, value in self.__dict__.items() if key not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [_saved_attributes(fn) for fn in self.lr_lambdas]
        return state

    def load_state_dict(self, state_dict):
        """Restore a `state_dict()`; callable objects get their saved attributes back."""
        state_dict = dict(state_dict)
        lr_lambdas = state_dict.pop("lr_lambdas")
        self.__dict__.update(state_dict)
        for fn, saved in zip(self.lr_lambdas, lr_lambdas):
            if saved is not None:
                fn.__dict__.update(saved)


class LambdaLR(_FunctionsPerGroup, LRScheduler):
    """lr = base_lr · lr_lambda(last_epoch); `lr_lambda` is a function, or a list of
    functions, one per param group. (A closed form: it does not chain.)"""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self._set_lambdas(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        return [base_lr * lmbda(self.last_epoch) for lmbda, base_lr in zip(self.lr_lambdas, self.base_lrs)]


class MultiplicativeLR(_FunctionsPerGroup, LRScheduler):
    """Multiply the learning rate by lr_lambda(t) at every step t ≥ 1, so that after
    t steps

        lr = base_lr · lr_lambda(1) · lr_lambda(2) · ... · lr_lambda(t)

    (LambdaLR, in contrast, gives base_lr · lr_lambda(t)).
    """

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self._set_lambdas(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        if self._is_initial:
            return self._current_lrs()
        groups = self.optimizer.param_groups
        return [group["lr"] * lmbda(self.last_epoch) for lmbda, group in zip(self.lr_lambdas, groups)]


# ---- step and factor schedules --------------------------------------------------------------------
# --8<-- [start:step_schedules]
class StepLR(LRScheduler):
    """Multiply the learning rate by `gamma` every `step_size` steps:
    lr = base_lr · gamma^⌊last_epoch / step_size⌋."""

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        _check_positive_int("StepLR", "step_size", step_size)
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return self._current_lrs()
        return [lr * self.gamma for lr in self._current_lrs()]

    def _get_closed_form_lr(self):
        return [base_lr * self.gamma ** (self.last_epoch // self.step_size) for base_lr in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiply the learning rate by `gamma` at each milestone:
    lr = base_lr · gamma^(number of milestones <= last_epoch)."""

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones = sorted(milestones)  # a milestone given twice counts twice, as in PyTorch
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        times = self.milestones.count(self.last_epoch)
        if times == 0:
            return self._current_lrs()
        return [lr * self.gamma**times for lr in self._current_lrs()]

    def _get_closed_form_lr(self):
        passed = bisect_right(self.milestones, self.last_epoch)
        return [base_lr * self.gamma**passed for base_lr in self.base_lrs]


class ExponentialLR(LRScheduler):
    """Multiply the learning rate by `gamma` every step: lr = base_lr · gamma^last_epoch."""

    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        if self._is_initial:  # a resumed scheduler must not move one step ahead of itself
            return self._current_lrs()
        return [lr * self.gamma for lr in self._current_lrs()]

    def _get_closed_form_lr(self):
        return [base_lr * self.gamma**self.last_epoch for base_lr in self.base_lrs]


# --8<-- [end:step_schedules]


class ConstantLR(LRScheduler):
    """Scale the learning rate by `factor` for the first `total_iters` steps, then undo it:

        lr = base_lr · factor   for last_epoch < total_iters,   base_lr afterwards

    (with start_factor = end_factor = factor this would be a LinearLR that jumps back).
    """

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1):
        if not 0 <= factor <= 1:
            raise ValueError(f"ConstantLR: constant multiplicative factor expected to be between 0 and 1, got {factor}")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        if self.last_epoch == 0:
            return [lr * self.factor for lr in self._current_lrs()]
        if self.last_epoch != self.total_iters:
            return self._current_lrs()
        return [lr * (1.0 / self.factor) for lr in self._current_lrs()]

    def _get_closed_form_lr(self):
        factor = 1.0 if self.last_epoch >= self.total_iters else self.factor
        return [base_lr * factor for base_lr in self.base_lrs]


class LinearLR(LRScheduler):
    """Scale the learning rate by a factor that moves in a straight line from
    `start_factor` to `end_factor` over `total_iters` steps, then stays:

        f(t) = start_factor + (end_factor − start_factor) · min(t, total_iters) / total_iters
        lr = base_lr · f(last_epoch)

    With start_factor < 1 = end_factor this is a linear warm-up.
    """

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5, last_epoch=-1):
        if not 0 < start_factor <= 1:
            raise ValueError(f"LinearLR: start_factor expected to be in (0, 1], but got {start_factor}")
        if not 0 <= end_factor <= 1:
            raise ValueError(f"LinearLR: end_factor expected to be in [0, 1], but got {end_factor}")
        _check_positive_int("LinearLR", "total_iters", total_iters)
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        if self.last_epoch == 0:
            return [lr * self.start_factor for lr in self._current_lrs()]
        if self._is_initial or self.last_epoch > self.total_iters:
            return self._current_lrs()
        # f(t) / f(t − 1), with f written out so that it is one division
        slope = self.end_factor - self.start_factor
        ratio = 1.0 + slope / (self.total_iters * self.start_factor + (self.last_epoch - 1) * slope)
        return [lr * ratio for lr in self._current_lrs()]

    def _get_closed_form_lr(self):
        progress = min(self.last_epoch, self.total_iters) / self.total_iters
        factor = self.start_factor + (self.end_factor - self.start_factor) * progress
        return [base_lr * factor for base_lr in self.base_lrs]


class PolynomialLR(LRScheduler):
    """Decay the learning rate to 0 along a polynomial over `total_iters` steps:

        lr = base_lr · (1 − min(last_epoch, total_iters) / total_iters)^power

    `power=1` is a straight line down; it stays at 0 afterwards.
    """

    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1):
        _check_positive_int("PolynomialLR", "total_iters", total_iters)
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        if self._is_initial or self.last_epoch > self.total_iters:
            return self._current_lrs()
        t, T = self.last_epoch, self.total_iters
        decay = ((1.0 - t / T) / (1.0 - (t - 1) / T)) ** self.power  # f(t) / f(t − 1)
        return [lr * decay for lr in self._current_lrs()]

    def _get_closed_form_lr(self):
        remaining = 1.0 - min(self.total_iters, self.last_epoch) / self.total_iters
        return [base_lr * remaining**self.power for base_lr in self.base_lrs]


# ---- cosines ------------------------------------------------------------------------------------------
# --8<-- [start:cosine]
class CosineAnnealingLR(LRScheduler):
    """Half a cosine from base_lr down to eta_min over T_max steps (SGDR, Loshchilov &
    Hutter 2017, without the restarts):

        lr = eta_min + (base_lr − eta_min) · (1 + cos(π · last_epoch / T_max)) / 2

    Past T_max the cosine carries on, back up towards base_lr, as PyTorch's does.
    """

    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):
        if not T_max > 0:
            raise ValueError(f"CosineAnnealingLR: T_max must be positive, but got {T_max}")
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        t, T, eta_min = self.last_epoch, self.T_max, self.eta_min
        if self._is_initial:
            return self._current_lrs()
        if self._step_count == 1 and t > 0:  # resumed at t: start from the closed form
            return self._get_closed_form_lr()
        if (t - 1 - T) % (2 * T) == 0:
            # the step away from the bottom of the cosine, where the ratio below is 0 / 0
            rise = (1 - math.cos(math.pi / T)) / 2
            return [lr + (base_lr - eta_min) * rise for lr, base_lr in zip(self._current_lrs(), self.base_lrs)]
        # (lr − eta_min) shrinks by the ratio of two consecutive cosine factors
        ratio = (1 + math.cos(math.pi * t / T)) / (1 + math.cos(math.pi * (t - 1) / T))
        return [eta_min + (lr - eta_min) * ratio for lr in self._current_lrs()]

    def _get_closed_form_lr(self):
        cosine = (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2  # from 1 down to 0
        return [self.eta_min + (base_lr - self.eta_min) * cosine for base_lr in self.base_lrs]


# --8<-- [end:cosine]


class CosineAnnealingWarmRestarts(LRScheduler):
    """SGDR (Loshchilov & Hutter 2017): half a cosine from base_lr down to eta_min, then
    a jump back to base_lr (a warm restart) and a new cosine, T_mult times longer:

        lr = eta_min + (base_lr − eta_min) · (1 + cos(π · T_cur / T_i)) / 2

    where T_cur counts the steps since the last restart and T_i is the current period
    (T_0, then T_0·T_mult, T_0·T_mult², ...). `step(epoch)` takes a fractional epoch, so
    the rate can move every batch: `scheduler.step(epoch + i / batches_per_epoch)`.
    """

    def __init__(self, optimizer, T_0, T_mult=1, eta_min=0.0, last_epoch=-1):
        if isinstance(T_0, bool) or not isinstance(T_0, int) or T_0 <= 0:
            raise ValueError(f"CosineAnnealingWarmRestarts: expected positive integer T_0, but got {T_0!r}")
        if isinstance(T_mult, bool) or not isinstance(T_mult, int) or T_mult < 1:
            raise ValueError(f"CosineAnnealingWarmRestarts: expected integer T_mult >= 1, but got {T_mult!r}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(
                f"CosineAnnealingWarmRestarts: expected float or int eta_min, but got {eta_min!r} "
                f"of type {type(eta_min).__name__}"
            )
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        cosine = (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
        return [self.eta_min + (base_lr - self.eta_min) * cosine for base_lr in self.base_lrs]

    def step(self, epoch=None):
        """One step on (`epoch=None`), or to `epoch`, which may be fractional."""
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:  # restart
                self.T_cur = self.T_cur % self.T_i
                self.T_i = self.T_i * self.T_mult
        else:
            if epoch < 0:
                raise ValueError(f"CosineAnnealingWarmRestarts: expected non-negative epoch, but got {epoch}")
            if epoch < self.T_0:
                self.T_i, self.T_cur = self.T_0, epoch
            elif self.T_mult == 1:
                self.T_cur = epoch % self.T_0
            else:
                # the periods T_0·(1 + T_mult + ... + T_mult^(n−1)) = T_0·(T_mult^n − 1)/(T_mult − 1)
                # add up to the start of period n: solve for the n that holds `epoch`
                n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                self.T_cur = epoch - self.T_0 * (self.T_mult**n - 1) / (self.T_mult - 1)
                self.T_i = self.T_0 * self.T_mult**n
        self.last_epoch = math.floor(epoch)
        self._get_lr_called_within_step = True
        try:
            lrs = self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, lrs):
            group["lr"] = lr
        self._last_lr = self._current_lrs()


# ---- cycles ---------------------------------------------------------------------------------------------
def _set_momentum(group, use_beta1, value):
    """Set SGD's `momentum`, or Adam's β1, of one param group."""
    if use_beta1:
        group["betas"] = (value, *group["betas"][1:])
    else:
        group["momentum"] = value


def _check_momentum_support(name, optimizer):
    if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
        raise ValueError(
            f"{name}: cycle_momentum=True needs an optimizer with momentum or betas, "
            f"but {type(optimizer).__name__} has neither (pass cycle_momentum=False)"
        )
    return "betas" in optimizer.defaults


class CyclicLR(LRScheduler):
    """Cyclical learning rates (Smith 2017): the rate climbs from base_lr towards max_lr
    for `step_size_up` steps, falls back for `step_size_down` steps, and repeats:

        cycle = ⌊1 + t / (up + down)⌋,   x = 1 + t / (up + down) − cycle      (in [0, 1))
        h = x / r  if x ≤ r,  else  (x − 1) / (r − 1),   where r = up / (up + down)
        lr = base_lr + (max_lr − base_lr) · h · scale_fn(cycle, or t)

    h is the triangle, 0 → 1 → 0. `mode` picks scale_fn: 'triangular' (1), 'triangular2'
    (1 / 2^(cycle − 1), halving each cycle) or 'exp_range' (gamma^t); a `scale_fn` of your
    own replaces it, evaluated at the cycle or at t per `scale_mode`. With
    `cycle_momentum=True` the momentum (SGD's, or Adam's β1) moves the other way:
    momentum = max_momentum − (max_momentum − base_momentum) · h · scale_fn(...).
    Call `step()` once per batch.
    """

    def __init__(
        self,
        optimizer,
        base_lr,
        max_lr,
        step_size_up=2000,
        step_size_down=None,
        mode="triangular",
        gamma=1.0,
        scale_fn=None,
        scale_mode="cycle",
        cycle_momentum=True,
        base_momentum=0.8,
        max_momentum=0.9,
        last_epoch=-1,
    ):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"CyclicLR: expected an Optimizer, but got {type(optimizer).__name__}")
        base_lrs = _one_per_group("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups):
                group["lr"] = lr
        self.max_lrs = _one_per_group("max_lr", optimizer, max_lr)
        step_size_up = float(step_size_up)
        step_size_down = float(step_size_down) if step_size_down is not None else step_size_up
        self.total_size = step_size_up + step_size_down
        self.step_ratio = step_size_up / self.total_size
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ValueError(
                f"CyclicLR: mode must be 'triangular', 'triangular2' or 'exp_range' (or give a scale_fn), "
                f"but got mode={mode!r} and scale_fn=None"
            )
        self.mode = mode
        self.gamma = gamma
        self._scale_fn_custom = scale_fn
        # the built-in policies fix what scale_fn is evaluated at; a custom one follows scale_mode
        self.scale_mode = scale_mode if scale_fn is not None else _BUILT_IN_SCALE_MODES.get(mode, scale_mode)

        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.use_beta1 = _check_momentum_support("CyclicLR", optimizer)
            self.base_momentums = _one_per_group("base_momentum", optimizer, base_momentum)
            self.max_momentums = _one_per_group("max_momentum", optimizer, max_momentum)
            if last_epoch == -1:
                for high, low, group in zip(self.max_momentums, self.base_momentums, optimizer.param_groups):
                    _set_momentum(group, self.use_beta1, high)
                    group["max_momentum"] = high
                    group["base_momentum"] = low
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs  # after the first step, as in PyTorch (that step used 'initial_lr')

    def scale_fn(self, x):
        """The amplitude's scale at x (a cycle number, or a step count)."""
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        if self.mode == "triangular":
            return 1.0
        if self.mode == "triangular2":
            return 1 / (2.0 ** (x - 1))
        return self.gamma**x  # exp_range

    def get_lr(self):
        self._warn_outside_step()
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        if x <= self.step_ratio:
            height = x / self.step_ratio
        else:
            height = (x - 1) / (self.step_ratio - 1)
        scale = self.scale_fn(cycle if self.scale_mode == "cycle" else self.last_epoch)
        lrs = [base_lr + (max_lr - base_lr) * height * scale for base_lr, max_lr in zip(self.base_lrs, self.max_lrs)]
        if self.cycle_momentum:
            for group, low, high in zip(self.optimizer.param_groups, self.base_momentums, self.max_momentums):
                _set_momentum(group, self.use_beta1, high - (high - low) * height * scale)
        return lrs

    def state_dict(self):
        """As the base class's, with a custom scale_fn kept only as the attributes of a
        callable object (None for a plain function)."""
        state = super().state_dict()
        fn = state.pop("_scale_fn_custom")
        state["_scale_fn_custom"] = _saved_attributes(fn)
        return state

    def load_state_dict(self, state_dict):
        """Restore a `state_dict()`; a custom scale_fn object gets its saved attributes back."""
        state_dict = dict(state_dict)
        saved = state_dict.pop("_scale_fn_custom")
        super().load_state_dict(state_dict)
        if saved is not None:
            self._scale_fn_custom.__dict__.update(saved)


_BUILT_IN_SCALE_MODES = {"triangular": "cycle", "triangular2": "cycle", "exp_range": "iterations"}


class OneCycleLR(LRScheduler):
    """The 1cycle policy (Smith & Topin 2018): over `total_steps` steps (or `epochs` ×
    `steps_per_epoch`), the learning rate

    1. rises from max_lr / div_factor to max_lr, for the first pct_start of the steps;
    2. falls from max_lr to max_lr / (div_factor · final_div_factor), for the rest.

    With `three_phase=True` it falls back to max_lr / div_factor in a second phase as
    long as the first, and a third phase then falls to the minimum. Each phase anneals
    along half a cosine (`anneal_strategy='cos'`) or a straight line ('linear').

    With `cycle_momentum=True` the momentum (SGD's `momentum`, or beta1 of Adam's
    `betas`) moves the other way, between max_momentum and base_momentum: while the
    learning rate is high, momentum is low. Call `step()` once per batch; stepping more
    than `total_steps` times is an error.
    """

    def __init__(
        self,
        optimizer,
        max_lr,
        total_steps=None,
        epochs=None,
        steps_per_epoch=None,
        pct_start=0.3,
        anneal_strategy="cos",
        cycle_momentum=True,
        base_momentum=0.85,
        max_momentum=0.95,
        div_factor=25.0,
        final_div_factor=1e4,
        three_phase=False,
        last_epoch=-1,
    ):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"OneCycleLR: expected an Optimizer, but got {type(optimizer).__name__}")
        if total_steps is not None:
            if not (isinstance(total_steps, int) and total_steps > 0):
                raise ValueError(f"OneCycleLR: expected positive integer total_steps, but got {total_steps!r}")
            self.total_steps = total_steps
        elif epochs is not None and steps_per_epoch is not None:
            for name, value in (("epochs", epochs), ("steps_per_epoch", steps_per_epoch)):
                if not (isinstance(value, int) and value > 0):
                    raise ValueError(f"OneCycleLR: expected positive integer {name}, but got {value!r}")
            self.total_steps = epochs * steps_per_epoch
        else:
            raise ValueError("OneCycleLR: you must define either total_steps OR (epochs AND steps_per_epoch)")
        if not 0 <= pct_start <= 1:
            raise ValueError(f"OneCycleLR: expected pct_start between 0 and 1, but got {pct_start}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"OneCycleLR: anneal_strategy must be 'cos' or 'linear', but got {anneal_strategy!r}")
        self.anneal_strategy = anneal_strategy

        # Each phase: the step at which it ends, and the group keys of the learning rate
        # and momentum it goes from and to.
        rise_end = float(pct_start * self.total_steps) - 1
        if three_phase:
            self.phases = [
                (rise_end, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                (float(2 * pct_start * self.total_steps) - 2, "max_lr", "initial_lr", "base_momentum", "max_momentum"),
                (self.total_steps - 1, "initial_lr", "min_lr", "max_momentum", "max_momentum"),
            ]
        else:
            self.phases = [
                (rise_end, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                (self.total_steps - 1, "max_lr", "min_lr", "base_momentum", "max_momentum"),
            ]

        if last_epoch == -1:
            for group, top in zip(optimizer.param_groups, _one_per_group("max_lr", optimizer, max_lr)):
                group["initial_lr"] = top / div_factor
                group["max_lr"] = top
                group["min_lr"] = group["initial_lr"] / final_div_factor

        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.use_beta1 = _check_momentum_support("OneCycleLR", optimizer)
            if last_epoch == -1:
                highs = _one_per_group("max_momentum", optimizer, max_momentum)
                lows = _one_per_group("base_momentum", optimizer, base_momentum)
                for group, high, low in zip(optimizer.param_groups, highs, lows):
                    group["max_momentum"] = high
                    group["base_momentum"] = low
                    _set_momentum(group, self.use_beta1, high)
        super().__init__(optimizer, last_epoch)

    def _anneal(self, start, end, pct):
        """From `start` (pct = 0) to `end` (pct = 1)."""
        if self.anneal_strategy == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self):
        self._warn_outside_step()
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(
                f"OneCycleLR: tried to step {step} times, but the specified number of total steps is {self.total_steps}"
            )
        lrs = []
        for group in self.optimizer.param_groups:
            phase_start = 0.0
            for i, (phase_end, lr_from, lr_to, momentum_from, momentum_to) in enumerate(self.phases):
                if step <= phase_end or i == len(self.phases) - 1:
                    pct = (step - phase_start) / (phase_end - phase_start)
                    lrs.append(self._anneal(group[lr_from], group[lr_to], pct))
                    if self.cycle_momentum:
                        momentum = self._anneal(group[momentum_from], group[momentum_to], pct)
                        _set_momentum(group, self.use_beta1, momentum)
                    break
                phase_start = phase_end
        return lrs


# ---- schedulers made of schedulers ------------------------------------------------------------------
def _check_schedulers(name, optimizer, schedulers):
    if len(schedulers) < 1:
        raise ValueError(f"{name} expects at least one scheduler, but got no scheduler")
    for i, scheduler in enumerate(schedulers):
        if not hasattr(scheduler, "optimizer"):
            raise TypeError(f"{name}: the scheduler at index {i} should have `optimizer` as its attribute")
        if isinstance(scheduler, ReduceLROnPlateau):
            raise ValueError(
                f"{name} does not support `ReduceLROnPlateau` scheduler as it requires additional kwargs to be "
                f"specified when calling `step`, but got one at index {i} in the given schedulers sequence"
            )
        if scheduler.optimizer is not optimizer:
            raise ValueError(
                f"{name} expects all schedulers to belong to the same optimizer, but got scheduler "
                f"{type(scheduler).__name__} at index {i} with another {type(scheduler.optimizer).__name__}"
            )


def _nested_state_dict(scheduler):
    state = {key: value for key, value in scheduler.__dict__.items() if key not in ("optimizer", "_schedulers")}
    state["_schedulers"] = [s.state_dict() for s in scheduler._schedulers]
    return state


def _load_nested_state_dict(scheduler, state_dict):
    state_dict = dict(state_dict)
    saved = state_dict.pop("_schedulers")
    scheduler.__dict__.update(state_dict)
    for s, state in zip(scheduler._schedulers, saved):
        s.load_state_dict(state)


class SequentialLR(LRScheduler):
    """One scheduler after another: `schedulers[i]` drives the learning rate from
    `milestones[i − 1]` up to `milestones[i]`. Each one starts from its own step 0 (its
    closed form at 0) when its turn comes, so

        SequentialLR(opt, [LinearLR(opt, 0.1, total_iters=5), CosineAnnealingLR(opt, T_max=95)], [5])

    is a five-step linear warm-up and then a cosine from the full rate. Make the
    schedulers over the same optimizer first; SequentialLR undoes the first step each
    of them took when it was made.
    """

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1):
        _check_schedulers("SequentialLR", optimizer, schedulers)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                "SequentialLR expects number of schedulers provided to be one more than the number of milestone "
                f"points, but got number of schedulers {len(schedulers)} and the number of milestones to be "
                f"equal to {len(milestones)}"
            )
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        for group in optimizer.param_groups:
            group["lr"] = group["initial_lr"]
        for scheduler in schedulers:
            _undo_first_step(scheduler)
        first = self._schedulers[bisect_right(milestones, 0)]
        first._initial_step()
        self._last_lr = first.get_last_lr()

    def step(self):
        """Step the scheduler whose turn it is; at a milestone, start the next one at 0."""
        self.last_epoch += 1
        i = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[i]
        if i > 0 and self._milestones[i - 1] == self.last_epoch:
            scheduler._update_lr(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()

    def state_dict(self):
        """The state of this scheduler and, under '_schedulers', of each one it runs."""
        return _nested_state_dict(self)

    def load_state_dict(self, state_dict):
        """Restore a `state_dict()`, the inner schedulers' states included."""
        _load_nested_state_dict(self, state_dict)


def _undo_first_step(scheduler):
    """Move a scheduler's count back by the step it took when it was made (recursing into
    schedulers made of schedulers)."""
    if hasattr(scheduler, "_schedulers"):
        for inner in scheduler._schedulers:
            _undo_first_step(inner)
    elif hasattr(scheduler, "last_epoch"):
        scheduler.last_epoch -= 1


class ChainedScheduler(LRScheduler):
    """Several schedulers at once: each `step()` steps every one of them, in order. The
    update-form schedules multiply their factors in, so

        ChainedScheduler([ConstantLR(opt, factor=0.1, total_iters=2), ExponentialLR(opt, gamma=0.9)])

    gives base_lr · 0.1 · 0.9^t for t < 2 and base_lr · 0.9^t afterwards.
    """

    def __init__(self, schedulers, optimizer=None):
        if len(schedulers) < 1:
            raise ValueError("ChainedScheduler expects at least one scheduler to be chained, but got no scheduler")
        optimizer = optimizer if optimizer is not None else schedulers[0].optimizer
        _check_schedulers("ChainedScheduler", optimizer, schedulers)
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = self._current_lrs()

    def step(self):
        """Step every scheduler, in order."""
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = self._current_lrs()

    def state_dict(self):
        """The state of this scheduler and, under '_schedulers', of each one it runs."""
        return _nested_state_dict(self)

    def load_state_dict(self, state_dict):
        """Restore a `state_dict()`, the inner schedulers' states included."""
        _load_nested_state_dict(self, state_dict)


# ---- a schedule that watches the loss ---------------------------------------------------------------
class ReduceLROnPlateau(LRScheduler):
    """Divide the learning rate when a metric stops improving: `step(metric)` once per
    epoch, with the validation loss (mode='min') or accuracy (mode='max').

    A metric improves on the best so far if it beats it by more than `threshold`:

        mode='min', threshold_mode='rel':  metric < best · (1 − threshold)
        mode='min', threshold_mode='abs':  metric < best − threshold
        mode='max': metric > best · (1 + threshold), or metric > best + threshold

    After more than `patience` steps in a row without improvement, every group's rate
    becomes max(lr · factor, min_lr) (unless that changes it by eps or less), and the
    next `cooldown` steps do not count. `min_lr` is one value or one per group.
    """

    def __init__(
        self,
        optimizer,
        mode="min",
        factor=0.1,
        patience=10,
        threshold=1e-4,
        threshold_mode="rel",
        cooldown=0,
        min_lr=0,
        eps=1e-8,
    ):
        if factor >= 1.0:
            raise ValueError(f"ReduceLROnPlateau: factor should be < 1.0, but got {factor}")
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"ReduceLROnPlateau: expected an Optimizer, but got {type(optimizer).__name__}")
        self.factor = factor
        self.optimizer = optimizer
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != len(optimizer.param_groups):
                raise ValueError(
                    f"ReduceLROnPlateau: expected {len(optimizer.param_groups)} min_lrs (one per param group), "
                    f"got {len(min_lr)}"
                )
            self.default_min_lr = None
            self.min_lrs = list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * len(optimizer.param_groups)
        self.patience = patience
        self.cooldown = cooldown
        self.eps = eps
        self.last_epoch = 0
        self._last_lr = self._current_lrs()
        self._init_is_better(mode, threshold, threshold_mode)
        self._reset()

    def _init_is_better(self, mode, threshold, threshold_mode):
        if mode not in ("min", "max"):
            raise ValueError(f"ReduceLROnPlateau: mode {mode!r} is unknown (expected 'min' or 'max')")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError(
                f"ReduceLROnPlateau: threshold mode {threshold_mode!r} is unknown (expected 'rel' or 'abs')"
            )
        self.mode_worse = math.inf if mode == "min" else -math.inf  # what any first metric improves on
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode

    def _reset(self):
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    @property
    def in_cooldown(self):
        """True for the `cooldown` steps after a reduction."""
        return self.cooldown_counter > 0

    def _is_better(self, a, best):
        """Whether metric `a` improves on `best` by more than the threshold."""
        if self.mode == "min" and self.threshold_mode == "rel":
            return a < best * (1.0 - self.threshold)
        if self.mode == "min":
            return a < best - self.threshold
        if self.threshold_mode == "rel":
            return a > best * (self.threshold + 1.0)
        return a > best + self.threshold

    def step(self, metrics, epoch=None):
        """Record this epoch's metric (a number or a one-element tensor), and reduce the
        learning rates if it has not improved for more than `patience` epochs."""
        current = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self.last_epoch = epoch

        if self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0  # bad epochs in the cooldown do not count
        if self.num_bad_epochs > self.patience:
            self._reduce_lr()
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = self._current_lrs()

    def _reduce_lr(self):
        groups = self.optimizer.param_groups
        if len(groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError(
                    f"ReduceLROnPlateau: the optimizer has {len(groups)} param groups, but min_lr was given for "
                    f"{len(self.min_lrs)} (a param group was added after the scheduler was made); set "
                    "`scheduler.min_lrs` to one value per group"
                )
            self.min_lrs = [self.default_min_lr] * len(groups)
        for group, min_lr in zip(groups, self.min_lrs):
            old_lr = float(group["lr"])
            new_lr = max(old_lr * self.factor, min_lr)
            if old_lr - new_lr > self.eps:  # a change smaller than eps is not worth making
                group["lr"] = new_lr

    def load_state_dict(self, state_dict):
        """Restore a `state_dict()` (and re-check mode and threshold_mode)."""
        self.__dict__.update(state_dict)
        self._init_is_better(self.mode, self.threshold, self.threshold_mode)


# ---- the warm-up + cosine helper ---------------------------------------------------------------------
# --8<-- [start:warmup_cosine]
def get_cosine_schedule_with_warmup(optimizer, num_warmup_steps, num_training_steps, min_lr_ratio=0.0, last_epoch=-1):
    """A linear warm-up followed by a cosine decay, the usual schedule for transformers.

    The learning rate is base_lr times

        t / num_warmup_steps                                  for t < num_warmup_steps
        r + (1 − r) · (1 + cos(π · p)) / 2                    afterwards, where
        p = (t − num_warmup_steps) / (num_training_steps − num_warmup_steps)   (capped at 1)

    and r = min_lr_ratio: from 0 up to base_lr during the warm-up, then half a cosine
    down to min_lr_ratio · base_lr at num_training_steps, where it stays. The warm-up
    exists because Adam's second-moment estimate is poor in the first steps, and large
    steps taken on it can throw a freshly initialised network into a bad region.
    Returns a LambdaLR.
    """
    if not 0 <= num_warmup_steps <= num_training_steps:
        raise ValueError(
            "get_cosine_schedule_with_warmup: expected 0 <= num_warmup_steps <= num_training_steps, "
            f"but got num_warmup_steps={num_warmup_steps}, num_training_steps={num_training_steps}"
        )
    if not 0 <= min_lr_ratio <= 1:
        raise ValueError(f"get_cosine_schedule_with_warmup: min_lr_ratio must be in [0, 1], but got {min_lr_ratio}")

    def warmup_then_cosine(t):
        if t < num_warmup_steps:
            return t / num_warmup_steps
        progress = min(1.0, (t - num_warmup_steps) / max(1, num_training_steps - num_warmup_steps))
        return min_lr_ratio + (1 - min_lr_ratio) * (1 + math.cos(math.pi * progress)) / 2

    return LambdaLR(optimizer, warmup_then_cosine, last_epoch)


# --8<-- [end:warmup_cosine]
