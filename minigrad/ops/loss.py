"""Cross-entropy and binary cross-entropy as fused Functions.

Every variant of cross-entropy PyTorch offers (class-index or probability targets,
class weights, ignore_index, label smoothing) has the same form

    loss_n = - sum_c A[n, c] * log_softmax(x)[n, c]

for a coefficient array A built from the target: a (weighted) one-hot row for a class
index, a (weighted) probability row for soft targets, label smoothing mixing in a
uniform row, and ignored positions a row of zeros. Its gradient is then one line:

    dloss_n / dx[n, c] = softmax(x)[n, c] * sum_c' A[n, c'] - A[n, c]

which is why a fused op is numerically safer than log_softmax followed by a gather:
no probability is ever formed and then logged. (It is not faster by itself: each NumPy
call is a pass over the logits, and building a dense A, masking, and recomputing the
log-softmax in backward take more passes than the composition; see
benchmarks/bench_losses.py and the losses lesson.) The forward's sum is one call of the
softmax kernels, kernels/*/softmax.py, which on large CPU arrays is one pass per row;
so is the backward's formula on large CPU arrays of class-index targets when no graph of
it is wanted (`cross_entropy_backward`), while create_graph, probability targets and
small arrays get it as Tensor ops. The Function below sees only A; `F.cross_entropy`
(minigrad/nn/functional/loss.py) checks the arguments and builds A from the target and
the options.
"""

import numpy as np

from minigrad import backends
from minigrad.array_module import array_module
from minigrad.autograd.function import Function
from minigrad.autograd.grad_mode import is_grad_enabled
from minigrad.creation import from_numpy
from minigrad.ops.activation import LogSoftmax, Softplus
from minigrad.ops.broadcast import unbroadcast


class CrossEntropy(Function):
    """loss = reduce_n(-sum_c A[n, c] log_softmax(x)[n, c]), the fused form above.

    dL/dx = g_n * (softmax(x) * sum_c A - A) with g_n the upstream gradient times the
    reduction's scale; for probability targets dL/dtarget = -g_n w_c (1 - eps) log_softmax(x).
    `weight` is w shaped to broadcast against x (1s but for the class dim), or None.
    The backward computes dL/dx with Tensor ops, or on the arrays in one kernel call where
    that is all it must do (see the comment in `backward`).
    """

    @staticmethod
    def forward(ctx, x, target, coeff, denominator, reduction, weight, label_smoothing):
        class_dim = 1 if x.ndim > 1 else 0
        ctx.save_for_backward(x, target)
        ctx.coeff, ctx.class_dim, ctx.reduction = coeff.astype(x.dtype), class_dim, reduction
        # every position ignored: the mean is 0/0 = NaN, but nothing contributed, so the
        # gradient is 0 rather than NaN (both as PyTorch)
        ctx.scale = reciprocal_or_zero(denominator) if reduction == "mean" else 1.0
        if not np.isscalar(ctx.scale):  # a 0-d GPU array: a 0-d CUDA tensor, for grad * scale
            ctx.scale = from_numpy(ctx.scale.astype(x.dtype))
        ctx.weight, ctx.label_smoothing = weight, label_smoothing
        # a masked class (logit -inf) has log-probability -inf, and that 0/0 mean is NaN:
        # both are meant, so NumPy need not warn of them
        with np.errstate(divide="ignore", invalid="ignore"):
            # -sum_c A log_softmax(x), by the softmax kernels (kernels/reference/softmax.py)
            kernels = backends.kernels("softmax", array=x.array)
            losses = kernels.cross_entropy(x.array, coeff, class_dim)
            if reduction == "none":
                return losses.astype(x.dtype)
            total = np.sum(losses)
            xp = array_module(x.array)  # the sum is a NumPy scalar, or a 0-d GPU array
            return xp.asarray(total / denominator if reduction == "mean" else total, dtype=x.dtype)

    @staticmethod
    def backward(ctx, grad):
        x, target = ctx.saved_tensors
        dim = ctx.class_dim
        kernels = backends.kernels("softmax", array=x.array)
        if target is None and not is_grad_enabled() and kernels.compiled(x.array, dim):
            # An ordinary backward (no create_graph) of class indices on logits large
            # enough for the compiled softmax kernels: the formula below in one pass per
            # row instead of six passes over the logits (log-softmax, exp, the sum of A,
            # product, difference, times g). Everything else (create_graph, probability
            # targets, GPU arrays, arrays under the kernels' threshold, where NumPy's
            # passes cost no more) runs the Tensor formula, which stays the definition.
            g = grad.array if ctx.reduction == "none" else grad.array * ctx.scale
            return from_numpy(kernels.cross_entropy_backward(x.array, ctx.coeff, g, dim)), None
        log_probs = LogSoftmax.apply(x, dim=dim)  # recomputed: part of the graph if create_graph
        w = 1.0 if ctx.weight is None else from_numpy(ctx.weight.astype(x.dtype))
        if target is None:  # class indices: A is a constant
            coeff = from_numpy(ctx.coeff)
        else:  # probabilities: A rebuilt from the target, so create_graph sees it depend on it
            coeff = (target * (1.0 - ctx.label_smoothing) + ctx.label_smoothing / x.shape[dim]) * w
        # BEGIN SOLUTION hint: dL/dx = g * (softmax(x) * sum_c A - A), softmax(x) = log_probs.exp() and A = coeff; g is the upstream grad unsqueezed on the class dim for reduction='none', else grad * ctx.scale
        g = grad.unsqueeze(dim) if ctx.reduction == "none" else grad * ctx.scale
        grad_x = g * (log_probs.exp() * coeff.sum(dim=dim, keepdim=True) - coeff)
        # END SOLUTION
        grad_target = None
        if ctx.needs_input_grad[1]:
            grad_target = -(g * log_probs * w) * (1.0 - ctx.label_smoothing)
        return grad_x, grad_target


