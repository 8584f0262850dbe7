"""The long tail of PyTorch's tensor-level API (issue #19): names that stop real programs.

inference_mode, the constants, dot/vdot/inner/outer/cross, narrow, type/type_as, the
new_* constructors, nonzero/argwhere, meshgrid/cartesian_prod, the legacy constructors
(`Tensor(2, 3)`, `FloatTensor`, ...) and the attributes device-agnostic code probes,
each held against torch (values, dtypes, shapes, errors) and, where differentiable,
against finite differences in float64.
"""

import warnings

import numpy as np
import pytest
import torch

import minigrad as mg
from tests.helpers import assert_close, check_against_torch, check_grads, rand

TORCH_API = [
    "torch.inference_mode",
    "torch.is_inference_mode_enabled",
    "torch.Tensor.is_inference",
    "torch.inf",
    "torch.nan",
    "torch.pi",
    "torch.e",
    "torch.newaxis",
    "torch.dot",
    "torch.Tensor.dot",
    "torch.vdot",
    "torch.Tensor.vdot",
    "torch.inner",
    "torch.Tensor.inner",
    "torch.outer",
    "torch.Tensor.outer",
    "torch.cross",
    "torch.Tensor.cross",
    "torch.narrow",
    "torch.Tensor.narrow",
    "torch.Tensor.type",
    "torch.Tensor.type_as",
    "torch.Tensor.new_zeros",
    "torch.Tensor.new_ones",
    "torch.Tensor.new_full",
    "torch.Tensor.new_empty",
    "torch.Tensor.new_tensor",
    "torch.nonzero",
    "torch.Tensor.nonzero",
    "torch.argwhere",
    "torch.Tensor.argwhere",
    "torch.meshgrid",
    "torch.cartesian_prod",
    "torch.Tensor",
    "torch.FloatTensor",
    "torch.DoubleTensor",
    "torch.HalfTensor",
    "torch.LongTensor",
    "torch.IntTensor",
    "torch.ShortTensor",
    "torch.CharTensor",
    "torch.ByteTensor",
    "torch.BoolTensor",
    "torch.Tensor.is_xpu",
    "torch.Tensor.is_mps",
    "torch.Tensor.is_meta",
    "torch.Tensor.is_sparse",
    "torch.Tensor.is_sparse_csr",
    "torch.Tensor.is_quantized",
    "torch.Tensor.is_nested",
    "torch.Tensor.is_mkldnn",
    "torch.Tensor.is_cuda",
    "torch.Tensor.is_cpu",
    "torch.Tensor.is_complex",
    "torch.Tensor.element_size",
    "torch.Tensor.itemsize",
    "torch.Tensor.nbytes",
    "torch.Tensor.stride",
    "torch.Tensor.storage_offset",
    "torch.Tensor.is_contiguous",
    "torch.Tensor.data_ptr",
    "torch.Tensor.dim",
    "torch.Tensor.ndimension",
    "torch.Tensor.nelement",
]


def raises_like_torch(mine, theirs, match=None):
    """Both calls raise, the same exception type; minigrad's message matches `match`."""
    with pytest.raises(Exception) as torch_error:
        theirs()
    with pytest.raises(torch_error.type, match=match):
        mine()


def same_dtype(t, tt):
    return str(t.dtype) == str(tt.dtype).removeprefix("torch.")


# ---- inference_mode ------------------------------------------------------------------------
def test_inference_mode_records_nothing_and_marks_new_tensors():
    w, tw = mg.ones(3, requires_grad=True), torch.ones(3, requires_grad=True)
    with mg.inference_mode(), torch.inference_mode():
        assert mg.is_inference_mode_enabled() == torch.is_inference_mode_enabled() is True
        assert mg.is_grad_enabled() == torch.is_grad_enabled() is False
        y, ty = w * 2, tw * 2
        made, tmade = mg.ones(2), torch.ones(2)
        assert y.requires_grad == ty.requires_grad is False
        assert y.grad_fn is None
        assert y.is_inference() == ty.is_inference() is True
        assert made.is_inference() == tmade.is_inference() is True
        assert mg.tensor([1.0]).is_inference() and torch.tensor([1.0]).is_inference()
    assert mg.is_inference_mode_enabled() == torch.is_inference_mode_enabled() is False
    assert mg.is_grad_enabled() and torch.is_grad_enabled()
    assert not mg.ones(2).is_inference() and not torch.ones(2).is_inference()
    # after the block: derived tensors are ordinary, views of inference tensors are not
    assert (made * 2).is_inference() == (tmade * 2).is_inference() is False
    assert made[0:1].is_inference() == tmade[0:1].is_inference() is True
    assert made.clone().is_inference() == tmade.clone().is_inference() is False


