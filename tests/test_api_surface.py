"""The API surface, table-driven: each row proves one torch name against torch.

A row is written once for both libraries:

    case("torch.Tensor.narrow", lambda lib, x: x.narrow(1, 0, 2), (3, 4))

- the name is the torch name the row proves. tools/api_coverage.py reads the first
  argument of every `case(...)` call with `ast` (no import), and counts the name as
  tested; the coverage page (docs/api/coverage.md) shows it as present;
- the function takes `lib` (the module `torch` or `minigrad`) and the input tensors,
  made by that library from the same values;
- each input is a shape (seeded random float64 values), `pos(*shape)` (positive values),
  `unit(*shape)` (in (-1, 1)), `ints(*shape, high=5)` (int64 in [0, high)),
  `bools(*shape)`, or an array (used as it is). Float inputs require grad.

The test runs the function on both libraries and compares the results: the type, the
shape, the dtype and the values of every tensor, through tuples, lists and named tuples;
dtypes, devices, sizes and Python numbers by value. When torch's result requires grad
(torch says the op is differentiable), minigrad's must too: the input gradients for a
random output gradient are compared with torch's, and minigrad's version passes a float64
gradient check against finite differences. Options of `case`: `raises=` (both libraries
raise this exception type), `values=False` (random results: compare everything but the
values), `rtol=`/`atol=`.

To prove a name, add a row here, or in the file of its family (tests/test_api_surface_*.py,
which import the same machinery from tests/surface.py), run the file, then regenerate the
coverage page: `python tools/api_coverage.py --write`. A test file elsewhere that
compares names with torch declares them instead in a module-level list,
`TORCH_API = ["torch.nn.functional.relu", ...]`.
"""

import importlib

import pytest
import torch

import minigrad as mg

from .surface import Case, assert_same, bools, case, ids, ints, pos, run, unit  # noqa: F401  (row helpers)


# ---- helpers for rows that need more than an expression -----------------------------------------
def imported(lib, path):
    """`import torch.<path>` (or minigrad's): the module at an import path."""
    return importlib.import_module(f"{lib.__name__}.{path}")


def seeded_through_the_random_module(lib):
    """torch.random.manual_seed seeds the global generator that torch.rand draws from."""
    imported(lib, "random").manual_seed(3)
    first = lib.rand(4).tolist()
    lib.manual_seed(3)
    return first == lib.rand(4).tolist()


def subclassed_scheduler(lib):
    """A scheduler written as users write one, by subclassing LRScheduler: it halves the
    learning rate every epoch. Returns the rates of three epochs."""

    class Halving(lib.optim.lr_scheduler.LRScheduler):
        def get_lr(self):
            return [base * 0.5**self.last_epoch for base in self.base_lrs]

    optimizer = lib.optim.SGD([lib.nn.Parameter(lib.zeros(2))], lr=1.0)
    schedule = Halving(optimizer)
    rates = []
    for _ in range(3):
        optimizer.step()
        schedule.step()
        rates.append(schedule.get_last_lr()[0])
    return rates


def backward_then_grad(lib, x):
    """autograd.backward on a list of outputs fills the leaves' .grad."""
    lib.autograd.backward([(x * x).sum(), x.sin().sum()])
    return x.grad


