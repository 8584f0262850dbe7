"""Shape ops (reshape ... flip, cat, stack) and indexing, against PyTorch and gradcheck.

Their backward moves the gradient back the way the forward moved the elements; indexing
with integer arrays must *add* the gradients of elements picked more than once.
"""

import math
import re

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import minigrad as mg

from .helpers import assert_close, check_against_torch, check_grads, leaf, rand, tleaf

# The torch names whose behaviour this file checks against torch (read by tools/api_coverage.py).
TORCH_API = [
    "torch.Tensor.T",
    "torch.Tensor.__getitem__",
    "torch.Tensor.__iadd__",
    "torch.Tensor.__setitem__",
    "torch.Tensor.add_",
    "torch.Tensor.chunk",
    "torch.Tensor.contiguous",
    "torch.Tensor.expand",
    "torch.Tensor.expand_as",
    "torch.Tensor.fill_",
    "torch.Tensor.flatten",
    "torch.Tensor.flip",
    "torch.Tensor.mT",
    "torch.Tensor.mul_",
    "torch.Tensor.permute",
    "torch.Tensor.repeat",
    "torch.Tensor.reshape",
    "torch.Tensor.reshape_as",
    "torch.Tensor.split",
    "torch.Tensor.squeeze",
    "torch.Tensor.t",
    "torch.Tensor.transpose",
    "torch.Tensor.tril",
    "torch.Tensor.triu",
    "torch.Tensor.unbind",
    "torch.Tensor.unflatten",
    "torch.Tensor.unsqueeze",
    "torch.Tensor.view",
    "torch.Tensor.view_as",
    "torch.Tensor.zero_",
    "torch.cat",
    "torch.concat",
    "torch.flatten",
    "torch.flip",
    "torch.permute",
    "torch.reshape",
    "torch.stack",
    "torch.transpose",
]

A234 = rand(2, 3, 4, seed=1)

