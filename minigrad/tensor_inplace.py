"""Tensor's in-place methods: `add_`, `mul_`, `copy_`, `fill_`, `index_add_`, `t += u`, ...
(the in-place elementwise math, `exp_`, `clamp_` and the like, is in tensor_inplace_math.py,
and the random fills, `normal_` and the like, in tensor_random.py).

Each writes an op's result into this tensor's own storage and returns self. On a
tensor autograd has seen, or with an operand that requires grad, the write is
recorded in the graph as PyTorch records it (autograd/inplace.py); otherwise it is
a plain write. Either way the version counter moves on, so a backward that saved
the old values notices. A leaf that requires grad (a parameter) refuses, except
under `mg.no_grad()`: the optimizer's update.

`Tensor` inherits them (tensor.py).
"""

import math

import numpy as np

from minigrad.array_module import array_module
from minigrad.cuda import runtime as _runtime

# Bound by tensor.py once they exist: the Tensor class, and the autograd and ops packages
# that import it (the one break in the import circle is at the bottom of tensor.py).
Tensor = autograd = ops = None


class InplaceMethods:
    """The mixin Tensor inherits these methods from (see the module docstring)."""

    __slots__ = ()

    def _inplace(self, op, compute, operands=(), write=None):
        """self <- compute(self), the out-of-place op's result. `write()`, when given, is
        the plain write without a temporary (a ufunc with out=), used when nothing is
        recorded."""
        if self._inference and not autograd.grad_mode.is_inference_mode_enabled():
            raise RuntimeError(
                f"{op}: Inplace update to inference tensor outside InferenceMode is not allowed. "
                "You can make a clone to get a normal tensor before doing inplace update."
            )
        if not _writeable(self.array):
            raise RuntimeError(
                f"{op}: unsupported operation: more than one element of the written-to tensor "
                "refers to a single memory location (a read-only or expanded tensor of shape "
                f"{self.shape}). "
                "Please clone() the tensor before performing the operation."
            )
        if autograd.inplace.is_recorded(op, self, operands):
            return autograd.inplace.record(self, lambda t: self._checked(op, compute(t)))
        if write is not None:
            write()
        else:
            np.copyto(self.array, self._checked(op, compute(self)).array, casting="unsafe")
        self._version_counter().value += 1
        return self

    def _checked(self, op, result):
        """The result of an in-place op, checked as PyTorch does: it must keep self's
        shape (an operand may broadcast, not grow it) and cast to self's dtype."""
        result = result if isinstance(result, Tensor) else Tensor._make(_as_array(result))
        self._check_shape(op, result.shape)
        ops.out.check_cast(result.dtype, self.dtype, op)
        return result

    def _check_shape(self, op, shape):
        """An operand of `shape` must broadcast to self's shape, not grow it."""
        if shape == self.shape:
            return
        try:
            out = np.broadcast_shapes(self.shape, shape)
        except ValueError:
            out = None
        if out != self.shape:
            got = f"the broadcast shape {out}" if out else f"an operand of shape {shape}"
            raise RuntimeError(f"{op}: output with shape {self.shape} doesn't match {got}")

    def _ufunc_(self, op, ufunc, other):
        """The plain write of add_/sub_/mul_/div_: straight into the storage, checked."""
        if _runtime.in_use and isinstance(other, Tensor) and other.device != self.device:
            # torch's rule: a 0-d CPU tensor is a number to a CUDA tensor; other mixes raise
            other = autograd.function._same_device(op, (self, other))[1]
        other = other.array if isinstance(other, Tensor) else other
        self._check_shape(op, np.shape(other) if not hasattr(other, "shape") else other.shape)
        # dtypes, not arrays, go to result_type (same answer; a GPU array is not NumPy's)
        operand = 1.0 if op == "div_" else getattr(other, "dtype", other)  # div_ is true division
        result_type = np.result_type(self.dtype, operand)
        ops.out.check_cast(result_type, self.dtype, op)
        return lambda: ufunc(self.array, other, out=self.array, casting="unsafe")

    def add_(self, other, *, alpha=1):
        """`self += alpha * other`, in place; returns self."""
        other = ops.elementwise.scaled(self, other, alpha, "add_")
        return self._inplace(
            "add_", lambda t: t + other, (other,), self._ufunc_("add_", np.add, other)
        )

    def sub_(self, other, *, alpha=1):
        """`self -= alpha * other`, in place; returns self."""
        other = ops.elementwise.scaled(self, other, alpha, "sub_")
        return self._inplace(
            "sub_", lambda t: t - other, (other,), self._ufunc_("sub_", np.subtract, other)
        )

    def mul_(self, other):
        """`self *= other`, in place; returns self."""
        return self._inplace(
            "mul_", lambda t: t * other, (other,), self._ufunc_("mul_", np.multiply, other)
        )

    def div_(self, other, *, rounding_mode=None):
        """`self /= other` (with `rounding_mode` 'trunc' or 'floor', an integer division), in
        place; returns self."""
        if rounding_mode is not None:
            return self._inplace(
                "div_", lambda t: t.div(other, rounding_mode=rounding_mode), (other,)
            )
        return self._inplace(
            "div_", lambda t: t / other, (other,), self._ufunc_("div_", np.divide, other)
        )

    def pow_(self, exponent):
        """`self = self ** exponent`, in place; returns self."""
        return self._inplace("pow_", lambda t: t**exponent, (exponent,))

    def __iadd__(self, other):
        return self.add_(other)

    def __isub__(self, other):
        return self.sub_(other)

    def __imul__(self, other):
        return self.mul_(other)

    def __itruediv__(self, other):
        return self.div_(other)

    def copy_(self, src, non_blocking=False):
        """Copy src's values (broadcast to self's shape, cast to self's dtype) into self;
        the gradient flows to src. `src` may be on the other device: its values are copied
        between host and GPU memory (a differentiable move, as `to`), as torch's copy_."""
        src = src if isinstance(src, Tensor) else Tensor._from_data(src, self.dtype)
        if _runtime.in_use and src.device != self.device:  # (no CUDA tensor yet: all on the CPU)
            src = src.to(self.device)
        self._check_shape("copy_", src.shape)
        write = lambda: np.copyto(self.array, src.array, casting="unsafe")  # noqa: E731
        return self._inplace(
            "copy_", lambda t: _replaced(t, src.expand(t.shape).to(t.dtype)), (src,), write
        )

    def fill_(self, value):
        """Set every element to `value` (a number or a 0-d tensor), in place; returns self.
        A 0-d tensor on the other device is read as a number, as torch does (one that
        requires grad is moved over, so that its gradient reaches it)."""
        if isinstance(value, Tensor) and value.ndim != 0:
            raise RuntimeError(
                f"fill_ only supports 0-dimension value tensor but got tensor with {value.ndim} "
                "dimensions."
            )
        if isinstance(value, Tensor) and value.device != self.device:
            value = value.to(self.device) if value.requires_grad else value.item()

        def write():
            if isinstance(value, Tensor):  # a 0-d array on self's device: no trip to the host
                np.copyto(self.array, value.array, casting="unsafe")
            else:
                self.array.fill(value)

        return self._inplace("fill_", lambda t: _replaced(t, value), (value,), write)

    def zero_(self):
        """Set every element to 0, in place; returns self."""
        return self.fill_(0)

    def clamp_(self, min=None, max=None):
        """Limit the values to [min, max], in place; returns self."""
        return self._inplace("clamp_", lambda t: t.clamp(min, max), (min, max))

    clip_ = clamp_

    def clamp_min_(self, min):
        """Limit the values from below: `clamp_(min=min)`."""
        return self.clamp_(min=min)

    def clamp_max_(self, max):
        """Limit the values from above: `clamp_(max=max)`."""
        return self.clamp_(max=max)

    # torch's other names for the in-place arithmetic
    subtract_, multiply_, divide_, true_divide_ = sub_, mul_, div_, div_

    # the in-place comparisons: self <- 1 where the comparison holds, else 0, in self's dtype
    def eq_(self, other):
        """self == other as 1 or 0 in self's dtype, in place; returns self."""
        return self._inplace(
            "eq_", lambda t: ops.compare.compared_in(t, other, np.equal, "eq_"), (other,)
        )

    def ne_(self, other):
        """self != other as 1 or 0 in self's dtype, in place; returns self."""
        return self._inplace(
            "ne_", lambda t: ops.compare.compared_in(t, other, np.not_equal, "ne_"), (other,)
        )

    def lt_(self, other):
        """self < other as 1 or 0 in self's dtype, in place; returns self."""
        return self._inplace(
            "lt_", lambda t: ops.compare.compared_in(t, other, np.less, "lt_"), (other,)
        )

    def le_(self, other):
        """self <= other as 1 or 0 in self's dtype, in place; returns self."""
        return self._inplace(
            "le_", lambda t: ops.compare.compared_in(t, other, np.less_equal, "le_"), (other,)
        )

    def gt_(self, other):
        """self > other as 1 or 0 in self's dtype, in place; returns self."""
        return self._inplace(
            "gt_", lambda t: ops.compare.compared_in(t, other, np.greater, "gt_"), (other,)
        )

    def ge_(self, other):
        """self >= other as 1 or 0 in self's dtype, in place; returns self."""
        return self._inplace(
            "ge_", lambda t: ops.compare.compared_in(t, other, np.greater_equal, "ge_"), (other,)
        )

    greater_, greater_equal_, less_, less_equal_, not_equal_ = gt_, ge_, lt_, le_, ne_

    # the in-place logic and bits: the result, a bool or integer tensor, cast to self's dtype
    def logical_and_(self, other):
        """logical_and(self, other) as 1 or 0 in self's dtype, in place; returns self."""
        return self._inplace("logical_and_", lambda t: t.logical_and(other))

    def logical_or_(self, other):
        """logical_or(self, other) as 1 or 0 in self's dtype, in place; returns self."""
        return self._inplace("logical_or_", lambda t: t.logical_or(other))

    def logical_xor_(self, other):
        """logical_xor(self, other) as 1 or 0 in self's dtype, in place; returns self."""
        return self._inplace("logical_xor_", lambda t: t.logical_xor(other))

    def logical_not_(self):
        """logical_not as 1 or 0 in self's dtype, in place; returns self."""
        return self._inplace("logical_not_", Tensor.logical_not)

    def bitwise_and_(self, other):
        """self &= other; returns self."""
        return self._inplace("bitwise_and_", lambda t: t.bitwise_and(other))

    def bitwise_or_(self, other):
        """self |= other; returns self."""
        return self._inplace("bitwise_or_", lambda t: t.bitwise_or(other))

    def bitwise_xor_(self, other):
        """self ^= other; returns self."""
        return self._inplace("bitwise_xor_", lambda t: t.bitwise_xor(other))

    def bitwise_not_(self):
        """self = ~self; returns self."""
        return self._inplace("bitwise_not_", Tensor.bitwise_not)

    def bitwise_left_shift_(self, other):
        """self <<= other; returns self."""
        return self._inplace("bitwise_left_shift_", lambda t: t.bitwise_left_shift(other))

    def bitwise_right_shift_(self, other):
        """self >>= other; returns self."""
        return self._inplace("bitwise_right_shift_", lambda t: t.bitwise_right_shift(other))

    def __iand__(self, other):
        return self.bitwise_and_(other)

    def __ior__(self, other):
        return self.bitwise_or_(other)

    def __ixor__(self, other):
        return self.bitwise_xor_(other)

    def __ilshift__(self, other):
        return self.bitwise_left_shift_(other)

    def __irshift__(self, other):
        return self.bitwise_right_shift_(other)

    def __ipow__(self, exponent):
        return self.pow_(exponent)

    def __imod__(self, other):
        return self.remainder_(other)

    def __ifloordiv__(self, other):
        return self.floor_divide_(other)

    def masked_fill_(self, mask, value):
        """Set the elements where `mask` (a bool tensor, broadcast) is True to `value`, in
        place; returns self."""
        return self._inplace(
            "masked_fill_", lambda t: ops.index.masked_fill(t, mask, value), (value,)
        )

    def index_fill_(self, dim, index, value):
        """Set the slices `index` along `dim` to `value`, in place; returns self."""
        return self._inplace(
            "index_fill_", lambda t: ops.index.index_fill(t, dim, index, value), (value,)
        )

    def scatter_(self, dim, index, src=None, *, value=None, reduce=None):
        """scatter, in place: write `src` (or `value`) at `index` along `dim`; returns self."""

        def compute(t):
            return ops.index.scatter(t, dim, index, src, value=value, reduce=reduce)

        return self._inplace("scatter_", compute, (src,))

    def scatter_add_(self, dim, index, src):
        """scatter_add, in place: add `src` at `index` along `dim`; returns self."""
        return self._inplace(
            "scatter_add_", lambda t: ops.index.scatter_add(t, dim, index, src), (src,)
        )

    def addmm_(self, mat1, mat2, *, beta=1, alpha=1):
        """addmm, in place: self = beta * self + alpha * (mat1 @ mat2); returns self."""

        def compute(t):
            return ops.linalg.addmm(t, mat1, mat2, beta=beta, alpha=alpha)

        return self._inplace("addmm_", compute, (mat1, mat2))

    def addmv_(self, mat, vec, *, beta=1, alpha=1):
        """addmv, in place: self = beta * self + alpha * (mat @ vec); returns self."""

        def compute(t):
            return ops.linalg.addmv(t, mat, vec, beta=beta, alpha=alpha)

        return self._inplace("addmv_", compute, (mat, vec))

    def addr_(self, vec1, vec2, *, beta=1, alpha=1):
        """addr, in place: self = beta * self + alpha * outer(vec1, vec2); returns self."""

        def compute(t):
            return ops.linalg.addr(t, vec1, vec2, beta=beta, alpha=alpha)

        return self._inplace("addr_", compute, (vec1, vec2))

    def addbmm_(self, batch1, batch2, *, beta=1, alpha=1):
        """addbmm, in place: self = beta * self + alpha * sum_b batch1[b] @ batch2[b]; returns
        self."""

        def compute(t):
            return ops.linalg.addbmm(t, batch1, batch2, beta=beta, alpha=alpha)

        return self._inplace("addbmm_", compute, (batch1, batch2))

    def baddbmm_(self, batch1, batch2, *, beta=1, alpha=1):
        """baddbmm, in place: self = beta * self + alpha * (batch1 @ batch2); returns self."""

        def compute(t):
            return ops.linalg.baddbmm(t, batch1, batch2, beta=beta, alpha=alpha)

        return self._inplace("baddbmm_", compute, (batch1, batch2))

    def renorm_(self, p, dim, maxnorm):
        """renorm, in place: the slices along `dim` scaled down to p-norm at most `maxnorm`;
        returns self."""
        return self._inplace("renorm_", lambda t: ops.norms.renorm(t, p, dim, maxnorm))

    def tril_(self, diagonal=0):
        """tril, in place: zero the elements above the `diagonal`-th diagonal; returns self."""
        return self._inplace("tril_", lambda t: t.tril(diagonal))

    def triu_(self, diagonal=0):
        """triu, in place: zero the elements below the `diagonal`-th diagonal; returns self."""
        return self._inplace("triu_", lambda t: t.triu(diagonal))

    def index_add_(self, dim, index, source, *, alpha=1):
        """index_add, in place: add `alpha * source` at the slices `index` along `dim`; returns
        self."""

        def compute(t):
            return ops.index_write.index_add(t, dim, index, source, alpha=alpha)

        return self._inplace("index_add_", compute, (source,))

    def index_copy_(self, dim, index, source):
        """index_copy, in place: replace the slices `index` along `dim` by source's; returns
        self."""
        return self._inplace(
            "index_copy_", lambda t: ops.index_write.index_copy(t, dim, index, source), (source,)
        )

    def index_put_(self, indices, values, accumulate=False):
        """index_put, in place: write (or add) `values` at `self[indices]`; returns self."""

        def compute(t):
            return ops.index_write.index_put(t, indices, values, accumulate)

        return self._inplace("index_put_", compute, (values,))

    def put_(self, index, source, accumulate=False):
        """put, in place: write (or add) `source` at the flat positions `index`; returns self."""
        return self._inplace(
            "put_", lambda t: ops.index_write.put(t, index, source, accumulate), (source,)
        )

    def masked_scatter_(self, mask, source):
        """masked_scatter, in place: fill the masked places in order from `source`; returns self."""
        return self._inplace(
            "masked_scatter_", lambda t: ops.index_write.masked_scatter(t, mask, source), (source,)
        )

    def scatter_reduce_(self, dim, index, src, reduce, *, include_self=True):
        """scatter_reduce, in place: reduce `src` into the places `index` names; returns self."""

        def compute(t):
            return ops.scatter_reduce.scatter_reduce(
                t, dim, index, src, reduce, include_self=include_self
            )

        return self._inplace("scatter_reduce_", compute, (src,))

    def index_reduce_(self, dim, index, source, reduce, *, include_self=True):
        """index_reduce, in place: reduce source's slices into the slices `index`; returns self."""

        def compute(t):
            return ops.scatter_reduce.index_reduce(
                t, dim, index, source, reduce, include_self=include_self
            )

        return self._inplace("index_reduce_", compute, (source,))

    def fill_diagonal_(self, fill_value, wrap=False):
        """Set the main diagonal (the elements whose indices are all equal) to `fill_value`, in
        place; returns self. A 2-D tensor may be any shape; with more dims all must be equal.
        With `wrap=True`, a tall matrix's diagonal starts again below a row left out, every
        columns + 1 rows, as NumPy's fill_diagonal."""
        if self.ndim < 2:
            raise RuntimeError(
                f"fill_diagonal_: dimensions must larger than 1, got shape {tuple(self.shape)}"
            )
        if self.ndim > 2 and len(set(self.shape)) != 1:
            raise RuntimeError(
                "fill_diagonal_: all dimensions of input must be of equal length, got "
                f"{tuple(self.shape)}"
            )
        xp = array_module(self.array)  # the mask is made where the tensor lives
        on_diagonal = xp.zeros(self.shape, dtype=bool)
        # in the flat storage the diagonal is every (1 + n + n^2 + ...)-th element; a 2-D
        # matrix's ends after its last column unless it wraps (NumPy's fill_diagonal, whose
        # CuPy twin copies the value to the GPU first)
        step = 1 + sum(math.prod(self.shape[k + 1 :]) for k in range(self.ndim - 1))
        end = self.shape[1] ** 2 if self.ndim == 2 and not wrap else None
        on_diagonal.reshape(-1)[:end:step] = True
        mask = Tensor._make(on_diagonal)
        return self._inplace("fill_diagonal_", lambda t: ops.index.masked_fill(t, mask, fill_value))


