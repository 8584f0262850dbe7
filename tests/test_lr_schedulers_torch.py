"""Every learning-rate scheduler against torch.optim.lr_scheduler, with three param groups.

Each scheduler is built the same way over a minigrad optimizer and a torch optimizer with
three param groups (different learning rates, and for the cyclic ones different
momenta), and stepped ~50 times in the real order (optimizer.step(), then
scheduler.step()). After construction and after every step, the groups' learning rates,
`get_last_lr()`, `last_epoch` and (where a schedule cycles it) the momentum or Adam's β1
must be torch's to 1e-12 relative. Then: schedulers that drive one optimizer together
(ChainedScheduler, SequentialLR), `step(epoch)` with its deprecation warning and
fractional epochs, ReduceLROnPlateau in all its modes, torch's warnings, a user subclass
of LRScheduler / _LRScheduler, state_dict round trips (and torch's state dicts loading
here) and the errors for bad arguments.
"""

import math
import warnings

import numpy as np
import pytest
import torch

import minigrad as mg
import minigrad.nn as nn
import minigrad.optim as optim
from minigrad.optim import lr_scheduler

TORCH_API = [
    "torch.optim.lr_scheduler.LRScheduler",
    "torch.optim.lr_scheduler._LRScheduler",
    "torch.optim.lr_scheduler.LambdaLR",
    "torch.optim.lr_scheduler.MultiplicativeLR",
    "torch.optim.lr_scheduler.StepLR",
    "torch.optim.lr_scheduler.MultiStepLR",
    "torch.optim.lr_scheduler.ConstantLR",
    "torch.optim.lr_scheduler.LinearLR",
    "torch.optim.lr_scheduler.ExponentialLR",
    "torch.optim.lr_scheduler.PolynomialLR",
    "torch.optim.lr_scheduler.CosineAnnealingLR",
    "torch.optim.lr_scheduler.CosineAnnealingWarmRestarts",
    "torch.optim.lr_scheduler.CyclicLR",
    "torch.optim.lr_scheduler.OneCycleLR",
    "torch.optim.lr_scheduler.SequentialLR",
    "torch.optim.lr_scheduler.ChainedScheduler",
    "torch.optim.lr_scheduler.ReduceLROnPlateau",
    "torch.optim.lr_scheduler.LRScheduler.get_last_lr",
    "torch.optim.lr_scheduler.LRScheduler.state_dict",
    "torch.optim.lr_scheduler.LRScheduler.load_state_dict",
]

LRS = (0.1, 0.05, 0.02)  # three param groups with their own learning rates
STEPS = 50
RTOL = 1e-12


def _optimizers(kind="SGD"):
    """A minigrad and a torch optimizer of `kind` with the same three param groups."""
    mine_groups, torch_groups = [], []
    for lr in LRS:
        mine_groups.append({"params": [nn.Parameter(np.zeros(2))], "lr": lr})
        torch_groups.append(
            {"params": [torch.nn.Parameter(torch.zeros(2, dtype=torch.float64))], "lr": lr}
        )
    kwargs = {"momentum": 0.9} if kind == "SGD" else {}
    return getattr(optim, kind)(mine_groups, **kwargs), getattr(torch.optim, kind)(
        torch_groups, **kwargs
    )


def _momenta(opt):
    return [g["betas"][0] if "betas" in g else g.get("momentum") for g in opt.param_groups]


def _assert_same_state(mine, mine_opt, theirs, torch_opt, where):
    # ChainedScheduler has no count of its own, in torch and here
    assert getattr(mine, "last_epoch", None) == getattr(theirs, "last_epoch", None), where
    np.testing.assert_allclose(
        mine.get_last_lr(), theirs.get_last_lr(), rtol=RTOL, atol=0, err_msg=where
    )
    np.testing.assert_allclose(
        [g["lr"] for g in mine_opt.param_groups],
        [g["lr"] for g in torch_opt.param_groups],
        rtol=RTOL,
        err_msg=where,
    )
    np.testing.assert_allclose(_momenta(mine_opt), _momenta(torch_opt), rtol=RTOL, err_msg=where)