# name: (minigrad fn, torch fn (None: the same), input shape)
SHAPE_OPS = {
    "reshape": (lambda x: x.reshape(4, 6), None, (2, 3, 4)),
    "reshape_tuple": (lambda x: x.reshape((6, 4)), None, (2, 3, 4)),
    "reshape_-1": (lambda x: x.reshape(-1, 2), None, (2, 3, 4)),
    "reshape_-1_only": (lambda x: x.reshape(-1), None, (2, 3, 4)),
    "reshape_to_0d": (lambda x: x.reshape(()), None, (1, 1)),
    "reshape_from_0d": (lambda x: x.reshape(1, 1, 1), None, ()),
    "reshape_same": (lambda x: x.reshape(2, 3), None, (2, 3)),
    "mg.reshape": (
        lambda x: mg.reshape(x, (3, -1)),
        lambda x: torch.reshape(x, (3, -1)),
        (2, 3, 4),
    ),
    "view": (lambda x: x.view(3, 8), None, (2, 3, 4)),
    "view_-1": (lambda x: x.view(-1), None, (2, 3, 4)),
    "view_as": (
        lambda x: x.view_as(mg.zeros(6, 4)),
        lambda x: x.view_as(torch.zeros(6, 4)),
        (2, 3, 4),
    ),
    "reshape_as": (
        lambda x: x.reshape_as(mg.zeros(4, 6)),
        lambda x: x.reshape_as(torch.zeros(4, 6)),
        (2, 3, 4),
    ),
    "flatten": (lambda x: x.flatten(), None, (2, 3, 4)),
    "flatten_1": (lambda x: x.flatten(1), None, (2, 3, 4)),
    "flatten_0_1": (lambda x: x.flatten(0, 1), None, (2, 3, 4)),
    "flatten_neg": (lambda x: x.flatten(-2, -1), None, (2, 3, 4)),
    "flatten_same": (lambda x: x.flatten(1, 1), None, (2, 3, 4)),
    "flatten_0d": (lambda x: x.flatten(), None, ()),
    "mg.flatten": (lambda x: mg.flatten(x, 1), lambda x: torch.flatten(x, 1), (2, 3, 4)),
    "unflatten": (lambda x: x.unflatten(1, (3, 2)), None, (2, 6)),
    "unflatten_-1": (lambda x: x.unflatten(-1, (2, -1)), None, (2, 6)),
    "unflatten_0": (lambda x: x.unflatten(0, (1, 2)), None, (2, 6)),
    "squeeze": (lambda x: x.squeeze(), None, (1, 3, 1, 2)),
    "squeeze_dim": (lambda x: x.squeeze(2), None, (1, 3, 1, 2)),
    "squeeze_neg": (lambda x: x.squeeze(-2), None, (1, 3, 1, 2)),
    "squeeze_tuple": (lambda x: x.squeeze((0, 2)), None, (1, 3, 1, 2)),
    "squeeze_not_1": (lambda x: x.squeeze(1), None, (1, 3, 1, 2)),  # no-op, as torch
    "squeeze_0d": (lambda x: x.squeeze(), None, ()),
    "unsqueeze_0": (lambda x: x.unsqueeze(0), None, (2, 3)),
    "unsqueeze_end": (lambda x: x.unsqueeze(2), None, (2, 3)),
    "unsqueeze_neg": (lambda x: x.unsqueeze(-1), None, (2, 3)),
    "unsqueeze_neg3": (lambda x: x.unsqueeze(-3), None, (2, 3)),
    "unsqueeze_0d": (lambda x: x.unsqueeze(0), None, ()),
    "permute": (lambda x: x.permute(2, 0, 1), None, (2, 3, 4)),
    "permute_tuple": (lambda x: x.permute((1, 2, 0)), None, (2, 3, 4)),
    "permute_neg": (lambda x: x.permute(-1, 0, -2), None, (2, 3, 4)),
    "mg.permute": (
        lambda x: mg.permute(x, (2, 1, 0)),
        lambda x: torch.permute(x, (2, 1, 0)),
        (2, 3, 4),
    ),
    "transpose": (lambda x: x.transpose(0, 2), None, (2, 3, 4)),
    "transpose_neg": (lambda x: x.transpose(-1, -2), None, (2, 3, 4)),
    "transpose_same": (lambda x: x.transpose(1, 1), None, (2, 3, 4)),
    "mg.transpose": (
        lambda x: mg.transpose(x, 0, 1),
        lambda x: torch.transpose(x, 0, 1),
        (2, 3, 4),
    ),
    "T_2d": (lambda x: x.T, None, (2, 3)),
    "T_1d": (lambda x: x.T, lambda x: x.permute(0), (3,)),
    "T_3d": (lambda x: x.T, lambda x: x.permute(2, 1, 0), (2, 3, 4)),
    "t": (lambda x: x.t(), None, (2, 3)),
    "mT": (lambda x: x.mT, None, (2, 3, 4)),
    "mT_2d": (lambda x: x.mT, None, (2, 3)),
    "expand": (lambda x: x.expand(2, 3, 4), None, (3, 1)),
    "expand_tuple": (lambda x: x.expand((2, 3, 4)), None, (3, 1)),
    "expand_-1": (lambda x: x.expand(-1, 5), None, (3, 1)),
    "expand_lead": (lambda x: x.expand(2, -1, -1), None, (3, 1)),
    "expand_0d": (lambda x: x.expand(2, 3), None, ()),
    "expand_noop": (lambda x: x.expand(3, 1), None, (3, 1)),
    "expand_as": (
        lambda x: x.expand_as(mg.zeros(2, 3, 4)),
        lambda x: x.expand_as(torch.zeros(2, 3, 4)),
        (3, 1),
    ),
    "repeat": (lambda x: x.repeat(2, 3), None, (2, 3)),
    "repeat_more_dims": (lambda x: x.repeat(2, 1, 2), None, (2, 3)),
    "repeat_tuple": (lambda x: x.repeat((1, 2)), None, (2, 3)),
    "repeat_ones": (lambda x: x.repeat(1, 1), None, (2, 3)),
    "repeat_0d": (lambda x: x.repeat(3), None, ()),
    "contiguous": (lambda x: x.transpose(0, 1).contiguous(), None, (2, 3)),
    "flip": (lambda x: x.flip(0), None, (2, 3, 4)),
    "flip_list": (lambda x: x.flip([0, 2]), None, (2, 3, 4)),
    "flip_neg": (lambda x: x.flip(-1), None, (2, 3, 4)),
    "flip_varargs": (lambda x: x.flip(1, 2), lambda x: x.flip((1, 2)), (2, 3, 4)),
    "mg.flip": (lambda x: mg.flip(x, (0,)), lambda x: torch.flip(x, (0,)), (2, 3, 4)),
    "tril": (lambda x: x.tril(), None, (3, 4)),
    "triu": (lambda x: x.triu(1), None, (3, 4)),
}


