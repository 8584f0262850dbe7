"""Losses on CUDA tensors (the simulated GPU): values and gradients equal the CPU's,
float32 and float64, and nothing is copied between host and device (tests/cuda_same_as_cpu.py)."""

import numpy as np
import pytest

import minigrad.nn.functional as F
from tests.cuda_same_as_cpu import assert_same_as_cpu

rng = np.random.default_rng(1)
LOGITS = rng.normal(size=(4, 3)) * 2
LOGITS_2D = rng.normal(size=(2, 3, 2, 2))
CLASSES = np.array([0, 2, 1, 2])
CLASSES_IGNORED = np.array([0, -100, 1, 2])
CLASSES_2D = rng.integers(0, 3, size=(2, 2, 2))
PROBS = rng.dirichlet(np.ones(3), size=4)
WEIGHT = np.array([0.5, 2.0, 1.0])
X = rng.normal(size=(4, 3))
Y = rng.normal(size=(4, 3))
P = rng.uniform(0.05, 0.95, size=(4, 3))
BITS = (rng.uniform(size=(4, 3)) > 0.5).astype(np.float64)
POSITIVE = rng.uniform(0.5, 2.0, size=(4, 3))
SIGNS = np.array([1.0, -1.0, 1.0, -1.0])
MULTI = np.array([[0, 2, -1], [1, -1, 0], [2, 1, 0], [-1, 0, 0]])

# (function of the tensors, input arrays, indices of float inputs that take no gradient)
CASES = {
    "cross_entropy": (F.cross_entropy, [LOGITS, CLASSES], ()),
    "cross_entropy_sum_weight": (
        lambda x, t, w: F.cross_entropy(x, t, weight=w, reduction="sum"),
        [LOGITS, CLASSES, WEIGHT],
        (2,),
    ),
    "cross_entropy_ignore_smoothing": (
        lambda x, t: F.cross_entropy(x, t, label_smoothing=0.1),
        [LOGITS, CLASSES_IGNORED],
        (),
    ),
    "cross_entropy_none_2d": (
        lambda x, t: F.cross_entropy(x, t, reduction="none"),
        [LOGITS_2D, CLASSES_2D],
        (),
    ),
    "cross_entropy_probs": (
        lambda x, p: F.cross_entropy(x, p, label_smoothing=0.2),
        [LOGITS, PROBS],
        (),
    ),
    "cross_entropy_all_ignored": (
        lambda x, t: F.cross_entropy(x, t * 0 - 100),
        [LOGITS, CLASSES],
        (),
    ),
    "nll_loss": (lambda x, t: F.nll_loss(x.log_softmax(1), t), [LOGITS, CLASSES_IGNORED], ()),
    "nll_loss_weight_2d": (
        lambda x, t, w: F.nll_loss(x, t, weight=w, reduction="none"),
        [LOGITS_2D, CLASSES_2D, WEIGHT],
        (2,),
    ),
    "mse_loss": (F.mse_loss, [X, Y], ()),
    "l1_loss": (lambda x, y: F.l1_loss(x, y, reduction="sum"), [X, Y], ()),
    "smooth_l1_loss": (lambda x, y: F.smooth_l1_loss(x, y, beta=0.5), [X, Y], ()),
    "huber_loss": (lambda x, y: F.huber_loss(x, y, delta=0.7), [X, Y], ()),
    "binary_cross_entropy": (F.binary_cross_entropy, [P, BITS], ()),
    "binary_cross_entropy_weight": (
        lambda p, y, w: F.binary_cross_entropy(p, y, weight=w),
        [P, P[::-1], X],
        (2,),
    ),
    "bce_with_logits": (F.binary_cross_entropy_with_logits, [X, BITS], ()),
    "bce_with_logits_pos_weight": (
        lambda x, y, p: F.binary_cross_entropy_with_logits(x, y, pos_weight=p),
        [X, P, WEIGHT],
        (),
    ),
    "kl_div": (
        lambda x, y: F.kl_div(x.log_softmax(1), y, reduction="batchmean"),
        [LOGITS, PROBS],
        (),
    ),
    "kl_div_log_target": (lambda x, y: F.kl_div(x, y, log_target=True), [X, Y], ()),
    "gaussian_nll_loss": (F.gaussian_nll_loss, [X, Y, POSITIVE], ()),
    "poisson_nll_loss": (lambda x, y: F.poisson_nll_loss(x, y, full=True), [X, POSITIVE * 2], ()),
    "margin_ranking_loss": (
        lambda a, b, y: F.margin_ranking_loss(a, b, y, margin=0.3),
        [X[:, 0], Y[:, 0], SIGNS],
        (2,),
    ),
    "hinge_embedding_loss": (F.hinge_embedding_loss, [X[:, 0], SIGNS], (1,)),
    "soft_margin_loss": (F.soft_margin_loss, [X[:, 0], SIGNS], (1,)),
    "cosine_embedding_loss": (F.cosine_embedding_loss, [X, Y, SIGNS], (2,)),
    "triplet_margin_loss": (F.triplet_margin_loss, [X, Y, P], ()),
    "multi_margin_loss": (F.multi_margin_loss, [X, CLASSES], ()),
    "multilabel_margin_loss": (F.multilabel_margin_loss, [X, MULTI], ()),
    "multilabel_soft_margin_loss": (F.multilabel_soft_margin_loss, [X, BITS], (1,)),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", CASES)
def test_loss_on_cuda_equals_cpu(simulated_gpu, name, dtype):
    fn, arrays, constants = CASES[name]
    assert_same_as_cpu(simulated_gpu, fn, arrays, dtype, constants)
