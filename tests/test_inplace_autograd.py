"""In-place ops on tensors inside the graph, as PyTorch records them (autograd/inplace.py).

Every program below is written once, against the library passed in (`lib` is torch or
minigrad, whose APIs agree), and run on both: the outputs and every leaf's gradient must
be the same. The float64 gradient checks then hold the recorded graph against finite
differences, and the errors are PyTorch's: a leaf (or a view of one) that requires grad
refuses, and a backward that needs an overwritten value raises.
"""

import math

import numpy as np
import pytest
import torch

import minigrad as mg
from minigrad.autograd import gradcheck, gradgradcheck

from .helpers import assert_close, leaf, rand, tleaf

# The torch names whose behaviour this file checks against torch (read by tools/api_coverage.py).
TORCH_API = [
    "torch.Tensor.__iadd__",
    "torch.Tensor.__imul__",
    "torch.Tensor.__isub__",
    "torch.Tensor.__setitem__",
    "torch.Tensor.abs_",
    "torch.Tensor.add_",
    "torch.Tensor.clamp_",
    "torch.Tensor.copy_",
    "torch.Tensor.div_",
    "torch.Tensor.exp_",
    "torch.Tensor.fill_",
    "torch.Tensor.floor_",
    "torch.Tensor.index_fill_",
    "torch.Tensor.log_",
    "torch.Tensor.masked_fill_",
    "torch.Tensor.mul_",
    "torch.Tensor.neg_",
    "torch.Tensor.pow_",
    "torch.Tensor.relu_",
    "torch.Tensor.round_",
    "torch.Tensor.scatter_",
    "torch.Tensor.scatter_add_",
    "torch.Tensor.sigmoid_",
    "torch.Tensor.sqrt_",
    "torch.Tensor.sub_",
    "torch.Tensor.tanh_",
    "torch.Tensor.zero_",
]


def softmax(lib, x, dim):
    return lib.softmax(x, dim=dim) if lib is torch else x.softmax(dim)


# ---- the programs: f(lib, *leaves) -> a tensor ------------------------------------------------
def masked_attention(lib, x, w_q, w_k, w_v):
    # "LLMs from scratch", chapter 3: the causal mask written into the scores in place
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    scores = q @ k.transpose(-2, -1)
    t = x.shape[-2]
    mask = lib.triu(lib.ones(t, t, dtype=lib.bool), diagonal=1)
    scores.masked_fill_(mask, -lib.inf if hasattr(lib, "inf") else -math.inf)
    weights = softmax(lib, scores / k.shape[-1] ** 0.5, dim=-1)
    return weights @ v


def relu_mlp(lib, x, w1, w2):
    h = x @ w1
    h.relu_()
    return (h @ w2).tanh()


def add_mul_chain(lib, x, y, z):
    h = x * 1.0
    h.add_(y)
    h.mul_(z)  # needs h's value from before the write for z's gradient
    h.mul_(2.0)
    h.sub_(y, alpha=0.5)
    h.div_(z)  # needs z and the old h
    h += x
    h *= y
    return h


def setitem_basic(lib, x, y):
    h = x * 2.0
    h[0] = y[1]  # a row from another tensor that requires grad
    h[:, 1] = 0.0
    return h * y


def setitem_advanced(lib, x, y):
    h = x.sin()  # saves x, not its output: h may change
    rows = lib.tensor([2, 0])
    h[rows] = y[:2] * 3.0  # integer-array index: a copy in NumPy, recorded as an index_put
    h[h > 2.0] = 1.5  # a bool mask, computed from h itself
    return h.sum(dim=0) * y[0]


def unary_chain(lib, x, y):
    # an op whose gradient is written with its output (sigmoid, tanh, exp) must be the last
    # to change that tensor; one written with its input (log) keeps a copy of it
    h = x * y
    h.add_(1.0)
    h.mul_(y)
    h.sigmoid_()
    g = h * 2.0
    g.log_()
    g.tanh_()
    k = g + 1.0
    k.exp_()
    return k * h


def ops_that_save_their_input(lib, x, y):
    h = x * 1.0
    h.pow_(3)  # dh/dx needs the old h: kept
    h.clamp_(-1.0, 2.0)
    g = y.abs() + 0.5
    g.sqrt_()  # saves its output g: g is not changed after this
    h.mul_(g)
    h.abs_()
    h.neg_()
    return h


