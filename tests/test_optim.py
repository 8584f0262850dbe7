"""Optimizers against PyTorch: the same problem, the same start, the same trajectory.

Each optimizer runs for 60 steps on a small tanh MLP and on an ill-conditioned quartic
bowl, in float64, in minigrad and in torch.optim, and every parameter must agree with
torch's after every step to 1e-10 relative. Then: state_dict round trips (minigrad to
minigrad, torch to minigrad), in-place updates, param groups and the error messages.
"""

import contextlib
import warnings

import numpy as np
import pytest
import torch

import minigrad as mg
import minigrad.nn as nn
import minigrad.optim as optim

# The torch names whose behaviour this file checks against torch (read by tools/api_coverage.py).
TORCH_API = [
    "torch.optim.ASGD",
    "torch.optim.Adadelta",
    "torch.optim.Adagrad",
    "torch.optim.Adam",
    "torch.optim.AdamW",
    "torch.optim.Adamax",
    "torch.optim.NAdam",
    "torch.optim.Optimizer",
    "torch.optim.Optimizer.add_param_group",
    "torch.optim.Optimizer.load_state_dict",
    "torch.optim.Optimizer.state_dict",
    "torch.optim.Optimizer.step",
    "torch.optim.Optimizer.zero_grad",
    "torch.optim.RAdam",
    "torch.optim.RMSprop",
    "torch.optim.Rprop",
    "torch.optim.SGD",
]

STEPS = 60
RTOL, ATOL = 1e-10, 1e-13


# ---- the two problems -------------------------------------------------------------------
def _mlp_start(seed=0):
    rng = np.random.default_rng(seed)
    data = {"X": rng.standard_normal((16, 3)), "Y": rng.standard_normal((16, 2))}
    params = {
        "w1": 0.5 * rng.standard_normal((5, 3)),
        "b1": 0.1 * rng.standard_normal(5),
        "w2": 0.5 * rng.standard_normal((2, 5)),
        "b2": 0.1 * rng.standard_normal(2),
        "unused": rng.standard_normal(3),  # takes no part in the loss: its grad stays None
    }
    return data, params


def _mlp_loss(P, D):
    h = (D["X"] @ P["w1"].T + P["b1"]).tanh()
    out = h @ P["w2"].T + P["b2"]
    return ((out - D["Y"]) ** 2).mean()


def _bowl_start(seed=1):
    rng = np.random.default_rng(seed)
    q, _ = np.linalg.qr(rng.standard_normal((4, 4)))
    data = {"A": q @ np.diag([0.5, 1.0, 4.0, 10.0]) @ q.T, "b": rng.standard_normal(4)}
    return data, {"x": rng.standard_normal(4)}


def _bowl_loss(P, D):
    x = P["x"]
    return 0.5 * (x * (D["A"] @ x)).sum() - (D["b"] * x).sum() + 0.05 * (x**4).sum()


PROBLEMS = {"mlp": (_mlp_start, _mlp_loss), "bowl": (_bowl_start, _bowl_loss)}


class Run:
    """One optimizer on one problem, in minigrad ('mg') or in torch ('torch')."""

    def __init__(self, lib, problem, opt_name, kwargs, groups=None, set_to_none=True):
        start, self.loss_fn = PROBLEMS[problem]
        data, init = start()
        self.lib, self.set_to_none = lib, set_to_none
        # torch keeps NAdam's running product of momentum coefficients (mu_product), and
        # ASGD's step size and averaging rate (eta, mu), in its default dtype, float32;
        # minigrad keeps them in the parameter's dtype. Comparing in float64 to 1e-10
        # needs torch's default dtype at float64 too.
        self.torch_float64 = lib == "torch" and opt_name in ("NAdam", "ASGD")
        # maximize=True climbs -loss, which takes the same way down as minimizing loss
        self.sign = -1.0 if kwargs.get("maximize") else 1.0
        if lib == "mg":
            self.array = {k: mg.tensor(v) for k, v in data.items()}
            self.params = {k: nn.Parameter(v.copy()) for k, v in init.items()}
            cls = getattr(optim, opt_name)
        else:
            self.array = {k: torch.tensor(v) for k, v in data.items()}
            self.params = {k: torch.nn.Parameter(torch.tensor(v.copy())) for k, v in init.items()}
            cls = getattr(torch.optim, opt_name)
            kwargs = dict(kwargs, foreach=False)  # the plain per-tensor loop
        if groups is None:
            spec = list(self.params.values())
        else:
            spec = [dict(g, params=[self.params[name] for name in g["params"]]) for g in groups]
        self.opt = cls(spec, **kwargs)

    def step(self):
        self.opt.zero_grad(set_to_none=self.set_to_none)
        loss = self.loss_fn(self.params, self.array)
        (self.sign * loss).backward()
        with _torch_default_float64() if self.torch_float64 else contextlib.nullcontext():
            self.opt.step()
        return float(loss.item())

    def values(self):
        return {k: np.array(p.detach().numpy()) for k, p in self.params.items()}


