"""The linear exercise's tests (python -m minigrad.exercises): the matrix product's
backward, through `@` and through F.linear, against finite differences in float64.

No PyTorch here (a student's copy runs this file with the `student` extra); the
comparisons with PyTorch are in tests/test_linalg.py and tests/test_functional_misc.py.
"""

import numpy as np
import pytest

import minigrad.nn.functional as F
from tests.finite_differences import check_grads, leaf, rand

pytestmark = pytest.mark.lesson_linear


@pytest.mark.parametrize(
    "shapes",
    [((3,), (3,)), ((3,), (3, 2)), ((2, 3), (3,)), ((2, 3), (3, 2)), ((2, 1, 2, 3), (3, 3, 2))],
    ids=str,
)
def test_matmul_gradcheck(shapes):
    """Vectors on either side, and batch dims that broadcast."""
    check_grads(lambda a, b: a @ b, rand(*shapes[0], seed=3), rand(*shapes[1], seed=4))


def test_linear_single_output_and_gradcheck():
    x, w, b = rand(2, 4), rand(1, 4, seed=1), rand(1, seed=2)
    np.testing.assert_allclose(
        F.linear(leaf(x), leaf(w), leaf(b)).detach().numpy(), x @ w.T + b, rtol=1e-12
    )
    check_grads(F.linear, x, w, b)
    check_grads(F.linear, rand(2, 3), rand(4, 3, seed=1), rand(4, seed=2), second=True)
