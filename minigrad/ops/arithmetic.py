"""Arithmetic helpers: the fused forms optimizers use (addcmul, addcdiv, lerp), the
NaN-aware maximum and minimum (fmax, fmin), nan_to_num, gcd and lcm, and torch's other
names for negation and subtraction (negative, positive, absolute, rsub).

addcmul, addcdiv and lerp are written with the Tensor operators, so their gradients
come from the ops they are made of (d/dw lerp(a, b, w) = b - a, ...): nothing new to
differentiate, and the second derivative is free.
"""

import numpy as np

from minigrad.array_module import array_module
from minigrad.autograd.function import Function
from minigrad.creation import as_tensor, from_numpy
from minigrad.ops.broadcast import unbroadcast
from minigrad.ops.elementwise import scaled, where
from minigrad.ops.promotion import binary_operands
from minigrad.tensor import Tensor


def _dtype_of(x):
    return x.dtype if isinstance(x, Tensor) else np.asarray(x).dtype


# ---- the fused forms -------------------------------------------------------------------
def _check_value(op, value, *tensors):
    """torch's rules for `value` of addcmul/addcdiv: bool tensors have no kernel, and on
    integer tensors a float value is cut to an integer (torch.addcmul(i, i, i, value=0.5)
    adds 0), as torch casts it to the tensors' dtype."""
    kinds = {_dtype_of(t).kind for t in tensors}
    if kinds == {"b"}:
        raise NotImplementedError(f"{op}: not implemented for bool tensors")
    if "f" not in kinds and isinstance(value, float):
        return int(value)
    return value


def addcmul(input, tensor1, tensor2, *, value=1):
    """input + value * tensor1 * tensor2, elementwise with broadcasting (Adam's update of
    its second moment is `v.addcmul_(g, g, value=1 - beta2)`). Gradients: dL/dinput =
    dL/dz, dL/dtensor1 = dL/dz * value * tensor2, dL/dtensor2 = dL/dz * value * tensor1."""
    input = as_tensor(input)
    value = _check_value("addcmul", value, input, tensor1, tensor2)
    return input + tensor1 * value * tensor2


def addcdiv(input, tensor1, tensor2, *, value=1):
    """input + value * tensor1 / tensor2, elementwise with broadcasting (Adam's step is
    `p.addcdiv_(m, v.sqrt() + eps, value=-lr)`). Two integer tensors to divide raise, as
    in torch. Gradients: dL/dtensor1 = dL/dz * value / tensor2, dL/dtensor2 = -dL/dz *
    value * tensor1 / tensor2^2."""
    input = as_tensor(input)
    if _dtype_of(tensor1).kind in "iub" and _dtype_of(tensor2).kind in "iub":
        raise RuntimeError(
            "addcdiv: Integer division with addcdiv is no longer supported, and in a future "
            "release addcdiv will perform a true division of tensor1 and tensor2. Use "
            f"torch.addcmul(input, tensor1, 1 / tensor2) instead (got {_dtype_of(tensor1)} and "
            f"{_dtype_of(tensor2)})"
        )
    value = _check_value("addcdiv", value, input, tensor1, tensor2)
    return input + tensor1 * value / tensor2


def lerp(input, end, weight):
    """Linear interpolation, input + weight * (end - input), elementwise with broadcasting;
    weight is a number or a tensor. input, end (and a tensor weight) must be one float
    dtype, as in torch. Gradients: dL/dinput = dL/dz * (1 - weight), dL/dend = dL/dz *
    weight, dL/dweight = dL/dz * (end - input).

    As torch, it computes `end - (end - input) * (1 - weight)` where |weight| >= 0.5, so
    that weight = 1 gives `end` exactly (the first form can miss it by a rounding)."""
    input = as_tensor(input)
    for name, t in (("end", end), ("weight", weight)):
        if isinstance(t, Tensor) and t.dtype != input.dtype:
            raise RuntimeError(
                f"lerp: expected dtype {input.dtype} for `{name}` but got dtype {t.dtype}"
            )
    if input.dtype.kind != "f":
        raise NotImplementedError(
            f"lerp: not implemented for {input.dtype} tensors; expected floating point"
        )
    if not isinstance(weight, Tensor):
        if abs(weight) < 0.5:
            return input + weight * (end - input)
        return end - (end - input) * (1.0 - weight)
    small = weight.abs() < 0.5
    return where(small, input + weight * (end - input), end - (end - input) * (1.0 - weight))


