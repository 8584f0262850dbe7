"""Optimizer hooks against torch: the step pre- and post-hooks (a pre-hook may replace the
step's arguments), the state_dict and load_state_dict hooks (a post-hook of state_dict and
a pre-hook of load_state_dict may replace the state dict), their order, `prepend=`, and
the handles' `remove()`. Each scenario runs, unchanged, on both libraries and records what
the hooks saw; the two records must be equal.
"""

import numpy as np
import pytest
import torch

import minigrad as mg

TORCH_API = [
    "torch.optim.Optimizer.register_step_pre_hook",
    "torch.optim.Optimizer.register_step_post_hook",
    "torch.optim.Optimizer.register_state_dict_pre_hook",
    "torch.optim.Optimizer.register_state_dict_post_hook",
    "torch.optim.Optimizer.register_load_state_dict_pre_hook",
    "torch.optim.Optimizer.register_load_state_dict_post_hook",
]

LIBS = [torch, mg]


def model(lib):
    weight = lib.nn.Parameter(lib.tensor([1.0, -2.0, 0.5]))
    weight.grad = lib.tensor([0.1, 0.2, -0.3])
    return weight


def describe(value):
    """What a hook received, in library-neutral terms."""
    if isinstance(value, (torch.optim.Optimizer, mg.optim.Optimizer)):
        return f"the {type(value).__name__}"
    if isinstance(value, (tuple, list)):
        return tuple(describe(v) for v in value)
    if isinstance(value, dict):
        return {k: describe(v) for k, v in value.items()}
    if callable(value):
        return "a callable"
    return value


def step_hooks(lib, make):
    weight = model(lib)
    opt = make(lib, weight)
    log = []
    first = opt.register_step_pre_hook(
        lambda o, args, kwargs: log.append(
            ("pre", type(o).__name__, describe(args), describe(kwargs))
        )
    )
    opt.register_step_post_hook(
        lambda o, args, kwargs: log.append(("post", describe(args), describe(kwargs)))
    )
    opt.step()
    loss = opt.step(lambda: lib.tensor(3.0))
    log.append(("loss", float(loss)))
    first.remove()
    first.remove()  # harmless twice
    opt.step()
    return log, weight.detach().numpy().tolist()


@pytest.mark.parametrize(
    "make",
    [
        lambda lib, w: lib.optim.SGD([w], lr=0.1, momentum=0.9),
        lambda lib, w: lib.optim.Adam([w], lr=0.1),
        lambda lib, w: lib.optim.AdamW([w], lr=0.1),
    ],
    ids=["SGD", "Adam", "AdamW"],
)
def test_step_hooks_see_the_steps_arguments(make):
    mine, theirs = step_hooks(mg, make), step_hooks(torch, make)
    assert mine[0] == theirs[0]
    np.testing.assert_allclose(mine[1], theirs[1], rtol=1e-6)


def replaced_arguments(lib):
    """A pre-hook that hands step a closure of its own: step returns that closure's loss."""
    weight = model(lib)
    opt = lib.optim.SGD([weight], lr=0.1)
    calls = []

    def closure():
        calls.append("closure")
        return lib.tensor(7.0)

    opt.register_step_pre_hook(lambda o, args, kwargs: ((o,), {"closure": closure}))
    seen = []
    opt.register_step_post_hook(lambda o, args, kwargs: seen.append(describe(kwargs)))
    loss = opt.step()
    return float(loss), calls, seen


def test_a_pre_hook_replaces_the_arguments():
    assert (
        replaced_arguments(mg)
        == replaced_arguments(torch)
        == (7.0, ["closure"], [{"closure": "a callable"}])
    )


def test_the_arguments_start_with_the_optimizer():
    for lib in LIBS:
        opt = lib.optim.SGD([model(lib)], lr=0.1)
        seen = []
        opt.register_step_pre_hook(lambda o, args, kwargs, seen=seen: seen.append(args[0] is o))
        opt.step()
        assert seen == [True]


def test_a_pre_hook_must_return_none_or_args_and_kwargs():
    for lib in LIBS:
        opt = lib.optim.SGD([model(lib)], lr=0.1)
        opt.register_step_pre_hook(lambda o, args, kwargs: "nonsense")
        with pytest.raises(RuntimeError, match="must return None or a tuple of"):
            opt.step()


