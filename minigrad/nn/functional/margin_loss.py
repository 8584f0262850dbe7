"""Margin losses: a score should beat another by at least a margin.

    margin_ranking_loss      max(0, -y (x1 - x2) + margin): x1 should rank above x2 when y = 1
    hinge_embedding_loss     x where y = 1, max(0, margin - x) where y = -1 (x a distance)
    soft_margin_loss         log(1 + exp(-y x)): the logistic loss of a two-class label y = +-1
    cosine_embedding_loss    1 - cos(x1, x2) where y = 1, max(0, cos(x1, x2) - margin) where y = -1
    triplet_margin_loss      max(0, d(a, p) - d(a, n) + margin): the anchor nearer the positive
    multi_margin_loss        sum over i != y of max(0, margin - x[y] + x[i])^p / C (the SVM's hinge)
    multilabel_margin_loss   the same, for every target class against every non-target class
    multilabel_soft_margin_loss  the logistic loss of each class, averaged over the classes

All are compositions of differentiable Tensor ops (relu for each max(0, .), whose
gradient, 0 at the kink, is torch's), so their gradients, with respect to the scores
and to float targets alike, are those ops'. Class-index targets pick scores through
index arrays built here. Shapes broadcast where torch broadcasts them.
"""

import numpy as np

from minigrad.array_module import array_module
from minigrad.creation import from_numpy
from minigrad.nn.functional.activation import logsigmoid
from minigrad.nn.functional.distance import pairwise_distance
from minigrad.nn.functional.loss import _reduce, check_reduction, legacy_reduction
from minigrad.ops import activation as _act
from minigrad.ops.broadcast import check_broadcast
from minigrad.ops.elementwise import minimum, where


def _hinge(z):
    """max(0, z), with torch's gradient at z = 0 (none)."""
    return z.relu()


def _softplus(z):
    """log(1 + exp(z)) with no overflow for large z (softplus past no threshold)."""
    return _act.Softplus.apply(z, beta=1.0, threshold=np.inf)


def margin_ranking_loss(
    input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"
):
    """max(0, -y (x1 - x2) + margin): with y = 1, x1 should exceed x2 by the margin; with
    y = -1, x2 should exceed x1. The three tensors need the same number of dims (and broadcast)."""
    op = "margin_ranking_loss"
    reduction = legacy_reduction(size_average, reduce, reduction, op)
    if not input1.ndim == input2.ndim == target.ndim:
        raise RuntimeError(
            f"{op}: All input tensors should have same dimension but got sizes: input1: "
            f"{tuple(input1.shape)}, input2: {tuple(input2.shape)}, target: {tuple(target.shape)}"
        )
    check_broadcast(
        op, input1.shape, input2.shape, target.shape, names=("input1", "input2", "target")
    )
    return _reduce((-target * (input1 - input2) + margin).clamp_min(0.0), reduction)


def hinge_embedding_loss(
    input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"
):
    """x where y = 1 and max(0, margin - x) where y = -1: `input` is a distance that
    should be small for similar pairs (y = 1) and at least the margin for dissimilar ones.
    (As torch: where y is neither, both terms count.)"""
    op = "hinge_embedding_loss"
    reduction = legacy_reduction(size_average, reduce, reduction, op)
    check_broadcast(op, input.shape, target.shape, names=("input", "target"))
    margin_term = where(target != -1, 0.0, (margin - input).clamp_min(0.0))
    self_term = where(target != 1, 0.0, input)
    return _reduce(self_term + margin_term, reduction)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """log(1 + exp(-y x)) for labels y = +-1: the two-class logistic loss."""
    op = "soft_margin_loss"
    reduction = legacy_reduction(size_average, reduce, reduction, op)
    check_broadcast(op, input.shape, target.shape, names=("input", "target"))
    return _reduce(_softplus(-input * target), reduction)


COSINE_EPSILON = 1e-12  # added to each squared norm, as torch


