"""The elementwise math of torch's API, table-driven (the rows of tests/test_api_surface.py's
kind; tests/surface.py holds the machinery): trigonometry, exp and log, the special
functions, rounding and remainders, comparisons, logic and bits, and the arithmetic
helpers, with their Tensor methods, in-place twins and aliases.

Each row runs on torch and on minigrad with the same inputs and compares the results
(type, shape, dtype, values), the input gradients and a float64 gradient check, or, with
`raises=`, that both raise the same exception type. Inputs are drawn in each function's
domain (`pos`, `unit`, `ints`, `bools`, or fixed arrays for edges: zeros, infinities,
NaN, negative integers). A few behaviours a row cannot state (gradients at ties, second
derivatives, results against hand-derived values) have tests of their own at the end.
"""

import inspect
import math

import numpy as np
import pytest
import torch

import minigrad as mg
from minigrad.autograd import gradgradcheck

from .surface import bools, case, ids, ints, pos, run, unit

INF, NAN = math.inf, math.nan
WITH_EDGES = np.array([[0.0, -0.0, 1.5, -2.5], [INF, -INF, 3.0, -0.25]])
WITH_NAN = np.array([[1.0, NAN, 3.0, -INF], [NAN, 2.0, -1.0, INF]])
SIGNED_INTS = np.array([[7, -7, 6, -1], [0, 5, -12, 9]])
DIVISORS = np.array([2, -3, 4, 5])
OFF_THE_POLES = np.array([[-2.5, -1.3, -0.7, 0.4], [1.5, 3.2, 7.9, 12.0]])  # not 0, -1, -2, ...


# ---- helpers for rows that need more than an expression -----------------------------------------
def twin(method, *args, **kwargs):
    """`copy.<method>(*others, *args)` on a copy of the first input (a leaf that requires
    grad refuses in-place ops, as in torch): the in-place method must return that copy."""

    def call(lib, x, *others):
        copy = x.clone()
        out = getattr(copy, method)(*others, *args, **kwargs)
        assert out is copy, f"{method} returned a new tensor, not self"
        return out

    return call


def augmented(op):
    """`t op= other` (`&=`, `<<=`, `**=` ...) on a copy of the first input; the statement
    must keep the same tensor."""

    def call(lib, x, other):
        t = copy = x.clone()
        namespace = {"t": t, "other": other}
        # an augmented assignment is a statement, not an expression
        exec(f"t {op}= other", namespace)
        assert namespace["t"] is copy, f"`{op}=` made a new tensor"
        return namespace["t"]

    return call


def backward_of(fn):
    """Backward through fn's result (for the rows where torch's backward raises)."""

    def call(lib, *xs):
        fn(lib, *xs).sum().backward()

    return call


