"""The connectionist temporal classification loss: F.ctc_loss (Graves et al. 2006).

A model emits, at each of T time steps, log-probabilities over C classes, one of them a
`blank`. A label sequence l (S labels, shorter than T) is read off a path of T classes
by merging repeats and dropping blanks ("aa-b" -> "ab"); the loss is -log of the total
probability of every path that reads l, so no alignment of l to the time steps is needed.

The sum over paths is a dynamic programme over the extended label l' = (blank, l1, blank,
l2, ..., blank) of length 2S + 1: alpha_t(s) is the log-probability of the paths of t + 1
steps that end in l'_s, and

    alpha_t(s) = logsumexp(alpha_{t-1}(s), alpha_{t-1}(s - 1), alpha_{t-1}(s - 2)) + lp_t(l'_s)

(the third term only where l'_s is a label that differs from l'_{s-2}: a path may skip
a blank between two different labels, not between two equal ones). The loss is
-logsumexp(alpha_{T-1}(2S), alpha_{T-1}(2S - 1)). Everything is in log space, so
long sequences do not underflow. The recursion is written with Tensor ops, one time
step at a time, so autograd differentiates it (the backward pass is the beta recursion
of the paper, run by the engine).

The gradient with respect to log_probs is the exact one. torch's own differs from it by
exp(log_probs) (it returns the gradient for logits that go through log_softmax first);
the two agree on the logits, the usual input: log_softmax(logits) -> ctc_loss.
"""

import numpy as np

from minigrad.creation import as_tensor, from_numpy
from minigrad.nn.functional.loss import check_reduction
from minigrad.ops.elementwise import where
from minigrad.ops.shape import cat, stack
from minigrad.tensor import Tensor


def _logsumexp(terms):
    """log(sum(exp(.))) of a list of tensors of one shape, elementwise, where every term
    may be -inf (a state no path reaches yet): the result is then -inf, with a zero
    gradient rather than NaN (exp(-inf - -inf))."""
    x = stack(terms)
    peak = np.max(x.array, axis=0)
    dead = np.isneginf(peak)
    shift = from_numpy(np.where(dead, 0.0, peak).astype(x.dtype))
    total = (x - shift).exp().sum(0)
    total = where(from_numpy(dead), 1.0, total)  # log(1) = 0: finite where it is discarded
    return where(from_numpy(dead), -np.inf, total.log() + shift)


def _sample_nll(lp, labels, blank):
    """-log p(labels | lp) for one sample: lp (T, C) log-probabilities, labels a list."""
    extended = [blank]
    for label in labels:
        extended += [label, blank]
    extended = np.array(extended)
    states = len(extended)
    # s may come from s - 2 where l'_s is a label different from l'_{s-2}
    skip = np.zeros(states, dtype=bool)
    skip[2:] = (extended[2:] != blank) & (extended[2:] != extended[:-2])
    if lp.shape[0] == 0:  # no time step: no path reads anything
        return from_numpy(np.array(np.inf, dtype=lp.dtype))
    none = from_numpy(np.full(2, -np.inf, dtype=lp.dtype))  # the states before the first
    start = np.full(states, -np.inf, dtype=lp.dtype)
    start[:2] = 0.0  # a path starts in the first blank or the first label
    alpha = from_numpy(start) + lp[0, extended]
    for t in range(1, lp.shape[0]):
        step = cat([none[:1], alpha[:-1]])  # from s - 1
        jump = where(from_numpy(skip), cat([none, alpha[:-2]])[:states], -np.inf)  # from s - 2
        alpha = _logsumexp([alpha, step, jump]) + lp[t, extended]
    ends = [alpha[-1]] if states == 1 else [alpha[-1], alpha[-2]]
    return -_logsumexp([e.reshape(1) for e in ends]).reshape(())


def ctc_loss(
    log_probs,
    targets,
    input_lengths,
    target_lengths,
    blank=0,
    reduction="mean",
    zero_infinity=False,
):
    """-log p(target | log_probs), summed over every alignment (see the module docstring).

    log_probs (T, N, C) (or (T, C) for one sequence), log-softmax outputs; targets (N, S)
    padded class indices, or all targets concatenated in one 1-D tensor; input_lengths
    (N,) the steps of each sequence that count; target_lengths (N,). reduction='mean'
    divides each loss by its target length, then averages over the batch, as torch.
    zero_infinity=True makes the infinite loss of an impossible alignment (a target too
    long for its input) 0, with a zero gradient.
    """
    op = "ctc_loss"
    check_reduction(reduction, op)
    if not isinstance(log_probs, Tensor) or log_probs.dtype.kind != "f":
        raise RuntimeError(f"{op}: log_probs must be a floating point Tensor (T, N, C)")
    unbatched = log_probs.ndim == 2
    lp = log_probs.unsqueeze(1) if unbatched else log_probs
    if lp.ndim != 3:
        raise RuntimeError(
            f"{op}: log_probs must be (T, N, C) or (T, C), got shape {tuple(log_probs.shape)}"
        )
    T, N, C = lp.shape
    if not 0 <= blank < C:
        raise RuntimeError(f"{op}: blank must be in label range [0, {C}), got blank={blank}")
    inputs = np.atleast_1d(np.asarray(as_tensor(input_lengths).array, dtype=np.int64))
    lengths = np.atleast_1d(np.asarray(as_tensor(target_lengths).array, dtype=np.int64))
    labels = np.asarray(as_tensor(targets).array)
    if labels.dtype.kind not in "iu":
        raise RuntimeError(f"{op}: targets must hold class indices (integers), got {labels.dtype}")
    if inputs.shape != (N,) or lengths.shape != (N,):
        raise RuntimeError(
            f"{op}: input_lengths and target_lengths must have one entry per sequence ({N}), got "
            f"{inputs.shape[0]} and {lengths.shape[0]}"
        )
    if np.any(inputs > T) or np.any(inputs < 0):
        raise RuntimeError(f"{op}: Expected input_lengths to be in [0, {T}], got {inputs.tolist()}")
    if unbatched or labels.ndim == 1:  # concatenated targets
        if labels.size < lengths.sum():
            raise RuntimeError(
                f"{op}: targets hold {labels.size} labels, target_lengths ask for {lengths.sum()}"
            )
        starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
        sequences = [labels.reshape(-1)[s : s + n].tolist() for s, n in zip(starts, lengths)]
    else:
        if labels.ndim != 2 or labels.shape[0] != N or np.any(lengths > labels.shape[1]):
            raise RuntimeError(
                f"{op}: padded targets must be (N, S) with S >= every target length, got shape "
                f"{labels.shape} and target_lengths {lengths.tolist()}"
            )
        sequences = [labels[n, :k].tolist() for n, k in enumerate(lengths)]
    for sequence in sequences:
        if any(not 0 <= label < C or label == blank for label in sequence):
            raise RuntimeError(
                f"{op}: targets must be classes in [0, {C}) other than the blank {blank}, got "
                f"{sequence}"
            )
    losses = stack([_sample_nll(lp[: inputs[n], n], sequences[n], blank) for n in range(N)])
    if zero_infinity:
        losses = where(from_numpy(np.isinf(losses.array)), 0.0, losses)
    if reduction == "none":
        return losses.squeeze(0) if unbatched else losses
    if reduction == "sum":
        return losses.sum()
    return (losses / from_numpy(np.maximum(lengths, 1).astype(losses.dtype))).mean()
