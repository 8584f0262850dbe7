"""nn.Module: registration, traversal, state dicts, hooks, modes, dtype, repr, config.

Most tests build the same architecture twice, once with minigrad and once with PyTorch,
and require names, orders, keys and printed forms to be identical."""

import copy
import json
from collections import OrderedDict

import numpy as np
import pytest
import torch
import torch.nn as tnn

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F
from tests.helpers import assert_close, rand

# The torch names whose behaviour this file checks against torch (read by tools/api_coverage.py).
TORCH_API = [
    "torch.nn.Module",
    "torch.nn.Module.add_module",
    "torch.nn.Module.apply",
    "torch.nn.Module.children",
    "torch.nn.Module.double",
    "torch.nn.Module.eval",
    "torch.nn.Module.extra_repr",
    "torch.nn.Module.float",
    "torch.nn.Module.get_buffer",
    "torch.nn.Module.get_extra_state",
    "torch.nn.Module.get_parameter",
    "torch.nn.Module.get_submodule",
    "torch.nn.Module.half",
    "torch.nn.Module.load_state_dict",
    "torch.nn.Module.modules",
    "torch.nn.Module.named_buffers",
    "torch.nn.Module.named_children",
    "torch.nn.Module.named_modules",
    "torch.nn.Module.named_parameters",
    "torch.nn.Module.parameters",
    "torch.nn.Module.register_buffer",
    "torch.nn.Module.register_forward_hook",
    "torch.nn.Module.register_forward_pre_hook",
    "torch.nn.Module.register_full_backward_hook",
    "torch.nn.Module.register_module",
    "torch.nn.Module.register_parameter",
    "torch.nn.Module.requires_grad_",
    "torch.nn.Module.set_extra_state",
    "torch.nn.Module.state_dict",
    "torch.nn.Module.to",
    "torch.nn.Module.train",
    "torch.nn.Module.zero_grad",
    "torch.nn.Parameter",
]


# ---- one architecture, two libraries -----------------------------------------------------
def make_net(lib, T):
    """A model that uses every kind of registration: a direct Parameter, nested
    containers, persistent and non-persistent buffers, a layer without bias and a
    None submodule."""

    class Block(lib.Module):
        def __init__(self):
            super().__init__()
            self.fc = lib.Linear(3, 4)
            self.register_buffer("running", T.zeros(4))
            self.register_buffer("scratch", T.ones(2), persistent=False)
            self.register_buffer("absent", None)

    class Net(lib.Module):
        def __init__(self):
            super().__init__()
            self.scale = lib.Parameter(T.ones(1))
            self.blocks = lib.ModuleList([Block(), Block()])
            self.head = lib.Sequential(
                OrderedDict(act=lib.ReLU(), out=lib.Linear(4, 2, bias=False))
            )
            self.extra = lib.ModuleDict({"b": lib.Flatten(), "a": lib.Unflatten(1, (2, 2))})
            self.plist = lib.ParameterList(
                [lib.Parameter(T.zeros(2, 3)), lib.Parameter(T.zeros(5))]
            )
            self.nothing = None
            self.register_module("missing", None)

        def forward(self, x):
            for block in self.blocks:
                x = block.fc(x)
            return self.head(x) * self.scale

    return Net()


@pytest.fixture
def nets():
    return make_net(nn, mg), make_net(tnn, torch)


def names(pairs):
    return [name for name, _ in pairs]


def shapes(pairs):
    return [(name, tuple(value.shape)) for name, value in pairs]


def test_named_parameters_have_torch_names_order_and_shapes(nets):
    m, t = nets
    assert shapes(m.named_parameters()) == shapes(t.named_parameters())
    assert names(m.named_parameters(prefix="model")) == names(t.named_parameters(prefix="model"))
    assert (
        names(m.named_parameters(recurse=False))
        == names(t.named_parameters(recurse=False))
        == ["scale"]
    )
    assert len(list(m.parameters())) == len(list(t.parameters())) == 8


