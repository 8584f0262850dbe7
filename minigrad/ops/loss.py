"""Cross-entropy as one fused Function, and the coefficient matrix behind it.

Every variant of cross-entropy PyTorch offers (class-index or probability targets,
class weights, ignore_index, label smoothing) has the same form

    loss_n = - sum_c A[n, c] * log_softmax(x)[n, c]

for a coefficient array A built from the target: a (weighted) one-hot row for a class
index, a (weighted) probability row for soft targets, label smoothing mixing in a
uniform row, and ignored positions a row of zeros. Its gradient is then one line:

    dloss_n / dx[n, c] = softmax(x)[n, c] * sum_c' A[n, c'] - A[n, c]

which is why a fused op is both faster and numerically safer than log_softmax
followed by a gather: no probability is ever formed and then logged.
"""

import numpy as np

from minigrad.autograd.function import Function
from minigrad.ops.activation import LogSoftmax
from minigrad.tensor import Tensor

REDUCTIONS = ("mean", "sum", "none")


def check_reduction(reduction, op):
    if reduction not in REDUCTIONS:
        raise ValueError(f"{op}: reduction must be 'mean', 'sum' or 'none', got {reduction!r}")


def class_index_coefficients(x_shape, target, weight, ignore_index, label_smoothing, op):
    """A (shape of the input, class dim 1) and the per-position weights w[target].

    `target` is an int array of shape x_shape without the class dim.
    """
    class_dim = 1 if len(x_shape) > 1 else 0
    n_classes = x_shape[class_dim]
    valid = target != ignore_index
    safe = np.where(valid, target, 0)
    bad = valid & ((target < 0) | (target >= n_classes))
    if bad.any():
        raise IndexError(
            f"{op}: target {int(target[bad].reshape(-1)[0])} is out of bounds for {n_classes} classes "
            f"(valid targets are 0..{n_classes - 1}, or ignore_index={ignore_index})"
        )
    w = np.ones(n_classes) if weight is None else weight
    w_target = w[safe] * valid  # weight of each position's true class, 0 if ignored
    one_hot = np.expand_dims(safe, class_dim) == _class_axis(n_classes, len(x_shape), class_dim)
    coeff = one_hot * np.expand_dims(w_target, class_dim)
    if label_smoothing > 0:
        w_b = w.reshape(_class_shape(n_classes, len(x_shape), class_dim))
        smooth = w_b * np.expand_dims(valid, class_dim) / n_classes
        coeff = (1.0 - label_smoothing) * coeff + label_smoothing * smooth
    return coeff, w_target


def _class_shape(n_classes, ndim, class_dim):
    shape = [1] * ndim
    shape[class_dim] = n_classes
    return tuple(shape)


def _class_axis(n_classes, ndim, class_dim):
    return np.arange(n_classes).reshape(_class_shape(n_classes, ndim, class_dim))


class CrossEntropy(Function):
    """loss = reduce_n(-sum_c A[n, c] log_softmax(x)[n, c]), the fused form above.

    dL/dx = g_n * (softmax(x) * sum_c A - A) with g_n the upstream gradient times the
    reduction's scale; for probability targets dL/dtarget = -g_n w_c (1 - eps) log_softmax(x).
    """

    @staticmethod
    def forward(ctx, x, target, coeff, denominator, reduction, weight, label_smoothing):
        class_dim = 1 if x.ndim > 1 else 0
        shifted = x.data - np.max(x.data, axis=class_dim, keepdims=True)
        log_probs = shifted - np.log(np.sum(np.exp(shifted), axis=class_dim, keepdims=True))
        losses = -np.sum(coeff * log_probs, axis=class_dim)
        ctx.save_for_backward(x, target)
        ctx.coeff, ctx.class_dim, ctx.reduction = coeff.astype(x.dtype), class_dim, reduction
        # every position ignored: the mean is 0/0 = NaN, but nothing contributed, so the
        # gradient is 0 rather than NaN (both as PyTorch)
        ctx.scale = (1.0 / denominator if denominator else 0.0) if reduction == "mean" else 1.0
        ctx.weight, ctx.label_smoothing = weight, label_smoothing
        if reduction == "none":
            return losses.astype(x.dtype)
        total = np.sum(losses)
        return np.asarray(total / denominator if reduction == "mean" else total, dtype=x.dtype)

    @staticmethod
    def backward(ctx, grad):
        x, target = ctx.saved_tensors
        dim = ctx.class_dim
        log_probs = LogSoftmax.apply(x, dim=dim)  # recomputed: part of the graph if create_graph
        w = 1.0
        if ctx.weight is not None:
            w = Tensor._make(ctx.weight.reshape(_class_shape(x.shape[dim], x.ndim, dim)).astype(x.dtype))
        if target is None:  # class indices: A is a constant
            coeff = Tensor._make(ctx.coeff)
        else:  # probabilities: A rebuilt from the target, so create_graph sees it depend on it
            coeff = (target * (1.0 - ctx.label_smoothing) + ctx.label_smoothing / x.shape[dim]) * w
        g = grad.unsqueeze(dim) if ctx.reduction == "none" else grad * ctx.scale
        grad_x = g * (log_probs.exp() * coeff.sum(dim=dim, keepdim=True) - coeff)
        grad_target = None
        if ctx.needs_input_grad[1]:
            grad_target = -(g * log_probs * w) * (1.0 - ctx.label_smoothing)
        return grad_x, grad_target


