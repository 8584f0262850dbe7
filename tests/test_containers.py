"""Containers: Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict, Identity,
Flatten, Unflatten, checked against PyTorch's behaviour (names, order, indexing, outputs)."""

from collections import OrderedDict

import numpy as np
import pytest
import torch
import torch.nn as tnn

import minigrad as mg
import minigrad.nn as nn
from tests.helpers import assert_close, check_against_torch, rand

# The torch names whose behaviour this file checks against torch (read by tools/api_coverage.py).
TORCH_API = [
    "torch.nn.Flatten",
    "torch.nn.Identity",
    "torch.nn.ModuleDict",
    "torch.nn.ModuleList",
    "torch.nn.ParameterDict",
    "torch.nn.ParameterList",
    "torch.nn.Sequential",
    "torch.nn.Unflatten",
]


def kinds(modules):
    return [type(m).__name__ for m in modules]


def keys(module):
    return list(module.state_dict())


def lin(lib, i):
    """Linear layers of distinct shapes, so their order shows in the state dict shapes."""
    return lib.Linear(i + 1, i + 2)


def state_shapes(module):
    return [(k, tuple(v.shape)) for k, v in module.state_dict().items()]


# ---- Sequential ------------------------------------------------------------------------------
def test_sequential_applies_modules_in_order_like_torch():
    torch.manual_seed(0)
    t = tnn.Sequential(tnn.Linear(3, 5), tnn.Tanh(), tnn.Linear(5, 2), tnn.Sigmoid())
    m = nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 2), nn.Sigmoid())
    m.load_state_dict({k: v.numpy() for k, v in t.state_dict().items()})
    x = rand(4, 3, dtype=np.float32)
    assert_close(m(mg.tensor(x)), t(torch.tensor(x)), rtol=1e-5, atol=1e-6)
    assert keys(m) == keys(t) == ["0.weight", "0.bias", "2.weight", "2.bias"]


def test_sequential_from_ordered_dict_uses_its_names():
    m = nn.Sequential(OrderedDict(first=nn.Linear(2, 3), act=nn.ReLU(), last=nn.Linear(3, 1)))
    t = tnn.Sequential(OrderedDict(first=tnn.Linear(2, 3), act=tnn.ReLU(), last=tnn.Linear(3, 1)))
    assert keys(m) == keys(t) == ["first.weight", "first.bias", "last.weight", "last.bias"]
    assert m.first is m[0] and m.last is m[-1]


def test_sequential_indexing_len_and_iteration():
    layers = [nn.ReLU(), nn.Tanh(), nn.Sigmoid()]
    s = nn.Sequential(*layers)
    assert len(s) == 3 and list(s) == layers
    assert s[0] is layers[0] and s[-1] is layers[2] and s[-3] is layers[0]
    for bad in (3, -4):
        with pytest.raises(IndexError, match="out of range"):
            s[bad]
    with pytest.raises(TypeError):
        s["0"]


def test_sequential_slice_keeps_names_and_shares_modules_like_torch():
    m = nn.Sequential(OrderedDict(a=nn.ReLU(), b=nn.Tanh(), c=nn.Sigmoid()))
    t = tnn.Sequential(OrderedDict(a=tnn.ReLU(), b=tnn.Tanh(), c=tnn.Sigmoid()))
    for idx in (slice(1, None), slice(None, None, -1), slice(0, 3, 2)):
        part = m[idx]
        assert isinstance(part, nn.Sequential)
        assert list(part._modules) == list(t[idx]._modules)
        assert all(a is b for a, b in zip(part, list(m)[idx]))


def test_sequential_append_extend_insert_setitem_like_torch():
    ops = [
        lambda lib, s: s.append(lin(lib, 5)),
        lambda lib, s: s.extend([lin(lib, 6), lin(lib, 7)]),
        lambda lib, s: s.insert(1, lin(lib, 8)),
        lambda lib, s: s.insert(-1, lin(lib, 9)),
        lambda lib, s: s.__setitem__(-2, lin(lib, 10)),
    ]
    m = nn.Sequential(lin(nn, 0), lin(nn, 1))
    t = tnn.Sequential(lin(tnn, 0), lin(tnn, 1))
    for op in ops:
        assert op(nn, m) in (m, None)
        op(tnn, t)
        assert state_shapes(m) == state_shapes(t)
    with pytest.raises(IndexError):
        m.insert(len(m) + 1, nn.ReLU())


