"""The convolution exercise's tests (python -m minigrad.exercises): convolutions on the
reference kernels (im2col, a matrix product, col2im), first and second derivatives,
against finite differences in float64.

They run on the NumPy backend, whose kernels (minigrad/kernels/reference/) hold the
exercise; the Numba kernels would compute the same results without them. No PyTorch
here (a student's copy runs this file with the `student` extra); the comparisons with
PyTorch and between the backends are in tests/test_conv.py.
"""

import pytest

import minigrad as mg
import minigrad.nn.functional as F
from tests.finite_differences import check_grads, rand

pytestmark = pytest.mark.lesson_conv


@pytest.fixture(autouse=True)
def reference_backend():
    with mg.backends.use("numpy"):
        yield


def test_conv2d_gradients_and_second_derivatives():
    x, w, b = rand(2, 4, 5, 4, seed=1), rand(4, 2, 3, 2, seed=2), rand(4, seed=3)
    check_grads(
        lambda x, w, b: F.conv2d(x, w, b, stride=(2, 1), padding=1, dilation=(1, 2), groups=2),
        x,
        w,
        b,
    )
    x, w, b = rand(1, 2, 4, 4, seed=1), rand(2, 2, 2, 2, seed=2), rand(2, seed=3)
    check_grads(lambda x, w, b: F.conv2d(x, w, b, stride=2, padding=1), x, w, b, second=True)


def test_conv_transpose2d_gradients_and_second_derivatives():
    x, w, b = rand(1, 2, 3, 3, seed=1), rand(2, 2, 2, 3, seed=2), rand(2, seed=3)
    check_grads(
        lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1), x, w, b
    )
    check_grads(
        lambda x, w, b: F.conv_transpose2d(x, w, b, padding=1, output_padding=1, dilation=2),
        x,
        w,
        b,
        second=True,
    )


def test_conv1d_gradients_and_second_derivatives():
    x, w, b = rand(2, 2, 6, seed=1), rand(3, 2, 3, seed=2), rand(3, seed=3)
    check_grads(lambda x, w, b: F.conv1d(x, w, b, stride=2, padding="valid"), x, w, b, second=True)