def test_inference_tensors_cannot_be_saved_for_backward():
    with mg.inference_mode(), torch.inference_mode():
        a, ta = mg.ones(3), torch.ones(3)
    w, tw = mg.ones(3, requires_grad=True), torch.ones(3, requires_grad=True)
    raises_like_torch(
        lambda: a * w, lambda: ta * tw, match="Inference tensors cannot be saved for backward"
    )
    # an op whose gradient needs no saved input accepts it, as in torch
    (a + w).sum().backward()
    (ta + tw).sum().backward()
    assert_close(w.grad, tw.grad)
    # a clone is an ordinary tensor
    (a.clone() * w).sum().backward()
    assert w.grad.tolist() == [2.0, 2.0, 2.0]


def test_inference_tensors_refuse_in_place_changes_and_requires_grad_outside():
    with mg.inference_mode(), torch.inference_mode():
        a, ta = mg.ones(3), torch.ones(3)
    raises_like_torch(
        lambda: a.add_(1), lambda: ta.add_(1), match="Inplace update to inference tensor outside"
    )
    raises_like_torch(
        lambda: a[0:2].fill_(0),
        lambda: ta[0:2].fill_(0),
        match="Inplace update to inference tensor",
    )
    raises_like_torch(
        lambda: a.requires_grad_(),
        lambda: ta.requires_grad_(),
        match="requires_grad=True on inference",
    )
    with mg.inference_mode(), torch.inference_mode():  # inside the mode both are allowed
        a.add_(1), ta.add_(1)
        assert a.requires_grad_().requires_grad and ta.requires_grad_().requires_grad
    # minigrad refused the writes above before making them (torch makes them, then raises)
    assert a.tolist() == [2.0, 2.0, 2.0]


def test_inference_mode_false_switches_both_off_and_restores_them():
    with mg.inference_mode(), torch.inference_mode():
        with mg.inference_mode(False), torch.inference_mode(False):
            assert mg.is_inference_mode_enabled() == torch.is_inference_mode_enabled() is False
            assert mg.is_grad_enabled() == torch.is_grad_enabled() is True
            assert mg.ones(1).is_inference() == torch.ones(1).is_inference() is False
        assert mg.is_inference_mode_enabled() and torch.is_inference_mode_enabled()
        assert not mg.is_grad_enabled() and not torch.is_grad_enabled()
    with mg.no_grad(), torch.no_grad():
        with mg.inference_mode(mode=False), torch.inference_mode(mode=False):
            assert mg.is_grad_enabled() == torch.is_grad_enabled() is True
        assert not mg.is_grad_enabled() and not torch.is_grad_enabled()


def test_inference_mode_decorates_with_and_without_parentheses():
    def probe(framework):
        return framework.is_inference_mode_enabled(), framework.is_grad_enabled()

    for framework in (mg, torch):
        state = lambda f=framework: probe(f)  # noqa: E731
        assert framework.inference_mode(state)() == (True, False)
        assert framework.inference_mode()(state)() == (True, False)
        assert framework.inference_mode(False)(state)() == (False, True)
        assert probe(framework) == (False, True)  # decorating changed nothing


def test_inference_mode_restores_the_state_after_an_exception():
    with pytest.raises(ValueError), mg.inference_mode():
        raise ValueError
    assert not mg.is_inference_mode_enabled() and mg.is_grad_enabled()


# ---- constants ----------------------------------------------------------------------------
def test_constants_are_torchs():
    assert mg.inf == torch.inf and mg.pi == torch.pi and mg.e == torch.e
    assert np.isnan(mg.nan) and np.isnan(torch.nan)
    assert mg.newaxis is None and torch.newaxis is None
    x = np.arange(3.0)
    assert_close(mg.tensor(x)[:, mg.newaxis], torch.tensor(x)[:, torch.newaxis])


# ---- vector products ----------------------------------------------------------------------------
def test_dot_and_vdot_match_torch_with_gradients():
    a, b = rand(5), rand(5, seed=1)
    for mine, theirs in ((mg.dot, torch.dot), (mg.vdot, torch.vdot)):
        check_against_torch(mine, theirs, a, b)
    check_against_torch(lambda x, y: x.dot(y), lambda x, y: x.dot(y), a, b)
    check_against_torch(lambda x, y: x.vdot(y), lambda x, y: x.vdot(y), a, b)
    check_grads(mg.dot, a, b, second=True)
    ints = mg.dot(mg.tensor([1, 2, 3]), mg.tensor([4, 5, 6]))
    tints = torch.dot(torch.tensor([1, 2, 3]), torch.tensor([4, 5, 6]))
    assert ints.item() == tints.item() and same_dtype(ints, tints) and ints.shape == ()


