"""The graph as PyTorch shows it: `grad_fn` names, `next_functions`, `AccumulateGrad`
(minigrad/autograd/graph.py). PyTorch is the oracle: the same expression is built in both
and the nodes are compared, and a graph walker written for PyTorch runs on minigrad."""

import importlib

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F
from minigrad.autograd import Function
from minigrad.autograd.graph import TORCH_NAMES, AccumulateGrad

from .helpers import rand

LIBS = {"mg": (mg, F), "torch": (torch, TF)}

# Each case is built the same way from (lib, functional, x, y), x a leaf that requires grad
# and y one that does not; both have shape (2, 3) (y positive).
CASES = {
    "x * 2": lambda m, f, x, y: x * 2,
    "x * y": lambda m, f, x, y: x * y,
    "y * x": lambda m, f, x, y: y * x,
    "x / y": lambda m, f, x, y: x / y,
    "x + y": lambda m, f, x, y: x + y,
    "x - 1": lambda m, f, x, y: x - 1,
    "-x": lambda m, f, x, y: -x,
    "x ** 2": lambda m, f, x, y: x**2,
    "y ** x": lambda m, f, x, y: y**x,
    "div trunc": lambda m, f, x, y: m.div(x, y, rounding_mode="trunc"),
    "exp": lambda m, f, x, y: x.exp(),
    "log": lambda m, f, x, y: (x * x + 1).log(),
    "sqrt": lambda m, f, x, y: (x * x + 1).sqrt(),
    "rsqrt": lambda m, f, x, y: (x * x + 1).rsqrt(),
    "sin": lambda m, f, x, y: x.sin(),
    "cos": lambda m, f, x, y: x.cos(),
    "tanh": lambda m, f, x, y: x.tanh(),
    "sigmoid": lambda m, f, x, y: x.sigmoid(),
    "erf": lambda m, f, x, y: x.erf(),
    "relu": lambda m, f, x, y: x.relu(),
    "abs": lambda m, f, x, y: x.abs(),
    "sign": lambda m, f, x, y: x.sign(),
    "floor": lambda m, f, x, y: x.floor(),
    "ceil": lambda m, f, x, y: x.ceil(),
    "round": lambda m, f, x, y: x.round(),
    "clamp": lambda m, f, x, y: x.clamp(-0.5, 0.5),
    "maximum": lambda m, f, x, y: m.maximum(x, y),
    "minimum": lambda m, f, x, y: m.minimum(y, x),
    "where": lambda m, f, x, y: m.where(y > 1, x, y),
    "leaky_relu": lambda m, f, x, y: f.leaky_relu(x),
    "elu": lambda m, f, x, y: f.elu(x),
    "gelu": lambda m, f, x, y: f.gelu(x),
    "silu": lambda m, f, x, y: f.silu(x),
    "softplus": lambda m, f, x, y: f.softplus(x),
    "softmax": lambda m, f, x, y: f.softmax(x, dim=1),
    "log_softmax": lambda m, f, x, y: f.log_softmax(x, dim=1),
    "matmul": lambda m, f, x, y: x @ y.mT,
    "sum": lambda m, f, x, y: x.sum(),
    "prod": lambda m, f, x, y: x.prod(),
    "logsumexp": lambda m, f, x, y: x.logsumexp(1),
    "norm": lambda m, f, x, y: x.norm(),
    "cumsum": lambda m, f, x, y: x.cumsum(1),
    "cumprod": lambda m, f, x, y: x.cumprod(1),
    "reshape": lambda m, f, x, y: x.reshape(6),
    "permute": lambda m, f, x, y: x.permute(1, 0),
    "expand": lambda m, f, x, y: x.reshape(2, 1, 3).expand(2, 4, 3),
    "repeat": lambda m, f, x, y: x.repeat(2, 1),
    "flip": lambda m, f, x, y: x.flip(0),
    "roll": lambda m, f, x, y: x.roll(1, 1),
    "clone": lambda m, f, x, y: x.clone(),
    "contiguous": lambda m, f, x, y: x.permute(1, 0).contiguous(),
    "double": lambda m, f, x, y: x.float(),
    "cat": lambda m, f, x, y: m.cat([x, y]),
    "pad": lambda m, f, x, y: f.pad(x, (1, 1)),
    "gather": lambda m, f, x, y: x.gather(1, m.tensor([[0], [2]])),
    "scatter_add": lambda m, f, x, y: x.scatter_add(1, m.tensor([[0], [2]]), y[:, :1]),
    "scatter": lambda m, f, x, y: x.scatter(1, m.tensor([[0], [2]]), y[:, :1]),
    "conv2d": lambda m, f, x, y: f.conv2d(x.reshape(1, 1, 2, 3), y[:, :2].reshape(1, 1, 2, 2)),
    "conv_transpose2d": lambda m, f, x, y: f.conv_transpose2d(
        x.reshape(1, 1, 2, 3), y[:, :2].reshape(1, 1, 2, 2)
    ),
    "max_pool2d": lambda m, f, x, y: f.max_pool2d(x.reshape(1, 1, 2, 3), 2),
    "avg_pool2d": lambda m, f, x, y: f.avg_pool2d(x.reshape(1, 1, 2, 3), 2),
    "layer_norm": lambda m, f, x, y: f.layer_norm(x, (3,)),
    "group_norm": lambda m, f, x, y: f.group_norm(x.reshape(2, 3, 1), 3),
    "batch_norm": lambda m, f, x, y: f.batch_norm(x, None, None, training=True),
    "binary_cross_entropy": lambda m, f, x, y: f.binary_cross_entropy(
        x.sigmoid(), y / (y + 1), reduction="none"
    ),
    "bce_with_logits": lambda m, f, x, y: f.binary_cross_entropy_with_logits(
        x, y / (y + 1), reduction="none"
    ),
}

