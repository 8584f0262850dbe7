"""Dropout as a function: F.dropout.

Inverted dropout zeroes each element with probability p and scales the survivors by
1 / (1 - p), so the expected output equals the input and evaluation (training=False)
is the identity. No Function of its own: the result is the input times a constant
mask, so autograd's product rule already gives dL/dx = dL/dy * mask / (1 - p).
"""

from minigrad import random as _random
from minigrad.creation import from_numpy


def check_dropout_probability(p, op):
    """The one rule for a dropout probability, used by F.dropout and (at construction)
    nn.Dropout."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"{op}: dropout probability has to be between 0 and 1, but got {p}")


def dropout(input, p=0.5, training=True, inplace=False):
    """Inverted dropout: zero each element with probability p and scale the survivors by
    1 / (1 - p), so the expected value is unchanged and evaluation needs no rescaling.
    The mask comes from the global generator (`mg.manual_seed`)."""
    check_dropout_probability(p, "dropout")
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return input * 0.0
    keep = _random.generator().random(input.shape) >= p
    return input * from_numpy((keep / (1.0 - p)).astype(input.dtype))