@pytest.mark.parametrize("name", list(SHAPE_OPS))
def test_shape_op_against_torch(name):
    fn, tfn, shape = SHAPE_OPS[name]
    check_against_torch(fn, tfn or fn, rand(*shape, seed=2))


@pytest.mark.parametrize("name", [n for n in SHAPE_OPS if not n.endswith(("_same", "_noop"))])
def test_shape_op_gradcheck(name):
    fn, _, shape = SHAPE_OPS[name]
    check_grads(fn, rand(*shape, seed=3))


@pytest.mark.parametrize(
    "name", ["reshape", "permute", "expand_lead", "repeat_more_dims", "flip_list", "unflatten"]
)
def test_shape_op_gradgradcheck(name):
    fn, _, shape = SHAPE_OPS[name]
    # x * x makes the second derivative non-zero
    check_grads(lambda x: fn(x * x), rand(*shape, seed=4), second=True)


def test_view_and_reshape_share_values_with_the_input():
    x = mg.tensor(np.arange(6.0))
    y = x.view(2, 3)
    assert y.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]


# ---- view never copies -----------------------------------------------------------------------
def test_view_of_a_transposed_matrix_raises_like_torch_and_names_the_shapes():
    """torch refuses x.T.view(6): the columns of x.T are not contiguous, so no view of
    them is one row of 6; copying quietly would break `view`'s promise to share."""
    with pytest.raises(
        RuntimeError, match="view size is not compatible with input tensor's size and stride"
    ):
        torch.arange(6.0).reshape(2, 3).T.view(6)
    x = mg.arange(6.0).reshape(2, 3)
    words = [
        "view: shape (6,)",
        "input of shape (3, 2)",
        "strides (1, 3)",
        "Use .reshape(...) instead",
    ]
    with pytest.raises(
        RuntimeError, match="(?s)" + "".join(f"(?=.*{re.escape(w)})" for w in words)
    ):
        x.T.view(6)
    assert x.T.reshape(6).tolist() == [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]  # reshape may copy


def test_view_of_a_transposed_tensor_keeps_sharing_where_torch_allows_it():
    """(2, 3, 4) with its first two dims swapped: the last dim is still contiguous, so
    it can be split or kept, and a write through the view reaches the base."""
    x = mg.zeros(2, 3, 4)
    y = x.transpose(0, 1).view(3, 2, 2, 2)
    y[1, 0, 1, 1] = 7.0
    assert x[0, 1, 3].item() == 7.0
    with pytest.raises(RuntimeError, match="view"):
        x.transpose(0, 1).view(6, 4)  # merging the swapped dims needs a copy


@st.composite
def strided_tensor_and_shape(draw):
    """A tensor of up to 4 dims (sizes 0 to 4) made non-contiguous by a permutation, a step
    or an expand, as a function of the library, and a shape of as many elements."""
    shape = draw(st.lists(st.integers(0, 4), min_size=1, max_size=4))
    order = draw(st.permutations(range(len(shape))))
    step = draw(st.sampled_from([1, 2]))
    expand_dim = draw(st.sampled_from([None, *range(len(shape))]))

    def make(lib):
        t = lib.arange(float(math.prod(shape))).reshape(shape).permute(*order)
        if step != 1:
            t = t[..., ::step]
        if expand_dim is not None and t.shape[expand_dim] == 1:
            t = t.expand(*[3 if i == expand_dim else -1 for i in range(t.ndim)])
        return t

    # a random ordered factorization of the element count into 1 to 4 sizes
    sizes, rest = [1] * draw(st.integers(1, 4)), make(torch).numel()
    for p in (2, 3):  # the only primes of sizes up to 4 (and of an expand to 3)
        while rest and rest % p == 0:
            rest //= p
            sizes[draw(st.integers(0, len(sizes) - 1))] *= p
    sizes[draw(st.integers(0, len(sizes) - 1))] *= rest  # 1, or 0 for an empty tensor
    return make, tuple(sizes)


