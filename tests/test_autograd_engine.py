"""The backward engine: user-defined Functions, accumulation, hooks, retain_graph,
freeing the graph, in-place checks, and detect_anomaly (SPEC.md, "Autograd")."""

import gc
import weakref

import numpy as np
import pytest
import torch

import minigrad as mg
from minigrad.autograd import Function

from .helpers import assert_close, leaf, rand, tleaf

# The torch names whose behaviour this file checks against torch (read by tools/api_coverage.py).
TORCH_API = [
    "torch.Tensor.backward",
    "torch.Tensor.detach",
    "torch.Tensor.grad",
    "torch.Tensor.grad_fn",
    "torch.Tensor.is_leaf",
    "torch.Tensor.register_hook",
    "torch.Tensor.retain_grad",
    "torch.Tensor.retains_grad",
    "torch.autograd.Function",
    "torch.autograd.detect_anomaly",
]


# ---- user-defined Functions, as documented in minigrad/autograd/function.py ------------------
class MulConstant(Function):
    """y = x * c for a plain number c;  dL/dx = dL/dy * c, and no gradient for c."""

    @staticmethod
    def forward(ctx, x, c):
        ctx.c = c
        return x.array * c

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.c, None


class Cube(Function):
    """y = x^3;  dL/dx = dL/dy * 3 x^2 (x saved with save_for_backward)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.array**3

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 3.0 * x * x


class Bilinear(Function):
    """y = x * w;  records ctx.needs_input_grad and computes only the gradients asked for."""

    calls = []

    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        return x.array * w.array

    @staticmethod
    def backward(ctx, grad):
        Bilinear.calls.append(ctx.needs_input_grad)
        x, w = ctx.saved_tensors
        grad_x = grad * w if ctx.needs_input_grad[0] else None
        grad_w = grad * x if ctx.needs_input_grad[1] else None
        return grad_x, grad_w


def test_user_function_with_a_non_tensor_argument():
    x = leaf([1.0, -2.0, 3.0])
    y = MulConstant.apply(x, 2.5)
    assert isinstance(y, mg.Tensor)
    np.testing.assert_allclose(y.array, [2.5, -5.0, 7.5])
    assert y.requires_grad and not y.is_leaf
    assert isinstance(y.grad_fn, MulConstant)
    assert "MulConstant" in repr(y.grad_fn)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.array, [2.5, 2.5, 2.5])


def test_user_function_save_for_backward_and_saved_tensors():
    x = leaf([0.5, -1.0, 2.0])
    y = Cube.apply(x)
    np.testing.assert_allclose(y.array, [0.125, -1.0, 8.0])
    y.backward(mg.tensor([1.0, 2.0, 3.0], dtype=mg.float64))
    np.testing.assert_allclose(x.grad.array, [0.75, 6.0, 36.0])  # 3 x^2 * g


def test_user_function_needs_input_grad_and_none_gradients():
    Bilinear.calls.clear()
    x, w = leaf([1.0, 2.0]), leaf([3.0, 4.0], requires_grad=False)
    Bilinear.apply(x, w).sum().backward()
    assert Bilinear.calls == [(True, False)]
    np.testing.assert_allclose(x.grad.array, [3.0, 4.0])
    assert w.grad is None

    Bilinear.calls.clear()
    x, w = leaf([1.0, 2.0], requires_grad=False), leaf([3.0, 4.0])
    Bilinear.apply(x, w).sum().backward()
    assert Bilinear.calls == [(False, True)]
    np.testing.assert_allclose(w.grad.array, [1.0, 2.0])
    assert x.grad is None


def test_needs_input_grad_is_false_for_non_tensor_arguments():
    seen = []

    class Scale(Function):
        @staticmethod
        def forward(ctx, x, factor, name):
            return x.array * factor

        @staticmethod
        def backward(ctx, grad):
            seen.append(ctx.needs_input_grad)
            return grad * 2.0, None, None

    x = leaf([1.0, 1.0])
    Scale.apply(x, 2.0, "two").sum().backward()
    assert seen == [(True, False, False)]
    np.testing.assert_allclose(x.grad.array, [2.0, 2.0])


def test_user_function_keyword_arguments_are_not_inputs():
    class Power(Function):
        @staticmethod
        def forward(ctx, x, p=2.0):
            ctx.save_for_backward(x)
            ctx.p = p
            return x.array**p

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * ctx.p * x ** (ctx.p - 1)  # one gradient: kwargs are not inputs

    x = leaf([2.0, 3.0])
    y = Power.apply(x, p=3.0)
    np.testing.assert_allclose(y.array, [8.0, 27.0])
    y.sum().backward()
    np.testing.assert_allclose(x.grad.array, [12.0, 27.0])


def test_user_function_forward_runs_without_recording():
    modes = []

    class Probe(Function):
        @staticmethod
        def forward(ctx, x):
            modes.append(mg.is_grad_enabled())
            out = x * 2.0  # a Tensor op inside forward must not build a graph
            modes.append(out.requires_grad)
            return out

        @staticmethod
        def backward(ctx, grad):
            return grad * 2.0

    x = leaf([1.0])
    y = Probe.apply(x)
    assert modes == [False, False]
    assert mg.is_grad_enabled()
    assert isinstance(y.grad_fn, Probe)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.array, [2.0])


def test_user_function_returning_its_input_gets_a_new_node():
    class Identity(Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad

    x = leaf([1.0, 2.0])
    y = Identity.apply(x)
    assert y is not x and x.is_leaf and x.grad_fn is None
    assert isinstance(y.grad_fn, Identity)
    (y * y).sum().backward()
    np.testing.assert_allclose(x.grad.array, [2.0, 4.0])


def test_user_function_without_grad_records_nothing():
    x = leaf([1.0, 2.0], requires_grad=False)
    y = Cube.apply(x)
    assert not y.requires_grad and y.grad_fn is None
    x = leaf([1.0, 2.0])
    with mg.no_grad():
        y = Cube.apply(x)
    assert not y.requires_grad and y.grad_fn is None


def test_user_function_gradient_of_wrong_shape_raises_clearly():
    class BadShape(Function):
        @staticmethod
        def forward(ctx, x):
            return x.array.sum()

        @staticmethod
        def backward(ctx, grad):
            return grad.reshape(1)  # should be broadcast back to x's shape (2, 3)

    x = leaf(np.ones((2, 3)))
    with pytest.raises(RuntimeError, match=r"BadShape.*\(1,\).*\(2, 3\)"):
        BadShape.apply(x).backward()


def test_user_function_wrong_number_of_gradients_raises():
    class TooFew(Function):
        @staticmethod
        def forward(ctx, x, c):
            return x.array * c

        @staticmethod
        def backward(ctx, grad):
            return grad * 2.0  # forgot the None for c

    x = leaf([1.0])
    with pytest.raises(RuntimeError, match=r"TooFew.*returned 1 gradients.*2 inputs"):
        TooFew.apply(x, 2.0).sum().backward()


def test_user_function_returning_an_ndarray_gradient_raises_clearly():
    class ArrayGrad(Function):
        @staticmethod
        def forward(ctx, x):
            return x.array * 2.0

        @staticmethod
        def backward(ctx, grad):
            return grad.array * 2.0  # an ndarray, not a Tensor

    x = leaf([1.0, 2.0])
    with pytest.raises(TypeError, match=r"ArrayGrad.*Tensor.*ndarray"):
        ArrayGrad.apply(x).sum().backward()


def test_function_without_forward_raises_not_implemented():
    class Empty(Function):
        pass

    with pytest.raises(NotImplementedError, match="forward"):
        Empty.apply(leaf([1.0]))


def test_user_function_matches_torch_autograd_function():
    class TorchCube(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 3 * x * x

    a = rand(3, 4)
    x, t = leaf(a), tleaf(a)
    out = (Cube.apply(x) * x.sin()).sum()
    tout = (TorchCube.apply(t) * t.sin()).sum()
    out.backward()
    tout.backward()
    assert_close(out, tout)
    assert_close(x.grad, t.grad)


# ---- the engine is iterative ----------------------------------------------------------------
def test_backward_through_a_chain_of_100000_ops_does_not_recurse():
    x = leaf([1.5])
    y = x
    for _ in range(100_000):
        y = -y  # an even number of negations: y == x and dy/dx == 1
    np.testing.assert_allclose(y.array, [1.5])
    y.backward(mg.tensor([2.0], dtype=mg.float64), retain_graph=True)
    np.testing.assert_allclose(x.grad.array, [2.0])
    y.sum().backward()
    np.testing.assert_allclose(x.grad.array, [3.0])


def test_deleting_a_deep_unwalked_graph_does_not_crash():
    x = leaf([1.0])
    y = x
    for _ in range(100_000):
        y = -y
    ref = weakref.ref(y.grad_fn)
    del y
    gc.collect()
    assert ref() is None


# ---- accumulation, diamonds, leaves and non-leaves -----------------------------------------
def test_gradients_accumulate_over_two_backward_calls():
    a = rand(4)
    x = leaf(a)
    (x * x).sum().backward()
    np.testing.assert_allclose(x.grad.array, 2 * a)
    (x * x * x).sum().backward()
    np.testing.assert_allclose(x.grad.array, 2 * a + 3 * a**2)
    x.grad = None
    (x * 3.0).sum().backward()
    np.testing.assert_allclose(x.grad.array, [3.0] * 4)


def test_diamond_graph_sums_both_paths():
    a = rand(5)
    x = leaf(a)
    y = x * x  # y feeds two branches that meet again
    z = (y.sin() + y.cos()).sum()
    z.backward()
    np.testing.assert_allclose(x.grad.array, (np.cos(a**2) - np.sin(a**2)) * 2 * a, rtol=1e-12)


def test_tensor_used_twice_in_one_op():
    a = rand(3, seed=1)
    x = leaf(a)
    (x * x).sum().backward()
    np.testing.assert_allclose(x.grad.array, 2 * a)
    x.grad = None
    (x + x).sum().backward()
    np.testing.assert_allclose(x.grad.array, [2.0, 2.0, 2.0])


def test_diamond_graph_matches_torch():
    a, b = rand(3, 4, seed=2), rand(4, seed=3)
    x, w = leaf(a), leaf(b)
    tx, tw = tleaf(a), tleaf(b)
    h, th = x * w, tx * tw
    loss = ((h.tanh() * h).sum(dim=1) + (h * w).exp().mean(dim=1)).sum()
    tloss = ((th.tanh() * th).sum(dim=1) + (th * tw).exp().mean(dim=1)).sum()
    loss.backward()
    tloss.backward()
    assert_close(loss, tloss)
    assert_close(x.grad, tx.grad)
    assert_close(w.grad, tw.grad)


def test_summing_three_gradients_leaves_the_ones_it_was_given_unchanged():
    # the engine adds a third gradient into the sum of the first two in place; the first
    # (here the caller's own gradient, handed on by both adds) must not be written to
    a = rand(3, seed=4)
    x = leaf(a)
    g = mg.tensor([1.0, 2.0, 3.0], dtype=mg.float64)
    ((x + x) + x).backward(g)
    np.testing.assert_array_equal(g.array, [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(x.grad.array, [3.0, 6.0, 9.0])


@pytest.mark.parametrize("direct_first", [True, False])
def test_split_pieces_and_a_direct_use_sum_to_torchs_gradient(direct_first):
    # the pieces' gradients are written into one array a slice each (SliceGradient), in
    # whatever order they and the direct use's dense gradient arrive
    a = rand(4, 6, seed=5)

    def loss(lib, x):
        p, q, r = x.split([1, 2, 3], dim=1)
        pieces = (p * 2.0).sum() + (q**2).sum() + (r.exp() * p).sum()
        direct = (x * x.sin()).sum()
        return direct + pieces if direct_first else pieces + direct

    x, tx = leaf(a), tleaf(a)
    seen = []
    x.register_hook(lambda g: seen.append(g.shape))  # a hook sees the whole gradient
    loss(mg, x).backward()
    loss(torch, tx).backward()
    assert_close(x.grad, tx.grad)
    assert seen == [(4, 6)]
    # recorded (create_graph=True), the pieces' gradients stay ops of the graph
    x2, tx2 = leaf(a), tleaf(a)
    (g,) = mg.autograd.grad(loss(mg, x2), x2, create_graph=True)
    (tg,) = torch.autograd.grad(loss(torch, tx2), tx2, create_graph=True)
    (g * g).sum().backward()
    (tg * tg).sum().backward()
    assert_close(x2.grad, tx2.grad)


def test_only_leaves_get_grad_by_default():
    x = leaf([1.0, 2.0])
    c = leaf([3.0, 4.0], requires_grad=False)
    h = x * c
    assert x.is_leaf and c.is_leaf and not h.is_leaf
    h.sum().backward()
    np.testing.assert_allclose(x.grad.array, [3.0, 4.0])
    assert h.grad is None
    assert c.grad is None
    assert x.grad.grad_fn is None and not x.grad.requires_grad


def test_retain_grad_keeps_the_gradient_of_a_non_leaf():
    a = rand(3)
    x = leaf(a)
    h = x * 2.0
    h.retain_grad()
    assert h.retains_grad
    (h * h).sum().backward()
    np.testing.assert_allclose(h.grad.array, 2 * (2 * a))  # d(h^2)/dh = 2h
    np.testing.assert_allclose(x.grad.array, 8 * a)
    assert not h.grad.requires_grad


def test_retain_grad_accumulates_and_is_a_no_op_on_leaves():
    x = leaf([1.0, 2.0])
    x.retain_grad()  # leaves always keep their gradient
    assert not x.retains_grad
    h = x * 3.0
    h.retain_grad()
    out = h.sum()
    out.backward(retain_graph=True)
    out.backward()
    np.testing.assert_allclose(h.grad.array, [2.0, 2.0])
    np.testing.assert_allclose(x.grad.array, [6.0, 6.0])


def test_retain_grad_on_a_tensor_without_grad_raises():
    with pytest.raises(RuntimeError, match="requires_grad"):
        mg.tensor([1.0]).retain_grad()


def test_leaf_grad_does_not_alias_a_gradient_another_leaf_holds():
    # a + b hands the same incoming gradient to both inputs
    a, b = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    g = mg.tensor([1.0, 1.0], dtype=mg.float64)
    (a + b).backward(g)
    with mg.no_grad():
        a.grad += 5.0
    np.testing.assert_allclose(a.grad.array, [6.0, 6.0])
    np.testing.assert_allclose(b.grad.array, [1.0, 1.0])
    np.testing.assert_allclose(g.array, [1.0, 1.0])


def test_leaf_grad_does_not_alias_the_gradient_passed_to_backward():
    x = leaf([1.0, 2.0])
    g = mg.tensor([1.0, 1.0], dtype=mg.float64)
    (x + 0.0).backward(g)
    g.array[...] = 7.0
    np.testing.assert_allclose(x.grad.array, [1.0, 1.0])


class ViewOfFresh(Function):
    """y = 2 x;  dL/dx = 2 dL/dy computed flat and handed back as a view of that fresh
    array (as attention's kernels hand back (B H, T, d) arrays seen as (B, H, T, d)),
    with the flat array also kept in `held` when `hold` is set."""

    held = []

    @staticmethod
    def forward(ctx, x, hold):
        ctx.hold = hold
        return x.array * 2.0

    @staticmethod
    def backward(ctx, grad):
        flat = (grad.array * 2.0).reshape(-1)  # a fresh array
        if ctx.hold:
            ViewOfFresh.held.append(flat)  # something else now sees that memory
        return mg.from_numpy(flat.reshape(grad.shape)), None  # shares the memory


@pytest.mark.parametrize("hold", [False, True])
def test_a_leaf_keeps_a_gradient_view_only_when_nothing_else_holds_its_memory(hold):
    """A view of a fresh array that nothing else holds is kept as `.grad` without a copy,
    as PyTorch's AccumulateGrad keeps a gradient no other tensor uses; if anything else
    holds the array (here a list of the Function's), `.grad` gets a copy of its own, so that
    writing into `.grad` (an optimizer's in-place update) cannot change it."""
    x = leaf([[1.0, 2.0], [3.0, 4.0]])
    ViewOfFresh.apply(x, hold).sum().backward()
    np.testing.assert_array_equal(x.grad.array, [[2.0, 2.0], [2.0, 2.0]])
    assert (x.grad.array.base is not None) is not hold  # the view itself, or a copy
    if hold:
        with mg.no_grad():
            x.grad += 1.0
        np.testing.assert_array_equal(ViewOfFresh.held.pop(), [2.0, 2.0, 2.0, 2.0])


def test_float32_leaf_gets_a_float32_grad():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    (x * 2).sum().backward()
    assert x.grad.dtype == mg.float32
    np.testing.assert_allclose(x.grad.array, [2.0, 2.0])


# ---- hooks ----------------------------------------------------------------------------------
def test_hook_on_a_non_leaf_modifies_the_gradient_flowing_back():
    a = rand(3)
    x = leaf(a)
    h = x * 2.0
    seen = []

    def hook(grad):
        seen.append(grad.array.copy())
        return grad * 10.0

    handle = h.register_hook(hook)
    (h * h).sum().backward()
    np.testing.assert_allclose(seen[0], 4 * a)  # the hook sees d(h^2)/dh = 2h
    np.testing.assert_allclose(x.grad.array, 80 * a)  # 10 * 2h * 2

    handle.remove()
    x.grad = None
    h = x * 2.0
    (h * h).sum().backward()
    np.testing.assert_allclose(x.grad.array, 8 * a)
    assert len(seen) == 1


def test_removed_hook_no_longer_runs():
    x = leaf([1.0, 2.0])
    h = x * 1.0
    calls = []
    handle = h.register_hook(lambda g: calls.append(1))
    out = h.sum()
    out.backward(retain_graph=True)
    assert calls == [1]
    handle.remove()
    out.backward()
    assert calls == [1]
    np.testing.assert_allclose(x.grad.array, [2.0, 2.0])


def test_hook_returning_none_leaves_the_gradient_unchanged():
    x = leaf([1.0, 2.0])
    seen = []
    x.register_hook(lambda g: seen.append(g.array.copy()))
    (x * 3.0).sum().backward()
    np.testing.assert_allclose(seen[0], [3.0, 3.0])
    np.testing.assert_allclose(x.grad.array, [3.0, 3.0])


def test_hooks_chain_in_registration_order():
    x = leaf([1.0])
    x.register_hook(lambda g: g + 1.0)
    x.register_hook(lambda g: g * 10.0)
    (x * 2.0).sum().backward()
    np.testing.assert_allclose(x.grad.array, [30.0])  # (2 + 1) * 10, not 2 * 10 + 1


def test_hooks_and_retain_grad_match_torch():
    a = rand(3)
    x, t = leaf(a), tleaf(a)
    h, th = x * 2.0, t * 2.0
    h.retain_grad()
    th.retain_grad()
    h.register_hook(lambda g: g * 10.0)
    th.register_hook(lambda g: g * 10.0)
    x.register_hook(lambda g: g + 1.0)
    t.register_hook(lambda g: g + 1.0)
    ((h * h).sum() + x.sum()).backward()
    ((th * th).sum() + t.sum()).backward()
    assert_close(h.grad, th.grad)
    assert_close(x.grad, t.grad)


def test_hook_returning_a_wrong_shape_or_an_array_raises_clearly():
    x = leaf([1.0, 2.0])
    x.register_hook(lambda g: g.sum())  # would silently make x.grad a scalar
    with pytest.raises(RuntimeError, match=r"hook.*shape \(\).*\(2,\)"):
        (x * x).sum().backward()

    def as_array(g):
        return g.array * 2.0

    h = leaf([1.0, 2.0]) * 1.0
    h.register_hook(as_array)
    with pytest.raises(RuntimeError, match=r"as_array.*ndarray"):
        (h * h).sum().backward()


def test_register_hook_on_a_tensor_without_grad_raises():
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        mg.tensor([1.0]).register_hook(lambda g: g)


# ---- retain_graph and a freed graph ---------------------------------------------------------
def test_second_backward_through_a_freed_graph_raises_naming_retain_graph():
    x = leaf([1.0, 2.0])
    loss = (x.exp() * x).sum()
    loss.backward()
    with pytest.raises(RuntimeError, match="retain_graph"):
        loss.backward()


def test_second_backward_raises_even_through_a_partially_shared_graph():
    x = leaf([1.0, 2.0])
    h = x.exp()
    (h * 2.0).sum().backward()  # frees h's node
    with pytest.raises(RuntimeError, match="retain_graph"):
        (h * 3.0).sum().backward()


def test_retain_graph_true_allows_a_second_backward():
    a = rand(3)
    x = leaf(a)
    loss = (x.exp() * x).sum()
    loss.backward(retain_graph=True)
    loss.backward()
    np.testing.assert_allclose(x.grad.array, 2 * (np.exp(a) * (a + 1)))
    with pytest.raises(RuntimeError, match="retain_graph"):
        loss.backward()  # the second call did not retain it


def test_autograd_grad_twice_without_retain_graph_raises():
    x = leaf([1.0, 2.0])
    y = (x * x).sum()
    mg.autograd.grad(y, x)
    with pytest.raises(RuntimeError, match="retain_graph"):
        mg.autograd.grad(y, x)


# ---- argument errors ------------------------------------------------------------------------
def test_backward_on_a_non_scalar_needs_a_gradient_and_names_the_shape():
    x = leaf(np.ones((2, 3)))
    y = x * 2.0
    with pytest.raises(RuntimeError, match=r"\(2, 3\)"):
        y.backward()
    y.backward(mg.ones(2, 3, dtype=mg.float64))
    np.testing.assert_allclose(x.grad.array, np.full((2, 3), 2.0))


def test_backward_with_a_gradient_of_the_wrong_shape_raises():
    y = leaf(np.ones((2, 3))) * 2.0
    with pytest.raises(RuntimeError, match=r"\(3, 2\).*\(2, 3\)"):
        y.backward(mg.ones(3, 2, dtype=mg.float64))


def test_backward_on_a_tensor_that_does_not_require_grad_raises():
    with pytest.raises(RuntimeError, match="does not require grad"):
        mg.tensor([1.0, 2.0]).sum().backward()
    x = leaf([1.0, 2.0])
    with mg.no_grad():
        y = (x * 2.0).sum()
    with pytest.raises(RuntimeError, match="does not require grad"):
        y.backward()


def test_backward_accepts_a_size_one_non_scalar():
    x = leaf([[2.0]])
    (x * x).backward()
    np.testing.assert_allclose(x.grad.array, [[4.0]])


# ---- in-place ops and the version counter ---------------------------------------------------
@pytest.mark.parametrize(
    "op",
    [
        lambda t: t.__iadd__(1.0),
        lambda t: t.__isub__(1.0),
        lambda t: t.__imul__(2.0),
        lambda t: t.__itruediv__(2.0),
        lambda t: t.add_(1.0),
        lambda t: t.zero_(),
        lambda t: t.__setitem__(0, 5.0),
    ],
    ids=["iadd", "isub", "imul", "idiv", "add_", "zero_", "setitem"],
)
def test_in_place_op_on_a_leaf_that_requires_grad_raises(op):
    x = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match="in-place"):
        op(x)
    np.testing.assert_allclose(x.array, [1.0, 2.0])  # nothing was changed
    with mg.no_grad():
        op(x)  # the optimizer-update pattern
    assert x.is_leaf and x.requires_grad


def test_in_place_op_on_a_non_leaf_that_requires_grad_is_recorded():
    # as PyTorch: h takes the new node, and the gradient flows through it
    # (the full set of programs against torch: tests/test_inplace_autograd.py)
    x = leaf([1.0, 2.0])
    h = x * 2.0
    h += 1.0
    h *= x
    assert h.grad_fn.name() == "MulBackward0" and h._version == 2
    h.sum().backward()
    # d/dx (2x + 1) x = 4x + 1
    np.testing.assert_allclose(x.grad.array, [4.0 * 1.0 + 1.0, 4.0 * 2.0 + 1.0])


def test_modifying_a_saved_input_in_place_makes_backward_raise():
    x = leaf([1.0, 2.0])
    h = x * 1.0
    y = h.log()  # log saves its input h
    with mg.no_grad():
        h.mul_(2.0)
    with pytest.raises(RuntimeError, match="in-place"):
        y.sum().backward()


def test_modifying_a_saved_output_in_place_makes_backward_raise():
    x = leaf([1.0, 2.0])
    y = x.exp()  # exp saves its output y
    with mg.no_grad():
        y.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an in-place"):
        y.sum().backward()


def test_updating_a_weight_before_backward_raises():
    w, x = leaf([1.0, 2.0]), leaf([3.0, 4.0], requires_grad=False)
    loss = (w * x * w).sum()  # the product saves w
    with mg.no_grad():
        w -= 0.1  # an optimizer step taken too early
    with pytest.raises(RuntimeError, match="in-place"):
        loss.backward()


def test_modifying_a_saved_tensor_through_a_detached_alias_makes_backward_raise():
    x = leaf([1.0, 2.0])
    h = x * 1.0
    y = h.log()
    alias = h.detach()  # shares h's storage
    with mg.no_grad():
        alias.mul_(2.0)
    with pytest.raises(RuntimeError, match="in-place"):
        y.sum().backward()


def test_modifying_a_saved_tensor_through_a_view_makes_backward_raise():
    x = leaf([[1.0, 2.0], [3.0, 4.0]])
    h = x * 1.0
    y = h.log()  # saves h
    view = h.detach().reshape(4)  # a view of h's storage, through a detached alias
    with mg.no_grad():
        view.add_(1.0)
    assert h._version == 1
    with pytest.raises(RuntimeError, match="in-place"):
        y.sum().backward()


def test_a_copy_does_not_share_the_version_counter():
    x = leaf([1.0, 2.0])
    h = x * 1.0
    y = h.log()
    copy = h.detach().clone()
    with mg.no_grad():
        copy.mul_(2.0)
    assert h._version == 0
    y.sum().backward()
    np.testing.assert_allclose(x.grad.array, [1.0, 0.5])


def test_modifying_a_tensor_that_was_not_saved_is_allowed():
    x = leaf([1.0, 2.0])
    h = x + 1.0
    y = h + 2.0  # addition saves nothing
    with mg.no_grad():
        h.mul_(3.0)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.array, [1.0, 1.0])


# ---- the graph is freed after backward ------------------------------------------------------
def _intermediates_and_loss():
    x = leaf(rand(4))
    h1 = x.exp()
    h2 = (h1 * x).sin()
    loss = (h2 * h2).sum()
    return x, loss, [weakref.ref(h1), weakref.ref(h2)], weakref.ref(h1.grad_fn)


def test_intermediates_are_freed_after_backward_while_the_loss_lives():
    x, loss, refs, fn_ref = _intermediates_and_loss()
    gc.collect()
    assert all(r() is not None for r in refs)  # the graph keeps them alive until backward
    loss.backward()
    gc.collect()
    assert all(r() is None for r in refs)
    # the nodes stay while the loss lives (as in PyTorch: the graph can still be walked),
    # but a released node holds no array and no tensor but the leaves its edges lead to
    node = fn_ref()
    assert node is not None and _arrays_held_by(node) == []
    assert loss.requires_grad and x.grad is not None


def _arrays_held_by(node):
    """The attributes of `node` that hold an array, or a tensor other than a leaf."""
    return [name for name, value in vars(node).items() if _holds_array(value)]


def _holds_array(value):
    if isinstance(value, (tuple, list)):
        return any(_holds_array(v) for v in value)
    if isinstance(value, mg.Tensor):
        return not (value.is_leaf and value.requires_grad)
    return isinstance(value, np.ndarray)


def test_a_released_node_drops_what_forward_stored_on_ctx():
    x = leaf(rand(3, 4))
    values = x.max(dim=1).values  # MaxDim keeps the argmax indices on ctx, not as a saved tensor
    node = values.grad_fn
    assert "indices" in _arrays_held_by(node)
    values.sum().backward()
    assert _arrays_held_by(node) == []
    assert node.next_functions[0][0].variable is x  # the edges stay


def test_intermediates_stay_alive_with_retain_graph():
    x, loss, refs, fn_ref = _intermediates_and_loss()
    loss.backward(retain_graph=True)
    gc.collect()
    assert all(r() is not None for r in refs)
    loss.backward()
    gc.collect()
    assert all(r() is None for r in refs)


# ---- detect_anomaly ---------------------------------------------------------------------------
pytestmark_warnings = pytest.mark.filterwarnings("ignore::RuntimeWarning")


@pytestmark_warnings
def test_anomaly_in_forward_names_the_op():
    x = leaf([1.0, -1.0])
    with mg.autograd.detect_anomaly():
        with pytest.raises(RuntimeError, match=r"Log.*nan"):
            x.log()
        with pytest.raises(RuntimeError, match=r"Log.*inf"):
            leaf([0.0]).log()
        y = (x * x).log()  # finite values pass
    assert np.all(np.isfinite(y.array))


@pytestmark_warnings
def test_anomaly_in_backward_names_the_op():
    x = leaf([0.0, 4.0])
    y = x.sqrt()  # finite forward (0 and 2), infinite gradient at 0
    with mg.autograd.detect_anomaly():
        with pytest.raises(RuntimeError, match=r"Sqrt.*inf") as info:
            y.sum().backward()
    assert "Div" not in str(info.value)  # the op that failed, not a helper inside its backward


@pytestmark_warnings
def test_anomaly_in_backward_of_a_user_function_names_it():
    class BadGrad(Function):
        @staticmethod
        def forward(ctx, x):
            return x.array * 1.0

        @staticmethod
        def backward(ctx, grad):
            return grad * float("nan")

    x = leaf([1.0])
    with mg.autograd.detect_anomaly():
        with pytest.raises(RuntimeError, match=r"BadGrad.*nan"):
            BadGrad.apply(x).sum().backward()


@pytestmark_warnings
def test_no_anomaly_error_outside_the_context():
    x = leaf([-1.0, 0.0])
    y = x.log()
    assert np.isnan(y.array[0]) and np.isinf(y.array[1])
    z = leaf([0.0])
    z.sqrt().sum().backward()
    assert np.isinf(z.grad.array[0])


@pytestmark_warnings
def test_detect_anomaly_state_is_restored_after_an_error_and_nests():
    from minigrad.autograd import is_anomaly_enabled

    assert not is_anomaly_enabled()
    with pytest.raises(RuntimeError):
        with mg.autograd.detect_anomaly():
            assert is_anomaly_enabled()
            leaf([-1.0]).log()
    assert not is_anomaly_enabled()
    with mg.autograd.detect_anomaly():
        with mg.autograd.detect_anomaly(check_nan=False):
            assert is_anomaly_enabled() and not mg.is_anomaly_check_nan_enabled()  # as torch
            leaf([-1.0]).log()  # checks off in the inner block
        assert is_anomaly_enabled() and mg.is_anomaly_check_nan_enabled()
    assert not is_anomaly_enabled()


def test_a_weight_gradient_is_stored_in_c_order_like_its_parameter():
    """x @ W^T hands W its gradient as a transposed view; .grad is a C-ordered copy, laid
    out as the parameter is (an optimizer reads the two side by side)."""
    w = leaf(rand(3, 4))
    x = mg.tensor(rand(5, 4, seed=1))
    (x @ w.mT).sum().backward()
    assert w.grad.numpy().flags.c_contiguous
    # d/dW sum(x W^T) = ones(5, 3)^T x: every row is the column sums of x
    np.testing.assert_allclose(w.grad.numpy(), np.tile(rand(5, 4, seed=1).sum(axis=0), (3, 1)))


def test_an_op_with_an_integer_or_bool_result_is_not_recorded_as_torch():
    # x.long() of a tensor that requires grad: torch returns a tensor without a gradient
    for lib in (torch, mg):
        x = lib.tensor([1.5, 2.5], requires_grad=True)
        y, b = x.long(), x.to(lib.bool)
        assert not y.requires_grad and y.grad_fn is None and y.tolist() == [1, 2]
        assert not b.requires_grad and b.tolist() == [True, True]