def _run_both(make, steps=STEPS, kind="SGD", step=lambda s, t: s.step()):
    """Build with `make(module, optimizer)` in both libraries and step both `steps`
    times (`step(scheduler, t)` does one scheduler step); compare after each step.
    Returns the learning rates of group 0 seen along the way."""
    mine_opt, torch_opt = _optimizers(kind)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the right order of calls must not warn, here or in torch
        mine = make(lr_scheduler, mine_opt)
        theirs = make(torch.optim.lr_scheduler, torch_opt)
        seen = []
        for t in range(steps + 1):
            if t:
                mine_opt.step()
                torch_opt.step()
                step(mine, t)
                step(theirs, t)
            _assert_same_state(mine, mine_opt, theirs, torch_opt, f"after {t} steps")
            seen.append(mine.get_last_lr()[0])
    assert len(set(seen)) >= 2, (
        "the schedule never changed the learning rate: the comparison proves little"
    )
    return seen


SCHEDULES = {
    "LambdaLR": lambda m, o: m.LambdaLR(
        o, [lambda e: 0.9**e, lambda e: 1 / (1 + e), lambda e: (e % 7) / 7 + 0.1]
    ),
    "MultiplicativeLR": lambda m, o: m.MultiplicativeLR(o, lambda e: 0.95),
    "MultiplicativeLR-per-group": lambda m, o: m.MultiplicativeLR(
        o, [lambda e: 0.9, lambda e: 1.0 if e % 3 else 0.5, lambda e: 1 + 0.01 * e]
    ),
    "StepLR": lambda m, o: m.StepLR(o, step_size=6, gamma=0.7),
    "MultiStepLR": lambda m, o: m.MultiStepLR(o, milestones=[30, 5, 12, 12], gamma=0.5),
    "ConstantLR": lambda m, o: m.ConstantLR(o, factor=0.25, total_iters=7),
    "ConstantLR-default": lambda m, o: m.ConstantLR(o),
    "LinearLR": lambda m, o: m.LinearLR(o, start_factor=0.1, end_factor=0.9, total_iters=20),
    "LinearLR-decay-to-0": lambda m, o: m.LinearLR(
        o, start_factor=1.0, end_factor=0.0, total_iters=30
    ),
    "ExponentialLR": lambda m, o: m.ExponentialLR(o, gamma=0.93),
    "PolynomialLR": lambda m, o: m.PolynomialLR(o, total_iters=30, power=2.0),
    "PolynomialLR-default": lambda m, o: m.PolynomialLR(o),
    "CosineAnnealingLR": lambda m, o: m.CosineAnnealingLR(o, T_max=12, eta_min=0.001),
    "CosineAnnealingWarmRestarts": lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=7),
    "CosineAnnealingWarmRestarts-Tmult": lambda m, o: m.CosineAnnealingWarmRestarts(
        o, T_0=3, T_mult=2, eta_min=0.01
    ),
    "OneCycleLR": lambda m, o: m.OneCycleLR(o, max_lr=[1.0, 0.5, 0.2], total_steps=STEPS),
    "OneCycleLR-three-phase": lambda m, o: m.OneCycleLR(
        o, max_lr=0.3, epochs=5, steps_per_epoch=10, three_phase=True, anneal_strategy="linear"
    ),
    "CyclicLR-triangular": lambda m, o: m.CyclicLR(
        o, base_lr=[0.01, 0.02, 0.03], max_lr=0.1, step_size_up=4
    ),
    "CyclicLR-triangular2": lambda m, o: m.CyclicLR(
        o,
        base_lr=0.001,
        max_lr=[0.1, 0.2, 0.3],
        step_size_up=3,
        step_size_down=5,
        mode="triangular2",
    ),
    "CyclicLR-exp_range": lambda m, o: m.CyclicLR(
        o,
        0.01,
        0.1,
        step_size_up=5,
        mode="exp_range",
        gamma=0.97,
        base_momentum=[0.7, 0.75, 0.8],
        max_momentum=0.95,
    ),
    "CyclicLR-scale_fn-cycle": lambda m, o: m.CyclicLR(
        o, 0.01, 0.1, step_size_up=3, scale_fn=lambda x: 1 / x, cycle_momentum=False
    ),
    "CyclicLR-scale_fn-iterations": lambda m, o: m.CyclicLR(
        o,
        0.01,
        0.1,
        step_size_up=4,
        step_size_down=2,
        scale_fn=lambda x: 0.99**x,
        scale_mode="iterations",
    ),
    "SequentialLR-warmup-cosine": lambda m, o: m.SequentialLR(
        o,
        [m.LinearLR(o, start_factor=0.1, total_iters=5), m.CosineAnnealingLR(o, T_max=45)],
        milestones=[5],
    ),
    "SequentialLR-three": lambda m, o: m.SequentialLR(
        o,
        [
            m.ConstantLR(o, factor=0.5, total_iters=4),
            m.ExponentialLR(o, gamma=0.9),
            m.StepLR(o, 5, gamma=0.5),
        ],
        milestones=[8, 20],
    ),
    "ChainedScheduler-constant-exponential": lambda m, o: m.ChainedScheduler(
        [m.ConstantLR(o, factor=0.1, total_iters=3), m.ExponentialLR(o, gamma=0.9)]
    ),
    "ChainedScheduler-warmup-step-cosine": lambda m, o: m.ChainedScheduler(
        [
            m.LinearLR(o, start_factor=0.2, total_iters=6),
            m.StepLR(o, 10, 0.5),
            m.CosineAnnealingLR(o, T_max=30),
        ],
        optimizer=o,
    ),
    "ChainedScheduler-multiplicative-polynomial": lambda m, o: m.ChainedScheduler(
        [m.MultiplicativeLR(o, lambda e: 0.98), m.PolynomialLR(o, total_iters=40, power=0.5)]
    ),
}


