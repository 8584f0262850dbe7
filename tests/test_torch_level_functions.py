"""mg.exp(x), mg.sum(x, dim), mg.reshape(x, shape), ...: the torch-level forms of Tensor
methods. Each is written out next to its Functions in minigrad/ops/ (so help() and an
editor show real parameters), takes torch's parameter names, and returns what torch's
function and the Tensor method return."""

import inspect
import pydoc
import re

import numpy as np
import pytest
import torch

import minigrad as mg
from tests.helpers import assert_close, rand

# The torch names whose behaviour this file checks against torch (read by tools/api_coverage.py).
TORCH_API = [
    "torch.Tensor.abs",
    "torch.Tensor.amax",
    "torch.Tensor.amin",
    "torch.Tensor.argmax",
    "torch.Tensor.argmin",
    "torch.Tensor.ceil",
    "torch.Tensor.chunk",
    "torch.Tensor.clamp",
    "torch.Tensor.clamp_max",
    "torch.Tensor.clamp_min",
    "torch.Tensor.clip",
    "torch.Tensor.cos",
    "torch.Tensor.erf",
    "torch.Tensor.exp",
    "torch.Tensor.flatten",
    "torch.Tensor.floor",
    "torch.Tensor.isfinite",
    "torch.Tensor.isinf",
    "torch.Tensor.isnan",
    "torch.Tensor.log",
    "torch.Tensor.log_softmax",
    "torch.Tensor.logsumexp",
    "torch.Tensor.max",
    "torch.Tensor.mean",
    "torch.Tensor.min",
    "torch.Tensor.permute",
    "torch.Tensor.prod",
    "torch.Tensor.reciprocal",
    "torch.Tensor.relu",
    "torch.Tensor.repeat",
    "torch.Tensor.reshape",
    "torch.Tensor.round",
    "torch.Tensor.rsqrt",
    "torch.Tensor.sigmoid",
    "torch.Tensor.sign",
    "torch.Tensor.sin",
    "torch.Tensor.softmax",
    "torch.Tensor.split",
    "torch.Tensor.sqrt",
    "torch.Tensor.square",
    "torch.Tensor.squeeze",
    "torch.Tensor.std",
    "torch.Tensor.sum",
    "torch.Tensor.tanh",
    "torch.Tensor.transpose",
    "torch.Tensor.unbind",
    "torch.Tensor.unflatten",
    "torch.Tensor.unsqueeze",
    "torch.Tensor.var",
    "torch.abs",
    "torch.amax",
    "torch.amin",
    "torch.argmax",
    "torch.argmin",
    "torch.ceil",
    "torch.chunk",
    "torch.clamp",
    "torch.clamp_max",
    "torch.clamp_min",
    "torch.clip",
    "torch.cos",
    "torch.erf",
    "torch.exp",
    "torch.flatten",
    "torch.floor",
    "torch.is_tensor",
    "torch.isfinite",
    "torch.isinf",
    "torch.isnan",
    "torch.log",
    "torch.log_softmax",
    "torch.logsumexp",
    "torch.max",
    "torch.mean",
    "torch.min",
    "torch.numel",
    "torch.permute",
    "torch.prod",
    "torch.reciprocal",
    "torch.relu",
    "torch.reshape",
    "torch.round",
    "torch.rsqrt",
    "torch.sigmoid",
    "torch.sign",
    "torch.sin",
    "torch.softmax",
    "torch.split",
    "torch.sqrt",
    "torch.square",
    "torch.squeeze",
    "torch.std",
    "torch.sum",
    "torch.tanh",
    "torch.transpose",
    "torch.unbind",
    "torch.unflatten",
    "torch.unsqueeze",
    "torch.var",
]

# name -> the file that holds it
HOMES = {
    **dict.fromkeys(
        "exp log sqrt rsqrt sin cos tanh sigmoid relu erf abs sign floor ceil round clamp clip "
        "clamp_min clamp_max square reciprocal".split(),
        "minigrad.ops.unary_functions",
    ),
    **dict.fromkeys(
        "sum mean var std prod logsumexp amax amin argmax argmin max min".split(),
        "minigrad.ops.reduce",
    ),
    **dict.fromkeys(
        (
            "reshape flatten unflatten squeeze unsqueeze permute transpose repeat chunk split "
            "unbind"
        ).split(),
        "minigrad.ops.shape",
    ),
    "softmax": "minigrad.ops.activation",
    "log_softmax": "minigrad.ops.activation",
    "isnan": "minigrad.ops.logic",
    "isinf": "minigrad.ops.logic",
    "isfinite": "minigrad.ops.logic",
    "is_tensor": "minigrad.creation",
    "numel": "minigrad.creation",
}