# ---- the table ------------------------------------------------------------------------------
CASES = [
    # -- import paths: the module at torch's path is the one whose names are counted --
    case("torch.nn", lambda lib: imported(lib, "nn").Linear is lib.nn.Linear),
    case(
        "torch.nn.functional",
        lambda lib: imported(lib, "nn.functional").relu is lib.nn.functional.relu,
    ),
    case("torch.nn.init", lambda lib: imported(lib, "nn.init").normal_ is lib.nn.init.normal_),
    case(
        "torch.nn.utils",
        lambda lib: imported(lib, "nn.utils").clip_grad_norm_ is lib.nn.utils.clip_grad_norm_,
    ),
    case(
        "torch.nn.parameter",
        lambda lib: imported(lib, "nn.parameter").Parameter is lib.nn.Parameter,
    ),
    case("torch.optim", lambda lib: imported(lib, "optim").SGD is lib.optim.SGD),
    case(
        "torch.optim.lr_scheduler",
        lambda lib: imported(lib, "optim.lr_scheduler").StepLR is lib.optim.lr_scheduler.StepLR,
    ),
    case("torch.utils", lambda lib: imported(lib, "utils").data is lib.utils.data),
    case("torch.linalg", lambda lib: imported(lib, "linalg").norm is lib.linalg.norm),
    case("torch.autograd", lambda lib: imported(lib, "autograd").grad is lib.autograd.grad),
    # (by behaviour, not identity: importing torch._dynamo rewraps torch.manual_seed)
    case("torch.random", seeded_through_the_random_module),
    case("torch.serialization", lambda lib: imported(lib, "serialization").save is lib.save),
    # -- arithmetic aliases --
    case("torch.concatenate", lambda lib, a, b: lib.concatenate([a, b], 1), (2, 3), (2, 2)),
    case("torch.divide", lambda lib, a, b: lib.divide(a, b), (2, 3), pos(2, 3)),
    case("torch.multiply", lambda lib, a, b: lib.multiply(a, b), (2, 3), (3,)),
    case("torch.subtract", lambda lib, a, b: lib.subtract(a, b, alpha=2), (2, 3), (2, 1)),
    case("torch.true_divide", lambda lib, a, b: lib.true_divide(a, b), (2, 3), pos(3)),
    case("torch.Tensor.divide", lambda lib, a, b: a.divide(b), (2, 3), pos(2, 3)),
    case("torch.Tensor.multiply", lambda lib, a, b: a.multiply(b), (2, 3), (2, 3)),
    case("torch.Tensor.subtract", lambda lib, a, b: a.subtract(b), (2, 3), (3,)),
    case("torch.Tensor.neg", lambda lib, x: x.neg(), (2, 3)),
    # -- torch-level forms whose gradients no other file compares --
    case("torch.clamp_min", lambda lib, x: lib.clamp_min(x, 0.1), (3, 4)),
    case("torch.clamp_max", lambda lib, x: lib.clamp_max(x, -0.1), (3, 4)),
    case("torch.Tensor.clamp_min", lambda lib, x, m: x.clamp_min(m), (3, 4), (4,)),
    case("torch.Tensor.clamp_max", lambda lib, x: x.clamp_max(0.2), (3, 4)),
    case("torch.square", lambda lib, x: lib.square(x), (3, 4)),
    # -- logic and bits --
    case("torch.Tensor.__and__", lambda lib, a, b: a & b, bools(3, 4), bools(3, 4)),
    case("torch.Tensor.__or__", lambda lib, a, b: a | b, bools(3, 4), bools(4)),
    case("torch.Tensor.__xor__", lambda lib, a, b: a ^ b, bools(3, 4), bools(3, 4)),
    case("torch.Tensor.__invert__", lambda lib, a: ~a, bools(3, 4)),
    case("torch.Tensor.logical_not", lambda lib, a: a.logical_not(), bools(3, 4)),
    # -- Python protocols --
    case("torch.Tensor.__float__", lambda lib, x: float(x), ()),
    case("torch.Tensor.__int__", lambda lib, x: int(x), ints(high=9)),
    case("torch.Tensor.__index__", lambda lib, i: [10, 20, 30, 40][i], ints(high=4)),
    case("torch.Tensor.__hash__", lambda lib, x: {x: "found"}[x], (2,)),
    # -- attributes and conversions --
    case("torch.Tensor.is_cpu", lambda lib, x: x.is_cpu, (2,)),
    case("torch.Tensor.is_cuda", lambda lib, x: x.is_cuda, (2,)),
    case("torch.Tensor.int", lambda lib, x: (x.detach() * 4).int(), (2, 3)),
    case("torch.Tensor.half", lambda lib, x: x.detach().half(), (2, 3), rtol=1e-3, atol=1e-3),
    case("torch.Tensor.detach_", lambda lib, x: (x * 2).detach_(), (2, 3)),
    case("torch.Tensor.broadcast_to", lambda lib, x: x.broadcast_to((2, 3, 4)), (3, 1)),
    # -- indexing and linear algebra --
    case("torch.index_fill", lambda lib, x: lib.index_fill(x, 1, lib.tensor([0, 2]), -1.0), (3, 4)),
    case("torch.Tensor.bmm", lambda lib, a, b: a.bmm(b), (2, 3, 4), (2, 4, 5)),
    case(
        "torch.nn.functional.embedding",
        lambda lib, w: lib.nn.functional.embedding(lib.tensor([[0, 2], [1, 0]]), w),
        (3, 4),
    ),
    # -- errors: both libraries raise the same exception type --
    case("torch.Tensor.item", lambda lib, x: x.item(), (2,), raises=RuntimeError),
    # -- random functions: the draws differ, the shape and dtype must not, and some results do not
    # depend on them --
    case("torch.rand", lambda lib: lib.rand(2, 3), values=False),
    case("torch.randperm", lambda lib: lib.randperm(7).sort().values),
    case("torch.Tensor.bernoulli", lambda lib: lib.tensor([0.0, 1.0, 1.0, 0.0]).bernoulli()),
    # -- autograd and schedulers --
    case("torch.autograd.backward", backward_then_grad, (2, 3)),
    case("torch.optim.lr_scheduler.LRScheduler", subclassed_scheduler),
]