def _data(x):
    return x.array if isinstance(x, Tensor) else x


def _replaced(t, values):
    """`values` (a Tensor, an array on t's device or a number, broadcast) in place of all
    of t: the result of fill_, copy_ and the random fills. In the graph t's gradient is 0
    there (and a Tensor `values` gets the gradient), as PyTorch records those ops."""
    xp = array_module(t.array)  # NumPy, or CuPy for a CUDA tensor: the arrays are made there
    everywhere = Tensor._make(xp.ones(t.shape, dtype=bool))
    if isinstance(values, Tensor):
        values = values if values.dtype == t.dtype else values.to(t.dtype)
    elif hasattr(values, "shape") and not isinstance(values, np.generic):  # an array of samples
        values = Tensor._make(values.astype(t.dtype, copy=False))
    else:  # a number: made on the device by a fill, not copied there from the host
        values = Tensor._make(xp.full((), values, dtype=t.dtype))
    return ops.elementwise.Where.apply(everywhere, values, t)


def _as_array(result):
    """An op's raw result as an array: a NumPy scalar (what NumPy gives for 0-d results)
    becomes a 0-d array; arrays, NumPy's or CuPy's, are returned as they are."""
    if isinstance(result, np.generic) or not hasattr(result, "shape"):
        return np.asarray(result)
    return result


def _writeable(array):
    """Whether writing into `array` changes each of its elements alone. NumPy marks the
    arrays that may not be written (read-only, or expanded: several elements on one
    memory location) in `flags.writeable`; CuPy has no such flag, so for its arrays an
    expanded one is told by a stride of 0 along a dimension of more than one element."""
    if isinstance(array, np.ndarray):
        return array.flags.writeable
    return not any(step == 0 and n > 1 for step, n in zip(array.strides, array.shape))