def write_into_views(lib, x, y):
    h = x * 1.0
    h[:, 0].mul_(3.0)  # a column: a strided view
    h[1:].add_(y[1:])  # the last rows
    h.t()[0].mul_(y[0, 0])  # a view of a view
    h.view(-1)[::2].sub_(1.0)
    return h * y


def view_taken_before_the_base_changes(lib, x, y):
    h = x * 1.0
    v = h[1:]  # taken now ...
    h.mul_(y)  # ... the base changes after: v must follow, as in torch
    w = h.t()
    h[0].add_(2.0)
    return (v * 2.0).sum() + (w * y.t()).sum()


def a_buffer_without_grad_takes_the_graph(lib, x, y):
    buf = lib.zeros(x.shape, dtype=x.dtype)
    buf.add_(x)  # buf did not require grad; now it is part of the graph
    out = lib.zeros(x.shape, dtype=x.dtype)
    out.copy_(buf * y)
    cache = lib.zeros(3, x.shape[1], dtype=x.dtype)
    cache[1:] = y[:2]  # a KV-cache style write
    return out.sum(dim=0) + cache.sum(dim=0)


def fills(lib, x, y):
    h = x * y
    h[0].zero_()
    h[1].fill_(y[0, 0])  # a 0-d value that requires grad gets the sum of the gradients
    g = (x + 1.0).masked_fill_(x > 0.3, y[1, 1])
    return h * g


def scatter_and_index_fill(lib, x, y):
    h = x * 1.0
    index = lib.tensor([[0, 2, 1], [1, 0, 2], [2, 1, 0]])
    h.scatter_(1, index[:, :2], y[:, :2])
    h.scatter_add_(0, index, y * 2.0)
    h.index_fill_(1, lib.tensor([0]), -1.0)
    return h * x


def rounding_has_zero_gradient(lib, x, y):
    h = x * 3.0
    h.floor_()
    g = y * 2.5
    g.round_()
    return h * y + g * x


PROGRAMS = {
    "masked_attention": (masked_attention, [(2, 4, 3), (3, 3), (3, 3), (3, 2)]),
    "relu_mlp": (relu_mlp, [(5, 3), (3, 4), (4, 2)]),
    "add_mul_chain": (add_mul_chain, [(3, 3), (3, 3), (3, 3)]),
    "setitem_basic": (setitem_basic, [(3, 3), (3, 3)]),
    "setitem_advanced": (setitem_advanced, [(3, 3), (3, 3)]),
    "unary_chain": (unary_chain, [(3, 3), (3, 3)]),
    "ops_that_save_their_input": (ops_that_save_their_input, [(3, 3), (3, 3)]),
    "write_into_views": (write_into_views, [(3, 3), (3, 3)]),
    "view_taken_before_the_base_changes": (view_taken_before_the_base_changes, [(3, 3), (3, 3)]),
    "a_buffer_without_grad_takes_the_graph": (
        a_buffer_without_grad_takes_the_graph,
        [(3, 3), (3, 3)],
    ),
    "fills": (fills, [(3, 3), (3, 3)]),
    "scatter_and_index_fill": (scatter_and_index_fill, [(3, 3), (3, 3)]),
    "rounding_has_zero_gradient": (rounding_has_zero_gradient, [(3, 3), (3, 3)]),
}


def arrays_for(shapes):
    # away from 0 and the kinks (relu, abs, clamp, floor) so finite differences are smooth
    arrays = []
    for i, shape in enumerate(shapes):
        a = rand(*shape, seed=i + 3)
        arrays.append(np.where(np.abs(a) < 0.1, a + 0.3, a))
    return arrays