def test_hooks_around_an_overridden_step():
    """A subclass's own step gets the hooks, as torch patches the class of the optimizer
    being made; its super().step() runs them again when the base class was patched too
    (an SGD was made before), in both libraries."""
    results = []
    for lib in LIBS:
        lib.optim.SGD([model(lib)], lr=0.1)

        class Halved(lib.optim.SGD):
            def step(self, closure=None):
                for group in self.param_groups:
                    group["lr"] = group["lr"] / 2
                return super().step(closure)

        weight = model(lib)
        opt = Halved([weight], lr=0.2)
        log = []
        opt.register_step_pre_hook(
            lambda o, a, k, log=log: log.append(("pre", o.param_groups[0]["lr"]))
        )
        opt.register_step_post_hook(
            lambda o, a, k, log=log: log.append(("post", o.param_groups[0]["lr"]))
        )
        opt.step()
        results.append((log, weight.detach().numpy().tolist()))
    assert (
        results[0][0] == results[1][0] == [("pre", 0.2), ("pre", 0.1), ("post", 0.1), ("post", 0.1)]
    )
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-6)


def test_lbfgs_runs_the_hooks_around_its_step():
    logs = []
    for lib in LIBS:
        weight = model(lib)
        opt = lib.optim.LBFGS([weight], lr=0.5, max_iter=3)
        log = []
        opt.register_step_pre_hook(
            lambda o, a, k, log=log: log.append(("pre", len(a), describe(k)))
        )
        opt.register_step_post_hook(lambda o, a, k, log=log: log.append("post"))

        def closure(weight=weight, opt=opt, lib=lib):
            opt.zero_grad()
            loss = ((weight - lib.tensor([1.0, 1.0, 1.0])) ** 2).sum()
            loss.backward()
            return loss

        opt.step(closure)
        logs.append(log)
    assert logs[0] == logs[1] == [("pre", 2, {}), "post"]


def state_dict_hooks(lib):
    weight = model(lib)
    opt = lib.optim.SGD([weight], lr=0.1, momentum=0.9)
    opt.step()
    log = []
    opt.register_state_dict_pre_hook(lambda o: log.append(("pre", type(o).__name__)))
    opt.register_state_dict_pre_hook(lambda o: log.append(("pre first",)), prepend=True)

    def add_note(o, state_dict):
        log.append(("post", sorted(state_dict)))
        state_dict["note"] = "saved"  # changed in place

    def replace(o, state_dict):
        log.append(("post 2", state_dict["note"]))
        return {**state_dict, "replaced": True}

    opt.register_state_dict_post_hook(add_note)
    handle = opt.register_state_dict_post_hook(replace)
    saved = opt.state_dict()
    log.append(("result", sorted(saved), saved["param_groups"][0]["lr"]))
    handle.remove()
    log.append(("after remove", sorted(opt.state_dict())))
    return log


def test_state_dict_hooks_as_torch():
    assert state_dict_hooks(mg) == state_dict_hooks(torch)


def load_state_dict_hooks(lib):
    weight = model(lib)
    opt = lib.optim.SGD([weight], lr=0.1, momentum=0.9)
    opt.step()
    saved = opt.state_dict()
    log = []

    def double_lr(o, state_dict):
        log.append(("pre", state_dict is saved, sorted(state_dict)))
        groups = [dict(g, lr=g["lr"] * 2) for g in state_dict["param_groups"]]
        return {**state_dict, "param_groups": groups}

    def note(o, state_dict):
        log.append(("pre first", state_dict["param_groups"][0]["lr"]))
        state_dict["extra"] = 1  # a shallow copy: the caller's dict is untouched

    opt.register_load_state_dict_pre_hook(double_lr)
    opt.register_load_state_dict_pre_hook(note, prepend=True)
    handle = opt.register_load_state_dict_post_hook(
        lambda o: log.append(("post", o.param_groups[0]["lr"]))
    )
    opt.load_state_dict(saved)
    log.append(("loaded lr", opt.param_groups[0]["lr"], "extra" in saved))
    handle.remove()
    opt.load_state_dict(saved)
    log.append(("after remove", opt.param_groups[0]["lr"]))
    return log


def test_load_state_dict_hooks_as_torch():
    assert load_state_dict_hooks(mg) == load_state_dict_hooks(torch)


def test_handles_work_as_context_managers():
    weight = model(mg)
    opt = mg.optim.SGD([weight], lr=0.1)
    calls = []
    with opt.register_step_post_hook(lambda o, a, k: calls.append(1)):
        opt.step()
    opt.step()
    assert calls == [1]
