"""Elementwise ops: arithmetic operators and the math functions.

Each op is held against PyTorch (values and gradients, float64, with broadcasting) and
against finite differences (gradcheck); the ones with second derivatives also get a
gradgradcheck.
"""

import math

import numpy as np
import pytest
import torch

import minigrad as mg

from .helpers import assert_close, check_against_torch, check_grads, leaf, rand, tleaf

# The torch names whose behaviour this file checks against torch (read by tools/api_coverage.py).
TORCH_API = [
    "torch.Tensor.__abs__",
    "torch.Tensor.__add__",
    "torch.Tensor.__mul__",
    "torch.Tensor.__neg__",
    "torch.Tensor.__pos__",
    "torch.Tensor.__pow__",
    "torch.Tensor.__radd__",
    "torch.Tensor.__rmul__",
    "torch.Tensor.__rpow__",
    "torch.Tensor.__rsub__",
    "torch.Tensor.__rtruediv__",
    "torch.Tensor.__sub__",
    "torch.Tensor.__truediv__",
    "torch.Tensor.abs",
    "torch.Tensor.add",
    "torch.Tensor.ceil",
    "torch.Tensor.clamp",
    "torch.Tensor.clip",
    "torch.Tensor.cos",
    "torch.Tensor.div",
    "torch.Tensor.erf",
    "torch.Tensor.exp",
    "torch.Tensor.floor",
    "torch.Tensor.log",
    "torch.Tensor.masked_fill",
    "torch.Tensor.maximum",
    "torch.Tensor.minimum",
    "torch.Tensor.mul",
    "torch.Tensor.pow",
    "torch.Tensor.reciprocal",
    "torch.Tensor.relu",
    "torch.Tensor.round",
    "torch.Tensor.rsqrt",
    "torch.Tensor.sigmoid",
    "torch.Tensor.sign",
    "torch.Tensor.sin",
    "torch.Tensor.sqrt",
    "torch.Tensor.square",
    "torch.Tensor.sub",
    "torch.Tensor.tanh",
    "torch.Tensor.where",
    "torch.abs",
    "torch.clamp",
    "torch.clip",
    "torch.exp",
    "torch.log",
    "torch.maximum",
    "torch.minimum",
    "torch.relu",
    "torch.round",
    "torch.sigmoid",
    "torch.sign",
    "torch.sqrt",
    "torch.tanh",
    "torch.where",
]

# (a shape, b shape) pairs: equal, broadcast both ways, size-1 dims, 0-d, new leading dims
SHAPE_PAIRS = [
    ((3,), (3,)),
    ((2, 3), (3,)),
    ((3,), (2, 3)),
    ((2, 1), (1, 3)),
    ((), (2, 2)),
    ((2, 2), ()),
    ((), ()),
    ((1,), (2, 1, 3)),
    ((2, 1, 3), (2, 3)),
]

# name: (minigrad fn, torch fn, a must be positive, b must be positive)
BINARY = {
    "add": (lambda a, b: a + b, lambda a, b: a + b, False, False),
    "sub": (lambda a, b: a - b, lambda a, b: a - b, False, False),
    "mul": (lambda a, b: a * b, lambda a, b: a * b, False, False),
    "div": (lambda a, b: a / b, lambda a, b: a / b, False, True),
    "pow": (lambda a, b: a**b, lambda a, b: a**b, True, False),
    "maximum": (mg.maximum, torch.maximum, False, False),
    "minimum": (mg.minimum, torch.minimum, False, False),
    "method_add": (lambda a, b: a.add(b), lambda a, b: a.add(b), False, False),
    "method_sub_alpha": (
        lambda a, b: a.sub(b, alpha=2),
        lambda a, b: a.sub(b, alpha=2),
        False,
        False,
    ),
    "method_mul": (lambda a, b: a.mul(b), lambda a, b: a.mul(b), False, False),
    "method_div": (lambda a, b: a.div(b), lambda a, b: a.div(b), False, True),
    "method_pow": (lambda a, b: a.pow(b), lambda a, b: a.pow(b), True, False),
}