@contextlib.contextmanager
def _torch_default_float64():
    previous = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        yield
    finally:
        torch.set_default_dtype(previous)


def assert_same_values(mine, theirs, where=""):
    for name in theirs:
        assert np.all(np.isfinite(theirs[name])), f"{name} {where}: the problem diverged"
        np.testing.assert_allclose(
            mine[name], theirs[name], rtol=RTOL, atol=ATOL, err_msg=f"{name} {where}"
        )


# ---- trajectories against torch ----------------------------------------------------------
CONFIGS = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.05, momentum=0.9)),
    ("SGD", dict(lr=0.05, momentum=0.9, dampening=0.3, weight_decay=0.01)),
    ("SGD", dict(lr=0.05, momentum=0.8, nesterov=True, weight_decay=0.02)),
    ("SGD", dict(lr=0.01, momentum=0.5, maximize=True)),
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.02, betas=(0.8, 0.99), weight_decay=0.1)),
    ("Adam", dict(lr=0.02, amsgrad=True, weight_decay=0.01)),
    ("Adam", dict(lr=0.01, eps=1e-3, maximize=True)),
    ("AdamW", dict(lr=0.01)),
    ("AdamW", dict(lr=0.02, weight_decay=0.5, amsgrad=True, betas=(0.85, 0.9))),
    ("AdamW", dict(lr=0.01, amsgrad=True, maximize=True)),
    ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.005, alpha=0.9, momentum=0.5, centered=True, weight_decay=0.01)),
    ("RMSprop", dict(lr=0.002, centered=True)),
    ("RMSprop", dict(lr=0.002, momentum=0.9, eps=1e-4)),
    ("Adagrad", dict(lr=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, weight_decay=0.01, initial_accumulator_value=0.1)),
    ("Adagrad", dict(lr=0.05, eps=1e-3, maximize=True)),
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.8, eps=1e-4, weight_decay=0.01)),
    ("Adadelta", dict(lr=2.0, maximize=True)),
    ("Adamax", dict(lr=0.01)),
    ("Adamax", dict(lr=0.02, betas=(0.8, 0.99), eps=1e-4, weight_decay=0.1)),
    ("Adamax", dict(lr=0.01, maximize=True)),
    ("NAdam", dict(lr=0.01)),
    ("NAdam", dict(lr=0.01, betas=(0.8, 0.99), weight_decay=0.1, momentum_decay=0.01)),
    ("NAdam", dict(lr=0.01, weight_decay=0.3, decoupled_weight_decay=True, maximize=True)),
    ("RAdam", dict(lr=0.01)),
    ("RAdam", dict(lr=0.02, betas=(0.8, 0.9), weight_decay=0.1)),
    ("RAdam", dict(lr=0.01, weight_decay=0.3, decoupled_weight_decay=True, maximize=True)),
    ("ASGD", dict(lr=0.05)),
    ("ASGD", dict(lr=0.05, lambd=0.01, alpha=0.5, t0=20, weight_decay=0.01)),
    ("ASGD", dict(lr=0.02, t0=0, maximize=True)),
    ("Rprop", dict(lr=0.01)),
    ("Rprop", dict(lr=0.05, etas=(0.3, 1.5), step_sizes=(1e-3, 0.2))),
    ("Rprop", dict(lr=0.01, maximize=True)),
]
# Two groups with their own learning rate and weight decay; "unused" gets no gradient.
TWO_GROUPS = [
    {"params": ["w1", "b1"], "lr": 0.03},
    {"params": ["w2", "b2", "unused"], "weight_decay": 0.05},
]


