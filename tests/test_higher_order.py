"""Higher-order derivatives: create_graph=True and mg.autograd.grad, checked against
closed forms, an explicit Hessian and torch.autograd.grad."""

import numpy as np
import pytest
import torch

import minigrad as mg
from minigrad.autograd import Function

from .helpers import assert_close, leaf, rand, tleaf

# The torch names whose behaviour this file checks against torch (read by tools/api_coverage.py).
TORCH_API = [
    "torch.autograd.grad",
]


def grad(outputs, inputs, **kwargs):
    return mg.autograd.grad(outputs, inputs, **kwargs)


# ---- second derivatives against closed forms -----------------------------------------------
def _sigmoid(a):
    return 1.0 / (1.0 + np.exp(-a))


CLOSED_FORMS = {
    # name: (f on a minigrad tensor, f'' on an ndarray, positive inputs only)
    "cube": (lambda x: x**3, lambda a: 6 * a, False),
    "tanh": (lambda x: x.tanh(), lambda a: -2 * np.tanh(a) * (1 - np.tanh(a) ** 2), False),
    "sigmoid": (
        lambda x: x.sigmoid(),
        lambda a: _sigmoid(a) * (1 - _sigmoid(a)) * (1 - 2 * _sigmoid(a)),
        False,
    ),
    "exp": (lambda x: x.exp(), np.exp, False),
    "log": (lambda x: x.log(), lambda a: -1 / a**2, True),
    "sin": (lambda x: x.sin(), lambda a: -np.sin(a), False),
    "sqrt": (lambda x: x.sqrt(), lambda a: -0.25 * a**-1.5, True),
    "reciprocal": (lambda x: 1.0 / x, lambda a: 2 / a**3, True),
}


@pytest.mark.parametrize("name", list(CLOSED_FORMS))
def test_second_derivative_matches_the_closed_form(name):
    f, f2, positive = CLOSED_FORMS[name]
    a = rand(5, seed=3, positive=positive)
    x = leaf(a)
    (g,) = grad(f(x).sum(), x, create_graph=True)
    assert g.requires_grad and g.grad_fn is not None
    (h,) = grad(g.sum(), x)
    np.testing.assert_allclose(h.array, f2(a), rtol=1e-10, atol=1e-12)
    assert x.grad is None


def test_third_derivative_of_x_to_the_fourth():
    a = rand(4, seed=5)
    x = leaf(a)
    (g1,) = grad((x**4).sum(), x, create_graph=True)
    (g2,) = grad(g1.sum(), x, create_graph=True)
    (g3,) = grad(g2.sum(), x)
    np.testing.assert_allclose(g1.array, 4 * a**3, rtol=1e-12)
    np.testing.assert_allclose(g2.array, 12 * a**2, rtol=1e-12)
    np.testing.assert_allclose(g3.array, 24 * a, rtol=1e-12)


def test_mixed_partial_derivative():
    x, y = leaf([1.5]), leaf([-2.0])
    f = x * x * y * y * y  # x^2 y^3
    (fx,) = grad(f.sum(), x, create_graph=True)
    np.testing.assert_allclose(fx.array, [2 * 1.5 * (-2.0) ** 3])
    fxy, fxx = grad(fx.sum(), [y, x])
    np.testing.assert_allclose(fxy.array, [6 * 1.5 * 4.0])  # 6 x y^2
    np.testing.assert_allclose(fxx.array, [2 * (-2.0) ** 3])  # 2 y^3


