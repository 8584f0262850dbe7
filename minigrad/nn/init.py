"""nn.init: fill parameters in place with the distributions deep networks start from.

Every function draws from the global generator (`mg.manual_seed`), or from the
`generator=` it is given (a `mg.Generator`, leaving the global stream untouched), works
under `no_grad` (initialisation is not part of the graph) and returns the tensor it
filled.

Why the scale matters: a layer y = W x with fan_in inputs multiplies the variance of
its input by fan_in * Var(W). Choosing Var(W) = 1 / fan_in (times a gain that undoes
what the nonlinearity removes) keeps activations from shrinking or exploding with
depth: that is Xavier (Glorot & Bengio 2010) and Kaiming (He et al. 2015)
initialisation. For a weight laid out (out, in, *kernel), as Linear's and Conv's are,
fan_in = in * kernel size and fan_out = out * kernel size.
"""

import math

import numpy as np

from minigrad import random as _random
from minigrad.array_module import on_device, to_device
from minigrad.autograd.grad_mode import no_grad


def calculate_gain(nonlinearity, param=None):
    """The factor that keeps activations' variance steady through `nonlinearity`
    (PyTorch's table: 1 for linear/sigmoid, 5/3 for tanh, sqrt(2) for relu,
    sqrt(2 / (1 + slope^2)) for leaky_relu, 3/4 for selu)."""
    linear_fns = (
        "linear",
        "conv1d",
        "conv2d",
        "conv3d",
        "conv_transpose1d",
        "conv_transpose2d",
        "conv_transpose3d",
    )
    if nonlinearity in linear_fns or nonlinearity == "sigmoid":
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, (int, float)) and not isinstance(param, bool):
            slope = param
        else:
            raise ValueError(f"calculate_gain: negative_slope {param!r} is not a valid number")
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"calculate_gain: unsupported nonlinearity {nonlinearity!r}")


def _calculate_fan_in_and_fan_out(tensor):
    """fan_in = in_features * receptive field, fan_out = out_features * receptive field,
    for a weight laid out (out, in, *kernel) as PyTorch's."""
    if tensor.ndim < 2:
        raise ValueError(
            "fan in and fan out can not be computed for a tensor with fewer than 2 dimensions "
            f"(shape {tensor.shape})"
        )
    receptive_field = int(np.prod(tensor.shape[2:])) if tensor.ndim > 2 else 1
    return tensor.shape[1] * receptive_field, tensor.shape[0] * receptive_field


def _fan(tensor, mode, op):
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"{op}: mode must be 'fan_in' or 'fan_out', got {mode!r}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def _fill(tensor, values):
    # The values are drawn on the host (one seed gives the same weights on either device);
    # a CUDA tensor gets them copied over, once, at initialisation.
    if on_device(tensor.array) and not on_device(values):
        values = to_device(np.asarray(values, dtype=tensor.array.dtype))
    with no_grad():
        tensor.array[...] = values
        tensor._version_counter().value += 1
    return tensor