# ---- the table ------------------------------------------------------------------------------
CASES = [
    # -- trigonometry: functions, methods, in-place twins, NumPy's names --
    case("torch.tan", lambda lib, x: lib.tan(x), (3, 4)),
    case("torch.Tensor.tan", lambda lib, x: x.tan(), unit(2, 3)),
    case("torch.Tensor.tan_", twin("tan_"), (2, 3)),
    case("torch.asin", lambda lib, x: lib.asin(x), unit(3, 4)),
    case("torch.asin", lambda lib, x: lib.asin(x.detach() * 2), unit(3, 4)),  # NaN outside [-1, 1]
    case("torch.Tensor.asin", lambda lib, x: x.asin(), unit(2, 3)),
    case("torch.Tensor.asin_", twin("asin_"), unit(2, 3)),
    case("torch.acos", lambda lib, x: lib.acos(x), unit(3, 4)),
    case("torch.Tensor.acos", lambda lib, x: x.acos(), unit(2, 3)),
    case("torch.Tensor.acos_", twin("acos_"), unit(2, 3)),
    case("torch.atan", lambda lib, x: lib.atan(x), (3, 4)),
    case("torch.Tensor.atan", lambda lib, x: x.atan(), (2, 3)),
    case("torch.Tensor.atan_", twin("atan_"), (2, 3)),
    case("torch.sinh", lambda lib, x: lib.sinh(x), (3, 4)),
    case("torch.Tensor.sinh", lambda lib, x: x.sinh(), (2, 3)),
    case("torch.Tensor.sinh_", twin("sinh_"), (2, 3)),
    case("torch.cosh", lambda lib, x: lib.cosh(x), (3, 4)),
    case("torch.Tensor.cosh", lambda lib, x: x.cosh(), (2, 3)),
    case("torch.Tensor.cosh_", twin("cosh_"), (2, 3)),
    case("torch.asinh", lambda lib, x: lib.asinh(x), (3, 4)),
    case("torch.Tensor.asinh", lambda lib, x: x.asinh(), (2, 3)),
    # no derivative in torch
    case("torch.Tensor.asinh_", lambda lib, x: x.detach().clone().asinh_(), (2, 3)),
    case("torch.acosh", lambda lib, x: lib.acosh(x + 1), pos(3, 4)),
    case("torch.acosh", lambda lib, x: lib.acosh(x.detach()), unit(3, 4)),  # NaN below 1
    case("torch.Tensor.acosh", lambda lib, x: (x + 1).acosh(), pos(2, 3)),
    # (nor for this)
    case("torch.Tensor.acosh_", lambda lib, x: (x.detach() + 1).acosh_(), pos(2, 3)),
    case("torch.atanh", lambda lib, x: lib.atanh(x), unit(3, 4)),
    case("torch.Tensor.atanh", lambda lib, x: x.atanh(), unit(2, 3)),
    # (nor for this)
    case("torch.Tensor.atanh_", lambda lib, x: x.detach().clone().atanh_(), unit(2, 3)),
    case("torch.atan2", lambda lib, a, b: lib.atan2(a, b), (3, 4), (4,)),
    # integers: float32
    case("torch.atan2", lambda lib, a, b: lib.atan2(a, b), ints(2, 3), ints(3)),
    case("torch.Tensor.atan2", lambda lib, a, b: a.atan2(b), (2, 1), (3,)),
    case("torch.Tensor.atan2_", twin("atan2_"), (2, 3), (3,)),
    case("torch.arcsin", lambda lib, x: lib.arcsin(x), unit(2, 3)),
    case("torch.arccos", lambda lib, x: lib.arccos(x), unit(2, 3)),
    case("torch.arctan", lambda lib, x: lib.arctan(x), (2, 3)),
    case("torch.arctan2", lambda lib, a, b: lib.arctan2(a, b), (2, 3), (2, 3)),
    case("torch.arcsinh", lambda lib, x: lib.arcsinh(x), (2, 3)),
    case("torch.arccosh", lambda lib, x: lib.arccosh(x + 1), pos(2, 3)),
    case("torch.arctanh", lambda lib, x: lib.arctanh(x), unit(2, 3)),
    case("torch.Tensor.arcsin", lambda lib, x: x.arcsin(), unit(2, 3)),
    case("torch.Tensor.arccos", lambda lib, x: x.arccos(), unit(2, 3)),
    case("torch.Tensor.arctan", lambda lib, x: x.arctan(), (2, 3)),
    case("torch.Tensor.arctan2", lambda lib, a, b: a.arctan2(b), (2, 3), (3,)),
    case("torch.Tensor.arcsinh", lambda lib, x: x.arcsinh(), (2, 3)),
    case("torch.Tensor.arccosh", lambda lib, x: (x + 1).arccosh(), pos(2, 3)),
    case("torch.Tensor.arctanh", lambda lib, x: x.arctanh(), unit(2, 3)),
    case("torch.Tensor.arcsin_", twin("arcsin_"), unit(2, 3)),
    case("torch.Tensor.arccos_", twin("arccos_"), unit(2, 3)),
    case("torch.Tensor.arctan_", twin("arctan_"), (2, 3)),
    case("torch.Tensor.arctan2_", twin("arctan2_"), (2, 3), (2, 3)),
    case("torch.Tensor.arcsinh_", lambda lib, x: x.detach().clone().arcsinh_(), (2, 3)),
    case("torch.Tensor.arccosh_", lambda lib, x: (x.detach() + 1).arccosh_(), pos(2, 3)),
    case("torch.Tensor.arctanh_", lambda lib, x: x.detach().clone().arctanh_(), unit(2, 3)),
    case("torch.hypot", lambda lib, a, b: lib.hypot(a, b), (3, 4), (4,)),
    case(
        "torch.hypot",
        lambda lib, a, b: lib.hypot(a, b),
        ints(3),
        ints(3),
        raises=NotImplementedError,
    ),
    case("torch.Tensor.hypot", lambda lib, a, b: a.hypot(b), (2, 3), (2, 3)),
    case("torch.Tensor.hypot_", twin("hypot_"), (2, 3), (3,)),
    case("torch.sinc", lambda lib, x: lib.sinc(x), (3, 4)),
    # 1 at 0, slope 0
    case("torch.sinc", lambda lib, x: lib.sinc(x), np.array([0.0, 0.5, -1.5, 2.25])),
    case("torch.Tensor.sinc", lambda lib, x: x.sinc(), (2, 3)),
    case("torch.Tensor.sinc_", twin("sinc_"), (2, 3)),
    case("torch.deg2rad", lambda lib, x: lib.deg2rad(x * 90), (3, 4)),
    case("torch.deg2rad", lambda lib, x: lib.deg2rad(x), ints(3, high=360)),
    case("torch.Tensor.deg2rad", lambda lib, x: x.deg2rad(), (2, 3)),
    case("torch.Tensor.deg2rad_", twin("deg2rad_"), (2, 3)),
    case("torch.rad2deg", lambda lib, x: lib.rad2deg(x), (3, 4)),
    case("torch.Tensor.rad2deg", lambda lib, x: x.rad2deg(), bools(3)),
    case("torch.Tensor.rad2deg_", twin("rad2deg_"), (2, 3)),
    case("torch.Tensor.sin_", twin("sin_"), (2, 3)),
    case("torch.Tensor.cos_", twin("cos_"), (2, 3)),
    # a float into an int tensor
    case("torch.Tensor.sin_", twin("sin_"), ints(3), raises=RuntimeError),
    case("torch.tan", lambda lib, x: lib.tan(x), bools(2, 3)),  # bools and integers: float32
    case("torch.cosh", lambda lib, x: lib.cosh(x), ints(2, 3)),
    # -- exponentials and logarithms --
    case("torch.log1p", lambda lib, x: lib.log1p(x), pos(3, 4)),
    case("torch.log1p", lambda lib, x: lib.log1p(x), np.array([1e-12, -1e-15, 0.0, 3.0])),
    # -inf, NaN, inf
    case("torch.log1p", lambda lib, x: lib.log1p(x.detach()), np.array([-1.0, -2.0, INF])),
    case("torch.log1p", lambda lib, x: lib.log1p(x), ints(2, 3)),
    case("torch.Tensor.log1p", lambda lib, x: x.log1p(), pos(2, 3)),
    case("torch.Tensor.log1p_", twin("log1p_"), pos(2, 3)),
    case("torch.expm1", lambda lib, x: lib.expm1(x), (3, 4)),
    case("torch.expm1", lambda lib, x: lib.expm1(x), np.array([1e-12, -1e-15, 0.0, 30.0])),
    case("torch.Tensor.expm1", lambda lib, x: x.expm1(), (2, 3)),
    case("torch.Tensor.expm1_", twin("expm1_"), (2, 3)),
    case("torch.log2", lambda lib, x: lib.log2(x), pos(3, 4)),
    case("torch.log2", lambda lib, x: lib.log2(x), ints(2, 3)),  # log2(0) = -inf
    case("torch.Tensor.log2", lambda lib, x: x.log2(), pos(2, 3)),
    case("torch.Tensor.log2_", twin("log2_"), pos(2, 3)),
    case("torch.log10", lambda lib, x: lib.log10(x), pos(3, 4)),
    case("torch.Tensor.log10", lambda lib, x: x.log10(), pos(2, 3)),
    case("torch.Tensor.log10_", twin("log10_"), pos(2, 3)),
    case("torch.exp2", lambda lib, x: lib.exp2(x), (3, 4)),
    case("torch.exp2", lambda lib, x: lib.exp2(x), ints(2, 3, high=10)),
    case("torch.Tensor.exp2", lambda lib, x: x.exp2(), (2, 3)),
    case("torch.Tensor.exp2_", twin("exp2_"), (2, 3)),
    case("torch.logaddexp", lambda lib, a, b: lib.logaddexp(a, b), (3, 4), (4,)),
    case("torch.logaddexp", lambda lib, a, b: lib.logaddexp(a * 800, b), (3,), (3,)),  # no overflow
    case(
        "torch.logaddexp",
        lambda lib, a, b: lib.logaddexp(a, b),
        ints(3),
        ints(3),
        raises=NotImplementedError,
    ),
    case("torch.Tensor.logaddexp", lambda lib, a, b: a.logaddexp(b), (2, 3), (2, 1)),
    case("torch.logaddexp2", lambda lib, a, b: lib.logaddexp2(a, b), (3, 4), (3, 1)),
    case("torch.Tensor.logaddexp2", lambda lib, a, b: a.logaddexp2(b), (2, 3), (3,)),
    case("torch.xlogy", lambda lib, x, y: lib.xlogy(x, y), (3, 4), pos(4)),
    # 0 ln y = 0
    case("torch.xlogy", lambda lib, x, y: lib.xlogy(x, y), np.array([0, 0, 3, 2]), pos(4)),
    case("torch.xlogy", lambda lib, x, y: lib.xlogy(x, y), np.array([0.0, 0.0, 1.5]), pos(3)),
    case(
        "torch.xlogy",
        lambda lib, x, y: lib.xlogy(x.detach(), y.detach()),
        np.array([0.0, 0.0, 1.5]),
        np.array([0.0, NAN, 0.0]),
    ),
    case("torch.xlogy", lambda lib, y: lib.xlogy(2.0, y), pos(3)),
    case("torch.xlogy", lambda lib, x: lib.xlogy(x, 3), (3,)),
    case("torch.xlogy", lambda lib, x, y: lib.xlogy(x, y), ints(3), ints(3)),
    case("torch.Tensor.xlogy", lambda lib, x, y: x.xlogy(y), (2, 3), pos(2, 3)),
    case("torch.Tensor.xlogy_", twin("xlogy_"), (2, 3), pos(3)),
    case("torch.logit", lambda lib, p: lib.logit(p * 0.5 + 0.5), unit(3, 4)),
    # 0 slope where clamped
    case("torch.logit", lambda lib, p: lib.logit(p * 0.5 + 0.5, eps=0.3), unit(3, 4)),
    case("torch.logit", lambda lib, p: lib.logit(p.detach() * 2), unit(3, 4)),  # NaN outside [0, 1]
    case("torch.Tensor.logit", lambda lib, p: (p * 0.5 + 0.5).logit(), unit(2, 3)),
    case("torch.Tensor.logit_", lambda lib, p: (p * 0.5 + 0.5).logit_(0.1), unit(2, 3)),
    case("torch.float_power", lambda lib, x, e: lib.float_power(x, e), pos(3, 4), (4,)),
    # float64 result
    case("torch.float_power", lambda lib, x: lib.float_power(x.detach().float(), 2), (3,)),
    case("torch.float_power", lambda lib, x: lib.float_power(x, 2), ints(2, 3)),
    case("torch.float_power", lambda lib, e: lib.float_power(2, e), (3,)),
    case("torch.Tensor.float_power", lambda lib, x: x.float_power(0.5), pos(2, 3)),
    case("torch.Tensor.float_power_", twin("float_power_", 3), (2, 3)),
    case(
        "torch.Tensor.float_power_",
        lambda lib, x: x.detach().float().float_power_(2),
        (3,),
        raises=RuntimeError,
    ),
    case("torch.ldexp", lambda lib, x, e: lib.ldexp(x, e), (3, 4), ints(4, high=8)),
    case("torch.ldexp", lambda lib, x, e: lib.ldexp(x, e), ints(3), ints(3)),
    case("torch.Tensor.ldexp", lambda lib, x, e: x.ldexp(e), (2, 3), (3,)),
    case("torch.Tensor.ldexp_", twin("ldexp_"), (2, 3), ints(3, high=4)),
    case("torch.frexp", lambda lib, x: lib.frexp(x * 100), (3, 4)),
    case("torch.frexp", lambda lib, x: lib.frexp(x.detach()), WITH_EDGES),
    case("torch.frexp", lambda lib, x: lib.frexp(x), ints(3), raises=RuntimeError),
    case("torch.Tensor.frexp", lambda lib, x: x.frexp(), (2, 3)),
    # -- special functions --
    case("torch.erfc", lambda lib, x: lib.erfc(x * 3), (3, 4)),
    # no 1 - erf cancellation
    case("torch.erfc", lambda lib, x: lib.erfc(x), np.array([6.0, 10.0, -6.0, 0.0])),
    case("torch.Tensor.erfc", lambda lib, x: x.erfc(), (2, 3)),
    case("torch.Tensor.erfc_", twin("erfc_"), (2, 3)),
    case("torch.Tensor.erf_", twin("erf_"), (2, 3)),
    case("torch.erfinv", lambda lib, x: lib.erfinv(x), unit(3, 4)),
    case(
        "torch.erfinv",
        lambda lib, x: lib.erfinv(x.detach()),
        np.array([-1.0, 1.0, 1.5, 0.0, 1 - 1e-12]),
    ),
    case("torch.Tensor.erfinv", lambda lib, x: x.erfinv(), unit(2, 3)),
    case("torch.Tensor.erfinv_", twin("erfinv_"), unit(2, 3)),
    case("torch.lgamma", lambda lib, x: lib.lgamma(x), pos(3, 4)),
    case("torch.lgamma", lambda lib, x: lib.lgamma(x), OFF_THE_POLES),
    case("torch.lgamma", lambda lib, x: lib.lgamma(x), ints(2, 3)),  # inf at 0
    case("torch.Tensor.lgamma", lambda lib, x: x.lgamma(), pos(2, 3)),
    case("torch.Tensor.lgamma_", twin("lgamma_"), pos(2, 3)),
    case("torch.digamma", lambda lib, x: lib.digamma(x), pos(3, 4)),
    case("torch.digamma", lambda lib, x: lib.digamma(x), OFF_THE_POLES),
    case(
        "torch.digamma",
        lambda lib, x: lib.digamma(x.detach()),
        np.array([0.0, -0.0, -1.0, -3.0, 1e-300]),
    ),
    case("torch.Tensor.digamma", lambda lib, x: x.digamma(), pos(2, 3)),
    case("torch.Tensor.digamma_", twin("digamma_"), pos(2, 3)),
    case("torch.polygamma", lambda lib, x: lib.polygamma(1, x), pos(3, 4)),
    case("torch.polygamma", lambda lib, x: lib.polygamma(3, x), OFF_THE_POLES),
    case("torch.polygamma", lambda lib, x: lib.polygamma(0, x), pos(3)),
    # float32; -inf at 0
    case("torch.polygamma", lambda lib, x: lib.polygamma(2, x), ints(3), rtol=1e-5),
    case("torch.polygamma", lambda lib, x: lib.polygamma(-1, x), pos(3), raises=RuntimeError),
    case("torch.Tensor.polygamma", lambda lib, x: x.polygamma(2), pos(2, 3)),
    case("torch.Tensor.polygamma_", twin("polygamma_", 1), pos(2, 3)),
    case("torch.mvlgamma", lambda lib, x: lib.mvlgamma(x + 1.5, 3), pos(3, 4)),
    case("torch.mvlgamma", lambda lib, x: lib.mvlgamma(x, 1), pos(3)),
    case("torch.mvlgamma", lambda lib, x: lib.mvlgamma(x, 0), pos(3), raises=RuntimeError),
    case("torch.Tensor.mvlgamma", lambda lib, x: (x + 1).mvlgamma(2), pos(2, 3)),
    case("torch.Tensor.mvlgamma_", lambda lib, x: (x + 1).mvlgamma_(2), pos(2, 3)),
    case("torch.i0", lambda lib, x: lib.i0(x * 3), (3, 4)),
    case("torch.i0", lambda lib, x: lib.i0(x), np.array([0.0, -0.0, 1e-8, 50.0])),  # slope 0 at 0
    case("torch.i0", lambda lib, x: lib.i0(x), ints(3)),
    case("torch.Tensor.i0", lambda lib, x: x.i0(), (2, 3)),
    case("torch.Tensor.i0_", twin("i0_"), (2, 3)),
    # (a = input from an integer tensor: torch has no gradient for it, and a row's float inputs
    # require grad)
    case(
        "torch.igamma", lambda lib, a, x: lib.igamma(a.double() / 4 + 0.1, x), ints(3, 4), pos(3, 4)
    ),
    case(
        "torch.igamma",
        lambda lib, a, x: lib.igamma(a.double() * 5 + 0.5, x * 20),
        ints(3, 4),
        pos(4),
    ),
    case(
        "torch.igamma",
        lambda lib, a, x: lib.igamma(a.detach(), x.detach()),
        np.array([0.0, 1.0, -1.0, 1.0, 2.0, INF]),
        np.array([1.0, 0.0, 1.0, -1.0, INF, 3.0]),
    ),
    case(
        "torch.igamma",
        backward_of(lambda lib, a, x: lib.igamma(a, x)),
        pos(3),
        pos(3),
        raises=NotImplementedError,
    ),
    case(
        "torch.igamma",
        lambda lib, a, x: lib.igamma(a, x),
        ints(3),
        ints(3),
        raises=NotImplementedError,
    ),
    case("torch.Tensor.igamma", lambda lib, a, x: (a.double() + 0.5).igamma(x), ints(2, 3), pos(3)),
    case(
        "torch.Tensor.igamma_",
        lambda lib, a, x: a.detach().clone().igamma_(x.detach()),
        pos(2, 3),
        pos(3),
    ),
    case(
        "torch.igammac",
        lambda lib, a, x: lib.igammac(a.double() / 4 + 0.1, x),
        ints(3, 4),
        pos(3, 4),
    ),
    case(
        "torch.igammac",
        lambda lib, a, x: lib.igammac(a.double() * 5 + 0.5, x * 20),
        ints(3, 4),
        pos(4),
    ),
    case(
        "torch.igammac",
        backward_of(lambda lib, a, x: lib.igammac(a, x)),
        pos(3),
        pos(3),
        raises=NotImplementedError,
    ),
    case(
        "torch.Tensor.igammac", lambda lib, a, x: (a.double() + 0.5).igammac(x), ints(2, 3), pos(3)
    ),
    case(
        "torch.Tensor.igammac_",
        lambda lib, a, x: a.detach().clone().igammac_(x.detach()),
        pos(2, 3),
        pos(3),
    ),
    # float32 in, float32 out: computed in float64 and rounded, torch in float32 (a few units apart)
    case("torch.erfc", lambda lib, x: lib.erfc(x.detach().float()), (3, 4), rtol=1e-5, atol=1e-7),
    case("torch.erfinv", lambda lib, x: lib.erfinv(x.detach().float()), unit(3, 4), rtol=1e-5),
    case(
        "torch.lgamma",
        lambda lib, x: lib.lgamma(x.detach().float()),
        pos(3, 4),
        rtol=1e-5,
        atol=1e-6,
    ),
    case(
        "torch.digamma",
        lambda lib, x: lib.digamma(x.detach().float()),
        pos(3, 4),
        rtol=1e-5,
        atol=1e-6,
    ),
    case(
        "torch.polygamma", lambda lib, x: lib.polygamma(1, x.detach().float()), pos(3, 4), rtol=1e-5
    ),
    case("torch.i0", lambda lib, x: lib.i0(x.detach().float()), (3, 4), rtol=1e-5),
    case(
        "torch.igamma",
        lambda lib, a, x: lib.igamma(a.detach().float(), x.detach().float()),
        pos(3),
        pos(3),
        rtol=1e-5,
    ),
    # -- rounding, remainders, signs --
    case("torch.trunc", lambda lib, x: lib.trunc(x * 3), (3, 4)),
    case("torch.trunc", lambda lib, x: lib.trunc(x), SIGNED_INTS),
    case("torch.trunc", lambda lib, x: lib.trunc(x), bools(3), raises=NotImplementedError),
    case("torch.Tensor.trunc", lambda lib, x: x.detach().trunc(), WITH_EDGES),
    case("torch.Tensor.trunc_", lambda lib, x: (x * 3).trunc_(), (2, 3)),
    case("torch.fix", lambda lib, x: lib.fix(x * 3), (3, 4)),
    case("torch.Tensor.fix", lambda lib, x: (x * 3).fix(), (2, 3)),
    case("torch.Tensor.fix_", lambda lib, x: (x * 3).fix_(), (2, 3)),
    case("torch.frac", lambda lib, x: lib.frac(x * 3), (3, 4)),
    case("torch.frac", lambda lib, x: lib.frac(x), ints(3), raises=NotImplementedError),
    case("torch.Tensor.frac", lambda lib, x: (x * 3).frac(), (2, 3)),
    case("torch.Tensor.frac_", lambda lib, x: (x * 3).frac_(), (2, 3)),
    case("torch.fmod", lambda lib, a, b: lib.fmod(a * 5, b), (3, 4), pos(4)),
    case("torch.fmod", lambda lib, a, b: lib.fmod(a, b), SIGNED_INTS, DIVISORS),  # the sign of a
    case("torch.fmod", lambda lib, a: lib.fmod(a, 2.5), SIGNED_INTS),
    # integer / 0
    case("torch.fmod", lambda lib, a: lib.fmod(a, 0), SIGNED_INTS, raises=RuntimeError),
    case("torch.Tensor.fmod", lambda lib, a, b: (a * 5).fmod(b), (2, 3), (3,)),
    case("torch.Tensor.fmod_", twin("fmod_", 0.7), (2, 3)),
    case("torch.remainder", lambda lib, a, b: lib.remainder(a * 5, b), (3, 4), pos(4)),
    # the sign of b
    case("torch.remainder", lambda lib, a, b: lib.remainder(a, b), SIGNED_INTS, DIVISORS),
    case("torch.remainder", lambda lib, b: lib.remainder(7, b), DIVISORS),
    case("torch.Tensor.remainder", lambda lib, a: (a * 5).remainder(-1.5), (2, 3)),
    case("torch.Tensor.remainder_", twin("remainder_", 0.7), (2, 3)),
    case("torch.floor_divide", lambda lib, a, b: lib.floor_divide(a, b), SIGNED_INTS, DIVISORS),
    case(
        "torch.floor_divide",
        lambda lib, a, b: lib.floor_divide(a.detach() * 5, b.detach()),
        (3, 4),
        (4,),
    ),
    case("torch.Tensor.floor_divide", lambda lib, a: a.floor_divide(-3), SIGNED_INTS),
    case("torch.Tensor.floor_divide_", twin("floor_divide_", 4), SIGNED_INTS),
    case("torch.true_divide", lambda lib, a, b: lib.true_divide(a, b), SIGNED_INTS, DIVISORS),
    case("torch.Tensor.true_divide", lambda lib, a, b: a.true_divide(b), (2, 3), pos(3)),
    case("torch.Tensor.true_divide_", twin("true_divide_"), (2, 3), pos(3)),
    case("torch.copysign", lambda lib, a, b: lib.copysign(a, b), (3, 4), (4,)),
    case(
        "torch.copysign",
        lambda lib, a, b: lib.copysign(a.detach(), b.detach()),
        WITH_EDGES,
        WITH_EDGES[::-1],
    ),
    case("torch.copysign", lambda lib, a: lib.copysign(a, -1), SIGNED_INTS),
    case("torch.Tensor.copysign", lambda lib, a, b: a.copysign(b), (2, 3), (2, 3)),
    case("torch.Tensor.copysign_", twin("copysign_"), (2, 3), (3,)),
    case("torch.signbit", lambda lib, x: lib.signbit(x), WITH_EDGES),
    case("torch.signbit", lambda lib, x: lib.signbit(x), SIGNED_INTS),
    case("torch.Tensor.signbit", lambda lib, x: x.signbit(), (2, 3)),
    # (torch's gradient of sgn is a ZeroTensor, which tests/surface.py cannot read: values only)
    case("torch.sgn", lambda lib, x: lib.sgn(x.detach()), WITH_EDGES),
    case("torch.sgn", lambda lib, x: lib.sgn(x), SIGNED_INTS),
    case("torch.Tensor.sgn", lambda lib, x: x.sgn(), bools(3)),
    case("torch.Tensor.sgn_", twin("sgn_"), SIGNED_INTS),
    case("torch.Tensor.sign_", twin("sign_"), (2, 3)),
    case("torch.nextafter", lambda lib, a, b: lib.nextafter(a, b), (3, 4), (4,)),
    case(
        "torch.nextafter",
        lambda lib, a, b: lib.nextafter(a.detach().float(), b.detach().float()),
        (3,),
        (3,),
    ),
    case("torch.Tensor.nextafter", lambda lib, a, b: a.nextafter(b), (2, 3), (2, 3)),
    case("torch.Tensor.nextafter_", twin("nextafter_"), (2, 3), (3,)),
    case(
        "torch.heaviside", lambda lib, x, v: lib.heaviside(x.detach(), v.detach()), WITH_EDGES, (4,)
    ),
    case("torch.heaviside", lambda lib, x, v: lib.heaviside(x, v), SIGNED_INTS, ints(4)),
    case(
        "torch.heaviside",
        backward_of(lambda lib, x, v: lib.heaviside(x, v)),
        (3,),
        (3,),
        raises=RuntimeError,
    ),
    case(
        "torch.heaviside",
        lambda lib, x, v: lib.heaviside(x, v),
        SIGNED_INTS,
        (4,),
        raises=RuntimeError,
    ),
    case(
        "torch.Tensor.heaviside", lambda lib, x, v: x.detach().heaviside(v.detach()), (2, 3), (3,)
    ),
    case(
        "torch.Tensor.heaviside_",
        lambda lib, x, v: x.detach().clone().heaviside_(v.detach()),
        (2, 3),
        (3,),
    ),
    # -- comparisons --
    case("torch.eq", lambda lib, a, b: lib.eq(a, b), ints(3, 4, high=3), ints(4, high=3)),
    case("torch.eq", lambda lib, a: lib.eq(a, 2.0), ints(3, 4, high=3)),
    case("torch.ne", lambda lib, a, b: lib.ne(a, b), ints(3, 4, high=3), ints(3, 1, high=3)),
    case("torch.lt", lambda lib, a, b: lib.lt(a, b), (3, 4), (4,)),
    case("torch.le", lambda lib, a, b: lib.le(a, b), ints(3, 4), ints(3, 4)),
    case("torch.gt", lambda lib, a: lib.gt(a, 0), (3, 4)),
    case("torch.ge", lambda lib, a, b: lib.ge(a, b), ints(3, 4), (4,)),  # int64 against float64
    case("torch.greater", lambda lib, a, b: lib.greater(a, b), (3, 4), (4,)),
    case("torch.greater_equal", lambda lib, a, b: lib.greater_equal(a, b), ints(3, 4), ints(4)),
    case("torch.less", lambda lib, a, b: lib.less(a, b), (3, 4), (3, 1)),
    case("torch.less_equal", lambda lib, a, b: lib.less_equal(a, b), ints(3, 4), ints(3, 4)),
    case("torch.not_equal", lambda lib, a, b: lib.not_equal(a, b), bools(3, 4), bools(4)),
    case("torch.Tensor.greater", lambda lib, a, b: a.greater(b), (2, 3), (3,)),
    case("torch.Tensor.greater_equal", lambda lib, a, b: a.greater_equal(b), ints(2, 3), ints(3)),
    case("torch.Tensor.less", lambda lib, a, b: a.less(b), (2, 3), (2, 3)),
    case("torch.Tensor.less_equal", lambda lib, a, b: a.less_equal(b), ints(2, 3), ints(2, 3)),
    case(
        "torch.Tensor.not_equal",
        lambda lib, a, b: a.not_equal(b),
        ints(2, 3, high=2),
        ints(3, high=2),
    ),
    case("torch.Tensor.eq_", twin("eq_"), ints(2, 3, high=2), ints(3, high=2)),
    case("torch.Tensor.eq_", twin("eq_", 2.5), ints(2, 3)),  # in the int tensor's dtype
    # on floats: recorded, zero gradient to both
    case("torch.Tensor.eq_", twin("eq_"), (2, 3), (2, 3)),
    case("torch.Tensor.ne_", twin("ne_"), (2, 3), (3,)),
    case("torch.Tensor.lt_", twin("lt_"), (2, 3), (3,)),
    case("torch.Tensor.le_", twin("le_", 0.0), (2, 3)),
    case("torch.Tensor.gt_", twin("gt_"), ints(2, 3), ints(3)),
    case("torch.Tensor.ge_", twin("ge_"), (2, 3), (2, 3)),
    case("torch.Tensor.greater_", twin("greater_"), (2, 3), (3,)),
    case("torch.Tensor.greater_equal_", twin("greater_equal_"), ints(2, 3), ints(3)),
    case("torch.Tensor.less_", twin("less_", 0.5), (2, 3)),
    case("torch.Tensor.less_equal_", twin("less_equal_"), bools(2, 3), bools(3)),
    case("torch.Tensor.not_equal_", twin("not_equal_"), ints(2, 3, high=2), ints(3, high=2)),
    case("torch.isposinf", lambda lib, x: lib.isposinf(x), WITH_NAN),
    case("torch.isposinf", lambda lib, x: lib.isposinf(x), ints(3)),
    case("torch.isneginf", lambda lib, x: lib.isneginf(x), WITH_NAN),
    case("torch.Tensor.isposinf", lambda lib, x: x.isposinf(), WITH_EDGES),
    case("torch.Tensor.isneginf", lambda lib, x: x.isneginf(), WITH_EDGES),
    case("torch.isin", lambda lib, a, b: lib.isin(a, b), ints(3, 4, high=6), ints(3, high=6)),
    case(
        "torch.isin",
        lambda lib, a, b: lib.isin(a, b, invert=True),
        ints(3, 4, high=6),
        ints(2, 2, high=6),
    ),
    case("torch.isin", lambda lib, a: lib.isin(a, 2), ints(3, 4)),
    case("torch.isin", lambda lib, b: lib.isin(3, b), ints(4)),
    case("torch.isin", lambda lib, a, b: lib.isin(a, b), SIGNED_INTS, np.array([7.0, -1.5, 9.0])),
    case("torch.isin", lambda lib, a, b: lib.isin(a, b), bools(3), bools(2), raises=RuntimeError),
    # -- questions about a tensor --
    case("torch.is_nonzero", lambda lib, x: lib.is_nonzero(x), ints(1, 1)),
    case("torch.is_nonzero", lambda lib, x: lib.is_nonzero(x), np.array([0.0])),
    case("torch.is_nonzero", lambda lib, x: lib.is_nonzero(x), (2,), raises=RuntimeError),
    case("torch.Tensor.is_nonzero", lambda lib, x: x.is_nonzero(), ()),
    case(
        "torch.Tensor.is_nonzero", lambda lib, x: x.is_nonzero(), np.zeros(0), raises=RuntimeError
    ),
    case("torch.is_signed", lambda lib, x: lib.is_signed(x), ints(2)),
    case("torch.is_signed", lambda lib, x: lib.is_signed(x.to(lib.uint8)), ints(2)),
    case("torch.Tensor.is_signed", lambda lib, x: x.is_signed(), bools(2)),
    case("torch.Tensor.is_signed", lambda lib, x: x.is_signed(), (2,)),
    case("torch.is_same_size", lambda lib, a, b: lib.is_same_size(a, b), (2, 3), ints(2, 3)),
    case("torch.Tensor.is_same_size", lambda lib, a, b: a.is_same_size(b), (2, 3), (3, 2)),
    # -- logic --
    case("torch.logical_and", lambda lib, a, b: lib.logical_and(a, b), bools(3, 4), bools(4)),
    case("torch.logical_and", lambda lib, a, b: lib.logical_and(a, b), ints(3, 4, high=2), (3, 4)),
    case("torch.logical_or", lambda lib, a, b: lib.logical_or(a, b), bools(3, 4), bools(3, 1)),
    case(
        "torch.logical_xor", lambda lib, a, b: lib.logical_xor(a, b), ints(3, 4, high=2), bools(4)
    ),
    case("torch.logical_not", lambda lib, a: lib.logical_not(a), WITH_EDGES),
    case("torch.Tensor.logical_and", lambda lib, a, b: a.logical_and(b), bools(2, 3), bools(3)),
    case(
        "torch.Tensor.logical_or",
        lambda lib, a, b: a.logical_or(b),
        ints(2, 3, high=2),
        ints(3, high=2),
    ),
    case("torch.Tensor.logical_xor", lambda lib, a, b: a.logical_xor(b), bools(2, 3), bools(2, 3)),
    case("torch.Tensor.logical_and_", twin("logical_and_"), bools(2, 3), bools(3)),
    # 1 or 0 in int64
    case("torch.Tensor.logical_and_", twin("logical_and_"), ints(2, 3, high=2), bools(3)),
    case("torch.Tensor.logical_or_", twin("logical_or_"), bools(2, 3), bools(2, 3)),
    case("torch.Tensor.logical_xor_", twin("logical_xor_"), bools(2, 3), bools(3)),
    case("torch.Tensor.logical_not_", twin("logical_not_"), ints(2, 3, high=2)),
    # -- bits: integer and bool tensors, and the operators --
    case(
        "torch.bitwise_and",
        lambda lib, a, b: lib.bitwise_and(a, b),
        ints(3, 4, high=16),
        ints(4, high=16),
    ),
    case("torch.bitwise_and", lambda lib, a, b: lib.bitwise_and(a, b), bools(3, 4), bools(4)),
    case("torch.bitwise_and", lambda lib, a: lib.bitwise_and(a, 6), SIGNED_INTS),
    case(
        "torch.bitwise_and",
        lambda lib, a, b: lib.bitwise_and(a, b),
        (3,),
        (3,),
        raises=NotImplementedError,
    ),
    case("torch.bitwise_or", lambda lib, a, b: lib.bitwise_or(a, b), SIGNED_INTS, ints(4, high=16)),
    # promoted to int64
    case("torch.bitwise_or", lambda lib, a, b: lib.bitwise_or(a, b), bools(3), ints(3)),
    case(
        "torch.bitwise_xor",
        lambda lib, a, b: lib.bitwise_xor(a, b),
        SIGNED_INTS,
        ints(2, 1, high=16),
    ),
    case("torch.bitwise_not", lambda lib, a: lib.bitwise_not(a), SIGNED_INTS),
    case("torch.bitwise_not", lambda lib, a: lib.bitwise_not(a), bools(2, 3)),
    case("torch.bitwise_not", lambda lib, a: lib.bitwise_not(a), (3,), raises=NotImplementedError),
    case(
        "torch.bitwise_left_shift",
        lambda lib, a, b: lib.bitwise_left_shift(a, b),
        SIGNED_INTS,
        ints(4, high=8),
    ),
    # past the width
    case("torch.bitwise_left_shift", lambda lib, a: lib.bitwise_left_shift(a, 70), SIGNED_INTS),
    case(
        "torch.bitwise_right_shift",
        lambda lib, a, b: lib.bitwise_right_shift(a, b),
        SIGNED_INTS,
        ints(4),
    ),
    case(
        "torch.bitwise_right_shift",
        lambda lib, a, b: lib.bitwise_right_shift(a, b),
        bools(3),
        bools(3),
        raises=NotImplementedError,
    ),
    case(
        "torch.Tensor.bitwise_and",
        lambda lib, a, b: a.bitwise_and(b),
        ints(2, 3, high=16),
        ints(3, high=16),
    ),
    case("torch.Tensor.bitwise_or", lambda lib, a, b: a.bitwise_or(b), bools(2, 3), bools(3)),
    case("torch.Tensor.bitwise_xor", lambda lib, a: a.bitwise_xor(5), SIGNED_INTS),
    case("torch.Tensor.bitwise_not", lambda lib, a: a.bitwise_not(), SIGNED_INTS),
    case("torch.Tensor.bitwise_left_shift", lambda lib, a: a.bitwise_left_shift(3), SIGNED_INTS),
    case("torch.Tensor.bitwise_right_shift", lambda lib, a: a.bitwise_right_shift(1), SIGNED_INTS),
    case("torch.Tensor.bitwise_and_", twin("bitwise_and_"), ints(2, 3, high=16), ints(3, high=16)),
    case("torch.Tensor.bitwise_or_", twin("bitwise_or_"), bools(2, 3), bools(3)),
    # int64 into bool
    case("torch.Tensor.bitwise_or_", twin("bitwise_or_"), bools(3), ints(3), raises=RuntimeError),
    case("torch.Tensor.bitwise_xor_", twin("bitwise_xor_", 3), SIGNED_INTS),
    case("torch.Tensor.bitwise_not_", twin("bitwise_not_"), SIGNED_INTS),
    case("torch.Tensor.bitwise_left_shift_", twin("bitwise_left_shift_", 2), SIGNED_INTS),
    case(
        "torch.Tensor.bitwise_right_shift_",
        twin("bitwise_right_shift_"),
        SIGNED_INTS,
        ints(4, high=3),
    ),
    case("torch.Tensor.__and__", lambda lib, a, b: a & b, SIGNED_INTS, ints(4, high=16)),
    case("torch.Tensor.__and__", lambda lib, a, b: a & b, bools(3), ints(3)),  # int64, not bool
    case("torch.Tensor.__and__", lambda lib, a: a & 1, (3,), raises=NotImplementedError),
    case("torch.Tensor.__or__", lambda lib, a, b: a | b, SIGNED_INTS, ints(4, high=16)),
    case("torch.Tensor.__xor__", lambda lib, a, b: a ^ b, ints(3, high=16), bools(3)),
    case("torch.Tensor.__invert__", lambda lib, a: ~a, SIGNED_INTS),
    case("torch.Tensor.__rand__", lambda lib, a: 6 & a, SIGNED_INTS),
    case("torch.Tensor.__ror__", lambda lib, a: 6 | a, SIGNED_INTS),
    case("torch.Tensor.__rxor__", lambda lib, a: True ^ a, bools(2, 3)),
    case("torch.Tensor.__lshift__", lambda lib, a, b: a << b, SIGNED_INTS, ints(4)),
    case("torch.Tensor.__lshift__", lambda lib, a: a << 1, bools(3)),  # bool << int: int64
    case("torch.Tensor.__lshift__", lambda lib, a: a << 1, (3,), raises=NotImplementedError),
    case("torch.Tensor.__rshift__", lambda lib, a: a >> 2, SIGNED_INTS),
    case("torch.Tensor.__rlshift__", lambda lib, b: 3 << b, ints(4, high=10)),
    case("torch.Tensor.__rrshift__", lambda lib, b: -100 >> b, ints(4, high=10)),
    case("torch.Tensor.__iand__", augmented("&"), SIGNED_INTS, ints(4, high=16)),
    case("torch.Tensor.__ior__", augmented("|"), bools(2, 3), bools(3)),
    case("torch.Tensor.__ixor__", augmented("^"), SIGNED_INTS, ints(4, high=16)),
    case("torch.Tensor.__ilshift__", augmented("<<"), SIGNED_INTS, ints(4, high=4)),
    case("torch.Tensor.__irshift__", augmented(">>"), SIGNED_INTS, ints(4, high=4)),
    case("torch.Tensor.__ipow__", augmented("**"), (2, 3), ints(3, high=4)),
    case("torch.Tensor.__ipow__", augmented("**"), SIGNED_INTS, ints(4, high=4)),
    case("torch.Tensor.__imod__", augmented("%"), (2, 3), pos(3)),
    case("torch.Tensor.__imod__", augmented("%"), SIGNED_INTS, DIVISORS),
    case("torch.Tensor.__ifloordiv__", augmented("//"), SIGNED_INTS, DIVISORS),
    # -- arithmetic helpers --
    case(
        "torch.addcmul", lambda lib, x, a, b: lib.addcmul(x, a, b, value=0.5), (3, 4), (4,), (3, 1)
    ),
    case("torch.addcmul", lambda lib, x, a, b: lib.addcmul(x, a, b), ints(3), ints(3), ints(3)),
    case(
        "torch.addcmul", lambda lib, x, a, b: lib.addcmul(x, a, b, value=2), ints(3), (3,), ints(3)
    ),
    case(
        "torch.Tensor.addcmul", lambda lib, x, a, b: x.addcmul(a, b, value=-2), (2, 3), (2, 3), (3,)
    ),
    case("torch.Tensor.addcmul_", twin("addcmul_", value=0.1), (2, 3), (3,), (2, 3)),
    case(
        "torch.addcdiv",
        lambda lib, x, a, b: lib.addcdiv(x, a, b, value=0.5),
        (3, 4),
        (4,),
        pos(3, 1),
    ),
    case("torch.addcdiv", lambda lib, x, a, b: lib.addcdiv(x, a, b), ints(3), (3,), pos(3)),
    case(
        "torch.addcdiv",
        lambda lib, x, a, b: lib.addcdiv(x, a, b),
        (3,),
        ints(3),
        ints(3),
        raises=RuntimeError,
    ),
    case(
        "torch.Tensor.addcdiv",
        lambda lib, x, a, b: x.addcdiv(a, b, value=-2),
        (2, 3),
        (2, 3),
        pos(3),
    ),
    case("torch.Tensor.addcdiv_", twin("addcdiv_", value=0.1), (2, 3), (3,), pos(2, 3)),
    case("torch.lerp", lambda lib, a, b: lib.lerp(a, b, 0.3), (3, 4), (4,)),
    case("torch.lerp", lambda lib, a, b: lib.lerp(a, b, 0.8), (3, 4), (3, 4)),  # the other formula
    case("torch.lerp", lambda lib, a, b, w: lib.lerp(a, b, w), (3, 4), (3, 4), (4,)),
    case(
        "torch.lerp",
        lambda lib, a, b: lib.lerp(a, b.detach().float(), 0.5),
        (3,),
        (3,),
        raises=RuntimeError,
    ),
    case(
        "torch.lerp",
        lambda lib, a, b: lib.lerp(a, b, 0.5),
        ints(3),
        ints(3),
        raises=NotImplementedError,
    ),
    case("torch.Tensor.lerp", lambda lib, a, b, w: a.lerp(b, w), (2, 3), (2, 3), unit(2, 3)),
    case("torch.Tensor.lerp_", twin("lerp_", 0.25), (2, 3), (3,)),
    case("torch.fmax", lambda lib, a, b: lib.fmax(a, b), (3, 4), (4,)),
    case(
        "torch.fmax", lambda lib, a, b: lib.fmax(a, b), WITH_NAN[:, :3], np.array([0.5, 1.0, NAN])
    ),
    case(
        "torch.fmax", lambda lib, a, b: lib.fmax(a.detach(), b.detach()), WITH_NAN, WITH_NAN[::-1]
    ),
    case("torch.fmax", lambda lib, a, b: lib.fmax(a, b), ints(3, 4), ints(4)),
    case("torch.Tensor.fmax", lambda lib, a, b: a.fmax(b), (2, 3), (2, 3)),
    case("torch.fmin", lambda lib, a, b: lib.fmin(a, b), (3, 4), (3, 1)),
    case(
        "torch.fmin", lambda lib, a, b: lib.fmin(a, b), WITH_NAN[:, :3], np.array([0.5, 1.0, NAN])
    ),
    case("torch.fmin", lambda lib, a, b: lib.fmin(a, b), bools(3), bools(3)),
    case("torch.Tensor.fmin", lambda lib, a, b: a.fmin(b), (2, 3), (3,)),
    case("torch.nan_to_num", lambda lib, x: lib.nan_to_num(x), WITH_NAN),
    case(
        "torch.nan_to_num",
        lambda lib, x: lib.nan_to_num(x, nan=-1.0, posinf=9.0, neginf=-9.0),
        WITH_NAN,
    ),
    # float32's limits
    case("torch.nan_to_num", lambda lib, x: lib.nan_to_num(x.detach().float()), WITH_NAN),
    case("torch.nan_to_num", lambda lib, x: lib.nan_to_num(x), SIGNED_INTS),
    case("torch.Tensor.nan_to_num", lambda lib, x: x.nan_to_num(posinf=1.0), WITH_NAN),
    case("torch.Tensor.nan_to_num_", twin("nan_to_num_", 0.5), WITH_NAN),
    case("torch.neg", lambda lib, x: lib.neg(x), (3, 4)),
    case("torch.neg", lambda lib, x: lib.neg(x), bools(3), raises=RuntimeError),
    case("torch.negative", lambda lib, x: lib.negative(x), SIGNED_INTS),
    case("torch.Tensor.negative", lambda lib, x: x.negative(), (2, 3)),
    case("torch.Tensor.negative_", twin("negative_"), (2, 3)),
    case("torch.positive", lambda lib, x: lib.positive(x), (3, 4)),
    case("torch.positive", lambda lib, x: lib.positive(x), bools(3), raises=RuntimeError),
    case("torch.Tensor.positive", lambda lib, x: x.positive() is x, (2, 3)),
    case("torch.absolute", lambda lib, x: lib.absolute(x), (3, 4)),
    case("torch.Tensor.absolute", lambda lib, x: x.absolute(), SIGNED_INTS),
    case("torch.Tensor.absolute_", twin("absolute_"), (2, 3)),
    case("torch.rsub", lambda lib, x, y: lib.rsub(x, y), (3, 4), (4,)),
    case("torch.rsub", lambda lib, x: lib.rsub(x, 2, alpha=3), (3, 4)),
    case("torch.rsub", lambda lib, x: lib.rsub(x, 10), SIGNED_INTS),
    case("torch.rsub", lambda lib, x: lib.rsub(x, 1), bools(3), raises=RuntimeError),
    case("torch.gcd", lambda lib, a, b: lib.gcd(a, b), SIGNED_INTS, DIVISORS * 3),
    case("torch.gcd", lambda lib, a, b: lib.gcd(a, b), (3,), (3,), raises=NotImplementedError),
    case("torch.Tensor.gcd", lambda lib, a, b: a.gcd(b), ints(2, 3, high=30), ints(3, high=30)),
    case("torch.Tensor.gcd_", twin("gcd_"), SIGNED_INTS, DIVISORS),
    case("torch.lcm", lambda lib, a, b: lib.lcm(a, b), SIGNED_INTS, DIVISORS),
    case("torch.Tensor.lcm", lambda lib, a, b: a.lcm(b), ints(2, 3, high=12), ints(3, high=12)),
    case("torch.Tensor.lcm_", twin("lcm_"), SIGNED_INTS, DIVISORS),
    case("torch.Tensor.square_", twin("square_"), (2, 3)),
    case("torch.square", lambda lib, x: lib.square(x), bools(3)),  # bool squares to int64
    case("torch.Tensor.rsqrt_", twin("rsqrt_"), pos(2, 3)),
    case("torch.Tensor.subtract_", twin("subtract_", alpha=2), (2, 3), (3,)),
    case("torch.Tensor.multiply_", twin("multiply_"), (2, 3), (2, 1)),
    case("torch.Tensor.divide_", twin("divide_"), (2, 3), pos(3)),
    case("torch.Tensor.divide_", twin("divide_", rounding_mode="floor"), SIGNED_INTS, DIVISORS),
    case("torch.Tensor.cumsum_", twin("cumsum_", 1), (2, 3)),
    case("torch.Tensor.cumprod_", twin("cumprod_", 0), (3, 2)),
]


