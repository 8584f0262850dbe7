"""One Adam / AdamW step on one parameter in a single compiled pass over host arrays (the
reference, with the formulas: kernels/reference/adamw.py).

    g ← −g (maximize);  θ ← θ (1 − lr λ) (AdamW)  or  g ← g + λ θ (Adam, L2)
    m ← m + (1 − β1)(g − m),    v ← β2 v + (1 − β2) g²,    v ← max(v_max, v) (amsgrad)
    θ ← θ − (lr / (1 − β1^t)) · m / (√v / √(1 − β2^t) + eps)

Written with NumPy, the step is about ten passes over the parameter's size (each reads
and writes whole arrays); here each element of θ, g, m and v is read once and θ, m, v
written once, with the same operations in the same order, rounded to the parameter's
dtype at each step as NumPy rounds them: the result is the reference's, to the last bit
(no fastmath here, so no fused multiply-adds either).

Below MIN_KERNEL elements the reference runs (there the compiled call's fixed cost is
most of the work); from MIN_PARALLEL on, the elements are cut into one block per thread
(kernels/cpu/workers.py: the task is an element, and `_steps` takes a block's range);
in between, one core does the whole pass: on two cores the memory, not the arithmetic,
sets the pace, and waking a second thread costs more than it saves.
benchmarks/bench_adamw_rotary.py measures the three ways (benchmarks/RESULTS.md).
"""

import math

import numpy as np

from minigrad.kernels.cpu import workers
from minigrad.kernels.jit import njit
from minigrad.kernels.reference import adamw as reference

MIN_KERNEL = 16  # elements; fewer: the reference
MIN_PARALLEL = 1 << 20  # elements; fewer: one core


# error_model="numpy": a division by zero gives inf or NaN, as NumPy's does, instead of
# raising, so no test of each divisor stops the loop from being vectorised
@njit(nogil=True, cache=True, error_model="numpy")
def _steps(p, g, m, v, max_v, c, l2, start, stop):
    """Step elements start .. stop - 1 of the 1-d arrays; c holds the scalars (`_scalars`),
    l2 is Adam's L2 weight, None without it (AdamW): Numba then compiles the loop without
    that line (a test inside the loop, even of a constant, kept it from being vectorised)."""
    # read into local variables before the loop: then LLVM knows that no write to θ, m or
    # v changes them, and vectorises the loop
    sign, decay = c[0], c[1]
    c1, b2, c2 = c[3], c[4], c[5]
    root2, eps, step_size = c[6], c[7], c[8]
    # unsigned indices: with a signed one Numba adds a test for a negative index (counted
    # from the end) to each access, which keeps the loop from being vectorised
    for i in range(np.uint64(start), np.uint64(stop)):
        gi = g[i] * sign  # -g to maximize
        pi = p[i] * decay  # AdamW's decay
        if l2 is not None:
            gi = gi + l2 * pi  # Adam's L2 gradient (decay is then 1: pi is θ)
        mi = m[i] + (gi - m[i]) * c1
        vi = v[i] * b2 + (gi * gi) * c2
        m[i] = mi
        v[i] = vi
        if max_v is not None:
            # amsgrad: the larger of the two, NaN if either is (np.maximum's rule)
            if vi > max_v[i] or vi != vi:
                max_v[i] = vi
            vi = max_v[i]
        p[i] = pi - (mi / (math.sqrt(vi) / root2 + eps)) * step_size


def _scalars(dtype, step, lr, beta1, beta2, eps, weight_decay, decoupled, maximize):
    """The step's scalars, rounded to the arrays' dtype (so that float32 stays float32, and
    as NumPy rounds a Python float against an array): the sign of the gradient (-1 to
    maximize), the decoupled decay factor 1 − lr λ (1 without it), the L2 weight λ (0
    without it; the kernels take it as None or a number), 1 − β1, β2, 1 − β2,
    √(1 − β2^t), eps and lr / (1 − β1^t). Multiplying by 1 or -1 is exact: the loop
    needs no branch for them."""
    decay = 1 - lr * weight_decay if decoupled else 1.0
    l2 = 0.0 if decoupled else weight_decay
    root2, step_size = (1 - beta2**step) ** 0.5, lr / (1 - beta1**step)
    sign = -1.0 if maximize else 1.0
    c = [sign, decay, l2, 1 - beta1, beta2, 1 - beta2, root2, eps, step_size]
    return np.array(c, dtype=dtype)


_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _flat(array, like):
    """A 1-d view of `array` if it is a C-contiguous NumPy array of like's shape and dtype,
    else None."""
    if (
        type(array) is np.ndarray
        and array.dtype == like.dtype
        and array.shape == like.shape
        and array.flags.c_contiguous
    ):
        return array.reshape(-1)
    return None


def adam_step(
    param, grad, m, v, max_v, step, lr, beta1, beta2, eps, weight_decay, decoupled, maximize
):
    """Update the arrays param, m, v (and max_v, None without amsgrad) in place for step
    `step` (1, 2, ...) with gradient `grad`; `decoupled` chooses AdamW's weight decay."""
    flats = None
    if param.size >= MIN_KERNEL and param.dtype in _FLOATS:
        flats = [_flat(a, param) for a in (param, grad, m, v)]
        flats.append(None if max_v is None else _flat(max_v, param))
        if any(f is None for f in flats[:4]) or (max_v is not None and flats[4] is None):
            flats = None
    if flats is None:  # small, another dtype, or strided: the NumPy passes
        return reference.adam_step(
            param,
            grad,
            m,
            v,
            max_v,
            step,
            lr,
            beta1,
            beta2,
            eps,
            weight_decay,
            decoupled,
            maximize,
        )
    c = _scalars(param.dtype, step, lr, beta1, beta2, eps, weight_decay, decoupled, maximize)
    l2 = None if c[2] == 0 else c[2]
    # task i: element i, the elements cut into one block per thread from MIN_PARALLEL on
    workers.run(_steps, param.size, *flats, c, l2, split=param.size >= MIN_PARALLEL)
