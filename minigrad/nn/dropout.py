"""Dropout: randomly silence units while training, so no unit can rely on another.

Each element is zeroed with probability p and the survivors are scaled by 1 / (1 - p)
("inverted" dropout), so the expected output equals the input and evaluation is the
identity: `model.eval()` switches it off, nothing needs rescaling at test time.
"""

from minigrad.nn import functional as F
from minigrad.nn.functional.dropout import check_dropout_probability
from minigrad.nn.module import Module


class Dropout(Module):
    """y = x * m / (1 - p), m ~ Bernoulli(1 - p) per element, in training; y = x in eval.

    dL/dx = dL/dy * m / (1 - p): the gradient flows only through the kept elements.
    The mask comes from the global generator (`mg.manual_seed`). `inplace` is accepted
    for PyTorch compatibility; minigrad always returns a new tensor.
    """

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        check_dropout_probability(p, "Dropout")
        self.p, self.inplace = p, inplace

    def forward(self, input):
        return F.dropout(input, self.p, self.training)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class _DropoutNd(Module):
    functional = None  # the F function a subclass applies

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        check_dropout_probability(p, type(self).__name__)
        self.p, self.inplace = p, inplace

    def forward(self, input):
        return type(self).functional(input, self.p, self.training)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout1d(_DropoutNd):
    """Channel dropout of (N, C, L) or (C, L): each channel is zeroed with probability p in
    training (the survivors scaled by 1 / (1 - p)); the identity in eval."""

    functional = staticmethod(F.dropout1d)


class Dropout2d(_DropoutNd):
    """Channel dropout of (N, C, H, W): each feature map is zeroed with probability p in
    training (the survivors scaled by 1 / (1 - p)); the identity in eval."""

    functional = staticmethod(F.dropout2d)


class Dropout3d(_DropoutNd):
    """Channel dropout of (N, C, D, H, W) or (C, D, H, W); the identity in eval."""

    functional = staticmethod(F.dropout3d)


class AlphaDropout(_DropoutNd):
    """Alpha dropout for SELU networks: dropped units go to SELU's saturation value and an
    affine map keeps mean 0 and variance 1; the identity in eval."""

    functional = staticmethod(F.alpha_dropout)


class FeatureAlphaDropout(_DropoutNd):
    """Alpha dropout of whole channels (dim 1); the identity in eval."""

    functional = staticmethod(F.feature_alpha_dropout)
