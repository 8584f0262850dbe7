"""The vector math of the CPU kernels, in one place: e^x for x <= 0, erf, and the check
for NaN and infinity. Attention, GELU and erf all use these; there is one copy of each.

Why write e^x and erf out at all: Numba's own `np.exp` and `math.erf` call the C library
once per number, which no compiler can turn into vector instructions. A polynomial, a
division and a few bit operations can be: 8 float32 numbers per AVX2 instruction.

**e^t for t <= 0** (softmax's exp after subtracting the row's max; GELU's density
e^(-x^2/2)): e^t = 2^n e^r with n = round(t / ln 2) and r = t - n ln 2 in [-0.35, 0.35].
e^r is its Taylor series, in Horner's form, highest power first; 2^n is built directly
as the bits of a float, whose exponent field holds n + bias. Below `lowest` e^t is not a
normal float and counts as 0 (and so does e^NaN: the callers deal with NaN rows).

- `exp_nonpositive(x, consts, scratch)`: in place over an array, any float dtype, to
  r^12 (error below 1e-16 relative). Three plain loops, each of which vectorises.
- `exp_nonpositive32(t)`: one float32 number, to r^7 (error below 1e-8 relative, under
  float32's 6e-8): the last eight terms of the same series. Called from inside a loop
  (GELU's), where LLVM inlines it, so the loop still vectorises.

**erf** (GELU, the normal CDF): the rational function of Eigen and XLA
(`generic_fast_erf`), erf(x) ~ x P(x^2) / Q(x^2) on [-4, 4]; past 4, erf(x) is 1 to
float32 precision. `erf_rational` evaluates it in float64 (for a float32 erf: within 2
units in the last place of float32), `erf_rational32` in float32 (GELU's float32 loop).

**Finite**: `all_finite` (compiled, inside a kernel) and `all_finite_arrays` (from
Python) say whether arrays hold no NaN and no infinity, by their sum: a sum is NaN or
Inf when a term is, and needs no temporary array. A sum of finite numbers that
overflows says False too, which only costs the callers a shortcut, never correctness.

Numba's cache: a kernel that calls these has them compiled into it, and its cache is
checked against its own file only: after editing this file, delete the callers' entries
in ``__pycache__`` (or touch their files).
"""

import functools
import math

import numpy as np

from minigrad.kernels.cpu import workers
from minigrad.kernels.jit import FASTMATH, njit
from minigrad.kernels.reference.special import ERF_P, ERF_Q

# --8<-- [start:exp_nonpositive]
# exp(r) for |r| <= ln(2)/2 by its Taylor series to r^12 (error below 1e-16 relative),
# in Horner's form: 1 + r (1 + r/2 (1 + r/3 (... (1 + r/12)))), highest power first.
TAYLOR = tuple(1.0 / math.factorial(i) for i in range(12, -1, -1))
LOG2E = 1.4426950408889634  # 1 / ln 2
LN2_HI, LN2_LO = 0.693145751953125, 1.4286068203094173e-06  # ln 2 = HI + LO; n * HI is exact
LOWEST32, LOWEST64 = -87.3, -708.3  # below these, e^t is not a normal float32 / float64


@njit(cache=True)
def exp_constants(like):
    """The numbers exp_nonpositive needs, in the dtype of the array `like`: Numba would
    compute in float64 with Python float constants, at half the vector width."""
    c = np.empty(3 + len(TAYLOR), like.dtype)
    c[0] = LOWEST32 if like.itemsize == 4 else LOWEST64
    c[1] = LOG2E
    c[2] = LN2_HI
    c[3] = LN2_LO
    for i in range(len(TAYLOR)):
        c[4 + i] = TAYLOR[i]
    return c


@njit(fastmath=FASTMATH, cache=True)
def exp_nonpositive(x, consts, scratch):
    """x[:] = exp(x) in place, for x <= 0 (-inf included), in loops that vectorise.

    exp(x) = 2^n * exp(r) with n = round(x / ln 2) and r = x - n ln 2 in [-0.35, 0.35]:
    exp(r) by its Taylor series, and 2^n built directly as the bits of a float, whose
    exponent field holds n + bias. Below consts[0] the result is 0, and so is exp(NaN):
    the callers deal with NaN rows. `consts` comes from exp_constants; `scratch` is a
    float array as long as x, for the 2^n factors.
    """
    lowest, log2e, ln2_hi, ln2_lo, zero = consts[0], consts[1], consts[2], consts[3], consts[0] * 0
    c12, c11, c10, c9, c8, c7 = consts[4], consts[5], consts[6], consts[7], consts[8], consts[9]
    c6, c5, c4, c3 = consts[10], consts[11], consts[12], consts[13]
    c2, c1, c0 = consts[14], consts[15], consts[16]
    for j in range(x.size):
        t = max(x[j], lowest)
        # round(t / ln 2), still a float (c2 = 1/2!: a Python 0.5 would make it float64)
        n = np.floor(t * log2e + c2)
        r = (t - n * ln2_hi) - n * ln2_lo  # t - n ln 2 without losing r's digits
        p = (((((c12 * r + c11) * r + c10) * r + c9) * r + c8) * r + c7) * r + c6  # Horner
        p = (((((p * r + c5) * r + c4) * r + c3) * r + c2) * r + c1) * r + c0
        x[j] = p if x[j] >= lowest else zero
        scratch[j] = n
    if x.itemsize == 4:  # float32: bias 127, 23 mantissa bits below the exponent
        bits32 = scratch.view(np.int32)
        for j in range(x.size):
            bits32[j] = (np.int32(scratch[j]) + 127) << 23
    else:  # float64: bias 1023, 52 mantissa bits
        bits64 = scratch.view(np.int64)
        for j in range(x.size):
            bits64[j] = (np.int64(scratch[j]) + 1023) << 52
    for j in range(x.size):
        x[j] *= scratch[j]
    # --8<-- [end:exp_nonpositive]