def _inputs(shape_a, shape_b, pos_a, pos_b):
    return rand(*shape_a, seed=1, positive=pos_a), rand(*shape_b, seed=2, positive=pos_b)


@pytest.mark.parametrize("shapes", SHAPE_PAIRS, ids=str)
@pytest.mark.parametrize("name", list(BINARY))
def test_binary_op_against_torch(name, shapes):
    fn, tfn, pos_a, pos_b = BINARY[name]
    check_against_torch(fn, tfn, *_inputs(*shapes, pos_a, pos_b))


# the first-derivative gradchecks are the autograd exercise's (tests/test_exercise_autograd.py)
@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "pow"])
def test_binary_op_gradgradcheck(name):
    fn, _, pos_a, pos_b = BINARY[name]
    check_grads(fn, *_inputs((2, 1), (3,), pos_a, pos_b), second=True)


@pytest.mark.parametrize("name", ["add", "mul", "div"])
def test_binary_op_with_one_input_not_requiring_grad(name):
    fn, tfn, pos_a, pos_b = BINARY[name]
    a, b = _inputs((2, 3), (3,), pos_a, pos_b)
    x, tx = leaf(a), tleaf(a)
    out, tout = fn(x, leaf(b, requires_grad=False)), tfn(tx, tleaf(b, requires_grad=False))
    out.sum().backward()
    tout.sum().backward()
    assert_close(x.grad, tx.grad)


def test_same_tensor_on_both_sides_accumulates():
    a = rand(3, seed=3)
    check_against_torch(lambda x: x * x + x / (x * x + 1.0), lambda x: x * x + x / (x * x + 1.0), a)


# ---- scalars on either side (reflected operators) -------------------------------------
SCALAR_OPS = {
    "x+s": (lambda x: x + 2.5, False),
    "s+x": (lambda x: 2.5 + x, False),
    "x-s": (lambda x: x - 2.5, False),
    "s-x": (lambda x: 2.5 - x, False),
    "x*s": (lambda x: x * -1.5, False),
    "s*x": (lambda x: -1.5 * x, False),
    "x/s": (lambda x: x / 4.0, False),
    "s/x": (lambda x: 3.0 / x, True),
    "x**2": (lambda x: x**2, False),
    "x**3": (lambda x: x**3, False),
    "x**1": (lambda x: x**1, False),
    "x**0": (lambda x: x**0, False),
    "x**-1": (lambda x: x**-1, True),
    "x**0.5": (lambda x: x**0.5, True),
    "x**-2.5": (lambda x: x**-2.5, True),
    "2**x": (lambda x: 2.0**x, False),
    "int_s+x": (lambda x: 3 + x, False),
    "-x": (lambda x: -x, False),
    "+x": (lambda x: +x, False),
    "x.pow(3)": (lambda x: x.pow(3), False),
    "square": (lambda x: x.square(), False),
    "reciprocal": (lambda x: x.reciprocal(), True),
}


@pytest.mark.parametrize("shape", [(2, 3), ()], ids=str)
@pytest.mark.parametrize("name", list(SCALAR_OPS))
def test_scalar_operand_against_torch(name, shape):
    fn, positive = SCALAR_OPS[name]
    check_against_torch(fn, fn, rand(*shape, seed=4, positive=positive))


@pytest.mark.parametrize("name", [n for n in SCALAR_OPS if n != "+x"])
def test_scalar_operand_gradcheck(name):
    fn, positive = SCALAR_OPS[name]
    check_grads(fn, rand(3, seed=5, positive=positive))


@pytest.mark.parametrize("name", ["s/x", "x**3", "x**0.5", "x**-2.5", "2**x", "x**2"])
def test_scalar_operand_gradgradcheck(name):
    fn, positive = SCALAR_OPS[name]
    check_grads(fn, rand(3, seed=6, positive=positive), second=True)


@pytest.mark.parametrize("exponent", [2, 3, 1, 0])
def test_pow_scalar_gradient_at_zero_base(exponent):
    a = np.array([0.0, 1.5, -2.0])
    check_against_torch(lambda x: x**exponent, lambda x: x**exponent, a)


