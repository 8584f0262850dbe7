"""The schedules that are a formula of the step count: given by your own function
(`LambdaLR`, `MultiplicativeLR`), by steps and factors (`StepLR`, `MultiStepLR`,
`ExponentialLR`, `ConstantLR`, `LinearLR`, `PolynomialLR`), by half a cosine
(`CosineAnnealingLR`), and the warm-up + cosine of transformers
(`get_cosine_schedule_with_warmup`). Each docstring gives the closed form; `get_lr`
computes it as an update of the current rate, which chains (see lr_scheduler/__init__.py).
"""

import math
from bisect import bisect_right

from minigrad.optim.lr_scheduler.base import LRScheduler, _check_positive_int, _saved_attributes


# ---- schedules given by a function ------------------------------------------------------------
class _FunctionsPerGroup:
    """What LambdaLR and MultiplicativeLR share: one function per param group, and a
    state_dict that keeps what can be saved of them."""

    def _set_lambdas(self, optimizer, lr_lambda):
        name = type(self).__name__
        if isinstance(lr_lambda, (list, tuple)):
            if len(lr_lambda) != len(optimizer.param_groups):
                raise ValueError(
                    f"{name}: expected {len(optimizer.param_groups)} lr_lambdas (one per param "
                    f"group), but got {len(lr_lambda)}"
                )
            self.lr_lambdas = list(lr_lambda)
        else:
            self.lr_lambdas = [lr_lambda] * len(optimizer.param_groups)
        for fn in self.lr_lambdas:
            if not callable(fn):
                raise TypeError(
                    f"{name}: lr_lambda should be a function, but got {type(fn).__name__}"
                )

    def state_dict(self):
        """As the base class's, with each function replaced by the attributes of a callable
        object, or None for a plain function (re-create those in code)."""
        state = {
            key: value
            for key, value in self.__dict__.items()
            if key not in ("optimizer", "lr_lambdas")
        }
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
        return [
            base_lr * lmbda(self.last_epoch)
            for lmbda, base_lr in zip(self.lr_lambdas, self.base_lrs)
        ]


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
        return [
            group["lr"] * lmbda(self.last_epoch) for lmbda, group in zip(self.lr_lambdas, groups)
        ]


# ---- step and factor schedules -------------------------------------------------------------------
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
        return [
            base_lr * self.gamma ** (self.last_epoch // self.step_size) for base_lr in self.base_lrs
        ]


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
            raise ValueError(
                "ConstantLR: constant multiplicative factor expected to be between 0 and 1, got "
                f"{factor}"
            )
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

    def __init__(
        self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5, last_epoch=-1
    ):
        if not 0 < start_factor <= 1:
            raise ValueError(
                f"LinearLR: start_factor expected to be in (0, 1], but got {start_factor}"
            )
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


# ---- cosines -------------------------------------------------------------------------------------
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
            return [
                lr + (base_lr - eta_min) * rise
                for lr, base_lr in zip(self._current_lrs(), self.base_lrs)
            ]
        # (lr − eta_min) shrinks by the ratio of two consecutive cosine factors
        ratio = (1 + math.cos(math.pi * t / T)) / (1 + math.cos(math.pi * (t - 1) / T))
        return [eta_min + (lr - eta_min) * ratio for lr in self._current_lrs()]

    def _get_closed_form_lr(self):
        cosine = (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2  # from 1 down to 0
        return [self.eta_min + (base_lr - self.eta_min) * cosine for base_lr in self.base_lrs]


# ---- the warm-up + cosine helper -----------------------------------------------------------------
def get_cosine_schedule_with_warmup(
    optimizer, num_warmup_steps, num_training_steps, min_lr_ratio=0.0, last_epoch=-1
):
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
            "get_cosine_schedule_with_warmup: expected 0 <= num_warmup_steps <= "
            f"num_training_steps, but got num_warmup_steps={num_warmup_steps}, "
            f"num_training_steps={num_training_steps}"
        )
    if not 0 <= min_lr_ratio <= 1:
        raise ValueError(
            "get_cosine_schedule_with_warmup: min_lr_ratio must be in [0, 1], but got "
            f"{min_lr_ratio}"
        )

    def warmup_then_cosine(t):
        if t < num_warmup_steps:
            return t / num_warmup_steps
        progress = min(1.0, (t - num_warmup_steps) / max(1, num_training_steps - num_warmup_steps))
        return min_lr_ratio + (1 - min_lr_ratio) * (1 + math.cos(math.pi * progress)) / 2

    return LambdaLR(optimizer, warmup_then_cosine, last_epoch)
