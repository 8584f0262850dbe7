"""Recurrent layers (issue #19): nn.RNN, nn.LSTM, nn.GRU and the cells, against PyTorch.

- After loading a PyTorch state dict (as NumPy arrays), in float64: the outputs, the
  final states, and the gradients of the input, of the initial states and of every
  parameter for a random-weighted sum of all outputs, for every combination of
  num_layers 1-2, bidirectional, batch_first, bias, unbatched input and given/absent hx;
  RNN with relu, LSTM with proj_size; the cells likewise; float32 once.
- The Functions that run a whole sequence (ops/recurrent.py) against the Tensor-op cells
  they stand for, both directions; float64 gradcheck of layers, cells and Functions, and
  gradgradcheck of the Functions' recorded backward.
- state_dict keys and shapes, initialisation, repr, get_config, dtype: as PyTorch's.
- Dropout between layers: identity in eval, PyTorch's result at p=0 and p=1 in training,
  only between layers.
- Errors for bad constructor arguments, inputs and states: PyTorch's exception types.
"""

import itertools
import math

import numpy as np
import pytest
import torch

import minigrad as mg
import minigrad.nn as nn
from minigrad.autograd import gradcheck, gradgradcheck
from minigrad.ops import recurrent as ops
from tests.helpers import assert_close, leaf, rand

TORCH_API = [
    "torch.nn.RNN",
    "torch.nn.LSTM",
    "torch.nn.GRU",
    "torch.nn.RNNCell",
    "torch.nn.LSTMCell",
    "torch.nn.GRUCell",
]

I, H, T, B = 3, 4, 5, 2  # input size, hidden size, sequence length, batch
TOL = dict(rtol=1e-9, atol=1e-11)
LAYERS = ["RNN", "LSTM", "GRU"]
CELLS = ["RNNCell", "LSTMCell", "GRUCell"]


def pair(kind, seed=0, dtype=torch.float64, **kwargs):
    """A PyTorch module and the minigrad one holding the same weights."""
    torch.manual_seed(seed)
    theirs = getattr(torch.nn, kind)(I, H, **kwargs).to(dtype)
    mine = getattr(nn, kind)(I, H, **kwargs).to(
        mg.float64 if dtype == torch.float64 else mg.float32
    )
    mine.load_state_dict({k: v.detach().numpy() for k, v in theirs.state_dict().items()})
    return theirs, mine


def as_tuple(state):
    return state if isinstance(state, tuple) else (state,)


def compare_runs(theirs, mine, x, states=None, tol=TOL):
    """Run both on x (and the initial states, a list of arrays), compare outputs, final
    states and, after backward of a random-weighted sum of them, every gradient."""
    x_t, x_m = torch.tensor(x, requires_grad=True), leaf(x)
    args_t, args_m = [x_t], [x_m]
    if states is not None:
        s_t = [torch.tensor(s, requires_grad=True) for s in states]
        s_m = [leaf(s) for s in states]
        args_t.append(tuple(s_t) if len(states) == 2 else s_t[0])
        args_m.append(tuple(s_m) if len(states) == 2 else s_m[0])
    out_t, final_t = theirs(*args_t)
    out_m, final_m = mine(*args_m)
    # (h_n, c_n) for LSTM, h_n otherwise
    assert isinstance(final_m, tuple) == isinstance(final_t, tuple)
    final_t, final_m = as_tuple(final_t), as_tuple(final_m)
    assert_close(out_m, out_t, **tol)
    assert len(final_m) == len(final_t)
    for a, b in zip(final_m, final_t):
        assert_close(a, b, **tol)

    weights = [rand(*o.shape, seed=10 + k) for k, o in enumerate((out_t, *final_t))]
    loss_t = sum(
        (o * torch.tensor(w, dtype=o.dtype)).sum() for o, w in zip((out_t, *final_t), weights)
    )
    loss_m = sum(
        (o * mg.tensor(w.astype(o.dtype))).sum() for o, w in zip((out_m, *final_m), weights)
    )
    loss_t.backward()
    loss_m.backward()
    assert_close(x_m.grad, x_t.grad, **tol)
    if states is not None:
        for a, b in zip(s_m, s_t):
            assert_close(a.grad, b.grad, **tol)
    theirs_params = dict(theirs.named_parameters())
    assert [n for n, _ in mine.named_parameters()] == list(theirs_params)
    for name, p in mine.named_parameters():
        assert p.grad is not None, name
        assert_close(p.grad, theirs_params[name].grad, **tol)


