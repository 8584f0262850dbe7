"""The schedule that watches a metric: `ReduceLROnPlateau` divides the learning rate
when the validation loss (or accuracy) stops improving.
"""

import math
import warnings

from minigrad.optim.lr_scheduler.base import EPOCH_DEPRECATION_WARNING, LRScheduler
from minigrad.optim.optimizer import Optimizer


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
            raise TypeError(
                f"ReduceLROnPlateau: expected an Optimizer, but got {type(optimizer).__name__}"
            )
        self.factor = factor
        self.optimizer = optimizer
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != len(optimizer.param_groups):
                raise ValueError(
                    f"ReduceLROnPlateau: expected {len(optimizer.param_groups)} min_lrs (one per "
                    f"param group), got {len(min_lr)}"
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
            raise ValueError(
                f"ReduceLROnPlateau: mode {mode!r} is unknown (expected 'min' or 'max')"
            )
        if threshold_mode not in ("rel", "abs"):
            raise ValueError(
                f"ReduceLROnPlateau: threshold mode {threshold_mode!r} is unknown (expected 'rel' "
                "or 'abs')"
            )
        # what any first metric improves on
        self.mode_worse = math.inf if mode == "min" else -math.inf
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
                    f"ReduceLROnPlateau: the optimizer has {len(groups)} param groups, but min_lr "
                    f"was given for {len(self.min_lrs)} (a param group was added after the "
                    "scheduler was made); set `scheduler.min_lrs` to one value per group"
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
