"""`initializer=`: choose how a layer's weight starts, by name or by function (Keras style).

    nn.Dense(64, initializer="xavier_uniform")
    nn.Conv2d(3, 16, 3, initializer="kaiming_normal")
    nn.Dense(10, initializer=lambda w: nn.init.normal_(w, std=0.01))

A name is one of `nn.init`'s schemes with its default arguments; a callable receives
the weight Parameter and fills it in place (its return value is ignored). Only the
weight changes: the bias keeps the layer's PyTorch default. None (or 'default') keeps
PyTorch's default for the weight too, kaiming_uniform_(a=sqrt(5)).

Two Keras names are accepted where they are exactly the same scheme: 'glorot_uniform'
(= xavier_uniform) and 'he_uniform' (= kaiming_uniform, whose default gain is ReLU's).
"""

from minigrad.nn import init

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


def resolve(initializer, layer):
    """The function to apply to the weight (or None for the layer's default); `layer`
    names the layer in errors. Checked when the layer is made, not when it is built."""
    if initializer is None or callable(initializer):
        return initializer
    if not isinstance(initializer, str):
        raise TypeError(
            f"{layer}: initializer must be a name (e.g. 'xavier_uniform') or a callable, "
            f"got {type(initializer).__name__}"
        )
    name = initializer.rstrip("_")  # 'xavier_uniform_' names the same scheme as nn.init's function
    if name == "default":
        return None
    if name not in INITIALIZERS:
        raise ValueError(
            f"{layer}: unknown initializer {initializer!r}; expected one of {sorted(INITIALIZERS)}, "
            "'default' or a callable"
        )
    return INITIALIZERS[name]