@settings(max_examples=300, deadline=None)
@given(strided_tensor_and_shape())
def test_view_succeeds_exactly_where_torch_s_does_and_shares_memory(case):
    make, shape = case
    t = make(torch)
    try:
        expected = t.view(shape)
    except RuntimeError as err:
        assert "view size is not compatible" in str(err)
        expected = None
    x = make(mg)
    if expected is None:
        with pytest.raises(RuntimeError, match=r"view: .*Use .reshape\(...\) instead"):
            x.view(shape)
        return
    y = x.view(shape)
    assert y.shape == tuple(expected.shape)
    np.testing.assert_array_equal(y.numpy(), expected.numpy())
    assert y.numel() == 0 or np.shares_memory(y.array, x.array), "view copied"


def test_flip_is_a_copy_as_in_torch():
    """torch.flip copies (its docs say so): a write to the flipped tensor leaves the input
    as it was, and the flipped tensor is contiguous, so it can be viewed as one row."""
    for lib in (torch, mg):
        x = lib.zeros(2, 3)
        y = x.flip(0)
        y[0, 0] = 5.0
        assert x.sum().item() == 0.0, f"{lib.__name__}: the write reached the input"
        assert y.view(6).tolist() == [5.0, 0.0, 0.0, 0.0, 0.0, 0.0]


def test_contiguous_makes_c_order_and_keeps_contiguous_tensors():
    x = mg.tensor(rand(2, 3))
    assert x.contiguous() is x
    y = x.T.contiguous()
    assert y.array.flags.c_contiguous and y.shape == (3, 2)
    np.testing.assert_array_equal(y.array, x.array.T)


def test_T_of_0d_and_1d():
    assert mg.tensor(2.0).T.shape == () and mg.tensor([1.0, 2.0]).T.shape == (2,)


def test_expand_does_not_copy_and_sums_the_gradient():
    x = mg.tensor([[1.0], [2.0]], requires_grad=True)
    y = x.expand(2, 4)
    assert y.shape == (2, 4)
    y.sum().backward()
    assert x.grad.tolist() == [[4.0], [4.0]]


# ---- errors that name the shapes -----------------------------------------------------------
@pytest.mark.parametrize(
    "fn, pattern",
    [
        (lambda x: x.reshape(4, 2), r"\(4, 2\).*6|6.*\(4, 2\)"),
        (lambda x: x.view(-1, 4), r"\(-1, 4\)"),
        (lambda x: x.reshape(-1, -1), r"-1"),
        (lambda x: x.expand(3, 3), r"\(2, 3\).*\(3, 3\)|\(3, 3\).*\(2, 3\)"),
        (lambda x: x.expand(3), r"\(2, 3\)"),
        (lambda x: x.unflatten(1, (2, 2)), r"\(2, 2\)"),
        (lambda x: x.permute(0), r"\(2, 3\)"),
        (lambda x: x.split([1, 2], 0), r"\[1, 2\]"),
        (lambda x: mg.cat([x, mg.zeros(3, 2)]), r"\(2, 3\).*\(3, 2\)"),
        (lambda x: mg.stack([x, mg.zeros(3, 2)]), r"\(2, 3\).*\(3, 2\)"),
        (lambda x: x.repeat(2), r"repeat"),
        (lambda x: x.mT.mT.reshape(7), r"\(7,\)"),
    ],
    ids=[
        "reshape",
        "view",
        "two_minus_ones",
        "expand",
        "expand_fewer",
        "unflatten",
        "permute",
        "split",
        "cat",
        "stack",
        "repeat",
        "reshape_7",
    ],
)
def test_bad_shapes_raise_naming_the_shapes(fn, pattern):
    x = mg.zeros(2, 3)
    with pytest.raises((RuntimeError, ValueError)) as info:
        fn(x)
    assert re.search(pattern, str(info.value)), str(info.value)


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: x.squeeze(3),
        lambda x: x.unsqueeze(4),
        lambda x: x.transpose(0, 3),
        lambda x: x.flatten(3),
        lambda x: x.flip(-4),
        lambda x: mg.cat([x, x], dim=3),
    ],
)
def test_dims_out_of_range_raise_index_error(fn):
    with pytest.raises(IndexError, match="out of range"):
        fn(mg.zeros(2, 3, 4))


