"""Elementwise ops on CUDA tensors (the simulated GPU): forward and backward equal the
CPU's, results stay on the device, and nothing is copied to the host inside the op.

Families: elementwise, arithmetic, bitwise, compare, explog, logic, piecewise, promotion,
rounding, trig. See tests/device_compare.py for what each case checks.
"""

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F
from tests.device_compare import Case, check_case, rand

X = rand(3, 4)
Y = rand(3, 4, seed=1)
ROW = rand(4, seed=2)  # broadcasts against X
POS = rand(3, 4, seed=3, low=0.5, high=2.0)
POS2 = rand(4, seed=4, low=0.5, high=2.0)
UNIT = rand(3, 4, seed=5, low=-0.9, high=0.9)
INTS = np.array([[6, -4, 9, 0], [3, 12, -8, 5]])
INTS2 = np.array([[4, 6, -3, 7], [2, 5, 3, -2]])
TIES = np.array([[0.5, -1.0, 2.0], [1.5, 3.0, -0.25]])  # x and TIES2 tie in places
TIES2 = np.array([[0.5, 1.0, 2.0], [-1.5, 3.0, 0.25]])
WITH_NAN = np.array([[1.0, np.nan, -np.inf], [np.inf, -2.0, 0.0]])

CASES = [
    # elementwise.py: arithmetic
    Case("add", lambda a, b: a + b, (X, ROW)),
    Case("add alpha", lambda a, b: mg.add(a, b, alpha=2.5), (X, Y)),
    Case("add number", lambda a: 2.0 + a, (X,)),
    Case("sub", lambda a, b: a - b, (X, ROW)),
    Case("rsub number", lambda a: 1.5 - a, (X,)),
    Case("mul", lambda a, b: a * b, (X, ROW)),
    Case("div", lambda a, b: a / b, (X, POS)),
    Case("rdiv number", lambda a: 2.0 / a, (POS,)),
    Case("div floor", lambda a, b: mg.div(a, b, rounding_mode="floor"), (X * 4, POS)),
    Case("div trunc", lambda a, b: mg.div(a, b, rounding_mode="trunc"), (X * 4, POS)),
    Case("floordiv ints", lambda a, b: a // b, (INTS, INTS2)),
    Case("div trunc ints", lambda a, b: mg.div(a, b, rounding_mode="trunc"), (INTS, INTS2)),
    Case("remainder", lambda a, b: a % b, (X * 4, POS)),
    Case("neg", lambda a: -a, (X,)),
    Case("pow number", lambda a: a**3, (X,)),
    Case("pow -0.5", lambda a: a**-0.5, (POS,)),
    Case("pow tensor", lambda a, b: a**b, (POS, Y)),
    Case("rpow number", lambda a: 2.0**a, (X,)),
    # elementwise.py: unary math
    Case("exp", mg.exp, (X,)),
    Case("log", mg.log, (POS,)),
    Case("sqrt", mg.sqrt, (POS,)),
    Case("rsqrt", mg.rsqrt, (POS,)),
    Case("sin", mg.sin, (X,)),
    Case("cos", mg.cos, (X,)),
    Case("tanh", mg.tanh, (X,)),
    Case("sigmoid", mg.sigmoid, (X * 8,)),
    Case("relu", mg.relu, (X,)),
    Case("abs", mg.abs, (X,)),
    Case("sign", mg.sign, (X,)),
    Case("floor", mg.floor, (X * 3,)),
    Case("ceil", mg.ceil, (X * 3,)),
    Case("round", lambda a: mg.round(a, decimals=1), (X * 3,)),
    Case("square", mg.square, (X,)),
    Case("reciprocal", mg.reciprocal, (POS,)),
    Case("clamp", lambda a: mg.clamp(a, -0.3, 0.4), (X,)),
    Case("clamp_min", lambda a: mg.clamp_min(a, 0.1), (X,)),
    Case("clamp tensors", lambda a, lo, hi: a.clamp(lo, hi), (X, ROW - 1, ROW + 0.5)),
    Case("maximum", mg.maximum, (TIES, TIES2)),
    Case("minimum", mg.minimum, (TIES, TIES2)),
    Case("where", lambda a, b: mg.where(a > 0, a, b), (X, ROW)),
    Case("where number", lambda a: mg.where(a > 0, a, 0.0), (X,)),
    # arithmetic.py
    Case("addcmul", lambda a, b, c: mg.addcmul(a, b, c, value=0.5), (X, Y, ROW)),
    Case("addcdiv", lambda a, b, c: mg.addcdiv(a, b, c, value=0.5), (X, Y, POS2)),
    Case("lerp", lambda a, b: mg.lerp(a, b, 0.3), (X, Y)),
    Case("lerp tensor", lambda a, b, w: mg.lerp(a, b, w), (X, Y, ROW)),
    Case("fmax", mg.fmax, (WITH_NAN, TIES)),
    Case("fmin", mg.fmin, (WITH_NAN, TIES)),
    Case("nan_to_num", lambda a: mg.nan_to_num(a, posinf=9.0, neginf=-8.0), (WITH_NAN,)),
    Case("positive", mg.positive, (X,)),
    Case("rsub", lambda a, b: mg.rsub(a, b, alpha=2), (X, Y)),
    Case("gcd", mg.gcd, (INTS, INTS2)),
    Case("lcm", mg.lcm, (INTS, INTS2)),
    # bitwise.py
    Case("logical_and", lambda a, b: mg.logical_and(a > 0, b), (X, Y)),
    Case("logical_or", mg.logical_or, (X, Y)),
    Case("logical_xor", lambda a: mg.logical_xor(a > 0, a < 0.5), (X,)),
    Case("logical_not", mg.logical_not, (X,)),
    Case("bitwise_and", mg.bitwise_and, (INTS, INTS2)),
    Case("bitwise_or", mg.bitwise_or, (INTS, INTS2)),
    Case("bitwise_xor", mg.bitwise_xor, (INTS, INTS2)),
    Case("bitwise_not", mg.bitwise_not, (INTS,)),
    Case(
        "shifts",
        lambda a, b: mg.bitwise_left_shift(a, b.abs()) + mg.bitwise_right_shift(a, 1),
        (INTS, INTS2),
    ),
    Case("and operator", lambda a, b: (a > 0) & (b > 0) | (a > b), (X, Y)),
    # compare.py
    Case("eq ne", lambda a, b: (mg.eq(a, b), mg.ne(a, 0.5)), (TIES, TIES2)),
    Case("lt le gt ge", lambda a, b: (a < b, a <= b, mg.gt(a, b), mg.ge(a, 0.5)), (TIES, TIES2)),
    Case("isposinf isneginf", lambda a: (mg.isposinf(a), mg.isneginf(a)), (WITH_NAN,)),
    Case("isin", lambda a, b: mg.isin(a, b), (INTS, INTS2)),
    Case("is_nonzero", lambda a: mg.is_nonzero(a), (np.array([0.5]),), host_value=True),
    # explog.py
    Case("log1p", mg.log1p, (POS,)),
    Case("expm1", mg.expm1, (X,)),
    Case("log2", mg.log2, (POS,)),
    Case("log10", mg.log10, (POS,)),
    Case("exp2", mg.exp2, (X,)),
    Case("logit", lambda a: mg.logit(a, eps=0.1), (UNIT / 2 + 0.5,)),
    Case("logaddexp", mg.logaddexp, (X, ROW)),
    Case("logaddexp2", mg.logaddexp2, (X, ROW)),
    Case("xlogy", mg.xlogy, (X, POS)),
    Case("float_power", lambda a: mg.float_power(a, 2), (X,)),
    Case("float_power tensors", mg.float_power, (POS, Y)),
    Case("ldexp", mg.ldexp, (X, INTS2[:1])),
    Case("frexp", mg.frexp, (X * 10,)),
    # logic.py
    Case("isclose", lambda a, b: mg.isclose(a, b, atol=0.3), (X, Y)),
    Case("allclose", lambda a, b: mg.allclose(a, b, atol=0.3), (X, Y), host_value=True),
    Case("equal", lambda a: mg.equal(a, a * 1), (X,), host_value=True),
    Case("all any", lambda a: (mg.all(a > -2), mg.any(a > 0.9, dim=1), (a > 0).all(0)), (X,)),
    Case("isnan isinf isfinite", lambda a: (mg.isnan(a), mg.isinf(a), mg.isfinite(a)), (WITH_NAN,)),
    # piecewise.py
    Case("prelu", lambda a, w: a.prelu(w), (X, np.array([0.25, 0.5, -0.5, 0.1]))),
    Case("hardshrink", lambda a: a.hardshrink(0.4), (X,)),
    Case("softshrink", lambda a: F.softshrink(a, 0.3), (X,)),
    Case("hardtanh", lambda a: F.hardtanh(a, -0.5, 0.6), (X,)),
    Case("hardsigmoid hardswish", lambda a: F.hardsigmoid(a) + F.hardswish(a), (X * 4,)),
    Case("threshold", lambda a: F.threshold(a, 0.1, -2.0), (X,)),
    Case("leaky_relu", lambda a: F.leaky_relu(a, 0.2), (X,)),
    # promotion.py: operands of two dtypes meet in the promoted one
    Case("float + int tensor", lambda a, b: a + b, (X[:2], INTS)),
    Case("int tensor * number", lambda b: b * 2.5, (INTS,)),
    Case("int tensor / int tensor", lambda a, b: a / b, (INTS, INTS2)),
    Case("bool + int", lambda a, b: (a > 0) + b, (X[:2], INTS)),
    # rounding.py
    Case("trunc frac", lambda a: mg.trunc(a) + mg.frac(a), (X * 3,)),
    Case("fmod", mg.fmod, (X * 4, POS)),
    Case("fmod ints", mg.fmod, (INTS, INTS2)),
    Case("remainder number", lambda a: mg.remainder(a, 0.3), (X,)),
    Case("floor_divide", mg.floor_divide, (X * 4, POS)),
    Case("copysign", mg.copysign, (X, Y)),
    Case("signbit", mg.signbit, (X,)),
    Case("sgn", mg.sgn, (X,)),
    Case("nextafter", mg.nextafter, (X, Y)),
    Case("heaviside", mg.heaviside, (TIES - 0.5, TIES2), grad=False),  # no derivative, as torch
    # trig.py
    Case("tan", mg.tan, (UNIT,)),
    Case("asin acos atan", lambda a: mg.asin(a) + mg.acos(a) * mg.atan(a), (UNIT,)),
    Case("sinh cosh", lambda a: mg.sinh(a) * mg.cosh(a), (X,)),
    Case(
        "asinh acosh atanh",
        lambda a, p: mg.asinh(a) + mg.atanh(a) + mg.acosh(p + 1),
        (UNIT, POS),
    ),
    Case("sinc", mg.sinc, (np.array([[0.0, 0.5, -1.5], [2.0, 0.25, 1.0]]),)),
    Case("deg2rad rad2deg", lambda a: mg.deg2rad(a) * mg.rad2deg(a), (X,)),
    Case("atan2", mg.atan2, (X, Y)),
    Case("hypot", mg.hypot, (X, ROW)),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("case", CASES, ids=repr)
def test_op_on_cuda_equals_cpu(case, dtype, simulated_gpu):
    check_case(case, dtype, simulated_gpu)