def test_pow_tensor_exponent_gradient_at_zero_base_is_zero_like_torch():
    """d(a^b)/db = a^b log a is taken as 0 where a == 0 (not 0 * -inf = NaN)."""
    check_against_torch(
        lambda a, b: a**b, lambda a, b: a**b, np.array([0.0, 2.0, 0.5]), np.array([2.0, 3.0, 1.5])
    )


def test_pow_of_integer_tensor():
    t, tt = mg.tensor([1, 2, 3]), torch.tensor([1, 2, 3])
    assert (t**2).dtype == np.int64 and (t**2).tolist() == (tt**2).tolist()
    assert (t**0.5).dtype == np.float32
    assert_close(t**0.5, tt**0.5, rtol=1e-6)
    assert_close(2 ** mg.tensor([1.0, 3.0]), 2 ** torch.tensor([1.0, 3.0]))


@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_neg_and_abs_keep_dtype(dtype):
    a = np.array([-2, 0, 3]).astype(dtype)
    for f, tf in ((lambda x: -x,) * 2, (abs, abs), (lambda x: x.abs(),) * 2, (mg.abs, torch.abs)):
        out, tout = f(mg.tensor(a)), tf(torch.tensor(a))
        assert out.dtype == dtype and out.tolist() == tout.tolist()


def test_neg_of_bool_raises_like_torch():
    with pytest.raises(RuntimeError):
        -torch.tensor([True])
    with pytest.raises(RuntimeError, match="neg"):
        -mg.tensor([True])


# ---- unary math ----------------------------------------------------------------------
# name: (minigrad fn, torch fn, domain) with domain "any", "positive" or "away" (no
# values near the kinks, for the gradchecks of relu and abs)
UNARY = {
    "exp": (lambda x: x.exp(), torch.exp, "any"),
    "log": (lambda x: x.log(), torch.log, "positive"),
    "sqrt": (lambda x: x.sqrt(), torch.sqrt, "positive"),
    "rsqrt": (lambda x: x.rsqrt(), torch.rsqrt, "positive"),
    "sin": (lambda x: x.sin(), torch.sin, "any"),
    "cos": (lambda x: x.cos(), torch.cos, "any"),
    "tanh": (lambda x: x.tanh(), torch.tanh, "any"),
    "sigmoid": (lambda x: x.sigmoid(), torch.sigmoid, "any"),
    "relu": (lambda x: x.relu(), torch.relu, "away"),
    "abs": (lambda x: x.abs(), torch.abs, "away"),
    "erf": (lambda x: x.erf(), torch.erf, "any"),
    "mg.exp": (mg.exp, torch.exp, "any"),
    "mg.log": (mg.log, torch.log, "positive"),
    "mg.tanh": (mg.tanh, torch.tanh, "any"),
    "mg.sigmoid": (mg.sigmoid, torch.sigmoid, "any"),
    "mg.relu": (mg.relu, torch.relu, "away"),
    "mg.sqrt": (mg.sqrt, torch.sqrt, "positive"),
}


def _unary_input(shape, domain, seed=7):
    x = rand(*shape, seed=seed, positive=domain == "positive")
    if domain == "away":
        x = np.where(np.abs(x) < 0.1, x + 0.3, x)  # finite differences must not cross 0
    return x


@pytest.mark.parametrize("shape", [(2, 3), (), (1, 4, 1)], ids=str)
@pytest.mark.parametrize("name", list(UNARY))
def test_unary_against_torch(name, shape):
    fn, tfn, domain = UNARY[name]
    check_against_torch(fn, tfn, _unary_input(shape, domain), rtol=1e-6, atol=1e-10)


# the first-derivative gradchecks are the autograd exercise's (tests/test_exercise_autograd.py)
@pytest.mark.parametrize(
    "name", ["tanh", "sigmoid", "exp", "log", "sqrt", "rsqrt", "sin", "cos", "erf"]
)
def test_unary_gradgradcheck(name):
    fn, _, domain = UNARY[name]
    check_grads(fn, _unary_input((3,), domain), second=True)