@pytest.mark.parametrize("name", sorted(HOMES))
def test_written_out_next_to_its_functions(name):
    fn = getattr(mg, name)
    assert fn.__module__ == HOMES[name]
    assert inspect.getsource(fn).startswith(f"def {name}("), (
        "a generated function, not one written out"
    )
    doc = inspect.getdoc(fn)
    assert doc and "\n" not in doc, f"mg.{name} needs a one-line docstring, got {doc!r}"


def _parameter_names(args):
    """The names in one signature's argument text: 'input, dim: Optional[int] = None, *, out=None'
    or torch's overload form 'Tensor input, int dim, bool keepdim = False'."""
    while re.search(r"\[[^\[\]]*\]", args):
        args = re.sub(r"\[[^\[\]]*\]", "", args)  # Optional[Union[int, List[int]]] holds commas
    names = set()
    for piece in args.split(","):
        words = piece.split("=")[0].split(":")[0].split()
        if words and words[-1].lstrip("*") and words[-1] not in ("*", "/"):
            names.add(words[-1].lstrip("*"))
    return names


def _torch_parameter_names(name):
    """Every parameter name torch documents for torch.<name>, over all its overloads: from
    its Python signature if it has one, the signature lines of its docstring, and the
    overloads its argument parser lists when called with no arguments."""
    fn = getattr(torch, name, None)
    if fn is None:  # torch.repeat does not exist; Tensor.repeat(*repeats) does, on input
        doc = getattr(torch.Tensor, name).__doc__
        return {"input"} | set().union(
            *map(_parameter_names, re.findall(rf"^{name}\((.*?)\)", doc, re.M))
        )
    names = set()
    try:
        names |= set(inspect.signature(fn).parameters)
    except (TypeError, ValueError):  # a builtin without one
        pass
    for args in re.findall(
        rf"^\s*(?:\.\. function:: )?{name}\((.*?)\)\s*(?:->|$)", fn.__doc__ or "", re.M
    ):
        names |= _parameter_names(args)
    try:
        fn()
    except TypeError as e:
        for args in re.findall(r"^\s*\* \((.*)\)\s*$", str(e), re.M):
            names |= _parameter_names(args)
        names |= set(re.findall(r"[\"'](\w+)[\"']", str(e).split(":", 1)[-1]))
    return names


@pytest.mark.parametrize("name", sorted(HOMES))
def test_signature_has_torchs_parameter_names(name):
    parameters = inspect.signature(getattr(mg, name)).parameters.values()
    kinds = {p.kind for p in parameters}
    assert inspect.Parameter.VAR_KEYWORD not in kinds
    # only repeat takes its sizes as *repeats, as torch's only form of it, Tensor.repeat, does
    assert (inspect.Parameter.VAR_POSITIONAL in kinds) == (name == "repeat")
    mine = [p.name for p in parameters]
    theirs = _torch_parameter_names(name)
    assert theirs & {"input", "tensor", "obj"}, theirs  # the parsing found torch's names
    assert set(mine) <= theirs, (
        f"mg.{name}{inspect.signature(getattr(mg, name))}: torch's names are {theirs}"
    )


def test_help_shows_the_parameters():
    text = pydoc.render_doc(mg.sum, renderer=pydoc.plaintext)
    assert "sum(input, dim=None, keepdim=False, *, dtype=None)" in text
    assert "Sum of input's elements over dim" in text
    assert "(input, shape)" in pydoc.render_doc(mg.reshape, renderer=pydoc.plaintext)


X = rand(3, 4, seed=11)
P = rand(3, 4, seed=12, positive=True)
SPECIAL = np.array([[1.0, np.nan, -np.inf], [np.inf, -2.0, 0.0]])