def test_permute_rejects_repeated_dims_and_mT_needs_2_dims():
    with pytest.raises(RuntimeError, match="permute"):
        mg.zeros(2, 3).permute(0, 0)
    with pytest.raises(RuntimeError, match="mT"):
        _ = mg.zeros(3).mT
    with pytest.raises(RuntimeError, match="t"):
        mg.zeros(2, 3, 4).t()


# ---- chunk / split / unbind ---------------------------------------------------------------
@pytest.mark.parametrize(
    "call",
    [
        ("chunk", (2,), {}),
        ("chunk", (3,), {"dim": 1}),
        ("chunk", (4,), {"dim": -1}),  # 5 along dim -1: pieces of 2, 2, 1
        ("chunk", (7,), {"dim": 0}),  # more chunks than elements
        ("split", (2,), {}),
        ("split", (2,), {"dim": -1}),
        ("split", (5,), {"dim": 1}),
        ("split", ([1, 3],), {"dim": 0}),
        ("split", ([2, 0, 3],), {"dim": -1}),
        ("unbind", (), {}),
        ("unbind", (), {"dim": 1}),
    ],
    ids=str,
)
def test_chunk_split_unbind_against_torch(call):
    name, args, kw = call
    a = rand(4, 3, 5, seed=5)
    x, tx = leaf(a), tleaf(a)
    pieces, tpieces = getattr(x, name)(*args, **kw), getattr(tx, name)(*args, **kw)
    assert isinstance(pieces, tuple) and len(pieces) == len(tpieces)
    for p, tp in zip(pieces, tpieces):
        assert_close(p, tp)
    # a loss that weighs the pieces differently: each must send its gradient to its place
    loss = sum((p * float(i + 1)).sum() for i, p in enumerate(pieces))
    tloss = sum((p * float(i + 1)).sum() for i, p in enumerate(tpieces))
    loss.backward()
    tloss.backward()
    assert_close(x.grad, tx.grad)


def test_chunk_split_gradcheck():
    a = rand(5, 2, seed=6)
    check_grads(lambda x: x.chunk(2), a)
    check_grads(lambda x: x.split([2, 3]), a)
    check_grads(lambda x: mg.split(x, 1, dim=1), a)


# ---- cat / stack --------------------------------------------------------------------------
@pytest.mark.parametrize(
    "shapes, dim",
    [
        (((2, 3), (4, 3)), 0),
        (((2, 3), (2, 1), (2, 2)), 1),
        (((2, 3), (2, 1)), -1),
        (((1, 2, 3), (1, 2, 3)), -2),
        (((3,), (1,)), 0),
        (((2, 0), (2, 3)), 1),
    ],
    ids=str,
)
def test_cat_against_torch(shapes, dim):
    arrays = [rand(*s, seed=i) for i, s in enumerate(shapes)]
    check_against_torch(
        lambda *xs: mg.cat(list(xs), dim=dim), lambda *xs: torch.cat(list(xs), dim=dim), *arrays
    )
    check_against_torch(lambda *xs: mg.cat(xs, dim), lambda *xs: torch.cat(xs, dim), *arrays)


@pytest.mark.parametrize("dim", [0, 1, 2, -1, -2, -3])
def test_stack_against_torch(dim):
    arrays = [rand(2, 3, seed=i) for i in range(3)]
    check_against_torch(
        lambda *xs: mg.stack(xs, dim=dim), lambda *xs: torch.stack(xs, dim=dim), *arrays
    )


def test_stack_of_0d_and_cat_stack_gradcheck():
    check_against_torch(
        lambda a, b: mg.stack([a, b]),
        lambda a, b: torch.stack([a, b]),
        np.array(1.0),
        np.array(2.0),
    )
    check_grads(lambda a, b: mg.cat([a, b], dim=1), rand(2, 1, seed=7), rand(2, 3, seed=8))
    check_grads(lambda a, b: mg.stack([a, b], dim=-1), rand(2, 3, seed=9), rand(2, 3, seed=10))
    check_grads(
        lambda a, b: mg.cat([a * a, b], dim=0), rand(2, seed=11), rand(3, seed=12), second=True
    )


