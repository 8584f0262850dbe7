"""Dropout as functions: F.dropout, its channel forms dropout1d/2d/3d, and alpha dropout.

Inverted dropout zeroes each element with probability p and scales the survivors by
1 / (1 - p), so the expected output equals the input and evaluation (training=False)
is the identity. No Function of its own: the result is the input times a constant
mask, so autograd's product rule already gives dL/dx = dL/dy * mask / (1 - p).

The channel forms draw one keep-or-drop per feature map (dim 1) instead of per element.
Alpha dropout (for SELU networks) is an affine map of the input with a random mask, so
it needs no Function either. Masks come from the global generator (`mg.manual_seed`).
"""

import warnings

import numpy as np

from minigrad.creation import from_numpy
from minigrad.ops.random_source import generator_for, uniform


def check_dropout_probability(p, op):
    """The one rule for a dropout probability, used by F.dropout and (at construction)
    nn.Dropout."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"{op}: dropout probability has to be between 0 and 1, but got {p}")


def dropout(input, p=0.5, training=True, inplace=False):
    """Inverted dropout: zero each element with probability p and scale the survivors by
    1 / (1 - p), so the expected value is unchanged and evaluation needs no rescaling.
    The mask comes from the global generator (`mg.manual_seed`), or, for a CUDA tensor,
    from the GPU's (minigrad/ops/random_source.py)."""
    check_dropout_probability(p, "dropout")
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return input * 0.0
    keep = uniform(generator_for(input.array, None, "dropout"), input.shape) >= p
    return input * from_numpy((keep / (1.0 - p)).astype(input.dtype))


# ---- channel dropout: one draw per (sample, channel) ---------------------------------------------
def _feature_mask_shape(shape, op):
    """(N, C, 1, ..., 1): one draw per feature map, broadcast over its positions."""
    if len(shape) < 2:
        raise RuntimeError(
            f"{op}: Feature dropout requires at least 2 dimensions in the input, got shape {shape}"
        )
    return tuple(shape[:2]) + (1,) * (len(shape) - 2)


def _feature_dropout(input, p, training, op):
    """Zero whole channels (dim 1 of (N, C, ...)) with probability p, scale the rest by 1 / (1 -
    p)."""
    if not training or p == 0.0 or input.numel() == 0:
        return input
    shape = _feature_mask_shape(input.shape, op)
    if p == 1.0:
        return input * 0.0
    keep = uniform(generator_for(input.array, None, op), shape) >= p
    return input * from_numpy((keep / (1.0 - p)).astype(input.dtype))


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Channel dropout for (N, C, L) or (C, L): each channel (a whole length-L signal) is
    zeroed with probability p, the survivors scaled by 1 / (1 - p). Neighbouring positions
    of a signal are strongly correlated, so dropping single elements would regularise little."""
    op = "dropout1d"
    check_dropout_probability(p, op)
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"{op}: Expected 2D or 3D input, but received a {input.ndim}D input of shape "
            f"{tuple(input.shape)}. "
            "Note that dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
            "dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D "
            "inputs)."
        )
    if input.ndim == 2:
        return _feature_dropout(input.unsqueeze(0), p, training, op).squeeze(0)
    return _feature_dropout(input, p, training, op)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Channel dropout for (N, C, H, W) (Tompson et al. 2015): each feature map is zeroed
    with probability p, the survivors scaled by 1 / (1 - p). As torch's, a 3-D input is
    read as (N, C, L), with a warning, and other ranks with a deprecation warning."""
    op = "dropout2d"
    check_dropout_probability(p, op)
    if input.ndim not in (3, 4):
        warnings.warn(
            f"{op}: Received a {input.ndim}-D input to dropout2d, which is deprecated and will "
            "result in an error in a future release. To retain the behavior and silence this "
            "warning, please use dropout instead. Note that dropout2d exists to provide "
            "channel-wise dropout on inputs with 2 spatial dimensions, a channel dimension, and an "
            "optional batch dimension (i.e. 3D or 4D inputs).",
            stacklevel=2,
        )
    if input.ndim == 3:
        warnings.warn(
            f"{op}: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout "
            "behavior is desired - input is interpreted as shape (N, C, L), where C is the channel "
            "dim. This behavior will change in a future release to interpret the input as one "
            "without a batch dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise "
            "dropout behavior, please switch to using dropout1d instead.",
            stacklevel=2,
        )
    return _feature_dropout(input, p, training, op)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Channel dropout for (N, C, D, H, W) or (C, D, H, W): each volume is zeroed with
    probability p, the survivors scaled by 1 / (1 - p)."""
    op = "dropout3d"
    check_dropout_probability(p, op)
    if input.ndim not in (4, 5):
        warnings.warn(
            f"{op}: Received a {input.ndim}-D input to dropout3d, which is deprecated and will "
            "result in an error in a future release. To retain the behavior and silence this "
            "warning, please use dropout instead. Note that dropout3d exists to provide "
            "channel-wise dropout on inputs with 3 spatial dimensions, a channel dimension, and an "
            "optional batch dimension (i.e. 4D or 5D inputs).",
            stacklevel=2,
        )
    if input.ndim != 5:
        return _feature_dropout(input.unsqueeze(0), p, training, op).squeeze(0)
    return _feature_dropout(input, p, training, op)


# ---- alpha dropout: dropout that keeps SELU's mean 0 and variance 1 ------------------------------
# -lambda * alpha of SELU: the value SELU tends to at -infinity
SELU_SATURATION = 1.7580993408473766


def _alpha_dropout(input, p, training, mask_shape):
    """y = a (x m + alpha' (1 - m)) + b with m ~ Bernoulli(1 - p): a dropped unit is set
    to SELU's saturation value alpha' = -1.7581 (not 0, which is no longer "off" for SELU),
    then the affine map a, b restores mean 0 and variance 1 (Klambauer et al. 2017):
    a = ((1 - p)(1 + p alpha'^2))^(-1/2), b = -a alpha' p. dL/dx = dL/dy * a m."""
    if not training or p == 0.0 or input.numel() == 0:
        return input
    if p == 1.0:
        return input * 0.0
    rng = generator_for(input.array, None, "alpha_dropout")
    keep = (uniform(rng, mask_shape) >= p).astype(input.dtype)
    alpha = SELU_SATURATION
    a = 1.0 / np.sqrt((alpha * alpha * p + 1.0) * (1.0 - p))
    shift = (keep - 1.0) * alpha * a + alpha * a * p  # a * alpha' * (1 - m) + b, alpha' = -alpha
    return input * from_numpy(keep * a) + from_numpy(shift.astype(input.dtype))


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Alpha dropout, for self-normalizing networks (SELU): each element is dropped with
    probability p to SELU's negative saturation value, then all are scaled and shifted
    so that inputs of mean 0 and variance 1 keep them. Note training=False by default, as torch."""
    check_dropout_probability(p, "alpha_dropout")
    return _alpha_dropout(input, p, training, input.shape)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Alpha dropout of whole channels (dim 1 of (N, C, ...)): one draw per feature map."""
    op = "feature_alpha_dropout"
    check_dropout_probability(p, op)
    return _alpha_dropout(
        input, p, training, _feature_mask_shape(input.shape, op) if training else None
    )