def layer_inputs(
    kind, num_layers, bidirectional, batch_first, unbatched, with_hx, proj_size=0, seed=0
):
    """(x, states or None) as arrays, shaped for the layer's options."""
    if unbatched:
        shape = (T, I)
    else:
        shape = (B, T, I) if batch_first else (T, B, I)
    x = rand(*shape, seed=seed)
    if not with_hx:
        return x, None
    lead = (num_layers * (2 if bidirectional else 1),) + (() if unbatched else (B,))
    states = [rand(*lead, proj_size or H, seed=seed + 1)]
    if kind == "LSTM":
        states.append(rand(*lead, H, seed=seed + 2))
    return x, states


# ---- the layers against PyTorch -----------------------------------------------------------
COMBINATIONS = list(
    itertools.product(
        [1, 2], [False, True], [False, True], [True, False], [False, True], [False, True]
    )
)


def combination_id(c):
    num_layers, bidirectional, batch_first, bias, unbatched, with_hx = c
    words = [f"L{num_layers}", "bi" if bidirectional else "uni", "bf" if batch_first else "tf"]
    words += [
        "bias" if bias else "nobias",
        "unbatched" if unbatched else "batched",
        "hx" if with_hx else "nohx",
    ]
    return "-".join(words)


@pytest.mark.parametrize("combination", COMBINATIONS, ids=combination_id)
@pytest.mark.parametrize("kind", LAYERS)
def test_layer_matches_torch(kind, combination):
    num_layers, bidirectional, batch_first, bias, unbatched, with_hx = combination
    options = dict(
        num_layers=num_layers, bidirectional=bidirectional, batch_first=batch_first, bias=bias
    )
    theirs, mine = pair(kind, **options)
    x, states = layer_inputs(kind, num_layers, bidirectional, batch_first, unbatched, with_hx)
    compare_runs(theirs, mine, x, states)


@pytest.mark.parametrize("with_hx", [False, True])
@pytest.mark.parametrize("bidirectional", [False, True])
def test_rnn_relu_matches_torch(bidirectional, with_hx):
    theirs, mine = pair("RNN", nonlinearity="relu", num_layers=2, bidirectional=bidirectional)
    x, states = layer_inputs("RNN", 2, bidirectional, False, False, with_hx, seed=3)
    compare_runs(theirs, mine, x, states)


@pytest.mark.parametrize("unbatched", [False, True])
@pytest.mark.parametrize("with_hx", [False, True])
@pytest.mark.parametrize("bidirectional", [False, True])
def test_lstm_with_projections_matches_torch(bidirectional, with_hx, unbatched):
    theirs, mine = pair("LSTM", proj_size=2, num_layers=2, bidirectional=bidirectional)
    assert mine.weight_hr_l0.shape == (2, H) and mine.weight_hh_l0.shape == (4 * H, 2)
    x, states = layer_inputs("LSTM", 2, bidirectional, False, unbatched, with_hx, proj_size=2)
    compare_runs(theirs, mine, x, states)