def _ids(configs):
    return [f"{name}-" + ",".join(f"{k}={v}" for k, v in kw.items()) for name, kw in configs]


def _compare(problem, opt_name, kwargs, groups=None, set_to_none=True):
    mine = Run("mg", problem, opt_name, kwargs, groups, set_to_none)
    theirs = Run("torch", problem, opt_name, kwargs, groups, set_to_none)
    start = theirs.values()
    losses = []
    for step in range(STEPS):
        losses.append(mine.step())
        theirs.step()
        assert_same_values(mine.values(), theirs.values(), f"after step {step + 1}")
    moved = max(np.abs(mine.values()[k] - start[k]).max() for k in start)
    assert moved > 1e-3, "the parameters hardly moved: the comparison would prove nothing"
    return mine, losses


@pytest.mark.parametrize("opt_name, kwargs", CONFIGS, ids=_ids(CONFIGS))
def test_trajectory_matches_torch_on_the_bowl(opt_name, kwargs):
    _, losses = _compare("bowl", opt_name, kwargs)
    assert losses[-1] < losses[0]


@pytest.mark.parametrize("opt_name, kwargs", CONFIGS, ids=_ids(CONFIGS))
def test_trajectory_matches_torch_on_an_mlp_with_param_groups(opt_name, kwargs):
    mine, _ = _compare("mlp", opt_name, kwargs, groups=TWO_GROUPS)
    unused = mine.params["unused"]
    assert unused.grad is None
    # Adagrad's exists from the start
    assert unused not in mine.opt.state or mine.opt.state[unused]["step"] == 0
    np.testing.assert_array_equal(unused.array, _mlp_start()[1]["unused"])


@pytest.mark.parametrize("opt_name", ["SGD", "Adam", "RMSprop"])
def test_zero_grad_to_zeros_gives_the_same_trajectory(opt_name):
    kwargs = {"lr": 0.01, "momentum": 0.9} if opt_name != "Adam" else {"lr": 0.01}
    _compare("mlp", opt_name, kwargs, set_to_none=False)


# ---- state_dict -----------------------------------------------------------------------------
STATEFUL = [
    ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True)),
    ("Adam", dict(lr=0.02, amsgrad=True)),
    ("AdamW", dict(lr=0.02, weight_decay=0.1)),
    ("RMSprop", dict(lr=0.005, momentum=0.5, centered=True)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01)),
    ("Adadelta", dict(lr=0.5, weight_decay=0.01)),
    ("Adamax", dict(lr=0.02)),
    ("NAdam", dict(lr=0.02, weight_decay=0.1)),
    ("RAdam", dict(lr=0.02, weight_decay=0.1, decoupled_weight_decay=True)),
    ("ASGD", dict(lr=0.05, t0=5, lambd=0.01)),
    ("Rprop", dict(lr=0.02)),
]


def _only_plain_values(obj):
    """What a NumPy-based serializer can write: arrays, numbers, strings, None and
    dicts / lists / tuples of them (and no Tensors, no Parameters)."""
    if isinstance(obj, dict):
        return all(_only_plain_values(k) and _only_plain_values(v) for k, v in obj.items())
    if isinstance(obj, (list, tuple)):
        return all(_only_plain_values(v) for v in obj)
    return obj is None or isinstance(obj, (bool, int, float, str, np.ndarray, np.number))


@pytest.mark.parametrize("opt_name, kwargs", STATEFUL, ids=_ids(STATEFUL))
def test_state_dict_round_trip_continues_the_run_exactly(opt_name, kwargs, tmp_path):
    straight = Run("mg", "mlp", opt_name, kwargs, TWO_GROUPS)
    for _ in range(20):
        straight.step()
    saved = straight.opt.state_dict()
    assert _only_plain_values(saved)
    mg.save(saved, tmp_path / "optimizer.npz")
    saved = mg.load(tmp_path / "optimizer.npz")

    # A fresh model at the same weights, and an optimizer made with other settings:
    # everything that matters must come from the state dict.
    resumed = Run("mg", "mlp", opt_name, dict(kwargs, lr=1.0), TWO_GROUPS)
    for name, p in resumed.params.items():
        p.array[...] = straight.params[name].array
    resumed.opt.load_state_dict(saved)
    assert [g["lr"] for g in resumed.opt.param_groups] == [
        g["lr"] for g in straight.opt.param_groups
    ]
    for _ in range(20):
        straight.step()
        resumed.step()
        for name in straight.params:
            np.testing.assert_array_equal(resumed.params[name].array, straight.params[name].array)


