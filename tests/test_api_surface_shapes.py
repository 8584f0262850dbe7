"""The API surface of shapes and indexing, table-driven (issue #19): each row proves one
torch name against torch, as tests/test_api_surface.py explains (tests/surface.py is the
machinery: values, dtypes, shapes, input gradients and a float64 gradient check).

Views get two kinds of rows: the view's values and gradient, and a write through the view
(`through_view`), which must reach the base as it does in torch; in-place ops on a tensor
in the graph (`(x * 1).index_add_(...)`) are compared with their gradients. The tests
after the table check what a row cannot express: `mg.Size` is the shape's type, and the
in-place view ops (`unsqueeze_`, `t_`, ...) keep the tensor's identity.
"""

import pickle

import numpy as np
import pytest
import torch

import minigrad as mg

from .surface import bools, case, ids, ints, pos, run  # noqa: F401  (row helpers)

TORCH_API = ["torch.Size"]


# ---- helpers for rows that need more than an expression -----------------------------------------
def through_view(lib, take_view, shape=(3, 4)):
    """Write -1 through a view of a fresh base; return the base (the write must reach it)."""
    base = lib.arange(float(np.prod(shape))).reshape(shape)
    take_view(base).fill_(-1.0)
    return base


def scaled_through_view(lib, x, take_view):
    """An in-place write through a view of a tensor in the graph: y = x * 1, then the view's
    elements doubled in place. y's gradient must reach x through the recorded write."""
    y = x * 1
    take_view(y).mul_(2.0)
    return y


def idx(lib, *values):
    return lib.tensor(list(values))


def resized(lib):
    """resize_ on a view keeps the storage: contiguous strides from the view's first element."""
    x = lib.arange(6.0).reshape(2, 3)
    v = x[:, 1:]
    v.resize_(2)
    grown = lib.arange(4.0)
    kept = grown[1:]
    grown.resize_(2)
    # a new storage: the old values first (the rest is not compared)
    longer = lib.arange(4.0).resize_(2, 3)
    return v, v.stride(), v.storage_offset(), x, kept, grown, longer.shape, longer.reshape(-1)[:4]


def sizes(lib, x):
    """What programs do with a shape: index it, slice it, count it, add to it."""
    s = x.shape
    return (
        s,
        x.size(),
        s[1:],
        s[-1],
        s.numel(),
        s[1:].numel(),
        lib.Size([2, 3]) + s[:1],
        lib.Size([]).numel(),
    )


