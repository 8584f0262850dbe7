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

The package is a table of contents; each file holds one idea:

- base.py: `LRScheduler`, the counting and writing every schedule shares;
- schedules.py: the formulas of the step count (`StepLR`, `LinearLR`,
  `CosineAnnealingLR`, `LambdaLR`, ..., `get_cosine_schedule_with_warmup`);
- cyclic.py: the schedules that go round (`CosineAnnealingWarmRestarts`, `CyclicLR`,
  `OneCycleLR`);
- composite.py: the schedulers that combine others (`SequentialLR`, `ChainedScheduler`);
- plateau.py: the one that watches a metric (`ReduceLROnPlateau`).

Every name is reached here, as in torch: `optim.lr_scheduler.StepLR`.
"""

from minigrad.optim.lr_scheduler.base import EPOCH_DEPRECATION_WARNING, LRScheduler, _LRScheduler
from minigrad.optim.lr_scheduler.composite import ChainedScheduler, SequentialLR
from minigrad.optim.lr_scheduler.cyclic import CosineAnnealingWarmRestarts, CyclicLR, OneCycleLR
from minigrad.optim.lr_scheduler.plateau import ReduceLROnPlateau
from minigrad.optim.lr_scheduler.schedules import (
    ConstantLR,
    CosineAnnealingLR,
    ExponentialLR,
    LambdaLR,
    LinearLR,
    MultiplicativeLR,
    MultiStepLR,
    PolynomialLR,
    StepLR,
    get_cosine_schedule_with_warmup,
)

__all__ = [
    "EPOCH_DEPRECATION_WARNING",
    "ChainedScheduler",
    "ConstantLR",
    "CosineAnnealingLR",
    "CosineAnnealingWarmRestarts",
    "CyclicLR",
    "ExponentialLR",
    "LRScheduler",
    "LambdaLR",
    "LinearLR",
    "MultiStepLR",
    "MultiplicativeLR",
    "OneCycleLR",
    "PolynomialLR",
    "ReduceLROnPlateau",
    "SequentialLR",
    "StepLR",
    "_LRScheduler",
    "get_cosine_schedule_with_warmup",
]
