"""The losses exercise's tests (python -m minigrad.exercises): the softmax, log-softmax
and cross-entropy backwards against finite differences in float64.

No PyTorch here (a student's copy runs this file with the `student` extra); the
comparisons with PyTorch are in tests/test_functional_activations.py and
tests/test_functional_losses.py.
"""

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F
from tests.finite_differences import check_grads, leaf, rand

pytestmark = pytest.mark.lesson_losses


def long(values):
    return mg.tensor(np.asarray(values, dtype=np.int64))


@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_softmax_gradgradcheck(op, dim):
    fn = getattr(F, op)
    check_grads(lambda x: fn(x, dim=dim), rand(2, 3, seed=dim + 5), second=True)


def test_cross_entropy_spatial_gradcheck():
    """Classes on dim 1 of an (N, C, H, W) input, with label smoothing."""
    target = long(np.random.default_rng(7).integers(0, 3, size=(2, 2, 3)))
    check_grads(lambda x: F.cross_entropy(x, target, label_smoothing=0.1), rand(2, 3, 2, 3, seed=8))


def test_nll_loss_gradcheck_and_composes_with_log_softmax():
    target = long([0, 2, 1])
    w = mg.tensor(np.array([1.0, 0.5, 2.0]))
    check_grads(
        lambda x: F.nll_loss(F.log_softmax(x, dim=1), target, weight=w), rand(3, 3), second=True
    )
    x = leaf(rand(3, 3))
    composed = F.nll_loss(F.log_softmax(x, dim=1), target, weight=w)
    np.testing.assert_allclose(
        composed.detach().numpy(),
        F.cross_entropy(x, target, weight=w).detach().numpy(),
        rtol=1e-6,
        atol=1e-8,
    )
