"""Views described by strides: `as_strided`, `unfold` (sliding windows) and `diagonal`.

A tensor is a window into a block of memory, its *storage*: where its first element is
(the storage offset) and, for each dim, a size and a *stride*, how many elements to step
in the storage to move one index along that dim. A contiguous (3, 4) matrix has strides
(4, 1); its transpose is the same storage with strides (1, 4). Any choice of sizes,
strides and offset that stays inside the storage is another view of the same numbers,
with no copy:

- the diagonal of a (3, 4) matrix is size 3, stride 4 + 1 = 5: one row down and one
  column right at each step;
- the windows of length 2 along a row of 4, `x.unfold(1, 2, 1)`, are sizes (3, 3, 2)
  with strides (4, 1, 1): the window's start steps by 1, and so does its inside.

Such a view shares storage with its input, so a write through it reaches the input
(`x.diagonal().fill_(0)` zeroes x's diagonal), as in PyTorch. Its gradient sends each
element of dL/dy back to the element of x it reads, adding where windows overlap. To
find which element that is, the same view is taken of the numbers 0 .. n-1 laid out in
x's shape: the view then holds, in place of each value, the index it was read from.

A CUDA tensor's storage is GPU memory, and the same views are taken of it: CuPy's arrays
have strides too (`xp.lib.stride_tricks.as_strided` makes the view, and `array.data.ptr`
says where an array starts).
"""

import math

import numpy as np

from minigrad._args import normalize_dim
from minigrad.array_module import array_module, on_device, scatter_add, storage_start
from minigrad.autograd.function import Function
from minigrad.creation import as_tensor
from minigrad.ops.index import GetItem, IndexAdd
from minigrad.tensor import Tensor


# ---- the storage under an array, and views of it ---------------------------------------------
def storage_of(array):
    """The array that owns the memory `array` looks into (its storage): NumPy's `base` of
    a view is the array it was taken from, itself a view or the owner (CuPy's alike)."""
    while isinstance(array.base, (np.ndarray, type(array))):
        array = array.base
    return array


def _address(array):
    """Where `array`'s first element is in memory (host or GPU)."""
    if type(array) is np.ndarray:
        return array.__array_interface__["data"][0]
    return array.data.ptr