# no NumPy warning on the way: NaN and inf are answers
@pytest.mark.filterwarnings("error::RuntimeWarning")
@pytest.mark.parametrize("row", CASES, ids=list(ids(CASES)))
def test_behaves_as_torch(row):
    run(row)


# ---- what a row cannot state ---------------------------------------------------------------------
TORCH_API = [
    "torch.fmax",
    "torch.fmin",
    "torch.Tensor.eq_",
    "torch.erfinv",
    "torch.digamma",
    "torch.igamma",
    "torch.xlogy",
]

TORCH_LEVEL = """
tan asin acos atan atan2 sinh cosh asinh acosh atanh hypot sinc deg2rad rad2deg arcsin arccos arctan
arctan2 arcsinh arccosh arctanh log1p expm1 log2 log10 exp2 logaddexp logaddexp2 xlogy logit
float_power ldexp frexp erfc erfinv lgamma digamma polygamma mvlgamma i0 igamma igammac trunc fix
frac fmod remainder floor_divide copysign signbit sgn nextafter heaviside neg negative positive
absolute rsub addcmul addcdiv lerp fmax fmin nan_to_num gcd lcm eq ne lt le gt ge greater
greater_equal less less_equal not_equal isin isposinf isneginf logical_and logical_or logical_xor
logical_not bitwise_and bitwise_or bitwise_xor bitwise_not bitwise_left_shift bitwise_right_shift
is_nonzero is_signed is_same_size
""".split()