# ---- NaN-aware extremes and NaN replacement --------------------------------------------
class Fmax(Function):
    """z = max(a, b), but the other value where one of them is NaN (NaN only if both are);
    the gradient goes to the value taken: to a where a >= b or b is NaN, else to b."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return np.fmax(a.array, b.array)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        takes_a = (a.array >= b.array) | np.isnan(b.array)
        return _to_the_taken(grad, takes_a, a.shape, b.shape, ctx.needs_input_grad)


class Fmin(Function):
    """z = min(a, b), but the other value where one of them is NaN (NaN only if both are);
    the gradient goes to the value taken: to a where a <= b or b is NaN, else to b."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return np.fmin(a.array, b.array)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        takes_a = (a.array <= b.array) | np.isnan(b.array)
        return _to_the_taken(grad, takes_a, a.shape, b.shape, ctx.needs_input_grad)


def _to_the_taken(grad, takes_a, a_shape, b_shape, needs):
    takes_a = from_numpy(takes_a)
    zero = from_numpy(array_module(grad.array).zeros((), dtype=grad.dtype))
    return (
        unbroadcast(where(takes_a, grad, zero), a_shape) if needs[0] else None,
        unbroadcast(where(takes_a, zero, grad), b_shape) if needs[1] else None,
    )


class NanToNum(Function):
    """y = x with NaN, +inf and -inf replaced by the numbers given (by default 0, the
    dtype's largest and its lowest);  dL/dx = dL/dy where x is finite, else 0."""

    @staticmethod
    def forward(ctx, x, nan, posinf, neginf):
        ctx.save_for_backward(x)
        return np.nan_to_num(x.array, nan=nan, posinf=posinf, neginf=neginf)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * from_numpy(np.isfinite(x.array).astype(grad.dtype))


def fmax(input, other):
    """The larger of the two elementwise, ignoring NaN (NaN only where both are); see Fmax
    for the gradient. Broadcasts."""
    a, b = binary_operands(as_tensor(input), other, "fmax")
    return Fmax.apply(a, b)


def fmin(input, other):
    """The smaller of the two elementwise, ignoring NaN (NaN only where both are); see Fmin
    for the gradient. Broadcasts."""
    a, b = binary_operands(as_tensor(input), other, "fmin")
    return Fmin.apply(a, b)


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    """input with NaN replaced by `nan`, +inf by `posinf` and -inf by `neginf` (by default
    the dtype's largest and lowest finite values); integers and bools are returned as a
    copy. dL/dinput = dL/dz where input is finite, else 0."""
    x = as_tensor(input)
    if x.dtype.kind != "f":
        return from_numpy(x.array.copy())
    return NanToNum.apply(x, nan=nan, posinf=posinf, neginf=neginf)


# ---- negation, subtraction, and integers -----------------------------------------------
def neg(input):
    """-input elementwise (bool tensors raise, as in torch); see Tensor.neg."""
    return -as_tensor(input)


negative = neg


def positive(input):
    """input itself (`+input`); bool tensors raise, as in torch."""
    input = as_tensor(input)
    if input.dtype.kind == "b":
        raise RuntimeError("positive: The `+` operator, on a bool tensor is not supported.")
    return input


def absolute(input):
    """|input| elementwise, another name for abs; see Tensor.abs."""
    return as_tensor(input).abs()


def rsub(input, other, *, alpha=1):
    """other - alpha * input: sub with its operands swapped; broadcasts."""
    input = as_tensor(input)
    if input.dtype.kind == "b" or _dtype_of(other).kind == "b":
        raise RuntimeError(
            "rsub: Subtraction, the `-` operator, with a bool tensor is not supported."
        )
    alpha_input = scaled(input, input, alpha, "rsub")
    return other - alpha_input if isinstance(other, Tensor) else alpha_input.__rsub__(other)


def _integers(input, other, op):
    a, b = binary_operands(as_tensor(input), other, op)
    if a.dtype.kind not in "iu":
        raise NotImplementedError(
            f"{op}: not implemented for {a.dtype} tensors; it takes integer tensors"
        )
    return a.array, b.array


def gcd(input, other):
    """The greatest common divisor elementwise (non-negative; gcd(0, 0) = 0); integer
    tensors; broadcasts."""
    return from_numpy(np.gcd(*_integers(input, other, "gcd")))


def lcm(input, other):
    """The least common multiple elementwise (non-negative; 0 if either is 0); integer
    tensors; broadcasts."""
    return from_numpy(np.lcm(*_integers(input, other, "lcm")))
