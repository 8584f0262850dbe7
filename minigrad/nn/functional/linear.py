"""The affine map as a function: F.linear.

No Function of its own: it is a matrix product and an addition, and their backward
passes are the linear layer's (dL/dx = dL/dy W, dL/dW = dL/dy^T x, dL/db = dL/dy
summed over the batch; see MatMul in minigrad/ops/linalg.py). nn.Linear holds W and b
and calls this. As in PyTorch, x, W and b must share one dtype: a float64 batch
through a float32 layer raises rather than run in float64.
"""

from minigrad.ops.promotion import check_same_dtype


# --8<-- [start:linear]
def linear(input, weight, bias=None):
    """x @ W^T + b, with W of shape (out_features, in_features)."""
    check_same_dtype("linear", input=input, weight=weight, bias=bias)
    out = input @ weight.mT if weight.ndim == 2 else input @ weight  # a 1-D W: one output, as PyTorch
    return out if bias is None else out + bias
    # --8<-- [end:linear]