# ---- against torch.autograd.grad ------------------------------------------------------------
FUNCTIONS = {
    # name: (minigrad f, torch f, positive inputs only); x has shape (3, 4)
    "cube": (lambda x: x**3, lambda t: t**3, False),
    "tanh": (lambda x: x.tanh(), torch.tanh, False),
    "sigmoid": (lambda x: x.sigmoid(), torch.sigmoid, False),
    "exp": (lambda x: x.exp(), torch.exp, False),
    "log": (lambda x: x.log(), torch.log, True),
    "softmax": (lambda x: x.softmax(dim=-1), lambda t: t.softmax(dim=-1), False),
    "softmax_dim0": (lambda x: x.softmax(dim=0), lambda t: t.softmax(dim=0), False),
    "log_softmax": (lambda x: x.log_softmax(dim=1), lambda t: t.log_softmax(dim=1), False),
    "logsumexp": (lambda x: x.logsumexp(dim=1), lambda t: t.logsumexp(dim=1), False),
    "mean_var": (
        lambda x: x.var(dim=0) * x.mean(dim=0),
        lambda t: t.var(dim=0) * t.mean(dim=0),
        False,
    ),
    "div_pow": (lambda x: x / (x * x + 1.0) ** 0.5, lambda t: t / (t * t + 1.0) ** 0.5, False),
    "matmul_tanh": (lambda x: (x @ x.T).tanh(), lambda t: (t @ t.T).tanh(), False),
    "norm": (lambda x: x.norm(dim=1), lambda t: t.norm(dim=1), False),
    "max_dim": (lambda x: x.max(dim=1)[0] ** 2, lambda t: t.max(dim=1)[0] ** 2, False),
}


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_double_backward_matches_torch(name):
    f, tf, positive = FUNCTIONS[name]
    a = rand(3, 4, seed=7, positive=positive)
    x, t = leaf(a), tleaf(a)
    out, tout = f(x), tf(t)
    v = rand(*tout.shape, seed=8)
    w = rand(3, 4, seed=9)

    (g,) = grad(out, x, grad_outputs=mg.tensor(v), create_graph=True)
    (tg,) = torch.autograd.grad(tout, t, grad_outputs=torch.tensor(v), create_graph=True)
    assert_close(g, tg, rtol=1e-7, atol=1e-10)

    (gg,) = grad(g, x, grad_outputs=mg.tensor(w))
    (tgg,) = torch.autograd.grad(tg, t, grad_outputs=torch.tensor(w))
    assert_close(gg, tgg, rtol=1e-7, atol=1e-10)


def test_second_derivative_with_respect_to_a_weight_matches_torch():
    """A gradient penalty: d/dW of ||d(loss)/dx||^2, as in WGAN-GP."""
    a, b = rand(2, 3, seed=1), rand(3, 4, seed=2)
    x, W = leaf(a), leaf(b)
    tx, tW = tleaf(a), tleaf(b)
    (gx,) = grad((x @ W).tanh().sum(), x, create_graph=True)
    (tgx,) = torch.autograd.grad((tx @ tW).tanh().sum(), tx, create_graph=True)
    penalty, tpenalty = (gx * gx).sum(), (tgx * tgx).sum()
    penalty.backward()
    tpenalty.backward()
    assert_close(penalty, tpenalty)
    assert_close(W.grad, tW.grad)
    assert_close(x.grad, tx.grad)


# ---- Hessians ---------------------------------------------------------------------------------
def hessian(f, a):
    """The explicit Hessian of scalar f at a 1-D point, one row per element of the gradient."""
    x = leaf(a)
    (g,) = grad(f(x), x, create_graph=True)
    rows = []
    for i in range(a.size):
        seed = np.zeros(a.size)
        seed[i] = 1.0
        (row,) = grad(g, x, grad_outputs=mg.tensor(seed), retain_graph=True)
        rows.append(row.array)
    return np.stack(rows)


def hvp(f, a, v):
    """Hessian-vector product with two reverse passes: d/dx (grad f(x) . v)."""
    x = leaf(a)
    (g,) = grad(f(x), x, create_graph=True)
    (hv,) = grad((g * mg.tensor(v)).sum(), x)
    return hv.array


