"""The pooling exercise's tests (python -m minigrad.exercises): max, average, adaptive
and 1-D pooling on the reference kernels, first and second derivatives, against finite
differences in float64.

They run on the NumPy backend, whose kernels (minigrad/kernels/reference/pool.py) hold
the exercise. No PyTorch here (a student's copy runs this file with the `student`
extra); tests/test_pool.py runs the same check on the Numba kernels and compares both
with PyTorch.
"""

import pytest

import minigrad as mg
import minigrad.nn.functional as F
from tests.finite_differences import check_grads, rand

pytestmark = pytest.mark.lesson_pool


def test_gradients_against_finite_differences():
    x = rand(2, 2, 5, 6, seed=6)  # distinct values: no ties for the max to break
    with mg.backends.use("numpy"):
        check_grads(
            lambda a: F.max_pool2d(a, 3, 2, 1, dilation=(1, 2), ceil_mode=True), x, second=True
        )
        check_grads(
            lambda a: F.avg_pool2d(a, 3, 2, 1, ceil_mode=True, count_include_pad=False),
            x,
            second=True,
        )
        check_grads(lambda a: F.adaptive_avg_pool2d(a, (3, 4)), x, second=True)
        check_grads(lambda a: F.max_pool1d(a.reshape(4, 6, 5), 2, 1, 1) ** 2, x)
