"""Loss layers: the losses of nn.functional as Modules, `loss = criterion(input, target)`.

Each one stores its options and calls the functional form, where the math and the
argument checks are; a bad option is refused already at construction, by F's own rule.
`reduction` says how the per-element losses become the result: 'mean' (the default),
'sum', or 'none' (no reduction, one loss per element). Class weights (`weight`,
`pos_weight`) are registered as buffers, as PyTorch does, so they appear in the
state dict and follow `.to(dtype)`.

`size_average` and `reduce` are PyTorch's deprecated spellings of `reduction`; they
stay in the signatures so arguments keep PyTorch's positions, but only `reduction`
is supported.
"""

from minigrad.creation import as_tensor
from minigrad.nn import functional as F
from minigrad.nn.distance import PairwiseDistance
from minigrad.nn.functional.loss import (
    KL_DIV_REDUCTIONS,
    REDUCTIONS,
    check_label_smoothing,
    check_reduction,
)
from minigrad.nn.module import Module


class _Loss(Module):
    reductions = REDUCTIONS

    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        if size_average is not None or reduce is not None:
            raise ValueError(
                f"{type(self).__name__}: size_average and reduce are deprecated (in PyTorch too); "
                "use reduction='mean'|'sum'|'none'"
            )
        check_reduction(reduction, type(self).__name__, self.reductions)
        self.reduction = reduction