@pytest.mark.parametrize("name", SCHEDULES)
def test_schedule_matches_torch_with_three_param_groups(name):
    _run_both(SCHEDULES[name])


CYCLING = {
    "CyclicLR": lambda m, o: m.CyclicLR(
        o, 0.01, [0.1, 0.2, 0.3], step_size_up=4, mode="triangular2"
    ),
    "OneCycleLR": lambda m, o: m.OneCycleLR(
        o, max_lr=0.5, total_steps=STEPS, base_momentum=[0.8, 0.82, 0.84]
    ),
}


@pytest.mark.parametrize("kind", ["SGD", "Adam"])
@pytest.mark.parametrize("name", CYCLING)
def test_cycled_momentum_or_beta1_matches_torch(name, kind):
    # _assert_same_state compares momentum, or betas[0] for Adam
    _run_both(CYCLING[name], kind=kind)


def test_cyclic_lr_leaves_beta2_and_unrelated_momentum_alone():
    mine_opt, _ = _optimizers("Adam")
    lr_scheduler.CyclicLR(mine_opt, 0.01, 0.1, step_size_up=2)
    # β1 starts at max_momentum
    assert all(g["betas"] == (0.9, 0.999) for g in mine_opt.param_groups)
    mine_opt.step()
    assert [g["betas"][1] for g in mine_opt.param_groups] == [0.999] * 3


# ---- step(epoch): the closed forms, and the fractional epochs of warm restarts -------------------
CLOSED_FORMS = {
    "StepLR": lambda m, o: m.StepLR(o, step_size=4, gamma=0.5),
    "MultiStepLR": lambda m, o: m.MultiStepLR(o, milestones=[3, 9, 9], gamma=0.3),
    "ConstantLR": lambda m, o: m.ConstantLR(o, factor=0.5, total_iters=6),
    "LinearLR": lambda m, o: m.LinearLR(o, start_factor=0.2, total_iters=10),
    "ExponentialLR": lambda m, o: m.ExponentialLR(o, gamma=0.8),
    "PolynomialLR": lambda m, o: m.PolynomialLR(o, total_iters=12, power=3.0),
    "CosineAnnealingLR": lambda m, o: m.CosineAnnealingLR(o, T_max=10, eta_min=0.005),
    # no closed form: get_lr at the epoch
    "LambdaLR": lambda m, o: m.LambdaLR(o, lambda e: 1 / (1 + e)),
}
EPOCHS = [3, 7, 7, 2, 15, 11, 0, 5, 20]  # out of order and repeated: each jump is a closed form


@pytest.mark.parametrize("name", CLOSED_FORMS)
def test_step_with_an_epoch_jumps_to_the_closed_form_and_warns_as_torch(name):
    mine_opt, torch_opt = _optimizers()
    mine = CLOSED_FORMS[name](lr_scheduler, mine_opt)
    theirs = CLOSED_FORMS[name](torch.optim.lr_scheduler, torch_opt)
    for epoch in EPOCHS:
        mine_opt.step()
        torch_opt.step()
        with pytest.warns(
            UserWarning, match="The epoch parameter in `scheduler.step..` was not necessary"
        ):
            mine.step(epoch)
        with pytest.warns(UserWarning, match="The epoch parameter"):
            theirs.step(epoch)
        _assert_same_state(mine, mine_opt, theirs, torch_opt, f"at epoch {epoch}")
    for _ in range(5):  # and plain steps carry on from there
        mine_opt.step()
        torch_opt.step()
        mine.step()
        theirs.step()
        _assert_same_state(mine, mine_opt, theirs, torch_opt, f"at epoch {theirs.last_epoch}")


