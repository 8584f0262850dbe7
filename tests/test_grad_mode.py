"""Grad mode: no_grad / enable_grad / set_grad_enabled as context managers and
decorators, nesting, and what is (not) recorded under them."""

import threading

import numpy as np
import pytest
import torch

import minigrad as mg

from .helpers import leaf

# The torch names whose behaviour this file checks against torch (read by tools/api_coverage.py).
TORCH_API = [
    "torch.autograd.enable_grad",
    "torch.autograd.no_grad",
    "torch.autograd.set_grad_enabled",
    "torch.enable_grad",
    "torch.is_grad_enabled",
    "torch.no_grad",
    "torch.set_grad_enabled",
]


@pytest.fixture(autouse=True)
def grad_mode_is_restored():
    """Every test starts and must end with grad mode on (a leak would break other tests)."""
    assert mg.is_grad_enabled()
    yield
    enabled = mg.is_grad_enabled()
    mg.set_grad_enabled(True)
    assert enabled, "the test left grad mode off"


def test_grad_is_enabled_by_default_and_exported_like_torch():
    assert mg.is_grad_enabled() is True
    assert mg.no_grad is mg.autograd.no_grad
    assert mg.enable_grad is mg.autograd.enable_grad
    assert mg.set_grad_enabled is mg.autograd.set_grad_enabled
    assert mg.is_grad_enabled is mg.autograd.is_grad_enabled


def test_no_grad_context_records_nothing():
    x = leaf([1.0, 2.0])
    with mg.no_grad():
        assert mg.is_grad_enabled() is False
        y = (x * 2.0).exp().sum()
        z = x[0] + x.mean()
    assert mg.is_grad_enabled() is True
    for t in (y, z):
        assert not t.requires_grad
        assert t.grad_fn is None
        assert t.is_leaf
    np.testing.assert_allclose(y.array, np.exp(2.0) + np.exp(4.0))
    assert x.requires_grad  # the input itself is unchanged


def test_no_grad_result_can_be_used_as_a_constant_afterwards():
    x = leaf([1.0, 2.0])
    with mg.no_grad():
        c = x * 3.0
    (c * x).sum().backward()
    np.testing.assert_allclose(x.grad.array, [3.0, 6.0])  # c is a constant: d(c x)/dx = c


def test_no_grad_restores_the_mode_after_an_exception():
    with pytest.raises(ValueError):
        with mg.no_grad():
            raise ValueError("boom")
    assert mg.is_grad_enabled()


def test_no_grad_as_a_decorator():
    @mg.no_grad()
    def double(t):
        assert not mg.is_grad_enabled()
        return t * 2.0

    x = leaf([1.0])
    y = double(x)
    assert mg.is_grad_enabled()
    assert not y.requires_grad and y.grad_fn is None
    assert double.__name__ == "double"  # functools.wraps


def test_no_grad_and_enable_grad_as_decorators_without_parentheses():
    # PyTorch accepts @torch.no_grad as well as @torch.no_grad()
    @mg.no_grad
    def off():
        return mg.is_grad_enabled()

    @mg.enable_grad
    def on():
        return mg.is_grad_enabled()

    assert off() is False
    with mg.no_grad():
        assert on() is True
        assert mg.is_grad_enabled() is False
    assert mg.is_grad_enabled()


def test_decorated_function_restores_the_mode_after_an_exception():
    @mg.no_grad()
    def fail():
        raise KeyError

    with pytest.raises(KeyError):
        fail()
    assert mg.is_grad_enabled()


def test_enable_grad_inside_no_grad_records_again():
    x = leaf([1.0, 2.0])
    with mg.no_grad():
        with mg.enable_grad():
            assert mg.is_grad_enabled()
            y = (x * x).sum()
        assert not mg.is_grad_enabled()
        z = x * x
    assert y.requires_grad and y.grad_fn is not None
    assert not z.requires_grad
    y.backward()
    np.testing.assert_allclose(x.grad.array, [2.0, 4.0])


def test_enable_grad_decorator_inside_no_grad():
    @mg.enable_grad()
    def square(t):
        return t * t

    x = leaf([3.0])
    with mg.no_grad():
        y = square(x)
        assert not mg.is_grad_enabled()
    assert y.requires_grad
    y.sum().backward()
    np.testing.assert_allclose(x.grad.array, [6.0])


