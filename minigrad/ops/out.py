"""The `out=` argument: put a result into a tensor the caller already has.

`mg.add(a, b, out=c)` computes `a + b` as usual and then copies it into `c`'s storage,
so `c` keeps its identity and everything that shares its storage sees the new values.
The rules are PyTorch's:

- the result must be castable to `out`'s dtype (a float result cannot go into an
  integer tensor, a number cannot go into a bool tensor);
- an `out` of the wrong shape is resized (with a warning unless it was empty);
- autograd does not record such a call: a tensor whose storage is overwritten has
  no gradient history to give, so an input or `out` that requires grad is an error.
"""

import warnings

import numpy as np

from minigrad.array_module import array_module
from minigrad.autograd import grad_mode
from minigrad.tensor import Tensor


def can_cast(from_dtype, to_dtype):
    """PyTorch's `can_cast` for results: no float into an integer or bool, no number into bool."""
    from_kind, to_kind = np.dtype(from_dtype).kind, np.dtype(to_dtype).kind
    if from_kind == "f" and to_kind in "iub":
        return False
    return not (from_kind in "iuf" and to_kind == "b")


def check_cast(result_dtype, out_dtype, op):
    if not can_cast(result_dtype, out_dtype):
        raise RuntimeError(
            f"{op}: result type {result_dtype} can't be cast to the desired output type {out_dtype}"
        )


def write_out(out, result, op):
    """Copy `result` into `out` (resizing it if needed) and return `out`.

    `result` is a Tensor, or a tuple of Tensors for ops with several outputs (sort,
    topk), in which case `out` is a tuple of the same length.
    """
    if isinstance(result, tuple):
        if not isinstance(out, (tuple, list)) or len(out) != len(result):
            raise TypeError(f"{op}: out must be a tuple of {len(result)} tensors, got {out!r}")
        written = [write_out(o, r, op) for o, r in zip(out, result)]
        return tuple(written) if type(result) is tuple else type(result)(*written)
    if not isinstance(out, Tensor):
        raise TypeError(f"{op}: out must be a Tensor, got {type(out).__name__}")
    if grad_mode.is_grad_enabled() and (result.requires_grad or out.requires_grad):
        raise RuntimeError(
            f"{op}(): functions with out=... arguments don't support automatic differentiation, "
            "but one of the arguments requires grad."
        )
    check_cast(result.dtype, out.dtype, op)
    if out.shape != result.shape:
        if out.numel() != 0:
            warnings.warn(
                f"{op}: an output with shape {out.shape} was resized to {result.shape}; pass an "
                "empty tensor (or one of the right shape) as out to avoid this warning",
                UserWarning,
                stacklevel=3,
            )
        out.array = array_module(out.array).empty(result.shape, dtype=out.dtype)
    np.copyto(out.array, result.array, casting="unsafe")
    out._version_counter().value += 1
    return out