@pytest.mark.parametrize("name", PROGRAMS)
def test_gradients_equal_torchs(name):
    program, shapes = PROGRAMS[name]
    arrays = arrays_for(shapes)
    xs, ts = [leaf(a) for a in arrays], [tleaf(a) for a in arrays]
    expected = program(torch, *ts)
    g = rand(*expected.shape, seed=11)
    expected.backward(torch.tensor(g))  # first: the program must be valid in torch
    out = program(mg, *xs)
    assert_close(out, expected, rtol=1e-10, atol=1e-12)
    out.backward(mg.tensor(g))
    for i, (x, t) in enumerate(zip(xs, ts)):
        if t.grad is None:
            assert x.grad is None, f"input {i}"
        else:
            assert x.grad is not None, f"input {i} got no gradient"
            assert_close(x.grad, t.grad, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize(
    "name", ["add_mul_chain", "setitem_basic", "unary_chain", "ops_that_save_their_input",
             "write_into_views", "view_taken_before_the_base_changes", "fills",
             "scatter_and_index_fill", "masked_attention"]
)  # fmt: skip
def test_the_recorded_graph_passes_the_float64_gradient_check(name):
    program, shapes = PROGRAMS[name]
    xs = [leaf(a) for a in arrays_for(shapes)]
    assert gradcheck(lambda *inputs: program(mg, *inputs), xs)


@pytest.mark.parametrize(
    "name", ["add_mul_chain", "write_into_views", "setitem_basic", "masked_attention"]
)
def test_second_derivatives_through_in_place_ops(name):
    program, shapes = PROGRAMS[name]
    xs = [leaf(a) for a in arrays_for(shapes)]
    assert gradgradcheck(lambda *inputs: program(mg, *inputs), xs)


def test_a_transformer_block_written_with_in_place_ops_trains_as_torchs():
    """Three SGD steps of a small attention block whose mask, activation and residual are
    written in place: the same weights as torch's after every step."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 5, 4))
    weights = [rng.standard_normal((4, 4)) * 0.5 for _ in range(4)]

    def run(lib, params):
        for _ in range(3):
            h = masked_attention(lib, lib.tensor(x), *params[:3])
            h += lib.tensor(x)  # the residual, in place
            h = h @ params[3]
            h.relu_()
            loss = (h * h).mean()
            for p in params:
                p.grad = None
            loss.backward()
            with lib.no_grad():
                for p in params:
                    p -= 0.1 * p.grad
        return params

    mine = run(mg, [leaf(w) for w in weights])
    theirs = run(torch, [tleaf(w) for w in weights])
    for p, t in zip(mine, theirs):
        assert_close(p, t, rtol=1e-9, atol=1e-12)


# ---- what the graph looks like --------------------------------------------------------------
def test_the_tensor_takes_the_in_place_ops_node_and_keeps_its_identity():
    x = leaf([1.0, 2.0])
    h = x * 2.0
    same = h
    h.exp_()
    assert h is same and h.grad_fn.name() == "ExpBackward0" and h.requires_grad and not h.is_leaf
    buf = mg.zeros(2, dtype=mg.float64)
    assert buf.is_leaf and not buf.requires_grad
    buf.add_(x)
    assert buf.requires_grad and not buf.is_leaf and buf.grad_fn.name() == "AddBackward0"


def test_version_counts_every_in_place_write_as_torchs():
    def versions(lib):
        x = tleaf([1.0, 2.0, 3.0]) if lib is torch else leaf([1.0, 2.0, 3.0])
        h = x * 1.0
        v = h[1:]
        seen = [h._version]
        h.add_(1.0)
        seen += [h._version, v._version]
        v.mul_(2.0)
        seen += [h._version, v._version]
        h[0] = 5.0
        seen += [h._version]
        with lib.no_grad():
            h.zero_()
        seen += [h._version, v._version]
        return seen

    assert versions(mg) == versions(torch)


def test_hooks_see_the_gradient_of_the_value_they_were_registered_on():
    def seen(lib):
        x = tleaf([1.0, 2.0, 3.0]) if lib is torch else leaf([1.0, 2.0, 3.0])
        h = x * 1.0
        out = []
        h.register_hook(lambda g: out.append(("before", g.tolist())))
        h.mul_(3.0)
        h.register_hook(lambda g: out.append(("after", g.tolist())))
        h.retain_grad()
        (h * lib.tensor([1.0, 2.0, 3.0], dtype=h.dtype)).sum().backward()
        return out, h.grad.tolist()

    assert seen(mg) == seen(torch)


def test_ops_recorded_before_the_change_use_the_old_value():
    # y used h before the in-place op: its gradient must reach h's old node, not the new one
    x = leaf([1.0, 2.0])
    h = x * 1.0
    y = h + 1.0  # saves nothing, so the change is allowed
    h.mul_(10.0)
    (y.sum() + h.sum()).backward()
    np.testing.assert_allclose(x.grad.array, [11.0, 11.0])


def test_backward_twice_with_retain_graph_and_in_place_ops():
    x = leaf([1.0, -2.0])
    h = x * 3.0
    h.relu_()
    y = (h * h).sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(x.grad.array, [36.0, 0.0])


def test_autograd_grad_through_in_place_ops():
    x = leaf([1.0, 2.0])
    h = x * x
    h.mul_(x)  # x^3
    (g,) = mg.autograd.grad(h.sum(), x, create_graph=True)
    np.testing.assert_allclose(g.array, [3.0, 12.0])
    (gg,) = mg.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(gg.array, [6.0, 12.0])


def test_a_plain_write_on_tensors_outside_the_graph_records_nothing():
    t = mg.zeros(3)
    t.add_(1.0)
    t[0] = 2.0
    t.mul_(mg.tensor([1.0, 2.0, 3.0]))
    assert t.grad_fn is None and t.is_leaf and not t.requires_grad
    assert t.tolist() == [2.0, 2.0, 3.0]


def test_under_no_grad_nothing_is_recorded_and_the_version_moves_on():
    x = leaf([1.0, 2.0])
    h = x * 1.0
    node = h.grad_fn
    with mg.no_grad():
        h.mul_(2.0)
    assert h.grad_fn is node and h._version == 1


# ---- PyTorch's errors ----------------------------------------------------------------------
def raises_like_torch(program, match):
    for lib in (torch, mg):
        with pytest.raises(RuntimeError, match=match):
            program(lib)


def test_a_leaf_that_requires_grad_refuses():
    raises_like_torch(
        lambda lib: lib.ones(3, requires_grad=True).mul_(2.0),
        "a leaf Variable that requires grad is being used in an in-place operation",
    )


def test_a_view_of_a_leaf_that_requires_grad_refuses():
    raises_like_torch(
        lambda lib: lib.ones(3, requires_grad=True)[1:].add_(1.0),
        "a view of a leaf Variable that requires grad is being used in an in-place operation",
    )


def test_a_view_taken_under_no_grad_then_changed_with_grad_refuses():
    def program(lib):
        h = lib.ones(3, requires_grad=True) * 2.0
        with lib.no_grad():
            v = h[1:]
        v.mul_(2.0)

    raises_like_torch(
        program, "(?i)view was created in no_grad mode and is being modified in-?place"
    )


def exp_output_changed(a, b):
    x = a.exp()  # exp saves its output
    x.mul_(b)
    return x.sum()


def mul_input_changed(a, b):
    x = a * 1.0
    y = x * x  # saves x
    x.add_(1.0)
    return y.sum()


def log_input_changed(a, b):
    x = a * 1.0
    y = x.log()  # saves x
    x.exp_()
    return y.sum()


def changed_through_a_view(a, b):
    x = a * 1.0
    y = x.sigmoid()  # saves its output y ...
    y[0].zero_()  # ... which a view of it changes
    return y.sum()


@pytest.mark.parametrize(
    "program", [exp_output_changed, mul_input_changed, log_input_changed, changed_through_a_view]
)
def test_backward_that_needs_an_overwritten_value_raises(program):
    def run(lib):
        a = (tleaf if lib is torch else leaf)([1.0, 2.0, 3.0])
        b = (tleaf if lib is torch else leaf)([0.5, 0.5, 0.5])
        program(a, b).backward()

    raises_like_torch(run, "modified by an in-?place operation")


def test_writing_into_an_expanded_view_refuses():
    raises_like_torch(
        lambda lib: (lib.ones(3, requires_grad=True) * 1.0).expand(2, 3).add_(1.0),
        "more than one element of the written-to tensor refers to a single memory location",
    )


def test_a_failed_in_place_op_leaves_the_tensor_and_its_graph_unchanged():
    x = leaf([[1.0, 2.0]])
    h = x * 2.0
    node = h.grad_fn
    with pytest.raises(RuntimeError, match="add_: output with shape"):
        h.add_(mg.ones(3, 2, dtype=mg.float64))
    assert h.grad_fn is node and h._version == 0 and h.tolist() == [[2.0, 4.0]]
    h.sum().backward()
    np.testing.assert_allclose(x.grad.array, [[2.0, 2.0]])