def test_nesting_restores_each_level():
    states = []
    with mg.no_grad():
        states.append(mg.is_grad_enabled())
        with mg.no_grad():
            states.append(mg.is_grad_enabled())
            with mg.enable_grad():
                states.append(mg.is_grad_enabled())
                with mg.no_grad():
                    states.append(mg.is_grad_enabled())
                states.append(mg.is_grad_enabled())
            states.append(mg.is_grad_enabled())
        states.append(mg.is_grad_enabled())
    states.append(mg.is_grad_enabled())
    assert states == [False, False, True, False, True, False, False, True]


def test_nesting_matches_torch():
    def trace(no_grad, enable_grad, is_enabled):
        out = []
        with no_grad():
            out.append(is_enabled())
            with enable_grad():
                out.append(is_enabled())
                with no_grad():
                    out.append(is_enabled())
                out.append(is_enabled())
            out.append(is_enabled())
        out.append(is_enabled())
        return out

    assert trace(mg.no_grad, mg.enable_grad, mg.is_grad_enabled) == trace(
        torch.no_grad, torch.enable_grad, torch.is_grad_enabled
    )


def test_set_grad_enabled_as_a_call_takes_effect_at_once():
    mg.set_grad_enabled(False)
    try:
        assert mg.is_grad_enabled() is False
        y = leaf([1.0]) * 2.0
        assert not y.requires_grad
    finally:
        mg.set_grad_enabled(True)
    assert mg.is_grad_enabled() is True


@pytest.mark.parametrize("mode", [False, True])
def test_set_grad_enabled_as_a_context_manager(mode):
    x = leaf([1.0])
    with mg.no_grad():
        with mg.set_grad_enabled(mode):
            assert mg.is_grad_enabled() is mode
            y = x * 2.0
        assert mg.is_grad_enabled() is False
    assert y.requires_grad is mode
    assert (y.grad_fn is not None) is mode


def test_set_grad_enabled_as_a_decorator_does_not_change_the_mode_when_defined():
    @mg.set_grad_enabled(False)
    def inside():
        return mg.is_grad_enabled()

    assert mg.is_grad_enabled() is True
    assert inside() is False
    assert mg.is_grad_enabled() is True


def test_no_grad_allows_in_place_updates_of_parameters():
    w = leaf([1.0, 2.0])
    (w * w).sum().backward()
    with mg.no_grad():
        w -= 0.5 * w.grad
    np.testing.assert_allclose(w.array, [0.0, 0.0])
    assert w.is_leaf and w.requires_grad and w.grad_fn is None


def test_requires_grad_leaves_created_under_no_grad_still_require_grad():
    with mg.no_grad():
        x = mg.tensor([1.0, 2.0], requires_grad=True)
        y = mg.zeros(2, requires_grad=True)
    assert x.requires_grad and y.requires_grad
    (x * 2).sum().backward()
    np.testing.assert_allclose(x.grad.array, [2.0, 2.0])


def test_backward_and_grad_restore_the_mode():
    x = leaf([1.0])
    (x * x).sum().backward()
    assert mg.is_grad_enabled()
    mg.autograd.grad((x * x).sum(), x, create_graph=True)
    assert mg.is_grad_enabled()
    with mg.no_grad():
        y = (x * x).sum()
    with mg.enable_grad():
        z = (x * x).sum()
    with mg.no_grad():
        z.backward()  # backward is allowed under no_grad, and does not turn grad mode on
        assert not mg.is_grad_enabled()
    assert not y.requires_grad
    np.testing.assert_allclose(x.grad.array, [4.0])


def test_no_grad_decorates_a_generator_step_by_step():
    x = mg.tensor([1.0, 2.0], requires_grad=True)

    @mg.no_grad()
    def doubled(n):
        for _ in range(n):
            yield x * 2.0, mg.is_grad_enabled()

    assert mg.is_grad_enabled()
    results = list(doubled(2))
    assert mg.is_grad_enabled()  # restored between and after the steps
    assert all(not enabled for _, enabled in results)
    assert all(not y.requires_grad for y, _ in results)