@pytest.mark.parametrize("name", ["exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid", "rsqrt"])
def test_unary_on_int_tensor_gives_float32_like_torch(name):
    out, tout = getattr(mg.tensor([1, 2, 4]), name)(), getattr(torch.tensor([1, 2, 4]), name)()
    assert out.dtype == np.float32 and tout.dtype == torch.float32
    assert_close(out, tout, rtol=1e-6)


@pytest.mark.parametrize("name", ["exp", "log", "tanh", "sigmoid", "relu", "abs", "sqrt"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_unary_keeps_float_dtype(name, dtype):
    x = mg.tensor(np.array([0.5, 2.0], dtype=dtype), requires_grad=True)
    y = getattr(x, name)()
    assert y.dtype == dtype
    y.sum().backward()
    assert x.grad.dtype == dtype


def test_sigmoid_and_tanh_are_stable_for_large_inputs():
    a = np.array([-1000.0, -100.0, 0.0, 100.0, 1000.0], dtype=np.float32)
    with np.errstate(over="raise", invalid="raise"):  # no overflow inside
        s = mg.tensor(a).sigmoid()
    assert_close(s, torch.sigmoid(torch.tensor(a)), rtol=1e-6, atol=1e-30)
    x = mg.tensor(a, requires_grad=True)
    x.sigmoid().sum().backward()
    assert np.all(np.isfinite(x.grad.array))
    assert_close(mg.tensor(a).tanh(), torch.tanh(torch.tensor(a)))


@pytest.mark.parametrize("name", ["relu", "abs"])
def test_relu_and_abs_gradient_at_zero_like_torch(name):
    fn, tfn, _ = UNARY[name]
    check_against_torch(fn, tfn, np.array([-1.0, 0.0, 2.0, -0.0]))


@pytest.mark.parametrize("create_graph", [False, True])  # the NumPy path, the recorded one
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_relu_gradient_with_nan_and_inf_like_torch(dtype, create_graph):
    """ReLU's backward chooses, as PyTorch's threshold_backward: a NaN or inf gradient
    where the output is 0 gives 0 (a product with a 0/1 mask gave NaN), and a NaN output
    (from a NaN input) passes its gradient through."""
    a = np.array([np.nan, -1.0, 0.0, 2.0, -3.0, 4.0], dtype=dtype)
    g = np.array([5.0, np.nan, np.inf, 7.0, -np.inf, np.nan], dtype=dtype)
    x, tx = mg.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    x.relu().backward(mg.tensor(g), create_graph=create_graph)
    tx.relu().backward(torch.tensor(g))
    assert x.grad.dtype == x.dtype
    np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())


# ---- step functions: zero gradient ----------------------------------------------------
STEP = {
    "sign": (lambda x: x.sign(), torch.sign),
    "floor": (lambda x: x.floor(), torch.floor),
    "ceil": (lambda x: x.ceil(), torch.ceil),
    "round": (lambda x: x.round(), torch.round),
    "round_decimals": (lambda x: x.round(decimals=1), lambda x: torch.round(x, decimals=1)),
    "mg.sign": (mg.sign, torch.sign),
    "mg.round": (mg.round, torch.round),
}


@pytest.mark.parametrize("name", list(STEP))
def test_step_functions_values_and_zero_gradient(name):
    fn, tfn = STEP[name]
    a = np.array([-2.5, -1.5, -0.4, 0.0, 0.5, 1.5, 2.5, 2.7, 3.14159])  # .5 cases: half to even
    x, tx = leaf(a), tleaf(a)
    out, tout = fn(x), tfn(tx)
    assert_close(out, tout)
    out.sum().backward()
    tout.sum().backward()
    assert_close(x.grad, tx.grad)
    np.testing.assert_array_equal(x.grad.array, 0.0)


@pytest.mark.parametrize("name", ["sign", "floor", "ceil", "round"])
def test_step_functions_keep_integer_dtype(name):
    out, tout = getattr(mg.tensor([-2, 0, 3]), name)(), getattr(torch.tensor([-2, 0, 3]), name)()
    assert out.dtype == np.int64 and out.tolist() == tout.tolist()


# ---- clamp ----------------------------------------------------------------------------
CLAMP_BOUNDS = [(-0.5, 0.5), (-0.5, None), (None, 0.5), (0.0, 0.0), (1.0, -1.0)]


@pytest.mark.parametrize("bounds", CLAMP_BOUNDS, ids=str)
@pytest.mark.parametrize("name", ["clamp", "clip"])
def test_clamp_against_torch_with_values_on_the_bounds(name, bounds):
    lo, hi = bounds
    a = np.array([[-1.0, -0.5, -0.2, 0.0], [0.3, 0.5, 0.9, 2.0]])  # -0.5 and 0.5 sit on the bounds
    check_against_torch(lambda x: getattr(x, name)(lo, hi), lambda x: getattr(x, name)(lo, hi), a)
    check_against_torch(
        lambda x: getattr(mg, name)(x, min=lo, max=hi), lambda x: torch.clamp(x, lo, hi), a
    )


@pytest.mark.parametrize("bounds", [(2, 3), (2.5, None), (None, 2.5), (1, 4.5)], ids=str)
def test_clamp_of_int_tensor_dtype_like_torch(bounds):
    out, tout = mg.tensor([1, 3, 5]).clamp(*bounds), torch.tensor([1, 3, 5]).clamp(*bounds)
    assert str(out.dtype) == str(tout.dtype).replace("torch.", "")
    assert out.tolist() == tout.tolist()


def test_clamp_gradient_is_inclusive_of_the_bounds():
    x = mg.tensor([-2.0, -1.0, 0.0, 1.0, 2.0], requires_grad=True)
    x.clamp(-1.0, 1.0).sum().backward()
    assert x.grad.tolist() == [0.0, 1.0, 1.0, 1.0, 0.0]


def test_clamp_gradcheck_and_needs_a_bound():
    check_grads(lambda x: x.clamp(-0.5, 0.5), np.array([-1.0, -0.2, 0.3, 0.9]))
    with pytest.raises(ValueError, match="clamp"):
        mg.tensor([1.0]).clamp()


@pytest.mark.parametrize("which", ["min", "max", "both"])
def test_clamp_with_tensor_bounds_against_torch(which):
    a = np.array([[-1.0, 0.0, 0.5, 2.0], [0.2, -0.3, 1.0, 1.0]])
    lo = np.array([-0.5, 0.0, 0.7, 1.5])  # ties with a at [0, 1]
    hi = np.array([[1.0], [0.2]])  # ties with a at [1, 0]; broadcast over rows

    def run(lib, x, lo, hi):
        return lib.clamp(x, min=lo if which != "max" else None, max=hi if which != "min" else None)

    check_against_torch(
        lambda x, l, h: run(mg, x, l, h), lambda x, l, h: run(torch, x, l, h), a, lo, hi
    )


# ---- maximum / minimum ties ---------------------------------------------------------
@pytest.mark.parametrize("name", ["maximum", "minimum"])
def test_maximum_minimum_ties_split_the_gradient_like_torch(name):
    a = np.array([1.0, 2.0, 3.0, -1.0])
    b = np.array([1.0, 3.0, 2.0, -1.0])  # ties at 0 and 3
    check_against_torch(getattr(mg, name), getattr(torch, name), a, b)
    x, y = leaf(a), leaf(b)
    getattr(x, name)(y).sum().backward()
    assert x.grad.array[0] == y.grad.array[0] == 0.5


def test_maximum_with_scalar_and_broadcast():
    check_against_torch(
        lambda x, y: mg.maximum(x, y), torch.maximum, rand(2, 3, seed=8), np.array([[0.0], [0.5]])
    )
    assert mg.maximum(mg.tensor([1.0, 3.0]), 2.0).tolist() == [2.0, 3.0]


# ---- where ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "shapes",
    [((2, 3), (2, 3), (2, 3)), ((2, 3), (3,), (2, 1)), ((3,), (2, 3), ()), ((), (2,), (2,))],
    ids=str,
)
def test_where_against_torch(shapes):
    c_shape, a_shape, b_shape = shapes
    cond = rand(*c_shape, seed=9) > 0

    def mine(a, b):
        return mg.where(mg.tensor(cond), a, b)

    def theirs(a, b):
        return torch.where(torch.tensor(cond), a, b)

    arrays = rand(*a_shape, seed=10), rand(*b_shape, seed=11)
    check_against_torch(mine, theirs, *arrays)
    check_grads(mine, *arrays)