def strided_view(array, shape, strides, offset=0, op="as_strided"):
    """A NumPy view of `array`'s storage of the given `shape`, with `strides` and `offset`
    counted in elements, the offset from `array`'s first element.

    The view is made on the storage itself, so its `base` is the storage, as that of any
    NumPy view of `array` is: `Function.apply` then knows it for a view of the input and
    shares the input's in-place version counter with it. NumPy refuses a view that would
    reach outside the storage (torch's as_strided refuses it too). A view that meets
    itself (a stride of 0 over a size > 1) is read-only, as an expanded tensor is, and so
    is any view of a read-only array.
    """
    storage = storage_of(array)
    if not (storage.flags.c_contiguous or storage.flags.f_contiguous):
        raise RuntimeError(
            f"{op}: the storage under this tensor is not one block of memory; clone() it first"
        )
    itemsize = array.itemsize
    start = _address(array) - storage_start(array, storage) + offset * itemsize
    if on_device(array):
        return _device_view(array, storage, shape, strides, start // itemsize, op)
    try:
        view = np.ndarray(
            tuple(shape),
            array.dtype,
            buffer=storage,
            offset=start,
            strides=tuple(s * itemsize for s in strides),
        )
    except (ValueError, TypeError) as e:
        raise RuntimeError(
            f"{op}: sizes {list(shape)}, strides {list(strides)} and storage offset "
            f"{start // itemsize} reach outside the storage of {storage.size} elements ({e})"
        ) from None
    overlaps = any(s == 0 and n > 1 for s, n in zip(strides, shape))
    if overlaps or not array.flags.writeable:
        view.flags.writeable = False
    return view


def _device_view(array, storage, shape, strides, start, op):
    """`strided_view` on a GPU: CuPy's as_strided checks nothing, so the bounds are
    checked here (as NumPy checks them for a host view)."""
    if not storage.flags.owndata:  # a view made by as_strided: its owner is not known here
        raise RuntimeError(
            f"{op}: on a GPU, a strided view of a strided view (as_strided, diagonal, unfold) "
            "is not supported; clone() the first view"
        )
    last = start + sum((n - 1) * s for n, s in zip(shape, strides)) if all(shape) else start - 1
    if start < 0 or last >= storage.size:
        raise RuntimeError(
            f"{op}: sizes {list(shape)}, strides {list(strides)} and storage offset "
            f"{start} reach outside the storage of {storage.size} elements"
        )
    flat = storage.reshape(-1, order="A")[start:]  # the storage from the view's first element on
    itemsize = array.itemsize
    byte_strides = tuple(s * itemsize for s in strides)
    return array_module(array).lib.stride_tricks.as_strided(flat, tuple(shape), byte_strides)


def element_strides(array):
    """NumPy's strides are in bytes, torch's in elements."""
    return tuple(s // array.itemsize for s in array.strides)


# ---- views whose layout follows from the input's: their gradient -----------------------------
class StridedView(Function):
    """y = a strided view of x (a subclass's `view`);  dL/dx = each element of dL/dy added
    to the element of x it reads (summed where the view reads an element twice).

    A subclass defines `view(array, **kwargs)`, the NumPy view of an array; the positions
    of the elements read are that view of 0 .. n-1 laid out in x's shape."""

    @staticmethod
    def view(array, **kwargs):
        raise NotImplementedError

    @classmethod
    def forward(cls, ctx, x, **kwargs):
        ctx.in_shape, ctx.kwargs = x.shape, kwargs
        return cls.view(x.array, **kwargs)

    @classmethod
    def backward(cls, ctx, grad):
        n = math.prod(ctx.in_shape)
        numbers = array_module(grad.array).arange(n).reshape(ctx.in_shape)  # where grad lives
        positions = cls.view(numbers, **ctx.kwargs).copy()
        return IndexAdd.apply(grad, index=positions, shape=(n,)).reshape(ctx.in_shape)


# ---- unfold: sliding windows -----------------------------------------------------------------
class Unfold(StridedView):
    """y = the windows of `size` elements along `dim`, one every `step` (a new last dim
    holds each window);  dL/dx = the windows' gradients added back where they came from
    (an element in two overlapping windows gets both)."""

    @staticmethod
    def view(array, dim, size, step):
        strides = element_strides(array)
        count = (array.shape[dim] - size) // step + 1
        shape = array.shape[:dim] + (count,) + array.shape[dim + 1 :] + (size,)
        window_strides = (
            strides[:dim] + (strides[dim] * step,) + strides[dim + 1 :] + (strides[dim],)
        )
        return strided_view(array, shape, window_strides, 0, "unfold")


def unfold(input, dimension, size, step):
    """Every window of `size` elements along `dimension`, one every `step` elements: the
    result has that dim of size (n - size) // step + 1 and a new last dim of size `size`.
    A view, as in PyTorch: it shares `input`'s storage."""
    x = as_tensor(input)
    if x.ndim == 0:  # a 0-d tensor unfolds as one element: one window of `size` (0 or 1)
        return unfold(x.reshape(1), 0, size, step).reshape(size)
    d = normalize_dim(dimension, x.ndim, "unfold")
    if step <= 0:
        raise RuntimeError(f"unfold: step is {step} but must be > 0")
    if size < 0 or size > x.shape[d]:
        raise RuntimeError(
            f"unfold: maximum size for tensor at dimension {d} is {x.shape[d]} but size is {size}"
        )
    return Unfold.apply(x, dim=d, size=int(size), step=int(step))


# ---- diagonal ------------------------------------------------------------------------------------
def diagonal_layout(shape, strides, offset, dim1, dim2):
    """(shape, strides, start) of the `offset`-th diagonal of the (dim1, dim2) planes of an
    array of `shape` and element `strides`: those two dims go, and a last dim runs along
    the diagonal, stepping one index in each at once."""
    if offset >= 0:
        length, start = min(shape[dim1], shape[dim2] - offset), offset * strides[dim2]
    else:
        length, start = min(shape[dim1] + offset, shape[dim2]), -offset * strides[dim1]
    if length <= 0:
        length, start = 0, 0
    rest = [k for k in range(len(shape)) if k not in (dim1, dim2)]
    return (
        tuple(shape[k] for k in rest) + (length,),
        tuple(strides[k] for k in rest) + (strides[dim1] + strides[dim2],),
        start,
    )


class Diagonal(StridedView):
    """y = the `offset`-th diagonal of the (dim1, dim2) planes of x, as a last dim (offset
    > 0 above the main diagonal, < 0 below);  dL/dx = zeros with dL/dy on that diagonal."""

    @staticmethod
    def view(array, offset, dim1, dim2):
        shape, strides, start = diagonal_layout(
            array.shape, element_strides(array), offset, dim1, dim2
        )
        return strided_view(array, shape, strides, start, "diagonal")


def diagonal_dims(x, dim1, dim2, op):
    """dim1 and dim2 of x, checked: two distinct dims (a 1-d x has no dim 1: IndexError)."""
    d1, d2 = normalize_dim(dim1, x.ndim, op), normalize_dim(dim2, x.ndim, op)
    if d1 == d2:
        raise RuntimeError(f"{op}: diagonal dimensions cannot be identical {dim1}, {dim2}")
    return d1, d2


def diagonal(input, offset=0, dim1=0, dim2=1):
    """The `offset`-th diagonal of `input` in the plane of dims `dim1` and `dim2`: those two
    dims are removed and the diagonal becomes the last dim. A view (a write to it reaches
    `input`); `x.diagonal(dim1=-2, dim2=-1)` is the diagonal of each matrix of a batch."""
    x = as_tensor(input)
    d1, d2 = diagonal_dims(x, dim1, dim2, "diagonal")
    return Diagonal.apply(x, offset=int(offset), dim1=d1, dim2=d2)


# ---- as_strided: any layout, given in the storage's terms -------------------------------------
def storage_positions(array):
    """The storage index of each element of `array` (an int64 array of its shape)."""
    first = _storage_offset(array)
    xp = array_module(array)
    positions = xp.full(array.shape, first, dtype=np.int64)
    for axis, stride in enumerate(element_strides(array)):
        steps = xp.arange(array.shape[axis]) * stride
        positions += steps.reshape((-1,) + (1,) * (array.ndim - axis - 1))
    return positions


class AsStrided(Function):
    """y = the view of x's storage with sizes `size`, strides `stride` and first element at
    `storage_offset` (all in elements);  dL/dx = dL/dy added into the storage positions y
    reads, then read back at x's positions (divided by how many elements of x share a
    position, when x itself overlaps, as PyTorch's gradient does). Positions y reads that
    x does not hold get their gradient nowhere."""

    @staticmethod
    def forward(ctx, x, size, stride, storage_offset):
        y = strided_view(
            x.array, size, stride, storage_offset - _storage_offset(x.array), "as_strided"
        )
        ctx.x_positions, ctx.y_positions = storage_positions(x.array), storage_positions(y)
        ctx.reach = _reach(x.array), _reach(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        # the lowest and highest positions, from the layouts (not read from the data)
        low = min([0] + [r[0] for r in ctx.reach if r])
        length = max([0] + [r[1] - low for r in ctx.reach if r]) + 1
        x_at, y_at = ctx.x_positions - low, ctx.y_positions - low
        storage_grad = IndexAdd.apply(grad, index=y_at, shape=(length,))
        grad_x = GetItem.apply(storage_grad, index=x_at)
        # how many of x's elements share each position: a count added up where they lie
        # (not np.bincount, which on a GPU reads the largest position back to the host)
        xp = array_module(x_at)
        count = xp.zeros(length, dtype=np.int64)
        scatter_add(count, x_at.reshape(-1), xp.ones(x_at.size, dtype=np.int64))
        sharing = count[x_at]
        # on a GPU always divided (by 1 where x does not overlap): asking would copy a bool
        if on_device(grad.array) or (sharing.size and sharing.max() > 1):
            grad_x = grad_x / Tensor._make(sharing.astype(grad.dtype))
        return grad_x


def _reach(array):
    """(lowest, highest) storage position `array` reads, from its layout; None if empty."""
    if array.size == 0:
        return None
    first = _storage_offset(array)
    steps = [(n - 1) * s for n, s in zip(array.shape, element_strides(array))]
    return first + sum(min(0, s) for s in steps), first + sum(max(0, s) for s in steps)


def _storage_offset(array):
    return (_address(array) - storage_start(array, storage_of(array))) // array.itemsize


def as_strided(input, size, stride, storage_offset=None):
    """A view of `input`'s storage with the given sizes and strides (in elements), its first
    element at `storage_offset` (by default input's own). Any layout that stays inside the
    storage is allowed, overlapping ones too; like torch's, it is easy to misuse: prefer
    view, expand, unfold or diagonal, which say what they mean."""
    x = as_tensor(input)
    size, stride = tuple(int(s) for s in size), tuple(int(s) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError(
            f"as_strided: mismatch in length of strides and shape ({len(stride)} != {len(size)})"
        )
    if any(s < 0 for s in size) or any(s < 0 for s in stride):
        raise RuntimeError(
            f"as_strided: negative sizes or strides are not supported (size {size}, stride "
            f"{stride})"
        )
    offset = _storage_offset(x.array) if storage_offset is None else int(storage_offset)
    if offset < 0:
        raise RuntimeError(f"as_strided: Tensor: invalid storage offset {offset}")
    return AsStrided.apply(x, size=size, stride=stride, storage_offset=offset)


# ---- resize_: a new shape over the storage, reallocated if it does not fit -----------------------