# ---- grad mode is per thread, as in PyTorch ------------------------------------------------
def _run_threads(*targets):
    """Run each target in its own thread; re-raise the first error in the caller."""
    errors = []

    def guarded(target):
        try:
            target()
        except BaseException as error:  # noqa: BLE001  (reported to the test below)
            errors.append(error)
            barrier.abort()  # wake the other thread rather than leave it waiting

    barrier = threading.Barrier(len(targets), timeout=30)
    threads = [threading.Thread(target=guarded, args=(lambda t=t: t(barrier),)) for t in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


def test_no_grad_in_one_thread_leaves_another_thread_recording():
    seen = {}

    def evaluator(barrier):
        with mg.no_grad():
            barrier.wait()  # 1: the other thread computes while this one is inside no_grad
            seen["evaluator"] = mg.is_grad_enabled(), (leaf([1.0]) * 2.0).requires_grad
            barrier.wait()  # 2

    def trainer(barrier):
        barrier.wait()  # 1
        seen["trainer"] = mg.is_grad_enabled(), (leaf([1.0]) * 2.0).requires_grad
        barrier.wait()  # 2

    _run_threads(evaluator, trainer)
    assert seen == {"evaluator": (False, False), "trainer": (True, True)}


def test_a_new_thread_starts_with_grad_enabled_as_torch():
    def mode_in_new_thread(is_enabled):
        result = []
        t = threading.Thread(target=lambda: result.append(is_enabled()))
        t.start()
        t.join()
        return result[0]

    with mg.no_grad(), torch.no_grad():
        assert (
            mode_in_new_thread(mg.is_grad_enabled)
            is mode_in_new_thread(torch.is_grad_enabled)
            is True
        )


def test_the_mode_lives_only_in_the_per_thread_state():
    """No module-level copy of the flag is left to read: a global `_enabled` (the mode
    before it became per-thread) would answer for another thread."""
    from minigrad.autograd import grad_mode

    assert not hasattr(grad_mode, "_enabled")
    with mg.no_grad():
        assert grad_mode._state.enabled is grad_mode.is_grad_enabled() is False


def test_two_threads_train_at_once_and_match_training_one_after_the_other():
    """Each step, one thread sits inside its optimizer's no_grad while the other runs its
    forward and backward (barriers fix that order). With one process-wide switch the
    second thread's graph would not be recorded and backward would fail."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 3))
    targets = [x @ rng.standard_normal((3, 1)) for _ in range(2)]
    steps = 10

    def make_model(seed):
        mg.manual_seed(seed)
        return mg.nn.Linear(3, 1).double()

    def loss_of(model, target):
        return ((model(mg.tensor(x)) - mg.tensor(target)) ** 2).mean()

    # reference: the two trainings one after the other, in this thread
    expected = []
    for k in range(2):
        model = make_model(k)
        opt = mg.optim.SGD(model.parameters(), lr=0.1)
        for _ in range(steps):
            opt.zero_grad()
            loss_of(model, targets[k]).backward()
            opt.step()
        expected.append(model.weight.array.copy())

    models = [make_model(k) for k in range(2)]
    optimizers = [mg.optim.SGD(m.parameters(), lr=0.1) for m in models]

    def trainer(k):
        def run(barrier):
            model, opt = models[k], optimizers[k]
            for step in range(steps):
                updating_first = step % 2 == k  # the roles swap every step
                if updating_first:
                    opt.zero_grad()
                    loss_of(model, targets[k]).backward()
                    with mg.no_grad():
                        barrier.wait()  # A: the other thread now records while this is in no_grad
                        barrier.wait()  # B: ... and has finished its backward
                        opt.step()
                else:
                    barrier.wait()  # A
                    opt.zero_grad()
                    loss = loss_of(model, targets[k])
                    assert loss.requires_grad, "this thread's graph was not recorded"
                    loss.backward()
                    barrier.wait()  # B
                    opt.step()

        return run

    _run_threads(trainer(0), trainer(1))
    for model, weight in zip(models, expected, strict=True):
        np.testing.assert_allclose(model.weight.array, weight, rtol=1e-12)
