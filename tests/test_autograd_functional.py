"""torch.autograd.functional (jacobian, hessian, vjp, jvp, vhp, hvp) and the autograd
switches (anomaly mode, multithreading, inference mode), against torch.

The rows run the same expression on both libraries (tests/surface.py): the derivatives
must equal torch's, their structure (a tensor, a tuple, a tuple of tuples) too, and with
`create_graph=True` their own gradients, checked against finite differences in float64.
"""

import threading
import warnings

import numpy as np
import pytest
import torch

import minigrad as mg

from .surface import case, ids, pos, run

TORCH_API = [
    "torch.autograd.functional",
    "torch.autograd.graph",
    "torch.autograd.set_detect_anomaly",
    "torch.autograd.inference_mode",
    "torch.autograd.is_multithreading_enabled",
    "torch.autograd.set_multithreading_enabled",
]


def F(lib):
    return lib.autograd.functional


def cubic(x):
    return x**3 - 2 * x


def mixed(x, y):
    """Two inputs, two outputs of different shapes."""
    return (x * y.sum()).exp(), (x**3).sum() * y


def energy(x, y):
    """A scalar of two inputs."""
    return (x.sin() * y.sum() ** 2).sum() + (x * x).sum() * y[0]


def matrix_energy(w):
    return (w @ w.mT).tanh().sum()


def ignores_y(x, y):
    return x.exp()


def captured(lib, c):
    """A function that uses a tensor it captured, besides its argument."""
    return lambda x: x * c + c.sum()