@pytest.mark.parametrize("op", ["dot", "vdot"])
def test_dot_errors_are_torchs(op):
    mine, theirs = getattr(mg, op), getattr(torch, op)
    raises_like_torch(
        lambda: mine(mg.ones(2, 2), mg.ones(2)),
        lambda: theirs(torch.ones(2, 2), torch.ones(2)),
        match="1D tensors expected, but got 2D and 1D tensors",
    )
    raises_like_torch(
        lambda: mine(mg.ones(3), mg.ones(4)),
        lambda: theirs(torch.ones(3), torch.ones(4)),
        match=r"inconsistent tensor size, expected tensor \[3\] and src \[4\]",
    )
    raises_like_torch(
        lambda: mine(mg.ones(3), mg.ones(3, dtype=mg.float64)),
        lambda: theirs(torch.ones(3), torch.ones(3, dtype=torch.float64)),
        match="expected both vectors to have same dtype",
    )


@pytest.mark.parametrize(
    "shapes", [((4,), (4,)), ((2, 3), (4, 3)), ((2, 1, 3), (3,)), ((), (2, 3))]
)
def test_inner_matches_torch_with_gradients(shapes):
    a, b = rand(*shapes[0]), rand(*shapes[1], seed=1)
    check_against_torch(mg.inner, torch.inner, a, b)
    check_against_torch(lambda x, y: x.inner(y), lambda x, y: x.inner(y), a, b)
    check_grads(mg.inner, a, b)


def test_inner_errors_are_torchs():
    raises_like_torch(
        lambda: mg.inner(mg.ones(2, 3), mg.ones(4)),
        lambda: torch.inner(torch.ones(2, 3), torch.ones(4)),
        match=r"the last dimension must match on both input tensors but got shapes \[2, 3\] and "
        r"\[4\]",
    )
    raises_like_torch(
        lambda: mg.inner(mg.ones(3), mg.ones(3, dtype=mg.float64)),
        lambda: torch.inner(torch.ones(3), torch.ones(3, dtype=torch.float64)),
    )


def test_outer_matches_torch_with_gradients_and_promotes():
    a, b = rand(3), rand(4, seed=1)
    check_against_torch(mg.outer, torch.outer, a, b)
    check_against_torch(lambda x, y: x.outer(y), lambda x, y: x.outer(y), a, b)
    check_grads(mg.outer, a, b)
    mixed = mg.outer(mg.ones(2), mg.ones(2, dtype=mg.float64))
    assert same_dtype(mixed, torch.outer(torch.ones(2), torch.ones(2, dtype=torch.float64)))
    raises_like_torch(
        lambda: mg.outer(mg.ones(3, 1), mg.ones(3)),
        lambda: torch.outer(torch.ones(3, 1), torch.ones(3)),
    )


@pytest.mark.parametrize(
    "shapes_dim", [((3,), (3,), 0), ((4, 3), (4, 3), 1), ((4, 3), (1, 3), -1), ((3, 1), (3, 4), 0)]
)
def test_cross_matches_torch_with_gradients(shapes_dim):
    sa, sb, dim = shapes_dim
    a, b = rand(*sa), rand(*sb, seed=1)
    check_against_torch(
        lambda x, y: mg.cross(x, y, dim=dim), lambda x, y: torch.cross(x, y, dim=dim), a, b
    )
    check_against_torch(lambda x, y: x.cross(y, dim), lambda x, y: x.cross(y, dim), a, b)
    check_grads(lambda x, y: mg.cross(x, y, dim=dim), a, b, second=True)


def test_cross_without_dim_takes_the_first_dim_of_size_3_and_warns():
    a, b = rand(3, 4), rand(3, 4, seed=1)
    with pytest.warns(
        UserWarning, match="Using torch.cross without specifying the dim arg is deprecated"
    ):
        mine = mg.cross(mg.tensor(a), mg.tensor(b))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = torch.cross(torch.tensor(a), torch.tensor(b))
    assert_close(mine, theirs)


