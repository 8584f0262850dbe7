"""Activation layers: the nonlinearities of nn.functional as Modules.

A Module form lets an activation sit in a Sequential and show up in the model's repr
with its settings. Each one only stores its arguments and calls the functional form
(`minigrad/nn/functional/activation.py`), which applies the Functions where the math
and the gradients are (`minigrad/ops/activation.py`).

`inplace=True` is accepted for PyTorch compatibility: minigrad never overwrites the
input, because autograd may still need it.
"""

from minigrad.autograd.grad_mode import no_grad
from minigrad.creation import empty
from minigrad.devices import check_device
from minigrad.nn import functional as F
from minigrad.nn.functional.activation import check_approximate
from minigrad.nn.module import Module
from minigrad.nn.parameter import Parameter


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


def _with_inplace(text, inplace):
    """torch's way of showing inplace after the other settings."""
    return text + (", inplace=True" if inplace else "")


class Hardtanh(Module):
    """y = clamp(x, min_val, max_val) (min_val < max_val), with no gradient at the bounds."""

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False):
        super().__init__()
        if not max_val > min_val:  # torch asserts this
            raise AssertionError(
                f"Hardtanh: max_val ({max_val}) must be greater than min_val ({min_val})"
            )
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val)

    def extra_repr(self):
        return _with_inplace(f"min_val={self.min_val}, max_val={self.max_val}", self.inplace)


class ReLU6(Hardtanh):
    """y = min(max(x, 0), 6): Hardtanh(0, 6)."""

    def __init__(self, inplace=False):
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace)


class Hardsigmoid(Module):
    """y = relu6(x + 3) / 6: 0 below -3, 1 above 3, a ramp between."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.hardsigmoid(input)


class Hardswish(Module):
    """y = x * relu6(x + 3) / 6 (MobileNetV3's swish with a hard sigmoid)."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.hardswish(input)


class SELU(Module):
    """y = scale * elu(x, alpha), alpha ~ 1.6733 and scale ~ 1.0507 (self-normalizing
    networks, Klambauer et al. 2017)."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.selu(input)

    def extra_repr(self):
        return _inplace_repr(self.inplace)


class CELU(Module):
    """y = max(0, x) + min(0, alpha (exp(x / alpha) - 1))."""

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input):
        return F.celu(input, self.alpha)

    def extra_repr(self):
        return _with_inplace(f"alpha={self.alpha}", self.inplace)


class GLU(Module):
    """y = a * sigmoid(b), a and b the two halves of x along `dim` (gated linear unit)."""

    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.glu(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class LogSigmoid(Module):
    """y = log(sigmoid(x)) = -softplus(-x), computed stably."""

    def forward(self, input):
        return F.logsigmoid(input)


class Softmin(Module):
    """y = softmax(-x) along `dim`."""

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.softmin(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class Softmax2d(Module):
    """Softmax over the channels at each position: dim -3 of (N, C, H, W) or (C, H, W)."""

    def forward(self, input):
        if input.ndim not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.ndim}D instead")
        return F.softmax(input, -3)


class Softsign(Module):
    """y = x / (1 + |x|)."""

    def forward(self, input):
        return F.softsign(input)


class Tanhshrink(Module):
    """y = x - tanh(x)."""

    def forward(self, input):
        return F.tanhshrink(input)


class Softshrink(Module):
    """y = x - lambd above lambd, x + lambd below -lambd, 0 between (lambd >= 0, checked
    at the call, as torch)."""

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return F.softshrink(input, self.lambd)

    def extra_repr(self):
        return str(self.lambd)


class Hardshrink(Module):
    """y = x where |x| > lambd, else 0."""

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return F.hardshrink(input, self.lambd)

    def extra_repr(self):
        return f"{self.lambd}"


class Threshold(Module):
    """y = x where x > threshold, else value."""

    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value)

    def extra_repr(self):
        return _with_inplace(f"threshold={self.threshold}, value={self.value}", self.inplace)


class PReLU(Module):
    """y = x where x > 0, else a * x, with a learned slope a: one for every channel
    (num_parameters=1, the default) or one per channel (num_parameters = C, the input's
    dim 1). `weight` (num_parameters,) starts at `init` (0.25), as torch's."""

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        super().__init__()
        check_device(device, "PReLU")
        self.num_parameters, self.init = num_parameters, init
        self.weight = Parameter(empty(num_parameters, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self):
        with no_grad():
            self.weight.fill_(self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


class RReLU(Module):
    """Randomized leaky relu: in training y = a x where x <= 0, a ~ U(lower, upper) drawn
    per element; in evaluation the mean slope (lower + upper) / 2."""

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training)

    def extra_repr(self):
        return _with_inplace(f"lower={self.lower}, upper={self.upper}", self.inplace)
