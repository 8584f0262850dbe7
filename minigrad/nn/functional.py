"""minigrad.nn.functional: activations, losses and helpers as functions (torch.nn.functional).

Activations are Functions in `minigrad.ops.activation`; cross-entropy is fused in
`minigrad.ops.loss`; the other losses are short compositions of Tensor ops, so their
gradients (and second derivatives) come from the ops they are built from.
"""

import warnings

import numpy as np

from minigrad import random as _random
from minigrad._args import normalize_dim
from minigrad.creation import from_numpy
from minigrad.ops import activation as _act
from minigrad.ops.attention import scaled_dot_product_attention
from minigrad.ops.conv import conv1d, conv2d, conv_transpose2d
from minigrad.ops.loss import (
    BinaryCrossEntropy,
    BinaryCrossEntropyWithLogits,
    check_reduction,
    class_index_coefficients,
    class_weights,
)
from minigrad.ops.loss import cross_entropy as _cross_entropy
from minigrad.ops.normalization import batch_norm, group_norm, layer_norm, rms_norm
from minigrad.ops.pool import adaptive_avg_pool2d, avg_pool1d, avg_pool2d, max_pool1d, max_pool2d
from minigrad.ops.shape import ConstantPad
from minigrad.tensor import _floating, as_tensor, where

__all__ = [
    "adaptive_avg_pool2d",
    "avg_pool1d",
    "avg_pool2d",
    "batch_norm",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "conv1d",
    "conv2d",
    "conv_transpose2d",
    "cross_entropy",
    "dropout",
    "elu",
    "embedding",
    "gelu",
    "group_norm",
    "huber_loss",
    "kl_div",
    "l1_loss",
    "layer_norm",
    "leaky_relu",
    "linear",
    "log_softmax",
    "logsumexp",
    "max_pool1d",
    "max_pool2d",
    "mish",
    "mse_loss",
    "nll_loss",
    "one_hot",
    "pad",
    "relu",
    "rms_norm",
    "scaled_dot_product_attention",
    "sigmoid",
    "silu",
    "smooth_l1_loss",
    "softmax",
    "softplus",
    "tanh",
]


# ---- activations ------------------------------------------------------------------------
def relu(input, inplace=False):
    """max(x, 0)."""
    return input.relu()


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """x if x > 0 else negative_slope * x."""
    return _act.LeakyRelu.apply(_floating(input), negative_slope=negative_slope)


def elu(input, alpha=1.0, inplace=False):
    """x if x > 0 else alpha * (exp(x) - 1)."""
    return _act.Elu.apply(_floating(input), alpha=alpha)


def gelu(input, approximate="none"):
    """x * Phi(x) with the exact normal CDF (erf), or its tanh approximation."""
    if approximate not in ("none", "tanh"):
        raise ValueError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    return _act.Gelu.apply(_floating(input), approximate=approximate)


def silu(input, inplace=False):
    """x * sigmoid(x) (also called swish)."""
    return _act.Silu.apply(_floating(input))


def mish(input, inplace=False):
    """x * tanh(softplus(x))."""
    return input * softplus(input).tanh()


def sigmoid(input):
    return input.sigmoid()


def tanh(input):
    return input.tanh()


def softplus(input, beta=1.0, threshold=20.0):
    """log(1 + exp(beta x)) / beta, linear where beta x > threshold."""
    return _act.Softplus.apply(_floating(input), beta=beta, threshold=threshold)


def _softmax_dim(input, dim, op):
    if dim is None:
        # PyTorch's legacy rule for a missing dim, with its warning
        warnings.warn(f"{op}: implicit dimension choice is deprecated; pass dim explicitly", stacklevel=3)
        dim = 0 if input.ndim in (0, 1, 3) else 1
    return normalize_dim(dim, input.ndim, op)


def softmax(input, dim=None, dtype=None):
    """exp(x) / sum(exp(x)) along dim."""
    x = _floating(input if dtype is None else input.to(dtype))
    return _act.Softmax.apply(x, dim=_softmax_dim(x, dim, "softmax"))


def log_softmax(input, dim=None, dtype=None):
    """x - logsumexp(x) along dim (stable, unlike log(softmax(x)))."""
    x = _floating(input if dtype is None else input.to(dtype))
    return _act.LogSoftmax.apply(x, dim=_softmax_dim(x, dim, "log_softmax"))


def logsumexp(input, dim, keepdim=False):
    return input.logsumexp(dim, keepdim=keepdim)