def cross_entropy(x, target, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
    op = "cross_entropy"
    check_reduction(reduction, op)
    if x.ndim == 0:
        raise ValueError(f"{op}: input must have a class dimension, got a 0-d tensor")
    if x.dtype.kind != "f":
        raise TypeError(f"{op}: input must be floating point (logits), got {x.dtype}")
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"{op}: label_smoothing must be in [0, 1], got {label_smoothing}")
    class_dim = 1 if x.ndim > 1 else 0
    n_classes = x.shape[class_dim]
    w = None
    if weight is not None:
        w = np.asarray(weight.data if isinstance(weight, Tensor) else weight, dtype=np.float64)
        if w.shape != (n_classes,):
            raise ValueError(f"{op}: weight must have shape ({n_classes},) for {n_classes} classes, got {w.shape}")
    if target.dtype.kind == "f":  # class probabilities
        if target.shape != x.shape:
            raise ValueError(f"{op}: probability targets must have the input's shape {x.shape}, got {target.shape}")
        t = target.data * (1.0 - label_smoothing) + label_smoothing / n_classes
        w_b = 1.0 if w is None else w.reshape(_class_shape(n_classes, x.ndim, class_dim))
        coeff = t * w_b
        denominator = np.float64(x.data.size // n_classes)
        target_arg = target
    else:
        expected = x.shape[:1] + x.shape[2:] if x.ndim > 1 else ()
        if target.shape != expected:
            raise ValueError(
                f"{op}: for input of shape {x.shape} the class-index target must have shape {expected}, "
                f"got {target.shape}"
            )
        coeff, w_target = class_index_coefficients(x.shape, target.data, w, ignore_index, label_smoothing, op)
        denominator = np.float64(np.sum(w_target))  # 0 if all ignored: the mean is NaN, as PyTorch
        target_arg = None  # indices are not differentiable
    with np.errstate(divide="ignore", invalid="ignore"):
        return CrossEntropy.apply(
            x,
            target_arg,
            coeff=coeff,
            denominator=denominator,
            reduction=reduction,
            weight=w,
            label_smoothing=label_smoothing,
        )


class BinaryCrossEntropy(Function):
    """loss = -(y max(log x, -100) + (1 - y) max(log(1 - x), -100)) elementwise, the logs
    clamped as PyTorch so that x = 0 or 1 gives a finite loss;
    dL/dx = dL/dloss * (x - y) / max(x (1 - x), 1e-12),  dL/dy = dL/dloss * (log(1 - x) - log x).

    A Function rather than a composition of log and clamp: at x = 0 the composed backward
    would compute 0 / 0 in log's gradient and return NaN even where y = 0 and the loss is 0
    (a float32 sigmoid that saturates gives exactly that). The max(., 1e-12) is PyTorch's.
    """

    @staticmethod
    def forward(ctx, x, y):
        with np.errstate(divide="ignore"):
            log_x = np.maximum(np.log(x.data), -100.0)
            log_1mx = np.maximum(np.log1p(-x.data), -100.0)
        ctx.save_for_backward(x, y)
        return -(y.data * log_x + (1.0 - y.data) * log_1mx)

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        grad_x = grad * (x - y) / (x * (1.0 - x)).clamp(min=1e-12)
        grad_y = None
        if ctx.needs_input_grad[1]:
            with np.errstate(divide="ignore"):
                grad_y = grad * ((1.0 - x).log().clamp(min=-100.0) - x.log().clamp(min=-100.0))
        return grad_x, grad_y