# ---- the table ------------------------------------------------------------------------------
CASES = [
    # -- torch.Size: the shape is one, with numel() and slices that stay one --
    case("torch.Size", sizes, (3, 4, 5)),
    case("torch.Size", lambda lib: lib.Size([2.5]), raises=TypeError),
    # -- moving and swapping dims: views --
    case("torch.movedim", lambda lib, x: lib.movedim(x, (0, 1), (2, 0)), (2, 3, 4)),
    case("torch.movedim", lambda lib, x: lib.movedim(x, -1, 0), (2, 3, 4)),
    case(
        "torch.movedim",
        lambda lib, x: lib.movedim(x, (0, 0), (1, 2)),
        (2, 3, 4),
        raises=RuntimeError,
    ),
    case(
        "torch.movedim", lambda lib, x: lib.movedim(x, (0, 1), (2,)), (2, 3, 4), raises=RuntimeError
    ),
    case("torch.Tensor.movedim", lambda lib, x: x.movedim(1, -1), (2, 3, 4)),
    case(
        "torch.Tensor.movedim", lambda lib: through_view(lib, lambda b: b.movedim(0, 1)[1], (2, 3))
    ),
    case("torch.moveaxis", lambda lib, x: lib.moveaxis(x, [2, 0], [0, 1]), (2, 3, 4)),
    case("torch.Tensor.moveaxis", lambda lib, x: x.moveaxis(0, 2), (2, 3, 4)),
    case("torch.swapaxes", lambda lib, x: lib.swapaxes(x, 0, -1), (2, 3, 4)),
    case("torch.Tensor.swapaxes", lambda lib, x: x.swapaxes(1, 2), (2, 3, 4)),
    case("torch.swapdims", lambda lib, x: lib.swapdims(x, -2, 0), (2, 3, 4)),
    case("torch.Tensor.swapdims", lambda lib: through_view(lib, lambda b: b.swapdims(0, 1)[0])),
    case("torch.t", lambda lib, x: lib.t(x), (3, 4)),
    case("torch.t", lambda lib, x: lib.t(x), (3,)),
    case("torch.t", lambda lib, x: lib.t(x), (2, 3, 4), raises=RuntimeError),
    case("torch.adjoint", lambda lib, x: lib.adjoint(x), (2, 3, 4)),
    case("torch.adjoint", lambda lib, x: lib.adjoint(x), (3,), raises=RuntimeError),
    case("torch.Tensor.adjoint", lambda lib, x: x.adjoint(), (3, 4)),
    case("torch.Tensor.mH", lambda lib, x: x.mH, (2, 3, 4)),
    case("torch.Tensor.mH", lambda lib, x: x.mH, (4,), raises=RuntimeError),
    case("torch.Tensor.H", lambda lib, x: x.H, (3, 4)),
    case("torch.Tensor.H", lambda lib, x: x.H, (2, 3, 4), raises=RuntimeError),
    # -- flattening, tiling, turning --
    case("torch.ravel", lambda lib, x: lib.ravel(x.t()), (3, 4)),
    case("torch.Tensor.ravel", lambda lib, x: x.ravel(), (2, 3, 4)),
    case("torch.tile", lambda lib, x: lib.tile(x, (2,)), (2, 3)),
    case("torch.tile", lambda lib, x: lib.tile(x, (2, 1, 3)), (2, 3)),
    case("torch.Tensor.tile", lambda lib, x: x.tile(2, 2), (3,)),
    case("torch.rot90", lambda lib, x: lib.rot90(x), (2, 3)),
    case("torch.rot90", lambda lib, x: lib.rot90(x, 2, (1, 2)), (2, 3, 4)),
    case("torch.rot90", lambda lib, x: lib.rot90(x, -1, (-1, 0)), (2, 3, 4)),
    case("torch.rot90", lambda lib, x: lib.rot90(x, 4), (2, 3)),
    case("torch.rot90", lambda lib, x: lib.rot90(x, 1, (0, 0)), (2, 3), raises=RuntimeError),
    case("torch.Tensor.rot90", lambda lib, x: x.rot90(3), (2, 3)),
    case("torch.fliplr", lambda lib, x: lib.fliplr(x), (2, 3, 4)),
    case("torch.fliplr", lambda lib, x: lib.fliplr(x), (3,), raises=RuntimeError),
    case("torch.Tensor.fliplr", lambda lib, x: x.fliplr(), (2, 3)),
    case("torch.flipud", lambda lib, x: lib.flipud(x), (3,)),
    case("torch.Tensor.flipud", lambda lib, x: x.flipud(), (2, 3)),
    # -- broadcasting as functions --
    case("torch.broadcast_to", lambda lib, x: lib.broadcast_to(x, (2, 3, 4)), (3, 1)),
    case(
        "torch.broadcast_to",
        lambda lib, x: lib.broadcast_to(x, (2, 4)),
        (3, 1),
        raises=RuntimeError,
    ),
    case("torch.broadcast_tensors", lambda lib, a, b: lib.broadcast_tensors(a, b), (2, 1), (3,)),
    case(
        "torch.broadcast_tensors",
        lambda lib, a, b: lib.broadcast_tensors(a, b),
        (2, 1),
        (3, 2),
        raises=RuntimeError,
    ),
    case("torch.broadcast_shapes", lambda lib: lib.broadcast_shapes((2, 1), (3,), 1)),
    case(
        "torch.broadcast_shapes",
        lambda lib: lib.broadcast_shapes((2, 1), (3, 2)),
        raises=RuntimeError,
    ),
    # -- at least n dims, stacks --
    case("torch.atleast_1d", lambda lib, x: lib.atleast_1d(x), ()),
    case("torch.atleast_1d", lambda lib, a, b: lib.atleast_1d(a, b), (), (2, 3)),
    case("torch.atleast_2d", lambda lib, a, b: lib.atleast_2d([a, b]), (3,), ()),
    case("torch.atleast_3d", lambda lib, a, b, c: lib.atleast_3d(a, b, c), (), (3,), (2, 3)),
    case("torch.atleast_3d", lambda lib, x: lib.atleast_3d(x), (2, 3, 4, 1)),
    case("torch.hstack", lambda lib, a, b: lib.hstack([a, b]), (3,), (2,)),
    case("torch.hstack", lambda lib, a, b: lib.hstack((a, b)), (2, 3), (2, 1)),
    case("torch.hstack", lambda lib: lib.hstack([]), raises=RuntimeError),
    case("torch.vstack", lambda lib, a, b: lib.vstack([a, b]), (3,), (2, 3)),
    case("torch.row_stack", lambda lib, a, b: lib.row_stack([a, b]), (3,), (3,)),
    case("torch.dstack", lambda lib, a, b: lib.dstack([a, b]), (3,), (1, 3, 2)),
    case("torch.dstack", lambda lib, a, b: lib.dstack([a, b]), (2, 3), (2, 3)),
    case(
        "torch.column_stack", lambda lib, a, b, c: lib.column_stack([a, b, c]), (3,), (3, 2), (3,)
    ),
    case("torch.block_diag", lambda lib, a, b, c: lib.block_diag(a, b, c), (2, 2), (3,), ()),
    # dtypes promote
    case("torch.block_diag", lambda lib, a, b: lib.block_diag(a, b), (2, 3), ints(1, 2)),
    case("torch.block_diag", lambda lib: lib.block_diag()),
    case("torch.block_diag", lambda lib, x: lib.block_diag(x), (2, 2, 2), raises=RuntimeError),
    # -- splits: views --
    case("torch.tensor_split", lambda lib, x: lib.tensor_split(x, 3), (7, 2)),
    case("torch.tensor_split", lambda lib, x: lib.tensor_split(x, [1, 5], dim=1), (2, 7)),
    case("torch.tensor_split", lambda lib, x: lib.tensor_split(x, (5, 2, 9)), (7,)),
    case("torch.tensor_split", lambda lib, x: lib.tensor_split(x, lib.tensor([-2, 3])), (7,)),
    case("torch.tensor_split", lambda lib, x: lib.tensor_split(x, lib.tensor(2), -1), (3, 5)),
    case("torch.tensor_split", lambda lib, x: lib.tensor_split(x, 0), (7,), raises=RuntimeError),
    case("torch.Tensor.tensor_split", lambda lib, x: x.tensor_split([2]), (5, 2)),
    case(
        "torch.Tensor.tensor_split",
        lambda lib: through_view(lib, lambda b: b.tensor_split(2, 1)[1]),
    ),
    case("torch.hsplit", lambda lib, x: lib.hsplit(x, 3), (2, 6)),
    case("torch.hsplit", lambda lib, x: lib.hsplit(x, [1, 4]), (6,)),
    case("torch.hsplit", lambda lib, x: lib.hsplit(x, 4), (2, 6), raises=RuntimeError),
    case("torch.Tensor.hsplit", lambda lib, x: x.hsplit(2), (2, 4, 3)),
    case("torch.vsplit", lambda lib, x: lib.vsplit(x, [1]), (3, 2)),
    case("torch.vsplit", lambda lib, x: lib.vsplit(x, 3), (3,), raises=RuntimeError),
    case("torch.Tensor.vsplit", lambda lib, x: x.vsplit(2), (4, 2)),
    case("torch.dsplit", lambda lib, x: lib.dsplit(x, 2), (2, 3, 4)),
    case("torch.Tensor.dsplit", lambda lib, x: x.dsplit([1, 3]), (1, 2, 4)),
    case("torch.split_with_sizes", lambda lib, x: lib.split_with_sizes(x, [2, 3], dim=-1), (2, 5)),
    case("torch.Tensor.split_with_sizes", lambda lib, x: x.split_with_sizes([1, 2]), (3, 2)),
    case(
        "torch.Tensor.split_with_sizes",
        lambda lib, x: x.split_with_sizes([2, 2]),
        (5,),
        raises=RuntimeError,
    ),
    # -- combinations: rows picked by index, so repeated elements add their gradients --
    case("torch.combinations", lambda lib, x: lib.combinations(x), (4,)),
    case("torch.combinations", lambda lib, x: lib.combinations(x, 3, with_replacement=True), (3,)),
    case("torch.combinations", lambda lib, x: lib.combinations(x, 0), (3,)),
    case("torch.combinations", lambda lib, x: lib.combinations(x, 4), (3,)),
    case("torch.combinations", lambda lib, x: lib.combinations(x), (2, 2), raises=RuntimeError),
    # -- shapes as questions and answers --
    case("torch.Tensor.sum_to_size", lambda lib, x: x.sum_to_size(1, 3), (2, 3)),
    case("torch.Tensor.sum_to_size", lambda lib, x: x.sum_to_size((4, 1)), (2, 4, 3)),
    case(
        "torch.Tensor.sum_to_size", lambda lib, x: x.sum_to_size(2, 2), (2, 3), raises=RuntimeError
    ),
    case(
        "torch.Tensor.new_empty_strided",
        lambda lib, x: x.new_empty_strided((2, 3), (1, 2)),
        (2,),
        values=False,
    ),
    case(
        "torch.Tensor.new_empty_strided",
        lambda lib, x: x.new_empty_strided((2, 3), (1, 2)).stride(),
        ints(2),
    ),
    case("torch.unravel_index", lambda lib: lib.unravel_index(idx(lib, 4, 1, 11, -1, 13), (3, 4))),
    case("torch.unravel_index", lambda lib: lib.unravel_index(lib.tensor(5), lib.Size([2, 3]))),
    case("torch.unravel_index", lambda lib: lib.unravel_index(idx(lib, [1, 2]), 5)),
    case(
        "torch.unravel_index",
        lambda lib: lib.unravel_index(lib.tensor([1.0]), (2, 3)),
        raises=TypeError,
    ),
    # -- resizing in place, reversing, membership --
    case("torch.Tensor.resize_", resized),
    # requires grad
    case("torch.Tensor.resize_", lambda lib, x: x.resize_(3), (2,), raises=RuntimeError),
    case("torch.Tensor.resize_as_", lambda lib, x: x.detach().resize_as_(lib.zeros(3, 2)), (2, 3)),
    case("torch.Tensor.__reversed__", lambda lib, x: list(reversed(x)), (3, 2)),
    case("torch.Tensor.__reversed__", lambda lib, x: reversed(x), ()),
    case(
        "torch.Tensor.__contains__",
        lambda lib, x: (2 in x, 7 in x, lib.tensor(1) in x),
        ints(3, 4, high=4),
    ),
    case("torch.Tensor.__contains__", lambda lib, x: "a" in x, (3,), raises=RuntimeError),
    # -- copies and detached aliases as functions --
    case("torch.clone", lambda lib, x: lib.clone(x), (2, 3)),
    case("torch.detach", lambda lib, x: lib.detach(x) * 2, (2, 3)),
    # -- strided views: windows, diagonals, any layout --
    case("torch.Tensor.unfold", lambda lib, x: x.unfold(1, 2, 1), (3, 4)),
    case("torch.Tensor.unfold", lambda lib, x: x.unfold(-1, 3, 2), (2, 3, 7)),
    case("torch.Tensor.unfold", lambda lib, x: x.unfold(0, 2, 3), (7,)),
    case("torch.Tensor.unfold", lambda lib, x: x.unfold(0, 1, 1), ()),
    case("torch.Tensor.unfold", lambda lib, x: x.unfold(1, 5, 1), (3, 4), raises=RuntimeError),
    case("torch.Tensor.unfold", lambda lib, x: x.unfold(1, 2, 0), (3, 4), raises=RuntimeError),
    case("torch.Tensor.unfold", lambda lib: through_view(lib, lambda b: b.unfold(1, 2, 2)[1])),
    case(
        "torch.Tensor.unfold",
        lambda lib, x: scaled_through_view(lib, x, lambda y: y.unfold(0, 2, 2)),
        (5, 2),
    ),
    case("torch.diagonal", lambda lib, x: lib.diagonal(x), (3, 4)),
    case("torch.diagonal", lambda lib, x: lib.diagonal(x, 1, -1, 0), (2, 3, 4)),
    case("torch.diagonal", lambda lib, x: lib.diagonal(x, -2), (4, 3)),
    case("torch.diagonal", lambda lib, x: lib.diagonal(x, 5), (3, 4)),
    case("torch.diagonal", lambda lib, x: lib.diagonal(x, 0, 1, 1), (3, 4), raises=RuntimeError),
    case("torch.diagonal", lambda lib, x: lib.diagonal(x), (3,), raises=IndexError),
    case("torch.Tensor.diagonal", lambda lib, x: x.diagonal(dim1=-2, dim2=-1), (2, 3, 3)),
    case("torch.Tensor.diagonal", lambda lib: through_view(lib, lambda b: b.diagonal(1))),
    case(
        "torch.Tensor.diagonal",
        lambda lib, x: scaled_through_view(lib, x, lambda y: y.diagonal(-1)),
        (4, 3),
    ),
    case("torch.as_strided", lambda lib, x: lib.as_strided(x, (2, 2), (1, 2)), (3, 4)),
    # overlapping windows
    case("torch.as_strided", lambda lib, x: lib.as_strided(x, (3, 3), (1, 1), 2), (3, 4)),
    # offset of the view kept
    case("torch.as_strided", lambda lib, x: lib.as_strided(x[1:], (2,), (4,)), (3, 4)),
    # x overlaps
    case("torch.as_strided", lambda lib, x: lib.as_strided(x.expand(3, 4), (2, 2), (1, 1)), (4,)),
    case(
        "torch.as_strided",
        lambda lib, x: lib.as_strided(x, (2, 2), (1, 2), 100),
        (3, 4),
        raises=RuntimeError,
    ),
    case("torch.Tensor.as_strided", lambda lib, x: x.as_strided((2, 3), (3, 1), 3), (12,)),
    case(
        "torch.Tensor.as_strided",
        lambda lib: through_view(lib, lambda b: b.as_strided((2,), (5,), 1)),
    ),
    case(
        "torch.Tensor.as_strided",
        lambda lib, x: scaled_through_view(lib, x, lambda y: y.as_strided((2, 2), (4, 2), 1)),
        (3, 4),
    ),
    case("torch.diag_embed", lambda lib, x: lib.diag_embed(x), (2, 3)),
    case("torch.diag_embed", lambda lib, x: lib.diag_embed(x, 1, 0, 2), (2, 3)),
    case("torch.diag_embed", lambda lib, x: lib.diag_embed(x, -2), (3,)),
    case(
        "torch.diag_embed", lambda lib, x: lib.diag_embed(x, 0, 1, 1), (2, 3), raises=RuntimeError
    ),
    case("torch.Tensor.diag_embed", lambda lib, x: x.diag_embed(dim1=0, dim2=-1), (2, 3)),
    case("torch.diagflat", lambda lib, x: lib.diagflat(x, 1), (2, 2)),
    case("torch.diagflat", lambda lib, x: lib.diagflat(x), ()),
    case("torch.Tensor.diagflat", lambda lib, x: x.diagflat(-1), (3,)),
    # -- one slice; copies of slices --
    case("torch.select", lambda lib, x: lib.select(x, 1, -1), (3, 4)),
    case("torch.select", lambda lib, x: lib.select(x, 1, 5), (3, 4), raises=IndexError),
    case("torch.select", lambda lib, x: lib.select(x, 0, 0), (), raises=IndexError),
    case("torch.Tensor.select", lambda lib, x: x.select(0, 1), (2, 3, 4)),
    case("torch.Tensor.select", lambda lib: through_view(lib, lambda b: b.select(1, 2))),
    case(
        "torch.Tensor.select",
        lambda lib, x: scaled_through_view(lib, x, lambda y: y.select(-1, 0)),
        (3, 4),
    ),
    case("torch.narrow_copy", lambda lib, x: lib.narrow_copy(x, 1, 1, 2), (3, 4)),
    case("torch.Tensor.narrow_copy", lambda lib, x: x.narrow_copy(-1, 2, 2), (3, 4)),
    # a copy
    case(
        "torch.Tensor.narrow_copy", lambda lib: through_view(lib, lambda b: b.narrow_copy(1, 0, 2))
    ),
    # -- the scatter twins of views --
    case("torch.select_scatter", lambda lib, x, s: lib.select_scatter(x, s, 0, 1), (3, 4), (4,)),
    case(
        "torch.select_scatter",
        lambda lib, x, s: lib.select_scatter(x, s, 0, 1),
        (3, 4),
        (3,),
        raises=RuntimeError,
    ),
    case(
        "torch.Tensor.select_scatter", lambda lib, x, s: x.select_scatter(s, -1, -2), (3, 4), (3,)
    ),
    case(
        "torch.slice_scatter", lambda lib, x, s: lib.slice_scatter(x, s, 1, 0, 4, 2), (3, 4), (3, 2)
    ),
    case(
        "torch.slice_scatter",
        lambda lib, x, s: lib.slice_scatter(x, s.double(), start=1),
        (3, 4),
        (2, 4),
    ),
    case(
        "torch.slice_scatter",
        lambda lib, x, s: lib.slice_scatter(x, s, 1, 0, 2),
        (3, 4),
        (1, 2),
        raises=RuntimeError,
    ),
    case(
        "torch.Tensor.slice_scatter",
        lambda lib, x, s: x.slice_scatter(s, 0, None, -1),
        (3, 4),
        (2, 4),
    ),
    case("torch.diagonal_scatter", lambda lib, x, s: lib.diagonal_scatter(x, s), (3, 4), (3,)),
    case("torch.diagonal_scatter", lambda lib, x, s: lib.diagonal_scatter(x, s, 2), (3, 4), (2,)),
    case(
        "torch.diagonal_scatter",
        lambda lib, x, s: lib.diagonal_scatter(x, s, 0, 0, 2),
        (3, 2, 3),
        (2, 3),
    ),
    case(
        "torch.diagonal_scatter",
        lambda lib, x, s: lib.diagonal_scatter(x, s),
        (3, 4),
        (4,),
        raises=RuntimeError,
    ),
    case(
        "torch.Tensor.diagonal_scatter", lambda lib, x, s: x.diagonal_scatter(s, -1), (3, 3), (2,)
    ),
    # (input's values are integers here: torch's gradient for input is wrong, see the test below)
    case(
        "torch.as_strided_scatter",
        lambda lib, x, s: lib.as_strided_scatter(x.double(), s, (2, 2), (1, 2)),
        ints(3, 4, high=9),
        (2, 2),
    ),
    case(
        "torch.Tensor.as_strided_scatter",
        lambda lib, x, s: x.double().as_strided_scatter(s, (3,), (5,)),
        ints(3, 4, high=9),
        (3,),
    ),
    # -- repeat_interleave --
    case("torch.repeat_interleave", lambda lib, x: lib.repeat_interleave(x, 2), (2, 3)),
    case(
        "torch.repeat_interleave",
        lambda lib, x: lib.repeat_interleave(x, idx(lib, 1, 0, 2), dim=1),
        (2, 3),
    ),
    case(
        "torch.repeat_interleave",
        lambda lib, x: lib.repeat_interleave(x, idx(lib, 1, 2), dim=0, output_size=3),
        (2, 3),
    ),
    case("torch.repeat_interleave", lambda lib, x: lib.repeat_interleave(x, 3), ()),
    case("torch.repeat_interleave", lambda lib: lib.repeat_interleave(lib.tensor([2, 0, 3]))),
    case(
        "torch.repeat_interleave",
        lambda lib, x: lib.repeat_interleave(x, idx(lib, 1, 2), dim=0, output_size=4),
        (2, 3),
        raises=RuntimeError,
    ),
    case(
        "torch.repeat_interleave",
        lambda lib, x: lib.repeat_interleave(x, idx(lib, 1, 2, 3), dim=0),
        (2, 3),
        raises=RuntimeError,
    ),  # fmt: skip
    case(
        "torch.repeat_interleave",
        lambda lib, x: lib.repeat_interleave(x, idx(lib, -1, 2), dim=0),
        (2, 3),
        raises=RuntimeError,
    ),  # fmt: skip
    case(
        "torch.Tensor.repeat_interleave",
        lambda lib, x: x.repeat_interleave(idx(lib, 2), dim=-1),
        (2, 3),
    ),
    # -- reads at indices --
    case("torch.take", lambda lib, x: lib.take(x, idx(lib, [0, 5], [-1, 5])), (2, 3)),
    case("torch.take", lambda lib, x: lib.take(x, idx(lib, 6)), (2, 3), raises=IndexError),
    case("torch.take", lambda lib, x: lib.take(x, lib.tensor([1.0])), (2, 3), raises=RuntimeError),
    case("torch.Tensor.take", lambda lib, x: x.t().take(idx(lib, 1, 4, 1)), (2, 3)),
    case(
        "torch.take_along_dim",
        lambda lib, x: lib.take_along_dim(x, x.argsort(dim=1), dim=1),
        (3, 4),
    ),
    case(
        "torch.take_along_dim",
        lambda lib, x: lib.take_along_dim(x, x.argmax(0, keepdim=True), 0),
        (3, 4),
    ),
    # broadcast
    case(
        "torch.take_along_dim", lambda lib, x: lib.take_along_dim(x, idx(lib, [0, 2, 1]), 1), (2, 3)
    ),
    case("torch.take_along_dim", lambda lib, x: lib.take_along_dim(x, idx(lib, 5, 0, 5)), (2, 3)),
    case(
        "torch.take_along_dim",
        lambda lib, x: lib.take_along_dim(x, idx(lib, [[[1]]]), 1),
        (2, 3),
        raises=RuntimeError,
    ),  # fmt: skip
    case(
        "torch.Tensor.take_along_dim",
        lambda lib, x: x.take_along_dim(idx(lib, [1], [0]), dim=-1),
        (2, 3),
    ),
    case("torch.masked_select", lambda lib, x, m: lib.masked_select(x, m), (2, 3), bools(3)),
    case("torch.masked_select", lambda lib, x, m: lib.masked_select(x, m), (3,), bools(2, 3)),
    case(
        "torch.masked_select",
        lambda lib, x: lib.masked_select(x, lib.ones(3)),
        (2, 3),
        raises=RuntimeError,
    ),
    case("torch.Tensor.masked_select", lambda lib, x: x.masked_select(x > 0), (3, 4)),
    case("torch.nonzero_static", lambda lib, x: lib.nonzero_static(x, size=6), ints(2, 3, high=2)),
    case(
        "torch.nonzero_static",
        lambda lib, x: lib.nonzero_static(x, size=1, fill_value=-5),
        ints(2, 3, high=2),
    ),
    case(
        "torch.nonzero_static",
        lambda lib, x: lib.nonzero_static(x, size=-1),
        ints(3),
        raises=RuntimeError,
    ),
    case("torch.Tensor.nonzero_static", lambda lib, x: x.nonzero_static(size=4), bools(5)),
    # -- writes at indices, out of place and in place --
    case(
        "torch.index_add",
        lambda lib, x, s: lib.index_add(x, 1, idx(lib, 0, 3, 0), s, alpha=2),
        (3, 4),
        (3, 3),
    ),
    case("torch.index_add", lambda lib, x, s: lib.index_add(x, 0, idx(lib, 2), s), (3, 4), (1, 4)),
    case(
        "torch.index_add",
        lambda lib, x, s: lib.index_add(x, 1, idx(lib, 0), s),
        (3, 4),
        (3, 2),
        raises=RuntimeError,
    ),
    case(
        "torch.index_add",
        lambda lib, x, s: lib.index_add(x, 1, idx(lib, 4), s),
        (3, 4),
        (3, 1),
        raises=RuntimeError,
    ),
    case(
        "torch.index_add",
        lambda lib, x, s: lib.index_add(x, 1, idx(lib, 0), s.float()),
        (3, 4),
        (3, 1),
        raises=RuntimeError,
    ),  # fmt: skip
    case(
        "torch.Tensor.index_add",
        lambda lib, x, s: x.index_add(-1, idx(lib, 1, 1), s),
        (2, 3),
        (2, 2),
    ),
    case(
        "torch.Tensor.index_add_",
        lambda lib, x, s: (x * 1).index_add_(0, idx(lib, 1, 0, 1), s),
        (2, 3),
        (3, 3),
    ),
    case(
        "torch.index_copy",
        lambda lib, x, s: lib.index_copy(x, 1, idx(lib, 0, 2), s),
        (3, 4),
        (3, 2),
    ),
    case(
        "torch.index_copy",
        lambda lib, x, s: lib.index_copy(x, 1, idx(lib, 0), s),
        (3, 4),
        (3, 2),
        raises=IndexError,
    ),
    case(
        "torch.Tensor.index_copy",
        lambda lib, x, s: x.index_copy(0, idx(lib, 2, 0), s),
        (3, 2),
        (2, 2),
    ),
    case(
        "torch.Tensor.index_copy_",
        lambda lib, x, s: (x * 1).index_copy_(1, idx(lib, 1), s),
        (2, 3),
        (2, 1),
    ),
    case(
        "torch.index_put",
        lambda lib, x, v: lib.index_put(x, (idx(lib, 0, 2), idx(lib, 1, 1)), v),
        (3, 4),
        (2,),
    ),
    case(
        "torch.index_put",
        lambda lib, x, v: lib.index_put(
            x, (idx(lib, 0, 0, 2), idx(lib, 1, 1, 3)), v, accumulate=True
        ),
        (3, 4),
        (),
    ),
    case(
        "torch.index_put",
        lambda lib, x, v: lib.index_put(x, (idx(lib, True, False, True),), v),
        (3, 4),
        (4,),
    ),
    case(
        "torch.index_put",
        lambda lib, x, v: lib.index_put(x, (idx(lib, 0, 0),), v),
        (3, 4),
        (3,),
        raises=RuntimeError,
    ),  # fmt: skip
    case(
        "torch.index_put",
        lambda lib, x, v: lib.index_put(x, (idx(lib, 0),), v.float()),
        (3, 4),
        (4,),
        raises=RuntimeError,
    ),  # fmt: skip
    case(
        "torch.Tensor.index_put",
        lambda lib, x, v: x.index_put([idx(lib, 1, 1)], v, True),
        (3, 2),
        (2, 2),
    ),
    case(
        "torch.Tensor.index_put_",
        lambda lib, x, v: (x * 1).index_put_((idx(lib, 0), idx(lib, 2)), v),
        (2, 3),
        (),
    ),
    case("torch.put", lambda lib, x, s: lib.put(x, idx(lib, 0, -1), s), (3, 4), (2,)),
    case(
        "torch.put", lambda lib, x, s: lib.put(x, idx(lib, 12), s), (3, 4), (1,), raises=IndexError
    ),
    case(
        "torch.put",
        lambda lib, x, s: lib.put(x, idx(lib, 0, 1), s),
        (3, 4),
        (3,),
        raises=IndexError,
    ),
    case(
        "torch.Tensor.put",
        lambda lib, x, s: x.put(idx(lib, [1, 1], [4, 0]), s, accumulate=True),
        (2, 3),
        (2, 2),
    ),
    case("torch.Tensor.put_", lambda lib, x, s: (x * 1).put_(idx(lib, 5, 2), s), (2, 3), (2,)),
    case(
        "torch.masked_scatter",
        lambda lib, x, m, s: lib.masked_scatter(x, m, s),
        (3, 4),
        bools(4),
        (4, 4),
    ),
    case(
        "torch.masked_scatter",
        lambda lib, x, m, s: lib.masked_scatter(x, m, s),
        (4,),
        bools(3, 4),
        (13,),
    ),
    case(
        "torch.masked_scatter",
        lambda lib, x, s: lib.masked_scatter(x, lib.ones(4, dtype=lib.bool), s),
        (3, 4),
        (5,),
        raises=RuntimeError,
    ),  # fmt: skip
    case(
        "torch.masked_scatter",
        lambda lib, x, s: lib.masked_scatter(x, lib.ones(4), s),
        (3, 4),
        (12,),
        raises=RuntimeError,
    ),  # fmt: skip
    case("torch.Tensor.masked_scatter", lambda lib, x, s: x.masked_scatter(x > 0, s), (2, 3), (6,)),
    case(
        "torch.Tensor.masked_scatter_",
        lambda lib, x, s: (x * 1).masked_scatter_(x < 0, s),
        (2, 3),
        (7,),
    ),
    case("torch.Tensor.tril_", lambda lib, x: (x * 1).tril_(), (3, 4)),
    case("torch.Tensor.tril_", lambda lib, x: (x * 1).tril_(-1), (2, 3, 3)),
    case("torch.Tensor.triu_", lambda lib, x: (x * 1).triu_(1), (4, 3)),
    case("torch.Tensor.fill_diagonal_", lambda lib, x: (x * 1).fill_diagonal_(2.5), (3, 4)),
    case(
        "torch.Tensor.fill_diagonal_",
        lambda lib, x: (x * 1).fill_diagonal_(-1.0, wrap=True),
        (7, 3),
    ),
    case("torch.Tensor.fill_diagonal_", lambda lib, x: (x * 1).fill_diagonal_(0.0), (3, 3, 3)),
    case(
        "torch.Tensor.fill_diagonal_",
        lambda lib, x: (x * 1).fill_diagonal_(0.0),
        (3, 3, 4),
        raises=RuntimeError,
    ),
    # -- reducing writes: every reduction, with and without input's values --
    *[
        case(
            "torch.scatter_reduce",
            lambda lib, x, s, reduce=reduce, include_self=include_self: lib.scatter_reduce(
                x, 1, idx(lib, [0, 2, 0, 2], [1, 1, 1, 3]), s, reduce, include_self=include_self
            ),
            pos(2, 5),
            pos(2, 4),
        )
        for reduce in ("sum", "prod", "mean", "amax", "amin")
        for include_self in (True, False)
    ],
    case(
        "torch.scatter_reduce",
        lambda lib, x: lib.scatter_reduce(x, 0, idx(lib, 0, 1, 0, 1, 2), lib.arange(5), "mean"),
        ints(5, high=4),
    ),
    case(
        # zeros in the product: the gradient of a lone zero is the rest's product
        "torch.scatter_reduce",
        lambda lib, x, s: lib.scatter_reduce(x, 0, idx(lib, 0, 0, 1, 1, 1), s, "prod"),
        np.array([2.0, 0.0, 3.0]),
        np.array([0.0, 5.0, 0.0, 2.0, 4.0]),
    ),
    case(
        "torch.scatter_reduce",
        lambda lib, x, s: lib.scatter_reduce(x, 0, idx(lib, 0), s, "foo"),
        (3,),
        (1,),
        raises=RuntimeError,
    ),  # fmt: skip
    case(
        "torch.Tensor.scatter_reduce",
        lambda lib, x, s: x.scatter_reduce(
            0, idx(lib, [2, 0], [2, 2]), s, "amax", include_self=False
        ),
        (3, 2),
        (2, 2),
    ),
    case(
        "torch.Tensor.scatter_reduce_",
        lambda lib, x, s: (x * 1).scatter_reduce_(-1, idx(lib, [1, 1, 0]), s, "sum"),
        (1, 3),
        (1, 3),
    ),
    *[
        case(
            "torch.index_reduce",
            lambda lib, x, s, reduce=reduce, include_self=include_self: lib.index_reduce(
                x, 0, idx(lib, 0, 2, 0), s, reduce, include_self=include_self
            ),
            pos(3, 2),
            pos(3, 2),
        )
        for reduce in ("prod", "mean", "amax", "amin")
        for include_self in (True, False)
    ],
    case(
        "torch.index_reduce",
        lambda lib, x, s: lib.index_reduce(x, 0, idx(lib, 0), s, "sum"),
        (3, 2),
        (1, 2),
        raises=RuntimeError,
    ),  # fmt: skip
    case(
        "torch.Tensor.index_reduce",
        lambda lib, x, s: x.index_reduce(1, idx(lib, 1, 1), s, "amin"),
        (2, 3),
        (2, 2),
    ),
    case(
        "torch.Tensor.index_reduce_",
        lambda lib, x, s: (x * 1).index_reduce_(0, idx(lib, 1), s, "mean", include_self=False),
        (2, 3),
        (1, 3),
    ),
    # -- in-place view ops on a tensor in the graph: the gradient goes through --
    case("torch.Tensor.unsqueeze_", lambda lib, x: (x * 1).unsqueeze_(1), (2, 3)),
    case("torch.Tensor.squeeze_", lambda lib, x: (x * 1).squeeze_(), (2, 1, 3, 1)),
    case("torch.Tensor.squeeze_", lambda lib, x: (x * 1).squeeze_(-1), (2, 1, 3, 1)),
    case("torch.Tensor.transpose_", lambda lib, x: (x * 1).transpose_(0, 2), (2, 3, 4)),
    case("torch.Tensor.swapaxes_", lambda lib, x: (x * 1).swapaxes_(1, 0), (2, 3)),
    case("torch.Tensor.swapdims_", lambda lib, x: (x * 1).swapdims_(-1, 0), (2, 3)),
    case("torch.Tensor.t_", lambda lib, x: (x * 1).t_(), (2, 3)),
    case("torch.Tensor.t_", lambda lib, x: (x * 1).t_(), (2, 3, 4), raises=RuntimeError),
    case("torch.Tensor.as_strided_", lambda lib, x: (x * 1).as_strided_((2, 2), (1, 3), 1), (3, 3)),
    case(
        "torch.Tensor.unsqueeze_", lambda lib, x: x.unsqueeze_(0), (2, 3), raises=RuntimeError
    ),  # a leaf that requires grad
]