def cosine_embedding_loss(
    input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"
):
    """1 - cos(x1, x2) where y = 1 (pull together), max(0, cos(x1, x2) - margin) where
    y = -1 (push apart), cos taken along dim 1 of (N, D) inputs with a (N,) target, or
    of (D,) inputs with a 0-d target: x1.x2 / sqrt((|x1|^2 + 1e-12)(|x2|^2 + 1e-12))."""
    op = "cosine_embedding_loss"
    reduction = legacy_reduction(size_average, reduce, reduction, op)
    if target.ndim > 1:
        raise RuntimeError(
            f"{op}: 0D or 1D target tensor expected, multi-target not supported, got {target.shape}"
        )
    if target.ndim == 1 and not input1.ndim == input2.ndim == 2:
        raise RuntimeError(
            f"{op}: 1D target tensor expects 2D input tensors, but found inputs with sizes "
            f"{tuple(input1.shape)} and {tuple(input2.shape)}."
        )
    if target.ndim == 0 and not input1.ndim == input2.ndim == 1:
        raise RuntimeError(
            f"{op}: 0D target tensor expects 1D input tensors, but found inputs with sizes "
            f"{tuple(input1.shape)} and {tuple(input2.shape)}."
        )
    check_broadcast(op, input1.shape, input2.shape, names=("input1", "input2"))
    dim = target.ndim  # the feature dim: 1 of (N, D), 0 of (D,)
    dot = (input1 * input2).sum(dim)
    squares1 = (input1 * input1).sum(dim) + COSINE_EPSILON
    squares2 = (input2 * input2).sum(dim) + COSINE_EPSILON
    cos = dot / (squares1 * squares2).sqrt()
    check_broadcast(op, cos.shape, target.shape, names=("cos", "target"))
    pull = where(target == 1, 1.0 - cos, 0.0)
    push = where(target == -1, (cos - margin).clamp_min(0.0), 0.0)
    return _reduce(pull + push, reduction)


def _check_triplet(anchor, positive, negative, margin, op):
    if margin <= 0:
        raise ValueError(f"{op}: margin must be greater than 0, got {margin}")
    if not anchor.ndim == positive.ndim == negative.ndim:
        raise RuntimeError(
            f"{op}: The anchor, positive, and negative tensors are expected to have the same "
            f"number of dimensions, but got: anchor {anchor.ndim}D, positive {positive.ndim}D, and "
            f"negative {negative.ndim}D inputs"
        )


def _triplet(d_pos, d_neg, margin, reduction):
    return _reduce((d_pos - d_neg + margin).clamp_min(0.0), reduction)


def triplet_margin_loss(
    anchor,
    positive,
    negative,
    margin=1.0,
    p=2,
    eps=1e-6,
    swap=False,
    size_average=None,
    reduce=None,
    reduction="mean",
):
    """max(0, d(a, p) - d(a, n) + margin), d the p-norm distance of F.pairwise_distance
    (eps included) over the last dim: the anchor should be nearer the positive than the
    negative by the margin. swap=True uses min(d(a, n), d(p, n)), the harder negative
    distance (Balntas et al. 2016)."""
    op = "triplet_margin_loss"
    reduction = legacy_reduction(size_average, reduce, reduction, op)
    _check_triplet(anchor, positive, negative, margin, op)
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = minimum(d_neg, pairwise_distance(positive, negative, p, eps))
    return _triplet(d_pos, d_neg, margin, reduction)


def triplet_margin_with_distance_loss(
    anchor, positive, negative, *, distance_function=None, margin=1.0, swap=False, reduction="mean"
):
    """triplet_margin_loss with any distance: `distance_function(x, y)` (default
    F.pairwise_distance) returns one non-negative distance per row."""
    op = "triplet_margin_with_distance_loss"
    check_reduction(reduction, op)
    _check_triplet(anchor, positive, negative, margin, op)
    distance = distance_function if distance_function is not None else pairwise_distance
    d_pos, d_neg = distance(anchor, positive), distance(anchor, negative)
    if swap:
        d_neg = minimum(d_neg, distance(positive, negative))
    return _triplet(d_pos, d_neg, margin, reduction)


def _class_scores(input, op):
    """input as (N, C) and whether it was an unbatched (C,)."""
    if input.ndim not in (1, 2) or input.shape[-1] == 0:
        raise RuntimeError(
            f"{op}: Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
            f"{tuple(input.shape)}"
        )
    return (input.unsqueeze(0), True) if input.ndim == 1 else (input, False)


def _int_target(target, op):
    if target.dtype.kind not in "iu":
        raise RuntimeError(
            f"{op}: expected scalar type Long but found {target.dtype} for the target (class "
            "indices)"
        )
    return target.array.astype(np.int64)


