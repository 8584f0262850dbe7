"""Module hooks and the torch 2.x Module methods beyond the basics (test_module.py has
those): forward hooks with kwargs / prepend / always_call, backward pre-hooks, state-dict
and load-state-dict hooks, set_submodule, type, to_empty.

Each behaviour runs the same code on a minigrad and a PyTorch module and compares what
the hooks saw, in what order, and what came out.
"""

import re
import warnings

import numpy as np
import pytest
import torch
import torch.nn as tnn

import minigrad as mg
import minigrad.nn as nn
from tests.helpers import rand

# The torch names whose behaviour this file checks against torch (read by tools/api_coverage.py).
TORCH_API = [
    "torch.nn.Module.register_forward_hook",
    "torch.nn.Module.register_forward_pre_hook",
    "torch.nn.Module.register_full_backward_pre_hook",
    "torch.nn.Module.register_load_state_dict_post_hook",
    "torch.nn.Module.register_load_state_dict_pre_hook",
    "torch.nn.Module.register_state_dict_post_hook",
    "torch.nn.Module.register_state_dict_pre_hook",
    "torch.nn.Module.set_submodule",
    "torch.nn.Module.to_empty",
    "torch.nn.Module.type",
]


def to_np(t):
    return np.array(t.detach().numpy() if isinstance(t, torch.Tensor) else t.array)


def scaled(lib):
    """forward(x, scale=1.0) = x * scale, to see keyword arguments pass through hooks."""

    class Scaled(lib.Module):
        def forward(self, x, scale=1.0):
            return x * scale

    return Scaled()


def twin_linears():
    t = tnn.Linear(3, 2)
    m = nn.Linear(3, 2)
    m.load_state_dict({k: v.detach().numpy() for k, v in t.state_dict().items()})
    return m, t


# ---- forward hooks ----------------------------------------------------------------------------
@pytest.mark.parametrize("lib, T", [(nn, mg), (tnn, torch)], ids=["minigrad", "torch"])
def test_pre_hook_with_kwargs_can_replace_args_and_kwargs(lib, T):
    m = scaled(lib)
    seen = []

    def pre(module, args, kwargs):
        seen.append(dict(kwargs))
        return (args[0] + 1,), {**kwargs, "scale": 3.0}

    m.register_forward_pre_hook(pre, with_kwargs=True)
    out = m(T.tensor([1.0, 2.0]), scale=2.0)
    assert to_np(out).tolist() == [6.0, 9.0] and seen == [{"scale": 2.0}]


def test_pre_hook_with_kwargs_must_return_a_pair_as_in_torch():
    def bad(module, args, kwargs):
        return args

    results = []
    for lib, T in ((tnn, torch), (nn, mg)):
        m = scaled(lib)
        m.register_forward_pre_hook(bad, with_kwargs=True)
        with pytest.raises(RuntimeError) as info:
            m(T.tensor([1.0]))
        results.append(str(info.value).split(", but got")[0])
    assert (
        results[0]
        == results[1]
        == "forward pre-hook must return None or a tuple of (new_args, new_kwargs)"
    )


@pytest.mark.parametrize("lib, T", [(nn, mg), (tnn, torch)], ids=["minigrad", "torch"])
def test_forward_hook_with_kwargs_sees_them_and_may_replace_the_output(lib, T):
    m = scaled(lib)
    m.register_forward_hook(lambda mod, args, kwargs, out: out + kwargs["scale"], with_kwargs=True)
    assert to_np(m(T.tensor([1.0]), scale=4.0)).tolist() == [8.0]


def hook_order(lib, T):
    m = lib.Identity()
    order = []
    m.register_forward_pre_hook(lambda mod, args: order.append("pre A"))
    m.register_forward_pre_hook(lambda mod, args: order.append("pre B first"), prepend=True)
    m.register_forward_pre_hook(
        lambda mod, args, kwargs: order.append("pre C kwargs"), with_kwargs=True
    )
    m.register_forward_hook(lambda mod, args, out: order.append("post A"))
    handle = m.register_forward_hook(
        lambda mod, args, out: order.append("post B first"), prepend=True
    )
    m(T.zeros(1))
    handle.remove()
    m(T.zeros(1))
    return order