# The float32 forms' constants, as float32: with Python floats Numba would compute in
# float64, at half the vector width
_F = np.float32
_LOWEST_F, _LOG2E_F, _LN2_HI_F, _LN2_LO_F = _F(LOWEST32), _F(LOG2E), _F(LN2_HI), _F(LN2_LO)
_HALF_F, _ZERO_F, _ONE_F, _FOUR_F = _F(0.5), _F(0.0), _F(1.0), _F(4.0)
_T_F = tuple(_F(c) for c in TAYLOR[-8:])  # 1/7!, ..., 1/1!, 1/0!: the series to r^7


@njit(fastmath=FASTMATH, cache=True, error_model="numpy", inner=True)
def exp_nonpositive32(t):
    """e^t for one float32 t <= 0 (see the module's docstring); 0 below LOWEST32 and for NaN."""
    tc = max(t, _LOWEST_F)
    n = np.floor(tc * _LOG2E_F + _HALF_F)  # round(t / ln 2), still a float
    r = (tc - n * _LN2_HI_F) - n * _LN2_LO_F
    T = _T_F
    er = (((T[0] * r + T[1]) * r + T[2]) * r + T[3]) * r + T[4]
    er = ((er * r + T[5]) * r + T[6]) * r + T[7]
    two_n = np.int32((np.int32(n) + 127) << 23).view(np.float32)  # exponent field n + 127
    return er * two_n if t >= _LOWEST_F else _ZERO_F


# erf's P and Q (the reference's, kernels/reference/special.py), as float32
_P_F = tuple(_F(c) for c in ERF_P)
_Q_F = tuple(_F(c) for c in ERF_Q)


@njit(fastmath=FASTMATH, cache=True, error_model="numpy", inner=True)
def erf_rational(v):
    """erf(v) by the rational function, in float64 (v a float64 number)."""
    v = 4.0 if v > 4.0 else v  # comparisons, not min/max: a NaN passes through as NaN
    v = -4.0 if v < -4.0 else v
    v2 = v * v
    P, Q = ERF_P, ERF_Q
    p = (((((P[0] * v2 + P[1]) * v2 + P[2]) * v2 + P[3]) * v2 + P[4]) * v2 + P[5]) * v2 + P[6]
    q = (((Q[0] * v2 + Q[1]) * v2 + Q[2]) * v2 + Q[3]) * v2 + Q[4]
    r = v * p / q
    return min(r, 1.0) if r > 0 else max(r, -1.0)  # |erf| <= 1, which rounding could break near 4


@njit(fastmath=FASTMATH, cache=True, error_model="numpy", inner=True)
def erf_rational32(z):
    """erf(z) by the rational function, every step in float32 (z a float32 number)."""
    z = _FOUR_F if z > _FOUR_F else z
    z = -_FOUR_F if z < -_FOUR_F else z
    z2 = z * z
    P, Q = _P_F, _Q_F
    p = (((((P[0] * z2 + P[1]) * z2 + P[2]) * z2 + P[3]) * z2 + P[4]) * z2 + P[5]) * z2 + P[6]
    q = (((Q[0] * z2 + Q[1]) * z2 + Q[2]) * z2 + Q[3]) * z2 + Q[4]
    e = z * p / q
    return min(e, _ONE_F) if e > _ZERO_F else max(e, -_ONE_F)


@njit(fastmath=FASTMATH, cache=True, inner=True)
def all_finite(a):
    """No NaN or Inf in the C-contiguous array a (see the module's docstring). One flat
    loop: a loop per row of 32 would spend its time starting."""
    if a.size == 0:
        return True
    flat = a.reshape(a.size)
    total = flat[0] * 0  # a zero of a's dtype
    for i in range(flat.size):
        total += flat[i]
    return total - total == 0


def all_finite_arrays(*arrays):
    """No NaN or Inf in any of the arrays, asked from Python: NumPy's sum of each (cut
    over the cores for a large array in C order: the sums of attention's operands)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return all(np.isfinite(_sum(a)) for a in arrays)


# below this many elements one core sums: waking the threads would cost more
MIN_SPLIT_SUM = 262_144


def _sum(a):
    """The sum of a's elements; a large array in C order is summed one block per thread
    (NumPy lets go of Python's lock while it sums, so the blocks run at once)."""
    if a.size < MIN_SPLIT_SUM or not a.flags.c_contiguous:
        return a.sum()
    flat = a.reshape(-1)
    cuts = workers.blocks(flat.size, workers.count())
    partial = np.empty(len(cuts), a.dtype)

    def block_sum(i, lo, hi):
        partial[i] = flat[lo:hi].sum()

    workers.run_jobs([functools.partial(block_sum, i, lo, hi) for i, (lo, hi) in enumerate(cuts)])
    return partial.sum()