def multi_margin_loss(
    input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None, reduction="mean"
):
    """The multi-class hinge (Weston-Watkins SVM): for scores x (N, C) and classes y (N,),
    loss_n = sum over i != y of w[y] max(0, margin - x[y] + x[i])^p / C, p = 1 or 2: every
    other class should score at least the margin below the true one."""
    op = "multi_margin_loss"
    reduction = legacy_reduction(size_average, reduce, reduction, op)
    if p not in (1, 2):
        raise ValueError(f"{op}: only p == 1 and p == 2 supported, got p={p}")
    if weight is not None and weight.ndim != 1:
        raise ValueError(f"{op}: weight must be one-dimensional, got shape {tuple(weight.shape)}")
    x, unbatched = _class_scores(input, op)
    N, C = x.shape
    y = _int_target(target, op).reshape(-1)
    if y.shape != (N,):
        raise RuntimeError(
            f"{op}: target tensor should be 1-D with size equal to the number of input samples "
            f"(batch size). Expected target size [{N}], but got {list(target.shape)}. Input has "
            f"shape {list(input.shape)}."
        )
    xp = array_module(y)
    if xp is np and np.any((y < 0) | (y >= C)):  # on a GPU, a copy to the host: not checked
        raise RuntimeError(f"{op}: target out of range: got {y.tolist()} for {C} classes")
    if weight is not None and weight.shape != (C,):
        raise RuntimeError(
            f"{op}: inconsistent weight size, expected {C} but got {list(weight.shape)}"
        )
    rows = xp.arange(N)
    true_score = x[rows, y].unsqueeze(1)  # (N, 1)
    others = from_numpy((xp.arange(C) != y[:, None]).astype(x.dtype))  # 0 at the true class
    z = _hinge(x - true_score + margin) * others
    if p == 2:
        z = z * z
    if weight is not None:
        z = z * weight[y].unsqueeze(1)
    loss = z.sum(1) / C
    return _reduce(loss.squeeze(0) if unbatched else loss, reduction)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """The hinge of multi_margin_loss for several true classes per sample: `target` (N, C)
    lists the sample's classes, ended by the first -1 (the rest is ignored);
    loss_n = sum over listed classes j and non-listed classes i of max(0, 1 - (x[j] - x[i])) / C."""
    op = "multilabel_margin_loss"
    reduction = legacy_reduction(size_average, reduce, reduction, op)
    x, unbatched = _class_scores(input, op)
    N, C = x.shape
    y = _int_target(target, op)
    if y.shape != tuple(input.shape):
        raise RuntimeError(
            f"{op}: inconsistent target size: {list(target.shape)} for input of size: "
            f"{list(input.shape)}"
        )
    y = y.reshape(N, C)
    # position k of a row is listed if no -1 comes at or before it
    listed = np.cumprod(y != -1, axis=1).astype(bool)
    xp = array_module(y)
    # not checked on a GPU, where asking is a copy to the host
    if xp is np and np.any(listed & ((y < 0) | (y >= C))):
        raise RuntimeError(
            f"{op}: argument #2 'target' is out of range: got {target.tolist()} for {C} classes"
        )
    classes = np.where(listed, y, 0)
    # is_target[n, i]: class i is listed in row n (unlisted positions name class C, no class)
    is_target = np.any(np.where(listed, y, C)[:, :, None] == xp.arange(C), axis=1)
    listed_scores = x[xp.arange(N)[:, None], classes]  # (N, C): x[j] for each listed position
    # pairs (listed position k, class i not listed): 1 - (x[j_k] - x[i])
    pairs = from_numpy((listed[:, :, None] & ~is_target[:, None, :]).astype(x.dtype))
    z = _hinge(1.0 - listed_scores.unsqueeze(2) + x.unsqueeze(1)) * pairs
    loss = z.sum((1, 2)) / C
    return _reduce(loss.squeeze(0) if unbatched else loss, reduction)


def multilabel_soft_margin_loss(
    input, target, weight=None, size_average=None, reduce=None, reduction="mean"
):
    """The logistic loss of each class, -(y log sigmoid(x) + (1 - y) log sigmoid(-x)),
    times `weight` (per class), averaged over the classes (the last dim)."""
    op = "multilabel_soft_margin_loss"
    reduction = legacy_reduction(size_average, reduce, reduction, op)
    check_broadcast(op, input.shape, target.shape, names=("input", "target"))
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.ndim - 1
    return _reduce(loss.sum(class_dim) / input.shape[class_dim], reduction)