@pytest.mark.parametrize("T_mult", [1, 2, 3])
def test_warm_restarts_take_fractional_epochs_as_torch(T_mult):
    """The per-batch pattern of PyTorch's docs: step(epoch + i / iters) for each batch."""
    iters = 7
    epochs = [epoch + i / iters for epoch in range(12) for i in range(iters)]
    seen = _run_both(
        lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=T_mult, eta_min=0.001),
        steps=len(epochs),
        step=lambda s, t: s.step(epochs[t - 1]),
    )
    # down to near eta_min and back up: restarts happened
    assert min(seen) < 0.02 and max(seen[1:]) > 0.09


def test_warm_restarts_interleave_epochs_and_plain_steps_as_torch():
    """From PyTorch's docstring: after step(26), step() goes to 27."""
    calls = [None] * 20 + [26, None, None, 3.5, None, 40.25, None, None]
    _run_both(
        lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=5, T_mult=2),
        steps=len(calls),
        step=lambda s, t: s.step(calls[t - 1]),
    )


# ---- ReduceLROnPlateau ---------------------------------------------------------------------------
def _plateau_metrics(mode, n=60, seed=0):
    """A loss that falls, then wobbles on plateaus (for 'max', the same as an accuracy)."""
    rng = np.random.default_rng(seed)
    t = np.arange(n)
    loss = 1.0 / (1 + 0.5 * np.minimum(t, 10)) + 0.3 * (t > 30) + 0.002 * rng.standard_normal(n)
    return loss if mode == "min" else 1.0 - loss


PLATEAUS = {
    "min-rel": dict(mode="min", patience=2, threshold=0.01),
    "min-abs": dict(mode="min", patience=3, threshold=0.005, threshold_mode="abs"),
    "max-rel": dict(mode="max", patience=2, threshold=0.002, factor=0.5),
    "max-abs": dict(mode="max", patience=1, threshold=0.01, threshold_mode="abs", factor=0.7),
    "cooldown": dict(patience=1, cooldown=3, factor=0.5),
    "min_lr-per-group": dict(patience=0, factor=0.5, min_lr=[0.01, 0.001, 0.015]),
    "min_lr-one": dict(patience=0, factor=0.3, min_lr=0.004),
    "eps-blocks-small-changes": dict(patience=0, factor=0.5, eps=0.004),
    "defaults": dict(),
}


@pytest.mark.parametrize("name", PLATEAUS)
def test_reduce_lr_on_plateau_matches_torch(name):
    kwargs = PLATEAUS[name]
    metrics = _plateau_metrics(kwargs.get("mode", "min"), n=80 if name == "defaults" else 60)
    mine_opt, torch_opt = _optimizers()
    mine = lr_scheduler.ReduceLROnPlateau(mine_opt, **kwargs)
    theirs = torch.optim.lr_scheduler.ReduceLROnPlateau(torch_opt, **kwargs)
    _assert_same_state(mine, mine_opt, theirs, torch_opt, "when made")
    for t, metric in enumerate(metrics):
        mine_opt.step()
        torch_opt.step()
        # the metric as a number and as a 0-d tensor, as a loss.item() or a loss would come
        mine.step(mg.tensor(metric) if t % 2 else float(metric))
        theirs.step(torch.tensor(metric) if t % 2 else float(metric))
        where = f"after metric {t}"
        _assert_same_state(mine, mine_opt, theirs, torch_opt, where)
        for key in ("best", "num_bad_epochs", "cooldown_counter"):
            assert getattr(mine, key) == getattr(theirs, key), f"{key} {where}"
    assert mine_opt.param_groups[0]["lr"] < LRS[0], "the learning rate was never reduced"