@pytest.mark.filterwarnings("ignore:index_reduce\\(\\) is in beta")  # torch's, of its own API
@pytest.mark.parametrize("row", CASES, ids=list(ids(CASES)))
def test_behaves_as_torch(row):
    run(row)


# ---- what a row cannot say --------------------------------------------------------------------
def test_the_shape_is_a_size():
    x = mg.zeros(2, 3, 4)
    for shape in (
        x.shape,
        x.size(),
        x.shape[1:],
        x.shape + (5,),
        (5,) + x.shape,
        x.shape * 2,
        mg.broadcast_shapes(3),
    ):
        assert type(shape) is mg.Size, type(shape)
    assert x.shape == (2, 3, 4) and hash(x.shape) == hash((2, 3, 4)) and isinstance(x.shape, tuple)
    assert repr(x.shape) == repr(torch.zeros(2, 3, 4).shape).replace("torch", "minigrad")
    assert str(x.shape) == "(2, 3, 4)"  # what error messages quote
    assert mg.Size(mg.tensor([3, 4])) == (3, 4) and mg.Size().numel() == 1
    restored = pickle.loads(pickle.dumps(x.shape))
    assert type(restored) is mg.Size and restored == x.shape
    assert np.zeros(x.shape).shape == (2, 3, 4)