@pytest.mark.parametrize("name", TORCH_LEVEL)
def test_torch_level_function_takes_torchs_parameter_names(name):
    """mg.<name>(...) takes its arguments under torch's names (mg.lerp(input, end, weight),
    mg.isin(elements, test_elements, *, assume_unique, invert)), so keyword calls carry over,
    and has a docstring."""
    from .test_torch_level_functions import _torch_parameter_names  # reads torch's signatures

    fn = getattr(mg, name)
    mine = set(inspect.signature(fn).parameters)
    theirs = _torch_parameter_names(name)
    assert theirs, f"no parameter names found for torch.{name}"
    assert mine <= theirs, f"mg.{name}{inspect.signature(fn)}: torch's names are {sorted(theirs)}"
    assert inspect.getdoc(fn)


def test_xlogy_gradient_at_zero_like_torch():
    """xlogy(0, y) is 0 for every y > 0, yet torch's gradient with respect to x there is
    the limit from x != 0, ln y; where y <= 0 too it takes 0 (not -inf or NaN). The
    gradient with respect to y is x / y (0 / 0 = NaN at x = y = 0)."""
    x, y = np.array([0.0, 0.0, 2.0, 0.0]), np.array([0.5, 3.0, 4.0, 0.0])
    mx, my = mg.tensor(x, requires_grad=True), mg.tensor(y, requires_grad=True)
    tx, ty = torch.tensor(x, requires_grad=True), torch.tensor(y, requires_grad=True)
    with np.errstate(invalid="ignore", divide="ignore"):  # the NaN of 0 / 0 is the answer
        mg.xlogy(mx, my).sum().backward()
    torch.xlogy(tx, ty).sum().backward()
    np.testing.assert_allclose(mx.grad.numpy(), tx.grad.numpy(), rtol=1e-15)
    np.testing.assert_allclose(my.grad.numpy(), ty.grad.numpy(), rtol=1e-15)
    np.testing.assert_allclose(
        mx.grad.numpy(), [math.log(0.5), math.log(3.0), math.log(4.0), 0.0], rtol=1e-15
    )


