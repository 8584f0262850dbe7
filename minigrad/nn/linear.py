"""Linear layers: y = x W^T + b, and the bilinear layer y_o = x1^T A_o x2 + b_o.

`Linear(in_features, out_features)` stores W as (out_features, in_features), PyTorch's
layout, so a PyTorch state dict loads unchanged. (Keras's `Dense(out_features)`, a
Linear that reads in_features from its first input, is in keras.py.)
"""

import math

from minigrad.creation import empty
from minigrad.devices import check_device
from minigrad.nn import functional as F
from minigrad.nn import init
from minigrad.nn.module import Module
from minigrad.nn.parameter import Parameter


class Linear(Module):
    """y = x W^T + b, W: (out_features, in_features), b: (out_features,).

    Default initialisation as PyTorch: W and b uniform in +-1/sqrt(in_features)
    (kaiming_uniform_ with a = sqrt(5) works out to exactly that bound for W).
    `device` and `dtype` are PyTorch's factory keywords: where the parameters live ('cpu',
    or 'cuda' where there is a GPU; see nn/module_device.py's `place_on_factory_device`) and their
    dtype.
    """

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        check_device(device, type(self).__name__)
        if in_features < 0 or out_features < 0:
            raise ValueError(
                f"Linear: features must be non-negative, got in={in_features}, out={out_features}"
            )
        self.in_features, self.out_features = in_features, out_features
        self.weight = Parameter(empty(out_features, in_features, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_features, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            bound = 1 / math.sqrt(self.in_features) if self.in_features > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        if input.shape[-1:] != (self.in_features,):
            raise ValueError(
                f"Linear: expected input with last dimension {self.in_features} (in_features), got "
                f"shape {input.shape}"
            )
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, "
            f"bias={self.bias is not None}"
        )


class Bilinear(Module):
    """y_o = x1^T A_o x2 + b_o: weight A (out_features, in1_features, in2_features), bias
    (out_features,). Default initialisation as torch's: both uniform in +-1/sqrt(in1_features)."""

    def __init__(
        self, in1_features, in2_features, out_features, bias=True, device=None, dtype=None
    ):
        super().__init__()
        check_device(device, "Bilinear")
        self.in1_features, self.in2_features, self.out_features = (
            in1_features,
            in2_features,
            out_features,
        )
        self.weight = Parameter(empty(out_features, in1_features, in2_features, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_features, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        bound = 1 / math.sqrt(self.weight.shape[1]) if self.weight.shape[1] > 0 else 0
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (
            f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
            f"out_features={self.out_features}, bias={self.bias is not None}"
        )
