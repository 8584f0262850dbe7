"""A forward pass leaves no reference cycle: dropping the output frees its graph at once.

Ops whose gradient is written with their own output (relu, tanh, exp, sigmoid, softmax,
log_softmax, sqrt, rsqrt, prod, tensor ** tensor) save that output. Saved strongly it
would close a loop (output -> grad_fn -> saved output) that only Python's cycle collector
frees, so an evaluation loop run without no_grad kept every batch's activations for a
while (563 -> 855 MiB in the report; PyTorch stays flat). Every test here runs with the
cycle collector off: what is freed is freed by reference counting, the moment the last
reference goes.
"""

import gc
import tracemalloc
import weakref

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F
from tests.helpers import rand


@pytest.fixture
def no_cycle_collector():
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def positive(*shape):
    return mg.tensor(np.abs(rand(*shape, seed=0)) + 0.5, requires_grad=True)


OUTPUT_SAVING_OPS = {
    "relu": lambda x: x.relu(),
    "tanh": lambda x: x.tanh(),
    "exp": lambda x: x.exp(),
    "sigmoid": lambda x: x.sigmoid(),
    "softmax": lambda x: F.softmax(x, dim=-1),
    "log_softmax": lambda x: F.log_softmax(x, dim=-1),
    "sqrt": lambda x: x.sqrt(),
    "rsqrt": lambda x: x.rsqrt(),
    "prod": lambda x: x.prod(dim=1),
    "pow (tensor exponent)": lambda x: x**x,
    "nn.ReLU": nn.ReLU(),
    "nn.Softmax": nn.Softmax(dim=1),
}


def _graph_objects(root):
    """Every non-leaf tensor and node in the graph behind `root`, as weak references."""
    refs, stack, seen = [], [root], set()
    while stack:
        t = stack.pop()
        if id(t) in seen or t.grad_fn is None:
            continue
        seen.add(id(t))
        refs += [weakref.ref(t), weakref.ref(t.grad_fn), weakref.ref(t.array)]
        stack += [p for p in t.grad_fn.inputs if p is not None]
    return refs


@pytest.mark.parametrize("name", list(OUTPUT_SAVING_OPS))
def test_dropping_an_output_frees_it_and_its_node_at_once(name, no_cycle_collector):
    x = positive(3, 4)
    y = OUTPUT_SAVING_OPS[name](x)
    assert y.grad_fn is not None
    tensor, node, storage = weakref.ref(y), weakref.ref(y.grad_fn), weakref.ref(y.array)
    del y
    assert tensor() is None, f"{name}: the output outlived `del` (a reference cycle)"
    assert node() is None and storage() is None


@pytest.mark.parametrize("name", list(OUTPUT_SAVING_OPS))
def test_output_saving_ops_still_differentiate_twice(name):
    """The saved output is the output itself: create_graph differentiates through it."""
    x = positive(3, 4)
    op = OUTPUT_SAVING_OPS[name]
    assert mg.autograd.gradcheck(
        lambda t: op(t), (positive(3, 4).double().detach().requires_grad_(),)
    )
    assert mg.autograd.gradgradcheck(
        lambda t: op(t), (positive(3, 4).double().detach().requires_grad_(),)
    )
    (g,) = mg.autograd.grad((op(x) ** 2).sum(), x, create_graph=True)
    g.sum().backward()  # a second backward through the saved output, graph not retained
    assert x.grad is not None and x.grad.shape == x.shape


def test_a_model_forward_leaves_nothing_behind(no_cycle_collector):
    """A graph of many layers (every activation, norms, attention, conv, losses): once
    the loss is dropped, no tensor, node or array of the graph is left."""
    mg.manual_seed(0)
    layers = nn.Sequential(
        nn.Linear(8, 16),
        nn.ReLU(),
        nn.LayerNorm(16),
        nn.Tanh(),
        nn.Linear(16, 16),
        nn.Sigmoid(),
        nn.GELU(),
        nn.SiLU(),
        nn.Softplus(),
        nn.Mish(),
        nn.ELU(),
        nn.LeakyReLU(),
    )
    conv = nn.Conv2d(1, 2, 3, padding=1)
    x = mg.tensor(rand(2, 5, 8, seed=1, dtype=np.float32))

    def forward():
        h = layers(x)
        h = F.scaled_dot_product_attention(h, h, h, is_causal=True)
        h = conv(h.unsqueeze(1)).flatten(1)
        loss = (
            F.cross_entropy(h, mg.tensor(np.array([1, 3])))
            + F.log_softmax(h, dim=1).exp().sqrt().mean()
        )
        return h, loss + h.softmax(dim=1).prod() + F.mse_loss(h, h.detach() * 2)

    forward()  # compiles the kernels first: a first-time Numba compile keeps its arguments a while
    h, loss = forward()
    refs = _graph_objects(loss)
    assert len(refs) > 80  # the graph was walked: about 100 nodes and tensors
    del h, loss
    alive = [r() for r in refs if r() is not None]
    assert not alive, f"{len(alive)} graph objects outlived the loss, e.g. {alive[:3]}"


def test_an_evaluation_loop_without_no_grad_stays_flat(no_cycle_collector):
    """The report's case: forward passes in a loop, outputs dropped, grad mode on."""
    mg.manual_seed(0)
    model = nn.Sequential(
        nn.Linear(256, 256), nn.Tanh(), nn.Linear(256, 256), nn.Sigmoid(), nn.Linear(256, 10)
    )
    x = mg.tensor(rand(512, 256, seed=2, dtype=np.float32))

    def step():
        out = F.log_softmax(model(x).relu().exp(), dim=1)
        return float(out.sum().item())

    step()
    tracemalloc.start()
    try:
        step()
        first = tracemalloc.get_traced_memory()[0]
        for _ in range(10):
            step()
        growth = tracemalloc.get_traced_memory()[0] - first
    finally:
        tracemalloc.stop()
    one_activation = 512 * 256 * 4
    assert growth < one_activation, (
        f"memory grew by {growth / 2**20:.1f} MiB over 10 dropped forward passes"
    )


def test_a_node_whose_output_was_dropped_says_so():
    x = positive(2, 2)
    y = x.exp()
    node = y.grad_fn
    del y
    with pytest.raises(
        RuntimeError, match="ExpBackward0: the output this op saved for backward no longer exists"
    ):
        _ = node.saved_tensors
