"""The schedules that go round: the cosine with warm restarts (SGDR), the cyclical
learning rates (`CyclicLR`), and the one cycle of super-convergence (`OneCycleLR`),
the two last of which move the optimizer's momentum against the rate.
"""

import math

from minigrad.optim.lr_scheduler.base import LRScheduler, _one_per_group, _saved_attributes
from minigrad.optim.optimizer import Optimizer


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
            raise ValueError(
                f"CosineAnnealingWarmRestarts: expected positive integer T_0, but got {T_0!r}"
            )
        if isinstance(T_mult, bool) or not isinstance(T_mult, int) or T_mult < 1:
            raise ValueError(
                f"CosineAnnealingWarmRestarts: expected integer T_mult >= 1, but got {T_mult!r}"
            )
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
                raise ValueError(
                    f"CosineAnnealingWarmRestarts: expected non-negative epoch, but got {epoch}"
                )
            if epoch < self.T_0:
                self.T_i, self.T_cur = self.T_0, epoch
            elif self.T_mult == 1:
                self.T_cur = epoch % self.T_0
            else:
                # the periods T_0·(1 + T_mult + ... + T_mult^(n−1)) = T_0·(T_mult^n − 1)/(T_mult −
                # 1) add up to the start of period n: solve for the n that holds `epoch`
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


# ---- cycles --------------------------------------------------------------------------------------
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
                "CyclicLR: mode must be 'triangular', 'triangular2' or 'exp_range' (or give a "
                f"scale_fn), but got mode={mode!r} and scale_fn=None"
            )
        self.mode = mode
        self.gamma = gamma
        self._scale_fn_custom = scale_fn
        # the built-in policies fix what scale_fn is evaluated at; a custom one follows scale_mode
        self.scale_mode = (
            scale_mode if scale_fn is not None else _BUILT_IN_SCALE_MODES.get(mode, scale_mode)
        )

        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.use_beta1 = _check_momentum_support("CyclicLR", optimizer)
            self.base_momentums = _one_per_group("base_momentum", optimizer, base_momentum)
            self.max_momentums = _one_per_group("max_momentum", optimizer, max_momentum)
            if last_epoch == -1:
                for high, low, group in zip(
                    self.max_momentums, self.base_momentums, optimizer.param_groups
                ):
                    _set_momentum(group, self.use_beta1, high)
                    group["max_momentum"] = high
                    group["base_momentum"] = low
        super().__init__(optimizer, last_epoch)
        # after the first step, as in PyTorch (that step used 'initial_lr')
        self.base_lrs = base_lrs

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
        lrs = [
            base_lr + (max_lr - base_lr) * height * scale
            for base_lr, max_lr in zip(self.base_lrs, self.max_lrs)
        ]
        if self.cycle_momentum:
            for group, low, high in zip(
                self.optimizer.param_groups, self.base_momentums, self.max_momentums
            ):
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
            raise TypeError(
                f"OneCycleLR: expected an Optimizer, but got {type(optimizer).__name__}"
            )
        if total_steps is not None:
            if not (isinstance(total_steps, int) and total_steps > 0):
                raise ValueError(
                    f"OneCycleLR: expected positive integer total_steps, but got {total_steps!r}"
                )
            self.total_steps = total_steps
        elif epochs is not None and steps_per_epoch is not None:
            for name, value in (("epochs", epochs), ("steps_per_epoch", steps_per_epoch)):
                if not (isinstance(value, int) and value > 0):
                    raise ValueError(
                        f"OneCycleLR: expected positive integer {name}, but got {value!r}"
                    )
            self.total_steps = epochs * steps_per_epoch
        else:
            raise ValueError(
                "OneCycleLR: you must define either total_steps OR (epochs AND steps_per_epoch)"
            )
        if not 0 <= pct_start <= 1:
            raise ValueError(f"OneCycleLR: expected pct_start between 0 and 1, but got {pct_start}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(
                "OneCycleLR: anneal_strategy must be 'cos' or 'linear', but got "
                f"{anneal_strategy!r}"
            )
        self.anneal_strategy = anneal_strategy

        # Each phase: the step at which it ends, and the group keys of the learning rate
        # and momentum it goes from and to.
        rise_end = float(pct_start * self.total_steps) - 1
        if three_phase:
            self.phases = [
                (rise_end, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                (
                    float(2 * pct_start * self.total_steps) - 2,
                    "max_lr",
                    "initial_lr",
                    "base_momentum",
                    "max_momentum",
                ),
                (self.total_steps - 1, "initial_lr", "min_lr", "max_momentum", "max_momentum"),
            ]
        else:
            self.phases = [
                (rise_end, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                (self.total_steps - 1, "max_lr", "min_lr", "base_momentum", "max_momentum"),
            ]

        if last_epoch == -1:
            for group, top in zip(
                optimizer.param_groups, _one_per_group("max_lr", optimizer, max_lr)
            ):
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
                f"OneCycleLR: tried to step {step} times, but the specified number of total steps "
                f"is {self.total_steps}"
            )
        lrs = []
        for group in self.optimizer.param_groups:
            phase_start = 0.0
            for i, (phase_end, lr_from, lr_to, momentum_from, momentum_to) in enumerate(
                self.phases
            ):
                if step <= phase_end or i == len(self.phases) - 1:
                    pct = (step - phase_start) / (phase_end - phase_start)
                    lrs.append(self._anneal(group[lr_from], group[lr_to], pct))
                    if self.cycle_momentum:
                        momentum = self._anneal(group[momentum_from], group[momentum_to], pct)
                        _set_momentum(group, self.use_beta1, momentum)
                    break
                phase_start = phase_end
        return lrs
