"""Joining and splitting, NumPy's way: the stacks (`hstack`, `vstack`, `dstack`,
`column_stack`), the splits (`hsplit`, `vsplit`, `dsplit`, `tensor_split`), the
`atleast_*d` promotions they rest on, and `block_diag`.

Each is `cat`, `stack` or slicing after a reshape, so no new gradient is needed: a
stack's gradient is cut back into pieces by `Cat`'s backward, a split's pieces are views
(slices) whose gradients are placed back by `GetItem`'s.
"""

from minigrad._args import normalize_dim
from minigrad.creation import as_tensor, zeros
from minigrad.dtypes import result_type
from minigrad.ops.shape import ConstantPad, cat
from minigrad.tensor import Tensor


# ---- at least n dims ---------------------------------------------------------------------------
def _atleast(tensors, make):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return tuple(make(as_tensor(t)) for t in tensors[0])
    if len(tensors) == 1:
        return make(as_tensor(tensors[0]))
    return tuple(make(as_tensor(t)) for t in tensors)


def _one_d(x):
    return x.reshape(1) if x.ndim == 0 else x


def _two_d(x):
    return x.reshape(1, -1) if x.ndim < 2 else x


def _three_d(x):
    if x.ndim == 0:
        return x.reshape(1, 1, 1)
    if x.ndim == 1:
        return x.reshape(1, -1, 1)  # a vector becomes (1, n, 1), as NumPy's atleast_3d
    if x.ndim == 2:
        return x.unsqueeze(-1)
    return x


def atleast_1d(*tensors):
    """Each tensor with at least 1 dim (a 0-d one becomes shape (1,)); one tensor in, one
    out, several (or a list) in, a tuple out."""
    return _atleast(tensors, _one_d)


def atleast_2d(*tensors):
    """Each tensor with at least 2 dims: a vector (n,) becomes a row (1, n)."""
    return _atleast(tensors, _two_d)


def atleast_3d(*tensors):
    """Each tensor with at least 3 dims: (n,) becomes (1, n, 1) and (m, n) becomes (m, n, 1)."""
    return _atleast(tensors, _three_d)


# ---- stacks --------------------------------------------------------------------------------------
def _tensors(tensors, op):
    tensors = [as_tensor(t) for t in tensors]
    if not tensors:
        raise RuntimeError(f"{op} expects a non-empty TensorList")
    return tensors


def hstack(tensors):
    """Join horizontally: along dim 1, or along dim 0 when the tensors are vectors."""
    tensors = [_one_d(t) for t in _tensors(tensors, "hstack")]
    return cat(tensors, dim=0 if tensors[0].ndim == 1 else 1)


def vstack(tensors):
    """Join vertically: vectors become rows, then everything is joined along dim 0."""
    return cat([_two_d(t) for t in _tensors(tensors, "vstack")], dim=0)


row_stack = vstack


def dstack(tensors):
    """Join in depth: each tensor made at least 3-d, then joined along dim 2."""
    return cat([_three_d(t) for t in _tensors(tensors, "dstack")], dim=2)


def column_stack(tensors):
    """Join as columns: vectors (and 0-d tensors) become (n, 1) columns, then everything is
    joined along dim 1."""
    tensors = _tensors(tensors, "column_stack")
    return cat([t.reshape(-1, 1) if t.ndim < 2 else t for t in tensors], dim=1)


# ---- splits --------------------------------------------------------------------------------------
def tensor_split(input, indices_or_sections, dim=0):
    """input split along `dim` into views. An int `n` makes n pieces as equal as can be (the
    first size % n ones one longer); a sequence of indices (or a 1-D integer tensor) cuts
    before each of them, so `[1, 5]` gives [:1], [1:5] and [5:]. Indices past the end give
    empty pieces, as slicing does."""
    x = as_tensor(input)
    d = normalize_dim(dim, x.ndim, "tensor_split")
    cuts = indices_or_sections
    if isinstance(cuts, Tensor):
        if cuts.ndim > 1 or cuts.dtype.kind not in "iu":
            raise RuntimeError(
                "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                f"one-dimensional integer tensor, but got a tensor with {cuts.ndim} dims of "
                f"{cuts.dtype}"
            )
        cuts = int(cuts.item()) if cuts.ndim == 0 else [int(i) for i in cuts.tolist()]
    if isinstance(cuts, bool) or not isinstance(cuts, (int, list, tuple)):
        raise TypeError(
            f"tensor_split(): expected an int or a sequence of ints, got {type(cuts).__name__}"
        )
    size = x.shape[d]
    if isinstance(cuts, int):
        if cuts <= 0:
            raise RuntimeError(
                f"tensor_split: number of sections must be larger than 0, got {cuts}"
            )
        small, extra = divmod(size, cuts)
        lengths = [small + 1] * extra + [small] * (cuts - extra)
        cuts = [sum(lengths[:k]) for k in range(1, cuts)]
    bounds = [0, *cuts, size]
    return tuple(
        x[(slice(None),) * d + (slice(start, end),)] for start, end in zip(bounds[:-1], bounds[1:])
    )


def _split_even(op, input, sections, dim, min_ndim):
    x = as_tensor(input)
    if x.ndim < min_ndim:
        raise RuntimeError(
            f"torch.{op} requires a tensor with at least {min_ndim} dimension, but got a tensor "
            f"with {x.ndim} dimensions!"
        )
    if isinstance(sections, int) and (sections == 0 or x.shape[dim] % sections):
        raise RuntimeError(
            f"torch.{op} attempted to split along dimension {dim}, but the size of the dimension "
            f"{x.shape[dim]} is not divisible by the split_size {sections}!"
        )
    return tensor_split(x, sections, dim)


def hsplit(input, indices_or_sections):
    """Split horizontally: along dim 1 (dim 0 for a vector); an int must divide the size."""
    x = as_tensor(input)
    return _split_even("hsplit", x, indices_or_sections, 1 if x.ndim > 1 else 0, 1)


def vsplit(input, indices_or_sections):
    """Split vertically: along dim 0 of a tensor with at least 2 dims."""
    return _split_even("vsplit", input, indices_or_sections, 0, 2)


def dsplit(input, indices_or_sections):
    """Split in depth: along dim 2 of a tensor with at least 3 dims."""
    return _split_even("dsplit", input, indices_or_sections, 2, 3)


# ---- block_diag ----------------------------------------------------------------------------------
def block_diag(*tensors):
    """One matrix with the given matrices along its diagonal and zeros elsewhere (a vector
    counts as a row, a 0-d tensor as a 1 x 1 matrix; dtypes promote). Each block is
    padded with zeros to the full width and the rows joined, so each block's gradient is
    its own region of dL/dy."""
    blocks = []
    for i, t in enumerate(tensors):
        t = as_tensor(t)
        if t.ndim > 2:
            raise RuntimeError(
                f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                f"{t.ndim} dimensions"
            )
        blocks.append(t.reshape(1, -1) if t.ndim < 2 else t)
    if not blocks:
        return zeros(1, 0)
    dtype = blocks[0].dtype
    for b in blocks[1:]:
        dtype = result_type(dtype, b.dtype)
    width = sum(b.shape[1] for b in blocks)
    rows, left = [], 0
    for b in blocks:
        right = width - left - b.shape[1]
        rows.append(ConstantPad.apply(b.to(dtype), widths=((0, 0), (left, right))))
        left += b.shape[1]
    return cat(rows, dim=0)