def test_state_dict_is_a_snapshot():
    run = Run("mg", "bowl", "Adam", {"lr": 0.01})
    run.step()
    saved = run.opt.state_dict()
    before = saved["state"][0]["exp_avg"].copy()
    run.step()
    np.testing.assert_array_equal(saved["state"][0]["exp_avg"], before)
    assert saved["state"][0]["step"] == 1 and run.opt.state_dict()["state"][0]["step"] == 2


def _torch_state_to_numpy(obj):
    if isinstance(obj, torch.Tensor):
        return obj.detach().numpy().copy()
    if isinstance(obj, dict):
        return {k: _torch_state_to_numpy(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(_torch_state_to_numpy(v) for v in obj)
    return obj


@pytest.mark.parametrize("opt_name, kwargs", STATEFUL, ids=_ids(STATEFUL))
def test_state_dict_has_torchs_layout_and_loads_torchs(opt_name, kwargs):
    mine = Run("mg", "mlp", opt_name, kwargs, TWO_GROUPS)
    theirs = Run("torch", "mlp", opt_name, kwargs, TWO_GROUPS)
    for _ in range(15):
        mine.step()
        theirs.step()
    ours, torchs = mine.opt.state_dict(), theirs.opt.state_dict()
    assert ours["state"].keys() == torchs["state"].keys()
    for i in torchs["state"]:
        assert ours["state"][i].keys() == torchs["state"][i].keys(), i
    assert [g["params"] for g in ours["param_groups"]] == [
        g["params"] for g in torchs["param_groups"]
    ]
    # every hyper-parameter torch keeps in a group (foreach, fused, ... too), under the same name
    assert [g.keys() for g in ours["param_groups"]] == [g.keys() for g in torchs["param_groups"]]

    # torch's state, as NumPy, continues torch's run inside minigrad
    resumed = Run("mg", "mlp", opt_name, kwargs, TWO_GROUPS)
    for name, p in resumed.params.items():
        p.array[...] = theirs.params[name].detach().numpy()
    resumed.opt.load_state_dict(_torch_state_to_numpy(torchs))
    for step in range(15):
        resumed.step()
        theirs.step()
        assert_same_values(resumed.values(), theirs.values(), f"after resumed step {step + 1}")


def test_load_state_dict_checks_the_groups():
    run = Run("mg", "mlp", "SGD", {"lr": 0.1, "momentum": 0.9}, TWO_GROUPS)
    run.step()
    saved = run.opt.state_dict()
    one_group = Run("mg", "mlp", "SGD", {"lr": 0.1, "momentum": 0.9})
    with pytest.raises(
        ValueError, match=r"SGD.load_state_dict: loaded state dict has 2 parameter groups, but .* 1"
    ):
        one_group.opt.load_state_dict(saved)
    swapped = [{"params": ["w2", "b2", "unused"]}, {"params": ["w1", "b1"]}]
    other_sizes = Run("mg", "mlp", "SGD", {"lr": 0.1, "momentum": 0.9}, swapped)
    with pytest.raises(
        ValueError, match="doesn't match the size of optimizer's group: group 0 has 2"
    ):
        other_sizes.opt.load_state_dict(saved)


def test_loaded_state_takes_the_parameters_dtype_and_is_a_copy():
    p = nn.Parameter(np.ones(3, dtype=np.float32))
    opt = optim.Adam([p])
    saved = {
        "state": {0: {"step": np.array(4.0), "exp_avg": np.ones(3), "exp_avg_sq": np.ones(3)}},
        "param_groups": [dict(opt.state_dict()["param_groups"][0])],
    }
    opt.load_state_dict(saved)
    state = opt.state[p]
    assert state["exp_avg"].dtype == np.float32 and state["step"] == 4
    assert state["exp_avg_sq"] is not saved["state"][0]["exp_avg_sq"]


# ---- how step changes parameters ------------------------------------------------------------
def test_step_updates_in_place_so_the_model_sees_it():
    mg.manual_seed(0)
    model = nn.Linear(3, 2)
    weight, array, version = model.weight, model.weight.array, model.weight._version
    before = array.copy()
    opt = optim.SGD(model.parameters(), lr=0.1)  # a generator, read once
    model(mg.randn(4, 3)).sum().backward()
    opt.step()
    assert model.weight is weight and model.weight.array is array
    np.testing.assert_allclose(array, before - 0.1 * weight.grad.array)
    assert weight._version > version  # a graph that saved the old weight will notice
    assert weight.dtype == np.float32 and not weight.grad_fn and weight.requires_grad


def test_step_skips_parameters_without_a_gradient():
    a, b = nn.Parameter(np.ones(2)), nn.Parameter(np.ones(2))
    opt = optim.Adam([a, b], lr=0.1, weight_decay=0.1)
    (a * 2).sum().backward()
    opt.step()
    np.testing.assert_array_equal(b.array, np.ones(2))
    assert a in opt.state and b not in opt.state
    assert not np.allclose(a.array, 1)


def test_step_runs_the_closure_with_grad_enabled_and_returns_its_loss():
    p = nn.Parameter(np.array([3.0]))
    opt = optim.SGD([p], lr=0.25)
    calls = []

    def closure():
        opt.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        calls.append(loss.item())
        return loss

    with mg.no_grad():
        loss = opt.step(closure)
    assert calls == [9.0] and loss.item() == 9.0
    np.testing.assert_allclose(p.array, [3.0 - 0.25 * 6.0])


def test_zero_grad_drops_or_zeroes_the_gradients():
    p = nn.Parameter(np.ones(2))
    opt = optim.SGD([p], lr=0.1)
    (p * 3).sum().backward()
    grad = p.grad
    opt.zero_grad(set_to_none=False)
    assert p.grad is grad and np.array_equal(grad.array, [0, 0])
    opt.zero_grad()
    assert p.grad is None


def test_zero_grad_detaches_a_gradient_made_with_create_graph():
    p = nn.Parameter(np.array([2.0]))
    opt = optim.SGD([p], lr=0.1)
    (p**3).sum().backward(create_graph=True)
    assert p.grad.grad_fn is not None
    opt.zero_grad(set_to_none=False)
    assert p.grad.grad_fn is None and not p.grad.requires_grad and p.grad.array[0] == 0


def test_step_does_not_modify_the_gradient():
    p = nn.Parameter(np.array([1.0, -2.0]))
    opt = optim.SGD([p], lr=0.1, momentum=0.9, weight_decay=0.5, maximize=True)
    (p * mg.tensor([1.0, 2.0])).sum().backward()
    for _ in range(3):
        opt.step()
    np.testing.assert_array_equal(p.grad.array, [1.0, 2.0])


# ---- the rules themselves, on cases small enough to do by hand -----------------------------------
def test_adam_first_step_is_lr_times_the_sign_of_the_gradient():
    """Bias correction: after one step m̂ = g and v̂ = g², so the step is lr·g/|g|
    whatever the scale of g (without it, it would be lr·0.1/√0.001 ≈ 3.2·lr)."""
    p = nn.Parameter(np.array([1.0, 1.0, 1.0]))
    opt = optim.Adam([p], lr=0.01, eps=0.0)
    (p * mg.tensor([1e-3, -5.0, 1e4])).sum().backward()
    opt.step()
    np.testing.assert_allclose(p.array, [0.99, 1.01, 0.99], rtol=1e-12)


def test_adamw_decays_weights_that_get_no_loss_gradient_by_lr_times_weight_decay():
    # A zero loss gradient: AdamW only shrinks θ by (1 - lr·wd) per step ...
    p = nn.Parameter(np.array([2.0, -4.0]))
    opt = optim.AdamW([p], lr=0.1, weight_decay=0.01)
    for _ in range(5):
        p.grad = mg.zeros(2, dtype=mg.float64)
        opt.step()
    np.testing.assert_allclose(p.array, np.array([2.0, -4.0]) * (1 - 0.1 * 0.01) ** 5, rtol=1e-12)
    # ... while Adam's L2 gradient is normalised by √v: each step is a full lr.
    q = nn.Parameter(np.array([2.0, -4.0]))
    opt = optim.Adam([q], lr=0.1, weight_decay=0.01)
    q.grad = mg.zeros(2, dtype=mg.float64)
    opt.step()
    np.testing.assert_allclose(q.array, [1.9, -3.9], rtol=1e-6)


def test_sgd_momentum_starts_at_the_first_gradient():
    p = nn.Parameter(np.array([0.0]))
    opt = optim.SGD([p], lr=1.0, momentum=0.9, dampening=0.5)
    for expected in ([-1.0], [-1.0 - (0.9 * 1 + 0.5 * 1)]):
        p.grad = mg.tensor([1.0], dtype=mg.float64)
        opt.step()
        np.testing.assert_allclose(p.array, expected)


def test_adagrad_state_exists_before_the_first_step():
    p = nn.Parameter(np.zeros(2))
    opt = optim.Adagrad([p], initial_accumulator_value=0.5)
    np.testing.assert_array_equal(opt.state[p]["sum"], [0.5, 0.5])
    assert opt.state_dict()["state"][0]["step"] == 0


# ---- parameter groups ----------------------------------------------------------------------------
def test_param_groups_take_the_defaults_they_do_not_set():
    a, b = nn.Parameter(np.ones(1)), nn.Parameter(np.ones(1))
    opt = optim.SGD(
        [{"params": [a]}, {"params": b, "lr": 0.5, "momentum": 0.1}], lr=0.01, momentum=0.9
    )
    g0, g1 = opt.param_groups
    assert (g0["lr"], g0["momentum"], g1["lr"], g1["momentum"]) == (0.01, 0.9, 0.5, 0.1)
    assert g1["params"] == [b] and g0["nesterov"] is False and g1["dampening"] == 0


def test_add_param_group_later():
    a, b = nn.Parameter(np.ones(1)), nn.Parameter(np.ones(1))
    opt = optim.Adam([a], lr=0.1)
    opt.add_param_group({"params": [b], "lr": 0.01})
    assert len(opt.param_groups) == 2 and opt.param_groups[1]["betas"] == (0.9, 0.999)
    (a + b).sum().backward()
    opt.step()
    np.testing.assert_allclose([a.array[0], b.array[0]], [0.9, 0.99])
    with pytest.raises(
        ValueError, match="Adam: some parameters appear in more than one parameter group"
    ):
        opt.add_param_group({"params": [a]})


def test_duplicate_parameter_in_one_group_warns():
    a = nn.Parameter(np.ones(1))
    with pytest.warns(UserWarning, match="the same parameter twice"):
        optim.SGD([a, a], lr=0.1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        optim.SGD([a], lr=0.1)


def test_repr_lists_the_groups():
    opt = optim.SGD([nn.Parameter(np.ones(1))], lr=0.1, momentum=0.9)
    text = repr(opt)
    assert (
        text.startswith("SGD (\nParameter Group 0\n")
        and "    lr: 0.1\n" in text
        and "momentum: 0.9" in text
    )


# ---- errors --------------------------------------------------------------------------------------
def _p():
    return [nn.Parameter(np.ones(2))]


BAD = [
    (optim.SGD, dict(lr=-0.1), r"SGD: Invalid learning rate: -0.1 \(expected lr >= 0\)"),
    (optim.SGD, dict(lr=float("nan")), "SGD: Invalid learning rate: nan"),
    (optim.SGD, dict(momentum=-0.5), "SGD: Invalid momentum value: -0.5"),
    (optim.SGD, dict(weight_decay=-1), "SGD: Invalid weight_decay value: -1"),
    (
        optim.SGD,
        dict(nesterov=True),
        r"SGD: Nesterov momentum requires a momentum and zero dampening \(got momentum=0",
    ),
    (
        optim.SGD,
        dict(nesterov=True, momentum=0.9, dampening=0.1),
        "requires a momentum and zero dampening",
    ),
    (optim.Adam, dict(lr=-1e-3), "Adam: Invalid learning rate: -0.001"),
    (
        optim.Adam,
        dict(betas=(1.0, 0.999)),
        r"Adam: Invalid beta parameter at index 0: 1.0 \(expected 0 <= betas\[0\] < 1\)",
    ),
    (optim.Adam, dict(betas=(0.9, -0.1)), "Adam: Invalid beta parameter at index 1: -0.1"),
    (optim.Adam, dict(betas=(0.9,)), r"Adam: Invalid betas: \(0.9,\) \(expected a pair"),
    (optim.Adam, dict(eps=-1e-8), "Adam: Invalid epsilon value: -1e-08"),
    (optim.AdamW, dict(weight_decay=-0.01), "AdamW: Invalid weight_decay value: -0.01"),
    (optim.AdamW, dict(betas=(0.9, 1.5)), "AdamW: Invalid beta parameter at index 1: 1.5"),
    (optim.RMSprop, dict(alpha=-0.9), "RMSprop: Invalid alpha value: -0.9"),
    (optim.RMSprop, dict(momentum=-1), "RMSprop: Invalid momentum value: -1"),
    (optim.RMSprop, dict(eps=-1), "RMSprop: Invalid epsilon value: -1"),
    (optim.Adagrad, dict(lr_decay=-1), "Adagrad: Invalid lr_decay value: -1"),
    (
        optim.Adagrad,
        dict(initial_accumulator_value=-1),
        "Adagrad: Invalid initial_accumulator_value value: -1",
    ),
    (optim.Adagrad, dict(lr=-1), "Adagrad: Invalid learning rate: -1"),
    (optim.Adadelta, dict(rho=1.5), r"Adadelta: Invalid rho value: 1.5 \(expected 0 <= rho <= 1\)"),
    (optim.Adadelta, dict(lr=-1), "Adadelta: Invalid learning rate: -1"),
    (optim.Adadelta, dict(eps=-1), "Adadelta: Invalid epsilon value: -1"),
    (optim.Adamax, dict(betas=(1.0, 0.9)), "Adamax: Invalid beta parameter at index 0: 1.0"),
    (optim.Adamax, dict(weight_decay=-1), "Adamax: Invalid weight_decay value: -1"),
    (optim.NAdam, dict(momentum_decay=-0.1), "NAdam: Invalid momentum_decay value: -0.1"),
    (optim.NAdam, dict(betas=(0.9, 1.0)), "NAdam: Invalid beta parameter at index 1: 1.0"),
    (optim.RAdam, dict(lr=-0.5), "RAdam: Invalid learning rate: -0.5"),
    (optim.RAdam, dict(eps=-1e-8), "RAdam: Invalid epsilon value: -1e-08"),
    (optim.ASGD, dict(lr=-0.1), "ASGD: Invalid learning rate: -0.1"),
    (optim.ASGD, dict(weight_decay=-1), "ASGD: Invalid weight_decay value: -1"),
    (optim.Rprop, dict(lr=-0.1), "Rprop: Invalid learning rate: -0.1"),
    (
        optim.Rprop,
        dict(etas=(1.5, 1.2)),
        r"Rprop: Invalid eta values: 1.5, 1.2 \(expected 0 < etas\[0\] < 1 < etas\[1\]\)",
    ),
    (optim.Rprop, dict(etas=(0.5, 0.9)), "Rprop: Invalid eta values: 0.5, 0.9"),
    (optim.LBFGS, dict(lr=-1), "LBFGS: Invalid learning rate: -1"),
]


@pytest.mark.parametrize(
    "cls, kwargs, message", BAD, ids=[f"{c.__name__}-{kw}" for c, kw, _ in BAD]
)
def test_bad_hyper_parameters_are_rejected_by_name(cls, kwargs, message):
    with pytest.raises(ValueError, match=message):
        cls(_p(), **kwargs)


def test_bad_hyper_parameters_in_a_group_are_rejected_too():
    with pytest.raises(ValueError, match="Adam: Invalid learning rate: -5"):
        optim.Adam([{"params": _p()}, {"params": _p(), "lr": -5}])


def test_bad_params_arguments():
    p = nn.Parameter(np.ones(2))
    with pytest.raises(
        TypeError,
        match="SGD: params should be an iterable of Tensors or dicts, but got a single Tensor",
    ):
        optim.SGD(p, lr=0.1)
    with pytest.raises(ValueError, match="Adam: optimizer got an empty parameter list"):
        optim.Adam([])
    with pytest.raises(
        TypeError, match="SGD: optimizer parameters need to be an ordered collection"
    ):
        optim.SGD({p}, lr=0.1)
    with pytest.raises(
        TypeError, match="Adam: optimizer parameters need to be an ordered collection"
    ):
        optim.Adam([{"params": {p}}])
    with pytest.raises(
        TypeError,
        match="SGD: optimizer can only optimize Tensors, but one of the params is ndarray",
    ):
        optim.SGD([np.ones(2)], lr=0.1)
    with pytest.raises(ValueError, match="SGD: can't optimize a non-leaf Tensor"):
        optim.SGD([p * 2], lr=0.1)
    with pytest.raises(
        ValueError, match="RMSprop: some parameters appear in more than one parameter group"
    ):
        optim.RMSprop([{"params": [p]}, {"params": [p], "lr": 0.1}])
    with pytest.raises(KeyError, match="'params' entry"):
        optim.SGD([{"lr": 0.1}])
    with pytest.raises(TypeError, match="a param group must be a dict, but got list"):
        optim.SGD([p]).add_param_group([p])


def test_the_base_class_needs_an_update_rule():
    opt = optim.Optimizer(_p(), {"lr": 0.1})
    param = opt.param_groups[0]["params"][0]
    # .grad must match the parameter's shape and dtype, as in torch
    param.grad = mg.ones_like(param)
    with pytest.raises(NotImplementedError, match="Optimizer must implement update"):
        opt.step()


# ---- single optimizers, by hand ---------------------------------------------------------------
def test_nadam_in_float32_matches_torch_in_float32():
    """Here both libraries keep mu_product in float32 (torch's default dtype, our parameter's)."""
    rng = np.random.default_rng(3)
    start, target = (
        rng.standard_normal(5).astype(np.float32),
        rng.standard_normal(5).astype(np.float32),
    )
    p, q = nn.Parameter(start.copy()), torch.nn.Parameter(torch.tensor(start.copy()))
    mine, theirs = (
        optim.NAdam([p], lr=0.05, weight_decay=0.01),
        torch.optim.NAdam([q], lr=0.05, weight_decay=0.01),
    )
    for _ in range(40):
        for opt, param, lib in ((mine, p, mg), (theirs, q, torch)):
            opt.zero_grad()
            ((param - lib.tensor(target)) ** 2).sum().backward()
            opt.step()
    assert mine.state[p]["mu_product"].dtype == np.float32
    np.testing.assert_allclose(p.array, q.detach().numpy(), rtol=1e-5, atol=1e-6)
    assert np.abs(p.array - start).max() > 0.1


def test_radam_takes_plain_momentum_steps_while_the_variance_is_unreliable():
    """With β2 = 0.999, ρ_t ≤ 5 for the first 5 steps: the update is lr·m̂ exactly, so a
    constant gradient g moves θ by lr·g per step whatever the scale of g."""
    p = nn.Parameter(np.zeros(2))
    opt = optim.RAdam([p], lr=0.1)
    for step in range(1, 6):
        p.grad = mg.tensor([1e-3, 50.0], dtype=mg.float64)
        opt.step()
        np.testing.assert_allclose(p.array, [-0.1 * 1e-3 * step, -0.1 * 50.0 * step], rtol=1e-12)


def test_adamax_divides_by_the_decayed_maximum_gradient():
    p = nn.Parameter(np.zeros(1))
    opt = optim.Adamax([p], lr=1.0, betas=(0.5, 0.5), eps=0.0)
    for g in (4.0, 1.0):
        p.grad = mg.tensor([g], dtype=mg.float64)
        opt.step()
    # u = max(0.5 * 4, 1) = 2 after two steps; m = 0.5·(0.5·4) + 0.5·1 = 1.5, m̂ = 1.5 / 0.75 = 2
    assert opt.state[p]["exp_inf"][0] == 2.0
    np.testing.assert_allclose(p.array, [-1.0 - 1.0], rtol=1e-12)  # first step: m̂ / u = 4 / 4