def test_reduce_lr_on_plateau_with_a_param_group_added_later():
    for min_lr, error in ((0.001, None), ([0.001] * 3, RuntimeError)):
        opts = _optimizers()
        scheds = [
            lib.ReduceLROnPlateau(o, patience=0, min_lr=min_lr)
            for lib, o in zip((lr_scheduler, torch.optim.lr_scheduler), opts)
        ]
        mine_opt, torch_opt = opts
        mine_opt.add_param_group({"params": [nn.Parameter(np.zeros(1))], "lr": 0.3})
        torch_opt.add_param_group({"params": [torch.nn.Parameter(torch.zeros(1))], "lr": 0.3})
        for s in scheds:
            s.step(1.0)
        if error is None:
            for s in scheds:
                s.step(2.0)
            assert [g["lr"] for g in mine_opt.param_groups] == pytest.approx(
                [g["lr"] for g in torch_opt.param_groups]
            )
            assert mine_opt.param_groups[3]["lr"] == pytest.approx(0.03)
        else:
            with pytest.raises(error, match="param group"):
                scheds[0].step(2.0)
            with pytest.raises(error):
                scheds[1].step(2.0)


# ---- torch's warnings ----------------------------------------------------------------------------
def _record(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [str(w.message) for w in caught if issubclass(w.category, UserWarning)]


def test_stepping_the_scheduler_before_the_optimizer_warns_as_torch():
    for lib, opt in zip((lr_scheduler, torch.optim.lr_scheduler), _optimizers()):
        sched = lib.StepLR(opt, step_size=2)
        messages = _record(sched.step)
        assert (
            len(messages) == 1
            and "Detected call of `lr_scheduler.step()` before `optimizer.step()`" in messages[0]
        )
        assert _record(sched.step) == []  # only the first step is checked


def test_the_warning_points_at_the_callers_line():
    opt, _ = _optimizers()
    sched = lr_scheduler.ExponentialLR(opt, gamma=0.5)
    with pytest.warns(UserWarning, match="before `optimizer.step") as caught:
        sched.step()
    assert caught[0].filename == __file__


def test_an_optimizer_step_replaced_after_the_scheduler_warns_as_torch():
    for lib, opt in zip((lr_scheduler, torch.optim.lr_scheduler), _optimizers()):
        sched = lib.StepLR(opt, step_size=2)
        opt.step = lambda closure=None: None  # e.g. a wrapper installed by some training library
        messages = _record(sched.step)
        assert (
            len(messages) == 1
            and "`optimizer.step()` has been overridden after learning rate scheduler"
            in messages[0]
        )


def test_calling_get_lr_by_hand_warns_as_torch():
    for lib, opt in zip((lr_scheduler, torch.optim.lr_scheduler), _optimizers()):
        sched = lib.ExponentialLR(opt, gamma=0.5)
        messages = _record(sched.get_lr)
        assert len(messages) == 1 and "please use `get_last_lr()`" in messages[0]
        assert _record(sched.get_last_lr) == []


def test_two_schedulers_on_one_optimizer_wrap_its_step_once():
    opt, _ = _optimizers()
    lr_scheduler.StepLR(opt, step_size=2)
    wrapped = opt.step
    lr_scheduler.ExponentialLR(opt, gamma=0.5)
    assert opt.step is wrapped and opt.step._wrapped_by_lr_sched
    opt.step()
    assert opt._opt_called


# ---- a scheduler of your own ---------------------------------------------------------------------
def _user_scheduler(base):
    """The same user code subclassing torch's or minigrad's base class: a warm-up to
    base_lr over 4 steps, then 1/√t decay (the Transformer paper's schedule)."""

    class InverseSqrt(base):
        def __init__(self, optimizer, warmup=4, last_epoch=-1):
            self.warmup = warmup
            super().__init__(optimizer, last_epoch)

        def get_lr(self):
            t = self.last_epoch + 1
            factor = min(t / self.warmup, math.sqrt(self.warmup / t))
            return [base_lr * factor for base_lr in self.base_lrs]

    return InverseSqrt


@pytest.mark.parametrize("base", ["LRScheduler", "_LRScheduler"])
def test_a_user_subclass_runs_as_in_torch(base):
    mine_cls = _user_scheduler(getattr(lr_scheduler, base))
    torch_cls = _user_scheduler(getattr(torch.optim.lr_scheduler, base))
    seen = _run_both(lambda m, o: (mine_cls if m is lr_scheduler else torch_cls)(o, warmup=4))
    assert max(seen) == pytest.approx(LRS[0])
    assert issubclass(lr_scheduler._LRScheduler, lr_scheduler.LRScheduler)
    assert lr_scheduler._LRScheduler.__name__ == torch.optim.lr_scheduler._LRScheduler.__name__


def test_a_user_subclass_saves_and_resumes():
    cls = _user_scheduler(lr_scheduler.LRScheduler)
    opt, _ = _optimizers()
    sched = cls(opt)
    for _ in range(6):
        opt.step()
        sched.step()
    saved = sched.state_dict()
    assert saved["last_epoch"] == 6 and saved["base_lrs"] == list(LRS) and saved["warmup"] == 4
    other_opt, _ = _optimizers()
    other = cls(other_opt, warmup=100)
    other.load_state_dict(saved)
    for _ in range(3):
        for o, s in ((opt, sched), (other_opt, other)):
            o.step()
            s.step()
        assert other.get_last_lr() == sched.get_last_lr()


# ---- saving and resuming -------------------------------------------------------------------------
RESUMABLE = {
    "ConstantLR": lambda m, o: m.ConstantLR(o, factor=0.5, total_iters=25),
    "LinearLR": lambda m, o: m.LinearLR(o, start_factor=0.1, total_iters=30),
    "PolynomialLR": lambda m, o: m.PolynomialLR(o, total_iters=40, power=2.0),
    "MultiplicativeLR": lambda m, o: m.MultiplicativeLR(o, lambda e: 0.97),
    "CosineAnnealingWarmRestarts": lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=4, T_mult=2),
    "CyclicLR": lambda m, o: m.CyclicLR(o, 0.01, 0.1, step_size_up=7, mode="exp_range", gamma=0.99),
    "SequentialLR": lambda m, o: m.SequentialLR(
        o,
        [m.ConstantLR(o, factor=0.5, total_iters=3), m.ExponentialLR(o, gamma=0.95)],
        milestones=[10],
    ),
    "ChainedScheduler": lambda m, o: m.ChainedScheduler(
        [m.StepLR(o, 7, 0.5), m.ExponentialLR(o, gamma=0.97)]
    ),
}


