"""Learning-rate schedulers against torch.optim.lr_scheduler.

Each schedule drives a minigrad optimizer and a dummy torch optimizer with the same two
param groups; after every step the learning rates (and, for OneCycleLR, the momentum or
beta1) must be torch's, to rounding (1e-12 relative). The schedulers minigrad added later
(ReduceLROnPlateau, CyclicLR, SequentialLR, ChainedScheduler, ...) and the chaining,
warnings and subclassing are checked in test_lr_schedulers_torch.py.
"""

import numpy as np
import pytest
import torch

import minigrad as mg
import minigrad.nn as nn
import minigrad.optim as optim
from minigrad.optim import lr_scheduler

# The torch names whose behaviour this file checks against torch (read by tools/api_coverage.py).
TORCH_API = [
    "torch.optim.lr_scheduler.CosineAnnealingLR",
    "torch.optim.lr_scheduler.ExponentialLR",
    "torch.optim.lr_scheduler.LRScheduler.get_last_lr",
    "torch.optim.lr_scheduler.LambdaLR",
    "torch.optim.lr_scheduler.LinearLR",
    "torch.optim.lr_scheduler.MultiStepLR",
    "torch.optim.lr_scheduler.OneCycleLR",
    "torch.optim.lr_scheduler.StepLR",
]

LRS = (0.1, 0.02)  # two param groups with different learning rates
RTOL = 1e-12


def _optimizers(kind="SGD"):
    """A minigrad and a torch optimizer of `kind`, each with two param groups."""
    mine_params = [nn.Parameter(np.zeros(2)) for _ in LRS]
    torch_params = [torch.nn.Parameter(torch.zeros(2)) for _ in LRS]
    kwargs = {"momentum": 0.9} if kind == "SGD" else {}
    mine = getattr(optim, kind)(
        [{"params": [p], "lr": lr} for p, lr in zip(mine_params, LRS)], **kwargs
    )
    theirs = getattr(torch.optim, kind)(
        [{"params": [p], "lr": lr} for p, lr in zip(torch_params, LRS)], **kwargs
    )
    return mine, theirs


def _momenta(opt):
    return [g["betas"][0] if "betas" in g else g["momentum"] for g in opt.param_groups]


def _compare(make, steps, kind="SGD", check_momentum=False):
    """Build the scheduler with `make(module, optimizer)` for both libraries, step
    both `steps` times and compare the learning rates after construction and each step."""
    mine_opt, torch_opt = _optimizers(kind)
    mine = make(lr_scheduler, mine_opt)
    theirs = make(torch.optim.lr_scheduler, torch_opt)
    seen = []
    for step in range(steps + 1):
        if step:
            mine_opt.step()  # no gradients: parameters stay, but the order is the real one
            torch_opt.step()
            mine.step()
            theirs.step()
        where = f"at epoch {theirs.last_epoch}"
        assert mine.last_epoch == theirs.last_epoch
        np.testing.assert_allclose(
            mine.get_last_lr(), theirs.get_last_lr(), rtol=RTOL, atol=0, err_msg=where
        )
        np.testing.assert_allclose(
            [g["lr"] for g in mine_opt.param_groups],
            [g["lr"] for g in torch_opt.param_groups],
            rtol=RTOL,
            err_msg=where,
        )
        if check_momentum:
            np.testing.assert_allclose(
                _momenta(mine_opt), _momenta(torch_opt), rtol=RTOL, err_msg=where
            )
        seen.append(tuple(mine.get_last_lr()))
    assert len(set(seen)) > 2, (
        "the schedule never changed the learning rate: the comparison proves little"
    )
    return mine, mine_opt


SCHEDULES = {
    "StepLR": (lambda m, o: m.StepLR(o, step_size=7, gamma=0.5), 100),
    "MultiStepLR": (lambda m, o: m.MultiStepLR(o, milestones=[60, 10, 25, 25], gamma=0.3), 100),
    "ExponentialLR": (lambda m, o: m.ExponentialLR(o, gamma=0.97), 150),
    "CosineAnnealingLR": (lambda m, o: m.CosineAnnealingLR(o, T_max=50), 50),
    "CosineAnnealingLR-periods": (
        lambda m, o: m.CosineAnnealingLR(o, T_max=20, eta_min=0.001),
        100,
    ),
    "CosineAnnealingLR-odd": (lambda m, o: m.CosineAnnealingLR(o, T_max=7, eta_min=0.005), 60),
    "LambdaLR": (lambda m, o: m.LambdaLR(o, lambda e: 1 / (1 + 0.1 * e)), 80),
    "LambdaLR-per-group": (
        lambda m, o: m.LambdaLR(o, [lambda e: 0.95**e, lambda e: min(1.0, (e + 1) / 10)]),
        80,
    ),
    "LinearLR": (lambda m, o: m.LinearLR(o, start_factor=0.25, total_iters=12), 40),
    "LinearLR-decay": (
        lambda m, o: m.LinearLR(o, start_factor=1.0, end_factor=0.1, total_iters=30),
        40,
    ),
    "LinearLR-default": (lambda m, o: m.LinearLR(o), 10),
}