# ---- plain distributions -----------------------------------------------------------------
def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fill with U(a, b)."""
    rng = _random.numpy_generator(generator, "uniform_")
    return _fill(tensor, rng.uniform(a, b, size=tensor.shape))


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fill with N(mean, std^2)."""
    rng = _random.numpy_generator(generator, "normal_")
    return _fill(tensor, rng.normal(mean, std, size=tensor.shape))


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Fill with N(mean, std^2) restricted to [a, b] (a and b are values, not numbers of
    std): draw, and draw again wherever the value fell outside, until none does."""
    if not a < b:
        raise ValueError(f"trunc_normal_: expected a < b, got a={a}, b={b}")
    # the chance that one draw lands in [a, b]; each round keeps about that fraction
    inside = 0.5 * (
        math.erf((b - mean) / (std * math.sqrt(2))) - math.erf((a - mean) / (std * math.sqrt(2)))
    )
    if inside < 1e-4:
        raise ValueError(
            f"trunc_normal_: [a, b] = [{a}, {b}] holds almost none of N({mean}, {std}^2) "
            f"(probability {inside:.2e}); "
            "rejection sampling would not finish"
        )
    rng = _random.numpy_generator(generator, "trunc_normal_")
    values = rng.normal(mean, std, size=tensor.shape)
    outside = (values < a) | (values > b)
    while outside.any():
        values[outside] = rng.normal(mean, std, size=int(outside.sum()))
        outside = (values < a) | (values > b)
    return _fill(tensor, values)


def constant_(tensor, val):
    """Fill with the value `val`."""
    return _fill(tensor, val)


def zeros_(tensor):
    """Fill `tensor` with 0 in place (no gradient recorded); returns it."""
    return _fill(tensor, 0)


def ones_(tensor):
    """Fill `tensor` with 1 in place (no gradient recorded); returns it."""
    return _fill(tensor, 1)


def eye_(tensor):
    """Fill a 2-D tensor with the identity matrix (ones on the diagonal, a rectangular one
    for a non-square tensor): a Linear layer that starts as the identity map."""
    if tensor.ndim != 2:
        raise ValueError(
            f"eye_: Only tensors with 2 dimensions are supported, got shape {tuple(tensor.shape)}"
        )
    return _fill(tensor, np.eye(*tensor.shape))


def dirac_(tensor, groups=1):
    """Fill a 3-, 4- or 5-D convolution weight (out, in, *kernel) with the Dirac delta: a
    1 at the kernel's centre from input channel d to output channel d of each of `groups`
    groups, 0 elsewhere, so the convolution starts as the identity map on the channels it
    keeps."""
    if tensor.ndim not in (3, 4, 5):
        raise ValueError(
            "dirac_: Only tensors with 3, 4, or 5 dimensions are supported, got shape "
            f"{tensor.shape}"
        )
    out_channels = tensor.shape[0]
    if out_channels % groups:
        raise ValueError(
            f"dirac_: dim 0 must be divisible by groups, got {out_channels} and groups={groups}"
        )
    per_group = out_channels // groups
    values = np.zeros(tensor.shape)
    centre = tuple(size // 2 for size in tensor.shape[2:])
    for g in range(groups):
        for d in range(min(per_group, tensor.shape[1])):
            values[(g * per_group + d, d) + centre] = 1
    return _fill(tensor, values)


# ---- scaled by the fans (weights of layers) -------------------------------------------------
def xavier_uniform_(tensor, gain=1.0, generator=None):
    """Fill with U(-a, a), a = gain * sqrt(6 / (fan_in + fan_out)) (Glorot & Bengio 2010),
    i.e. std = gain * sqrt(2 / (fan_in + fan_out)): the average of the variances that
    keep the forward and the backward signal steady."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    if tensor.array.size == 0:
        return tensor  # nothing to fill (and the fans may be 0)
    std = gain * math.sqrt(2.0 / (fan_in + fan_out))
    bound = math.sqrt(3.0) * std  # U(-b, b) has std b / sqrt(3)
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    """Fill with N(0, std^2), std = gain * sqrt(2 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    if tensor.array.size == 0:
        return tensor
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / (fan_in + fan_out)), generator)


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """Fill with U(-bound, bound), bound = gain * sqrt(3 / fan) (He et al. 2015), with
    gain = calculate_gain(nonlinearity, a); fan_in keeps the forward pass steady,
    fan_out the backward pass."""
    fan = _fan(tensor, mode, "kaiming_uniform_")
    if tensor.array.size == 0:
        return tensor
    bound = calculate_gain(nonlinearity, a) * math.sqrt(3.0 / fan)
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """Fill with N(0, std^2), std = gain / sqrt(fan) (He et al. 2015)."""
    fan = _fan(tensor, mode, "kaiming_normal_")
    if tensor.array.size == 0:
        return tensor
    return normal_(tensor, 0.0, calculate_gain(nonlinearity, a) / math.sqrt(fan), generator)


def orthogonal_(tensor, gain=1.0, generator=None):
    """Fill with a (semi-)orthogonal matrix times `gain` (Saxe et al. 2013): the rows
    (or the columns, whichever are fewer) are orthonormal, so W preserves the norm of
    the vectors it acts on. A tensor with more than 2 dims is treated as
    (shape[0], everything else). Made from the QR decomposition of a Gaussian matrix;
    flipping Q's columns by the signs of R's diagonal makes the result uniformly
    distributed over orthogonal matrices (otherwise QR's sign convention biases it)."""
    if tensor.ndim < 2:
        raise ValueError(
            "orthogonal_: only tensors with 2 or more dimensions are supported, got shape "
            f"{tensor.shape}"
        )
    if tensor.array.size == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.array.size // rows
    gaussian = _random.numpy_generator(generator, "orthogonal_").standard_normal((rows, cols))
    if rows < cols:
        gaussian = gaussian.T  # QR needs a tall matrix; transpose back afterwards
    q, r = np.linalg.qr(gaussian)
    q = q * np.sign(np.diag(r))
    if rows < cols:
        q = q.T
    return _fill(tensor, gain * q.reshape(tensor.shape))


# ---- a whole model at once ---------------------------------------------------------------
# the layers init_weights initialises: a weight (out, in, *kernel) and an optional bias
_WEIGHT_LAYERS = (
    "Linear",
    "Bilinear",
    "Conv1d",
    "Conv2d",
    "Conv3d",
    "ConvTranspose1d",
    "ConvTranspose2d",
)


def init_weights(module, init_type="xavier", gain=None):
    """Re-initialise the weight of every Linear and Conv layer in `module` and set their
    biases to 0; returns `module`. `gain` scales each scheme (default in brackets):

    - 'xavier':     xavier_uniform_(W, gain)                            [1]
    - 'kaiming':    N(0, std^2), std = gain * sqrt(2 / fan_in) (He, relu) [1]
    - 'normal':     N(0, gain^2)                                         [0.02]
    - 'uniform':    U(-gain, gain)                                       [0.05]
    - 'orthogonal': orthogonal_(W, gain)                                 [1]
    """
    from minigrad import nn  # here, not at the top: nn.linear imports this module

    default_gain = {
        "xavier": 1.0,
        "kaiming": 1.0,
        "normal": 0.02,
        "uniform": 0.05,
        "orthogonal": 1.0,
    }
    if init_type not in default_gain:
        raise ValueError(
            f"init_weights: init_type must be one of {list(default_gain)}, got {init_type!r}"
        )
    gain = default_gain[init_type] if gain is None else gain
    layer_types = tuple(getattr(nn, name) for name in _WEIGHT_LAYERS if hasattr(nn, name))
    for m in module.modules():
        if isinstance(m, layer_types):
            _init_weight(m.weight, init_type, gain)
            if getattr(m, "bias", None) is not None:
                zeros_(m.bias)
    return module


def _init_weight(weight, init_type, gain):
    if weight.array.size == 0:
        return  # e.g. a Dense that has not seen an input yet
    if init_type == "xavier":
        xavier_uniform_(weight, gain=gain)
    elif init_type == "kaiming":
        fan_in, _ = _calculate_fan_in_and_fan_out(weight)
        normal_(weight, 0.0, gain * calculate_gain("relu") / math.sqrt(fan_in))
    elif init_type == "normal":
        normal_(weight, 0.0, gain)
    elif init_type == "uniform":
        uniform_(weight, -gain, gain)
    else:
        orthogonal_(weight, gain=gain)
