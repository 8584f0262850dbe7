"""Activation layers: the nonlinearities of nn.functional as Modules.

A Module form lets an activation sit in a Sequential and show up in the model's repr
with its settings. Each one only stores its arguments and calls the functional form
(`minigrad/nn/functional/activation.py`), which applies the Functions where the math
and the gradients are (`minigrad/ops/activation.py`).

`inplace=True` is accepted for PyTorch compatibility: minigrad never overwrites the
input, because autograd may still need it.
"""

from minigrad.nn import functional as F
from minigrad.nn.functional.activation import check_approximate
from minigrad.nn.module import Module


def _inplace_repr(inplace):
    return "inplace=True" if inplace else ""


class ReLU(Module):
    """y = max(x, 0)."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.relu(input)

    def extra_repr(self):
        return _inplace_repr(self.inplace)


class LeakyReLU(Module):
    """y = x if x > 0 else negative_slope * x."""

    def __init__(self, negative_slope=0.01, inplace=False):
        super().__init__()
        self.negative_slope, self.inplace = negative_slope, inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope)

    def extra_repr(self):
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class ELU(Module):
    """y = x if x > 0 else alpha * (exp(x) - 1)."""

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input):
        return F.elu(input, self.alpha)

    def extra_repr(self):
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class GELU(Module):
    """y = x * Phi(x) (Phi the standard normal CDF); approximate='tanh' uses
    Phi(x) ~ (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) / 2."""

    def __init__(self, approximate="none"):
        super().__init__()
        check_approximate(approximate, "GELU")
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


class SiLU(Module):
    """y = x * sigmoid(x) (swish)."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.silu(input)

    def extra_repr(self):
        return _inplace_repr(self.inplace)


class Mish(Module):
    """y = x * tanh(softplus(x))."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.mish(input)

    def extra_repr(self):
        return _inplace_repr(self.inplace)


class Sigmoid(Module):
    """y = 1 / (1 + exp(-x))."""

    def forward(self, input):
        return F.sigmoid(input)


class Tanh(Module):
    """y = tanh(x)."""

    def forward(self, input):
        return F.tanh(input)


class Softplus(Module):
    """y = log(1 + exp(beta x)) / beta, and y = x where beta x > threshold (where the
    two agree to float precision and exp would overflow)."""

    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return f"beta={self.beta}, threshold={self.threshold}"


class Softmax(Module):
    """y = exp(x) / sum(exp(x)) along `dim`: each slice along dim becomes a distribution."""

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.softmax(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class LogSoftmax(Module):
    """y = x - logsumexp(x) along `dim`: log-probabilities, computed without forming
    the probabilities (which could underflow to 0 and make the log -inf)."""

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.log_softmax(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"