@pytest.mark.parametrize("index", [0, -1, 2, slice(1, 3), slice(None, None, 2)], ids=str)
def test_sequential_del_renumbers_like_torch(index):
    m = nn.Sequential(*[lin(nn, i) for i in range(5)])
    t = tnn.Sequential(*[lin(tnn, i) for i in range(5)])
    del m[index]
    del t[index]
    assert state_shapes(m) == state_shapes(t)


def test_empty_sequential_is_the_identity():
    x = mg.tensor([1.0, 2.0])
    assert nn.Sequential()(x) is x
    assert len(nn.Sequential()) == 0


# ---- ModuleList ------------------------------------------------------------------------------
def test_module_list_registers_and_indexes_like_a_list():
    m = nn.ModuleList([lin(nn, 0), lin(nn, 1)])
    t = tnn.ModuleList([lin(tnn, 0), lin(tnn, 1)])
    m.append(lin(nn, 2)).extend([lin(nn, 3)])
    t.append(lin(tnn, 2)).extend([lin(tnn, 3)])
    m += [lin(nn, 4)]
    t += [lin(tnn, 4)]
    m.insert(1, lin(nn, 5))
    t.insert(1, lin(tnn, 5))
    m[-1] = lin(nn, 6)
    t[-1] = lin(tnn, 6)
    del m[2]
    del t[2]
    assert state_shapes(m) == state_shapes(t)
    assert len(m) == len(t) == 5
    assert [x.in_features for x in m] == [1, 6, 3, 4, 7]
    assert m[-1] is list(m)[-1] and m[-5] is list(m)[0]
    assert isinstance(m[1:3], nn.ModuleList) and [x.in_features for x in m[1:3]] == [6, 3]
    with pytest.raises(IndexError, match="out of range"):
        m[5]
    with pytest.raises(NotImplementedError, match="iterate"):
        m(mg.zeros(1))


def test_module_list_slice_delete_renumbers():
    m = nn.ModuleList([lin(nn, i) for i in range(5)])
    del m[::2]
    assert list(m._modules) == ["0", "1"]
    assert [x.in_features for x in m] == [2, 4]


