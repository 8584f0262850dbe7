"""The normalization exercise's tests (python -m minigrad.exercises): the layer, RMS,
group and batch norm backwards, first and second derivatives, against finite
differences in float64.

No PyTorch here (a student's copy runs this file with the `student` extra); the
comparisons with PyTorch are in tests/test_normalization.py.
"""

import pytest

import minigrad as mg
import minigrad.nn.functional as F
from tests.finite_differences import check_grads, rand

pytestmark = pytest.mark.lesson_normalization


def test_gradcheck_layer_norm():
    check_grads(
        lambda x, w, b: F.layer_norm(x, (2, 3), w, b),
        rand(2, 2, 3),
        rand(2, 3, positive=True),
        rand(2, 3, seed=1),
        second=True,
    )
    check_grads(lambda x: F.layer_norm(x, (5,)), rand(3, 5), second=True)


def test_gradcheck_rms_norm():
    check_grads(
        lambda x, w: F.rms_norm(x, (4,), w, eps=1e-3),
        rand(3, 4),
        rand(4, positive=True),
        second=True,
    )
    check_grads(lambda x: F.rms_norm(x, (2, 2)), rand(2, 2, 2), second=True)


def test_gradcheck_group_norm():
    check_grads(
        lambda x, w, b: F.group_norm(x, 2, w, b),
        rand(2, 4, 3),
        rand(4, positive=True),
        rand(4, seed=1),
        second=True,
    )
    check_grads(lambda x: F.group_norm(x, 3, eps=1e-3), rand(2, 3, 2, 2), second=True)


@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
def test_gradcheck_batch_norm(training):
    rm, rv = mg.tensor(rand(3, seed=8)), mg.tensor(rand(3, seed=9, positive=True))

    def fn(x, w, b):
        # copies of the buffers: the finite differences call fn many times
        return F.batch_norm(x, rm.clone(), rv.clone(), w, b, training=training)

    check_grads(fn, rand(4, 3, 2), rand(3, positive=True), rand(3, seed=1), second=True)
    check_grads(lambda x: F.batch_norm(x, None, None, training=True), rand(5, 2), second=True)
