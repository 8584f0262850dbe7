"""Closeness and logical reductions: questions about values, answered without gradients.

`isclose(a, b)` asks |a - b| <= atol + rtol * |b| elementwise (not symmetric in a and b,
as in NumPy and PyTorch); `allclose` asks it of every element; `equal` asks for the same
shape and exactly the same values. `all` and `any` reduce truth values over dims.
"""

import numpy as np

from minigrad._args import normalize_dims
from minigrad.array_module import array_module
from minigrad.creation import as_tensor, from_numpy
from minigrad.ops.out import write_out
from minigrad.tensor import Tensor


def _pair(input, other, op):
    """Both operands as arrays; two tensors must share a dtype, as in PyTorch."""
    a = as_tensor(input)
    if isinstance(other, Tensor):
        if other.dtype != a.dtype:
            raise RuntimeError(
                f"{op}: expected both inputs to have the same dtype, got {a.dtype} and "
                f"{other.dtype}"
            )
        b = other.array
    elif isinstance(other, (int, float, bool)):
        b = np.asarray(other)[()]  # a NumPy scalar: it mixes with host and GPU arrays alike
    else:
        b = array_module(a.array).asarray(other)
    try:
        np.broadcast_shapes(a.shape, np.shape(b))
    except ValueError:
        raise RuntimeError(f"{op}: shapes {a.shape} and {np.shape(b)} do not broadcast") from None
    return a.array, b


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|input - other| <= atol + rtol * |other| elementwise (a bool tensor); equal
    infinities are close, NaN is close to NaN only with equal_nan=True."""
    a, b = _pair(input, other, "isclose")
    return from_numpy(np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """True if every element of input is close to other's (see `isclose`): a Python bool."""
    a, b = _pair(input, other, "allclose")
    return bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


def equal(input, other):
    """True if both tensors have the same shape and the same values: a Python bool."""
    a, b = as_tensor(input), as_tensor(other)
    return a.shape == b.shape and bool(np.array_equal(a.array, b.array))


def _truth_reduction(fn, name, input, dim, keepdim, out):
    x = as_tensor(input)
    result = fn(x.array, axis=normalize_dims(dim, x.ndim, name), keepdims=keepdim)
    result = array_module(x.array).asarray(result)  # a 0-d result: an array
    if x.dtype == np.uint8:  # uint8 in, uint8 out: PyTorch keeps that old convention
        result = result.astype(np.uint8)
    y = from_numpy(result)
    return y if out is None else write_out(out, y, name)


def all(input, dim=None, keepdim=False, *, out=None):  # noqa: A001  (torch.all)
    """True where every element over `dim` (an int, a tuple, or None for all) is non-zero."""
    return _truth_reduction(np.all, "all", input, dim, keepdim, out)


def any(input, dim=None, keepdim=False, *, out=None):  # noqa: A001  (torch.any)
    """True where some element over `dim` (an int, a tuple, or None for all) is non-zero."""
    return _truth_reduction(np.any, "any", input, dim, keepdim, out)


# ---- torch-level functions: mg.exp(x) is x.exp() ---------------------------------------
# Each takes what torch's function of the same name takes (a list or a number becomes a
# tensor first) and calls the Tensor method.
def isnan(input):
    """True where an element is NaN; see Tensor.isnan."""
    return as_tensor(input).isnan()


def isinf(input):
    """True where an element is +inf or -inf; see Tensor.isinf."""
    return as_tensor(input).isinf()


def isfinite(input):
    """True where an element is neither NaN nor infinite; see Tensor.isfinite."""
    return as_tensor(input).isfinite()
