"""Shape ops: they move elements around without changing their values.

So each backward moves the gradient back the same way: a reshape is undone by a
reshape, a permutation by the inverse permutation, a broadcast (`expand`) by a sum,
a concatenation by slicing the gradient into its pieces.
"""

import itertools
import math
import warnings

import numpy as np

from minigrad import backends
from minigrad._args import distinct_dims, normalize_dim
from minigrad.array_module import array_module
from minigrad.autograd.function import Function
from minigrad.creation import as_tensor
from minigrad.dtypes import result_type
from minigrad.ops.broadcast import unbroadcast
from minigrad.size import Size
from minigrad.tensor import Tensor


def infer_shape(shape, numel, old_shape, op):
    """Resolve one -1 in `shape` and check the element count, naming the op."""
    if shape.count(-1) > 1:
        raise RuntimeError(f"{op}: only one dimension can be inferred (-1), got {shape}")
    if any(s < -1 for s in shape):
        raise RuntimeError(f"{op}: invalid negative size in shape {shape}")
    if -1 in shape:
        known = math.prod(s for s in shape if s != -1)
        if known == 0 or numel % known:
            raise RuntimeError(
                f"{op}: shape {shape} is invalid for input of size {numel} (shape {old_shape})"
            )
        shape = tuple(numel // known if s == -1 else s for s in shape)
    if math.prod(shape) != numel:
        raise RuntimeError(
            f"{op}: shape {shape} is invalid for input of size {numel} (shape {old_shape})"
        )
    return shape


class Reshape(Function):
    """y = x viewed with a new shape (same elements, same order);  dL/dx = dL/dy
    reshaped back."""

    @staticmethod
    def forward(ctx, x, shape):
        ctx.in_shape = x.shape
        if x.array.flags.c_contiguous:  # always a view: no copy to make
            return x.array.reshape(shape)
        # a strided x may need a copy (the attention heads put back side by side): the
        # elementwise kernels make it on every core when it is large
        return backends.kernels("elementwise", array=x.array).reshape(x.array, shape)

    @staticmethod
    def backward(ctx, grad):
        return grad.reshape(ctx.in_shape)


class View(Function):
    """y = x seen with a new shape, sharing x's memory: `view` never copies (a Reshape
    copies when it must);  dL/dx = dL/dy reshaped back."""

    @staticmethod
    def forward(ctx, x, shape):
        ctx.in_shape = x.shape
        return view_array(x.array, shape)

    @staticmethod
    def backward(ctx, grad):
        return grad.reshape(ctx.in_shape)


def view_array(array, shape):
    """`array` with a new `shape` that shares its memory, or torch's error where none can.

    A new shape can share the old memory when every run of old dims that new dims merge
    or split is laid out evenly, each dim's stride being the next one's times its size
    (a transposed matrix's columns are not: their elements are 3 apart, then 1). NumPy's
    reshape returns such a view whenever one exists and copies otherwise, so a result
    with elements that does not overlap `array` is a copy, and `view` must refuse it.
    """
    y = array.reshape(shape)
    if y.size and not np.may_share_memory(y, array):
        strides = tuple(s // array.itemsize for s in array.strides)
        raise RuntimeError(
            f"view: shape {shape} is not compatible with the input of shape {array.shape} and "
            f"strides {strides} (view size is not compatible with input tensor's size and stride: "
            "at least one dimension spans across two contiguous subspaces). Use .reshape(...) "
            "instead."
        )
    return y


class Permute(Function):
    """y = x with its axes reordered by `dims`;  dL/dx = dL/dy with the inverse order."""

    @staticmethod
    def forward(ctx, x, dims):
        # the inverse order: where each axis went. (Plain Python: np.argsort of a short tuple
        # costs more to convert than to sort, and this runs for every transpose.)
        ctx.inverse = tuple(sorted(range(len(dims)), key=dims.__getitem__))
        return x.array.transpose(dims)

    @staticmethod
    def backward(ctx, grad):
        return Permute.apply(grad, dims=ctx.inverse)


class Expand(Function):
    """y = x broadcast to `shape` (no copy);  dL/dx = dL/dy summed over the copies."""

    @staticmethod
    def forward(ctx, x, shape):
        ctx.in_shape = x.shape
        return np.broadcast_to(x.array, shape)

    @staticmethod
    def backward(ctx, grad):
        return unbroadcast(grad, ctx.in_shape)


def expand(x, sizes):
    """Broadcast `x` to `sizes`; -1 keeps a dimension's size, as torch.expand."""
    if len(sizes) < x.ndim:
        raise RuntimeError(
            f"expand: the number of sizes ({len(sizes)}) must be >= the tensor's dims ({x.shape})"
        )
    lead = len(sizes) - x.ndim
    shape = []
    for i, s in enumerate(sizes):
        old = x.shape[i - lead] if i >= lead else None
        if s == -1:
            if old is None:
                raise RuntimeError(
                    f"expand: -1 is not allowed for a new leading dimension (sizes {sizes})"
                )
            s = old
        if old is not None and old != 1 and old != s:
            raise RuntimeError(
                f"expand: the expanded size {s} must match the existing size {old} at dimension "
                f"{i} (tensor shape {x.shape}, target {tuple(sizes)})"
            )
        shape.append(s)
    shape = tuple(shape)
    if shape == x.shape:
        return x
    return Expand.apply(x, shape=shape)


class Repeat(Function):
    """y = x tiled `repeats` times along each dim (torch.repeat = np.tile);
    dL/dx = dL/dy summed over the tiles."""

    @staticmethod
    def forward(ctx, x, repeats):
        ctx.in_shape = (1,) * (len(repeats) - x.ndim) + x.shape
        ctx.x_shape, ctx.repeats = x.shape, repeats
        return np.tile(x.array, repeats)

    @staticmethod
    def backward(ctx, grad):
        # view the gradient as (r0, s0, r1, s1, ...) and sum out the repeat axes
        split = tuple(v for r, s in zip(ctx.repeats, ctx.in_shape) for v in (r, s))
        tile_axes = tuple(range(0, 2 * len(ctx.repeats), 2))
        return grad.reshape(split).sum(dim=tile_axes).reshape(ctx.x_shape)


class Flip(Function):
    """y = x reversed along `dims`;  dL/dx = dL/dy reversed along the same dims.

    A copy, as torch.flip: np.flip alone is a view with negative strides, through which
    a write would reach x."""

    @staticmethod
    def forward(ctx, x, dims):
        ctx.dims = dims
        return np.flip(x.array, dims).copy()

    @staticmethod
    def backward(ctx, grad):
        return Flip.apply(grad, dims=ctx.dims)


def flip(input, dims):
    """`input` reversed along each of `dims` (an int or a sequence of ints)."""
    x = input if isinstance(input, Tensor) else as_tensor(input)
    dims = dims if isinstance(dims, (tuple, list)) else (dims,)
    return Flip.apply(x, dims=tuple(sorted(distinct_dims(dims, x.ndim, "flip"))))


class Roll(Function):
    """y = x shifted cyclically by `shifts` along `dims` (flattened, then shifted and
    reshaped back, when dims is None): what falls off one end comes back at the other;
    dL/dx = dL/dy rolled back by -shifts."""

    @staticmethod
    def forward(ctx, x, shifts, dims):
        ctx.shifts, ctx.dims = shifts, dims
        return np.roll(x.array, shifts, axis=dims)

    @staticmethod
    def backward(ctx, grad):
        back = -ctx.shifts if isinstance(ctx.shifts, int) else tuple(-s for s in ctx.shifts)
        return Roll.apply(grad, shifts=back, dims=ctx.dims)


def roll(input, shifts, dims=None):
    """Shift the elements of `input` cyclically by `shifts` along `dims` (one shift per
    dim); with dims=None, over the flattened tensor (the shape is kept)."""
    x = input if isinstance(input, Tensor) else as_tensor(input)
    shift_list = tuple(shifts) if isinstance(shifts, (tuple, list)) else (shifts,)
    if dims is None:
        if len(shift_list) != 1:
            raise RuntimeError(f"roll: with dims=None, shifts must be one int, got {shifts}")
        return Roll.apply(x, shifts=int(shift_list[0]), dims=None)
    dim_list = tuple(dims) if isinstance(dims, (tuple, list)) else (dims,)
    if len(shift_list) != len(dim_list):
        raise RuntimeError(
            f"roll: shifts and dimensions must align. shifts: {len(shift_list)}, dims: "
            f"{len(dim_list)}"
        )
    axes = tuple(normalize_dim(d, x.ndim, "roll") for d in dim_list)
    return Roll.apply(x, shifts=tuple(int(s) for s in shift_list), dims=axes)


class Clone(Function):
    """y = a copy of x;  dL/dx = dL/dy."""

    @staticmethod
    def forward(ctx, x):
        return x.array.copy()

    @staticmethod
    def backward(ctx, grad):
        return grad


class Contiguous(Clone):
    """y = x laid out in C order (a copy only when needed);  dL/dx = dL/dy."""

    @staticmethod
    def forward(ctx, x):
        # the copy, when one is needed, runs on every core for large arrays
        return backends.kernels("elementwise", array=x.array).contiguous(x.array)


class Relayout(Clone):
    """y = x with its dims laid out in memory in `order` (outermost first), the values and
    shape unchanged: channels_last gives an (N, C, H, W) tensor (N, H, W, C) strides;
    dL/dx = dL/dy."""

    @staticmethod
    def forward(ctx, x, order):
        laid_out = array_module(x.array).ascontiguousarray(x.array.transpose(order))
        return laid_out.transpose(np.argsort(order))


class Cast(Function):
    """y = x converted to `dtype`;  dL/dx = dL/dy converted back to x's dtype."""

    @staticmethod
    def forward(ctx, x, dtype):
        ctx.in_dtype = x.dtype
        return x.array.astype(dtype)

    @staticmethod
    def backward(ctx, grad):
        if ctx.in_dtype.kind != "f":
            return None  # integer inputs have no gradient
        return grad.to(ctx.in_dtype)


class Cat(Function):
    """y = the inputs joined along `dim`;  dL/dx_k = the slice of dL/dy that x_k filled."""

    @staticmethod
    def forward(ctx, *tensors, dim):
        ctx.dim = dim
        ctx.sizes = [t.shape[dim] for t in tensors]
        return np.concatenate([t.array for t in tensors], axis=dim)

    @staticmethod
    def backward(ctx, grad):
        grads, start = [], 0
        for need, size in zip(ctx.needs_input_grad, ctx.sizes):
            index = (slice(None),) * ctx.dim + (slice(start, start + size),)
            grads.append(grad[index] if need else None)
            start += size
        return tuple(grads)


def cat(tensors, dim=0):
    """Concatenate tensors along an existing dim; all other dims must match."""
    tensors = [t if isinstance(t, Tensor) else as_tensor(t) for t in tensors]
    if not tensors:
        raise RuntimeError("cat: expected a non-empty list of tensors")
    ref = tensors[0]
    if ref.ndim == 0:
        raise RuntimeError("cat: zero-dimensional tensors cannot be concatenated")
    d = normalize_dim(dim, ref.ndim, "cat")
    dtype = ref.dtype
    for i, t in enumerate(tensors):
        if (
            t.ndim != ref.ndim
            or t.shape[:d] + t.shape[d + 1 :] != ref.shape[:d] + ref.shape[d + 1 :]
        ):
            raise RuntimeError(
                f"cat: sizes of tensors must match except in dimension {d}; tensor 0 has shape "
                f"{ref.shape} but tensor {i} has shape {t.shape}"
            )
        dtype = result_type(dtype, t.dtype)
    tensors = [t.to(dtype) for t in tensors]
    return Cat.apply(*tensors, dim=d)


def stack(tensors, dim=0):
    """Join same-shaped tensors along a new dim."""
    tensors = [t if isinstance(t, Tensor) else as_tensor(t) for t in tensors]
    if not tensors:
        raise RuntimeError("stack: expected a non-empty list of tensors")
    for i, t in enumerate(tensors):
        if t.shape != tensors[0].shape:
            raise RuntimeError(
                f"stack: expects each tensor to be equal size, but got {tensors[0].shape} at entry "
                f"0 and {t.shape} at entry {i}"
            )
    d = normalize_dim(dim, tensors[0].ndim + 1, "stack")
    return cat([t.unsqueeze(d) for t in tensors], dim=d)


class ConstantPad(Function):
    """y = x surrounded by `value`; `widths` is ((before, after), ...) per dim;
    dL/dx = the centre of dL/dy (the padding's gradient goes nowhere)."""

    @staticmethod
    def forward(ctx, x, widths, value=0.0):
        ctx.centre = tuple(slice(lo, lo + s) for (lo, _), s in zip(widths, x.shape))
        return np.pad(x.array, widths, mode="constant", constant_values=value)

    @staticmethod
    def backward(ctx, grad):
        return grad[ctx.centre]


# ---- torch-level functions: mg.exp(x) is x.exp() ---------------------------------------
# Each takes what torch's function of the same name takes (a list or a number becomes a
# tensor first) and calls the Tensor method, whose Function is above.
def reshape(input, shape):
    """input's elements in a new shape (one size may be -1: inferred); see Tensor.reshape."""
    return as_tensor(input).reshape(shape)


def flatten(input, start_dim=0, end_dim=-1):
    """input with dims start_dim..end_dim merged into one; see Tensor.flatten."""
    return as_tensor(input).flatten(start_dim, end_dim)


def unflatten(input, dim, sizes):
    """input with dim split into dims of the given sizes; see Tensor.unflatten."""
    return as_tensor(input).unflatten(dim, sizes)


def squeeze(input, dim=None):
    """input without its size-1 dims (only those in dim if given); see Tensor.squeeze."""
    return as_tensor(input).squeeze(dim)


def unsqueeze(input, dim):
    """input with a new size-1 dim at position dim; see Tensor.unsqueeze."""
    return as_tensor(input).unsqueeze(dim)


def permute(input, dims):
    """input with its dims reordered: result dim i is input dim dims[i]; see Tensor.permute."""
    return as_tensor(input).permute(dims)


def transpose(input, dim0, dim1):
    """input with dims dim0 and dim1 swapped; see Tensor.transpose."""
    return as_tensor(input).transpose(dim0, dim1)


def repeat(input, *repeats):
    """input tiled repeats[i] times along dim i (torch has only the method); see Tensor.repeat."""
    return as_tensor(input).repeat(*repeats)


def chunk(input, chunks, dim=0):
    """input split into `chunks` nearly equal pieces along dim (a tuple); see Tensor.chunk."""
    return as_tensor(input).chunk(chunks, dim)


def split(tensor, split_size_or_sections, dim=0):
    """tensor split along dim into pieces of one size or of the listed sizes; see Tensor.split."""
    return as_tensor(tensor).split(split_size_or_sections, dim)


def unbind(input, dim=0):
    """The slices of input along dim, as a tuple (dim removed); see Tensor.unbind."""
    return as_tensor(input).unbind(dim)


# ---- grids of coordinates ---------------------------------------------------------------------
def meshgrid(*tensors, indexing=None):
    """Coordinate grids from 1-D tensors: for inputs of lengths (n0, n1, ...), N tensors of
    shape (n0, n1, ...), the i-th holding tensors[i] along dim i and repeated along the
    others (`indexing='ij'`, matrix indexing). `indexing='xy'` (Cartesian) swaps the first
    two dims: the grids are (n1, n0, ...), as NumPy's meshgrid. Without `indexing`, 'ij'
    with PyTorch's warning that the argument will be required. A 0-d input counts as one
    element. The grids are broadcast views (reshape + expand), so each gradient is the
    grid's gradient summed over the dims its input was repeated along.
    Also `meshgrid([a, b])`."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    tensors = [as_tensor(t) for t in tensors]
    if indexing is None:
        warnings.warn(
            "torch.meshgrid: in an upcoming release, it will be required to pass the indexing "
            "argument.",
            UserWarning,
            stacklevel=2,
        )
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(
            f'meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}'
        )
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for i, t in enumerate(tensors):
        if t.ndim > 1:
            raise RuntimeError(
                f"meshgrid: Expected 0D or 1D tensor in the tensor list but got shape {t.shape} at "
                f"{i}"
            )
        if t.dtype != tensors[0].dtype:
            raise RuntimeError(
                f"meshgrid expects all tensors to have the same dtype, got {tensors[0].dtype} and "
                f"{t.dtype}"
            )
    axes = list(range(len(tensors)))  # the dim of the grid that input i runs along
    if indexing == "xy" and len(tensors) > 1:
        axes[0], axes[1] = 1, 0
    shape = [0] * len(tensors)
    for t, axis in zip(tensors, axes):
        shape[axis] = t.numel()
    grids = []
    for t, axis in zip(tensors, axes):
        along = [1] * len(tensors)
        along[axis] = -1
        grids.append(t.reshape(along).expand(shape))
    return tuple(grids)


def cartesian_prod(*tensors):
    """Every combination of one element from each 1-D tensor, one combination per row, in
    the order of nested loops (the last input varies fastest): shape (n0 * n1 * ..., N).
    One input is returned as it is, as in PyTorch."""
    tensors = [as_tensor(t) for t in tensors]
    for t in tensors:
        if t.ndim != 1:
            raise RuntimeError(f"cartesian_prod: Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return stack([g.reshape(-1) for g in grids], dim=1)


# ---- moving, swapping and turning dims (each a permute or a flip) ------------------------------
def movedim(input, source, destination):
    """input with dims `source` moved to positions `destination` (ints or sequences of
    them), the other dims keeping their order; a view (a permute). `moveaxis` is NumPy's
    name for it."""
    x = as_tensor(input)
    sources = tuple(source) if isinstance(source, (tuple, list)) else (source,)
    destinations = tuple(destination) if isinstance(destination, (tuple, list)) else (destination,)
    if len(sources) != len(destinations):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({list(sources)} dims) should "
            f"contain the same number of dims as destination ({list(destinations)} dims)"
        )
    for name, dims in (("source", sources), ("destination", destinations)):
        axes = [normalize_dim(d, x.ndim, "movedim") for d in dims]
        if len(set(axes)) != len(axes):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({list(dims)})")
    sources = [normalize_dim(d, x.ndim, "movedim") for d in sources]
    destinations = [normalize_dim(d, x.ndim, "movedim") for d in destinations]
    order = [d for d in range(x.ndim) if d not in sources]  # the dims that stay, in order
    for dest, src in sorted(zip(destinations, sources)):
        order.insert(dest, src)
    return x.permute(order) if x.ndim else x.view(())


moveaxis = movedim


def swapaxes(input, axis0, axis1):
    """input with two dims swapped: `transpose` under NumPy's name; a view."""
    return as_tensor(input).transpose(axis0, axis1)


swapdims = swapaxes


def t(input):
    """The transpose of a matrix (a 0-d or 1-d input is returned as it is); see Tensor.t."""
    return as_tensor(input).t()


def adjoint(input):
    """The conjugate transpose of each matrix of input (its last two dims swapped: for real
    tensors, `mT`); a view."""
    x = as_tensor(input)
    if x.ndim < 2:
        raise RuntimeError(
            "tensor.adjoint() is only supported on matrices or batches of matrices. Got "
            f"{x.ndim}-D tensor."
        )
    return x.transpose(-2, -1)


def ravel(input):
    """input flattened to 1-D: a view when its memory allows, else a copy (`reshape(-1)`)."""
    return as_tensor(input).reshape(-1)


def tile(input, dims):
    """input repeated `dims[i]` times along dim i; fewer dims than input's count as
    leading 1s (`tile(x, (2,))` repeats the last dim), unlike `repeat`."""
    x = as_tensor(input)
    dims = tuple(int(d) for d in (dims if isinstance(dims, (tuple, list)) else (dims,)))
    return x.repeat((1,) * (x.ndim - len(dims)) + dims)


def rot90(input, k=1, dims=(0, 1)):
    """input rotated by 90 degrees `k` times in the plane of `dims`, from the first dim
    towards the second (a flip and a transpose, so the gradient rotates back)."""
    x = as_tensor(input)
    if len(dims) != 2:
        raise RuntimeError(f"rot90: expected total rotation dims == 2, but got dims = {len(dims)}")
    if x.ndim < 2:
        raise RuntimeError(f"rot90: expected total dims >= 2, but got total dims = {x.ndim}")
    d0, d1 = (normalize_dim(d, x.ndim, "rot90") for d in dims)
    if d0 == d1:
        raise RuntimeError(
            f"rot90: expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}"
        )
    k %= 4
    if k == 1:
        return x.flip(d1).transpose(d0, d1)
    if k == 2:
        return x.flip(d0, d1)
    if k == 3:
        return x.flip(d0).transpose(d0, d1)
    return x.clone()


def fliplr(input):
    """input reversed left to right: along dim 1 (input must have at least 2 dims)."""
    x = as_tensor(input)
    if x.ndim < 2:
        raise RuntimeError(f"fliplr: Input must be >= 2-d, got shape {tuple(x.shape)}.")
    return x.flip(1)


def flipud(input):
    """input reversed upside down: along dim 0 (input must have at least 1 dim)."""
    x = as_tensor(input)
    if x.ndim < 1:
        raise RuntimeError("flipud: Input must be >= 1-d.")
    return x.flip(0)


# ---- broadcasting, as functions ------------------------------------------------------------------
def broadcast_shapes(*shapes):
    """The shape that tensors of `shapes` (ints or sequences of ints) broadcast to, as an
    `mg.Size`, without making any tensor: dims are aligned from the right, and each size
    must equal the others or be 1."""
    shapes = [(s,) if isinstance(s, int) else tuple(int(n) for n in s) for s in shapes]
    try:
        return Size(np.broadcast_shapes(*shapes))
    except ValueError:
        raise RuntimeError(
            f"broadcast_shapes: shapes {', '.join(map(str, shapes))} cannot be broadcast together"
        ) from None


def broadcast_to(input, size):
    """input expanded to `size` (a view, no copy; -1 keeps a size), as `Tensor.expand`."""
    return as_tensor(input).broadcast_to(size)


def broadcast_tensors(*tensors):
    """The tensors expanded to their common broadcast shape (views), as a tuple; each
    gradient sums back over what its tensor was expanded along."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    tensors = [as_tensor(t) for t in tensors]
    try:
        shape = broadcast_shapes(*[t.shape for t in tensors])
    except RuntimeError:
        raise RuntimeError(
            f"broadcast_tensors: shapes {', '.join(str(t.shape) for t in tensors)} cannot be "
            "broadcast together"
        ) from None
    return tuple(expand(t, shape) for t in tensors)


# ---- copies and detached aliases, as functions ---------------------------------------------------
def clone(input, *, memory_format=None):
    """A copy of input with its own memory, recorded in the graph (dL/dx = dL/dy); see
    Tensor.clone."""
    return as_tensor(input).clone()


def detach(input):
    """A new leaf that shares input's storage, cut from the graph; see Tensor.detach."""
    return as_tensor(input).detach()


# ---- combinations --------------------------------------------------------------------------------
def combinations(input, r=2, with_replacement=False):
    """Every combination of `r` elements of the 1-D `input`, one per row, in the order of
    Python's itertools.combinations (or combinations_with_replacement): shape
    (number of combinations, r). The rows are picked by index, so each element's gradient
    is the sum of its copies' gradients."""
    x = as_tensor(input)
    if x.ndim != 1:
        raise RuntimeError(f"combinations: Expect a 1D vector, but got shape {list(x.shape)}")
    if r < 0:
        raise RuntimeError(f"combinations: Expect a non-negative number, but got {r}")
    if r == 0:
        return x.new_empty(0)
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    rows = np.array(list(pick(range(x.shape[0]), r)), dtype=np.int64).reshape(-1, r)
    return x[rows]  # made on the host: a GPU tensor's index is copied over


def split_with_sizes(input, split_sizes, dim=0):
    """input split along dim into views of the listed sizes (which must add up to the dim's
    size); see Tensor.split_with_sizes."""
    return as_tensor(input).split_with_sizes(split_sizes, dim)
