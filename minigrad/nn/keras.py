"""Keras's spellings of minigrad's layers (seed 004): one place for the dialect.

minigrad's layers mirror PyTorch's API. A course that started from Keras (the
`tf.keras.layers` API) finds its names here, on the same layers:

- `Dense(out_features)`: Keras's `Dense(units)`, a Linear that reads its input size from
  the first input it sees (`is_built` says whether it has);
- `initializer=`: how a layer's weight starts, by name or by function (Keras's
  `kernel_initializer`), on Dense and on the convolutions;
- the capital-D names: `Conv2D`, `Conv2DTranspose` (and `Conv2dTranspose`), `BatchNorm1D`,
  `BatchNorm2D`, `MaxPool2D`, `AvgPool2D`, `GlobalAvgPool2D`: the PyTorch classes
  themselves under Keras's spelling (`nn.Conv2D is nn.Conv2d`);
- `Module.is_built`, `Module.get_config()` and `Module.from_config(config)`: Keras's layer
  methods, on every Module (nn/module.py calls the functions below).

`get_config` is the JSON form of the constructor arguments that every Module records when
it is made (`Module._constructor_arguments`, also what `mg.save` writes).
"""

import json
import numbers
from collections import OrderedDict

import numpy as np

from minigrad import devices as _devices
from minigrad.creation import empty
from minigrad.nn import init
from minigrad.nn.containers import Sequential
from minigrad.nn.conv import Conv2d, ConvTranspose2d
from minigrad.nn.linear import Linear
from minigrad.nn.normalization import BatchNorm1d, BatchNorm2d
from minigrad.nn.pooling import AvgPool2d, GlobalAvgPool2d, MaxPool2d

# ---- the capital-D names --------------------------------------------------------------------
Conv2D = Conv2d
Conv2DTranspose = Conv2dTranspose = ConvTranspose2d
BatchNorm1D = BatchNorm1d
BatchNorm2D = BatchNorm2d
MaxPool2D = MaxPool2d
AvgPool2D = AvgPool2d
GlobalAvgPool2D = GlobalAvgPool2d


# ---- initializer= ---------------------------------------------------------------------------
# A name is one of `nn.init`'s schemes with its default arguments; a callable receives the
# weight Parameter and fills it in place (its return value is ignored). Only the weight
# changes: the bias keeps the layer's PyTorch default. None (or 'default') keeps PyTorch's
# default for the weight too, kaiming_uniform_(a=sqrt(5)). Two Keras names are accepted
# where they are exactly the same scheme: 'glorot_uniform' (= xavier_uniform) and
# 'he_uniform' (= kaiming_uniform, whose default gain is ReLU's).
#
#     nn.Dense(64, initializer="xavier_uniform")
#     nn.Conv2d(3, 16, 3, initializer="kaiming_normal")
#     nn.Dense(10, initializer=lambda w: nn.init.normal_(w, std=0.01))
INITIALIZERS = {
    "xavier_uniform": init.xavier_uniform_,
    "glorot_uniform": init.xavier_uniform_,
    "xavier_normal": init.xavier_normal_,
    "kaiming_uniform": init.kaiming_uniform_,
    "he_uniform": init.kaiming_uniform_,
    "kaiming_normal": init.kaiming_normal_,
    "orthogonal": init.orthogonal_,
    "trunc_normal": init.trunc_normal_,
    "normal": init.normal_,
    "uniform": init.uniform_,
    "zeros": init.zeros_,
    "ones": init.ones_,
}


def resolve_initializer(initializer, layer):
    """The function to apply to the weight (or None for the layer's default); `layer`
    names the layer in errors. Checked when the layer is made, not when it is built."""
    if initializer is None or callable(initializer):
        return initializer
    if not isinstance(initializer, str):
        raise TypeError(
            f"{layer}: initializer must be a name (e.g. 'xavier_uniform') or a callable, "
            f"got {type(initializer).__name__}"
        )
    name = initializer.rstrip("_")  # 'xavier_uniform_' names the same scheme as nn.init's
    if name == "default":
        return None
    if name not in INITIALIZERS:
        raise ValueError(
            f"{layer}: unknown initializer {initializer!r}; expected one of "
            f"{sorted(INITIALIZERS)}, 'default' or a callable"
        )
    return INITIALIZERS[name]


def initialize_weight(layer):
    """Apply the layer's `initializer=` (resolved into `layer._weight_init`) to its weight,
    after the PyTorch default has filled it; nothing if none was given."""
    weight_init = layer.__dict__.get("_weight_init")  # (not set yet while __init__ runs)
    if weight_init is not None and layer.weight.array.size:
        weight_init(layer.weight)