SECOND_ORDER = {
    "tan": lambda x: x.tan(),
    "asin": lambda x: (x * 0.5).asin(),
    "atanh": lambda x: (x * 0.5).atanh(),
    "sinc": lambda x: x.sinc(),
    "atan2": lambda x: mg.atan2(x, x.flip(0) + 3.0),
    "hypot": lambda x: mg.hypot(x, x.flip(0) + 3.0),
    "log1p": lambda x: (x * 0.5).log1p(),
    "logaddexp": lambda x: mg.logaddexp(x, x.flip(0)),
    "logaddexp2": lambda x: mg.logaddexp2(x, x.flip(0)),
    "xlogy": lambda x: mg.xlogy(x, x.abs() + 1.0),
    "logit": lambda x: (x * 0.2 + 0.5).logit(),
    "erfc": lambda x: x.erfc(),
    "erfinv": lambda x: (x * 0.5).erfinv(),
    "lgamma": lambda x: (x.abs() + 0.5).lgamma(),
    "digamma": lambda x: (x.abs() + 0.5).digamma(),
    "mvlgamma": lambda x: (x.abs() + 1.5).mvlgamma(2),
    "i0": lambda x: x.i0(),
    "igamma": lambda x: mg.igamma(mg.tensor([0.5, 1.5, 2.5], dtype=mg.float64), x.abs() + 0.5),
    "copysign": lambda x: mg.copysign(x, x.flip(0)),
    "lerp": lambda x: mg.lerp(x, x.flip(0), x * 0.3),
    "frac": lambda x: (x * 3).frac() * x,
}


@pytest.mark.parametrize("name", list(SECOND_ORDER))
def test_second_derivatives_by_finite_differences(name):
    """Every backward is written with Tensor ops, so it can be differentiated again."""
    x = mg.tensor([0.3, -0.7, 1.1], dtype=mg.float64, requires_grad=True)
    assert gradgradcheck(SECOND_ORDER[name], [x])