def test_cross_errors_are_torchs():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        raises_like_torch(
            lambda: mg.cross(mg.ones(4, 2), mg.ones(4, 2)),
            lambda: torch.cross(torch.ones(4, 2), torch.ones(4, 2)),
            match="no dimension of size 3",
        )
    raises_like_torch(
        lambda: mg.cross(mg.ones(4, 3), mg.ones(4, 3), dim=0),
        lambda: torch.cross(torch.ones(4, 3), torch.ones(4, 3), dim=0),
        match="inputs dimension 0 must have length 3. Got 4 and 4",
    )
    raises_like_torch(
        lambda: mg.cross(mg.ones(4, 3), mg.ones(3), dim=-1),
        lambda: torch.cross(torch.ones(4, 3), torch.ones(3), dim=-1),
        match="inputs must have the same number of dimensions",
    )
    raises_like_torch(
        lambda: mg.cross(mg.ones(3, 3), mg.ones(3, 3, dtype=mg.float64), dim=0),
        lambda: torch.cross(torch.ones(3, 3), torch.ones(3, 3, dtype=torch.float64), dim=0),
    )
    raises_like_torch(
        lambda: mg.cross(mg.ones(3, 4), mg.ones(3, 4), dim=5),
        lambda: torch.cross(torch.ones(3, 4), torch.ones(3, 4), dim=5),
    )


# ---- narrow --------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "dim, start, length", [(1, 1, 3), (1, -2, 2), (0, 0, 1), (1, 5, 0), (-1, 0, 5)]
)
def test_narrow_matches_torch_with_gradients(dim, start, length):
    x = rand(2, 5)
    check_against_torch(
        lambda t: t.narrow(dim, start, length), lambda t: t.narrow(dim, start, length), x
    )
    check_against_torch(
        lambda t: mg.narrow(t, dim, start, length), lambda t: torch.narrow(t, dim, start, length), x
    )
    # (no empty gradgradcheck)
    check_grads(lambda t: t.narrow(dim, start, length), x, second=length > 0)


def test_narrow_is_a_view_that_shares_storage():
    x, tx = mg.arange(10.0).reshape(2, 5), torch.arange(10.0).reshape(2, 5)
    view, tview = x.narrow(1, 1, 3), tx.narrow(1, 1, 3)
    assert view.storage_offset() == tview.storage_offset() == 1
    assert view.stride() == tview.stride() == (5, 1)
    assert view.data_ptr() == x.data_ptr() + x.element_size()
    view.fill_(-1.0), tview.fill_(-1.0)
    assert_close(x, tx)  # the write through the view reached the base, in both
    start = mg.tensor(2)
    assert_close(x.narrow(1, start, 2), tx.narrow(1, torch.tensor(2), 2))


def test_an_in_place_write_into_narrow_is_recorded_in_the_graph():
    a = rand(2, 5)
    x, tx = mg.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    y, ty = x * 1.0, tx * 1.0
    y.narrow(1, 1, 3).mul_(3.0), ty.narrow(1, 1, 3).mul_(3.0)
    g = rand(2, 5, seed=2)
    (y * mg.tensor(g)).sum().backward()
    (ty * torch.tensor(g)).sum().backward()
    assert_close(y, ty)
    assert_close(x.grad, tx.grad)


def test_narrow_errors_are_torchs():
    x, tx = mg.arange(10.0).reshape(2, 5), torch.arange(10.0).reshape(2, 5)
    cases = [
        ((1, 6, 0), r"start out of range \(expected to be in range of \[-5, 5\], but got 6\)"),
        ((1, -6, 1), r"start out of range"),
        ((1, 2, 4), r"start \(2\) \+ length \(4\) exceeds dimension size \(5\)"),
        ((1, 2, -1), "length must be non-negative"),
        ((2, 0, 1), "out of range"),
        ((1, 1.0, 2), None),
    ]
    for args, match in cases:
        raises_like_torch(lambda a=args: x.narrow(*a), lambda a=args: tx.narrow(*a), match=match)
    raises_like_torch(
        lambda: mg.tensor(1.0).narrow(0, 0, 1), lambda: torch.tensor(1.0).narrow(0, 0, 1), "0-dim"
    )
    raises_like_torch(
        lambda: x.narrow(1, mg.tensor(1.0), 2),
        lambda: tx.narrow(1, torch.tensor(1.0), 2),
        "integral",
    )


# ---- type, type_as, new_* ------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "bool", "uint8"])
def test_type_as_converts_to_the_others_dtype_like_torch(dtype):
    x, tx = mg.tensor([1.5, -2.0, 0.0]), torch.tensor([1.5, -2.0, 0.0])
    other, tother = (
        mg.zeros(1, dtype=getattr(mg, dtype)),
        torch.zeros(1, dtype=getattr(torch, dtype)),
    )
    mine, theirs = x.type_as(other), tx.type_as(tother)
    assert same_dtype(mine, theirs) and mine.tolist() == theirs.tolist()
    assert mine.type() == theirs.type()


def test_type_as_is_differentiable_and_refuses_a_non_tensor():
    x = mg.tensor([1.5, 2.0], requires_grad=True)
    x.type_as(mg.zeros(1, dtype=mg.float64)).sum().backward()
    assert x.grad.dtype == mg.float32 and x.grad.tolist() == [1.0, 1.0]
    raises_like_torch(
        lambda: x.type_as(np.zeros(1)),
        lambda: torch.zeros(2).type_as(np.zeros(1)),
        "must be Tensor",
    )