def reciprocal_or_zero(denominator):
    """1 / denominator, or 0 where it is 0. A GPU array (the sum of a target's class
    weights) gets `np.where`, not `if`: an `if` on a GPU value is a copy to the host."""
    if np.isscalar(denominator):
        return 1.0 / denominator if denominator else 0.0
    nonzero = denominator != 0
    return np.where(nonzero, 1.0 / np.where(nonzero, denominator, 1.0), 0.0)


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
            log_x = np.maximum(np.log(x.array), -100.0)
            log_1mx = np.maximum(np.log1p(-x.array), -100.0)
        ctx.save_for_backward(x, y)
        return -(y.array * log_x + (1.0 - y.array) * log_1mx)

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        grad_x = grad * (x - y) / (x * (1.0 - x)).clamp(min=1e-12)
        grad_y = None
        if ctx.needs_input_grad[1]:
            with np.errstate(divide="ignore"):
                grad_y = grad * ((1.0 - x).log().clamp(min=-100.0) - x.log().clamp(min=-100.0))
        return grad_x, grad_y


class BinaryCrossEntropyWithLogits(Function):
    """loss = (1 - y) x + l softplus(-x) elementwise, l = 1 + (p - 1) y (p = pos_weight);
    dL/dx = dL/dloss * ((1 - y) sigmoid(x) - p y sigmoid(-x))  (= sigmoid(x) - y when p = 1),
    dL/dy = dL/dloss * ((p - 1) softplus(-x) - x),  dL/dp = dL/dloss * y softplus(-x).

    softplus(-x) = max(-x, 0) + log(1 + e^-|x|), and the forward adds the two large terms
    (1 - y) x + l max(-x, 0) before the small one: for x = -20, y = 0 that is
    -20 + 20 + 2e-9, where float32 would lose the 2e-9 in -20 + 20.000000002. A Function
    rather than a composition: relu and abs have kinks at 0 that the smooth softplus does
    not, and their subgradients at x = 0 would not add up to the true derivative.
    """

    @staticmethod
    def forward(ctx, x, y, pos_weight):
        ctx.save_for_backward(x, y, pos_weight)
        l = 1.0 if pos_weight is None else 1.0 + (pos_weight.array - 1.0) * y.array
        large = (1.0 - y.array) * x.array + l * np.maximum(-x.array, 0)
        return large + l * np.log1p(np.exp(-np.abs(x.array)))

    @staticmethod
    def backward(ctx, grad):
        x, y, pos_weight = ctx.saved_tensors
        need_x, need_y, need_p = ctx.needs_input_grad
        # (1 - y) - l sigmoid(-x) rearranged to (1 - y) sigmoid(x) - p y sigmoid(-x): for a
        # hard target one term is 0 and nothing cancels (at x = -20, y = 0 the gradient is
        # 2e-9, where 1 - sigmoid(20) would round to 0 in float32)
        p = 1.0 if pos_weight is None else pos_weight
        grad_x = (
            unbroadcast(grad * ((1.0 - y) * x.sigmoid() - p * y * (-x).sigmoid()), x.shape)
            if need_x
            else None
        )
        grad_y = grad_p = None
        if need_y or need_p:
            softplus_neg_x = Softplus.apply(-x)
            if need_y:
                p_minus_1 = 0.0 if pos_weight is None else pos_weight - 1.0
                grad_y = unbroadcast(grad * (p_minus_1 * softplus_neg_x - x), y.shape)
            if need_p:
                grad_p = unbroadcast(grad * y * softplus_neg_x, pos_weight.shape)
        return grad_x, grad_y, grad_p