class _WeightedLoss(_Loss):
    """A loss with an optional rescaling `weight` (per class, or per element for the
    binary losses), kept as a buffer."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", None if weight is None else as_tensor(weight))


class MSELoss(_Loss):
    """loss_i = (x_i - y_i)^2."""

    def forward(self, input, target):
        return F.mse_loss(input, target, reduction=self.reduction)


class L1Loss(_Loss):
    """loss_i = |x_i - y_i|."""

    def forward(self, input, target):
        return F.l1_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(_Loss):
    """loss_i = 0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta (d = x_i - y_i):
    quadratic near 0 (smooth), linear far away (robust to outliers)."""

    def __init__(self, size_average=None, reduce=None, reduction="mean", beta=1.0):
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input, target):
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """loss_i = 0.5 d^2 where |d| <= delta, else delta (|d| - 0.5 delta)."""

    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input, target):
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class CrossEntropyLoss(_WeightedLoss):
    """Cross-entropy of logits (N, C) or (N, C, d1, ...) against class indices or class
    probabilities: loss_n = -sum_c w_c y_nc log_softmax(x_n)_c. Targets equal to
    ignore_index contribute nothing; label_smoothing mixes a uniform distribution into
    the target."""

    def __init__(
        self,
        weight=None,
        size_average=None,
        ignore_index=-100,
        reduce=None,
        reduction="mean",
        label_smoothing=0.0,
    ):
        super().__init__(weight, size_average, reduce, reduction)
        check_label_smoothing(label_smoothing, "CrossEntropyLoss")
        self.ignore_index, self.label_smoothing = ignore_index, label_smoothing

    def forward(self, input, target):
        return F.cross_entropy(
            input,
            target,
            weight=self.weight,
            ignore_index=self.ignore_index,
            reduction=self.reduction,
            label_smoothing=self.label_smoothing,
        )


class NLLLoss(_WeightedLoss):
    """Negative log-likelihood of log-probabilities (LogSoftmax output) at class indices:
    loss_n = -w[t_n] * x[n, t_n]."""

    def __init__(
        self, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"
    ):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input, target):
        return F.nll_loss(
            input,
            target,
            weight=self.weight,
            ignore_index=self.ignore_index,
            reduction=self.reduction,
        )


class BCELoss(_WeightedLoss):
    """Binary cross-entropy of probabilities x in [0, 1] (Sigmoid output):
    loss_i = -w_i (y_i log x_i + (1 - y_i) log(1 - x_i))."""

    def forward(self, input, target):
        return F.binary_cross_entropy(input, target, weight=self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_WeightedLoss):
    """Sigmoid + binary cross-entropy in one numerically stable step, on logits.
    `pos_weight` (one value per class, broadcast over the last dim) multiplies the loss
    of the positive targets: > 1 raises recall, < 1 raises precision."""

    def __init__(
        self, weight=None, size_average=None, reduce=None, reduction="mean", pos_weight=None
    ):
        super().__init__(weight, size_average, reduce, reduction)
        self.register_buffer("pos_weight", None if pos_weight is None else as_tensor(pos_weight))

    def forward(self, input, target):
        return F.binary_cross_entropy_with_logits(
            input, target, weight=self.weight, reduction=self.reduction, pos_weight=self.pos_weight
        )


class KLDivLoss(_Loss):
    """KL(target || prediction) pointwise, with `input` as log-probabilities:
    loss_i = y_i (log y_i - x_i) (or exp(y_i) (y_i - x_i) when log_target). Use
    reduction='batchmean' for the true KL divergence per sample."""

    reductions = KL_DIV_REDUCTIONS

    def __init__(self, size_average=None, reduce=None, reduction="mean", log_target=False):
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input, target):
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


# ---- margin losses (F in minigrad/nn/functional/margin_loss.py) ----------------------------------
class MarginRankingLoss(_Loss):
    """loss = max(0, -y (x1 - x2) + margin): x1 should rank above x2 by the margin where
    y = 1, below it where y = -1."""

    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return F.margin_ranking_loss(
            input1, input2, target, margin=self.margin, reduction=self.reduction
        )


class HingeEmbeddingLoss(_Loss):
    """loss = x where y = 1, max(0, margin - x) where y = -1 (x a distance between a pair)."""

    def __init__(self, margin=1.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input, target):
        return F.hinge_embedding_loss(input, target, margin=self.margin, reduction=self.reduction)


class SoftMarginLoss(_Loss):
    """loss = log(1 + exp(-y x)) for labels y = +-1."""

    def forward(self, input, target):
        return F.soft_margin_loss(input, target, reduction=self.reduction)


class CosineEmbeddingLoss(_Loss):
    """loss = 1 - cos(x1, x2) where y = 1, max(0, cos(x1, x2) - margin) where y = -1."""

    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return F.cosine_embedding_loss(
            input1, input2, target, margin=self.margin, reduction=self.reduction
        )


def _check_margin(margin, layer):
    if margin <= 0:
        raise ValueError(f"{layer}: expected margin to be greater than 0, got {margin} instead")


class TripletMarginLoss(_Loss):
    """loss = max(0, d(a, p) - d(a, n) + margin), d the p-norm distance (eps added, as
    F.pairwise_distance); swap=True uses the nearer of d(a, n) and d(p, n)."""

    def __init__(
        self,
        margin=1.0,
        p=2.0,
        eps=1e-6,
        swap=False,
        size_average=None,
        reduce=None,
        reduction="mean",
    ):
        super().__init__(size_average, reduce, reduction)
        _check_margin(margin, "TripletMarginLoss")
        self.margin, self.p, self.eps, self.swap = margin, p, eps, swap

    def forward(self, anchor, positive, negative):
        return F.triplet_margin_loss(
            anchor,
            positive,
            negative,
            self.margin,
            self.p,
            self.eps,
            self.swap,
            reduction=self.reduction,
        )


class TripletMarginWithDistanceLoss(_Loss):
    """TripletMarginLoss with any distance: `distance_function(x, y)`, a function or a
    layer, by default nn.PairwiseDistance() (kept as a submodule when it is a layer)."""

    def __init__(self, *, distance_function=None, margin=1.0, swap=False, reduction="mean"):
        super().__init__(reduction=reduction)
        _check_margin(margin, "TripletMarginWithDistanceLoss")
        self.distance_function = (
            distance_function if distance_function is not None else PairwiseDistance()
        )
        self.margin, self.swap = margin, swap

    def forward(self, anchor, positive, negative):
        return F.triplet_margin_with_distance_loss(
            anchor,
            positive,
            negative,
            distance_function=self.distance_function,
            margin=self.margin,
            swap=self.swap,
            reduction=self.reduction,
        )


class MultiMarginLoss(_WeightedLoss):
    """The multi-class hinge: loss_n = sum over i != y of w[y] max(0, margin - x[y] + x[i])^p / C,
    p = 1 or 2."""

    def __init__(
        self, p=1, margin=1.0, weight=None, size_average=None, reduce=None, reduction="mean"
    ):
        super().__init__(weight, size_average, reduce, reduction)
        if p not in (1, 2):
            raise ValueError(f"MultiMarginLoss: only p == 1 and p == 2 supported, got p={p}")
        if self.weight is not None and self.weight.ndim != 1:
            raise ValueError(
                "MultiMarginLoss: weight must be one-dimensional, got shape "
                f"{tuple(self.weight.shape)}"
            )
        self.p, self.margin = p, margin

    def forward(self, input, target):
        return F.multi_margin_loss(
            input,
            target,
            p=self.p,
            margin=self.margin,
            weight=self.weight,
            reduction=self.reduction,
        )


class MultiLabelMarginLoss(_Loss):
    """The multi-class hinge for several true classes per sample (`target` lists them,
    ended by -1): every listed class should score 1 above every class not listed."""

    def forward(self, input, target):
        return F.multilabel_margin_loss(input, target, reduction=self.reduction)


class MultiLabelSoftMarginLoss(_WeightedLoss):
    """One logistic loss per class, -(y log sigmoid(x) + (1 - y) log sigmoid(-x)),
    weighted per class and averaged over the classes."""

    def forward(self, input, target):
        return F.multilabel_soft_margin_loss(
            input, target, weight=self.weight, reduction=self.reduction
        )


# ---- likelihoods -------------------------------------------------------------------------------
class GaussianNLLLoss(_Loss):
    """loss = 0.5 (log(var) + (input - target)^2 / var) (+ 0.5 log(2 pi) if full): the
    negative log-likelihood of the target under a normal of mean input and variance var,
    which forward takes as a third argument."""

    def __init__(self, *, full=False, eps=1e-6, reduction="mean"):
        super().__init__(reduction=reduction)
        self.full, self.eps = full, eps

    def forward(self, input, target, var):
        return F.gaussian_nll_loss(
            input, target, var, full=self.full, eps=self.eps, reduction=self.reduction
        )


class PoissonNLLLoss(_Loss):
    """loss = exp(x) - y x (log_input=True) or x - y log(x + eps): the negative
    log-likelihood of counts y under a Poisson of rate exp(x) (or x), up to log(y!),
    which full=True approximates (Stirling) where y > 1."""

    def __init__(
        self, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None, reduction="mean"
    ):
        super().__init__(size_average, reduce, reduction)
        self.log_input, self.full, self.eps = log_input, full, eps

    def forward(self, log_input, target):
        return F.poisson_nll_loss(
            log_input,
            target,
            log_input=self.log_input,
            full=self.full,
            eps=self.eps,
            reduction=self.reduction,
        )


class CTCLoss(_Loss):
    """The connectionist temporal classification loss: -log p(target | log_probs) summed
    over every alignment of the target to the time steps (F.ctc_loss).
    forward(log_probs (T, N, C), targets, input_lengths, target_lengths)."""

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__(reduction=reduction)
        self.blank, self.zero_infinity = blank, zero_infinity

    def forward(self, log_probs, targets, input_lengths, target_lengths):
        return F.ctc_loss(
            log_probs,
            targets,
            input_lengths,
            target_lengths,
            self.blank,
            self.reduction,
            self.zero_infinity,
        )
