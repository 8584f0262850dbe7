"""MLP: the multi-layer perceptron, Linear layers with a nonlinearity between them."""

from minigrad import nn

_ACTIVATIONS = {
    "relu": nn.functional.relu,
    "gelu": nn.functional.gelu,
    "tanh": nn.functional.tanh,
    "silu": nn.functional.silu,
    "sigmoid": nn.functional.sigmoid,
}


class MLP(nn.Module):
    """x -> Linear -> act -> [Dropout] -> ... -> Linear -> logits.

    `MLP(64, (128, 64), 10)` maps 64 inputs through hidden layers of 128 and 64 units to
    10 outputs. Inputs with more than two dims (an image batch (N, 1, 8, 8), say) are
    flattened after the batch dim first.
    """

    def __init__(
        self, in_features, hidden_sizes=(128, 64), out_features=10, activation="relu", dropout=0.0
    ):
        super().__init__()
        if activation not in _ACTIVATIONS:
            raise ValueError(
                f"MLP: activation must be one of {sorted(_ACTIVATIONS)}, got {activation!r}"
            )
        if not 0.0 <= dropout < 1.0:
            raise ValueError(f"MLP: dropout must be in [0, 1), got {dropout}")
        sizes = [in_features, *hidden_sizes, out_features]
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:]))
        self.activation = activation
        self.dropout = dropout

    def forward(self, x):
        if x.ndim > 2:
            x = x.flatten(1)
        act = _ACTIVATIONS[self.activation]
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i < len(self.layers) - 1:
                x = act(x)
                x = nn.functional.dropout(x, self.dropout, self.training)
        return x

    def extra_repr(self):
        return f"activation={self.activation!r}, dropout={self.dropout}"