# ---- Dense ----------------------------------------------------------------------------------
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

    def __init__(
        self,
        out_features,
        bias=True,
        device=None,
        dtype=None,
        *,
        in_features=None,
        initializer=None,
    ):
        weight_init = resolve_initializer(initializer, "Dense")
        super().__init__(0, out_features, bias=bias, device=device, dtype=dtype)
        self._built = False
        self._weight_init = weight_init
        if in_features is not None:
            self.build(in_features)

    def build(self, in_features):
        """Give the weight its shape (out_features, in_features) and initialise W and b."""
        if self._built:
            raise RuntimeError(f"Dense: already built with in_features={self.in_features}")
        integral = isinstance(in_features, numbers.Integral) and not isinstance(in_features, bool)
        if not integral or in_features < 0:
            got = f"got {in_features!r}"
            raise ValueError(f"Dense: in_features must be a non-negative integer, {got}")
        self.in_features = int(in_features)
        # replace .array, not the Parameter, so that references to it stay valid
        shape = (self.out_features, self.in_features)
        self.weight.array = empty(*shape, dtype=self.weight.dtype).array
        self._built = True
        self.reset_parameters()
        return self

    def reset_parameters(self):
        super().reset_parameters()  # PyTorch's default for W and b ...
        initialize_weight(self)  # ... then the chosen initializer for W

    def forward(self, input):
        if not self._built:
            if input.ndim == 0:
                needs = "the input needs a feature dimension (its last)"
                raise ValueError(f"Dense: {needs}, got a 0-d tensor")
            self.build(input.shape[-1])
        return super().forward(input)

    def _constructor_arguments(self):
        """The constructor's arguments, plus the inferred in_features once built, so
        `Dense.from_config(m.get_config())` (and mg.load) make a built layer of the same shape."""
        arguments = super()._constructor_arguments()
        if self._built:
            arguments["in_features"] = self.in_features
        return arguments


# ---- Module.is_built, Module.get_config, Module.from_config -----------------------------------
def is_built(module):
    """False while a layer in `module` still waits for its first input to learn its shape
    (a lazy layer such as Dense); True otherwise (Keras's `built`)."""
    return all(m.__dict__.get("_built", True) for m in module.modules())


def set_built(module, value):
    """A lazy layer of your own marks itself (un)built; `is_built` then reads the flag."""
    object.__setattr__(module, "_built", bool(value))


def get_config(module):
    """The constructor's arguments as a JSON-able dict, so `type(m).from_config(cfg)`
    builds an identical (freshly initialised) module. A Sequential's is its layers'."""
    if _is_plain_sequential(type(module)):
        return {"layers": [_layer_config(name, m) for name, m in module.named_children()]}
    config = {}
    for name, value in module._constructor_arguments().items():
        config[name] = _jsonable(value, f"{type(module).__name__}.get_config: argument '{name}'")
    return config


def from_config(cls, config):
    """A new module built from `get_config()`'s dict: `type(m).from_config(m.get_config())`."""
    if _is_plain_sequential(cls):
        layers = OrderedDict(_layer_from_config(c, i, cls) for i, c in enumerate(config["layers"]))
        numbered = list(layers) == [str(i) for i in range(len(layers))]
        return cls(*layers.values()) if numbered else cls(layers)
    return cls(**config)


def _is_plain_sequential(cls):
    """A Sequential, or a subclass that keeps its constructor (a list of layers)."""
    return issubclass(cls, Sequential) and cls.__init__ is Sequential.__init__


def _layer_config(name, layer):
    """One entry of a Sequential's config, as Keras writes a layer: its class (where to
    import it from, and its name) and its own config."""
    cls = type(layer)
    return {
        "name": name,
        "module": cls.__module__,
        "class_name": cls.__qualname__,
        "config": get_config(layer),
    }


def _layer_from_config(entry, i, sequential):
    """(name, layer) from one entry of a Sequential's config. The class must be one of
    minigrad.nn's layers: a config names classes, and only those are looked up (as Keras
    looks up its own layers; a Sequential of your own layers you build yourself)."""
    from minigrad import nn  # the package: complete by the time a config is read

    cls = getattr(nn, entry["class_name"], None)
    if not (isinstance(cls, type) and cls.__module__ == entry["module"]):
        what = f"layer {i} is a {entry['module']}.{entry['class_name']}"
        raise ValueError(f"{sequential.__name__}.from_config: {what}, not a minigrad.nn layer")
    return entry["name"], cls.from_config(entry["config"])


def _jsonable(value, where):
    """Convert constructor arguments to JSON types, or raise naming the argument."""
    if isinstance(value, tuple):
        value = list(value)
    if isinstance(value, (np.integer, np.floating, np.bool_)):
        value = value.item()
    if isinstance(value, type) and issubclass(value, np.generic):
        value = np.dtype(value).name
    if isinstance(value, np.dtype):
        value = value.name
    if _devices._is_device(value):  # device('cpu') (or torch's) -> 'cpu', as constructors take
        value = str(value)
    try:
        json.dumps(value)
    except TypeError:
        what = f"{where} of type {type(value).__name__}"
        raise TypeError(f"{what} is not JSON-serialisable") from None
    return value
