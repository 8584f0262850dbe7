"""The scatter twins of views: a copy of `input` with the elements of one of its views
replaced by `src`.

    select_scatter(x, src, dim, index)          x[:, index] = src      (dim=1)
    slice_scatter(x, src, dim, start, end, step) x[:, start:end:step] = src
    diagonal_scatter(x, src, offset, dim1, dim2) x.diagonal(...) = src
    as_strided_scatter(x, src, size, stride, storage_offset)

Each is written as what it means, out of place: `out = x.clone()`, then a write into
the view of `out`, which autograd records as any in-place write through a view
(autograd/inplace.py, `CopySlices`). So the gradients are the view's, both ways:
dL/dx = dL/dout with the view's elements zeroed (they were overwritten), and
dL/dsrc = the same view of dL/dout. `src` must have the view's shape exactly; its dtype
is cast to `input`'s, as in PyTorch.
"""

from minigrad._args import normalize_dim
from minigrad.creation import as_tensor
from minigrad.ops.strided import as_strided, diagonal


def _scatter_into_view(op, input, src, take_view):
    x, values = as_tensor(input), as_tensor(src)
    out = x.clone()
    view = take_view(out)
    if values.shape != view.shape:
        raise RuntimeError(
            f"{op}: expected src to have a size equal to the slice of self. src size = "
            f"{list(values.shape)}, slice size = {list(view.shape)}"
        )
    view.copy_(values)
    return out


def select_scatter(input, src, dim, index):
    """A copy of `input` with `src` in place of `input.select(dim, index)` (src has that
    slice's shape: input's without `dim`)."""
    return _scatter_into_view("select_scatter", input, src, lambda t: t.select(dim, index))


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """A copy of `input` with `src` in place of the slice start:end:step along `dim`."""

    def take_view(t):
        d = normalize_dim(dim, t.ndim, "slice_scatter")
        return t[(slice(None),) * d + (slice(start, end, step),)]

    return _scatter_into_view("slice_scatter", input, src, take_view)


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """A copy of `input` with `src` in place of `input.diagonal(offset, dim1, dim2)`."""
    return _scatter_into_view(
        "diagonal_scatter", input, src, lambda t: diagonal(t, offset, dim1, dim2)
    )


def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """A copy of `input` with `src` in place of `input.as_strided(size, stride,
    storage_offset)`, the layout read in the copy's (contiguous) storage."""
    return _scatter_into_view(
        "as_strided_scatter", input, src, lambda t: as_strided(t, size, stride, storage_offset)
    )