# torch's, on float(x)
@pytest.mark.filterwarnings("ignore:Converting a tensor with requires_grad=True to a scalar")
@pytest.mark.parametrize("row", CASES, ids=list(ids(CASES)))
def test_behaves_as_torch(row):
    run(row)


def test_every_row_names_a_torch_name():
    def resolve(path):
        parts = path.split(".")
        for cut in range(len(parts), 0, -1):
            try:
                obj = importlib.import_module(".".join(parts[:cut]))
            except ImportError:
                continue
            for attr in parts[cut:]:
                obj = getattr(obj, attr)
            return obj

    for row in CASES:
        assert row.name.startswith("torch."), row.name
        resolve(row.name)  # an AttributeError names a typo


def test_the_comparison_can_fail():
    t = torch.tensor([1.0, 2.0])
    with pytest.raises(AssertionError):
        assert_same(mg.tensor([1.0, 2.5]), t, 1e-6, 1e-8)
    with pytest.raises(AssertionError):
        assert_same(mg.tensor([1.0, 2.0], dtype=mg.float64), t, 1e-6, 1e-8)
    with pytest.raises(AssertionError):
        assert_same(mg.tensor([[1.0, 2.0]]), t, 1e-6, 1e-8)
    with pytest.raises(AssertionError):
        assert_same((mg.tensor([1.0, 2.0]),), (t, t), 1e-6, 1e-8)
    # the right values with no gradient behind them (Case, not case: this row proves nothing)
    cut = Case(
        "torch.Tensor.exp",
        lambda lib, x: x.exp() if lib is torch else x.exp().detach().requires_grad_(),
        [(3,)],
    )
    with pytest.raises(AssertionError, match="no gradient"):
        run(cut)
    # only one library raising is a difference too
    with pytest.raises(pytest.fail.Exception):
        run(
            Case(
                "torch.Tensor.item",
                lambda lib, x: x.item() if lib is torch else 0.0,
                [(2,)],
                raises=RuntimeError,
            )
        )
    # values=False still compares shapes and dtypes
    with pytest.raises(AssertionError, match="shape"):
        run(
            Case(
                "torch.rand",
                lambda lib: lib.rand(2, 3) if lib is torch else lib.rand(3, 2),
                [],
                values=False,
            )
        )