# where minigrad's node has other inputs than PyTorch's, so next_functions differ in length
# (minigrad lists the tensor arguments of the op, as PyTorch does for a custom Function)
DIFFERENT_INPUTS = {
    "conv2d",  # PyTorch's convolution node has a bias input even when there is no bias
    "conv_transpose2d",
    "layer_norm",  # and its normalizations a weight and a bias input
    "group_norm",
    "batch_norm",
    "where",  # minigrad's condition is a tensor argument of the op
}


def _leaves(lib, dtype):
    m = LIBS[lib][0]
    x = m.tensor(rand(2, 3, seed=0), dtype=dtype, requires_grad=True)
    y = m.tensor(np.abs(rand(2, 3, seed=1)) + 0.5, dtype=dtype)
    return x, y


def _build(case, lib):
    m, f = LIBS[lib]
    x, y = _leaves(lib, m.float64)
    return CASES[case](m, f, x, y), x


def _edges(node):
    """next_functions as names: the next node's name, or None."""
    return [
        None if n is None else type(n).__name__ if isinstance(n, AccumulateGrad) else n.name()
        for n, _ in node.next_functions
    ]


def _torch_edges(node):
    return [
        None if n is None else type(n).__name__ if hasattr(n, "variable") else n.name()
        for n, _ in node.next_functions
    ]


@pytest.mark.parametrize("case", list(CASES))
def test_node_names_are_pytorchs(case):
    mine, _ = _build(case, "mg")
    theirs, _ = _build(case, "torch")
    assert mine.grad_fn.name() == theirs.grad_fn.name()
    assert repr(mine.grad_fn) == f"<{theirs.grad_fn.name()}>"
    assert f"grad_fn=<{theirs.grad_fn.name()}>" in repr(mine)


@pytest.mark.parametrize("case", [c for c in CASES if c not in DIFFERENT_INPUTS])
def test_next_functions_are_pytorchs(case):
    mine, _ = _build(case, "mg")
    theirs, _ = _build(case, "torch")
    assert _edges(mine.grad_fn) == _torch_edges(theirs.grad_fn)
    assert all(i == 0 for _, i in mine.grad_fn.next_functions)


def test_ops_pytorch_builds_otherwise_keep_a_name_that_says_what_made_them():
    x = mg.tensor(rand(2, 3), requires_grad=True)
    assert x.max(dim=1).values.grad_fn.name() == "MaxDimBackward"
    assert x.amax(dim=1).grad_fn.name() == "AmaxBackward"
    assert F.cross_entropy(x, mg.tensor([0, 2])).grad_fn.name() == "CrossEntropyBackward"
    assert x.tril().grad_fn.name() == "TriangleMaskBackward"


class Cube(Function):
    """y = x^3 * k for a tensor x and a number k."""

    @staticmethod
    def forward(ctx, x, k, w):
        ctx.save_for_backward(x)
        ctx.k = k
        return x.array**3 * k + w.array

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 3 * x * x * ctx.k, None, grad


class TorchCube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k, w):
        ctx.save_for_backward(x)
        ctx.k = k
        return x**3 * k + w

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 3 * x * x * ctx.k, None, grad