@pytest.mark.parametrize(
    "op",
    [
        lambda t: t.unsqueeze_(1),
        lambda t: t.squeeze_(0),
        lambda t: t.transpose_(0, 1),
        lambda t: t.t_(),
        lambda t: t.swapdims_(0, 1),
        lambda t: t.as_strided_((2,), (3,)),
    ],
)
def test_an_inplace_view_op_keeps_the_tensor_and_its_storage(op):
    """Same object, same storage, new shape and strides, the version bumped: as torch."""
    for lib in (mg, torch):
        base = lib.arange(4.0).reshape(2, 2)
        t = base[:, :]  # a view of base
        version = t._version
        assert op(t) is t
        t.fill_(-1.0)  # a write through the changed view still reaches the base
        if lib is mg:
            mine, mine_t = base, t
        else:
            theirs, theirs_t = base, t
        assert t._version > version
    assert tuple(mine_t.shape) == tuple(theirs_t.shape)
    assert mine_t.stride() == theirs_t.stride()
    np.testing.assert_array_equal(mine.numpy(), theirs.numpy())


def test_an_inplace_view_op_outside_the_graph_is_plain():
    x = mg.zeros(2, 3)
    with mg.no_grad():
        p = mg.zeros(3, requires_grad=True)
        p.unsqueeze_(0)  # the optimizer's kind of change: allowed under no_grad
    assert p.shape == (1, 3) and p.is_leaf and p.requires_grad
    assert x.t_().shape == (3, 2) and x.is_contiguous() is False