def test_type_accepts_the_typed_classes():
    x = mg.tensor([1.7, -2.7])
    for cls, tcls in ((mg.LongTensor, torch.LongTensor), (mg.DoubleTensor, torch.DoubleTensor)):
        mine, theirs = x.type(cls), torch.tensor([1.7, -2.7]).type(tcls)
        assert mine.type() == theirs.type() and mine.tolist() == theirs.tolist()


@pytest.mark.parametrize("make", ["new_zeros", "new_ones", "new_empty"])
@pytest.mark.parametrize("base_dtype", ["float64", "int64"])
def test_new_constructors_take_selfs_dtype_unless_given(make, base_dtype):
    x, tx = (
        mg.ones(2, dtype=getattr(mg, base_dtype)),
        torch.ones(2, dtype=getattr(torch, base_dtype)),
    )
    for args, kwargs, tkwargs in [
        ((2, 3), {}, {}),
        (((2, 3),), {}, {}),
        (([],), {}, {}),
        ((4,), {"dtype": mg.float32}, {"dtype": torch.float32}),
    ]:
        mine, theirs = getattr(x, make)(*args, **kwargs), getattr(tx, make)(*args, **tkwargs)
        assert mine.shape == tuple(theirs.shape) and same_dtype(mine, theirs)
        if make != "new_empty":
            assert mine.tolist() == theirs.tolist()
    raises_like_torch(
        lambda: getattr(x, make)(-1), lambda: getattr(tx, make)(-1), "negative dimension -1"
    )
    raises_like_torch(lambda: getattr(x, make)(), lambda: getattr(tx, make)(), "size")


def test_new_full_and_requires_grad_like_torch():
    x, tx = mg.ones(2, dtype=mg.float64), torch.ones(2, dtype=torch.float64)
    assert_close(x.new_full((2, 3), 7), tx.new_full((2, 3), 7))
    mine, theirs = x.new_full((2,), 7.5, dtype=mg.int64), tx.new_full((2,), 7.5, dtype=torch.int64)
    assert mine.tolist() == theirs.tolist() and same_dtype(mine, theirs)
    raises_like_torch(lambda: x.new_full(2, 7), lambda: tx.new_full(2, 7), "must be tuple of ints")
    ones, tones = x.new_ones(2, requires_grad=True), tx.new_ones(2, requires_grad=True)
    assert ones.requires_grad and tones.requires_grad and ones.is_leaf
    raises_like_torch(
        lambda: mg.ones(2, dtype=mg.int64).new_ones(2, requires_grad=True),
        lambda: torch.ones(2, dtype=torch.int64).new_ones(2, requires_grad=True),
        "floating point",
    )


def test_new_tensor_copies_in_selfs_dtype_like_torch():
    x, tx = mg.ones(2, dtype=mg.float64), torch.ones(2, dtype=torch.float64)
    for data in ([1, 2], np.array([1, 2], dtype=np.int32), 3):
        mine, theirs = x.new_tensor(data), tx.new_tensor(data)
        assert same_dtype(mine, theirs) and mine.tolist() == theirs.tolist()
    long, tlong = mg.ones(2, dtype=mg.int64), torch.ones(2, dtype=torch.int64)
    assert long.new_tensor([1.5]).tolist() == tlong.new_tensor([1.5]).tolist() == [1]
    assert x.new_tensor([1, 2], dtype=mg.int64).dtype == mg.int64
    assert x.new_tensor([1.0], requires_grad=True).requires_grad
    source = np.array([1.0, 2.0])
    with pytest.warns(UserWarning, match="To copy construct from a tensor"):
        copy = x.new_tensor(mg.tensor(source))
    source[0] = 9.0  # a copy: the source array's change does not show
    assert copy.tolist() == [1.0, 2.0]


# ---- nonzero, argwhere ---------------------------------------------------------------------------
NONZERO_INPUTS = [
    [[0, 1, 0], [2, 0, 3]],
    [1.5, 0.0, float("nan")],
    [True, False, True],
    5,
    0,
    np.zeros((2, 0)),
]