def test_prepend_puts_a_hook_first_as_in_torch():
    assert hook_order(nn, mg) == hook_order(tnn, torch)
    assert hook_order(nn, mg)[:5] == [
        "pre B first",
        "pre A",
        "pre C kwargs",
        "post B first",
        "post A",
    ]


def always_call_record(lib, T):
    class Fails(lib.Module):
        def forward(self, x):
            raise ValueError("forward failed")

    m = Fails()
    calls = []
    m.register_forward_hook(lambda mod, args, out: calls.append(("plain", out)))
    m.register_forward_hook(lambda mod, args, out: calls.append(("always", out)), always_call=True)
    m.register_forward_hook(
        lambda mod, args, kwargs, out: calls.append(("always kwargs", dict(kwargs), out)),
        with_kwargs=True,
        always_call=True,
    )

    def noisy(mod, args, out):
        raise KeyError("hook failed too")

    m.register_forward_hook(noisy, always_call=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(ValueError, match="forward failed"):
            m(T.zeros(1))
    return calls, [str(w.message).split(":")[0] for w in caught]


def test_always_call_hooks_run_when_forward_raises_as_in_torch():
    mine, theirs = always_call_record(nn, mg), always_call_record(tnn, torch)
    assert mine == theirs
    assert mine[0] == [("always", None), ("always kwargs", {}, None)]
    assert mine[1] == [
        "module forward hook with ``always_call=True`` raised an exception that was silenced as "
        "another error was raised in forward"
    ]


def test_removing_a_handle_forgets_the_hooks_flags():
    m = scaled(nn)
    handle = m.register_forward_hook(lambda *a: None, with_kwargs=True, always_call=True)
    pre = m.register_forward_pre_hook(lambda *a: None, with_kwargs=True)
    assert len(m._forward_hooks_with_kwargs) == len(m._forward_hooks_always_called) == 1
    handle.remove()
    pre.remove()
    assert not (m._forward_hooks or m._forward_hooks_with_kwargs or m._forward_hooks_always_called)
    assert not (m._forward_pre_hooks or m._forward_pre_hooks_with_kwargs)


def test_a_hook_must_be_callable():
    with pytest.raises(TypeError, match="a hook must be callable, got int"):
        nn.Linear(1, 1).register_forward_hook(3)


# ---- backward pre-hooks --------------------------------------------------------------------------
def backward_record(model, T, pre_hook_scale=None):
    calls = []

    def pre(module, grad_output):
        calls.append(("pre", [to_np(g) for g in grad_output]))
        if pre_hook_scale is not None:
            return tuple(g * pre_hook_scale for g in grad_output)
        return None

    def full(module, grad_input, grad_output):
        calls.append(("full", [to_np(g) for g in grad_input], [to_np(g) for g in grad_output]))

    model.register_full_backward_pre_hook(pre)
    model.register_full_backward_hook(full)
    x = T.tensor(rand(4, 3, dtype=np.float32), requires_grad=True)
    (model(x) * T.tensor(rand(4, 2, seed=1, dtype=np.float32))).sum().backward()
    return calls, to_np(x.grad), to_np(model.weight.grad)


def assert_same_record(mine, theirs):
    assert [c[0] for c in mine] == [c[0] for c in theirs]
    for a, b in zip(mine, theirs):
        for xs, ys in zip(a[1:], b[1:]):
            for x, y in zip(xs, ys):
                np.testing.assert_allclose(x, y, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("scale", [None, 3.0])
def test_backward_pre_hook_sees_and_may_replace_grad_output_as_in_torch(scale):
    m, t = twin_linears()
    mine, x_grad, w_grad = backward_record(m, mg, scale)
    theirs, tx_grad, tw_grad = backward_record(t, torch, scale)
    assert [c[0] for c in mine] == ["pre", "full"]
    assert_same_record(mine, theirs)  # the full hook sees the replaced grad_output
    np.testing.assert_allclose(x_grad, tx_grad, rtol=1e-5)
    # the replacement reaches the parameters too
    np.testing.assert_allclose(w_grad, tw_grad, rtol=1e-5)
    if scale is not None:
        np.testing.assert_allclose(mine[1][2][0], scale * mine[0][1][0], rtol=1e-6)


def test_backward_pre_hook_returning_the_wrong_number_of_grads_raises_torchs_error():
    messages = []
    for lib, T in ((tnn, torch), (nn, mg)):
        m = lib.Linear(2, 2)
        m.register_full_backward_pre_hook(lambda mod, grad_output: (grad_output[0], grad_output[0]))
        with pytest.raises(RuntimeError) as info:
            m(T.ones(1, 2)).sum().backward()
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def two_outputs_record(lib, T):
    class Split(lib.Module):
        def forward(self, x):
            return x * 2, x.sum(), 7

    m = Split()
    seen = []
    m.register_full_backward_pre_hook(
        lambda mod, g: seen.append([None if a is None else to_np(a) for a in g])
    )
    x = T.tensor([1.0, 2.0], requires_grad=True)
    a, b, _ = m(x)
    (a * T.tensor([3.0, 4.0])).sum().add(b * 5).backward()
    return seen


def test_backward_pre_hook_of_a_module_with_several_outputs_sees_all_of_them():
    mine, theirs = two_outputs_record(nn, mg), two_outputs_record(tnn, torch)
    assert len(mine) == len(theirs) == 1
    assert [None if g is None else g.tolist() for g in mine[0]] == [
        None if g is None else g.tolist() for g in theirs[0]
    ]


def test_backward_hooks_run_again_on_a_retained_graph():
    counts = []
    for lib, T in ((nn, mg), (tnn, torch)):
        m = lib.Linear(2, 1)
        calls = []
        m.register_full_backward_pre_hook(lambda mod, g, calls=calls: calls.append("pre"))
        m.register_full_backward_hook(lambda mod, gi, go, calls=calls: calls.append("full"))
        y = m(T.ones(1, 2, requires_grad=True)).sum()
        y.backward(retain_graph=True)
        y.backward()
        counts.append(calls)
    assert counts[0] == counts[1] == ["pre", "full", "pre", "full"]


# ---- state_dict hooks ----------------------------------------------------------------------------
def nested(lib, T):
    class Block(lib.Module):
        def __init__(self):
            super().__init__()
            self.fc = lib.Linear(2, 2)
            self.register_buffer("count", T.zeros(1))

    class Net(lib.Module):
        def __init__(self):
            super().__init__()
            self.a = Block()
            self.b = lib.Sequential(lib.Linear(2, 3), lib.ReLU())

    return Net()


def state_dict_hook_record(lib, T):
    net = nested(lib, T)
    calls = []
    for name, module in net.named_modules():
        module.register_state_dict_pre_hook(
            lambda mod, prefix, keep_vars, name=name: calls.append(("pre", name, prefix, keep_vars))
        )
        module.register_state_dict_post_hook(
            lambda mod, sd, prefix, meta, name=name: calls.append(
                ("post", name, prefix, sorted(sd), meta)
            )
        )
    sd = net.state_dict(keep_vars=True)
    return calls, dict(sd._metadata)


def test_state_dict_hooks_are_called_in_torchs_order_with_torchs_arguments():
    mine, theirs = state_dict_hook_record(nn, mg), state_dict_hook_record(tnn, torch)
    assert mine == theirs
    assert mine[0][0] == ("pre", "", "", True) and mine[0][-1][:3] == ("post", "", "")


@pytest.mark.parametrize("lib, T", [(nn, mg), (tnn, torch)], ids=["minigrad", "torch"])
def test_a_state_dict_post_hook_edits_in_place_and_must_return_none(lib, T):
    net = nested(lib, T)
    net.a.register_state_dict_post_hook(lambda mod, sd, prefix, meta: sd.pop(prefix + "count"))
    with pytest.raises(RuntimeError, match="state_dict post-hook must return None"):
        net.state_dict()
    net = nested(lib, T)

    def drop_count(mod, sd, prefix, meta):
        del sd[prefix + "count"]

    net.a.register_state_dict_post_hook(drop_count)
    assert "a.count" not in net.state_dict() and "a.fc.weight" in net.state_dict()


def test_state_dict_positional_arguments_warn_as_in_torch():
    with pytest.warns(FutureWarning, match="Positional args are being deprecated"):
        sd = nn.Linear(2, 1).state_dict(None, "lin.")
    assert list(sd) == ["lin.weight", "lin.bias"]


# ---- load_state_dict hooks -----------------------------------------------------------------------
def load_hook_record(lib, T, strict=True):
    net = nested(lib, T)
    state = {k: to_np(v) for k, v in nested(lib, T).state_dict().items()}
    # an old checkpoint: Block's fc was called "linear"; a pre-hook renames it
    state = {
        k.replace("a.fc.", "a.linear."): (T.tensor(v) if lib is tnn else v)
        for k, v in state.items()
    }
    state["extra.key"] = T.tensor([1.0]) if lib is tnn else np.ones(1)
    calls = []

    def rename(mod, sd, prefix, meta, strict, missing, unexpected, errors):
        calls.append(("pre a", prefix, sorted(sd), strict, list(missing), list(unexpected)))
        for key in [k for k in sd if k.startswith(prefix + "linear.")]:
            sd[key.replace(prefix + "linear.", prefix + "fc.")] = sd.pop(key)

    def post(mod, incompatible):
        calls.append(
            ("post root", list(incompatible.missing_keys), list(incompatible.unexpected_keys))
        )
        incompatible.unexpected_keys.remove("extra.key")

    net.a.register_load_state_dict_pre_hook(rename)
    net.register_load_state_dict_post_hook(post)
    net.a.register_load_state_dict_post_hook(
        lambda mod, inc: calls.append(("post a", list(inc.missing_keys)))
    )
    result = net.load_state_dict(state, strict=strict)
    return calls, (list(result.missing_keys), list(result.unexpected_keys)), sorted(state)


@pytest.mark.parametrize("strict", [True, False])
def test_load_state_dict_hooks_rename_keys_and_silence_errors_as_in_torch(strict):
    mine, theirs = load_hook_record(nn, mg, strict), load_hook_record(tnn, torch, strict)
    assert mine == theirs
    calls, result, callers_keys = mine
    assert [c[0] for c in calls] == ["pre a", "post a", "post root"]
    # renamed by the pre-hook, the unexpected key removed by the post-hook
    assert result == ([], [])
    assert "a.linear.weight" in callers_keys  # the caller's dict was not touched


def test_load_state_dict_reports_the_same_missing_and_unexpected_keys_as_torch():
    results = []
    for lib, T in ((nn, mg), (tnn, torch)):
        net = nested(lib, T)
        state = {k: v for k, v in net.state_dict().items() if k != "b.0.bias"}
        state.update(
            {
                "b.7.weight": state["b.0.weight"],
                "a.fc.weight.x": state["a.count"],
                "zzz": state["a.count"],
            }
        )
        result = net.load_state_dict(state, strict=False)
        with pytest.raises(RuntimeError) as info:
            net.load_state_dict(state)
        results.append(
            (result.missing_keys, result.unexpected_keys, str(info.value).replace(" \n", "\n"))
        )
    assert results[0][:2] == results[1][:2]
    mine, theirs = (re.sub(r"\.\s*$", ".", line.strip()) for line in (results[0][2], results[1][2]))
    assert mine.split("\n")[1:] == [re.sub(r"\. ?$", ".", line) for line in theirs.split("\n")[1:]]


def test_a_load_state_dict_post_hook_must_return_none():
    net = nn.Linear(1, 1)
    net.register_load_state_dict_post_hook(lambda mod, inc: inc)
    with pytest.raises(RuntimeError, match="post-hooks must return None"):
        net.load_state_dict(nn.Linear(1, 1).state_dict())


# ---- set_submodule -------------------------------------------------------------------------------
def test_set_submodule_replaces_and_adds_as_torch():
    for lib in (nn, tnn):
        net = lib.Sequential(lib.Linear(2, 2), lib.Sequential(lib.ReLU()))
        relu_slot = net.get_submodule("1.0")
        net.set_submodule("1.0", lib.Tanh())
        net.set_submodule("1.extra", lib.Identity())
        net.set_submodule("0", lib.Linear(2, 5), strict=True)
        assert isinstance(net[1][0], lib.Tanh) and net[1][0] is not relu_slot
        assert isinstance(net.get_submodule("1.extra"), lib.Identity) and net[0].out_features == 5


@pytest.mark.parametrize(
    "target, module_factory, strict",
    [
        ("", lambda lib: lib.ReLU(), False),
        ("0", lambda lib: 3, False),
        ("1.new", lambda lib: lib.ReLU(), True),
        ("0.weight", lambda lib: lib.ReLU(), False),
        ("5.x", lambda lib: lib.ReLU(), False),
    ],
)
def test_set_submodule_errors_match_torch(target, module_factory, strict):
    with pytest.raises(Exception) as theirs:
        tnn.Sequential(tnn.Linear(2, 2), tnn.Sequential()).set_submodule(
            target, module_factory(tnn), strict=strict
        )
    with pytest.raises(type(theirs.value)) as mine:
        nn.Sequential(nn.Linear(2, 2), nn.Sequential()).set_submodule(
            target, module_factory(nn), strict=strict
        )
    if target != "5.x":  # (the missing-parent message is get_submodule's own)
        expected = re.sub(r"<class '[\w.]+\.(\w+)'>", r"\1", str(theirs.value))
        assert re.sub(r"<class '[\w.]+\.(\w+)'>", r"\1", str(mine.value)) == expected


# ---- type and to_empty ---------------------------------------------------------------------------
def test_type_casts_every_parameter_buffer_and_gradient_as_torch():
    dtypes = []
    for lib, T in ((nn, mg), (tnn, torch)):
        bn = lib.BatchNorm1d(2)
        bn.weight.grad = T.ones(2)
        weight = bn.weight
        assert bn.type(T.float64) is bn and bn.weight is weight
        dtypes.append([str(v.dtype).replace("torch.", "") for v in bn.state_dict().values()])
        dtypes[-1].append(str(bn.weight.grad.dtype).replace("torch.", ""))
    assert dtypes[0] == dtypes[1] == ["float64"] * 6  # num_batches_tracked included
    m = nn.Linear(2, 2).type("torch.DoubleTensor")
    assert m.weight.dtype == np.float64


def test_type_to_an_integer_dtype_refuses_trainable_parameters():
    with pytest.raises(RuntimeError, match="must be floating point"):
        nn.Linear(2, 2).type(mg.int64)
    with pytest.raises(ValueError, match="invalid type: 'torch.NoSuchTensor'"):
        nn.Linear(2, 2).type("torch.NoSuchTensor")


def test_to_empty_gives_fresh_storage_keeping_the_parameter_objects(no_gpu):
    m = nn.BatchNorm1d(3)
    m.running_mean.array[...] = 5
    weight, old = m.weight, m.weight.array
    assert m.to_empty(device="cpu") is m
    assert m.weight is weight and m.weight.array is not old and m.weight.shape == (3,)
    assert m.weight.dtype == np.float32 and m.num_batches_tracked.dtype == np.int64
    assert not m.running_mean.array.any()
    with pytest.raises(RuntimeError, match="Module.to_empty: no CUDA device is available"):
        m.to_empty(device="cuda")
    with pytest.raises(TypeError):
        m.to_empty()  # device is a required keyword, as in torch
    child = nn.Sequential(nn.Linear(1, 1))
    inner = child[0].weight.array
    child.to_empty(device=None, recurse=False)
    assert child[0].weight.array is inner
