"""The machinery of the table-driven API tests (tests/test_api_surface*.py): a row,
`case("torch.Tensor.narrow", lambda lib, x: x.narrow(1, 0, 2), (3, 4))`, runs its function
on torch and on minigrad with the same inputs and compares what comes back (see
tests/test_api_surface.py for the rules). Kept apart from the test files so that several
of them, one per family of names, share it.
"""

import zlib
from dataclasses import dataclass, field

import numpy as np
import pytest
import torch

import minigrad as mg
from minigrad.autograd import gradcheck


# ---- the inputs ------------------------------------------------------------------------
@dataclass(frozen=True)
class Input:
    """How to make one input tensor: a shape and a kind of values, or the values themselves."""

    shape: tuple = ()
    kind: str = "float"  # float, positive, unit, int, bool
    high: int = 5
    array: np.ndarray = None

    def values(self, rng):
        if self.array is not None:
            return np.array(self.array)
        if self.kind == "int":
            return rng.integers(0, self.high, size=self.shape, dtype=np.int64)
        if self.kind == "bool":
            return rng.random(self.shape) > 0.5
        x = rng.standard_normal(self.shape)
        if self.kind == "positive":
            return np.abs(x) + 0.5
        if self.kind == "unit":
            return np.tanh(x) * 0.9
        return x


def pos(*shape):
    return Input(shape, "positive")


def unit(*shape):
    return Input(shape, "unit")


def ints(*shape, high=5):
    return Input(shape, "int", high)


def bools(*shape):
    return Input(shape, "bool")


def _as_input(spec):
    if isinstance(spec, Input):
        return spec
    if isinstance(spec, tuple):
        return Input(spec)
    return Input(array=np.asarray(spec))


@dataclass
class Case:
    name: str
    fn: object
    inputs: list
    raises: type = None
    values: bool = True
    rtol: float = 1e-6
    atol: float = 1e-8
    seed: int = field(init=False)

    def __post_init__(self):
        self.seed = zlib.crc32(self.name.encode())

    def arrays(self):
        rng = np.random.default_rng(self.seed)
        return [_as_input(spec).values(rng) for spec in self.inputs]


def case(name, fn, *inputs, raises=None, values=True, rtol=1e-6, atol=1e-8):
    """One row: `name` is proven by running `fn(lib, *inputs)` on torch and on minigrad."""
    return Case(name, fn, list(inputs), raises, values, rtol, atol)


def _make(lib, array):
    float_ = np.issubdtype(array.dtype, np.floating)
    return lib.tensor(array.astype(np.float64) if float_ else array, requires_grad=float_)


# ---- comparing the results ---------------------------------------------------------------
def _dtype_name(dtype):
    return str(dtype).replace("torch.", "")


def assert_same(mine, theirs, rtol, atol, values=True, where="result"):
    """minigrad's result `mine` is torch's `theirs`: types, shapes, dtypes and values."""
    if isinstance(theirs, torch.Tensor):
        assert isinstance(mine, mg.Tensor), (
            f"{where}: minigrad gave {type(mine).__name__}, torch a Tensor"
        )
        assert tuple(mine.shape) == tuple(theirs.shape), (
            f"{where}: shape {tuple(mine.shape)} != {tuple(theirs.shape)}"
        )
        assert _dtype_name(mine.dtype) == _dtype_name(theirs.dtype), (
            f"{where}: dtype {mine.dtype} != {theirs.dtype}"
        )
        if values:
            a, b = np.asarray(mine.detach().numpy()), theirs.detach().numpy()
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, equal_nan=True, err_msg=where)
    elif isinstance(theirs, (tuple, list)):  # torch.Size, named tuples (return_types) included
        assert isinstance(mine, (tuple, list)), (
            f"{where}: minigrad gave {type(mine).__name__}, torch a sequence"
        )
        assert len(mine) == len(theirs), f"{where}: {len(mine)} items != {len(theirs)}"
        for i, (m, t) in enumerate(zip(mine, theirs)):
            assert_same(m, t, rtol, atol, values, f"{where}[{i}]")
    elif isinstance(theirs, torch.dtype):
        assert _dtype_name(mine) == _dtype_name(theirs), f"{where}: {mine} != {theirs}"
    elif isinstance(theirs, torch.device):
        assert str(mine) == str(theirs), f"{where}: {mine} != {theirs}"
    elif isinstance(theirs, bool) or theirs is None or isinstance(theirs, str):
        assert mine == theirs, f"{where}: {mine!r} != {theirs!r}"
    elif isinstance(theirs, (int, float)):
        assert isinstance(mine, (int, float, np.number)), (
            f"{where}: minigrad gave {type(mine).__name__}"
        )
        if values:
            np.testing.assert_allclose(
                mine, theirs, rtol=rtol, atol=atol, equal_nan=True, err_msg=where
            )
    else:
        raise TypeError(
            f"{where}: no comparison for torch's {type(theirs).__name__}; add one to assert_same"
        )


