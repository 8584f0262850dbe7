"""nn.init: fill parameters in place with the distributions deep networks start from.

Every function draws from the global generator (`mg.manual_seed`), works under
`no_grad` (initialisation is not part of the graph) and returns the tensor it filled.
"""

import math

import numpy as np

from minigrad import random as _random
from minigrad.autograd.grad_mode import no_grad


def calculate_gain(nonlinearity, param=None):
    """The factor that keeps activations' variance steady through `nonlinearity`
    (PyTorch's table: 1 for linear/sigmoid, 5/3 for tanh, sqrt(2) for relu, ...)."""
    linear_fns = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d")
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
            f"fan in and fan out can not be computed for a tensor with fewer than 2 dimensions (shape {tensor.shape})"
        )
    receptive_field = int(np.prod(tensor.shape[2:])) if tensor.ndim > 2 else 1
    return tensor.shape[1] * receptive_field, tensor.shape[0] * receptive_field


def _fill(tensor, values):
    with no_grad():
        tensor.data[...] = values
        tensor._version_counter().value += 1
    return tensor


def uniform_(tensor, a=0.0, b=1.0):
    """Fill with U(a, b)."""
    return _fill(tensor, _random.generator().uniform(a, b, size=tensor.shape))


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu"):
    """Fill with U(-bound, bound), bound = gain * sqrt(3 / fan) (He et al. 2015)."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"kaiming_uniform_: mode must be 'fan_in' or 'fan_out', got {mode!r}")
    fan = fan_in if mode == "fan_in" else fan_out
    if fan == 0:
        return tensor
    bound = calculate_gain(nonlinearity, a) * math.sqrt(3.0 / fan)
    return uniform_(tensor, -bound, bound)