@pytest.mark.parametrize("name", RESUMABLE)
def test_state_dict_survives_a_file_and_resumes_the_schedule(name, tmp_path):
    make = RESUMABLE[name]
    opt, _ = _optimizers()
    sched = make(lr_scheduler, opt)
    for _ in range(20):
        opt.step()
        sched.step()
    mg.save(
        {"optimizer": opt.state_dict(), "scheduler": sched.state_dict()},
        tmp_path / "checkpoint.npz",
    )
    checkpoint = mg.load(tmp_path / "checkpoint.npz")
    assert "optimizer" not in checkpoint["scheduler"]

    fresh_opt, _ = _optimizers()
    fresh = make(lr_scheduler, fresh_opt)  # as in PyTorch: make the scheduler, then load both
    fresh_opt.load_state_dict(checkpoint["optimizer"])
    fresh.load_state_dict(checkpoint["scheduler"])
    for _ in range(25):
        for o, s in ((opt, sched), (fresh_opt, fresh)):
            o.step()
            s.step()
        assert fresh.get_last_lr() == sched.get_last_lr()
        assert _momenta(fresh_opt) == _momenta(opt)


def test_reduce_lr_on_plateau_resumes_in_the_middle_of_a_plateau():
    metrics = _plateau_metrics("min")
    opt, _ = _optimizers()
    sched = lr_scheduler.ReduceLROnPlateau(opt, patience=3, cooldown=2, factor=0.5)
    for metric in metrics[:35]:
        sched.step(metric)
    saved = sched.state_dict()
    assert saved["num_bad_epochs"] > 0 or saved["cooldown_counter"] > 0, (
        "pick a stop inside a plateau"
    )
    fresh_opt, _ = _optimizers()
    fresh_opt.load_state_dict(opt.state_dict())
    # settings come from the state dict
    fresh = lr_scheduler.ReduceLROnPlateau(fresh_opt, mode="max")
    fresh.load_state_dict(saved)
    for metric in metrics[35:]:
        sched.step(metric)
        fresh.step(metric)
        assert fresh.get_last_lr() == sched.get_last_lr()


def _torch_state_to_plain(state):
    return {k: v.item() if isinstance(v, torch.Tensor) else v for k, v in state.items()}


