"""Weight averaging, as `torch.optim.swa_utils`: stochastic weight averaging (SWA,
Izmailov et al. 2018) and exponential moving averages (EMA) of a model's weights.

Late in training, SGD's weights wander around a wide minimum; their average sits nearer
its centre and usually generalises better than any one of them. `AveragedModel` keeps
that average in a copy of the model:

    swa_model = AveragedModel(model)                  # a deep copy
    for epoch in range(epochs):
        train_one_epoch(model, optimizer)
        if epoch >= swa_start:
            swa_model.update_parameters(model)        # w_avg += (w - w_avg) / (n + 1)
            swa_scheduler.step()                      # SWALR: anneal to a constant rate
    update_bn(loader, swa_model)                      # BatchNorm statistics for the average

Averaging weights does not average BatchNorm's running statistics correctly (they belong
to the individual weights), so `update_bn` runs the data through the averaged model once
to recompute them. `get_ema_avg_fn(decay)` turns the average into an EMA,
w_avg = decay w_avg + (1 - decay) w, the "EMA model" of diffusion and vision training.
"""

import copy
import itertools
import math

from minigrad.autograd.grad_mode import no_grad
from minigrad.creation import tensor
from minigrad.nn.module import Module
from minigrad.nn.normalization import _BatchNorm
from minigrad.optim.lr_scheduler.base import LRScheduler, _one_per_group

__all__ = [
    "AveragedModel",
    "SWALR",
    "get_ema_avg_fn",
    "get_ema_multi_avg_fn",
    "get_swa_avg_fn",
    "get_swa_multi_avg_fn",
    "update_bn",
]


def _check_decay(decay):
    if decay < 0.0 or decay > 1.0:
        raise ValueError(
            f"Invalid decay value {decay} provided. Please provide a value in [0,1] range."
        )


def get_ema_avg_fn(decay=0.999):
    """The EMA update of one parameter: `avg_fn(w_avg, w, n) = decay w_avg + (1 - decay) w`."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param, current_param, num_averaged):
        return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn():
    """The running mean of one parameter: `avg_fn(w_avg, w, n) = w_avg + (w - w_avg) / (n + 1)`."""

    @no_grad()
    def swa_update(averaged_param, current_param, num_averaged):
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


def _lerp_(starts, ends, weight):
    """start += weight (end - start), in place, for each pair (torch's _foreach_lerp_)."""
    for start, end in zip(starts, ends):
        start.copy_(start + weight * (end - start))


def get_ema_multi_avg_fn(decay=0.999):
    """The EMA update of lists of parameters, in place (`multi_avg_fn=` of AveragedModel)."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param_list, current_param_list, _):
        _lerp_(ema_param_list, current_param_list, 1 - decay)

    return ema_update


def get_swa_multi_avg_fn():
    """The running-mean update of lists of parameters, in place."""

    @no_grad()
    def swa_update(averaged_param_list, current_param_list, num_averaged):
        _lerp_(averaged_param_list, current_param_list, 1 / (float(num_averaged) + 1))

    return swa_update


class AveragedModel(Module):
    """`AveragedModel(model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False)`:
    a copy of `model` whose parameters are the average of the models given to
    `update_parameters` (the running mean by default; `avg_fn` or `multi_avg_fn` for
    another, an EMA say). `n_averaged` (a buffer) counts them. With `use_buffers=True`
    the buffers are averaged too; otherwise they are copied from the latest model.
    Calling it calls the copy."""

    def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False):
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = copy.deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", tensor(0))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def update_parameters(self, model):
        """Fold `model`'s parameters (and buffers, with use_buffers) into the average: the
        first call copies them, each later one applies the averaging function."""
        if self.use_buffers:
            mine = list(itertools.chain(self.module.parameters(), self.module.buffers()))
            theirs = list(itertools.chain(model.parameters(), model.buffers()))
        else:
            mine, theirs = list(self.parameters()), list(model.parameters())
        averaged = [p.detach() for p in mine]
        current = [p.detach() for p in theirs]
        count = int(self.n_averaged.item())
        with no_grad():
            if count == 0:
                for a, c in zip(averaged, current):
                    a.copy_(c)
            elif self.multi_avg_fn is not None:
                self.multi_avg_fn(averaged, current, self.n_averaged)
            else:
                avg_fn = self.avg_fn if self.avg_fn is not None else get_swa_avg_fn()
                for a, c in zip(averaged, current):
                    a.copy_(avg_fn(a, c, self.n_averaged))
            if not self.use_buffers:
                for b_swa, b_model in zip(self.module.buffers(), model.buffers()):
                    b_swa.detach().copy_(b_model.detach())
            self.n_averaged += 1


def update_bn(loader, model, device=None):
    """Recompute the running statistics of every BatchNorm layer of `model` from one pass
    over `loader` (batches, or tuples whose first item is the input), with every batch
    weighted equally (momentum None); the model's train/eval mode is restored after."""
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None  # a cumulative average over the pass
    with no_grad():
        for batch in loader:
            if isinstance(batch, (list, tuple)):
                batch = batch[0]
            if device is not None:
                batch = batch.to(device)
            model(batch)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """`SWALR(optimizer, swa_lr, anneal_epochs=10, anneal_strategy='cos', last_epoch=-1)`:
    anneal each group's learning rate from where it is to `swa_lr` over `anneal_epochs`
    steps (cosine or linear), then hold it there, for the SWA phase of training:

        lr_t = swa_lr alpha_t + lr_0 (1 - alpha_t),  alpha_t = (1 - cos(pi t / T)) / 2 (cos) or t /
        T
    """

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos", last_epoch=-1):
        for value, group in zip(
            _one_per_group("swa_lr", optimizer, swa_lr), optimizer.param_groups
        ):
            group["swa_lr"] = value
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError(
                f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}"
            )
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        """The rate the annealing started from, recovered from this step's rate."""
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self):
        self._warn_outside_step()
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_alpha = self.anneal_func(max(0, min(1, (step - 1) / max(1, self.anneal_epochs))))
        prev_lrs = [
            self._get_initial_lr(g["lr"], g["swa_lr"], prev_alpha)
            for g in self.optimizer.param_groups
        ]
        alpha = self.anneal_func(max(0, min(1, step / max(1, self.anneal_epochs))))
        return [
            g["swa_lr"] * alpha + lr * (1 - alpha)
            for g, lr in zip(self.optimizer.param_groups, prev_lrs)
        ]

    def _set_anneal_func(self, anneal_strategy):
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else self._linear_anneal

    def state_dict(self):
        """Everything but the optimizer and the annealing function (kept by name)."""
        return {
            key: value
            for key, value in self.__dict__.items()
            if key not in ("optimizer", "anneal_func")
        }

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
