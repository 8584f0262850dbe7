"""Dropout as a function: F.dropout."""

from minigrad import random as _random
from minigrad.creation import from_numpy


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