def test_cat_mixed_requires_grad_and_dtypes():
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    b = mg.tensor([3.0])  # no grad
    out = mg.cat([a, b])
    (out * mg.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert a.grad.tolist() == [1.0, 2.0]
    mixed, tmixed = (
        mg.cat([mg.tensor([1, 2]), mg.tensor([0.5])]),
        torch.cat([torch.tensor([1, 2]), torch.tensor([0.5])]),
    )
    assert mixed.dtype == np.float32 and mixed.tolist() == tmixed.tolist()
    assert mg.concat is mg.cat


def test_cat_and_stack_errors():
    with pytest.raises(RuntimeError, match="cat"):
        mg.cat([])
    with pytest.raises(RuntimeError, match="zero-dim"):
        mg.cat([mg.tensor(1.0), mg.tensor(2.0)])
    with pytest.raises(RuntimeError, match="stack"):
        mg.stack([])


# ---- indexing --------------------------------------------------------------------------
MASK = np.array(
    [[True, False, True, False], [False, False, True, True], [True, True, False, False]]
)

INDICES = {
    "int": 1,
    "neg_int": -1,
    "int_int": (0, 2),
    "int_int_int": (1, -1, 0),
    "slice": slice(1, None),
    "slice_step": (slice(None), slice(None, None, 2)),
    "slice_step_offset": (slice(None), slice(1, 4, 2), slice(0, 3, 2)),
    "slice_neg": (slice(-2, None), slice(None, -1)),
    "slice_empty": slice(2, 1),
    "none": None,
    "none_mid": (slice(None), None, 0),
    "ellipsis": (Ellipsis, 1),
    "ellipsis_mid": (0, Ellipsis, slice(1, 3)),
    "ellipsis_none": (Ellipsis, None),
    "int_list": [0, 1, 0],
    "int_list_dupes": [1, 1, 1],
    "int_list_neg": [-1, 0],
    "int_array_2d": np.array([[0, 1], [1, 1]]),
    "two_int_arrays": ([0, 1, 1], [2, 0, 2]),
    "int_arrays_broadcast": (np.array([[0], [1]]), np.array([0, 2, 2])),
    "array_and_slice": ([1, 0, 1], slice(None), slice(1, 3)),
    "slice_and_array": (slice(None), [2, 0, 2]),
    "int_and_array": (1, [0, 0, 2]),
    "bool_mask_0": np.array([True, False]),
    "bool_mask_2d": MASK,
    "bool_mask_and_int": (MASK, 1),
    "bool_list": [False, True],
    "all_false": np.array([False, False]),
}


def _torch_index(index):
    """The same index with arrays as torch tensors (lists and tuples kept)."""
    if isinstance(index, tuple):
        return tuple(_torch_index(i) for i in index)
    if isinstance(index, np.ndarray):
        return torch.tensor(index)
    return index


def _mg_index(index, as_tensor):
    if isinstance(index, tuple):
        return tuple(_mg_index(i, as_tensor) for i in index)
    if isinstance(index, np.ndarray) and as_tensor:
        return mg.tensor(index)
    return index


@pytest.mark.parametrize("as_tensor", [False, True], ids=["numpy", "tensor"])
@pytest.mark.parametrize("name", list(INDICES))
def test_indexing_against_torch(name, as_tensor):
    index = INDICES[name]
    a = (
        rand(2, 3, 4, seed=13)
        if "mask_2d" not in name and "mask_and" not in name
        else rand(3, 4, 2, seed=13)
    )
    check_against_torch(
        lambda x: x[_mg_index(index, as_tensor)], lambda x: x[_torch_index(index)], a
    )


@pytest.mark.parametrize(
    "name",
    [
        "int",
        "slice_step_offset",
        "none_mid",
        "ellipsis_mid",
        "int_list_dupes",
        "two_int_arrays",
        "bool_mask_0",
    ],
)
def test_indexing_gradcheck(name):
    check_grads(lambda x: x[INDICES[name]], rand(2, 3, 4, seed=14))


def test_indexing_gradgradcheck():
    check_grads(lambda x: (x * x)[[0, 0, 1], 1:], rand(2, 3, seed=15), second=True)


def test_integer_array_index_accumulates_duplicate_gradients():
    x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x[[0, 0, 1]].sum().backward()
    assert x.grad.tolist() == [2.0, 1.0, 0.0]
    y = mg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y[mg.tensor([1, 1, 1]), mg.tensor([0, 0, 1])].sum().backward()
    assert y.grad.tolist() == [[0.0, 0.0], [2.0, 1.0]]


def test_row_lookup_gradient_adds_every_repeat_and_negative_rows():
    # x[ids] with an integer array (an embedding's lookup) sums the gradients of repeated
    # rows by sorting them (ops/index.py, _add_rows); -1 and n - 1 are the same row
    ids = np.array([[3, 0, 3, -1], [4, 3, 0, 0]])
    weights = rand(5, 3, seed=16)
    grad_out = rand(2, 4, 3, seed=17)
    x, t = leaf(weights), tleaf(weights)
    x[ids].backward(mg.tensor(grad_out))
    t[torch.from_numpy(ids)].backward(torch.from_numpy(grad_out))
    assert_close(x.grad, t.grad, rtol=1e-12)


def test_bool_mask_from_comparison():
    a = np.array([[-1.0, 2.0], [3.0, -4.0]])
    check_against_torch(lambda x: x[x > 0], lambda x: x[x > 0], a)
    x = leaf(a)
    x[x > 0].sum().backward()
    assert x.grad.tolist() == [[0.0, 1.0], [1.0, 0.0]]


def test_indexing_0d_and_size_1():
    check_against_torch(lambda x: x[...], lambda x: x[...], np.array(2.0))
    check_against_torch(lambda x: x[None], lambda x: x[None], np.array(2.0))
    check_against_torch(lambda x: x[0, :, 0], lambda x: x[0, :, 0], rand(1, 3, 1, seed=16))


def test_basic_index_is_a_view_and_advanced_index_a_copy_as_torch():
    x, tx = mg.tensor([1.0, 2.0, 3.0]), torch.tensor([1.0, 2.0, 3.0])
    y, ty = x[:2], tx[:2]
    x += 10.0
    tx += 10.0
    assert y.tolist() == ty.tolist() == [11.0, 12.0]  # a slice sees writes to its base
    picked, tpicked = x[[0, 1]], tx[[0, 1]]
    x.zero_()
    tx.zero_()
    assert picked.tolist() == tpicked.tolist() == [11.0, 12.0]  # an integer-array index copied


@pytest.mark.parametrize(
    "write",
    [
        lambda a: a[0].fill_(7),  # a row of a matrix
        lambda a: a[1][2].fill_(5),  # chained ints: a 0-d view
        lambda a: a[:, 1].zero_(),  # a strided column
        lambda a: a[None, 1, ...].mul_(3),
        lambda a: a[-1].__setitem__(0, 4.0),  # x[i][j] = v
        lambda a: a[0, 1:3].add_(2.0),
    ],
)
def test_writes_through_a_view_reach_the_base_as_in_torch(write):
    values = np.arange(12.0).reshape(3, 4)
    a, ta = mg.tensor(values), torch.tensor(values)
    write(a)
    write(ta)
    np.testing.assert_array_equal(a.numpy(), ta.numpy())


def test_in_place_write_through_a_view_is_seen_by_backward():
    c = mg.ones(3)
    m = mg.ones(2, requires_grad=True)
    loss = (m * c[0:2]).sum()  # Mul saves the view c[0:2]
    c.mul_(2)  # changes the saved view's storage
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        loss.backward()


def test_index_with_an_int_tensor_scalar():
    x = mg.tensor([10.0, 20.0, 30.0])
    assert x[mg.tensor(2)].item() == 30.0


@pytest.mark.parametrize("index", [5, (0, 7), [0, 9], (slice(None), -4)], ids=str)
def test_index_out_of_range_raises_naming_the_shape(index):
    with pytest.raises(IndexError, match=r"\(2, 3\)"):
        mg.zeros(2, 3)[index]
    with pytest.raises(IndexError):
        torch.zeros(2, 3)[index]  # torch raises too


@pytest.mark.parametrize(
    "index", [1.5, mg.tensor([0.0, 1.0]), [0.0, 1.0]], ids=["float", "float_tensor", "float_list"]
)
def test_float_index_raises(index):
    with pytest.raises(IndexError):
        mg.zeros(3)[index]
