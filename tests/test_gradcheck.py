"""gradcheck / gradgradcheck: they pass correct gradients and catch wrong ones with a
message that names the input, the element and both values."""

import re

import numpy as np
import pytest

import minigrad as mg
from minigrad.autograd import Function, GradcheckError, gradcheck, gradgradcheck

from .helpers import leaf, rand

# The torch names whose behaviour this file checks against torch (read by tools/api_coverage.py).
TORCH_API = [
    "torch.autograd.gradcheck",
    "torch.autograd.gradgradcheck",
]


# ---- user-defined Functions with known (wrong) gradients ----------------------------------------
class Cube(Function):
    """y = x^3;  dL/dx = dL/dy * 3 x^2 (correct, and twice differentiable)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.array**3

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 3.0 * x * x


class WrongSquare(Function):
    """y = x^2, with the deliberately wrong gradient 3x instead of 2x."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.array**2

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 3.0 * x


class FlatSecondDerivative(Function):
    """y = x^3 with a right first derivative whose backward uses a detached x: its
    second derivative comes out as 0 instead of 6x."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.array**3

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 3.0 * x.detach() * x.detach()


class ScaledWithOffset(Function):
    """y = c x, whose backward adds a constant `offset` error to the gradient."""

    @staticmethod
    def forward(ctx, x, c, offset):
        ctx.c, ctx.offset = c, offset
        return x.array * c

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.c + ctx.offset, None, None


# ---- correct functions pass ---------------------------------------------------------------------
CORRECT = {
    "broadcast_mul_tanh": (lambda a, b: (a * b).tanh(), [(3, 4), (4,)]),
    "matmul": (lambda a, b: a @ b, [(2, 3), (3, 4)]),
    "softmax": (lambda a: a.softmax(dim=1), [(2, 5)]),
    "log_softmax_sum": (lambda a: a.log_softmax(dim=0).sum(dim=1), [(3, 2)]),
    "logsumexp": (lambda a: a.logsumexp(dim=(0, 1)), [(2, 3)]),
    "var_mean": (lambda a: a.var(dim=0) + a.mean(), [(4, 3)]),
    "div_exp": (lambda a, b: a.exp() / (b * b + 1.0), [(2, 3), (2, 3)]),
    "user_cube": (lambda a: Cube.apply(a) * a.sin(), [(3,)]),
    "two_outputs": (lambda a, b: (a * b, (a - b).sum()), [(2, 2), (2, 2)]),
}


@pytest.mark.parametrize("name", list(CORRECT))
def test_gradcheck_passes_correct_functions(name):
    fn, shapes = CORRECT[name]
    inputs = [leaf(rand(*s, seed=i)) for i, s in enumerate(shapes)]
    assert gradcheck(fn, inputs) is True


@pytest.mark.parametrize(
    "name", ["broadcast_mul_tanh", "matmul", "softmax", "div_exp", "user_cube"]
)
def test_gradgradcheck_passes_correct_functions(name):
    fn, shapes = CORRECT[name]
    inputs = [leaf(rand(*s, seed=i)) for i, s in enumerate(shapes)]
    assert gradgradcheck(fn, inputs) is True


def test_gradcheck_skips_inputs_that_do_not_require_grad_and_accepts_numbers():
    x = leaf(rand(3))
    c = leaf(rand(3, seed=1), requires_grad=False)
    assert gradcheck(lambda a, b, k: (a * b) ** k, [x, c, 2])
    assert gradcheck(lambda a, k: ScaledWithOffset.apply(a, k, 0.0), [x, 1.5])


def test_gradcheck_accepts_a_single_tensor_instead_of_a_list():
    assert gradcheck(lambda a: a.exp(), leaf(rand(2)))


def test_gradcheck_leaves_the_inputs_as_they_were():
    a = rand(2, 3)
    x = leaf(a)
    gradcheck(lambda t: t.sin() * t, [x])
    np.testing.assert_array_equal(x.array, a)
    assert x.grad is None


def test_gradgradcheck_with_given_grad_outputs():
    x = leaf(rand(3))
    v = leaf(rand(3, seed=2))
    assert gradgradcheck(lambda a: a.tanh() * a, [x], grad_outputs=[v])


# ---- wrong gradients are caught, and the message says where ---------------------------------
def test_gradcheck_names_the_input_the_element_and_both_values():
    a = leaf(rand(2))
    b = leaf([[0.0, 0.0], [0.0, 2.0]])  # 3x == 2x at 0: only element (1, 1) is wrong
    with pytest.raises(GradcheckError) as info:
        gradcheck(lambda p, q: p.sum() + WrongSquare.apply(q).sum(), [a, b])
    message = str(info.value)
    assert "input 1" in message
    assert "(1, 1)" in message
    analytical = re.search(r"analytical (\S+)", message)
    numerical = re.search(r"numerical (\S+)", message)
    assert analytical and numerical, message
    assert float(analytical.group(1)) == pytest.approx(6.0)  # 3 * 2
    assert float(numerical.group(1)) == pytest.approx(4.0, rel=1e-6)  # 2 * 2


def test_gradcheck_error_is_a_runtime_error():
    assert issubclass(GradcheckError, RuntimeError)
    with pytest.raises(RuntimeError):
        gradcheck(lambda q: WrongSquare.apply(q), [leaf([1.0])])


def test_gradcheck_can_return_false_instead_of_raising():
    assert (
        gradcheck(lambda q: WrongSquare.apply(q), [leaf([1.0, 2.0])], raise_exception=False)
        is False
    )
    assert gradcheck(lambda q: Cube.apply(q), [leaf([1.0, 2.0])], raise_exception=False) is True


def test_gradcheck_tolerance():
    x = leaf(rand(4))
    # an error of 1e-7 is inside atol=1e-5; an error of 1e-3 is not
    assert gradcheck(lambda a: ScaledWithOffset.apply(a, 2.0, 1e-7), [x])
    with pytest.raises(GradcheckError, match="input 0"):
        gradcheck(lambda a: ScaledWithOffset.apply(a, 2.0, 1e-3), [x])
    assert gradcheck(lambda a: ScaledWithOffset.apply(a, 2.0, 1e-3), [x], atol=1e-2)


def test_gradgradcheck_catches_a_wrong_second_derivative():
    x = leaf([1.0, -2.0, 0.5])
    assert gradcheck(lambda a: FlatSecondDerivative.apply(a), [x])  # the first derivative is right
    with pytest.raises(GradcheckError) as info:
        gradgradcheck(lambda a: FlatSecondDerivative.apply(a), [x])
    message = str(info.value)
    assert "input 0" in message and "analytical" in message and "numerical" in message
    assert gradgradcheck(lambda a: Cube.apply(a), [x])


def test_gradgradcheck_catches_a_wrong_first_derivative_too():
    with pytest.raises(GradcheckError):
        gradgradcheck(lambda a: WrongSquare.apply(a) * a, [leaf([1.0, 2.0])])


# ---- bad arguments ------------------------------------------------------------------------
def test_gradcheck_rejects_float32_inputs():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(ValueError, match=r"input 0.*float32.*float64"):
        gradcheck(lambda a: a.exp(), [x])
    y = leaf([1.0])
    with pytest.raises(ValueError, match=r"input 1.*float32"):
        gradcheck(lambda a, b: a * b, [y, x])


def test_gradgradcheck_rejects_float32_inputs():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(ValueError, match="float64"):
        gradgradcheck(lambda a: a.exp(), [x])


def test_gradcheck_needs_an_input_that_requires_grad():
    with pytest.raises(ValueError, match="requires grad"):
        gradcheck(lambda a: a.exp(), [leaf([1.0], requires_grad=False)])