@pytest.mark.parametrize("data", NONZERO_INPUTS, ids=range(len(NONZERO_INPUTS)))
def test_nonzero_and_argwhere_match_torch(data):
    x, tx = mg.tensor(data), torch.tensor(data)
    for mine, theirs in (
        (mg.nonzero(x), torch.nonzero(tx)),
        (x.nonzero(), tx.nonzero()),
        (mg.argwhere(x), torch.argwhere(tx)),
        (x.argwhere(), tx.argwhere()),
    ):
        assert mine.shape == tuple(theirs.shape) and mine.dtype == mg.int64
        assert mine.tolist() == theirs.tolist()
    mine, theirs = x.nonzero(as_tuple=True), tx.nonzero(as_tuple=True)
    assert len(mine) == len(theirs)
    assert [m.tolist() for m in mine] == [t.tolist() for t in theirs]
    assert [m.shape for m in mine] == [tuple(t.shape) for t in theirs]


def test_nonzero_as_tuple_indexes_the_nonzeros():
    a = rand(3, 4)
    x, tx = mg.tensor(a), torch.tensor(a)
    assert_close(x[(x > 0).nonzero(as_tuple=True)], tx[(tx > 0).nonzero(as_tuple=True)])
    with pytest.raises(TypeError):
        x.nonzero(True)  # as_tuple is keyword-only, as in torch
    with pytest.raises(TypeError):
        tx.nonzero(True)


# ---- meshgrid, cartesian_prod --------------------------------------------------------------------
@pytest.mark.parametrize("indexing", ["ij", "xy"])
@pytest.mark.parametrize("lengths", [(3,), (3, 2), (2, 3, 4), (3, 0)])
def test_meshgrid_matches_torch_with_gradients(indexing, lengths):
    arrays = [rand(n, seed=i) for i, n in enumerate(lengths)]

    def grid_sum(framework):
        # each grid weighted differently, so a gradient sent to the wrong input shows
        return lambda *ts: sum(
            (g * (i + 1.0)).sum() for i, g in enumerate(framework.meshgrid(*ts, indexing=indexing))
        )

    mine = mg.meshgrid(*[mg.tensor(a) for a in arrays], indexing=indexing)
    theirs = torch.meshgrid(*[torch.tensor(a) for a in arrays], indexing=indexing)
    assert len(mine) == len(theirs)
    for m, t in zip(mine, theirs):
        assert_close(m, t)
    listed = mg.meshgrid([mg.tensor(a) for a in arrays], indexing=indexing)
    assert all(np.array_equal(a.array, b.array) for a, b in zip(listed, mine))
    if all(lengths):
        check_against_torch(grid_sum(mg), grid_sum(torch), *arrays)
        check_grads(grid_sum(mg), *arrays)


def test_meshgrid_without_indexing_is_ij_with_torchs_warning():
    a, b = np.arange(3.0), np.arange(2.0)
    with pytest.warns(UserWarning, match="it will be required to pass the indexing argument"):
        mine = mg.meshgrid(mg.tensor(a), mg.tensor(b))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = torch.meshgrid(torch.tensor(a), torch.tensor(b))
    for m, t in zip(mine, theirs):
        assert_close(m, t)


def test_meshgrid_accepts_0d_and_refuses_what_torch_refuses():
    mine = mg.meshgrid(mg.arange(3.0), mg.tensor(2.0), indexing="ij")
    theirs = torch.meshgrid(torch.arange(3.0), torch.tensor(2.0), indexing="ij")
    for m, t in zip(mine, theirs):
        assert_close(m, t)
    a, ta = mg.arange(3.0), torch.arange(3.0)
    raises_like_torch(
        lambda: mg.meshgrid(indexing="xy"), lambda: torch.meshgrid(indexing="xy"), "non-empty"
    )
    raises_like_torch(
        lambda: mg.meshgrid(a, a, indexing="foo"),
        lambda: torch.meshgrid(ta, ta, indexing="foo"),
        "ij",
    )
    raises_like_torch(
        lambda: mg.meshgrid(a, mg.ones(2, 2), indexing="ij"),
        lambda: torch.meshgrid(ta, torch.ones(2, 2), indexing="ij"),
        "0D or 1D",
    )
    raises_like_torch(
        lambda: mg.meshgrid(a, mg.arange(2), indexing="ij"),
        lambda: torch.meshgrid(ta, torch.arange(2), indexing="ij"),
        "same dtype",
    )


def test_cartesian_prod_matches_torch():
    a, b, c = rand(3), rand(2, seed=1), rand(2, seed=2)
    check_against_torch(mg.cartesian_prod, torch.cartesian_prod, a, b, c)
    check_against_torch(mg.cartesian_prod, torch.cartesian_prod, a)
    assert_close(
        mg.cartesian_prod(mg.arange(2), mg.arange(3)),
        torch.cartesian_prod(torch.arange(2), torch.arange(3)),
    )
    raises_like_torch(
        lambda: mg.cartesian_prod(mg.ones(2), mg.ones(2, 2)),
        lambda: torch.cartesian_prod(torch.ones(2), torch.ones(2, 2)),
        "Expect a 1D vector",
    )


