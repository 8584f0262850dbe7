"""Loss functions: F.cross_entropy, F.mse_loss, F.nll_loss, ...

Cross-entropy and the two binary cross-entropies are fused Functions in
`minigrad/ops/loss.py`; the other losses are short compositions of Tensor ops, so their
gradients (and second derivatives) come from the ops they are built from.
"""

import numpy as np

from minigrad.creation import as_tensor, from_numpy
from minigrad.ops.elementwise import where
from minigrad.ops.loss import (
    BinaryCrossEntropy,
    BinaryCrossEntropyWithLogits,
    check_reduction,
    class_index_coefficients,
    class_weights,
)
from minigrad.ops.loss import cross_entropy as _cross_entropy


def _reduce(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def _same_shape(input, target, op):
    if input.shape != target.shape:  # a RuntimeError, as PyTorch's for shapes that do not broadcast
        raise RuntimeError(
            f"{op}: target shape {tuple(target.shape)} must match input shape {tuple(input.shape)} "
            "(minigrad does not broadcast losses: it is almost always a bug)"
        )


def cross_entropy(
    input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean", label_smoothing=0.0
):
    """Cross-entropy between logits `input` (N, C) / (N, C, d1, ...) / (C,) and class indices
    or class probabilities; see `minigrad.ops.loss` for the fused form and its gradient."""
    return _cross_entropy(
        as_tensor(input),
        as_tensor(target),
        weight=weight,
        ignore_index=ignore_index,
        reduction=reduction,
        label_smoothing=label_smoothing,
    )


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    """Negative log-likelihood of log-probabilities `input` at class indices `target`:
    loss_n = -w[t_n] * input[n, t_n]; 'mean' divides by the sum of the w[t_n] used."""
    op = "nll_loss"
    check_reduction(reduction, op)
    if input.ndim == 0:
        raise ValueError(f"{op}: input must have a class dimension, got a 0-d tensor")
    if target.dtype.kind not in "iu":
        raise TypeError(f"{op}: target must hold class indices (int64), got {target.dtype}")
    expected = input.shape[:1] + input.shape[2:] if input.ndim > 1 else ()
    if target.shape != expected:
        raise RuntimeError(
            f"{op}: for input of shape {input.shape} the target must have shape {expected}, got {target.shape}"
        )
    w = class_weights(weight, input.shape[1] if input.ndim > 1 else input.shape[0], op)
    _, w_target = class_index_coefficients(input.shape, target.array, w, ignore_index, 0.0, op)
    # pick input[n, t_n, ...] by indexing, not by a one-hot product: another class's
    # log-probability may be -inf (a masked class), and 0 * -inf would be NaN
    valid = target.array != ignore_index
    picked_class = np.where(valid, target.array, 0)
    if input.ndim == 1:
        index = (picked_class,)
    else:
        grids = np.indices(target.shape, sparse=True)
        index = (grids[0], picked_class, *grids[1:])
    picked = input[index]
    losses = where(from_numpy(valid), -picked * from_numpy(w_target.astype(input.dtype)), 0.0)
    if reduction == "mean":
        total_weight = np.sum(w_target)
        if total_weight == 0:
            # every position ignored: the loss is 0/0 = NaN but the gradient is 0 (as
            # PyTorch); dividing by the zero weight would make the gradient NaN as well
            return losses.sum() * 0.0 + float("nan")
        return losses.sum() / from_numpy(np.asarray(total_weight, dtype=input.dtype))
    return _reduce(losses, reduction)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """(x - y)^2."""
    check_reduction(reduction, "mse_loss")
    _same_shape(input, target, "mse_loss")
    diff = input - target
    return _reduce(diff * diff, reduction)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """|x - y|."""
    check_reduction(reduction, "l1_loss")
    _same_shape(input, target, "l1_loss")
    return _reduce((input - target).abs(), reduction)


# --8<-- [start:robust_losses]
def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta (d = x - y); beta=0 is L1."""
    check_reduction(reduction, "smooth_l1_loss")
    _same_shape(input, target, "smooth_l1_loss")
    if beta < 0:
        raise ValueError(f"smooth_l1_loss: beta must be non-negative, got {beta}")
    d = input - target
    a = d.abs()
    if beta == 0:
        return _reduce(a, reduction)
    return _reduce(where(a < beta, d * d * (0.5 / beta), a - 0.5 * beta), reduction)


def huber_loss(input, target, reduction="mean", delta=1.0):
    """0.5 d^2 where |d| <= delta, else delta (|d| - 0.5 delta); = delta * smooth_l1(beta=delta)."""
    check_reduction(reduction, "huber_loss")
    _same_shape(input, target, "huber_loss")
    if delta <= 0:
        raise ValueError(f"huber_loss: delta must be positive, got {delta}")
    d = input - target
    a = d.abs()
    return _reduce(where(a <= delta, d * d * 0.5, (a - 0.5 * delta) * delta), reduction)
    # --8<-- [end:robust_losses]


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """-w (y log x + (1 - y) log(1 - x)) for probabilities x; each log is clamped at -100
    as in PyTorch, so x = 0 or 1 gives a large finite loss instead of inf."""
    op = "binary_cross_entropy"
    check_reduction(reduction, op)
    _same_shape(input, target, op)
    if np.any((input.array < 0) | (input.array > 1)):
        raise RuntimeError(
            f"{op}: all elements of input should be between 0 and 1 (probabilities; use "
            "binary_cross_entropy_with_logits for logits)"
        )
    loss = BinaryCrossEntropy.apply(input, target)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


# --8<-- [start:bce_with_logits]
def binary_cross_entropy_with_logits(
    input, target, weight=None, size_average=None, reduce=None, reduction="mean", pos_weight=None
):
    """Sigmoid + binary cross-entropy in one stable formula (see
    ops/loss.py: BinaryCrossEntropyWithLogits):
    loss = (1 - y) x + (1 + (p - 1) y) softplus(-x), with p = pos_weight (default 1)."""
    op = "binary_cross_entropy_with_logits"
    check_reduction(reduction, op)
    _same_shape(input, target, op)
    if pos_weight is not None:
        pos_weight = as_tensor(pos_weight, dtype=input.dtype)
    loss = BinaryCrossEntropyWithLogits.apply(input, target, pos_weight)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)
    # --8<-- [end:bce_with_logits]


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """KL(target || exp(input)) pointwise: y (log y - x), with 0 where y = 0; input holds
    log-probabilities. reduction='batchmean' divides the sum by the batch size (the
    mathematically correct KL); 'mean' divides by the number of elements, as PyTorch."""
    op = "kl_div"
    if reduction not in ("mean", "sum", "none", "batchmean"):
        raise ValueError(f"{op}: reduction must be 'mean', 'batchmean', 'sum' or 'none', got {reduction!r}")
    _same_shape(input, target, op)
    if log_target:
        loss = target.exp() * (target - input)
    else:
        positive = target > 0
        safe_log = where(positive, target, 1.0).log()  # log(1) = 0 where target is 0
        loss = where(positive, target * (safe_log - input), 0.0)
    if reduction == "batchmean":
        return loss.sum() / (input.shape[0] if input.ndim else 1)
    return _reduce(loss, reduction)