def test_where_gradgradcheck_and_scalar_branches():
    cond = mg.tensor([True, False, True])
    check_grads(
        lambda a, b: mg.where(cond, a * a, b * b * b),
        rand(3, seed=12),
        rand(3, seed=13),
        second=True,
    )
    x, tx = leaf([1.0, -2.0, 3.0]), tleaf([1.0, -2.0, 3.0])
    out, tout = mg.where(x > 0, x, 0.0), torch.where(tx > 0, tx, 0.0)
    assert_close(out, tout)
    out.sum().backward()
    tout.sum().backward()
    assert_close(x.grad, tx.grad)
    assert mg.where(cond, 1.0, 0.0).tolist() == [1.0, 0.0, 1.0]
    assert_close(x.where(x > 0, 5.0), tx.where(tx > 0, 5.0))
    assert_close(x.masked_fill(x < 0, 0.0), tx.masked_fill(tx < 0, 0.0))


def test_where_requires_a_bool_condition():
    with pytest.raises(RuntimeError, match="bool"):  # PyTorch's type for it
        mg.where(mg.tensor([1, 0]), mg.tensor([1.0, 2.0]), 0.0)


# ---- dtypes through float32 ops ----------------------------------------------------------
@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "pow", "maximum", "minimum"])
def test_float32_binary_ops_stay_float32_with_float32_gradients(name):
    fn, tfn, pos_a, pos_b = BINARY[name]
    a, b = _inputs((2, 3), (3,), pos_a, pos_b)
    x = mg.tensor(a.astype(np.float32), requires_grad=True)
    y = mg.tensor(b.astype(np.float32), requires_grad=True)
    tx = torch.tensor(a.astype(np.float32), requires_grad=True)
    ty = torch.tensor(b.astype(np.float32), requires_grad=True)
    out, tout = fn(x, y), tfn(tx, ty)
    assert out.dtype == np.float32
    assert_close(out, tout, rtol=1e-5, atol=1e-6)
    out.sum().backward()
    tout.sum().backward()
    assert x.grad.dtype == y.grad.dtype == np.float32
    assert_close(x.grad, tx.grad, rtol=1e-5, atol=1e-6)
    assert_close(y.grad, ty.grad, rtol=1e-5, atol=1e-6)


def test_float32_erf_is_within_2_ulp_of_the_exact_value():
    # float32 has its own loop (a rational approximation, ops/special.py): check it densely,
    # through the saturation at |x| = 4 and past it, against math.erf in double precision
    x = np.linspace(-6, 6, 200_001, dtype=np.float32)
    x = np.concatenate([x, np.float32([1e-30, -1e-30, 1e-38, 3.999999, 4.0, 4.000001])])
    exact = np.array([math.erf(float(v)) for v in x])
    got = mg.tensor(x).erf().numpy()
    assert got.dtype == np.float32
    ulp = np.spacing(np.abs(exact).astype(np.float32)).astype(np.float64)
    assert np.max(np.abs(got - exact) / ulp) <= 2.0
    assert np.all(np.abs(got) <= 1.0)


def test_erf_special_values_in_both_dtypes():
    for dtype in (np.float32, np.float64):
        got = mg.tensor(np.array([np.nan, np.inf, -np.inf, 0.0, -0.0], dtype=dtype)).erf().numpy()
        assert np.isnan(got[0]) and list(got[1:]) == [1.0, -1.0, 0.0, 0.0]
        assert np.signbit(got[4]) and not np.signbit(got[3])  # erf(-0) = -0, as math.erf