# ---- the legacy constructors ---------------------------------------------------------------------
LEGACY_ARGS = [
    (),
    (2, 3),
    (0,),
    (3,),
    ([1, 2],),
    ((1, 2),),
    ([[1.5, 2]],),
    (np.array([1, 2]),),
    ([True, False],),
]


@pytest.mark.parametrize("args", LEGACY_ARGS, ids=range(len(LEGACY_ARGS)))
def test_tensor_legacy_constructor_matches_torch(args):
    mine, theirs = mg.Tensor(*args), torch.Tensor(*args)
    assert (
        type(mine) is mg.Tensor and mine.shape == tuple(theirs.shape) and same_dtype(mine, theirs)
    )
    # data, not sizes (torch leaves those unset)
    if args and not all(isinstance(a, int) for a in args):
        assert mine.tolist() == theirs.tolist()
    assert not mine.requires_grad and mine.is_leaf


def test_tensor_legacy_constructor_follows_the_default_dtype():
    previous = torch.get_default_dtype()
    try:
        mg.set_default_dtype(mg.float64), torch.set_default_dtype(torch.float64)
        assert same_dtype(mg.Tensor([1]), torch.Tensor([1])) and same_dtype(
            mg.Tensor(2), torch.Tensor(2)
        )
        assert same_dtype(mg.FloatTensor([1]), torch.FloatTensor([1]))  # the typed ones do not
    finally:
        mg.set_default_dtype(mg.float32), torch.set_default_dtype(previous)


def test_tensor_of_a_tensor_shares_its_storage_and_dtype():
    t, tt = mg.tensor([1, 2]), torch.tensor([1, 2])
    u, tu = mg.Tensor(t), torch.Tensor(tt)
    assert same_dtype(u, tu)
    u[0] = 5
    tu[0] = 5
    assert t.tolist() == tt.tolist() == [5, 2]


def test_tensor_legacy_constructor_errors_are_torchs():
    for args, match in [
        ((2.5,), "data must be a sequence"),
        ((True,), "data must be a sequence"),
        (("abc",), None),
    ]:
        raises_like_torch(lambda a=args: mg.Tensor(*a), lambda a=args: torch.Tensor(*a), match)
    raises_like_torch(
        lambda: mg.Tensor(2, -1), lambda: torch.Tensor(2, -1), r"negative dimension -1: \[2, -1\]"
    )


def test_tensor_keeps_working_as_before_for_minigrad_code():
    # minigrad's own keywords (torch's constructor refuses them), and Parameter, which builds on it
    t = mg.Tensor([1.0], dtype=mg.float64, requires_grad=True)
    assert t.dtype == mg.float64 and t.requires_grad and t.is_leaf
    p = mg.nn.Parameter(mg.ones(2, 3))
    assert isinstance(p, mg.Tensor) and p.requires_grad and p.shape == (2, 3)
    assert mg.nn.Parameter().shape == (0,)


TYPED = ["Float", "Double", "Half", "Long", "Int", "Short", "Char", "Byte", "Bool"]


@pytest.mark.parametrize("name", [n + "Tensor" for n in TYPED])
def test_typed_constructors_match_torch(name):
    mine, theirs = getattr(mg, name), getattr(torch, name)
    for args in [(3, 4), ([1, 0, 2],), (), (np.array([1.7, -0.0]),)]:
        if name == "ByteTensor" and args and isinstance(args[0], np.ndarray):
            continue  # -0.0 to uint8: not a case to compare
        m, t = mine(*args), theirs(*args)
        assert type(m) is mg.Tensor and m.shape == tuple(t.shape) and same_dtype(m, t)
        if args and not isinstance(args[0], int):
            assert m.tolist() == t.tolist()
    assert mine.dtype == getattr(mg, str(theirs.dtype).removeprefix("torch."))


def test_typed_constructors_truncate_and_refuse_tensors_of_other_dtypes():
    assert mg.LongTensor([1.7, -2.7]).tolist() == torch.LongTensor([1.7, -2.7]).tolist() == [1, -2]
    raises_like_torch(
        lambda: mg.FloatTensor(mg.tensor([1, 2])), lambda: torch.FloatTensor(torch.tensor([1, 2]))
    )
    shared = mg.tensor([1.0, 2.0])
    mg.FloatTensor(shared)[0] = 7.0
    assert shared.tolist() == [7.0, 2.0]


