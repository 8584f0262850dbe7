"""Optimizers against torch.optim, beyond the trajectories of test_optim.py.

- LBFGS: the same iterates, loss and evaluation counts as torch's on Rosenbrock's
  function and on a small least-squares problem (two parameter tensors, one without a
  gradient), in float64, with and without the strong-Wolfe line search, with a long and
  a short history; its state_dict round trip and torch's state loading here; its errors.
- ASGD's running average `ax`, which the parameters' trajectory does not show.
- Every optimizer's signature and defaults are torch's (names, order, keyword-only
  arguments, default values), so every option torch takes is accepted; the switches
  between torch's implementations (foreach, fused, capturable, differentiable=False)
  are kept in the groups as torch keeps them and change nothing here.
- add_param_group in the middle of a run, zero_grad(set_to_none=False), and named
  parameters (`model.named_parameters()`, kept as `param_names`), as torch.
"""

import contextlib
import inspect

import numpy as np
import pytest
import torch

import minigrad as mg
import minigrad.nn as nn
import minigrad.optim as optim

TORCH_API = [
    "torch.optim.LBFGS",
    "torch.optim.ASGD",
    "torch.optim.SGD",
    "torch.optim.Adam",
    "torch.optim.AdamW",
    "torch.optim.Adamax",
    "torch.optim.NAdam",
    "torch.optim.RAdam",
    "torch.optim.Adagrad",
    "torch.optim.Adadelta",
    "torch.optim.RMSprop",
    "torch.optim.Rprop",
    "torch.optim.Optimizer.add_param_group",
    "torch.optim.Optimizer.zero_grad",
    "torch.optim.Optimizer.state_dict",
    "torch.optim.Optimizer.load_state_dict",
]

ALL = [
    "SGD",
    "Adam",
    "AdamW",
    "Adamax",
    "NAdam",
    "RAdam",
    "Adagrad",
    "Adadelta",
    "RMSprop",
    "ASGD",
    "Rprop",
    "LBFGS",
]