@pytest.mark.parametrize("name", SCHEDULES)
def test_schedule_matches_torch(name):
    make, steps = SCHEDULES[name]
    _compare(make, steps)


ONE_CYCLE = {
    "cos": dict(max_lr=1.0, total_steps=100),
    "linear": dict(max_lr=[1.0, 0.3], total_steps=80, anneal_strategy="linear"),
    "three-phase": dict(max_lr=0.5, total_steps=90, three_phase=True),
    "three-phase-linear": dict(
        max_lr=0.5, total_steps=61, three_phase=True, anneal_strategy="linear"
    ),
    "factors": dict(
        max_lr=2.0,
        epochs=6,
        steps_per_epoch=11,
        pct_start=0.45,
        div_factor=10.0,
        final_div_factor=100.0,
    ),
    "momenta": dict(
        max_lr=0.8, total_steps=50, base_momentum=[0.8, 0.7], max_momentum=0.99, pct_start=0.1
    ),
    "no-momentum": dict(max_lr=0.8, total_steps=50, cycle_momentum=False),
}


@pytest.mark.parametrize("kind", ["SGD", "Adam"])
@pytest.mark.parametrize("name", ONE_CYCLE)
def test_one_cycle_matches_torch_with_momentum_or_beta1(name, kind):
    kwargs = ONE_CYCLE[name]
    total = kwargs.get("total_steps") or kwargs["epochs"] * kwargs["steps_per_epoch"]
    _, opt = _compare(lambda m, o: m.OneCycleLR(o, **kwargs), total, kind, check_momentum=True)
    if kwargs.get("cycle_momentum", True):
        assert opt.param_groups[0]["max_momentum"] == kwargs.get("max_momentum", 0.95)
    else:
        assert _momenta(opt) == [0.9, 0.9]  # left alone


def test_one_cycle_shape():
    """Starts at max_lr/div_factor, peaks at max_lr after pct_start, ends at the minimum."""
    opt = optim.SGD([nn.Parameter(np.zeros(1))], lr=0.1, momentum=0.9)
    sched = lr_scheduler.OneCycleLR(
        opt, max_lr=1.0, total_steps=100, pct_start=0.25, final_div_factor=100.0
    )
    lrs = [sched.get_last_lr()[0]] + [
        (opt.step(), sched.step(), sched.get_last_lr()[0])[2] for _ in range(99)
    ]
    peak = int(np.argmax(lrs))
    assert lrs[0] == pytest.approx(1.0 / 25) and max(lrs) == pytest.approx(1.0)
    assert peak == 24  # the first 25 of the 100 steps rise
    assert lrs[-1] == pytest.approx(1.0 / 25 / 100)
    assert np.all(np.diff(lrs[: peak + 1]) > 0) and np.all(np.diff(lrs[peak:]) < 0)


def test_one_cycle_refuses_to_step_past_total_steps():
    for lib, opt in zip((lr_scheduler, torch.optim.lr_scheduler), _optimizers()):
        sched = lib.OneCycleLR(opt, max_lr=1.0, total_steps=5)
        for _ in range(5):
            opt.step()
            sched.step()
        opt.step()
        with pytest.raises(ValueError, match="(?i)tried to step 6 times"):
            sched.step()


# ---- the warm-up + cosine helper --------------------------------------------------------------
def test_warmup_cosine_schedule():
    base = 0.5
    opt = optim.AdamW([nn.Parameter(np.zeros(1))], lr=base)
    sched = lr_scheduler.get_cosine_schedule_with_warmup(
        opt, num_warmup_steps=10, num_training_steps=110
    )
    assert isinstance(sched, lr_scheduler.LambdaLR)
    lrs = [opt.param_groups[0]["lr"]]
    for _ in range(130):
        opt.step()
        sched.step()
        lrs.append(opt.param_groups[0]["lr"])
    assert lrs[0] == 0.0 and lrs[5] == pytest.approx(base / 2) and lrs[10] == pytest.approx(base)
    assert lrs[60] == pytest.approx(base / 2)  # half way through the cosine
    assert lrs[110] == pytest.approx(0.0, abs=1e-15) and lrs[130] == pytest.approx(0.0, abs=1e-15)
    assert np.all(np.diff(lrs[:11]) > 0) and np.all(np.diff(lrs[10:111]) < 0)
    t = np.arange(10, 111)
    np.testing.assert_allclose(
        lrs[10:111], base * (1 + np.cos(np.pi * (t - 10) / 100)) / 2, rtol=1e-12, atol=1e-16
    )