CASES = [
    # -- jacobian --
    case("torch.autograd.functional", lambda lib, x: F(lib).jacobian(cubic, x), (4,)),
    case(
        "torch.autograd.functional",
        lambda lib, x: F(lib).jacobian(lambda t: t.exp().sum(0), x),
        (2, 3),
    ),
    case("torch.autograd.functional", lambda lib, x, y: F(lib).jacobian(mixed, (x, y)), (3,), (2,)),
    case(
        "torch.autograd.functional",
        lambda lib, x, y: F(lib).jacobian(mixed, (x, y), create_graph=True),
        (3,),
        (2,),
    ),
    case(
        "torch.autograd.functional",
        lambda lib, x: F(lib).jacobian(cubic, x, create_graph=True),
        (2, 2),
    ),
    case(
        "torch.autograd.functional",
        lambda lib, x, y: F(lib).jacobian(mixed, (x, y), vectorize=True),
        (3,),
        (2,),
    ),
    case(
        "torch.autograd.functional",
        lambda lib, x, y: F(lib).jacobian(mixed, (x, y), vectorize=True, strategy="forward-mode"),
        (3,),
        (2,),
    ),
    case(
        "torch.autograd.functional",
        lambda lib, x, y: F(lib).jacobian(ignores_y, (x, y)),
        (3,),
        (2,),
    ),
    case(
        "torch.autograd.functional",
        lambda lib, x, c: F(lib).jacobian(captured(lib, c), x),
        (3,),
        (3,),
    ),
    case("torch.autograd.functional", lambda lib, x: F(lib).jacobian(lambda t: t.sum(), x), (3,)),
    # -- hessian --
    case(
        "torch.autograd.functional", lambda lib, x: F(lib).hessian(lambda t: (t**4).sum(), x), (3,)
    ),
    case("torch.autograd.functional", lambda lib, w: F(lib).hessian(matrix_energy, w), (2, 3)),
    case("torch.autograd.functional", lambda lib, x, y: F(lib).hessian(energy, (x, y)), (3,), (2,)),
    case(
        "torch.autograd.functional",
        lambda lib, x, y: F(lib).hessian(energy, (x, y), create_graph=True),
        (2,),
        (2,),
    ),
    case(
        "torch.autograd.functional",
        lambda lib, x, y: F(lib).hessian(
            energy, (x, y), vectorize=True, outer_jacobian_strategy="forward-mode"
        ),
        (3,),
        (2,),
    ),
    # -- products with a vector --
    case("torch.autograd.functional", lambda lib, x, v: F(lib).vjp(cubic, x, v), (2, 3), (2, 3)),
    case(
        "torch.autograd.functional",
        lambda lib, x, y, u, w: F(lib).vjp(mixed, (x, y), (u, w)),
        (3,),
        (2,),
        (3,),
        (2,),
    ),
    case(
        "torch.autograd.functional",
        lambda lib, x, y, u, w: F(lib).vjp(mixed, (x, y), (u, w), create_graph=True),
        (3,),
        (2,),
        (3,),
        (2,),
    ),
    case("torch.autograd.functional", lambda lib, x: F(lib).vjp(lambda t: (t * t).sum(), x), (3,)),
    case("torch.autograd.functional", lambda lib, x, v: F(lib).jvp(cubic, x, v), (2, 3), (2, 3)),
    case(
        "torch.autograd.functional",
        lambda lib, x, y, u, w: F(lib).jvp(mixed, (x, y), (u, w)),
        (3,),
        (2,),
        (3,),
        (2,),
    ),
    case(
        "torch.autograd.functional",
        lambda lib, x, y, u, w: F(lib).jvp(mixed, (x, y), (u, w), create_graph=True),
        (3,),
        (2,),
        (3,),
        (2,),
    ),
    case("torch.autograd.functional", lambda lib, x: F(lib).jvp(lambda t: t.exp() * 3, x), (1,)),
    case(
        "torch.autograd.functional",
        lambda lib, x, y, u, w: F(lib).vhp(energy, (x, y), (u, w)),
        (3,),
        (2,),
        (3,),
        (2,),
    ),
    case(
        "torch.autograd.functional",
        lambda lib, x, y, u, w: F(lib).hvp(energy, (x, y), (u, w)),
        (3,),
        (2,),
        (3,),
        (2,),
    ),
    case(
        "torch.autograd.functional",
        lambda lib, w, v: F(lib).hvp(matrix_energy, w, v, create_graph=True),
        (2, 2),
        (2, 2),
    ),
    case(
        "torch.autograd.functional",
        lambda lib, w, v: F(lib).vhp(matrix_energy, w, v, create_graph=True),
        (2, 2),
        (2, 2),
    ),
    case("torch.autograd.functional", lambda lib, x: F(lib).hvp(lambda t: (t**3).sum(), x), pos(1)),
    case(
        "torch.autograd.functional",
        lambda lib, x, y, v: F(lib).vjp(ignores_y, (x, y), v),
        (3,),
        (2,),
        (3,),
    ),
    # -- errors, as torch's --
    case(
        "torch.autograd.functional",
        lambda lib, x, y, v: F(lib).vjp(ignores_y, (x, y), v, strict=True),
        (3,),
        (2,),
        (3,),
        raises=RuntimeError,
    ),
    case(
        "torch.autograd.functional",
        lambda lib, x, y: F(lib).jacobian(ignores_y, (x, y), strict=True),
        (3,),
        (2,),
        raises=RuntimeError,
    ),
    case(
        "torch.autograd.functional",
        lambda lib, x: F(lib).jacobian(lambda t: t.detach(), x, strict=True),
        (3,),
        raises=RuntimeError,
    ),
    case(
        "torch.autograd.functional",
        lambda lib, x: F(lib).jacobian(cubic, x, strict=True, vectorize=True),
        (3,),
        raises=RuntimeError,
    ),
    case(
        "torch.autograd.functional",
        lambda lib, x: F(lib).jacobian(cubic, x, strategy="forward-mode"),
        (3,),
        raises=NotImplementedError,
    ),
    case(
        "torch.autograd.functional",
        lambda lib, x: F(lib).jacobian(cubic, x, strategy="sideways"),
        (3,),
        raises=AssertionError,
    ),
    case(
        "torch.autograd.functional",
        lambda lib, x: F(lib).jacobian(cubic, [x]),
        (3,),
        raises=TypeError,
    ),
    case(
        "torch.autograd.functional",
        lambda lib, x: F(lib).jacobian(lambda t: 2.0, x),
        (3,),
        raises=TypeError,
    ),
    case(
        "torch.autograd.functional",
        lambda lib, x, v: F(lib).vjp(cubic, x, v),
        (3,),
        (2,),
        raises=RuntimeError,
    ),
    case(
        "torch.autograd.functional", lambda lib, x: F(lib).vjp(cubic, x), (3,), raises=RuntimeError
    ),
    case(
        "torch.autograd.functional", lambda lib, x: F(lib).jvp(cubic, x), (3,), raises=RuntimeError
    ),
    case(
        "torch.autograd.functional",
        lambda lib, x, v: F(lib).jvp(cubic, (x,), (v, v)),
        (3,),
        (3,),
        raises=RuntimeError,
    ),
    case(
        "torch.autograd.functional",
        lambda lib, x: F(lib).hessian(cubic, x),
        (3,),
        raises=RuntimeError,
    ),
    case(
        "torch.autograd.functional",
        lambda lib, x: F(lib).hessian(lambda t: (t.sum(), t.sum()), x),
        (3,),
        raises=RuntimeError,
    ),
    case(
        "torch.autograd.functional",
        lambda lib, x, v: F(lib).hvp(cubic, x, v),
        (3,),
        (3,),
        raises=RuntimeError,
    ),
    case(
        "torch.autograd.functional",
        lambda lib, x, v: F(lib).vhp(lambda t: (t * 2).sum(), x, v, strict=True),
        (3,),
        (3,),
        raises=RuntimeError,
    ),
    case(
        "torch.autograd.functional",
        lambda lib, x, y: F(lib).jacobian(
            mixed, (x, y), create_graph=True, strategy="forward-mode", vectorize=True
        ),
        (3,),
        (2,),
        raises=NotImplementedError,
    ),
]


