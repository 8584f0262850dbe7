"""The torch-level functions of the unary math ops: `mg.exp(x)` is `x.exp()`.

Each takes what torch's function of the same name takes (a list or a number becomes a
tensor first) and calls the Tensor method, whose `Function` is in `elementwise.py`.
"""

from minigrad.creation import as_tensor


def exp(input):
    """e^input elementwise; see Tensor.exp."""
    return as_tensor(input).exp()


def log(input):
    """Natural logarithm elementwise; see Tensor.log."""
    return as_tensor(input).log()


def sqrt(input):
    """Square root elementwise; see Tensor.sqrt."""
    return as_tensor(input).sqrt()


def rsqrt(input):
    """1 / sqrt(input) elementwise; see Tensor.rsqrt."""
    return as_tensor(input).rsqrt()


def sin(input):
    """Sine elementwise (radians); see Tensor.sin."""
    return as_tensor(input).sin()


def cos(input):
    """Cosine elementwise (radians); see Tensor.cos."""
    return as_tensor(input).cos()


def tanh(input):
    """Hyperbolic tangent elementwise; see Tensor.tanh."""
    return as_tensor(input).tanh()


def sigmoid(input):
    """1 / (1 + e^-input) elementwise; see Tensor.sigmoid."""
    return as_tensor(input).sigmoid()


def erf(input):
    """The Gauss error function elementwise; see Tensor.erf."""
    return as_tensor(input).erf()


def relu(input):
    """max(input, 0) elementwise; see Tensor.relu."""
    return as_tensor(input).relu()


def abs(input):  # noqa: A001  (torch.abs)
    """|input| elementwise; see Tensor.abs."""
    return as_tensor(input).abs()


def sign(input):
    """-1, 0 or 1 by the sign of each element; see Tensor.sign."""
    return as_tensor(input).sign()


def floor(input):
    """The largest integer <= each element; see Tensor.floor."""
    return as_tensor(input).floor()


def ceil(input):
    """The smallest integer >= each element; see Tensor.ceil."""
    return as_tensor(input).ceil()


def round(input, *, decimals=0):  # noqa: A001  (torch.round)
    """Each element rounded to `decimals` places, halves to even; see Tensor.round."""
    return as_tensor(input).round(decimals=decimals)


def clamp(input, min=None, max=None):
    """Each element limited to [min, max] (either may be None); see Tensor.clamp."""
    return as_tensor(input).clamp(min, max)


def clip(input, min=None, max=None):
    """Another name for clamp: each element limited to [min, max]; see Tensor.clamp."""
    return as_tensor(input).clip(min, max)


def clamp_min(input, min):
    """Each element raised to at least `min`; see Tensor.clamp_min."""
    return as_tensor(input).clamp_min(min)


def clamp_max(input, max):
    """Each element lowered to at most `max`; see Tensor.clamp_max."""
    return as_tensor(input).clamp_max(max)


def square(input):
    """input * input elementwise; see Tensor.square."""
    return as_tensor(input).square()


def reciprocal(input):
    """1 / input elementwise; see Tensor.reciprocal."""
    return as_tensor(input).reciprocal()
