"""Loss functions: F.cross_entropy, F.mse_loss, F.nll_loss, ...

Each checks its arguments here. Cross-entropy and the two binary cross-entropies then
apply fused Functions from `minigrad/ops/loss.py`; for cross-entropy this file first
turns the target and the options (class weights, ignore_index, label smoothing) into
the coefficient array A that Function works on. The other losses are short
compositions of Tensor ops, so their gradients (and second derivatives) come from the
ops they are built from.
"""

import math
import warnings

import numpy as np

from minigrad.array_module import array_module
from minigrad.autograd.grad_mode import no_grad
from minigrad.creation import as_tensor, from_numpy
from minigrad.ops.elementwise import where
from minigrad.ops.loss import BinaryCrossEntropy, BinaryCrossEntropyWithLogits, CrossEntropy
from minigrad.tensor import Tensor

REDUCTIONS = ("mean", "sum", "none")
KL_DIV_REDUCTIONS = ("mean", "batchmean", "sum", "none")  # batchmean: the sum over the batch size


def check_reduction(reduction, op, allowed=REDUCTIONS):
    """The one rule for `reduction`, used by F and (at construction) by the loss layers."""
    if reduction not in allowed:
        names = ", ".join(repr(r) for r in allowed[:-1]) + f" or {allowed[-1]!r}"
        raise ValueError(f"{op}: reduction must be {names}, got {reduction!r}")


def check_label_smoothing(label_smoothing, op):
    """The rule for cross-entropy's label_smoothing, used by F and by CrossEntropyLoss."""
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"{op}: label_smoothing must be in [0, 1], got {label_smoothing}")


def legacy_reduction(size_average, reduce, reduction, op):
    """`reduction`, or what torch's deprecated `size_average` and `reduce` say when either
    is given (with torch's warning): reduce=False is 'none', else size_average=False is
    'sum', else 'mean' (each of them True when not given)."""
    if size_average is None and reduce is None:
        check_reduction(reduction, op)
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    reduction = "none" if not reduce else "mean" if size_average else "sum"
    warnings.warn(
        f"{op}: size_average and reduce args will be deprecated, please use "
        f"reduction='{reduction}' instead.",
        stacklevel=3,
    )
    return reduction


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


def _class_dim(x_shape):
    """Where the classes are: dim 1 of (N, C, d1, ...), dim 0 of an unbatched (C,)."""
    return 1 if len(x_shape) > 1 else 0


def _class_index_shape(x_shape):
    """The shape of a class-index target: the input's without the class dim."""
    return tuple(x_shape[:1]) + tuple(x_shape[2:]) if len(x_shape) > 1 else ()


def _class_shape(n_classes, ndim, class_dim):
    """(1, C, 1, ...): the shape that broadcasts a per-class array against the input."""
    shape = [1] * ndim
    shape[class_dim] = n_classes
    return tuple(shape)


def class_weights(weight, n_classes, op):
    """The class weights as a float64 array of shape (n_classes,), or None; one weight
    per class or none, as PyTorch (a longer array would index without complaint)."""
    if weight is None:
        return None
    if isinstance(weight, Tensor):  # where the weight tensor lives: on a GPU for CUDA logits
        w = weight.array.astype(np.float64)
    else:
        w = np.asarray(weight, dtype=np.float64)
    if w.shape != (n_classes,):
        raise RuntimeError(
            f"{op}: weight should be defined either for all {n_classes} classes or no classes, "
            f"but got weight of shape {w.shape}"
        )
    return w


def class_index_coefficients(x_shape, target, weight, ignore_index, label_smoothing, op):
    """A (shape of the input, class dim 1) and the per-position weights w[target].

    `target` is an int array of shape x_shape without the class dim.
    """
    class_dim = _class_dim(x_shape)
    n_classes = x_shape[class_dim]
    xp = array_module(target)
    valid = target != ignore_index
    bad = valid & ((target < 0) | (target >= n_classes))
    if xp is np and bad.any():
        raise IndexError(
            f"{op}: target {int(target[bad].reshape(-1)[0])} is out of bounds for {n_classes} "
            f"classes (valid targets are 0..{n_classes - 1}, or ignore_index={ignore_index})"
        )
    # On a GPU, `bad.any()` would copy to the host at every step: an out-of-range class
    # gives that position a NaN weight, and so a NaN loss, instead (PyTorch's CUDA kernels
    # stop the program with a device-side assert there)
    safe = np.where(valid & ~bad, target, 0)
    w = xp.ones(n_classes) if weight is None else weight
    w_target = w[safe] * valid  # weight of each position's true class, 0 if ignored
    if xp is not np:
        w_target = np.where(bad, np.nan, w_target)
    class_shape = _class_shape(n_classes, len(x_shape), class_dim)
    one_hot = np.expand_dims(safe, class_dim) == xp.arange(n_classes).reshape(class_shape)
    coeff = one_hot * np.expand_dims(w_target, class_dim)
    if label_smoothing > 0:
        smooth = w.reshape(class_shape) * np.expand_dims(valid, class_dim) / n_classes
        coeff = (1.0 - label_smoothing) * coeff + label_smoothing * smooth
    return coeff, w_target


