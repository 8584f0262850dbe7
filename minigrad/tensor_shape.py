"""Tensor's shape and indexing methods: views and copies with another shape (`reshape`,
`view`, `permute`, `expand`, ...), splitting and joining along a dim, and reads and
writes at indices (`gather`, `scatter`, `index_select`, ...) as new tensors.

`Tensor` inherits them (tensor.py); the math and the gradients are in `minigrad/ops/`.
(`t[...]` itself, `__getitem__` and `__setitem__`, is in tensor.py with the operators.)
"""

import numpy as np

from minigrad import layouts as _layout
from minigrad._args import distinct_dims, normalize_dim, size_args
from minigrad.tensor_runtime import _layout_order

# Bound by tensor.py once they exist: the Tensor class, and the autograd and ops packages
# that import it (the one break in the import circle is at the bottom of tensor.py).
Tensor = autograd = ops = None


class ShapeMethods:
    """The mixin Tensor inherits these methods from (see the module docstring)."""

    __slots__ = ()

    # ---- shape ----------------------------------------------------------------------------
    def reshape(self, *shape):
        """The same elements in a new shape (one size may be -1, inferred). A view when the memory
        allows; dL/dx is dL/dy reshaped back.
        """
        shape = ops.shape.infer_shape(size_args(shape), self.array.size, self.shape, "reshape")
        if shape == self.shape:
            return self if not self.requires_grad else ops.shape.Reshape.apply(self, shape=shape)
        return ops.shape.Reshape.apply(self, shape=shape)

    def view(self, *shape):
        """The same elements in a new shape, sharing this tensor's memory: never a copy, so
        it raises where the strides allow no such view (`x.T.view(-1)`; use reshape, which
        copies then). dL/dx is dL/dy reshaped back. `view(dtype)` converts to that dtype
        (a copy; PyTorch reinterprets the bytes).
        """
        if len(shape) == 1 and not isinstance(shape[0], (int, tuple, list)):
            return self.to(shape[0])
        shape = ops.shape.infer_shape(size_args(shape), self.array.size, self.shape, "view")
        return ops.shape.View.apply(self, shape=shape)

    def view_as(self, other):
        """view(other.shape): a view, never a copy."""
        return self.view(other.shape)

    def reshape_as(self, other):
        """reshape(other.shape)."""
        return self.reshape(other.shape)

    def flatten(self, start_dim=0, end_dim=-1):
        """Merge dims `start_dim`..`end_dim` into one (all of them by default); a reshape."""
        if self.ndim == 0:
            return self.reshape(1)
        start = normalize_dim(start_dim, self.ndim, "flatten")
        end = normalize_dim(end_dim, self.ndim, "flatten")
        if start > end:
            raise ValueError(
                f"flatten: start_dim {start_dim} comes after end_dim {end_dim} for shape "
                f"{self.shape}"
            )
        size = int(np.prod(self.shape[start : end + 1]))
        return self.reshape(self.shape[:start] + (size,) + self.shape[end + 1 :])

    def unflatten(self, dim, sizes):
        """Split dim `dim` into `sizes` (one may be -1); the inverse of flatten, a reshape."""
        d = normalize_dim(dim, self.ndim, "unflatten")
        sizes = ops.shape.infer_shape(tuple(sizes), self.shape[d], (self.shape[d],), "unflatten")
        return self.reshape(self.shape[:d] + sizes + self.shape[d + 1 :])

    def squeeze(self, dim=None):
        """Remove size-1 dims (all of them, or only `dim`, an int or tuple); a reshape."""
        if dim is None:
            return self.reshape(tuple(s for s in self.shape if s != 1))
        dims = distinct_dims(
            dim if isinstance(dim, (tuple, list)) else (dim,), self.ndim, "squeeze"
        )
        return self.reshape(
            tuple(s for i, s in enumerate(self.shape) if not (i in dims and s == 1))
        )

    def unsqueeze(self, dim):
        """Insert a size-1 dim at position `dim`; a reshape."""
        d = normalize_dim(dim, self.ndim + 1, "unsqueeze")
        return self.reshape(self.shape[:d] + (1,) + self.shape[d:])

    def permute(self, *dims):
        """Reorder the dims (`dims[i]` is the input dim that becomes dim i); a view. dL/dx is dL/dy
        permuted by the inverse permutation.
        """
        dims = size_args(dims)
        if len(dims) != self.ndim:
            raise RuntimeError(
                f"permute: got {len(dims)} dims {dims} for a tensor of shape {self.shape}"
            )
        dims = tuple(normalize_dim(d, self.ndim, "permute") for d in dims)
        if sorted(dims) != list(range(self.ndim)):
            raise RuntimeError(f"permute: dims {dims} are not a permutation of 0..{self.ndim - 1}")
        return ops.shape.Permute.apply(self, dims=dims)

    def transpose(self, dim0, dim1):
        """Swap dims `dim0` and `dim1`; a view, and its gradient swaps them back."""
        d0 = normalize_dim(dim0, self.ndim, "transpose")
        d1 = normalize_dim(dim1, self.ndim, "transpose")
        dims = list(range(self.ndim))
        dims[d0], dims[d1] = dims[d1], dims[d0]
        return ops.shape.Permute.apply(self, dims=tuple(dims))

    def t(self):
        """The transpose of a matrix (dims 0 and 1); a 0-d or 1-d tensor keeps its shape."""
        if self.ndim > 2:
            raise RuntimeError(f"t: expects a tensor with <= 2 dimensions, got shape {self.shape}")
        return self.T

    def expand(self, *sizes):
        """A view with size-1 dims repeated to `sizes` (-1 keeps a size), without copying. dL/dx
        sums dL/dy over the expanded dims.
        """
        return ops.shape.expand(self, size_args(sizes))

    def expand_as(self, other):
        """expand(other.shape)."""
        return ops.shape.expand(self, other.shape)

    def broadcast_to(self, shape):
        """A view broadcast to `shape` without copying, as `expand`; dL/dx sums dL/dy over the
        broadcast dims.
        """
        return ops.shape.expand(self, tuple(shape))

    def repeat(self, *repeats):
        """Tile the tensor `repeats[i]` times along dim i (copies); dL/dx sums the tiles of
        dL/dy."""
        repeats = size_args(repeats)
        if len(repeats) < self.ndim:
            raise RuntimeError(
                f"repeat: number of repeats {len(repeats)} can't be smaller than the number of "
                f"dims {self.ndim}"
            )
        return ops.shape.Repeat.apply(self, repeats=repeats)

    def contiguous(self, memory_format=_layout.contiguous_format):
        """Self if its memory is laid out in `memory_format` (row-major by default), else a
        copy laid out so (the gradient passes through). `mg.channels_last` lays a 4-D
        (N, C, H, W) tensor out as (N, H, W, C), `channels_last_3d` a 5-D one likewise."""
        order = _layout_order(memory_format, "contiguous")
        if order is not None and self.ndim != len(order):
            raise RuntimeError(
                f"required rank {len(order)} tensor to use {memory_format.name} format"
            )
        if self.is_contiguous(memory_format):
            return self
        if memory_format is _layout.preserve_format:
            raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
        if order is None:
            return ops.shape.Contiguous.apply(self)
        return ops.shape.Relayout.apply(self, order=order)

    def clone(self):
        """A copy with its own memory, recorded in the graph: dL/dx = dL/dy."""
        return ops.shape.Clone.apply(self)

    def chunk(self, chunks, dim=0):
        """Split into `chunks` pieces along `dim` (the last may be smaller), as views."""
        d = normalize_dim(dim, self.ndim, "chunk")
        if chunks <= 0:
            raise ValueError(f"chunk: chunks must be positive, got {chunks}")
        size = -(-self.shape[d] // chunks)  # ceil, as torch.chunk
        return self.split(max(size, 1), dim=d)

    def split(self, split_size_or_sections, dim=0):
        """Split along `dim` into pieces of `split_size_or_sections` (an int), or of the listed
        sizes; the pieces are views.
        """
        d = normalize_dim(dim, self.ndim, "split")
        n = self.shape[d]
        if isinstance(split_size_or_sections, int):
            if split_size_or_sections <= 0:
                raise ValueError(
                    f"split: split_size must be positive, got {split_size_or_sections}"
                )
            sizes = [
                min(split_size_or_sections, n - s) for s in range(0, n, split_size_or_sections)
            ] or [0]
        else:
            sizes = list(split_size_or_sections)
            if sum(sizes) != n:
                raise ValueError(
                    f"split: sections {sizes} sum to {sum(sizes)} but dim {d} has size {n}"
                )
        pieces, start = [], 0
        for s in sizes:
            index = (slice(None),) * d + (slice(start, start + s),)
            pieces.append(self[index])
            start += s
        return tuple(pieces)

    def unbind(self, dim=0):
        """The slices along `dim` as a tuple of views, one per index (the dim removed)."""
        d = normalize_dim(dim, self.ndim, "unbind")
        return tuple(self[(slice(None),) * d + (i,)] for i in range(self.shape[d]))

    def flip(self, *dims, **kwargs):
        """x.flip(0, 1), x.flip((0, 1)) or x.flip(dims=(0, 1))."""
        if set(kwargs) - {"dims"}:
            raise TypeError(
                f"flip() got unexpected keyword arguments {sorted(set(kwargs) - {'dims'})}"
            )
        return ops.shape.flip(self, kwargs.pop("dims") if "dims" in kwargs else size_args(dims))

    def tril(self, diagonal=0):
        """The lower triangle of the last two dims (below and on `diagonal`), zeros elsewhere."""
        return ops.linalg.tril(self, diagonal)

    def triu(self, diagonal=0):
        """The upper triangle of the last two dims (above and on `diagonal`), zeros elsewhere."""
        return ops.linalg.triu(self, diagonal)

    def roll(self, shifts, dims=None):
        """Shift the elements by `shifts` along `dims` (all elements, flattened, if dims is None),
        wrapping around.
        """
        return ops.shape.roll(self, shifts, dims)

    # ---- shape: moving dims, turning, tiling, windows and diagonals (math in minigrad/ops/) ---
    def movedim(self, source, destination):
        """The dims `source` moved to positions `destination` (ints or sequences), the others
        keeping their order; a view. See `mg.movedim`."""
        return ops.shape.movedim(self, source, destination)

    moveaxis = movedim

    def swapaxes(self, axis0, axis1):
        """Two dims swapped: `transpose` under NumPy's name; a view."""
        return self.transpose(axis0, axis1)

    swapdims = swapaxes

    def ravel(self):
        """Flattened to 1-D: a view when the memory allows, else a copy."""
        return self.reshape(-1)

    def tile(self, *dims):
        """Repeated `dims[i]` times along dim i, fewer dims counting as leading 1s; see
        `mg.tile`."""
        return ops.shape.tile(self, size_args(dims))

    def rot90(self, k=1, dims=(0, 1)):
        """Rotated by 90 degrees `k` times in the plane of `dims`; see `mg.rot90`."""
        return ops.shape.rot90(self, k, dims)

    def fliplr(self):
        """Reversed along dim 1 (left to right)."""
        return ops.shape.fliplr(self)

    def flipud(self):
        """Reversed along dim 0 (upside down)."""
        return ops.shape.flipud(self)

    def adjoint(self):
        """The conjugate transpose of each matrix (its last two dims swapped; for real
        tensors, `mT`); a view."""
        return ops.shape.adjoint(self)

    @property
    def mH(self):
        """The conjugate transpose of each matrix: for real tensors, `mT`."""
        if self.ndim < 2:
            raise RuntimeError(
                "tensor.mH is only supported on matrices or batches of matrices. Got "
                f"{self.ndim}-D tensor."
            )
        return self.transpose(-2, -1)

    @property
    def H(self):
        """The conjugate transpose of a matrix (2-D only): for real tensors, its transpose."""
        if self.ndim != 2:
            raise RuntimeError(
                f"tensor.H is only supported on matrices (2-D tensors). Got {self.ndim}-D tensor."
            )
        return self.transpose(0, 1)

    def unfold(self, dimension, size, step):
        """Every window of `size` elements along `dimension`, one every `step`: that dim
        becomes (n - size) // step + 1 windows and a new last dim of `size` runs along each.
        A view sharing this tensor's storage; the gradient adds back where windows overlap."""
        return ops.strided.unfold(self, dimension, size, step)

    def as_strided(self, size, stride, storage_offset=None):
        """A view of this tensor's storage with the given sizes and strides; see `mg.as_strided`."""
        return ops.strided.as_strided(self, size, stride, storage_offset)

    def diagonal(self, offset=0, dim1=0, dim2=1):
        """The `offset`-th diagonal in the plane of `dim1` and `dim2`, as a last dim; a view.
        See `mg.diagonal`."""
        return ops.strided.diagonal(self, offset, dim1, dim2)

    def diag_embed(self, offset=0, dim1=-2, dim2=-1):
        """Matrices with the last dim on their diagonal; see `mg.diag_embed`."""
        return ops.linalg.diag_embed(self, offset, dim1, dim2)

    def diagflat(self, offset=0):
        """A square matrix with the elements on its `offset`-th diagonal; see `mg.diagflat`."""
        return ops.linalg.diagflat(self, offset)

    def tensor_split(self, indices_or_sections, dim=0):
        """Split into views along `dim`: n nearly equal pieces, or cut before each index; see
        `mg.tensor_split`."""
        return ops.joining.tensor_split(self, indices_or_sections, dim)

    def hsplit(self, indices_or_sections):
        """Split along dim 1 (dim 0 for a vector); see `mg.hsplit`."""
        return ops.joining.hsplit(self, indices_or_sections)

    def vsplit(self, indices_or_sections):
        """Split along dim 0 of a tensor with at least 2 dims; see `mg.vsplit`."""
        return ops.joining.vsplit(self, indices_or_sections)

    def dsplit(self, indices_or_sections):
        """Split along dim 2 of a tensor with at least 3 dims; see `mg.dsplit`."""
        return ops.joining.dsplit(self, indices_or_sections)

    def split_with_sizes(self, split_sizes, dim=0):
        """Split along `dim` into views of the listed sizes, which must add up to the dim's size."""
        d = normalize_dim(dim, self.ndim, "split_with_sizes")
        if sum(split_sizes) != self.shape[d]:
            raise RuntimeError(
                f"split_with_sizes expects split_sizes to sum exactly to {self.shape[d]} (input "
                f"tensor's size at dimension {d}), but got split_sizes={list(split_sizes)}"
            )
        return self.split(list(split_sizes), d)

    def repeat_interleave(self, repeats=None, dim=None, *, output_size=None):
        """Each element (or slice along `dim`) repeated `repeats` times in a row; see
        `mg.repeat_interleave`."""
        return ops.index_reads.repeat_interleave(self, repeats, dim, output_size=output_size)

    # ---- indexing: reads and writes at indices (math in minigrad/ops/) ----------------------
    def select(self, dim, index):
        """The slice at `index` along `dim`, that dim removed; a view. See `mg.select`."""
        return ops.index_reads.select(self, dim, index)

    def narrow_copy(self, dim, start, length):
        """`narrow(dim, start, length)` as a copy with its own memory."""
        return ops.index_reads.narrow_copy(self, dim, start, length)

    def take(self, index):
        """The elements at flat positions `index` (the tensor read as 1-D); see `mg.take`."""
        return ops.index_reads.take(self, index)

    def take_along_dim(self, indices, dim=None):
        """Read along `dim` at `indices` (gather with broadcasting); see `mg.take_along_dim`."""
        return ops.index_reads.take_along_dim(self, indices, dim)

    def masked_select(self, mask):
        """The elements where the bool `mask` is True, as a 1-D tensor; see `mg.masked_select`."""
        return ops.index_reads.masked_select(self, mask)

    def nonzero_static(self, *, size, fill_value=-1):
        """`nonzero()` cut or padded to exactly `size` rows; see `mg.nonzero_static`."""
        return ops.index_reads.nonzero_static(self, size=size, fill_value=fill_value)

    def select_scatter(self, src, dim, index):
        """A copy with `src` in place of `select(dim, index)`; see `mg.select_scatter`."""
        return ops.view_scatter.select_scatter(self, src, dim, index)

    def slice_scatter(self, src, dim=0, start=None, end=None, step=1):
        """A copy with `src` in place of the slice start:end:step along `dim`."""
        return ops.view_scatter.slice_scatter(self, src, dim, start, end, step)

    def diagonal_scatter(self, src, offset=0, dim1=0, dim2=1):
        """A copy with `src` in place of `diagonal(offset, dim1, dim2)`."""
        return ops.view_scatter.diagonal_scatter(self, src, offset, dim1, dim2)

    def as_strided_scatter(self, src, size, stride, storage_offset=None):
        """A copy with `src` in place of `as_strided(size, stride, storage_offset)`."""
        return ops.view_scatter.as_strided_scatter(self, src, size, stride, storage_offset)

    def index_add(self, dim, index, source, *, alpha=1):
        """A copy with `alpha * source` added at the slices `index` along `dim`; see
        `mg.index_add`."""
        return ops.index_write.index_add(self, dim, index, source, alpha=alpha)

    def index_copy(self, dim, index, source):
        """A copy with the slices `index` along `dim` replaced by source's; see `mg.index_copy`."""
        return ops.index_write.index_copy(self, dim, index, source)

    def index_put(self, indices, values, accumulate=False):
        """A copy with `values` written (or added) at `self[indices]`; see `mg.index_put`."""
        return ops.index_write.index_put(self, indices, values, accumulate)

    def put(self, index, source, accumulate=False):
        """A copy with `source` written (or added) at the flat positions `index`; see `mg.put`."""
        return ops.index_write.put(self, index, source, accumulate)

    def masked_scatter(self, mask, source):
        """A copy with the masked places filled in order by source's elements; see
        `mg.masked_scatter`."""
        return ops.index_write.masked_scatter(self, mask, source)

    def scatter_reduce(self, dim, index, src, reduce, *, include_self=True):
        """A copy with `src` reduced into the places `index` names; see `mg.scatter_reduce`."""
        return ops.scatter_reduce.scatter_reduce(
            self, dim, index, src, reduce, include_self=include_self
        )

    def index_reduce(self, dim, index, source, reduce, *, include_self=True):
        """A copy with source's slices reduced into the slices `index`; see `mg.index_reduce`."""
        return ops.scatter_reduce.index_reduce(
            self, dim, index, source, reduce, include_self=include_self
        )

    # ---- indexing: gathers, scatters, selections, masks -----------------------------------
    def masked_fill(self, mask, value):
        """Replace elements where `mask` is True by `value` (gradient 0 there)."""
        return ops.index.masked_fill(self, mask, value)

    def where(self, condition, other):
        """`mg.where(condition, self, other)`: self where condition is True, else other."""
        return ops.elementwise.where(condition, self, other)

    def gather(self, dim, index, *, sparse_grad=False):
        """As `mg.gather`: `out[i][j] = self[i][index[i][j]]` for dim=1; the gradient scatters back,
        adding at repeated indices.
        """
        return ops.index.gather(self, dim, index)

    def scatter(self, dim, index, src=None, *, value=None, reduce=None):
        """As `mg.scatter`: a copy with `src` (or `value`) written at `index` along `dim`."""
        return ops.index.scatter(self, dim, index, src, value=value, reduce=reduce)

    def scatter_add(self, dim, index, src):
        """As `mg.scatter_add`: a copy with `src` added at `index` along `dim`."""
        return ops.index.scatter_add(self, dim, index, src)

    def index_select(self, dim, index):
        """The slices `index` (a 1-d int tensor) along `dim`; the gradient adds back at repeated
        indices."""
        return ops.index.index_select(self, dim, index)

    def index_fill(self, dim, index, value):
        """A copy with the slices `index` along `dim` set to `value`."""
        return ops.index.index_fill(self, dim, index, value)

    def narrow(self, dim, start, length):
        """The `length` entries from `start` along `dim` (`x[:, start:start + length]` for
        dim=1), as a view sharing this tensor's storage; see `mg.narrow`."""
        return ops.index.narrow(self, dim, start, length)

    def nonzero(self, *, as_tuple=False):
        """The indices of the non-zero elements: (count, ndim) int64, or with `as_tuple=True`
        one 1-D tensor per dim; see `mg.nonzero`."""
        return ops.index.nonzero(self, as_tuple=as_tuple)

    def argwhere(self):
        """The indices of the non-zero elements, one row each: `nonzero()`."""
        return ops.index.argwhere(self)

    # In-place view ops change the shape (and strides) the tensor sees its storage with,
    # not its values: the tensor becomes the view (autograd/inplace.py, change_view).
    def _inplace_view(self, op, view):
        if self._inference and not autograd.grad_mode.is_inference_mode_enabled():
            raise RuntimeError(
                f"{op}: Inplace update to inference tensor outside InferenceMode is not allowed."
            )
        try:
            return autograd.inplace.change_view(self, view)
        except RuntimeError as e:
            raise RuntimeError(str(e).replace("in-place view op", op, 1)) from None

    def squeeze_(self, dim=None):
        """squeeze, in place: this tensor loses its size-1 dims (or only `dim`); returns self."""
        return self._inplace_view("squeeze_", lambda t: t.squeeze(dim))

    def unsqueeze_(self, dim):
        """unsqueeze, in place: this tensor gains a size-1 dim at `dim`; returns self."""
        return self._inplace_view("unsqueeze_", lambda t: t.unsqueeze(dim))

    def transpose_(self, dim0, dim1):
        """transpose, in place: this tensor's dims `dim0` and `dim1` swap; returns self."""
        return self._inplace_view("transpose_", lambda t: t.transpose(dim0, dim1))

    swapaxes_ = swapdims_ = transpose_

    def t_(self):
        """t, in place: this matrix becomes its transpose; returns self."""
        return self._inplace_view("t_", Tensor.t)

    def as_strided_(self, size, stride, storage_offset=None):
        """as_strided, in place: this tensor sees its storage with new sizes and strides;
        returns self."""
        return self._inplace_view(
            "as_strided_", lambda t: t.as_strided(size, stride, storage_offset)
        )