def test_a_custom_function_is_named_and_linked_as_in_pytorch():
    x, y = _leaves("mg", mg.float64)
    tx, ty = _leaves("torch", torch.float64)
    mine, theirs = Cube.apply(x, 2.0, y), TorchCube.apply(tx, 2.0, ty)
    assert (
        mine.grad_fn.name() == "CubeBackward" == type(theirs.grad_fn).__name__.replace("Torch", "")
    )
    # one pair per tensor argument; the number 2.0 has none
    assert _edges(mine.grad_fn) == _torch_edges(theirs.grad_fn) == ["AccumulateGrad", None]


def test_a_leaf_is_reached_through_one_accumulate_grad_node_holding_it():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    a, b = x * 2, x.exp()
    (node_a, nr), _ = a.grad_fn.next_functions
    assert isinstance(node_a, AccumulateGrad) and node_a.variable is x and nr == 0
    assert b.grad_fn.next_functions[0][0] is node_a  # the same node, as in PyTorch
    assert node_a.next_functions == ()
    assert (
        node_a.name()
        == torch.tensor([1.0], requires_grad=True).mul(2).grad_fn.next_functions[0][0].name()
    )
    assert repr(node_a) == "<AccumulateGrad>"


def test_a_non_leaf_input_is_reached_through_its_grad_fn():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    h = x * 2
    y = h.tanh() + h
    assert [n for n, _ in y.grad_fn.next_functions] == [y.grad_fn.inputs[0].grad_fn, h.grad_fn]


def test_next_functions_stay_after_backward():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).tanh().sum()
    before = _graph_nodes(y.grad_fn)
    y.backward()
    after = _graph_nodes(y.grad_fn)
    assert after == before and len(after) == 4  # Sum, Tanh, Mul, AccumulateGrad(x)
    with pytest.raises(
        RuntimeError, match="SumBackward0: trying to backward through the graph a second time"
    ):
        y.backward()


def _graph_nodes(root):
    """Every node reachable from `root`, found as a PyTorch program finds them."""
    seen, stack = [], [root]
    while stack:
        node = stack.pop()
        if node is None or any(node is s for s in seen):
            continue
        seen.append(node)
        stack += [n for n, _ in node.next_functions]
    return seen


# ---- walking a model's graph, as code that draws graphs (torchviz) does ---------------------
def draw(root):
    """A graph walker written for PyTorch: (node label, [labels of its inputs]) per node.
    It reads only `next_functions`, `name()` and `variable`, as torchviz does."""
    labels, edges, stack, seen = {}, [], [root], set()
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        labels[node] = (
            f"param {tuple(node.variable.shape)}" if hasattr(node, "variable") else node.name()
        )
        for nxt, _ in node.next_functions:
            if nxt is not None:
                edges.append((nxt, node))
                stack.append(nxt)
    return labels, edges


def _mlp(lib):
    m, f = LIBS[lib]
    layers = (nn if lib == "mg" else torch.nn).Sequential
    lin, relu = (nn.Linear, nn.ReLU) if lib == "mg" else (torch.nn.Linear, torch.nn.ReLU)
    m.manual_seed(0)
    model = layers(lin(4, 8), relu(), lin(8, 8), relu(), lin(8, 3))
    x = m.tensor(rand(5, 4, dtype=np.float32))
    loss = f.cross_entropy(model(x), m.tensor([0, 1, 2, 0, 1]))
    return model, loss


@pytest.mark.parametrize("after_backward", [False, True])
def test_walking_an_mlp_graph_finds_every_parameter_once(after_backward):
    model, loss = _mlp("mg")
    tmodel, tloss = _mlp("torch")
    if after_backward:
        loss.backward()
        tloss.backward()
    labels, edges = draw(loss.grad_fn)
    tlabels, _ = draw(tloss.grad_fn)
    leaves = [n.variable for n in labels if isinstance(n, AccumulateGrad)]
    assert len(leaves) == len(list(model.parameters())) == 6
    assert {id(p) for p in leaves} == {id(p) for p in model.parameters()}
    # the same parameters, by shape, as PyTorch's walk of the same model finds
    assert sorted(v for v in labels.values() if v.startswith("param")) == sorted(
        v for v in tlabels.values() if v.startswith("param")
    )
    assert {"ReluBackward0", "CrossEntropyBackward"} <= set(labels.values())
    assert all(
        isinstance(a, (Function, AccumulateGrad)) and isinstance(b, Function) for a, b in edges
    )


def test_every_name_in_the_table_names_an_op():
    for path, name in TORCH_NAMES.items():
        module, op = path.rsplit(".", 1)
        cls = getattr(importlib.import_module(module), op, None)
        assert isinstance(cls, type) and issubclass(cls, Function), (
            f"{path} is not an op (moved or renamed?)"
        )
        assert cls.name() == name