def cross_entropy(
    input,
    target,
    weight=None,
    size_average=None,
    ignore_index=-100,
    reduce=None,
    reduction="mean",
    label_smoothing=0.0,
):
    """Cross-entropy between logits `input` (N, C) / (N, C, d1, ...) / (C,) and class indices
    or class probabilities: loss_n = -sum_c A[n, c] log_softmax(x)[n, c], with A built here
    from the target (see `minigrad.ops.loss.CrossEntropy` for the fused op and its gradient)."""
    op = "cross_entropy"
    x, target = as_tensor(input), as_tensor(target)
    check_reduction(reduction, op)
    if x.ndim == 0:
        raise ValueError(f"{op}: input must have a class dimension, got a 0-d tensor")
    if x.dtype.kind != "f":
        raise TypeError(f"{op}: input must be floating point (logits), got {x.dtype}")
    check_label_smoothing(label_smoothing, op)
    class_dim = _class_dim(x.shape)
    n_classes = x.shape[class_dim]
    w = class_weights(weight, n_classes, op)
    w_b = None if w is None else w.reshape(_class_shape(n_classes, x.ndim, class_dim))
    if target.dtype.kind == "f":  # class probabilities
        if target.shape != x.shape:
            raise RuntimeError(
                f"{op}: probability targets must have the input's shape {x.shape}, got "
                f"{target.shape}"
            )
        coeff = target.array * (1.0 - label_smoothing) + label_smoothing / n_classes
        if w_b is not None:
            coeff = coeff * w_b
        denominator = np.float64(x.array.size // n_classes)
        target_arg = target
    else:
        expected = _class_index_shape(x.shape)
        if target.shape != expected:
            raise RuntimeError(
                f"{op}: for input of shape {x.shape} the class-index target must have shape "
                f"{expected}, got {target.shape}"
            )
        coeff, w_target = class_index_coefficients(
            x.shape, target.array, w, ignore_index, label_smoothing, op
        )
        denominator = np.sum(w_target)  # 0 if all ignored: the mean is NaN, as PyTorch
        target_arg = None  # indices are not differentiable
    return CrossEntropy.apply(
        x,
        target_arg,
        coeff=coeff,
        denominator=denominator,
        reduction=reduction,
        weight=w_b,
        label_smoothing=label_smoothing,
    )


def nll_loss(
    input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"
):
    """Negative log-likelihood of log-probabilities `input` at class indices `target`:
    loss_n = -w[t_n] * input[n, t_n]; 'mean' divides by the sum of the w[t_n] used."""
    op = "nll_loss"
    check_reduction(reduction, op)
    if input.ndim == 0:
        raise ValueError(f"{op}: input must have a class dimension, got a 0-d tensor")
    if target.dtype.kind not in "iu":
        raise TypeError(f"{op}: target must hold class indices (int64), got {target.dtype}")
    expected = _class_index_shape(input.shape)
    if target.shape != expected:
        raise RuntimeError(
            f"{op}: for input of shape {input.shape} the target must have shape {expected}, got "
            f"{target.shape}"
        )
    w = class_weights(weight, input.shape[_class_dim(input.shape)], op)
    _, w_target = class_index_coefficients(input.shape, target.array, w, ignore_index, 0.0, op)
    # pick input[n, t_n, ...] by indexing, not by a one-hot product: another class's
    # log-probability may be -inf (a masked class), and 0 * -inf would be NaN
    valid = target.array != ignore_index
    picked_class = np.where(valid, target.array, 0)
    if input.ndim == 1:
        index = (picked_class,)
    else:  # the positions of the target's dims, made where the target lives
        xp = array_module(target.array)
        ndim = target.ndim
        sizes = target.shape
        grids = [xp.arange(n).reshape((-1,) + (1,) * (ndim - 1 - d)) for d, n in enumerate(sizes)]
        index = (grids[0], picked_class, *grids[1:])
    picked = input[index]
    losses = where(from_numpy(valid), -picked * from_numpy(w_target.astype(input.dtype)), 0.0)
    if reduction == "mean":
        total_weight = np.sum(w_target)
        if array_module(total_weight) is np:
            if total_weight == 0:
                # every position ignored: the loss is 0/0 = NaN but the gradient is 0 (as
                # PyTorch); dividing by the zero weight would make the gradient NaN as well
                return losses.sum() * 0.0 + float("nan")
            return losses.sum() / from_numpy(np.asarray(total_weight, dtype=input.dtype))
        # the same on a GPU, chosen with np.where: an `if` would copy the weight to the host
        nothing = total_weight == 0
        divisor = from_numpy(np.where(nothing, 1.0, total_weight).astype(input.dtype))
        nan_if_nothing = from_numpy(np.where(nothing, np.nan, 0.0).astype(input.dtype))
        return losses.sum() / divisor + nan_if_nothing
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


def binary_cross_entropy(
    input, target, weight=None, size_average=None, reduce=None, reduction="mean"
):
    """-w (y log x + (1 - y) log(1 - x)) for probabilities x; each log is clamped at -100
    as in PyTorch, so x = 0 or 1 gives a large finite loss instead of inf."""
    op = "binary_cross_entropy"
    check_reduction(reduction, op)
    _same_shape(input, target, op)
    # checked on the CPU only: on a GPU the check is a copy to the host at every step, and
    # a value outside [0, 1] gives a NaN loss there (log of a negative number)
    if array_module(input.array) is np and np.any((input.array < 0) | (input.array > 1)):
        raise RuntimeError(
            f"{op}: all elements of input should be between 0 and 1 (probabilities; use "
            "binary_cross_entropy_with_logits for logits)"
        )
    loss = BinaryCrossEntropy.apply(input, target)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def binary_cross_entropy_with_logits(
    input, target, weight=None, size_average=None, reduce=None, reduction="mean", pos_weight=None
):
    """Sigmoid + binary cross-entropy in one stable formula (see
    minigrad/ops/loss.py: BinaryCrossEntropyWithLogits):
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


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """KL(target || exp(input)) pointwise: y (log y - x), with 0 where y = 0; input holds
    log-probabilities. reduction='batchmean' divides the sum by the batch size (the
    mathematically correct KL); 'mean' divides by the number of elements, as PyTorch."""
    op = "kl_div"
    check_reduction(reduction, op, KL_DIV_REDUCTIONS)
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


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """The negative log-likelihood of `target` under normal distributions of mean `input`
    and variance `var`: 0.5 (log(var) + (input - target)^2 / var) (+ 0.5 log(2 pi) if full).

    `var` has the input's shape (one variance per prediction), or one dim less, or a
    single size-1 dim (one variance shared along it), or is a float. It is clamped to at
    least eps for stability, outside the graph as torch does: the gradient with respect to
    var flows as if it were not clamped.
    """
    op = "gaussian_nll_loss"
    check_reduction(reduction, op)
    if isinstance(var, float):
        if var < 0:
            raise ValueError(f"{op}: var has negative entry/entries, got var={var}")
        var = input.detach() * 0.0 + var
    elif array_module(var.array) is np and np.any(var.array < 0):  # on a GPU: a copy per step
        raise ValueError(f"{op}: var has negative entry/entries")
    if var.shape != input.shape:
        if input.shape[:-1] == var.shape:  # one variance per row of the last dim
            var = var.unsqueeze(-1)
        elif not (
            input.ndim == var.ndim and sum(v for i, v in zip(input.shape, var.shape) if i != v) == 1
        ):
            raise ValueError(
                f"{op}: var is of incorrect size: {tuple(var.shape)} for input of shape "
                f"{tuple(input.shape)} "
                "(expected the input's shape, that shape without its last dim, or one dim of size "
                "1)"
            )
    var = var.clone()
    with no_grad():
        var.clamp_min_(eps)
    loss = ((input - target) ** 2 / var + var.log()) * 0.5
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


def poisson_nll_loss(
    input,
    target,
    log_input=True,
    full=False,
    size_average=None,
    eps=1e-8,
    reduce=None,
    reduction="mean",
):
    """The negative log-likelihood of counts `target` under Poisson distributions of rate
    exp(input) (log_input=True, the default) or of rate input (then input + eps is logged):
    exp(x) - y x, or x - y log(x + eps), dropping log(y!) unless `full`, which adds its
    Stirling approximation y log y - y + 0.5 log(2 pi y) where y > 1."""
    op = "poisson_nll_loss"
    reduction = legacy_reduction(size_average, reduce, reduction, op)
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        stirling = target * target.log() - target + (target * (2 * math.pi)).log() * 0.5
        loss = loss + where(target > 1, stirling, 0.0)
    return _reduce(loss, reduction)