# torch's vmap, under vectorize=True
@pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated")
@pytest.mark.parametrize("row", CASES, ids=list(ids(CASES)))
def test_behaves_as_torch(row):
    run(row)


def test_results_are_cut_from_the_graph_unless_create_graph():
    for lib in (torch, mg):
        x = lib.tensor([0.5, 1.5], dtype=lib.float64, requires_grad=True)
        assert not lib.autograd.functional.jacobian(cubic, x).requires_grad
        assert lib.autograd.functional.jacobian(cubic, x, create_graph=True).requires_grad
        out, product = lib.autograd.functional.vjp(cubic, x, lib.ones_like(x))
        assert not out.requires_grad and not product.requires_grad
        assert x.grad is None  # nothing accumulates into .grad


def test_jacobian_matches_finite_differences():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3))
    jac = mg.autograd.functional.jacobian(lambda t: (t @ t.mT).sin(), mg.tensor(x)).numpy()
    h, numeric = 1e-6, np.zeros((2, 2, 2, 3))
    for index in np.ndindex(2, 3):
        e = np.zeros_like(x)
        e[index] = h
        numeric[(..., *index)] = (np.sin((x + e) @ (x + e).T) - np.sin((x - e) @ (x - e).T)) / (
            2 * h
        )
    np.testing.assert_allclose(jac, numeric, rtol=1e-6, atol=1e-8)


# ---- anomaly mode --------------------------------------------------------------------------------
def anomaly_state(lib):
    return lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()


def test_set_detect_anomaly_as_torch():
    for lib in (torch, mg):
        assert anomaly_state(lib) == (False, True)
        setting = lib.autograd.set_detect_anomaly(True)  # a call: on at once
        assert anomaly_state(lib) == (True, True)
        lib.autograd.set_detect_anomaly(False)
        assert anomaly_state(lib) == (False, True)
        with lib.autograd.set_detect_anomaly(True, check_nan=False):
            assert anomaly_state(lib) == (True, False)
        assert anomaly_state(lib) == (False, True)  # restored on exit
        with pytest.raises(TypeError):
            setting(lambda: None)  # not a decorator, in torch either
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            context = lib.autograd.detect_anomaly(check_nan=False)
        assert "Anomaly Detection has been enabled" in str(caught[0].message)
        with context:
            assert anomaly_state(lib) == (True, False)
        assert anomaly_state(lib) == (False, True)


def test_set_detect_anomaly_catches_a_nan_and_lets_it_pass_when_switched_off():
    x = mg.tensor([-1.0, 4.0], requires_grad=True)
    with mg.autograd.set_detect_anomaly(True):
        with pytest.raises(RuntimeError, match="Sqrt"):
            with np.errstate(invalid="ignore"):
                x.sqrt().sum().backward()
    with mg.autograd.set_detect_anomaly(True, check_nan=False):
        with np.errstate(invalid="ignore"):
            x.sqrt().sum().backward()  # the mode is on, its NaN check off: no error
    assert np.isnan(x.grad.numpy()[0])
    t = torch.tensor([-1.0, 4.0], requires_grad=True)
    with torch.autograd.set_detect_anomaly(True, check_nan=False):
        t.sqrt().sum().backward()
    assert np.isnan(t.grad.numpy()[0])


# ---- multithreading and inference mode -----------------------------------------------------------
def test_set_multithreading_enabled_is_recorded_per_thread_as_torch():
    for lib in (torch, mg):
        assert lib.autograd.is_multithreading_enabled()
        lib.autograd.set_multithreading_enabled(False)
        try:
            assert not lib.autograd.is_multithreading_enabled()
            seen = []
            worker = threading.Thread(
                target=lambda lib=lib, seen=seen: seen.append(
                    lib.autograd.is_multithreading_enabled()
                )
            )
            worker.start()
            worker.join()
            assert seen == [True]  # another thread keeps its own setting
            with lib.autograd.set_multithreading_enabled(True):
                assert lib.autograd.is_multithreading_enabled()
            assert not lib.autograd.is_multithreading_enabled()
            x = lib.tensor([1.0, 2.0], requires_grad=True)
            (x * x).sum().backward()  # backward runs, on this thread, either way
            assert x.grad.tolist() == [2.0, 4.0]
        finally:
            lib.autograd.set_multithreading_enabled(True)
        assert lib.autograd.is_multithreading_enabled()