# ---- LBFGS ---------------------------------------------------------------------------------------
def _rosenbrock(lib, P, D):
    x = P["xy"]
    return (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2


def _rosenbrock_start():
    return {}, {"xy": np.array([-1.5, 2.0])}


def _least_squares(lib, P, D):
    residual = D["X"] @ P["W"].T + P["b"] - D["Y"]
    return 0.5 * (residual**2).sum() / D["X"].shape[0]


def _least_squares_start():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((12, 4))
    W_true, b_true = rng.standard_normal((3, 4)), rng.standard_normal(3)
    data = {"X": X, "Y": X @ W_true.T + b_true + 0.1 * rng.standard_normal((12, 3))}
    # unused: grad None
    params = {"W": 0.1 * rng.standard_normal((3, 4)), "b": np.zeros(3), "unused": np.ones(2)}
    return data, params


PROBLEMS = {
    "rosenbrock": (_rosenbrock_start, _rosenbrock),
    "least-squares": (_least_squares_start, _least_squares),
}


class LBFGSRun:
    """LBFGS on one problem, in minigrad ('mg') or torch ('torch'), float64."""

    def __init__(self, lib, problem, **kwargs):
        start, self.loss_fn = PROBLEMS[problem]
        data, init = start()
        self.lib = mg if lib == "mg" else torch
        if lib == "mg":
            self.data = {k: mg.tensor(v) for k, v in data.items()}
            self.params = {k: nn.Parameter(v.copy()) for k, v in init.items()}
            self.opt = optim.LBFGS(list(self.params.values()), **kwargs)
        else:
            self.data = {k: torch.tensor(v) for k, v in data.items()}
            self.params = {k: torch.nn.Parameter(torch.tensor(v.copy())) for k, v in init.items()}
            self.opt = torch.optim.LBFGS(list(self.params.values()), **kwargs)

    def closure(self):
        self.opt.zero_grad()
        loss = self.loss_fn(self.lib, self.params, self.data)
        loss.backward()
        return loss

    def step(self):
        return float(self.opt.step(self.closure).item())

    def values(self):
        return {k: np.array(p.detach().numpy()) for k, p in self.params.items()}

    def counts(self):
        state = self.opt.state[self.opt.param_groups[0]["params"][0]]
        return state["func_evals"], state["n_iter"]


LBFGS_CONFIGS = {
    "rosenbrock-lr0.5": ("rosenbrock", dict(lr=0.5, max_iter=5), 14),
    "rosenbrock-history-3": ("rosenbrock", dict(lr=0.5, max_iter=5, history_size=3), 14),
    "rosenbrock-strong-wolfe": ("rosenbrock", dict(line_search_fn="strong_wolfe", max_iter=4), 14),
    "rosenbrock-strong-wolfe-history-2": (
        "rosenbrock",
        dict(line_search_fn="strong_wolfe", max_iter=4, history_size=2),
        14,
    ),
    "least-squares": ("least-squares", dict(lr=1, max_iter=3), 8),
    "least-squares-strong-wolfe": (
        "least-squares",
        dict(line_search_fn="strong_wolfe", max_iter=3),
        8,
    ),
    "least-squares-max-eval": ("least-squares", dict(max_iter=10, max_eval=4, history_size=5), 8),
}
# Rosenbrock's curved valley amplifies rounding: float64 sums and products done in another
# order (torch's add_ with alpha may fuse the multiply-add) drift apart to ~1e-8 over the run.
# The least-squares problem is well conditioned and stays at rounding.
LBFGS_TOL = {
    "rosenbrock": dict(rtol=1e-6, atol=1e-8),
    "least-squares": dict(rtol=1e-10, atol=1e-12),
}


@pytest.mark.parametrize("name", LBFGS_CONFIGS)
def test_lbfgs_takes_torchs_iterates(name):
    problem, kwargs, steps = LBFGS_CONFIGS[name]
    mine, theirs = LBFGSRun("mg", problem, **kwargs), LBFGSRun("torch", problem, **kwargs)
    start = theirs.values()
    for step in range(steps):
        where = f"after step {step + 1}"
        np.testing.assert_allclose(
            mine.step(), theirs.step(), **LBFGS_TOL[problem], err_msg=f"loss {where}"
        )
        assert mine.counts() == theirs.counts(), f"evaluations and iterations {where}"
        for key, value in theirs.values().items():
            np.testing.assert_allclose(
                mine.values()[key], value, **LBFGS_TOL[problem], err_msg=f"{key} {where}"
            )
    assert np.abs(mine.values()[next(iter(start))] - next(iter(start.values()))).max() > 0.1
    if problem == "rosenbrock":
        # it found the minimum
        np.testing.assert_allclose(mine.values()["xy"], [1.0, 1.0], atol=1e-3)
    np.testing.assert_array_equal(mine.values().get("unused", 0), theirs.values().get("unused", 0))


def test_lbfgs_at_a_minimum_returns_after_one_evaluation_as_torch():
    runs = [LBFGSRun(lib, "rosenbrock", tolerance_grad=1e-5) for lib in ("mg", "torch")]
    for run in runs:
        run.params["xy"].data.copy_(run.lib.tensor([1.0, 1.0], dtype=run.lib.float64))
        assert run.step() == 0.0
    assert runs[0].counts() == runs[1].counts() == (1, 0)


def test_lbfgs_state_dict_round_trip_continues_exactly(tmp_path):
    kwargs = dict(line_search_fn="strong_wolfe", max_iter=3, history_size=4)
    straight = LBFGSRun("mg", "least-squares", **kwargs)
    for _ in range(3):
        straight.step()
    mg.save(straight.opt.state_dict(), tmp_path / "lbfgs.npz")
    resumed = LBFGSRun("mg", "least-squares", lr=0.1)  # the settings come from the state dict
    for key, p in resumed.params.items():
        p.array[...] = straight.params[key].array
    resumed.opt.load_state_dict(mg.load(tmp_path / "lbfgs.npz"))
    assert resumed.opt.param_groups[0]["line_search_fn"] == "strong_wolfe"
    for _ in range(3):
        straight.step()
        resumed.step()
        for key in straight.params:
            np.testing.assert_array_equal(resumed.params[key].array, straight.params[key].array)


def _torch_to_numpy(obj):
    if isinstance(obj, torch.Tensor):
        return obj.detach().numpy().copy()
    if isinstance(obj, dict):
        return {k: _torch_to_numpy(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(_torch_to_numpy(v) for v in obj)
    return obj


def test_lbfgs_state_dict_has_torchs_layout_and_continues_torchs_run():
    kwargs = dict(max_iter=2, history_size=3)
    mine, theirs = (
        LBFGSRun("mg", "least-squares", **kwargs),
        LBFGSRun("torch", "least-squares", **kwargs),
    )
    for _ in range(3):
        mine.step()
        theirs.step()
    ours, torchs = mine.opt.state_dict(), theirs.opt.state_dict()
    assert ours["state"].keys() == torchs["state"].keys() == {0}
    assert ours["state"][0].keys() == torchs["state"][0].keys()
    assert ours["param_groups"][0].keys() == torchs["param_groups"][0].keys()

    resumed = LBFGSRun("mg", "least-squares", **kwargs)
    for key, p in resumed.params.items():
        p.array[...] = theirs.params[key].detach().numpy()
    resumed.opt.load_state_dict(_torch_to_numpy(torchs))
    for step in range(4):
        np.testing.assert_allclose(resumed.step(), theirs.step(), rtol=1e-10)
        assert resumed.counts() == theirs.counts()
        for key, value in theirs.values().items():
            np.testing.assert_allclose(
                resumed.values()[key], value, rtol=1e-10, err_msg=f"{key} at {step}"
            )


def _closure(opt, p):
    def closure():
        opt.zero_grad()
        loss = (p**2).sum()
        loss.backward()
        return loss

    return closure


def test_lbfgs_errors_are_torchs():
    for lib, module, make in ((mg, optim, nn.Parameter), (torch, torch.optim, torch.nn.Parameter)):
        p, q = make(lib.ones(2)), make(lib.ones(2))
        with pytest.raises(ValueError, match="LBFGS doesn't support per-parameter options"):
            module.LBFGS([{"params": [p]}, {"params": [q], "lr": 0.1}])
        with pytest.raises(TypeError, match="closure"):
            module.LBFGS([p]).step()
        with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
            # minigrad refuses here, torch at the step
            opt = module.LBFGS([p], line_search_fn="armijo")
            opt.step(_closure(opt, p))
    opt = optim.LBFGS([nn.Parameter(np.zeros(2))])
    with pytest.raises(ValueError, match="LBFGS doesn't support per-parameter options"):
        opt.add_param_group({"params": [nn.Parameter(np.zeros(1))]})


# ---- ASGD's average ------------------------------------------------------------------------------
@contextlib.contextmanager
def _torch_default_float64():
    """torch keeps ASGD's eta and mu in its default dtype; float64, to compare at 1e-12."""
    previous = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        yield
    finally:
        torch.set_default_dtype(previous)


@pytest.mark.parametrize("t0", [0, 10, 1e6])
def test_asgd_keeps_torchs_running_average_of_the_iterates(t0):
    rng = np.random.default_rng(2)
    start, targets = rng.standard_normal(4), rng.standard_normal((40, 4))
    p, q = nn.Parameter(start.copy()), torch.nn.Parameter(torch.tensor(start.copy()))
    mine = optim.ASGD([p], lr=0.1, lambd=1e-3, t0=t0)
    theirs = torch.optim.ASGD([q], lr=0.1, lambd=1e-3, t0=t0)
    for target in targets:  # a noisy quadratic: each step sees another target
        p.grad = mg.tensor(p.array - target)
        q.grad = torch.tensor(q.detach().numpy() - target)
        mine.step()
        with _torch_default_float64():
            theirs.step()
        for key in ("ax", "eta", "mu"):
            np.testing.assert_allclose(
                mine.state[p][key], theirs.state[q][key].numpy(), rtol=1e-12, err_msg=key
            )
        np.testing.assert_allclose(p.array, q.detach().numpy(), rtol=1e-12)
    if t0 < 40:  # the average has lagged behind the last iterate, so it is really an average
        assert np.abs(mine.state[p]["ax"] - p.array).max() > 1e-3
    else:  # before t0, ax is the last iterate
        np.testing.assert_array_equal(mine.state[p]["ax"], p.array)


# ---- every option torch takes --------------------------------------------------------------------
@pytest.mark.parametrize("name", ALL)
def test_signature_and_defaults_are_torchs(name):
    """The same arguments in the same order, keyword-only where torch's are, with the same
    defaults; and the same defaults dict (which becomes each group's hyper-parameters)."""
    mine, theirs = getattr(optim, name), getattr(torch.optim, name)

    def arguments(cls):
        return [
            (n, p.kind, p.default) for n, p in inspect.signature(cls.__init__).parameters.items()
        ]

    assert arguments(mine) == arguments(theirs)
    ours = mine([nn.Parameter(np.ones(2))]).defaults
    torchs = theirs([torch.nn.Parameter(torch.ones(2))]).defaults
    assert ours == torchs


def _flags(name):
    """The implementation switches torch's optimizer takes, each at a value that is not its
    default (but fused and foreach not both True, which torch refuses)."""
    params = inspect.signature(getattr(torch.optim, name).__init__).parameters
    choices = {"foreach": True, "capturable": True, "differentiable": False}
    if "fused" in params:
        choices.update(fused=True, foreach=False)
    return {flag: value for flag, value in choices.items() if flag in params}


def _quadratic_run(name, **kwargs):
    """Ten steps on a fixed quadratic; the parameters after each."""
    p = nn.Parameter(np.array([1.0, -2.0, 0.5]))
    opt = getattr(optim, name)([p], **kwargs)
    seen = []
    for _ in range(10):
        if name == "LBFGS":

            def closure():
                opt.zero_grad()
                loss = (p * p * mg.tensor([1.0, 3.0, 10.0])).sum()
                loss.backward()
                return loss

            opt.step(closure)
        else:
            p.grad = p.detach() * mg.tensor([1.0, 3.0, 10.0])
            opt.step()
        seen.append(p.array.copy())
    return np.array(seen), opt


@pytest.mark.parametrize("name", [n for n in ALL if _flags(n)])
def test_torchs_implementation_switches_are_kept_and_change_nothing(name):
    flags = _flags(name)
    plain, _ = _quadratic_run(name)
    switched, opt = _quadratic_run(name, **flags)
    np.testing.assert_array_equal(switched, plain)
    assert np.abs(plain[-1] - [1.0, -2.0, 0.5]).max() > 1e-3
    assert {k: opt.param_groups[0][k] for k in flags} == flags
    if "fused" in flags:  # a group may switch too, as in torch
        opt.add_param_group({"params": [nn.Parameter(np.ones(1))], "fused": False})
        assert opt.param_groups[1]["fused"] is False


@pytest.mark.parametrize("name", [n for n in ALL if "differentiable" in _flags(n)])
def test_differentiable_true_is_refused_by_name(name):
    with pytest.raises(NotImplementedError, match=f"{name}: differentiable=True is not supported"):
        getattr(optim, name)([nn.Parameter(np.ones(2))], differentiable=True)


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "Adagrad"])
def test_fused_and_foreach_together_raise_torchs_error(name):
    for module, param in (
        (optim, nn.Parameter(np.ones(2))),
        (torch.optim, torch.nn.Parameter(torch.ones(2))),
    ):
        with pytest.raises(RuntimeError, match="`fused` and `foreach` cannot be `True` together"):
            getattr(module, name)([param], fused=True, foreach=True)


# ---- add_param_group and zero_grad as torch ------------------------------------------------------
@pytest.mark.parametrize(
    "name, kwargs, group",
    [
        ("SGD", dict(lr=0.01, momentum=0.9), {"lr": 0.02, "nesterov": True}),
        ("Adam", dict(lr=0.02), {"betas": (0.8, 0.9), "weight_decay": 0.1}),
        ("Rprop", dict(lr=0.01), {"etas": (0.4, 1.3)}),
    ],
)
def test_add_param_group_in_the_middle_of_a_run_as_torch(name, kwargs, group):
    rng = np.random.default_rng(4)
    first, second, target = rng.standard_normal(3), rng.standard_normal(2), rng.standard_normal(5)
    runs = []
    for lib, module, make in ((mg, optim, nn.Parameter), (torch, torch.optim, torch.nn.Parameter)):
        a, b = make(lib.tensor(first.copy())), make(lib.tensor(second.copy()))
        opt = getattr(module, name)([a], **kwargs)
        runs.append((lib, opt, a, b))
    for step in range(20):
        if step == 5:  # the second tensor joins with its own hyper-parameters
            for _, opt, _, b in runs:
                opt.add_param_group({"params": [b], **group})
        for lib, opt, a, b in runs:
            opt.zero_grad()
            x = lib.cat([a, b]) - lib.tensor(target)
            loss = (x**2 + 0.1 * x**4).sum()
            loss.backward()
            opt.step()
        (_, mine, a, b), (_, theirs, ta, tb) = runs
        np.testing.assert_allclose(
            a.array, ta.detach().numpy(), rtol=1e-10, err_msg=f"first after {step + 1}"
        )
        np.testing.assert_allclose(
            b.array, tb.detach().numpy(), rtol=1e-10, err_msg=f"second after {step + 1}"
        )
    mine_group = {k: v for k, v in mine.param_groups[1].items() if k != "params"}
    torch_group = {k: v for k, v in theirs.param_groups[1].items() if k != "params"}
    assert mine_group == torch_group  # the defaults filled in, as torch fills them
    assert np.abs(b.array - second).max() > 1e-3


def test_add_param_group_errors_are_torchs():
    for lib, module, make in ((mg, optim, nn.Parameter), (torch, torch.optim, torch.nn.Parameter)):
        p = make(lib.zeros(2))
        opt = module.SGD([p], lr=0.1)
        with pytest.raises(
            ValueError, match="some parameters appear in more than one parameter group"
        ):
            opt.add_param_group({"params": [p]})
        with pytest.raises(KeyError, match="params"):
            opt.add_param_group({"lr": 0.1})
        with pytest.raises(TypeError, match="must be a dict"):
            opt.add_param_group([make(lib.zeros(1))])


@pytest.mark.parametrize("set_to_none", [True, False])
def test_zero_grad_leaves_what_torch_leaves(set_to_none):
    states = []
    for lib, module, make in ((mg, optim, nn.Parameter), (torch, torch.optim, torch.nn.Parameter)):
        used, unused = make(lib.tensor([1.0, 2.0])), make(lib.tensor([3.0]))
        opt = module.Adam([used, unused])
        (used**2).sum().backward()
        opt.zero_grad(set_to_none=set_to_none)
        states.append(
            [
                None if p.grad is None else (tuple(p.grad.shape), p.grad.tolist())
                for p in (used, unused)
            ]
        )
    assert states[0] == states[1]
    assert states[0][0] == (None if set_to_none else ((2,), [0.0, 0.0]))


# ---- named parameters ----------------------------------------------------------------------------
def test_named_parameters_are_accepted_and_named_in_the_state_dict_as_torch():
    rng = np.random.default_rng(5)
    weight, bias, x, y = (
        rng.standard_normal((2, 3)),
        rng.standard_normal(2),
        rng.standard_normal((8, 3)),
        rng.standard_normal((8, 2)),
    )
    mine, theirs = nn.Linear(3, 2).double(), torch.nn.Linear(3, 2).double()
    mine.load_state_dict({"weight": weight, "bias": bias})
    theirs.load_state_dict({"weight": torch.tensor(weight), "bias": torch.tensor(bias)})
    mine_opt = optim.Adam(mine.named_parameters(), lr=0.05)
    torch_opt = torch.optim.Adam(theirs.named_parameters(), lr=0.05)
    for _ in range(5):
        for model, opt, lib in ((mine, mine_opt, mg), (theirs, torch_opt, torch)):
            opt.zero_grad()
            ((model(lib.tensor(x)) - lib.tensor(y)) ** 2).mean().backward()
            opt.step()
    np.testing.assert_allclose(mine.weight.array, theirs.weight.detach().numpy(), rtol=1e-10)
    ours, torchs = mine_opt.state_dict()["param_groups"], torch_opt.state_dict()["param_groups"]
    assert ours == torchs and ours[0]["param_names"] == ["weight", "bias"]

    # loading a snapshot keeps the names; mixing named and unnamed parameters is refused
    fresh = optim.Adam(mine.named_parameters(), lr=1.0)
    fresh.load_state_dict(mine_opt.state_dict())
    assert (
        fresh.param_groups[0]["param_names"] == ["weight", "bias"]
        and fresh.param_groups[0]["lr"] == 0.05
    )
    for lib, module, make, opt in (
        (mg, optim, nn.Parameter, mine_opt),
        (torch, torch.optim, torch.nn.Parameter, torch_opt),
    ):
        p, q = make(lib.zeros(2)), make(lib.zeros(2))
        with pytest.raises(ValueError, match="all optimizer params should be with/without names"):
            module.SGD([("p", p), q], lr=0.1)
        with pytest.raises(
            ValueError, match="all optimizer param groups should be with/without names"
        ):
            opt.add_param_group({"params": [p]})