def test_named_buffers_modules_and_children_match_torch(nets):
    m, t = nets
    assert shapes(m.named_buffers()) == shapes(t.named_buffers())
    assert names(m.named_modules()) == names(t.named_modules())
    assert names(m.named_children()) == names(t.named_children())
    assert [type(c).__name__ for c in m.children()] == [type(c).__name__ for c in t.children()]
    assert len(list(m.modules())) == len(list(t.modules()))


def test_state_dict_keys_order_and_shapes_match_torch(nets):
    m, t = nets
    sd, tsd = m.state_dict(), t.state_dict()
    assert isinstance(sd, OrderedDict)
    assert list(sd) == list(tsd)
    assert "blocks.0.scratch" not in sd  # non-persistent buffers are not saved
    assert all(tuple(sd[k].shape) == tuple(tsd[k].shape) for k in sd)


def test_state_dict_values_are_detached_unless_keep_vars(nets):
    m, _ = nets
    sd = m.state_dict()
    assert not any(v.requires_grad for v in sd.values())
    assert np.shares_memory(sd["scale"].array, m.scale.array)  # like torch: a view, not a copy
    kept = m.state_dict(keep_vars=True)
    assert kept["scale"] is m.scale and kept["blocks.1.fc.weight"] is m.blocks[1].fc.weight


