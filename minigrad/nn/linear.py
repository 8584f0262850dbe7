"""Linear layers: y = x W^T + b, and the bilinear layer y_o = x1^T A_o x2 + b_o.

`Linear(in_features, out_features)` stores W as (out_features, in_features), PyTorch's
layout, so a PyTorch state dict loads unchanged. `Dense(out_features)` is the lazy
form: in_features is read from the first input it sees. Dense also takes Keras-style
`initializer=` (see initializer.py).
"""

import math
import numbers

from minigrad.creation import empty
from minigrad.devices import check_device
from minigrad.nn import functional as F
from minigrad.nn import init
from minigrad.nn import initializer as initializer_module
from minigrad.nn.module import Module
from minigrad.nn.parameter import Parameter


# --8<-- [start:linear_module]
class Linear(Module):
    """y = x W^T + b, W: (out_features, in_features), b: (out_features,).

    Default initialisation as PyTorch: W and b uniform in +-1/sqrt(in_features)
    (kaiming_uniform_ with a = sqrt(5) works out to exactly that bound for W).
    `device` and `dtype` are PyTorch's factory keywords: where the parameters live ('cpu',
    or 'cuda' where there is a GPU; see Module's `_to_factory_device`) and their dtype.
    """

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        check_device(device, type(self).__name__)
        if in_features < 0 or out_features < 0:
            raise ValueError(f"Linear: features must be non-negative, got in={in_features}, out={out_features}")
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
                f"Linear: expected input with last dimension {self.in_features} (in_features), got shape {input.shape}"
            )
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"

    # --8<-- [end:linear_module]


class Bilinear(Module):
    """y_o = x1^T A_o x2 + b_o: weight A (out_features, in1_features, in2_features), bias
    (out_features,). Default initialisation as torch's: both uniform in +-1/sqrt(in1_features)."""

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        check_device(device, "Bilinear")
        self.in1_features, self.in2_features, self.out_features = in1_features, in2_features, out_features
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


# --8<-- [start:dense]
class Dense(Linear):
    """The lazy Linear: `Dense(out_features)` reads in_features from its first input.

    After that it is a Linear (same layout, same default initialisation). Until the
    first call (or `build(in_features)`) in_features is 0 and the weight an empty
    (out_features, 0) placeholder, as PyTorch's LazyLinear: run one batch through the
    model (or call `build`) before creating the optimizer or loading a state dict.
    Building fills the placeholders in place, so the Parameter objects stay the same
    and keep the dtype they were given (`Dense(4).double()` builds float64 weights).

    Keyword arguments: `in_features=` builds the layer at once (what `from_config` of
    a built Dense does: its config records the in_features it inferred), and
    `initializer=` picks the weight's initialisation by name ('xavier_uniform',
    'kaiming_normal', 'zeros', ...) or as a function applied to the weight.
    """

    def __init__(self, out_features, bias=True, device=None, dtype=None, *, in_features=None, initializer=None):
        weight_init = initializer_module.resolve(initializer, "Dense")
        super().__init__(0, out_features, bias=bias, device=device, dtype=dtype)
        self._built = False
        self._weight_init = weight_init
        if in_features is not None:
            self.build(in_features)

    def build(self, in_features):
        """Give the weight its shape (out_features, in_features) and initialise W and b."""
        if self._built:
            raise RuntimeError(f"Dense: already built with in_features={self.in_features}")
        if isinstance(in_features, bool) or not isinstance(in_features, numbers.Integral) or in_features < 0:
            raise ValueError(f"Dense: in_features must be a non-negative integer, got {in_features!r}")
        self.in_features = int(in_features)
        # replace .array, not the Parameter, so that references to it stay valid
        self.weight.array = empty(self.out_features, self.in_features, dtype=self.weight.dtype).array
        self._built = True
        self.reset_parameters()
        return self

    def reset_parameters(self):
        super().reset_parameters()  # PyTorch's default for W and b ...
        weight_init = self.__dict__.get("_weight_init")  # (None while Linear.__init__ runs)
        if weight_init is not None and self.weight.array.size:
            weight_init(self.weight)  # ... then the chosen initializer for W

    def forward(self, input):
        if not self._built:
            if input.ndim == 0:
                raise ValueError("Dense: the input needs a feature dimension (its last), got a 0-d tensor")
            self.build(input.shape[-1])
        return super().forward(input)

    def _constructor_arguments(self):
        """The constructor's arguments, plus the inferred in_features once built, so
        `Dense.from_config(m.get_config())` (and mg.load) make a built layer of the same shape."""
        arguments = super()._constructor_arguments()
        if self._built:
            arguments["in_features"] = self.in_features
        return arguments

    # --8<-- [end:dense]