def test_warmup_cosine_schedule_with_a_floor_and_two_groups():
    opt = optim.SGD([{"params": [nn.Parameter(np.zeros(1))], "lr": lr} for lr in LRS])
    sched = lr_scheduler.get_cosine_schedule_with_warmup(opt, 4, 24, min_lr_ratio=0.1)
    lrs = [sched.get_last_lr()] + [
        (opt.step(), sched.step(), sched.get_last_lr())[2] for _ in range(30)
    ]
    np.testing.assert_allclose(lrs[2], [LRS[0] / 2, LRS[1] / 2])
    np.testing.assert_allclose(lrs[14], [0.55 * LRS[0], 0.55 * LRS[1]])  # (1 + 0.1) / 2 of the base
    np.testing.assert_allclose(lrs[24], [0.1 * LRS[0], 0.1 * LRS[1]])
    np.testing.assert_allclose(lrs[30], lrs[24])


def test_warmup_cosine_matches_the_same_lambda_in_torch():
    mine_opt, torch_opt = _optimizers()
    mine = lr_scheduler.get_cosine_schedule_with_warmup(mine_opt, 5, 40, min_lr_ratio=0.2)
    theirs = torch.optim.lr_scheduler.LambdaLR(torch_opt, mine.lr_lambdas[0])
    for _ in range(45):
        np.testing.assert_allclose(mine.get_last_lr(), theirs.get_last_lr(), rtol=RTOL)
        mine_opt.step()
        torch_opt.step()
        mine.step()
        theirs.step()


# ---- saving and resuming -----------------------------------------------------------------------
RESUMABLE = {
    "StepLR": lambda o: lr_scheduler.StepLR(o, step_size=4, gamma=0.5),
    "MultiStepLR": lambda o: lr_scheduler.MultiStepLR(o, milestones=[5, 12, 30]),
    "CosineAnnealingLR": lambda o: lr_scheduler.CosineAnnealingLR(o, T_max=25, eta_min=1e-3),
    "OneCycleLR": lambda o: lr_scheduler.OneCycleLR(o, max_lr=0.5, total_steps=60),
    "warmup-cosine": lambda o: lr_scheduler.get_cosine_schedule_with_warmup(o, 8, 60),
}


@pytest.mark.parametrize("name", RESUMABLE)
def test_state_dict_resumes_the_schedule(name, tmp_path):
    make = RESUMABLE[name]
    opt, _ = _optimizers()
    sched = make(opt)
    for _ in range(20):
        opt.step()
        sched.step()
    mg.save(
        {"optimizer": opt.state_dict(), "scheduler": sched.state_dict()},
        tmp_path / "checkpoint.npz",
    )
    checkpoint = mg.load(tmp_path / "checkpoint.npz")
    saved_opt, saved_sched = checkpoint["optimizer"], checkpoint["scheduler"]
    assert "optimizer" not in saved_sched and saved_sched["last_epoch"] == 20

    fresh_opt, _ = _optimizers()
    fresh = make(fresh_opt)  # as PyTorch: make the scheduler first, then load both
    fresh_opt.load_state_dict(saved_opt)
    fresh.load_state_dict(saved_sched)
    for _ in range(30):
        for o, s in ((opt, sched), (fresh_opt, fresh)):
            o.step()
            s.step()
        assert fresh.get_last_lr() == sched.get_last_lr()
        assert _momenta(fresh_opt) == _momenta(opt)


def test_lambda_state_dict_keeps_callable_objects_but_not_functions():
    class Decay:
        def __init__(self, rate):
            self.rate = rate

        def __call__(self, epoch):
            return self.rate**epoch

    opt, _ = _optimizers()
    sched = lr_scheduler.LambdaLR(opt, [Decay(0.5), lambda e: 1.0])
    saved = sched.state_dict()
    assert saved["lr_lambdas"] == [{"rate": 0.5}, None]
    other = lr_scheduler.LambdaLR(_optimizers()[0], [Decay(0.9), lambda e: 1.0])
    other.load_state_dict(saved)
    assert other.lr_lambdas[0].rate == 0.5