# ---- registration -----------------------------------------------------------------------
class Plain(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(np.zeros(3))
        self.child = nn.Linear(2, 2)
        self.not_a_parameter = mg.zeros(3)
        self.number = 4


def test_attribute_assignment_registers_only_parameters_modules_and_buffers():
    m = Plain()
    assert list(m._parameters) == ["w"]
    assert list(m._modules) == ["child"]
    assert list(m._buffers) == []
    assert names(m.named_parameters()) == ["w", "child.weight", "child.bias"]
    assert m.number == 4 and isinstance(m.not_a_parameter, mg.Tensor)


def test_reassigning_a_registered_name_follows_torch():
    m = Plain()
    with pytest.raises(TypeError, match="parameter 'w'"):
        m.w = mg.zeros(3)  # a plain tensor cannot take a parameter's place
    m.w = None  # None is allowed: the parameter becomes absent
    assert "w" not in names(m.named_parameters()) and m.w is None
    m.child = nn.Identity()  # a module replaces a module
    assert names(m.named_parameters()) == []
    m.child = nn.Parameter(np.ones(1))  # and a parameter may replace a module
    assert "child" in m._parameters and "child" not in m._modules
    with pytest.raises(TypeError, match="child module"):
        m.extra = nn.Identity()
        m.extra = 3


def test_delattr_unregisters():
    m = Plain()
    del m.w
    del m.child
    assert list(m.named_parameters()) == []
    with pytest.raises(AttributeError):
        _ = m.w


def test_assigning_before_module_init_raises():
    class Early(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(np.zeros(1))
            super().__init__()

    with pytest.raises(AttributeError, match=r"before Module.__init__\(\)"):
        Early()


@pytest.mark.parametrize(
    "call",
    [
        lambda m, T, lib: m.register_parameter("a.b", None),
        lambda m, T, lib: m.register_parameter("", None),
        lambda m, T, lib: m.register_parameter("x", T.zeros(2)),
        lambda m, T, lib: m.register_buffer("weight", T.zeros(1)),
        lambda m, T, lib: m.register_buffer("b", 3),
        lambda m, T, lib: m.add_module("x", 3),
        lambda m, T, lib: m.add_module("a.b", lib.Identity()),
        lambda m, T, lib: m.train(1),
        lambda m, T, lib: m.get_submodule("foo"),
        lambda m, T, lib: m.get_parameter("foo"),
        lambda m, T, lib: m.get_buffer("weight"),
        lambda m, T, lib: m.to(T.int64),
        lambda m, T, lib: m.load_state_dict([1]),
    ],
)
def test_registration_and_lookup_errors_have_torchs_exception_types(call):
    with pytest.raises(Exception) as theirs:
        call(tnn.Linear(2, 3), torch, tnn)
    with pytest.raises(theirs.type):
        call(nn.Linear(2, 3), mg, nn)


def test_module_without_forward_raises():
    with pytest.raises(NotImplementedError, match="forward"):
        nn.Module()(mg.zeros(1))
    with pytest.raises(TypeError, match="unexpected arguments"):
        nn.Module(3)


def test_dir_lists_registered_names():
    assert {"w", "child", "train"} <= set(dir(Plain()))


# ---- shared parameters and modules -------------------------------------------------------
def shared(lib, T):
    class Tied(lib.Module):
        def __init__(self):
            super().__init__()
            self.a = lib.Linear(3, 3)
            self.b = lib.Linear(3, 3)
            self.b.weight = self.a.weight  # tied weights (as an LM's embedding and output layer)
            self.twice = lib.Sequential(self.a, lib.ReLU(), self.a)  # one module used twice

    return Tied()


def test_shared_parameters_and_modules_are_yielded_once_as_torch():
    m, t = shared(nn, mg), shared(tnn, torch)
    assert (
        names(m.named_parameters())
        == names(t.named_parameters())
        == ["a.weight", "a.bias", "b.bias"]
    )
    assert len(list(m.parameters())) == 3
    assert names(m.named_parameters(remove_duplicate=False)) == names(
        t.named_parameters(remove_duplicate=False)
    )
    assert names(m.named_modules()) == names(t.named_modules())
    # the state dict is not de-duplicated: every path that holds a tensor is a key
    assert list(m.state_dict()) == list(t.state_dict())
    assert "b.weight" in m.state_dict() and "twice.2.bias" in m.state_dict()


def test_shared_parameter_receives_the_sum_of_both_gradients():
    m = shared(nn, mg)
    x = mg.tensor(rand(2, 3, dtype=np.float32))
    (m.a(x).sum() + m.b(x).sum()).backward()
    np.testing.assert_allclose(
        m.a.weight.grad.array, 2 * np.tile(x.array.sum(0), (3, 1)), rtol=1e-6
    )


# ---- load_state_dict ------------------------------------------------------------------------
def torch_mlp():
    torch.manual_seed(0)
    return tnn.Sequential(
        tnn.Linear(5, 8),
        tnn.Tanh(),
        tnn.Sequential(tnn.Linear(8, 8), tnn.GELU()),
        tnn.Linear(8, 3, bias=False),
    )


def mg_mlp():
    return nn.Sequential(
        nn.Linear(5, 8),
        nn.Tanh(),
        nn.Sequential(nn.Linear(8, 8), nn.GELU()),
        nn.Linear(8, 3, bias=False),
    )


def test_a_torch_state_dict_as_numpy_loads_and_gives_the_same_outputs():
    t, m = torch_mlp(), mg_mlp()
    result = m.load_state_dict({k: v.numpy() for k, v in t.state_dict().items()})
    assert result.missing_keys == [] and result.unexpected_keys == []
    assert tuple(result) == ([], [])  # it unpacks as (missing_keys, unexpected_keys)
    x = rand(4, 5, dtype=np.float32)
    assert_close(m(mg.tensor(x)), t(torch.tensor(x)), rtol=1e-5, atol=1e-6)


def test_load_state_dict_copies_values_and_keeps_parameter_objects_and_dtype():
    m = nn.Linear(2, 3)
    weight = m.weight
    source = {
        "weight": np.arange(6.0).reshape(3, 2),
        "bias": mg.tensor([1.0, 2.0, 3.0], dtype=mg.float64),
    }
    m.load_state_dict(source)
    assert m.weight is weight and m.weight.dtype == np.float32 and m.bias.dtype == np.float32
    np.testing.assert_array_equal(m.weight.array, np.arange(6.0).reshape(3, 2))
    source["weight"][0, 0] = 100.0  # the model holds a copy, not the caller's array
    assert m.weight.array[0, 0] == 0.0
    assert m.weight.requires_grad and m.weight.is_leaf


def test_load_state_dict_round_trips_a_minigrad_state_dict():
    a, b = mg_mlp(), mg_mlp()
    b.load_state_dict(a.state_dict())
    x = mg.tensor(rand(3, 5, dtype=np.float32))
    np.testing.assert_array_equal(a(x).array, b(x).array)


def edited(state_dict):
    """Drop one key and add one that the model does not have."""
    sd = OrderedDict(state_dict)
    del sd["0.bias"]
    sd["9.weight"] = sd["0.weight"]
    return sd


def test_non_strict_load_returns_the_same_missing_and_unexpected_keys_as_torch():
    t, m = torch_mlp(), mg_mlp()
    theirs = t.load_state_dict(edited(t.state_dict()), strict=False)
    mine = m.load_state_dict(
        edited({k: v.numpy() for k, v in t.state_dict().items()}), strict=False
    )
    assert mine.missing_keys == theirs.missing_keys == ["0.bias"]
    assert mine.unexpected_keys == theirs.unexpected_keys == ["9.weight"]
    assert_close(m[0].weight, t[0].weight)  # the keys that match are loaded


def test_strict_load_raises_listing_both_kinds_of_keys():
    m = mg_mlp()
    with pytest.raises(RuntimeError) as err:
        m.load_state_dict(edited(m.state_dict()))
    message = str(err.value)
    assert 'Missing key(s) in state_dict: "0.bias"' in message
    assert 'Unexpected key(s) in state_dict: "9.weight"' in message
    assert "Sequential" in message


@pytest.mark.parametrize("strict", [True, False])
def test_shape_mismatch_names_the_key_and_both_shapes(strict):
    m = mg_mlp()
    sd = m.state_dict()
    sd["2.0.weight"] = np.zeros((8, 7), dtype=np.float32)
    with pytest.raises(RuntimeError, match=r"size mismatch for 2\.0\.weight.*\(8, 7\).*\(8, 8\)"):
        m.load_state_dict(sd, strict=strict)


def test_load_with_assign_replaces_the_tensors():
    m = nn.Linear(2, 3)
    m.bias.requires_grad_(False)
    m.register_buffer("steps", mg.zeros(1))
    old_weight, old_steps = m.weight, m.steps
    m.load_state_dict(
        {
            "weight": np.ones((3, 2), dtype=np.float32),
            "bias": np.full(3, 2.0, np.float32),
            "steps": np.ones(1),
        },
        assign=True,
    )
    assert m.weight is not old_weight and isinstance(m.weight, nn.Parameter)
    assert m.steps is not old_steps and m.steps.array[0] == 1.0
    assert m.weight.requires_grad and not m.bias.requires_grad  # requires_grad is kept, as torch
    np.testing.assert_array_equal(m.bias.array, [2.0, 2.0, 2.0])
    assert list(m.parameters()) == [m.weight, m.bias]  # registered, so optimizers find the new ones


def test_load_ignores_non_persistent_buffers():
    m, t = make_net(nn, mg), make_net(tnn, torch)
    sd = {k: v.numpy() for k, v in t.state_dict().items()}
    assert m.load_state_dict(sd) == ([], [])
    with pytest.raises(RuntimeError, match="Unexpected.*scratch"):
        m.load_state_dict({**sd, "blocks.0.scratch": np.ones(2)})


# ---- extra state --------------------------------------------------------------------------
def with_extra_state(lib):
    class Counter(lib.Module):
        def __init__(self):
            super().__init__()
            self.fc = lib.Linear(2, 2)
            self.calls = 0

        def get_extra_state(self):
            return {"calls": self.calls}

        def set_extra_state(self, state):
            self.calls = state["calls"]

    return lib.Sequential(lib.Linear(2, 2), Counter())


def test_extra_state_is_saved_under_torchs_key_and_restored():
    m, t = with_extra_state(nn), with_extra_state(tnn)
    assert list(m.state_dict()) == list(t.state_dict())
    assert "1._extra_state" in m.state_dict()
    m[1].calls = 7
    fresh = with_extra_state(nn)
    fresh.load_state_dict(m.state_dict())
    assert fresh[1].calls == 7
    with pytest.raises(RuntimeError, match="Missing.*_extra_state"):
        fresh.load_state_dict({k: v for k, v in m.state_dict().items() if "extra" not in k})


def test_default_extra_state_methods_raise():
    with pytest.raises(RuntimeError, match="extra state"):
        nn.Linear(1, 1).get_extra_state()
    with pytest.raises(RuntimeError, match="extra state"):
        nn.Linear(1, 1).set_extra_state({})


# ---- hooks ----------------------------------------------------------------------------------
def run_with_hooks(model, T, x):
    """Outputs with a pre-hook (doubles the input) and a forward hook (adds 1), with only
    the forward hook, and with none; and the input sums the forward hook saw."""
    seen = []
    # a bare value is wrapped as (value,)
    pre = model.register_forward_pre_hook(lambda mod, args: args[0] * 2)
    post = model.register_forward_hook(
        lambda mod, args, out: seen.append(float(args[0].sum())) or out + 1
    )
    both = model(T.tensor(x))
    pre.remove()
    only_post = model(T.tensor(x))
    post.remove()
    plain = model(T.tensor(x))
    return (both, only_post, plain), seen


def test_forward_pre_hook_can_replace_the_input_and_forward_hook_the_output():
    t = tnn.Linear(3, 2)
    m = nn.Linear(3, 2)
    m.load_state_dict({k: v.detach().numpy() for k, v in t.state_dict().items()})
    x = rand(4, 3, dtype=np.float32)
    mine, seen = run_with_hooks(m, mg, x)
    theirs, their_seen = run_with_hooks(t, torch, x)
    for a, b in zip(mine, theirs):
        assert_close(a, b, rtol=1e-5, atol=1e-6)
    assert seen == pytest.approx(their_seen, rel=1e-5) and seen == pytest.approx(
        [2 * x.sum(), x.sum()], rel=1e-5
    )
    plain = m(mg.tensor(x))
    assert_close(mine[0], F.linear(mg.tensor(2 * x), m.weight, m.bias) + 1, rtol=1e-6)
    assert_close(mine[1], plain.array + 1, rtol=1e-6)


def test_hooks_run_in_registration_order_and_handle_works_as_context_manager():
    m = nn.Identity()
    order = []
    m.register_forward_pre_hook(lambda mod, args: order.append("pre1"))
    m.register_forward_pre_hook(lambda mod, args: order.append("pre2"))
    with m.register_forward_hook(lambda mod, args, out: order.append("post")):
        m(mg.zeros(1))
    m(mg.zeros(1))
    assert order == ["pre1", "pre2", "post", "pre1", "pre2"]


def backward_hook_record(lib, T, x_requires_grad):
    lin = lib.Linear(3, 2)
    with T.no_grad():
        lin.weight.copy_(T.tensor(np.arange(6.0).reshape(2, 3).astype(np.float32)))
    record = []

    def hook(module, grad_input, grad_output):
        as_np = [
            None if g is None else np.array(g.detach().numpy() if T is torch else g.array)
            for g in grad_input
        ]
        record.append(
            (as_np, [np.array(g.detach().numpy() if T is torch else g.array) for g in grad_output])
        )

    handle = lin.register_full_backward_hook(hook)
    x = T.tensor(rand(4, 3, dtype=np.float32), requires_grad=x_requires_grad)
    (lin(x) * T.tensor(rand(4, 2, seed=1, dtype=np.float32))).sum().backward()
    handle.remove()
    lin(x).sum().backward()  # removed: not recorded
    return record


@pytest.mark.filterwarnings("ignore:Full backward hook is firing")
@pytest.mark.parametrize("x_requires_grad", [True, False])
def test_full_backward_hook_sees_torchs_grad_input_and_grad_output(x_requires_grad):
    mine = backward_hook_record(nn, mg, x_requires_grad)
    theirs = backward_hook_record(tnn, torch, x_requires_grad)
    assert len(mine) == len(theirs) == 1
    (gi, go), (tgi, tgo) = mine[0], theirs[0]
    assert len(gi) == len(tgi) == 1 and len(go) == len(tgo) == 1
    np.testing.assert_allclose(go[0], tgo[0], rtol=1e-6)
    if x_requires_grad:
        np.testing.assert_allclose(gi[0], tgi[0], rtol=1e-6)
    else:
        assert gi[0] is None and tgi[0] is None


def test_full_backward_hook_can_replace_grad_input():
    m = nn.Linear(3, 2)
    m.register_full_backward_hook(lambda mod, grad_input, grad_output: (grad_input[0] * 0 + 5,))
    x = mg.tensor(rand(2, 3, dtype=np.float32), requires_grad=True)
    m(x).sum().backward()
    np.testing.assert_array_equal(x.grad.array, np.full((2, 3), 5.0))
    assert m.weight.grad is not None  # the parameters still get their gradients


# ---- lookup, apply, modes --------------------------------------------------------------------
def test_get_submodule_parameter_and_buffer(nets):
    m, t = nets
    assert m.get_submodule("") is m
    assert m.get_submodule("blocks.1.fc") is m.blocks[1].fc
    assert m.get_parameter("head.out.weight") is m.head.out.weight
    assert m.get_parameter("scale") is m.scale
    assert m.get_buffer("blocks.0.running") is m.blocks[0].running
    assert m.get_buffer("blocks.0.scratch") is m.blocks[0].scratch  # non-persistent buffers too
    for path, getter in [
        ("blocks.2", "get_submodule"),
        ("head.out.bias", "get_parameter"),
        ("scale", "get_buffer"),
    ]:
        with pytest.raises(AttributeError):
            getattr(t, getter)(path)
        with pytest.raises(AttributeError, match=path.split(".")[-1]):
            getattr(m, getter)(path)


def test_apply_visits_children_first_then_self_as_torch(nets):
    m, t = nets
    mine, theirs = [], []
    assert m.apply(lambda mod: mine.append(type(mod).__name__)) is m
    t.apply(lambda mod: theirs.append(type(mod).__name__))
    assert mine == theirs


def test_train_and_eval_propagate_to_every_submodule(nets):
    m, _ = nets
    assert m.eval() is m
    assert not any(mod.training for mod in m.modules())
    assert m.train() is m
    assert all(mod.training for mod in m.modules())
    m.head.eval()
    assert m.training and not m.head.training and not m.head.out.training and m.blocks[0].training


def test_requires_grad_toggles_all_parameters(nets):
    m, _ = nets
    m.requires_grad_(False)
    assert not any(p.requires_grad for p in m.parameters())
    m.blocks.requires_grad_()
    assert [p.requires_grad for p in m.parameters()] == [
        False,
        True,
        True,
        True,
        True,
        False,
        False,
        False,
    ]


def with_grads():
    m = mg_mlp()
    m(mg.tensor(rand(2, 5, dtype=np.float32))).sum().backward()
    return m


def test_zero_grad_sets_to_none_by_default():
    m = with_grads()
    assert all(p.grad is not None for p in m.parameters())
    m.zero_grad()
    assert all(p.grad is None for p in m.parameters())


def test_zero_grad_set_to_none_false_keeps_zero_tensors():
    m = with_grads()
    m.zero_grad(set_to_none=False)
    for p in m.parameters():
        assert p.grad.shape == p.shape and not p.grad.array.any()
    m(mg.tensor(rand(2, 5, dtype=np.float32))).sum().backward()  # accumulation starts from 0 again
    fresh = mg_mlp()
    fresh.load_state_dict(m.state_dict())
    fresh(mg.tensor(rand(2, 5, dtype=np.float32))).sum().backward()
    for p, q in zip(m.parameters(), fresh.parameters()):
        np.testing.assert_allclose(p.grad.array, q.grad.array, rtol=1e-6)


# ---- dtype ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "convert, dtype",
    [
        (lambda m: m.double(), np.float64),
        (lambda m: m.half(), np.float16),
        (lambda m: m.to(mg.float64), np.float64),
        (lambda m: m.to(dtype=np.float64), np.float64),
        (lambda m: m.double().float(), np.float32),
    ],
)
def test_to_dtype_converts_floating_parameters_and_buffers_in_place(convert, dtype):
    m = with_grads()
    m.register_buffer("count", mg.tensor([3]))  # an integer buffer is left alone, as in torch
    m.register_buffer("mean", mg.zeros(2))
    params = list(m.parameters())
    assert convert(m) is m
    assert list(m.parameters()) == params  # the same Parameter objects (optimizers keep working)
    assert all(p.dtype == dtype and p.grad.dtype == dtype for p in m.parameters())
    assert m.mean.dtype == dtype and m.count.dtype == np.int64


def test_double_model_computes_in_float64():
    m = mg_mlp().double()
    assert m(mg.tensor(rand(2, 5))).dtype == np.float64


def test_to_rejects_non_float_dtypes_and_other_devices():
    m = nn.Linear(2, 2)
    assert m.to("cpu") is m and m.weight.dtype == np.float32
    with pytest.raises(TypeError, match="floating point"):
        m.to(mg.int64)
    with pytest.raises(RuntimeError, match="cuda"):
        m.to("cuda")


# ---- deepcopy -------------------------------------------------------------------------------
def test_deepcopy_gives_an_independent_model_with_the_same_structure():
    m = shared(nn, mg)
    c = copy.deepcopy(m)
    assert names(c.named_parameters()) == names(m.named_parameters())
    assert c.b.weight is c.a.weight  # sharing survives the copy
    assert isinstance(c.a.weight, nn.Parameter) and c.a.weight.requires_grad
    with mg.no_grad():
        c.a.weight.fill_(0.0)
    assert m.a.weight.array.any()


# ---- repr -----------------------------------------------------------------------------------
def printed(lib, T):
    class Multi(lib.Module):
        def extra_repr(self):
            return "first line\nsecond line"

    class Wide(lib.Module):
        def __init__(self):
            super().__init__()
            self.inner = Multi()

        def extra_repr(self):
            return "size=3"

    layers = lib.ModuleList(
        [lib.Linear(4, 4) for _ in range(3)] + [lib.Linear(4, 2), lib.Linear(4, 2), lib.ReLU()]
    )
    return lib.Sequential(
        OrderedDict(
            embed=lib.Embedding(10, 4, padding_idx=0),
            layers=layers,
            drop=lib.Dropout(0.1),
            acts=lib.Sequential(
                lib.LeakyReLU(0.2),
                lib.GELU(approximate="tanh"),
                lib.Softmax(dim=-1),
                lib.Softplus(beta=2.0),
                lib.ELU(),
                lib.ReLU(inplace=True),
            ),
            empty=lib.Sequential(),
            params=lib.ParameterList([lib.Parameter(T.zeros(2, 3)), lib.Parameter(T.zeros(4))]),
            multi=Multi(),
            wide=Wide(),
            flat=lib.Flatten(),
            unflat=lib.Unflatten(1, (2, 2)),
            loss=lib.CrossEntropyLoss(),
        )
    )


def test_nested_repr_is_identical_to_torchs():
    mine = repr(printed(nn, mg))
    theirs = repr(printed(tnn, torch)).replace("torch.", "minigrad.")
    assert mine == theirs, f"minigrad:\n{mine}\n\ntorch:\n{theirs}"
    assert "(0-2): 3 x Linear(in_features=4, out_features=4, bias=True)" in mine


# ---- get_config / from_config -----------------------------------------------------------------
@pytest.mark.parametrize(
    "make",
    [
        lambda: nn.Linear(3, 4, bias=False),
        lambda: nn.Linear(3, 4, dtype=mg.float64),
        lambda: nn.Linear(3, 4, device=mg.device("cpu")),
        lambda: nn.Conv2d(2, 3, 3, device=torch.device("cpu"), dtype=mg.float64),
        lambda: nn.Dense(5),
        lambda: nn.Embedding(7, 2, padding_idx=-1),
        lambda: nn.Dropout(0.25),
        lambda: nn.LeakyReLU(0.3),
        lambda: nn.GELU("tanh"),
        lambda: nn.Softmax(dim=1),
        lambda: nn.Flatten(0, 1),
        lambda: nn.Unflatten(1, (2, 3)),
        lambda: nn.CrossEntropyLoss(ignore_index=3, label_smoothing=0.1, reduction="sum"),
        lambda: nn.HuberLoss(delta=0.5),
    ],
)
def test_get_config_round_trips_through_json(make):
    m = make()
    cfg = m.get_config()
    rebuilt = type(m).from_config(json.loads(json.dumps(cfg)))
    assert type(rebuilt) is type(m) and rebuilt.get_config() == cfg
    assert repr(rebuilt) == repr(m)
    assert shapes(rebuilt.named_parameters()) == shapes(m.named_parameters())
    assert [p.dtype for p in rebuilt.parameters()] == [p.dtype for p in m.parameters()]


def test_get_config_records_the_outermost_constructor_arguments():
    class Model(nn.Module):
        def __init__(self, width, depth=2, activation="relu"):
            super().__init__()
            self.layers = nn.Sequential(*[nn.Linear(width, width) for _ in range(depth)])

    m = Model(4, activation="gelu")
    assert m.get_config() == {"width": 4, "depth": 2, "activation": "gelu"}
    assert nn.Linear(2, 3).get_config() == {
        "in_features": 2,
        "out_features": 3,
        "bias": True,
        "device": None,
        "dtype": None,
    }
    assert nn.Dense(3).get_config() == {  # not Linear's arguments
        "out_features": 3,
        "bias": True,
        "device": None,
        "dtype": None,
        "in_features": None,
        "initializer": None,
    }
    assert len(Model.from_config(m.get_config()).layers) == 2


def test_a_subclass_keeps_the_init_written_in_its_class_body():
    def init(self, width, depth=2):
        super(Model, self).__init__()
        self.fc = nn.Linear(width, width)

    class Model(nn.Module):
        __init__ = init

    assert Model.__init__ is init  # nothing wraps it: the arguments are noted by Module.__new__
    assert Model(3).get_config() == {"width": 3, "depth": 2}


def test_sequential_get_config_lists_its_layers_and_from_config_rebuilds_them():
    model = nn.Sequential(nn.Linear(2, 3, bias=False), nn.ReLU(), nn.Dense(4))
    config = json.loads(json.dumps(model.get_config()))
    linear = {"in_features": 2, "out_features": 3, "bias": False, "device": None, "dtype": None}
    dense = {"out_features": 4, "bias": True, "device": None, "dtype": None}
    dense.update(in_features=None, initializer=None)
    relu = {"inplace": False}
    assert config == {
        "layers": [
            {"name": "0", "module": "minigrad.nn.linear", "class_name": "Linear", "config": linear},
            {"name": "1", "module": "minigrad.nn.activation", "class_name": "ReLU", "config": relu},
            {"name": "2", "module": "minigrad.nn.keras", "class_name": "Dense", "config": dense},
        ]
    }
    rebuilt = nn.Sequential.from_config(config)
    assert repr(rebuilt) == repr(model) and not rebuilt.is_built
    rebuilt(mg.ones(5, 2))  # builds the Dense: in_features 3
    assert shapes(rebuilt.named_parameters()) == [
        ("0.weight", (3, 2)),
        ("2.weight", (4, 3)),
        ("2.bias", (4,)),
    ]
    named = nn.Sequential(OrderedDict(fc=nn.Linear(2, 2), act=nn.Tanh()))
    assert list(nn.Sequential.from_config(named.get_config())._modules) == ["fc", "act"]


def test_sequential_from_config_builds_only_minigrad_nn_layers():
    config = nn.Sequential(nn.ReLU()).get_config()
    config["layers"][0].update(module="os", class_name="system")
    with pytest.raises(ValueError, match=r"layer 0 is a os\.system, not a minigrad\.nn layer"):
        nn.Sequential.from_config(config)


def test_get_config_rejects_arguments_json_cannot_hold():
    class Holder(nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

    with pytest.raises(TypeError, match="argument 'inner'.*not JSON"):
        Holder(nn.ReLU()).get_config()


def test_module_backward_runs_the_loss_backward():
    model = nn.Linear(3, 2)
    x = mg.randn(4, 3)
    loss = model(x).pow(2).sum()
    model.backward(loss)
    reference = nn.Linear(3, 2)
    reference.load_state_dict(model.state_dict())
    reference(x).pow(2).sum().backward()
    np.testing.assert_allclose(model.weight.grad.numpy(), reference.weight.grad.numpy(), rtol=1e-6)
    with pytest.raises(TypeError, match="Linear.backward: expected the loss as a Tensor"):
        model.backward(1.0)