def dropout(input, p=0.5, training=True, inplace=False):
    """Inverted dropout: zero each element with probability p and scale the survivors by
    1 / (1 - p), so the expected value is unchanged and evaluation needs no rescaling.
    The mask comes from the global generator (`mg.manual_seed`)."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout: probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return input * 0.0
    keep = _random.generator().random(input.shape) >= p
    return input * from_numpy((keep / (1.0 - p)).astype(input.dtype))


# --8<-- [start:linear]
def linear(input, weight, bias=None):
    """x @ W^T + b, with W of shape (out_features, in_features)."""
    out = input @ weight.mT if weight.ndim == 2 else input @ weight
    return out if bias is None else out + bias
    # --8<-- [end:linear]


def embedding(input, weight, padding_idx=None):
    """Row lookup: out[i, ...] = weight[input[i, ...]] for integer indices `input`.

    The gradient of a lookup is a scatter-add: each output row's gradient is added to
    the weight row it was read from (twice if that index occurs twice). The padding_idx
    row is the exception: it is read like any other but its gradient is always zero,
    because the positions that hold padding_idx read a detached copy of their row.
    """
    op = "embedding"
    input = as_tensor(input)
    if input.dtype.kind not in "iu":
        raise TypeError(f"{op}: indices must be an integer (int64) tensor, got {input.dtype}")
    if weight.ndim != 2:
        raise ValueError(f"{op}: weight must be 2-D (num_embeddings, embedding_dim), got shape {weight.shape}")
    n = weight.shape[0]
    if input.array.size and (input.array.min() < 0 or input.array.max() >= n):
        bad = input.array[(input.array < 0) | (input.array >= n)].reshape(-1)[0]
        raise IndexError(
            f"{op}: index {int(bad)} is out of range for a weight with {n} rows (shape {weight.shape}); "
            f"indices must be in [0, {n - 1}]"
        )
    rows = weight[input.array]
    if padding_idx is not None:
        padding_idx = _normalize_padding_idx(padding_idx, n, op)
        is_padding = input.array == padding_idx
        if weight.requires_grad and is_padding.any():
            rows = where(from_numpy(~is_padding[..., None]), rows, rows.detach())
    return rows


def _normalize_padding_idx(padding_idx, num_embeddings, op):
    """A negative padding_idx counts from the end, as a negative list index."""
    if not -num_embeddings <= padding_idx < num_embeddings:
        raise ValueError(f"{op}: padding_idx {padding_idx} must be within num_embeddings {num_embeddings}")
    return padding_idx % num_embeddings


# ---- losses ---------------------------------------------------------------------------
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


# ---- helpers ------------------------------------------------------------------------------
def one_hot(tensor, num_classes=-1):
    """Class indices (any shape, int64) to a one-hot int64 tensor with a new last dim."""
    if tensor.dtype.kind not in "iu":
        raise TypeError(f"one_hot: expects an integer tensor of class indices, got {tensor.dtype}")
    data = tensor.array
    if data.size and data.min() < 0:
        raise RuntimeError(f"one_hot: class values must be non-negative, got {int(data.min())}")
    if num_classes == -1:
        num_classes = int(data.max()) + 1 if data.size else 0
    elif data.size and data.max() >= num_classes:
        raise RuntimeError(f"one_hot: class value {int(data.max())} is out of range for num_classes={num_classes}")
    return from_numpy((data[..., None] == np.arange(num_classes)).astype(np.int64))


_PAD_MODES = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}


def pad(input, pad, mode="constant", value=None):
    """Pad the last len(pad)//2 dims; `pad` = (left, right, top, bottom, ...) starting from
    the last dim, as PyTorch. Negative amounts crop. Modes: constant, reflect, replicate,
    circular (the last three gather with an index array, so their gradient is a scatter-add)."""
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2:
        raise RuntimeError(f"pad: padding length must be even, got {len(pad)} values {pad}")
    n = len(pad) // 2
    if n > input.ndim:
        raise RuntimeError(f"pad: {pad} pads {n} dims but the input has shape {input.shape}")
    widths = [(0, 0)] * input.ndim
    for i in range(n):
        widths[input.ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1])
    for d, ((lo, hi), size) in enumerate(zip(widths, input.shape)):
        if size + lo + hi < 0:  # negative padding crops, but not past nothing
            raise RuntimeError(
                f"pad: the input size {size}, plus negative padding {lo} and {hi}, would give a negative "
                f"size {size + lo + hi} at dim {d} of an input of shape {input.shape}"
            )
    if mode == "constant":
        # negative widths crop first; what is left is an ordinary pad
        crop = tuple(slice(max(-lo, 0), s - max(-hi, 0)) for (lo, hi), s in zip(widths, input.shape))
        x = input[crop] if any(lo < 0 or hi < 0 for lo, hi in widths) else input
        positive = tuple((max(lo, 0), max(hi, 0)) for lo, hi in widths)
        if not any(lo or hi for lo, hi in positive):
            return x
        return ConstantPad.apply(x, widths=positive, value=0.0 if value is None else value)
    if mode not in _PAD_MODES:
        raise ValueError(f"pad: mode must be 'constant', 'reflect', 'replicate' or 'circular', got {mode!r}")
    if value is not None and value != 0:
        raise ValueError(f"pad: value is only used with mode='constant', got value={value} with mode={mode!r}")
    out = input
    for d, (lo, hi) in enumerate(widths):
        if lo == 0 and hi == 0:
            continue
        size = input.shape[d]
        if mode == "reflect" and (lo >= size or hi >= size):
            raise ValueError(f"pad: reflect padding ({lo}, {hi}) must be smaller than dim {d}'s size {size}")
        if mode == "circular" and (lo > size or hi > size):
            raise ValueError(f"pad: circular padding ({lo}, {hi}) can be at most dim {d}'s size {size}")
        if lo < 0 or hi < 0:
            raise ValueError(f"pad: negative padding is only supported with mode='constant', got {pad}")
        source = np.pad(np.arange(size), (lo, hi), mode=_PAD_MODES[mode])
        out = out[(slice(None),) * d + (source,)]
    return out
