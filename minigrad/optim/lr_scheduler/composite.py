"""Schedulers made of schedulers: `SequentialLR` hands the optimizer from one to the next
at given steps, `ChainedScheduler` steps several at once, each multiplying in its factor.
"""

from bisect import bisect_right

from minigrad.optim.lr_scheduler.base import LRScheduler
from minigrad.optim.lr_scheduler.plateau import ReduceLROnPlateau


def _check_schedulers(name, optimizer, schedulers):
    if len(schedulers) < 1:
        raise ValueError(f"{name} expects at least one scheduler, but got no scheduler")
    for i, scheduler in enumerate(schedulers):
        if not hasattr(scheduler, "optimizer"):
            raise TypeError(
                f"{name}: the scheduler at index {i} should have `optimizer` as its attribute"
            )
        if isinstance(scheduler, ReduceLROnPlateau):
            raise ValueError(
                f"{name} does not support `ReduceLROnPlateau` scheduler as it requires additional "
                f"kwargs to be specified when calling `step`, but got one at index {i} in the "
                "given schedulers sequence"
            )
        if scheduler.optimizer is not optimizer:
            raise ValueError(
                f"{name} expects all schedulers to belong to the same optimizer, but got scheduler "
                f"{type(scheduler).__name__} at index {i} with another "
                f"{type(scheduler.optimizer).__name__}"
            )


def _nested_state_dict(scheduler):
    state = {
        key: value
        for key, value in scheduler.__dict__.items()
        if key not in ("optimizer", "_schedulers")
    }
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

        SequentialLR(opt, [LinearLR(opt, 0.1, total_iters=5), CosineAnnealingLR(opt, T_max=95)],
        [5])

    is a five-step linear warm-up and then a cosine from the full rate. Make the
    schedulers over the same optimizer first; SequentialLR undoes the first step each
    of them took when it was made.
    """

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1):
        _check_schedulers("SequentialLR", optimizer, schedulers)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                "SequentialLR expects number of schedulers provided to be one more than the number "
                f"of milestone points, but got number of schedulers {len(schedulers)} and the "
                f"number of milestones to be equal to {len(milestones)}"
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

        ChainedScheduler([ConstantLR(opt, factor=0.1, total_iters=2), ExponentialLR(opt,
        gamma=0.9)])

    gives base_lr · 0.1 · 0.9^t for t < 2 and base_lr · 0.9^t afterwards.
    """

    def __init__(self, schedulers, optimizer=None):
        if len(schedulers) < 1:
            raise ValueError(
                "ChainedScheduler expects at least one scheduler to be chained, but got no "
                "scheduler"
            )
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