@pytest.mark.parametrize("kind", LAYERS)
def test_float32_matches_torch(kind):
    theirs, mine = pair(kind, dtype=torch.float32, num_layers=2, bidirectional=True)
    x = rand(T, B, I, dtype=np.float32)
    out_t, _ = theirs(torch.tensor(x))
    out_m, _ = mine(mg.tensor(x))
    assert out_m.dtype == mg.float32
    assert_close(out_m, out_t, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kind", LAYERS)
def test_longer_sequence_matches_torch(kind):
    """Fifty steps: the state is carried, and the gradient sent back, through all of them."""
    theirs, mine = pair(kind, seed=4)
    compare_runs(theirs, mine, rand(50, B, I, seed=5), tol=dict(rtol=1e-8, atol=1e-10))


@pytest.mark.parametrize("kind", LAYERS)
def test_empty_batch_matches_torch(kind):
    theirs, mine = pair(kind, bidirectional=True)
    out_t, _ = theirs(torch.zeros(T, 0, I, dtype=torch.float64))
    x = leaf(np.zeros((T, 0, I)))
    out_m, _ = mine(x)
    assert out_m.shape == tuple(out_t.shape)
    out_m.sum().backward()
    assert x.grad.shape == (T, 0, I) and np.all(mine.weight_hh_l0.grad.numpy() == 0)


# ---- the cells against PyTorch ------------------------------------------------------------
@pytest.mark.parametrize("with_hx", [False, True])
@pytest.mark.parametrize("unbatched", [False, True])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("kind", CELLS + ["RNNCell-relu"])
def test_cell_matches_torch(kind, bias, unbatched, with_hx):
    kind, _, nonlinearity = kind.partition("-")
    options = dict(bias=bias, **({"nonlinearity": nonlinearity} if nonlinearity else {}))
    theirs, mine = pair(kind, **options)
    x = rand(*(() if unbatched else (B,)), I, seed=1)
    state_shape = (() if unbatched else (B,)) + (H,)
    n_states = 2 if kind == "LSTMCell" else 1
    states = [rand(*state_shape, seed=2 + k) for k in range(n_states)] if with_hx else None

    x_t, x_m = torch.tensor(x, requires_grad=True), leaf(x)
    args_t, args_m = [x_t], [x_m]
    if states is not None:
        s_t = [torch.tensor(s, requires_grad=True) for s in states]
        s_m = [leaf(s) for s in states]
        args_t.append(tuple(s_t) if n_states == 2 else s_t[0])
        args_m.append(tuple(s_m) if n_states == 2 else s_m[0])
    out_t, out_m = as_tuple(theirs(*args_t)), as_tuple(mine(*args_m))
    assert len(out_m) == len(out_t)
    for a, b in zip(out_m, out_t):
        assert_close(a, b, **TOL)
    weights = [rand(*o.shape, seed=20 + k) for k, o in enumerate(out_t)]
    sum((o * torch.tensor(w)).sum() for o, w in zip(out_t, weights)).backward()
    sum((o * mg.tensor(w)).sum() for o, w in zip(out_m, weights)).backward()
    assert_close(x_m.grad, x_t.grad, **TOL)
    if states is not None:
        for a, b in zip(s_m, s_t):
            assert_close(a.grad, b.grad, **TOL)
    theirs_params = dict(theirs.named_parameters())
    for name, p in mine.named_parameters():
        assert_close(p.grad, theirs_params[name].grad, **TOL)


def test_cells_unrolled_equal_the_layer():
    """An LSTMCell looped over time with the layer's weights gives the layer's output."""
    torch.manual_seed(0)
    layer = nn.LSTM(I, H).double()
    cell = nn.LSTMCell(I, H).double()
    # weight_ih_l0 -> weight_ih
    cell.load_state_dict({k[:-3]: v for k, v in layer.state_dict().items()})
    x = leaf(rand(T, B, I))
    out, (h_n, c_n) = layer(x)
    h = c = None
    for t in range(T):
        h, c = cell(x[t], None if h is None else (h, c))
        assert_close(h, out[t].detach().numpy(), **TOL)
    assert_close(h, h_n[0].detach().numpy(), **TOL)
    assert_close(c, c_n[0].detach().numpy(), **TOL)


# ---- the sequence Functions against the cells they stand for ------------------------------
def sequence_case(kind, reverse, bias=True, proj=0, seed=0, size=(T, B, H)):
    """(Function.apply, the same recurrence with the Tensor-op cells, the leaves to call
    both with): x_part (T, B, G * H), h0 (B, P), c0 (B, H), W_hh, b_hh and W_hr."""
    steps, batch, hidden = size
    G = {"rnn": 1, "lstm": 4, "gru": 3}[kind]
    h_size = proj or hidden
    arrays = [rand(steps, batch, G * hidden, seed=seed), rand(batch, h_size, seed=seed + 1)]
    if kind == "lstm":
        arrays.append(rand(batch, hidden, seed=seed + 2))
    arrays.append(rand(G * hidden, h_size, seed=seed + 3) * 0.5)
    arrays.append(rand(G * hidden, seed=seed + 4) if bias else None)
    if kind == "lstm":
        arrays.append(rand(proj, hidden, seed=seed + 5) * 0.5 if proj else None)
    leaves = [None if a is None else leaf(a) for a in arrays]
    if kind == "rnn":
        return (
            (lambda *a: ops.RNNSequence.apply(*a, nonlinearity="tanh", reverse=reverse)),
            (ops.RNNSequence.cells("tanh", reverse)),
            leaves,
        )
    if kind == "lstm":
        return (
            (lambda *a: ops.LSTMSequence.apply(*a, reverse=reverse)),
            ops.LSTMSequence.cells(reverse),
            leaves,
        )
    return (
        (lambda *a: ops.GRUSequence.apply(*a, reverse=reverse)),
        ops.GRUSequence.cells(reverse),
        leaves,
    )


SEQUENCE_CASES = [
    ("rnn", False, True, 0),
    ("rnn", True, False, 0),
    ("lstm", False, True, 0),
    ("lstm", True, True, 2),
    ("lstm", False, False, 3),
    ("gru", False, True, 0),
    ("gru", True, False, 0),
]
SMALL = (3, 2, 2)  # T, B, H for the finite differences, which perturb every element
TINY = (2, 1, 2)  # and for the second derivatives, which run a backward per element


@pytest.mark.parametrize("kind,reverse,bias,proj", SEQUENCE_CASES)
def test_sequence_function_equals_the_cells(kind, reverse, bias, proj):
    """The hand-written backpropagation through time gives the gradients that autograd
    finds through the loop of Tensor-op cells."""
    fused, cells, leaves = sequence_case(kind, reverse, bias, proj)
    inputs = [t for t in leaves if t is not None]
    positional = lambda fn: fn(*leaves)  # noqa: E731
    out_fused, out_cells = positional(fused), positional(cells)
    assert_close(out_fused, out_cells.detach().numpy(), **TOL)
    g = mg.tensor(rand(*out_fused.shape, seed=9))
    grads_fused = mg.autograd.grad(out_fused, inputs, grad_outputs=g)
    grads_cells = mg.autograd.grad(out_cells, inputs, grad_outputs=g)
    for a, b in zip(grads_fused, grads_cells):
        assert_close(a, b.numpy(), **TOL)


def with_leaves(fused, leaves):
    """(f of the given leaves only, those leaves): the absent ones (None) stay None."""
    slots = [k for k, t in enumerate(leaves) if t is not None]

    def f(*inputs):
        args = list(leaves)
        for k, t in zip(slots, inputs):
            args[k] = t
        return fused(*args)

    return f, [leaves[k] for k in slots]


@pytest.mark.parametrize("kind,reverse,bias,proj", SEQUENCE_CASES)
def test_sequence_function_gradcheck(kind, reverse, bias, proj):
    proj = min(proj, 1)  # below the hidden size of the small cases
    fused, _, leaves = sequence_case(kind, reverse, bias, proj, seed=1, size=SMALL)
    assert gradcheck(*with_leaves(fused, leaves))
    # second derivatives: the recorded backward (create_graph=True) runs the Tensor-op cells
    fused, _, leaves = sequence_case(kind, reverse, bias, proj, seed=2, size=TINY)
    assert gradgradcheck(*with_leaves(fused, leaves))


def test_gradcheck_catches_a_wrong_backward(monkeypatch):
    """The checks above can fail: a backward that forgets to send the gradient back to
    the initial state h0 is caught."""
    original = ops.GRUSequence.backward

    def forgetful(ctx, grad):
        d_part, dh0, dw, db = original(ctx, grad)
        return d_part, dh0 * 0.0, dw, db

    monkeypatch.setattr(ops.GRUSequence, "backward", staticmethod(forgetful))
    _, _, leaves = sequence_case("gru", False)
    with pytest.raises(mg.autograd.GradcheckError):
        gradcheck(lambda *a: ops.GRUSequence.apply(*a), leaves)


# ---- gradient checks of the modules -------------------------------------------------------
@pytest.mark.parametrize(
    "kind,options",
    [
        ("RNN", dict(num_layers=2, bidirectional=True)),
        ("RNN", dict(nonlinearity="relu", bias=False)),
        ("LSTM", dict(num_layers=2, bidirectional=True, batch_first=True)),
        ("LSTM", dict(proj_size=1)),
        ("GRU", dict(num_layers=2, bidirectional=True)),
        ("GRU", dict(bias=False, batch_first=True)),
    ],
    ids=str,
)
def test_layer_gradcheck(kind, options):
    mg.manual_seed(0)
    module = getattr(nn, kind)(2, 2, **options).double()
    x = leaf(rand(3, 2, 2, seed=1))  # (T, B, input) or (B, T, input): T = 3 or 2, B = 2 or 3
    batch = x.shape[0] if options.get("batch_first") else x.shape[1]
    h_size = options.get("proj_size") or 2
    layers = options.get("num_layers", 1) * (2 if options.get("bidirectional") else 1)
    h0 = leaf(rand(layers, batch, h_size, seed=2))
    c0 = leaf(rand(layers, batch, 2, seed=3))
    params = list(module.parameters())

    def f(x, h0, c0, *params):
        state = (h0, c0) if kind == "LSTM" else h0
        out, final = module(x, state)
        return mg.cat([out.flatten(), *(s.flatten() for s in as_tuple(final))])

    assert gradcheck(f, (x, h0, c0, *params))


@pytest.mark.parametrize("kind", CELLS)
def test_cell_gradcheck(kind):
    mg.manual_seed(0)
    cell = getattr(nn, kind)(3, 2).double()
    x, h, c = leaf(rand(2, 3, seed=1)), leaf(rand(2, 2, seed=2)), leaf(rand(2, 2, seed=3))

    def f(x, h, c, *params):
        out = cell(x, (h, c)) if kind == "LSTMCell" else cell(x, h)
        return mg.cat([o.flatten() for o in as_tuple(out)])

    assert gradcheck(f, (x, h, c, *cell.parameters()))
    assert gradgradcheck(f, (x, h, c, *cell.parameters()))


# ---- parameters, state dicts, repr --------------------------------------------------------
STATE_DICT_CASES = [
    ("RNN", {}),
    ("RNN", dict(num_layers=3, bidirectional=True, nonlinearity="relu")),
    ("LSTM", dict(num_layers=2, bidirectional=True, bias=False)),
    ("LSTM", dict(num_layers=2, bidirectional=True, proj_size=3)),
    ("LSTM", dict(proj_size=2, bias=False)),
    ("GRU", dict(num_layers=2)),
    ("GRU", dict(bidirectional=True, bias=False)),
    ("RNNCell", {}),
    ("RNNCell", dict(bias=False, nonlinearity="relu")),
    ("LSTMCell", {}),
    ("GRUCell", dict(bias=False)),
]


@pytest.mark.parametrize("kind,options", STATE_DICT_CASES, ids=str)
def test_state_dict_keys_and_shapes_are_torch(kind, options):
    theirs = getattr(torch.nn, kind)(3, 5, **options)
    mine = getattr(nn, kind)(3, 5, **options)
    assert [(k, tuple(v.shape)) for k, v in mine.state_dict().items()] == [
        (k, tuple(v.shape)) for k, v in theirs.state_dict().items()
    ]
    mine.load_state_dict({k: v.detach().numpy() for k, v in theirs.state_dict().items()})  # strict
    for k, v in theirs.state_dict().items():
        np.testing.assert_array_equal(mine.state_dict()[k].numpy(), v.numpy())
    assert repr(mine) == repr(theirs)


@pytest.mark.parametrize(
    "kind,options",
    [
        (
            "LSTM",
            dict(
                num_layers=2,
                bias=False,
                batch_first=True,
                dropout=0.5,
                bidirectional=True,
                proj_size=2,
            ),
        ),
        ("GRU", dict(dropout=0.25, num_layers=2)),
        ("RNN", dict(nonlinearity="relu", batch_first=True)),
    ],
    ids=str,
)
def test_repr_is_torch(kind, options):
    assert repr(getattr(nn, kind)(3, 4, **options)) == repr(
        getattr(torch.nn, kind)(3, 4, **options)
    )


@pytest.mark.parametrize("kind", LAYERS + CELLS)
def test_initialisation_is_uniform_within_one_over_sqrt_hidden(kind):
    mg.manual_seed(0)
    hidden = 64
    module = getattr(nn, kind)(32, hidden)
    bound = 1 / math.sqrt(hidden)
    values = np.concatenate([p.detach().numpy().ravel() for p in module.parameters()])
    assert np.abs(values).max() <= bound
    # U(-b, b) has mean 0 and standard deviation b / sqrt(3)
    assert abs(values.mean()) < 0.02 * bound
    assert values.std() == pytest.approx(bound / math.sqrt(3), rel=0.02)
    assert all(p.dtype == mg.float32 and p.requires_grad for p in module.parameters())


def test_dtype_argument_and_double():
    lstm = nn.LSTM(I, H, num_layers=2, dtype=mg.float64)
    assert all(p.dtype == mg.float64 for p in lstm.parameters())
    out, (h, c) = lstm(mg.randn(T, B, I, dtype=mg.float64))
    assert out.dtype == h.dtype == c.dtype == mg.float64
    gru = nn.GRUCell(I, H).double()
    assert gru(mg.randn(B, I, dtype=mg.float64)).dtype == mg.float64


def test_all_weights_and_flatten_parameters():
    theirs = torch.nn.LSTM(I, H, num_layers=2, bidirectional=True)
    mine = nn.LSTM(I, H, num_layers=2, bidirectional=True)
    assert [[tuple(p.shape) for p in group] for group in mine.all_weights] == [
        [tuple(p.shape) for p in group] for group in theirs.all_weights
    ]
    assert mine.all_weights[1][0] is mine.weight_ih_l0_reverse
    before = {k: v.numpy().copy() for k, v in mine.state_dict().items()}
    assert mine.flatten_parameters() is None
    assert all(np.array_equal(v.numpy(), before[k]) for k, v in mine.state_dict().items())


@pytest.mark.parametrize("kind", LAYERS + CELLS)
def test_config_round_trip(kind):
    options = (
        {"bias": False}
        if "Cell" in kind
        else {"num_layers": 2, "bidirectional": True, "batch_first": True}
    )
    module = getattr(nn, kind)(I, H, **options)
    again = type(module).from_config(module.get_config())
    assert repr(again) == repr(module)
    assert [(k, v.shape) for k, v in again.state_dict().items()] == [
        (k, v.shape) for k, v in module.state_dict().items()
    ]


# ---- dropout between layers ---------------------------------------------------------------
@pytest.mark.parametrize("kind", LAYERS)
def test_dropout_is_identity_in_eval_and_torch_at_p0(kind):
    theirs, mine = pair(kind, num_layers=2, dropout=0.5)
    x = rand(T, B, I, seed=2)
    theirs.eval()
    mine.eval()
    assert_close(mine(mg.tensor(x))[0], theirs(torch.tensor(x))[0], **TOL)

    theirs, mine = pair(kind, num_layers=2, dropout=0.0)
    theirs.train()
    mine.train()
    compare_runs(theirs, mine, x)


@pytest.mark.parametrize("kind", LAYERS)
def test_dropout_one_zeroes_what_the_second_layer_reads(kind):
    """p=1 drops every element between the layers: the second layer sees zeros, as in
    PyTorch. The first layer's input is never dropped, and the last output neither."""
    theirs, mine = pair(kind, num_layers=2, dropout=1.0)
    x = rand(T, B, I, seed=3)
    out_t, final_t = theirs(torch.tensor(x))
    out_m, final_m = mine(mg.tensor(x))
    assert_close(out_m, out_t, **TOL)
    assert not np.allclose(out_m.detach().numpy(), 0)  # the last layer's output is not dropped
    # the first layer's final state is the same as without dropout: its input was untouched
    mine.eval()
    _, final_eval = mine(mg.tensor(x))
    assert_close(as_tuple(final_m)[0][0], as_tuple(final_eval)[0][0].detach().numpy(), **TOL)


def test_dropout_in_training_is_random_and_seeded():
    lstm = nn.LSTM(I, H, num_layers=3, dropout=0.5).double()
    x = mg.tensor(rand(T, B, I))
    mg.manual_seed(1)
    a = lstm(x)[0].detach().numpy()
    mg.manual_seed(1)
    b = lstm(x)[0].detach().numpy()
    c = lstm(x)[0].detach().numpy()
    lstm.eval()
    d = lstm(x)[0].detach().numpy()
    assert np.array_equal(a, b) and not np.allclose(a, c) and not np.allclose(a, d)


def test_dropout_with_one_layer_warns_as_torch():
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
        nn.GRU(I, H, dropout=0.3)


# ---- the graph ----------------------------------------------------------------------------
def test_one_node_per_layer_and_direction():
    """The layer records one Function per layer and direction, not one per step."""
    from minigrad.autograd.engine import topological_order

    lstm = nn.LSTM(I, H, num_layers=2, bidirectional=True)
    out, _ = lstm(mg.randn(50, B, I))
    names = [t.grad_fn.name() for t in topological_order([out]) if t.grad_fn is not None]
    assert sum("LSTMSequence" in n for n in names) == 4


def test_changing_the_output_in_place_is_caught():
    gru = nn.GRU(I, H)
    out, _ = gru(mg.randn(T, B, I))
    loss = (out * out).sum()
    out.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        loss.backward()


def test_the_layer_trains():
    """A GRU learns to output the running sum of its input's sign (a few Adam steps)."""
    mg.manual_seed(0)
    gru, head = nn.GRU(1, 8, batch_first=True), nn.Linear(8, 1)
    optimizer = mg.optim.Adam([*gru.parameters(), *head.parameters()], lr=0.05)
    x = mg.randn(16, 10, 1)
    target = mg.tensor(np.cumsum(np.sign(x.numpy()), axis=1) / 10)
    losses = []
    for _ in range(60):
        optimizer.zero_grad()
        loss = ((head(gru(x)[0]) - target) ** 2).mean()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    assert losses[-1] < 0.1 * losses[0]


# ---- errors -------------------------------------------------------------------------------
def raised(fn):
    try:
        fn()
    except Exception as err:  # noqa: BLE001  (the type is what is compared)
        return type(err), str(err)
    return None, None


BAD_CONSTRUCTIONS = [
    ("LSTM", (I, H), dict(dropout=1.5)),
    ("LSTM", (I, H), dict(dropout=True)),
    ("GRU", (I, H), dict(num_layers=0)),
    ("GRU", (I, 0), {}),
    ("RNN", (0, H), {}),
    ("RNN", (I, H), dict(nonlinearity="gelu")),
    ("LSTM", (I, H), dict(bias=1)),
    ("LSTM", (I, H), dict(batch_first=1)),
    ("LSTM", (3.0, H), {}),
    ("LSTM", (I, H), dict(proj_size=H)),
    ("LSTM", (I, H), dict(proj_size=-1)),
    ("RNNCell", (3.5, H), {}),
]


@pytest.mark.parametrize("kind,args,kwargs", BAD_CONSTRUCTIONS, ids=str)
def test_bad_constructor_arguments_raise_as_torch(kind, args, kwargs):
    torch_type, _ = raised(lambda: getattr(torch.nn, kind)(*args, **kwargs))
    assert torch_type is not None
    with pytest.raises(torch_type, match=kind):
        getattr(nn, kind)(*args, **kwargs)


def test_bad_cell_nonlinearity_raises_at_construction():
    """PyTorch accepts it and fails at the first call; minigrad says so at once."""
    with pytest.raises(ValueError, match="RNNCell: Unknown nonlinearity 'sigmoid'"):
        nn.RNNCell(I, H, nonlinearity="sigmoid")


def test_gpu_device_is_refused():
    with pytest.raises(RuntimeError, match="LSTM"):
        nn.LSTM(I, H, device="cuda")


def layer_call(
    kind, x_shape, state_shapes=None, dtype=np.float64, module_dtype=torch.float64, **options
):
    """The same call on both libraries: (torch's exception type or None, minigrad's call)."""
    torch.manual_seed(0)
    theirs = getattr(torch.nn, kind)(I, H, **options).to(module_dtype)
    mine = getattr(nn, kind)(I, H, **options).to(
        mg.float64 if module_dtype == torch.float64 else mg.float32
    )
    x = rand(*x_shape).astype(dtype)
    states = None if state_shapes is None else [rand(*s).astype(dtype) for s in state_shapes]

    def call(lib, module):
        args = [lib.tensor(x)]
        if states is not None:
            made = [lib.tensor(s) for s in states]
            args.append(tuple(made) if len(made) == 2 else made[0])
        return module(*args)

    return raised(lambda: call(torch, theirs))[0], lambda: call(mg, mine)


BAD_CALLS = [
    (
        "LSTM",
        (T, B, I + 1),
        None,
        {},
        "input.size\\(-1\\) must be equal to input_size. Expected 3, got 4",
    ),
    ("GRU", (T, B, I, 1), None, {}, "Expected input to be 2D or 3D, got 4D"),
    ("RNN", (I,), None, {}, "Expected input to be 2D or 3D, got 1D"),
    ("GRU", (T, B, I), [(1, B + 1, H)], {}, r"Expected hidden size \(1, 2, 4\), got \[1, 3, 4\]"),
    ("RNN", (T, B, I), [(2, B, H)], {}, r"Expected hidden size \(1, 2, 4\), got \[2, 2, 4\]"),
    (
        "LSTM",
        (T, B, I),
        [(1, B, H), (1, B + 1, H)],
        {},
        r"Expected hidden\[1\] size \(1, 2, 4\), got \[1, 3, 4\]",
    ),
    (
        "LSTM",
        (T, B, I),
        [(1, B, H), (1, B, H)],
        dict(proj_size=2),
        r"Expected hidden\[0\] size \(1, 2, 2\)",
    ),
    ("GRU", (T, I), [(1, 1, H)], {}, "For unbatched 2-D input, hx should also be 2-D"),
    ("RNN", (T, B, I), [(1, H)], {}, "For batched 3-D input, hx should also be 3-D"),
    ("LSTM", (T, I), [(1, 1, H), (1, H)], {}, "For unbatched 2-D input, hx should also be 2-D"),
    ("LSTM", (0, B, I), None, {}, "Expected sequence length to be larger than 0"),
]


@pytest.mark.parametrize("kind,x_shape,state_shapes,options,message", BAD_CALLS, ids=str)
def test_bad_layer_calls_raise_as_torch(kind, x_shape, state_shapes, options, message):
    torch_type, call = layer_call(kind, x_shape, state_shapes, **options)
    assert torch_type is not None
    with pytest.raises(torch_type, match=f"{kind}: {message}"):
        call()


def test_input_dtype_must_match_the_weights():
    torch_type, call = layer_call("LSTM", (T, B, I), dtype=np.float32)
    assert torch_type is ValueError
    with pytest.raises(
        ValueError, match=r"LSTM: input dtype \(float32\) does not match weight dtype \(float64\)"
    ):
        call()


def test_state_dtype_must_match_the_input():
    gru = nn.GRU(I, H)
    with pytest.raises(
        RuntimeError, match=r"GRU: hidden dtype \(float64\) does not match input dtype \(float32\)"
    ):
        gru(mg.randn(T, B, I), mg.randn(1, B, H, dtype=mg.float64))


def test_lstm_state_must_be_a_pair():
    lstm = nn.LSTM(I, H)
    with pytest.raises(TypeError, match=r"LSTM: hx must be a tuple \(h_0, c_0\)"):
        lstm(mg.randn(T, B, I), mg.randn(1, B, H))
    with pytest.raises(TypeError, match=r"LSTMCell: hx must be a tuple \(h, c\)"):
        nn.LSTMCell(I, H)(mg.randn(B, I), mg.randn(B, H))


BAD_CELL_CALLS = [
    ("LSTMCell", (B, I + 2), None, "input has inconsistent input_size: got 5 expected 3"),
    ("RNNCell", (B, I), [(B + 1, H)], "Input batch size 2 doesn't match hidden0 batch size 3"),
    (
        "LSTMCell",
        (B, I),
        [(B, H), (B, H + 1)],
        "hidden1 has inconsistent hidden_size: got 5, expected 4",
    ),
    ("GRUCell", (B, I, 1), None, "Expected input to be 1D or 2D, got 3D"),
    ("GRUCell", (B, I), [(1, B, H)], "Expected hidden to be 1D or 2D, got 3D"),
    ("RNNCell", (I,), [(B, H)], "Expected hidden to be 1D like the input"),
    ("LSTMCell", (B, I), [(B, H), (H,)], r"Expected hx\[1\] to be 2D like the input"),
]


@pytest.mark.parametrize("kind,x_shape,state_shapes,message", BAD_CELL_CALLS, ids=str)
def test_bad_cell_calls_raise_as_torch(kind, x_shape, state_shapes, message):
    torch_type, call = layer_call(kind, x_shape, state_shapes)
    assert torch_type is not None
    with pytest.raises(torch_type, match=f"{kind}: {message}"):
        call()
