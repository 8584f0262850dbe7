"""Learning-rate schedules: change `group['lr']` of an optimizer as training goes on.

A scheduler counts steps in `last_epoch` (the name is PyTorch's; it counts whatever you
call `scheduler.step()` once per: an epoch, or a batch). Each `step()` advances the count
and writes the learning rate for the new count into every param group. The usual loop is

    for batch in data:
        loss = ...; loss.backward()
        optimizer.step(); optimizer.zero_grad()
        scheduler.step()              # after optimizer.step()

Every schedule here is a closed form: lr = f(base_lr, last_epoch), where `base_lr` is
the group's learning rate when the scheduler was made (saved as `group['initial_lr']`).
PyTorch computes most of them recursively from the current `group['lr']` instead, which
gives the same numbers (the tests check it) as long as nothing else changes the learning
rate in between. The difference shows only when two schedulers drive one optimizer at
once: PyTorch's would multiply, these overwrite each other.
"""

import math
import types
from bisect import bisect_right

from minigrad.optim.optimizer import Optimizer


class LRScheduler:
    """Base class: a subclass implements `get_lr()`, the learning rate of each param
    group at step `self.last_epoch`, from `self.base_lrs`.

    Making a scheduler already takes its first step (to `last_epoch = 0`), so the
    optimizer starts with the schedule's first learning rate.
    """

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
        self._step_count = 0
        self.step()

    def get_lr(self):
        """The learning rate of each param group at step `self.last_epoch`."""
        raise NotImplementedError(f"{type(self).__name__} must implement get_lr()")

    def step(self):
        """Advance one step and set every group's learning rate for it."""
        self._step_count += 1
        self.last_epoch += 1
        for group, lr in zip(self.optimizer.param_groups, self.get_lr()):
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
        self.__dict__.update(state_dict)


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


class LambdaLR(LRScheduler):
    """lr = base_lr · lr_lambda(last_epoch); `lr_lambda` is a function, or a list of
    functions, one per param group."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        if isinstance(lr_lambda, (list, tuple)):
            if len(lr_lambda) != len(optimizer.param_groups):
                raise ValueError(
                    f"LambdaLR: expected {len(optimizer.param_groups)} lr_lambdas (one per param group), "
                    f"but got {len(lr_lambda)}"
                )
            self.lr_lambdas = list(lr_lambda)
        else:
            self.lr_lambdas = [lr_lambda] * len(optimizer.param_groups)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        return [base_lr * lmbda(self.last_epoch) for lmbda, base_lr in zip(self.lr_lambdas, self.base_lrs)]

    def state_dict(self):
        # Functions cannot be saved as data: as PyTorch, keep only the attributes of
        # callable objects, and None for plain functions (re-create those in code).
        state = {key: value for key, value in self.__dict__.items() if key not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [
            None if isinstance(fn, types.FunctionType) else dict(fn.__dict__) for fn in self.lr_lambdas
        ]
        return state

    def load_state_dict(self, state_dict):
        state_dict = dict(state_dict)
        lr_lambdas = state_dict.pop("lr_lambdas")
        self.__dict__.update(state_dict)
        for fn, saved in zip(self.lr_lambdas, lr_lambdas):
            if saved is not None:
                fn.__dict__.update(saved)


# --8<-- [start:step_schedules]
class StepLR(LRScheduler):
    """Multiply the learning rate by `gamma` every `step_size` steps:
    lr = base_lr · gamma^⌊last_epoch / step_size⌋."""

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        if not (isinstance(step_size, int) and step_size > 0):
            raise ValueError(f"StepLR: step_size must be a positive integer, but got {step_size!r}")
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        return [base_lr * self.gamma ** (self.last_epoch // self.step_size) for base_lr in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiply the learning rate by `gamma` at each milestone:
    lr = base_lr · gamma^(number of milestones <= last_epoch)."""

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones = sorted(milestones)  # a milestone given twice counts twice, as in PyTorch
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        passed = bisect_right(self.milestones, self.last_epoch)
        return [base_lr * self.gamma**passed for base_lr in self.base_lrs]


class ExponentialLR(LRScheduler):
    """Multiply the learning rate by `gamma` every step: lr = base_lr · gamma^last_epoch."""

    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        return [base_lr * self.gamma**self.last_epoch for base_lr in self.base_lrs]


# --8<-- [end:step_schedules]


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
        cosine = (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2  # from 1 down to 0
        return [self.eta_min + (base_lr - self.eta_min) * cosine for base_lr in self.base_lrs]


# --8<-- [end:cosine]


class LinearLR(LRScheduler):
    """Scale the learning rate by a factor that moves in a straight line from
    `start_factor` to `end_factor` over `total_iters` steps, then stays:

        lr = base_lr · (start_factor + (end_factor − start_factor) · min(last_epoch, total_iters) / total_iters)

    With start_factor < 1 = end_factor this is a linear warm-up.
    """

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5, last_epoch=-1):
        if not 0 < start_factor <= 1:
            raise ValueError(f"LinearLR: start_factor expected to be in (0, 1], but got {start_factor}")
        if not 0 <= end_factor <= 1:
            raise ValueError(f"LinearLR: end_factor expected to be in [0, 1], but got {end_factor}")
        if not (isinstance(total_iters, int) and total_iters > 0):
            raise ValueError(f"LinearLR: total_iters must be a positive integer, but got {total_iters!r}")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        progress = min(self.last_epoch, self.total_iters) / self.total_iters
        factor = self.start_factor + (self.end_factor - self.start_factor) * progress
        return [base_lr * factor for base_lr in self.base_lrs]


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
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ValueError(
                    f"OneCycleLR: cycle_momentum=True needs an optimizer with momentum or betas, "
                    f"but {type(optimizer).__name__} has neither (pass cycle_momentum=False)"
                )
            self.use_beta1 = "betas" in optimizer.defaults
            if last_epoch == -1:
                highs = _one_per_group("max_momentum", optimizer, max_momentum)
                lows = _one_per_group("base_momentum", optimizer, base_momentum)
                for group, high, low in zip(optimizer.param_groups, highs, lows):
                    group["max_momentum"] = high
                    group["base_momentum"] = low
                    self._set_momentum(group, high)
        super().__init__(optimizer, last_epoch)

    def _set_momentum(self, group, value):
        if self.use_beta1:
            group["betas"] = (value, *group["betas"][1:])
        else:
            group["momentum"] = value

    def _anneal(self, start, end, pct):
        """From `start` (pct = 0) to `end` (pct = 1)."""
        if self.anneal_strategy == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self):
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
                        self._set_momentum(group, self._anneal(group[momentum_from], group[momentum_to], pct))
                    break
                phase_start = phase_end
        return lrs


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
