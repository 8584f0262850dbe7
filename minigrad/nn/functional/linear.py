"""The affine map as a function: F.linear."""


# --8<-- [start:linear]
def linear(input, weight, bias=None):
    """x @ W^T + b, with W of shape (out_features, in_features)."""
    out = input @ weight.mT if weight.ndim == 2 else input @ weight
    return out if bias is None else out + bias
    # --8<-- [end:linear]