def test_views_share_storage_with_their_base():
    x = mg.arange(24.0).reshape(2, 3, 4)
    for view in (
        x.movedim(0, -1),
        x.swapaxes(0, 1),
        x.diagonal(0, 1, 2),
        x.unfold(2, 2, 1),
        x.select(1, 0),
        x.as_strided((2, 2), (3, 1), 5),
        x.adjoint(),
        x.tensor_split(2, dim=2)[1],
        x.mH,
    ):
        assert view.data_ptr() != 0 and np.shares_memory(view.numpy(), x.numpy())
        assert view._version == x._version  # one in-place counter for the storage


def test_a_view_that_meets_itself_refuses_writes():
    x = mg.arange(6.0)
    overlapping = x.as_strided((3, 2), (0, 1))
    with pytest.raises(RuntimeError, match="single memory location"):
        overlapping.add_(1)


def test_as_strided_scatter_gradient_of_input():
    """dL/dinput is dL/dy with the overwritten places zeroed, checked against finite
    differences. (torch 2.13's analytical gradient for `input` fails torch's own
    gradcheck: it passes the gradient at the overwritten places instead of the others,
    so the rows above compare only src's gradient with torch.)"""
    x = mg.randn(3, 4, dtype=mg.float64, requires_grad=True)
    s = mg.randn(2, 2, dtype=mg.float64, requires_grad=True)
    assert mg.autograd.gradcheck(lambda x, s: mg.as_strided_scatter(x, s, (2, 2), (1, 2)), (x, s))
    mg.as_strided_scatter(x, s, (2, 2), (1, 2)).sum().backward()
    expected = np.ones((3, 4))
    expected[0] = 0  # (2, 2) with strides (1, 2) writes storage positions 0..3: row 0
    np.testing.assert_array_equal(x.grad.numpy(), expected)