def test_module_list_parameters_reach_the_parent():
    class Stack(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList(nn.Linear(2, 2) for _ in range(3))

    names = [n for n, _ in Stack().named_parameters()]
    assert names == [f"layers.{i}.{p}" for i in range(3) for p in ("weight", "bias")]


# ---- ModuleDict ------------------------------------------------------------------------------
def test_module_dict_keeps_insertion_order_like_torch():
    m = nn.ModuleDict({"z": lin(nn, 0), "a": lin(nn, 1)})
    t = tnn.ModuleDict({"z": lin(tnn, 0), "a": lin(tnn, 1)})
    m.update([("m", lin(nn, 2))])
    t.update([("m", lin(tnn, 2))])
    m["b"] = lin(nn, 3)
    t["b"] = lin(tnn, 3)
    assert state_shapes(m) == state_shapes(t)
    assert list(m) == list(m.keys()) == ["z", "a", "m", "b"]
    assert "a" in m and "q" not in m and len(m) == 4
    assert [k for k, _ in m.items()] == list(m.keys()) and list(m.values())[1] is m["a"]
    popped = m.pop("a")
    assert isinstance(popped, nn.Linear) and "a" not in m
    del m["z"]
    assert list(m) == ["m", "b"]
    with pytest.raises(KeyError):
        m["z"]
    m.clear()
    assert len(m) == 0 and list(m.parameters()) == []
    with pytest.raises(NotImplementedError):
        m(mg.zeros(1))


# ---- ParameterList / ParameterDict -------------------------------------------------------------
def test_parameter_list_wraps_tensors_and_registers_them():
    p = nn.ParameterList([mg.zeros(2), np.ones(3)])
    p.append(nn.Parameter(mg.zeros(1)))
    p.extend([mg.ones(2, 2)])
    assert len(p) == 4 and all(isinstance(x, nn.Parameter) and x.requires_grad for x in p)
    assert [n for n, _ in p.named_parameters()] == ["0", "1", "2", "3"]
    assert p[-1].shape == (2, 2) and p[1].dtype == np.float64
    assert isinstance(p[1:], nn.ParameterList) and len(p[1:]) == 3
    p[0] = mg.full((5,), 2.0)
    assert isinstance(p[0], nn.Parameter) and p[0].shape == (5,)
    with pytest.raises(IndexError):
        p[4]


def test_parameter_list_repr_matches_torch():
    mine = nn.ParameterList([mg.zeros(2, 3), mg.zeros(4, dtype=mg.float64)])
    theirs = tnn.ParameterList([torch.zeros(2, 3), torch.zeros(4, dtype=torch.float64)])
    assert repr(mine) == repr(theirs).replace("torch.", "minigrad.")


def test_parameter_dict_registers_under_keys():
    p = nn.ParameterDict({"w": mg.zeros(2)})
    p["b"] = np.ones(1)
    p.update([("c", mg.ones(3))])
    assert [n for n, _ in p.named_parameters()] == ["w", "b", "c"]
    assert all(isinstance(v, nn.Parameter) for v in p.values())
    assert "b" in p and len(p) == 3 and list(p.keys()) == ["w", "b", "c"]
    assert p.pop("w").shape == (2,)
    del p["b"]
    assert list(p) == ["c"]
    assert "Parameter containing: [minigrad.float32 of size 3]" in repr(p)


def test_parameter_containers_in_a_model_get_gradients():
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.scales = nn.ParameterList([np.full(2, 2.0), np.full(2, 3.0)])
            self.shifts = nn.ParameterDict({"a": np.ones(2)})

        def forward(self, x):
            return (x * self.scales[0] * self.scales[1] + self.shifts["a"]).sum()

    m = Model()
    assert [n for n, _ in m.named_parameters()] == ["scales.0", "scales.1", "shifts.a"]
    m(mg.tensor([1.0, 2.0], dtype=mg.float64)).backward()
    np.testing.assert_allclose(m.scales[0].grad.array, [3.0, 6.0])
    np.testing.assert_allclose(m.shifts["a"].grad.array, [1.0, 1.0])


# ---- Identity, Flatten, Unflatten ---------------------------------------------------------------
def test_identity_returns_its_input_and_ignores_arguments():
    x = mg.tensor([1.0, 2.0])
    assert nn.Identity(54, unused="yes")(x) is x
    assert repr(nn.Identity()) == repr(tnn.Identity())


@pytest.mark.parametrize(
    "args, shape",
    [
        ((), (2, 3, 4, 5)),
        ((0, -1), (2, 3, 4)),
        ((1, 2), (2, 3, 4, 5)),
        ((-2, -1), (3, 4, 5)),
        ((2,), (2, 3, 4)),
    ],
    ids=str,
)
def test_flatten_matches_torch(args, shape):
    check_against_torch(
        lambda x: nn.Flatten(*args)(x), lambda x: tnn.Flatten(*args)(x), rand(*shape)
    )
    assert repr(nn.Flatten(*args)) == repr(tnn.Flatten(*args))


@pytest.mark.parametrize(
    "dim, sizes, shape",
    [(1, (2, 3), (4, 6)), (-1, (2, -1), (3, 8)), (0, (1, 2), (2, 5)), (1, [3, 1], (2, 3, 2))],
    ids=str,
)
def test_unflatten_matches_torch(dim, sizes, shape):
    check_against_torch(
        lambda x: nn.Unflatten(dim, sizes)(x), lambda x: tnn.Unflatten(dim, sizes)(x), rand(*shape)
    )
    assert repr(nn.Unflatten(dim, tuple(sizes))) == repr(tnn.Unflatten(dim, tuple(sizes)))


def test_unflatten_wrong_sizes_raise():
    with pytest.raises(Exception, match="unflatten"):
        nn.Unflatten(1, (4, 2))(mg.zeros(2, 6))