def test_resuming_needs_initial_lr():
    opt, torch_opt = _optimizers()
    with pytest.raises(
        KeyError, match=r"StepLR: param 'initial_lr' is not specified in param_groups\[0\]"
    ):
        lr_scheduler.StepLR(opt, step_size=3, last_epoch=5)
    for lib, o in ((lr_scheduler, opt), (torch.optim.lr_scheduler, torch_opt)):
        lib.StepLR(o, step_size=3)
    sched = lr_scheduler.StepLR(opt, step_size=3, last_epoch=5)  # initial_lr is there now
    theirs = torch.optim.lr_scheduler.StepLR(torch_opt, step_size=3, last_epoch=5)
    # the first step goes to epoch 6, a multiple of 3: as torch, it multiplies the current lr by
    # gamma once
    assert sched.last_epoch == theirs.last_epoch == 6
    np.testing.assert_allclose(sched.get_last_lr(), theirs.get_last_lr(), rtol=RTOL)
    assert sched.get_last_lr() == pytest.approx([0.1 * 0.1, 0.02 * 0.1])


def test_base_lrs_come_from_the_groups():
    opt, _ = _optimizers()
    sched = lr_scheduler.ExponentialLR(opt, gamma=0.5)
    assert sched.base_lrs == list(LRS) and [g["initial_lr"] for g in opt.param_groups] == list(LRS)
    for _ in range(2):
        opt.step()
        sched.step()
    assert sched.get_last_lr() == pytest.approx([0.025, 0.005])
    returned = sched.get_last_lr()
    returned[0] = 99.0  # a copy: changing it changes nothing
    assert sched.get_last_lr()[0] == pytest.approx(0.025)


# ---- errors --------------------------------------------------------------------------------------
def test_scheduler_errors():
    opt, _ = _optimizers()
    with pytest.raises(TypeError, match="StepLR: expected an Optimizer, but got list"):
        lr_scheduler.StepLR([], step_size=3)
    with pytest.raises(ValueError, match="StepLR: step_size must be a positive integer, but got 0"):
        lr_scheduler.StepLR(opt, step_size=0)
    with pytest.raises(
        ValueError, match=r"LinearLR: start_factor expected to be in \(0, 1\], but got 0"
    ):
        lr_scheduler.LinearLR(opt, start_factor=0)
    with pytest.raises(
        ValueError, match=r"LinearLR: end_factor expected to be in \[0, 1\], but got 1.5"
    ):
        lr_scheduler.LinearLR(opt, end_factor=1.5)
    with pytest.raises(ValueError, match="CosineAnnealingLR: T_max must be positive, but got 0"):
        lr_scheduler.CosineAnnealingLR(opt, T_max=0)
    with pytest.raises(ValueError, match="LambdaLR: expected 2 lr_lambdas"):
        lr_scheduler.LambdaLR(opt, [lambda e: 1.0])
    with pytest.raises(
        ValueError, match="max_lr must have the same length as optimizer.param_groups"
    ):
        lr_scheduler.OneCycleLR(opt, max_lr=[1.0, 2.0, 3.0], total_steps=10)
    with pytest.raises(ValueError, match="OneCycleLR: you must define either total_steps"):
        lr_scheduler.OneCycleLR(opt, max_lr=1.0, epochs=3)
    with pytest.raises(
        ValueError, match="OneCycleLR: expected positive integer total_steps, but got 0"
    ):
        lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=0)
    with pytest.raises(
        ValueError, match="OneCycleLR: expected pct_start between 0 and 1, but got 1.5"
    ):
        lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=10, pct_start=1.5)
    with pytest.raises(ValueError, match="OneCycleLR: anneal_strategy must be 'cos' or 'linear'"):
        lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=10, anneal_strategy="exp")
    adagrad = optim.Adagrad([nn.Parameter(np.zeros(1))])
    with pytest.raises(
        ValueError,
        match="OneCycleLR: cycle_momentum=True needs an optimizer with momentum or betas",
    ):
        lr_scheduler.OneCycleLR(adagrad, max_lr=1.0, total_steps=10)
    lr_scheduler.OneCycleLR(adagrad, max_lr=1.0, total_steps=10, cycle_momentum=False)
    with pytest.raises(
        ValueError, match="get_cosine_schedule_with_warmup: expected 0 <= num_warmup_steps"
    ):
        lr_scheduler.get_cosine_schedule_with_warmup(opt, 20, 10)
    with pytest.raises(NotImplementedError, match="LRScheduler must implement get_lr"):
        lr_scheduler.LRScheduler(opt)