TORCH_STATES = {
    "StepLR": lambda m, o: m.StepLR(o, step_size=4, gamma=0.5),
    "ExponentialLR": lambda m, o: m.ExponentialLR(o, gamma=0.9),
    "ConstantLR": lambda m, o: m.ConstantLR(o, factor=0.5, total_iters=30),
    "LinearLR": lambda m, o: m.LinearLR(o, start_factor=0.1, total_iters=30),
    "PolynomialLR": lambda m, o: m.PolynomialLR(o, total_iters=40),
    "CosineAnnealingLR": lambda m, o: m.CosineAnnealingLR(o, T_max=15),
    "CosineAnnealingWarmRestarts": lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2),
    "CyclicLR": lambda m, o: m.CyclicLR(o, 0.01, 0.1, step_size_up=6, mode="triangular2"),
    "ReduceLROnPlateau": lambda m, o: m.ReduceLROnPlateau(o, patience=1, factor=0.5),
}


@pytest.mark.parametrize("name", TORCH_STATES)
def test_a_torch_scheduler_state_dict_continues_torchs_schedule_here(name):
    make = TORCH_STATES[name]
    plateau = name == "ReduceLROnPlateau"
    metrics = _plateau_metrics("min")
    mine_opt, torch_opt = _optimizers()
    theirs = make(torch.optim.lr_scheduler, torch_opt)

    def step(s, t):
        s.step(metrics[t]) if plateau else s.step()

    for t in range(12):
        torch_opt.step()
        step(theirs, t)
    mine = make(lr_scheduler, mine_opt)
    for mine_group, torch_group in zip(mine_opt.param_groups, torch_opt.param_groups):
        mine_group.update({k: v for k, v in torch_group.items() if k != "params"})
    mine.load_state_dict(_torch_state_to_plain(theirs.state_dict()))
    for t in range(12, 40):
        mine_opt.step()
        torch_opt.step()
        step(mine, t)
        step(theirs, t)
        _assert_same_state(mine, mine_opt, theirs, torch_opt, f"after step {t}")


class _Decay:
    """A callable object: its attributes are saved in a state_dict, a function is not."""

    def __init__(self, rate):
        self.rate = rate

    def __call__(self, x):
        return self.rate**x


FUNCTION_HOLDERS = {
    "MultiplicativeLR": (
        "lr_lambdas",
        lambda m, o, rate: m.MultiplicativeLR(o, [_Decay(rate), lambda e: 1.0, lambda e: 1.0]),
        lambda s: s.lr_lambdas[0],
    ),
    "CyclicLR": (
        "_scale_fn_custom",
        lambda m, o, rate: m.CyclicLR(o, 0.01, 0.1, scale_fn=_Decay(rate)),
        lambda s: s._scale_fn_custom,
    ),
    "CyclicLR-function": (
        "_scale_fn_custom",
        lambda m, o, rate: m.CyclicLR(o, 0.01, 0.1, scale_fn=lambda x: rate**x),
        None,
    ),
}


@pytest.mark.parametrize("name", FUNCTION_HOLDERS)
def test_state_dicts_keep_callable_objects_but_not_functions_as_torch(name):
    key, make, held = FUNCTION_HOLDERS[name]
    mine_opt, torch_opt = _optimizers()
    ours = make(lr_scheduler, mine_opt, 0.5).state_dict()[key]
    torchs = make(torch.optim.lr_scheduler, torch_opt, 0.5).state_dict()[key]
    assert ours == torchs
    if held is not None:
        other = make(lr_scheduler, _optimizers()[0], 0.9)
        other.load_state_dict(make(lr_scheduler, _optimizers()[0], 0.5).state_dict())
        assert held(other).rate == 0.5


# ---- bad arguments: torch's exception types, and messages that say what was wrong ----------------
def _step_one_cycle_past_its_end(m, o):
    sched = m.OneCycleLR(o, max_lr=1.0, total_steps=2)
    for _ in range(3):
        sched.step()