def _float_tensors(result):
    """The floating-point tensors of a result (a tensor or a nested tuple of them)."""
    if isinstance(result, (tuple, list)):
        return [t for r in result for t in _float_tensors(r)]
    is_tensor = isinstance(result, (torch.Tensor, mg.Tensor))
    return [result] if is_tensor and _dtype_name(result.dtype).startswith("float") else []


def check_gradients(row, arrays, mine_out, theirs_out, mine_in, theirs_in):
    """Input gradients as torch's for a random output gradient, then a float64 gradcheck."""
    theirs_f = [t for t in _float_tensors(theirs_out) if t.requires_grad]
    if not theirs_f:
        return
    mine_f = [
        m for m, t in zip(_float_tensors(mine_out), _float_tensors(theirs_out)) if t.requires_grad
    ]
    assert all(m.requires_grad for m in mine_f), (
        f"{row.name}: torch's result requires grad, minigrad's does not"
    )
    rng = np.random.default_rng(row.seed + 1)
    seeds = [rng.standard_normal(tuple(t.shape)) for t in theirs_f]
    torch.autograd.backward(theirs_f, [torch.tensor(g) for g in seeds])
    mg.autograd.backward(mine_f, [mg.tensor(g) for g in seeds])
    for i, (m, t) in enumerate(zip(mine_in, theirs_in)):
        if not t.requires_grad:
            continue
        if t.grad is None:
            assert m.grad is None or not np.any(m.grad.numpy()), (
                f"{row.name}: input {i} has a gradient, torch's none"
            )
        else:
            assert m.grad is not None, f"{row.name}: input {i} has no gradient, torch's has one"
            assert_same(m.grad, t.grad, row.rtol, row.atol, where=f"{row.name}: grad of input {i}")

    def float_outputs(*xs):
        return tuple(_float_tensors(row.fn(mg, *xs)))

    leaves = [_make(mg, a) for a in arrays]
    assert gradcheck(float_outputs, leaves)


def run(row):
    arrays = row.arrays()
    theirs_in, mine_in = [_make(torch, a) for a in arrays], [_make(mg, a) for a in arrays]
    if row.raises is not None:
        with pytest.raises(row.raises):
            row.fn(torch, *theirs_in)
        with pytest.raises(row.raises):
            row.fn(mg, *mine_in)
        return
    theirs_out, mine_out = row.fn(torch, *theirs_in), row.fn(mg, *mine_in)
    assert_same(mine_out, theirs_out, row.rtol, row.atol, row.values, where=row.name)
    if row.values:
        check_gradients(row, arrays, mine_out, theirs_out, mine_in, theirs_in)


def ids(cases):
    """pytest ids for rows: the name, numbered when a name has several rows."""
    seen = {}
    for c in cases:
        seen[c.name] = seen.get(c.name, 0) + 1
        yield c.name if seen[c.name] == 1 else f"{c.name}#{seen[c.name]}"