# name, input, args, kwargs: keyword arguments use torch's names, so a wrong name fails
CASES = [
    *[
        (n, X, (), {})
        for n in "exp sin cos tanh sigmoid relu erf abs sign floor ceil square".split()
    ],
    *[(n, P, (), {}) for n in "log sqrt rsqrt reciprocal".split()],
    *[(n, SPECIAL, (), {}) for n in "isnan isinf isfinite".split()],
    ("round", X * 10, (), {"decimals": 1}),
    ("clamp", X, (-0.5, 0.5), {}),
    ("clamp", X, (), {"min": -0.5}),
    ("clip", X, (), {"min": -0.5, "max": 0.5}),
    ("clamp_min", X, (), {"min": 0.1}),
    ("clamp_max", X, (0.1,), {}),
    ("sum", X, (), {}),
    ("sum", X, (1, True), {}),
    ("sum", X, (), {"dim": (0, 1), "dtype": torch.float32}),
    ("mean", X, (), {"dim": 1, "keepdim": True}),
    ("var", X, (1,), {"correction": 0}),
    ("var", X, (1, False, True), {}),  # torch's older (input, dim, unbiased, keepdim)
    ("std", X, (), {"dim": 0, "keepdim": True}),
    ("prod", X, (1,), {}),
    ("logsumexp", X, (), {"dim": 1}),
    ("amax", X, (), {"dim": 0, "keepdim": True}),
    ("amin", X, (1,), {}),
    ("argmax", X, (), {}),
    ("argmin", X, (), {"dim": 1, "keepdim": True}),
    ("max", X, (), {}),
    ("max", X, (1,), {"keepdim": True}),
    ("min", X, (), {"dim": 0}),
    ("reshape", X, ((2, -1),), {}),
    ("reshape", X, (), {"shape": (-1,)}),
    ("flatten", rand(2, 3, 4), (), {"start_dim": 1}),
    ("unflatten", X, (), {"dim": 1, "sizes": (2, -1)}),
    ("squeeze", rand(2, 1, 3), (), {}),
    ("squeeze", rand(2, 1, 1), (), {"dim": 1}),
    ("unsqueeze", X, (), {"dim": 0}),
    ("permute", rand(2, 3, 4), (), {"dims": (1, 0, 2)}),
    ("transpose", rand(2, 3, 4), (0, 2), {}),
    ("transpose", X, (), {"dim0": 0, "dim1": 1}),
    ("repeat", X, (2, 1), {}),
    ("repeat", X, ((1, 2),), {}),
    ("chunk", X, (), {"chunks": 2, "dim": 1}),
    ("split", X, (), {"split_size_or_sections": [1, 3], "dim": 1}),
    ("split", X, (2,), {}),
    ("unbind", X, (), {"dim": 1}),
    ("softmax", X, (), {"dim": 1}),
    ("log_softmax", X, (0,), {}),
]


def _same(mine, theirs):
    if isinstance(theirs, (tuple, list)):  # split, chunk, unbind, max/min with a dim
        assert isinstance(mine, tuple) and len(mine) == len(theirs)
        for m, t in zip(mine, theirs):
            _same(m, t)
        return
    assert isinstance(mine, mg.Tensor), type(mine)
    assert_close(mine, theirs)
    expected = theirs.numpy().dtype if isinstance(theirs, torch.Tensor) else theirs.array.dtype
    assert mine.array.dtype == expected


def test_every_function_has_a_case():
    assert {case[0] for case in CASES} == set(HOMES) - {"is_tensor", "numel"}


@pytest.mark.parametrize(
    "name, array, args, kwargs", CASES, ids=lambda v: v if isinstance(v, str) else ""
)
def test_returns_what_torch_and_the_method_return(name, array, args, kwargs):
    out = getattr(mg, name)(mg.tensor(array), *args, **kwargs)
    torch_fn = getattr(torch, name, None) or getattr(torch.Tensor, name)
    _same(out, torch_fn(torch.tensor(array), *args, **kwargs))
    # the method, given the same arguments (reshape and permute take theirs as *sizes)
    bound = inspect.signature(getattr(mg, name)).bind(None, *args, **kwargs)
    args, kwargs = bound.args[1:], bound.kwargs
    _same(out, getattr(mg.tensor(array), name)(*args, **kwargs))
    # a nested list is taken as mg.tensor(list) (float32, the default dtype, as torch.tensor)
    listed = getattr(mg, name)(array.tolist(), *args, **kwargs)
    _same(listed, getattr(mg.tensor(array.tolist()), name)(*args, **kwargs))


def test_is_tensor_and_numel():
    t = mg.zeros(2, 3)
    assert mg.is_tensor(t) and not mg.is_tensor(np.zeros(1)) and not mg.is_tensor([1.0])
    assert mg.numel(t) == torch.numel(torch.zeros(2, 3)) == 6


def test_max_with_a_tensor_is_maximum():
    a, b = rand(3, seed=1), rand(3, seed=2)
    _same(mg.max(mg.tensor(a), mg.tensor(b)), torch.max(torch.tensor(a), torch.tensor(b)))
    _same(mg.min(mg.tensor(a), mg.tensor(b)), torch.min(torch.tensor(a), torch.tensor(b)))