def test_set_multithreading_enabled_decorates():
    @mg.autograd.set_multithreading_enabled(False)
    def inside():
        return mg.autograd.is_multithreading_enabled()

    assert inside() is False
    # torch's decorator leaves the setting off from the definition on (its __init__ sets it);
    # minigrad's puts it back at once, as its set_grad_enabled does (and torch's too)
    assert mg.autograd.is_multithreading_enabled()


def test_autograd_inference_mode_is_the_top_level_one():
    for lib in (torch, mg):
        assert lib.autograd.inference_mode is lib.inference_mode
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        with lib.autograd.inference_mode():
            y = x * 2
            assert lib.is_inference_mode_enabled()
        assert not y.requires_grad and y.is_inference()
        with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
            y * x

        @lib.autograd.inference_mode()
        def doubled(t):
            return t * 2

        assert doubled(x).is_inference()


# ---- torch.autograd.graph ------------------------------------------------------------------------
def saved_tensor_log(lib):
    """What pack and unpack hooks see while a small graph is built and differentiated."""
    log = []

    def pack(t):
        log.append(("pack", tuple(t.shape)))
        return t.detach().numpy().copy()  # kept as a NumPy array, off the graph

    def unpack(array):
        log.append(("unpack", array.shape))
        return lib.tensor(array)

    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = lib.tensor([3.0, 4.0], requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
        z = (x * y).exp().sum() + Cube.of(lib).apply(x).sum()
        with lib.no_grad():
            (x * y).exp()  # not recorded: nothing saved, no pack
    log.append("built")
    z.backward()
    return log, x.grad.tolist(), y.grad.tolist()


class Cube:
    """x^3 as a user-defined Function, in either library."""

    @staticmethod
    def of(lib):
        class CubeFunction(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x**3

            @staticmethod
            def backward(ctx, grad):
                (x,) = ctx.saved_tensors
                return grad * 3 * x**2

        return CubeFunction


def test_saved_tensors_hooks_as_torch():
    mine, theirs = saved_tensor_log(mg), saved_tensor_log(torch)
    assert mine[0] == theirs[0]
    np.testing.assert_allclose(mine[1], theirs[1], rtol=1e-6)
    np.testing.assert_allclose(mine[2], theirs[2], rtol=1e-6)


def test_saved_tensors_hooks_nest_and_can_be_disabled():
    for lib in (torch, mg):
        graph = lib.autograd.graph
        calls = []
        x = lib.tensor([2.0], requires_grad=True)
        with graph.saved_tensors_hooks(
            lambda t, calls=calls: calls.append("outer") or t, lambda t: t
        ):
            with graph.saved_tensors_hooks(
                lambda t, calls=calls: calls.append("inner") or t, lambda t: t
            ):
                a = x * x
            b = x * x
        c = x * x  # no hooks any more
        assert calls == ["inner", "inner", "outer", "outer"]
        (a + b + c).sum().backward()
        assert x.grad.tolist() == [12.0]
        with graph.disable_saved_tensors_hooks("hooks are off here"):
            with pytest.raises(RuntimeError, match="hooks are off here"):
                with graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                    pass
        with graph.saved_tensors_hooks(lambda t: t, lambda t: t):  # on again after the block
            pass


def test_nodes_and_gradient_edges_as_torch():
    for lib in (torch, mg):
        graph = lib.autograd.graph
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = (x * 2).sum()
        assert isinstance(y.grad_fn, graph.Node) and not isinstance(x, graph.Node)
        assert isinstance(y.grad_fn.next_functions[0][0], graph.Node)
        edge = graph.get_gradient_edge(x)
        assert isinstance(edge, graph.GradientEdge) and edge.output_nr == 0
        assert edge.node.name() == "torch::autograd::AccumulateGrad"
        assert graph.get_gradient_edge(x * 2).node.name() == "MulBackward0"
        with pytest.raises(RuntimeError, match="does not require gradients"):
            graph.get_gradient_edge(lib.ones(2))


def test_increment_version_makes_backward_notice_a_hidden_change():
    for lib in (torch, mg):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        w = lib.tensor([3.0, 4.0])
        out = (x * w).sum()
        before = w._version
        lib.autograd.graph.increment_version(w)
        assert w._version == before + 1
        with pytest.raises(
            RuntimeError, match="modified by an inplace operation|modified by an in-place operation"
        ):
            out.backward()
