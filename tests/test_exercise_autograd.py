"""The autograd exercise's tests (python -m minigrad.exercises): the backward passes of
the elementwise ops and of sum and mean, each against finite differences in float64.

Like every tests/test_exercise_*.py file, this one imports no PyTorch: a student's copy
runs it with the `student` extra (pytest) on top of minigrad's own dependencies. The
comparisons with PyTorch are in tests/test_elementwise.py and tests/test_reductions.py.
"""

import numpy as np
import pytest

import minigrad as mg
from tests.finite_differences import check_grads, leaf, rand

pytestmark = pytest.mark.lesson_autograd

# name: (function, a must be positive, b must be positive); pow's base is positive (a^b
# for a real b), div's divisor too (away from the pole at 0)
BINARY = {
    "add": (lambda a, b: a + b, False, False),
    "sub": (lambda a, b: a - b, False, False),
    "mul": (lambda a, b: a * b, False, False),
    "div": (lambda a, b: a / b, False, True),
    "pow": (lambda a, b: a**b, True, False),
    "maximum": (mg.maximum, False, False),
    "minimum": (mg.minimum, False, False),
}

# name: (function, domain): "any", "positive", or "away" (no values near the kink at 0,
# which a finite difference would straddle)
UNARY = {
    "exp": (lambda x: x.exp(), "any"),
    "log": (lambda x: x.log(), "positive"),
    "sqrt": (lambda x: x.sqrt(), "positive"),
    "rsqrt": (lambda x: x.rsqrt(), "positive"),
    "sin": (lambda x: x.sin(), "any"),
    "cos": (lambda x: x.cos(), "any"),
    "tanh": (lambda x: x.tanh(), "any"),
    "sigmoid": (lambda x: x.sigmoid(), "any"),
    "relu": (lambda x: x.relu(), "away"),
    "abs": (lambda x: x.abs(), "away"),
    "erf": (lambda x: x.erf(), "any"),
}


@pytest.mark.parametrize("shapes", [((2, 3), (3,)), ((2, 1), (1, 3)), ((), (2,))], ids=str)
@pytest.mark.parametrize("name", list(BINARY))
def test_binary_op_gradcheck(name, shapes):
    """Broadcast shapes: each gradient must be summed back to its input's shape."""
    fn, pos_a, pos_b = BINARY[name]
    check_grads(
        fn, rand(*shapes[0], seed=1, positive=pos_a), rand(*shapes[1], seed=2, positive=pos_b)
    )


@pytest.mark.parametrize("name", list(UNARY))
def test_unary_gradcheck(name):
    fn, domain = UNARY[name]
    x = rand(4, seed=7, positive=domain == "positive")
    if domain == "away":
        x = np.where(np.abs(x) < 0.1, x + 0.3, x)
    check_grads(fn, x)


@pytest.mark.parametrize("name", ["sum", "mean"])
def test_sum_mean_function_forms_and_gradcheck(name):
    a = rand(2, 3, seed=3)
    reduced = getattr(mg, name)(leaf(a), 1)
    np.testing.assert_allclose(reduced.detach().numpy(), getattr(np, name)(a, axis=1), rtol=1e-12)
    check_grads(lambda x: getattr(mg, name)(x, 1), a)
    check_grads(lambda x: getattr(x, name)(dim=0, keepdim=True), a, second=True)
    check_grads(lambda x: getattr(x, name)(), a)