@pytest.mark.parametrize("name", [n + "Tensor" for n in TYPED])
def test_isinstance_with_a_typed_class_looks_at_the_dtype_as_torch(name):
    for dtype in ["float32", "float64", "int64", "uint8", "bool"]:
        t, tt = mg.zeros(1, dtype=getattr(mg, dtype)), torch.zeros(1, dtype=getattr(torch, dtype))
        assert isinstance(t, getattr(mg, name)) == isinstance(tt, getattr(torch, name))
    assert not isinstance(3, getattr(mg, name)) and not isinstance(3, getattr(torch, name))
    assert isinstance(mg.nn.Parameter(mg.zeros(1)), mg.FloatTensor)
    assert isinstance(torch.nn.Parameter(torch.zeros(1)), torch.FloatTensor)
    assert not issubclass(getattr(mg, name), mg.Tensor) and not issubclass(
        getattr(torch, name), torch.Tensor
    )


# ---- the attributes device-agnostic programs probe -----------------------------------------------
FLAGS = [
    "is_xpu",
    "is_mps",
    "is_meta",
    "is_sparse",
    "is_sparse_csr",
    "is_quantized",
    "is_nested",
    "is_mkldnn",
]


@pytest.mark.parametrize("flag", FLAGS + ["is_cuda", "is_cpu"])
def test_device_and_layout_flags_match_a_cpu_tensor_of_torch(flag):
    assert getattr(mg.ones(2), flag) is getattr(torch.ones(2), flag)


def test_is_complex_matches_torch():
    assert mg.ones(2).is_complex() is torch.ones(2).is_complex() is False
    assert (
        mg.from_numpy(np.ones(2, dtype=np.complex64)).is_complex()
        is torch.ones(2, dtype=torch.complex64).is_complex()
    )


def layouts():
    """(description, minigrad tensor, torch tensor) pairs laid out in memory alike."""
    a = np.arange(24.0, dtype=np.float32).reshape(2, 3, 4)
    x, t = mg.tensor(a), torch.tensor(a)
    return [
        ("contiguous", x, t),
        ("transpose", x.transpose(0, 2), t.transpose(0, 2)),
        ("slice with a step", x[:, 1:, ::2], t[:, 1:, ::2]),
        ("index", x[1], t[1]),
        ("expand", x[:, :1, :].expand(2, 5, 4), t[:, :1, :].expand(2, 5, 4)),
        ("narrow", x.narrow(2, 1, 2), t.narrow(2, 1, 2)),
        ("unsqueeze", x.unsqueeze(1), t.unsqueeze(1)),
        ("permute", x.permute(1, 0, 2), t.permute(1, 0, 2)),
        ("int64", mg.arange(6).reshape(2, 3), torch.arange(6).reshape(2, 3)),
        (
            "float64 column",
            mg.zeros(3, 1, dtype=mg.float64),
            torch.zeros(3, 1, dtype=torch.float64),
        ),
        ("0-d", mg.tensor(2.0), torch.tensor(2.0)),
    ]


@pytest.mark.parametrize("case", layouts(), ids=lambda c: c[0])
def test_memory_layout_is_reported_as_torch(case):
    _, x, t = case
    assert x.stride() == t.stride()
    for d in range(-x.ndim, x.ndim):
        assert x.stride(d) == t.stride(d)
    assert x.storage_offset() == t.storage_offset()
    assert x.is_contiguous() == t.is_contiguous()
    assert x.element_size() == t.element_size() and x.itemsize == t.itemsize
    assert x.nbytes == t.nbytes
    assert x.dim() == t.dim() and x.ndimension() == t.ndimension() and x.nelement() == t.nelement()


def test_data_ptr_tells_which_tensors_share_memory_as_torch():
    x, t = mg.arange(6.0).reshape(2, 3), torch.arange(6.0).reshape(2, 3)
    assert (x.view(6).data_ptr() == x.data_ptr()) and (t.view(6).data_ptr() == t.data_ptr())
    assert x[1].data_ptr() - x.data_ptr() == t[1].data_ptr() - t.data_ptr() == 3 * 4
    assert x.clone().data_ptr() != x.data_ptr() and t.clone().data_ptr() != t.data_ptr()
    assert x.detach().data_ptr() == x.data_ptr() and t.detach().data_ptr() == t.data_ptr()


def test_is_contiguous_takes_minigrads_memory_formats():
    # channels_last is a layout minigrad tensors can have (tests/test_runtime_tail.py)
    assert mg.ones(2).is_contiguous(memory_format=mg.contiguous_format)
    assert not mg.ones(1, 2, 3, 4).is_contiguous(memory_format=mg.channels_last)
    assert not torch.ones(1, 2, 3, 4).is_contiguous(memory_format=torch.channels_last)
    with pytest.raises(TypeError, match="memory_format must be a minigrad.memory_format"):
        mg.ones(2).is_contiguous(memory_format="channels_last")