def test_hessian_of_a_quadratic_form_is_the_symmetric_part():
    A = rand(4, 4, seed=11)
    a = rand(4, seed=12)
    H = hessian(lambda x: 0.5 * (x @ (mg.tensor(A) @ x)), a)
    np.testing.assert_allclose(H, (A + A.T) / 2, rtol=1e-12, atol=1e-12)


def test_hessian_vector_product_equals_the_explicit_hessian_times_v():
    A = rand(3, 5, seed=13)

    def f(x):
        return (mg.tensor(A) @ x).tanh().sum() + (x * x * x).sum() + x.exp().sum() * x.sum()

    def tf(t):
        return (torch.tensor(A) @ t).tanh().sum() + (t * t * t).sum() + t.exp().sum() * t.sum()

    a, v = rand(5, seed=14), rand(5, seed=15)
    H = hessian(f, a)
    np.testing.assert_allclose(H, H.T, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(hvp(f, a, v), H @ v, rtol=1e-10, atol=1e-12)
    tH = torch.autograd.functional.hessian(tf, torch.tensor(a)).numpy()
    np.testing.assert_allclose(H, tH, rtol=1e-10, atol=1e-12)


# ---- backward(create_graph=True) -------------------------------------------------------------
def test_backward_with_create_graph_makes_grad_differentiable():
    a = rand(3, seed=4)
    x = leaf(a)
    (x**3).sum().backward(create_graph=True)
    g = x.grad
    np.testing.assert_allclose(g.array, 3 * a**2)
    assert g.requires_grad and g.grad_fn is not None
    x.grad = None
    g.sum().backward()
    np.testing.assert_allclose(x.grad.array, 6 * a)


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True:UserWarning")
def test_backward_with_create_graph_matches_torch():
    a = rand(4, seed=6)
    x, t = leaf(a), tleaf(a)
    (x.sin() * x).sum().backward(create_graph=True)
    (t.sin() * t).sum().backward(create_graph=True)
    gx, gt = x.grad, t.grad
    assert_close(gx, gt)
    (gx * gx).sum().backward()  # accumulates into x.grad on top of the first derivative
    (gt * gt).sum().backward()
    assert_close(x.grad, t.grad)


def test_without_create_graph_the_gradient_is_a_constant():
    x = leaf([2.0])
    (g,) = grad((x**3).sum(), x)
    assert not g.requires_grad and g.grad_fn is None
    np.testing.assert_allclose(g.array, [12.0])


def test_user_function_with_a_tensor_backward_is_twice_differentiable():
    class Cube(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.array**3

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 3.0 * x * x

    x = leaf([1.0, -2.0])
    (g,) = grad(Cube.apply(x).sum(), x, create_graph=True)
    (h,) = grad(g.sum(), x)
    np.testing.assert_allclose(g.array, [3.0, 12.0])
    np.testing.assert_allclose(h.array, [6.0, -12.0])


# ---- mg.autograd.grad's arguments ------------------------------------------------------------
def test_grad_leaves_dot_grad_untouched():
    x = leaf([1.0, 2.0])
    w = leaf([3.0, 4.0])
    (gx,) = grad((x * w).sum(), x)
    np.testing.assert_allclose(gx.array, [3.0, 4.0])
    assert x.grad is None and w.grad is None

    x.grad = mg.tensor([10.0, 10.0], dtype=mg.float64)
    h = x * w
    h.retain_grad()
    grad((h * h).sum(), [x, w])
    np.testing.assert_allclose(x.grad.array, [10.0, 10.0])
    assert w.grad is None and h.grad is None


def test_grad_returns_a_tuple_in_the_order_of_inputs():
    x, y = leaf([2.0]), leaf([5.0])
    out = (x * x * y).sum()
    gy, gx = grad(out, [y, x])
    np.testing.assert_allclose(gx.array, [20.0])
    np.testing.assert_allclose(gy.array, [4.0])
    result = grad((x * 3.0).sum(), x)
    assert isinstance(result, tuple) and len(result) == 1


def test_grad_with_respect_to_an_intermediate_tensor():
    x = leaf([1.0, 2.0])
    h = x * 3.0
    out = (h * h).sum()
    gh, gx = grad(out, [h, x])
    np.testing.assert_allclose(gh.array, [6.0, 12.0])
    np.testing.assert_allclose(gx.array, [18.0, 36.0])


def test_grad_of_several_outputs_sums_them():
    a = rand(3, seed=2)
    x, t = leaf(a), tleaf(a)
    outs = [x.sin(), (x * x).sum()]
    touts = [t.sin(), (t * t).sum()]
    v = rand(3, seed=3)
    (g,) = grad(outs, x, grad_outputs=[mg.tensor(v), None])
    (tg,) = torch.autograd.grad(touts, t, grad_outputs=[torch.tensor(v), None])
    assert_close(g, tg)


def test_grad_outputs_for_a_non_scalar_output():
    x = leaf([1.0, 2.0, 3.0])
    y = x * x
    with pytest.raises(RuntimeError, match=r"\(3,\)"):
        grad(y, x)
    (g,) = grad(y, x, grad_outputs=mg.tensor([1.0, 0.0, 2.0], dtype=mg.float64))
    np.testing.assert_allclose(g.array, [2.0, 0.0, 12.0])


def test_grad_outputs_count_must_match_outputs():
    x = leaf([1.0])
    with pytest.raises(ValueError, match="2 outputs but 1 gradients"):
        grad([x * 2.0, x * 3.0], x, grad_outputs=[mg.ones(1, dtype=mg.float64)])


def test_allow_unused():
    x, y, z = leaf([1.0]), leaf([2.0]), leaf([3.0])
    out = (x * y).sum()
    with pytest.raises(RuntimeError, match=r"input 2.*allow_unused=True"):
        grad(out, [x, y, z], retain_graph=True)
    gx, gy, gz = grad(out, [x, y, z], allow_unused=True)
    np.testing.assert_allclose(gx.array, [2.0])
    np.testing.assert_allclose(gy.array, [1.0])
    assert gz is None


def test_allow_unused_matches_torch_for_a_second_derivative_that_vanishes():
    # d/dx of (d(x*y)/dy = x) is 1, but d/dy of it is unused
    x, y = leaf([1.0]), leaf([2.0])
    (gy,) = grad((x * y).sum(), y, create_graph=True)
    gx2, gy2 = grad(gy.sum(), [x, y], allow_unused=True)
    tx, ty = tleaf([1.0]), tleaf([2.0])
    (tgy,) = torch.autograd.grad((tx * ty).sum(), ty, create_graph=True)
    tgx2, tgy2 = torch.autograd.grad(tgy.sum(), [tx, ty], allow_unused=True)
    assert_close(gx2, tgx2)
    assert gy2 is None and tgy2 is None


def test_grad_rejects_inputs_that_do_not_require_grad():
    x, c = leaf([1.0]), leaf([2.0], requires_grad=False)
    with pytest.raises(RuntimeError, match="input 1"):
        grad((x * c).sum(), [x, c])


def test_grad_rejects_outputs_that_do_not_require_grad():
    c = leaf([2.0], requires_grad=False)
    with pytest.raises(RuntimeError, match="does not require grad"):
        grad((c * c).sum(), c)


def test_grad_retain_graph_defaults_to_create_graph():
    x = leaf([2.0])
    out = (x**3).sum()
    grad(out, x, create_graph=True)
    (g,) = grad(out, x)  # the graph was retained by create_graph=True
    np.testing.assert_allclose(g.array, [12.0])
    with pytest.raises(RuntimeError, match="retain_graph"):
        grad(out, x)
    out = (x**3).sum()
    grad(out, x, retain_graph=True)
    (g,) = grad(out, x)
    np.testing.assert_allclose(g.array, [12.0])