def _sched_errors():
    adagrad = (
        optim.Adagrad([nn.Parameter(np.zeros(1))]),
        torch.optim.Adagrad([torch.nn.Parameter(torch.zeros(1))]),
    )
    two = _optimizers(), _optimizers()

    def both(fn):
        return lambda lib, i: fn(lib, _optimizers()[i])

    return {
        "ConstantLR factor > 1": (
            ValueError,
            "between 0 and 1",
            both(lambda m, o: m.ConstantLR(o, factor=1.5)),
        ),
        "MultiplicativeLR not callable": (
            TypeError,
            "lr_lambda should be a function",
            both(lambda m, o: m.MultiplicativeLR(o, 0.9)),
        ),
        "MultiplicativeLR too few": (
            ValueError,
            "3",
            both(lambda m, o: m.MultiplicativeLR(o, [lambda e: 1.0])),
        ),
        "ReduceLROnPlateau factor 1": (
            ValueError,
            "< 1.0",
            both(lambda m, o: m.ReduceLROnPlateau(o, factor=1.0)),
        ),
        "ReduceLROnPlateau mode": (
            ValueError,
            "'median' is unknown",
            both(lambda m, o: m.ReduceLROnPlateau(o, "median")),
        ),
        "ReduceLROnPlateau threshold_mode": (
            ValueError,
            "'pct' is unknown",
            both(lambda m, o: m.ReduceLROnPlateau(o, threshold_mode="pct")),
        ),
        "ReduceLROnPlateau min_lr length": (
            ValueError,
            "expected 3 min_lrs",
            both(lambda m, o: m.ReduceLROnPlateau(o, min_lr=[0.1, 0.2])),
        ),
        "CyclicLR mode": (
            ValueError,
            "'sawtooth'",
            both(lambda m, o: m.CyclicLR(o, 0.1, 1.0, mode="sawtooth")),
        ),
        "CyclicLR momentum of Adagrad": (
            ValueError,
            "momentum or betas",
            lambda m, i: m.CyclicLR(adagrad[i], 0.1, 1.0),
        ),
        "CyclicLR max_lr length": (
            ValueError,
            "max_lr must have the same length",
            both(lambda m, o: m.CyclicLR(o, 0.1, [1.0, 2.0])),
        ),
        "CosineAnnealingWarmRestarts T_0": (
            ValueError,
            "positive integer T_0",
            both(lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=0)),
        ),
        "CosineAnnealingWarmRestarts T_mult": (
            ValueError,
            "T_mult >= 1",
            both(lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=0)),
        ),
        "CosineAnnealingWarmRestarts eta_min": (
            ValueError,
            "float or int eta_min",
            both(lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=2, eta_min="0")),
        ),
        "CosineAnnealingWarmRestarts negative epoch": (
            ValueError,
            "non-negative epoch, but got -1",
            both(lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=2).step(-1)),
        ),
        "SequentialLR milestones": (
            ValueError,
            "number of milestones",
            both(
                lambda m, o: m.SequentialLR(o, [m.StepLR(o, 2), m.StepLR(o, 3)], milestones=[2, 4])
            ),
        ),
        "SequentialLR empty": (
            ValueError,
            "at least one scheduler",
            both(lambda m, o: m.SequentialLR(o, [], [])),
        ),
        "SequentialLR plateau": (
            ValueError,
            "does not support `ReduceLROnPlateau`",
            both(
                lambda m, o: m.SequentialLR(
                    o, [m.StepLR(o, 2), m.ReduceLROnPlateau(o)], milestones=[3]
                )
            ),
        ),
        "SequentialLR other optimizer": (
            ValueError,
            "same optimizer",
            lambda m, i: m.SequentialLR(
                two[0][i], [m.StepLR(two[0][i], 2), m.StepLR(two[1][i], 2)], [3]
            ),
        ),
        "SequentialLR not a scheduler": (
            TypeError,
            "`optimizer` as its attribute",
            both(lambda m, o: m.SequentialLR(o, [m.StepLR(o, 2), object()], milestones=[3])),
        ),
        "ChainedScheduler empty": (
            ValueError,
            "at least one scheduler",
            lambda m, i: m.ChainedScheduler([]),
        ),
        "ChainedScheduler other optimizer": (
            ValueError,
            "same optimizer",
            lambda m, i: m.ChainedScheduler([m.StepLR(two[0][i], 2), m.StepLR(two[1][i], 2)]),
        ),
        "ChainedScheduler plateau": (
            ValueError,
            "does not support `ReduceLROnPlateau`",
            both(lambda m, o: m.ChainedScheduler([m.ReduceLROnPlateau(o)])),
        ),
        "scheduler of a list": (TypeError, "list", lambda m, i: m.ReduceLROnPlateau([])),
        "OneCycleLR past the end": (
            ValueError,
            "step 3 times",
            both(_step_one_cycle_past_its_end),
        ),
    }


ERRORS = _sched_errors()


@pytest.mark.parametrize("name", ERRORS)
def test_bad_arguments_raise_torchs_exception_type(name):
    error, words, call = ERRORS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. OneCycleLR stepped before its optimizer
        with pytest.raises(error) as mine:
            call(lr_scheduler, 0)
        with pytest.raises(error):
            call(torch.optim.lr_scheduler, 1)
    assert words in str(mine.value)
