"""Shapes, joining, indexing and views on CUDA tensors (the simulated GPU): forward and
backward equal the CPU's, results stay on the device, and nothing is copied to the host
inside the op (except where the result's size is read from the data: `host_value=True`).

Families: shape, joining, broadcast, index, index_write, scatter_reduce, strided,
view_scatter, out. See tests/device_compare.py for what each case checks.
"""

import numpy as np
import pytest

import minigrad as mg
from tests.device_compare import Case, check_case, rand

X = rand(3, 4)
Y = rand(3, 4, seed=1)
CUBE = rand(2, 3, 4, seed=2)
SQUARE = rand(4, 4, seed=3)
ROW = rand(4, seed=4)
COL = rand(3, 1, seed=5)
IDX = np.array([2, 0, 2])  # a repeated index: gradients must add up
GATHER_IDX = np.array([[0, 3, 3], [1, 1, 0], [2, 0, 1]])
MASK = np.array(
    [[True, False, True, False], [False, False, True, True], [True, True, False, False]],
)

CASES = [
    # shape.py
    Case(
        "reshape view flatten",
        lambda a: (a.reshape(4, 3), a.view(-1), a.flatten(), a.unflatten(1, (2, 2))),
        (X,),
    ),
    Case(
        "squeeze unsqueeze",
        lambda a: (a.unsqueeze(0).squeeze(0), a.unsqueeze(-1), mg.squeeze(a[:1])),
        (X,),
    ),
    Case(
        "permute transpose",
        lambda a: (a.permute(2, 0, 1), a.transpose(0, 2), a.mT, mg.movedim(a, 0, -1)),
        (CUBE,),
    ),
    Case(
        "t adjoint ravel",
        lambda a: (a.t(), mg.adjoint(a), mg.ravel(a), mg.swapaxes(a, 0, 1)),
        (X,),
    ),
    Case("expand broadcast_to", lambda c: (c.expand(3, 4), mg.broadcast_to(c, (2, 3, 4))), (COL,)),
    Case("broadcast_tensors", lambda a, b: mg.broadcast_tensors(a, b), (COL, ROW)),
    Case(
        "flip roll",
        lambda a: (a.flip(0), mg.roll(a, 1, 1), mg.roll(a, (1, -2), (0, 1)), mg.roll(a, 5)),
        (X,),
    ),
    Case(
        "fliplr flipud rot90",
        lambda a: (mg.fliplr(a), mg.flipud(a), mg.rot90(a), mg.rot90(a, 3)),
        (X,),
    ),
    Case("cat stack", lambda a, b: (mg.cat([a, b], 1), mg.stack([a, b]), mg.cat([a, b])), (X, Y)),
    Case("repeat tile", lambda a: (a.repeat(2, 1), mg.tile(a, (2,)), a.repeat(1, 2, 1)), (X,)),
    Case("chunk split unbind", lambda a: (*a.chunk(2, 1), *a.split([1, 2]), *a.unbind(1)), (X,)),
    Case("split_with_sizes", lambda a: mg.split_with_sizes(a, [3, 1], 1), (X,)),
    Case("meshgrid", lambda a, b: mg.meshgrid(a, b, indexing="ij"), (ROW, ROW[:3])),
    Case("cartesian_prod", lambda a: mg.cartesian_prod(a, a[:2]), (ROW,)),
    Case(
        "combinations",
        lambda a: mg.combinations(a, 2),
        (ROW,),
        host_value=True,
    ),  # rows made on the host
    Case("clone detach", lambda a: (a.clone() * 2, a.detach()), (X,)),
    # joining.py
    Case(
        "atleast",
        lambda a: (mg.atleast_1d(a[0, 0]), mg.atleast_2d(a[0]), mg.atleast_3d(a)),
        (X,),
    ),
    Case(
        "hstack vstack dstack",
        lambda a, b: (mg.hstack([a, b]), mg.vstack([a, b]), mg.dstack([a, b])),
        (X, Y),
    ),
    Case("column_stack", lambda a, b: mg.column_stack([a, b]), (ROW, ROW * 2)),
    Case("tensor_split", lambda a: (*mg.tensor_split(a, 3, 1), *mg.tensor_split(a, [1, 2])), (X,)),
    Case(
        "tensor_split tensor",
        lambda a, i: mg.tensor_split(a, i, 1),
        (X, np.array([1, 3])),
        host_value=True,
    ),
    Case(
        "hsplit vsplit dsplit",
        lambda a: (*mg.hsplit(a, 3), *mg.vsplit(a, [1]), *mg.dsplit(a, 2)),
        (CUBE,),
    ),
    Case("block_diag", lambda a, b: mg.block_diag(a, b), (X, COL)),
    # index.py
    Case("getitem basic", lambda a: (a[1], a[:, 1:3], a[..., None, ::2], a[-1, -1]), (X,)),
    Case("getitem tensor index", lambda a, i: (a[i], a[:, i], a[i, i]), (X, IDX)),
    Case(
        "getitem list index",
        lambda a: a[[0, 2, 0]],
        (X,),
        host_value=True,
    ),  # the list is copied over
    Case("getitem mask", lambda a, m: a[m], (X, MASK), sizes_from_data=True),
    Case("gather", lambda a, i: mg.gather(a, 1, i), (X, GATHER_IDX)),
    Case("scatter", lambda a, b, i: mg.scatter(a, 1, i[:, :1], b), (X, Y, GATHER_IDX)),
    Case("scatter value", lambda a, i: mg.scatter(a, 1, i, 2.5), (X, GATHER_IDX)),
    Case("scatter_add", lambda a, b, i: mg.scatter_add(a, 1, i, b), (X, Y, GATHER_IDX)),
    Case(
        "scatter reduce add",
        lambda a, b, i: mg.scatter(a, 1, i, b, reduce="add"),
        (X, Y, GATHER_IDX),
        grad=False,
    ),
    Case("index_select", lambda a, i: (mg.index_select(a, 1, i), a.index_select(0, i)), (X, IDX)),
    Case(
        "masked_fill",
        lambda a, m: (a.masked_fill(m, -1.0), mg.masked_fill(a, m, 0.5)),
        (X, MASK),
    ),
    Case("masked_fill tensor value", lambda a, m, v: a.masked_fill(m, v[0]), (X, MASK, ROW)),
    Case("index_fill", lambda a, i: mg.index_fill(a, 1, i, 3.0), (X, IDX)),
    Case(
        "narrow select",
        lambda a: (mg.narrow(a, 1, 1, 2), mg.select(a, 0, -1), mg.narrow_copy(a, 0, 0, 2)),
        (X,),
    ),
    Case("take", lambda a, i: mg.take(a, i), (X, GATHER_IDX * 3 - 1)),
    Case(
        "take_along_dim",
        lambda a, i: (mg.take_along_dim(a, i, 1), mg.take_along_dim(a, i)),
        (X, GATHER_IDX),
    ),
    Case("masked_select", lambda a, m: mg.masked_select(a, m), (X, MASK), sizes_from_data=True),
    Case(
        "nonzero argwhere",
        lambda m: (mg.nonzero(m), *mg.nonzero(m, as_tuple=True), mg.argwhere(m)),
        (MASK,),
        sizes_from_data=True,
    ),
    Case("nonzero_static", lambda m: mg.nonzero_static(m, size=8), (MASK,), sizes_from_data=True),
    Case(
        "repeat_interleave",
        lambda a: (mg.repeat_interleave(a, 2, 0), a.repeat_interleave(3)),
        (X,),
    ),
    Case(
        "repeat_interleave counts",
        lambda a, r: mg.repeat_interleave(a, r, 1),
        (X, np.array([2, 0, 1, 3])),
        host_value=True,
    ),
    Case("unravel_index", lambda i: mg.unravel_index(i, (3, 4)), (GATHER_IDX * 4 + 1,)),
    Case("setitem", lambda a, b: _set(a * 1, (slice(None), 1), b[:, 0]), (X, Y)),
    Case("setitem tensor index", lambda a, b, i: _set(a * 1, i, b[:2]), (X, Y, IDX[:2])),
    # index_write.py
    Case("index_add", lambda a, b, i: mg.index_add(a, 0, i, b, alpha=2.0), (X, Y, IDX)),
    Case("index_copy", lambda a, b, i: mg.index_copy(a, 1, i, b), (X, Y[:, :2], IDX[:2])),
    Case("index_put", lambda a, b, i: mg.index_put(a, (i,), b), (X, ROW, IDX[:2])),
    Case(
        "index_put accumulate",
        lambda a, b, i: mg.index_put(a, (i,), b, accumulate=True),
        (X, ROW, IDX),
    ),
    Case("put", lambda a, b, i: mg.put(a, i, b, accumulate=True), (X, ROW[:3], IDX * 3)),
    Case(
        "masked_scatter",
        lambda a, m, b: mg.masked_scatter(a, m, b),
        (X, MASK, rand(12, seed=9)),
        host_value=True,
    ),
    # scatter_reduce.py
    Case(
        "scatter_reduce sum",
        lambda a, b, i: mg.scatter_reduce(a, 1, i, b, "sum"),
        (X, Y, GATHER_IDX),
    ),
    Case(
        "scatter_reduce mean",
        lambda a, b, i: mg.scatter_reduce(a, 1, i, b, "mean", include_self=False),
        (X, Y, GATHER_IDX),
    ),
    Case(
        "scatter_reduce amax",
        lambda a, b, i: mg.scatter_reduce(a, 1, i, b, "amax"),
        (X, Y, GATHER_IDX),
    ),
    Case(
        "scatter_reduce amin",
        lambda a, b, i: mg.scatter_reduce(a, 1, i, b, "amin", include_self=False),
        (X, Y, GATHER_IDX),
    ),
    Case("index_reduce", lambda a, b, i: mg.index_reduce(a, 0, i, b, "amax"), (X, Y, IDX)),
    Case(
        "index_reduce mean",
        lambda a, b, i: mg.index_reduce(a, 1, i, b[:, :3], "mean"),
        (X, Y, IDX),
    ),
    # strided.py
    Case(
        "unfold",
        lambda a: (a.unfold(1, 2, 1), mg.diagonal(a), a.diagonal(1), a.diagonal(-1)),
        (X,),
    ),
    Case("diagonal batch", lambda a: a.diagonal(dim1=-2, dim2=-1), (CUBE,)),
    Case(
        "as_strided",
        lambda a: (mg.as_strided(a, (3, 3), (1, 2)), mg.as_strided(a, (2, 2), (4, 1), 1)),
        (X,),
    ),
    # view_scatter.py
    Case("select_scatter", lambda a, b: mg.select_scatter(a, b, 0, 1), (X, ROW)),
    Case("slice_scatter", lambda a, b: mg.slice_scatter(a, b[:, :2], 1, 1, 3), (X, Y)),
    Case("diagonal_scatter", lambda a, b: mg.diagonal_scatter(a, b[:3], 0), (X, ROW)),
    Case(
        "as_strided_scatter",
        lambda a, b: mg.as_strided_scatter(a, b[:2], (2, 2), (1, 4)),
        (X, SQUARE[:2, :2]),
    ),
    # out.py: results written into a given tensor
    Case(
        "out=",
        lambda a, b: mg.add(a, b, out=mg.empty(3, 4, dtype=a.dtype, device=a.device)),
        (X, Y),
        grad=False,
    ),
]


def test_a_product_scatter_on_cuda_says_cupy_has_none(simulated_gpu):
    x = mg.tensor(X, device="cuda")
    index = mg.tensor(GATHER_IDX, device="cuda")
    with pytest.raises(
        NotImplementedError,
        match=r"scatter_reduce\(reduce='prod'\).*CUDA tensor.*CuPy",
    ):
        mg.scatter_reduce(x, 1, index, x, "prod")
    with pytest.raises(NotImplementedError, match="CuPy has no multiplying scatter"):
        mg.index_reduce(x, 0, mg.tensor(IDX, device="cuda"), x, "prod")


def _set(t, index, value):
    t[index] = value
    return t


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("case", CASES, ids=repr)
def test_op_on_cuda_equals_cpu(case, dtype, simulated_gpu):
    check_case(case, dtype, simulated_gpu)
