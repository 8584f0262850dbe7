"""The affine map as a function: F.linear; and its two-input form, F.bilinear.

With a bias it is one op, `Linear` in minigrad/ops/linalg.py (PyTorch's addmm): the
product's kernel adds b to the rows it computes, and the backward is the linear layer's
three formulas (dL/dx = dL/dy W, dL/dW = dL/dy^T x, dL/db = dL/dy summed over the
batch). Without one it is a matrix product (MatMul, whose backward gives the first two).
nn.Linear holds W and b and calls this. As in PyTorch, x, W and b must share one dtype:
a float64 batch through a float32 layer raises rather than run in float64.
"""

from minigrad.ops.linalg import Linear, einsum
from minigrad.ops.promotion import check_same_dtype


def linear(input, weight, bias=None):
    """x @ W^T + b, with W of shape (out_features, in_features)."""
    check_same_dtype("linear", input=input, weight=weight, bias=bias)
    if (
        bias is not None
        and weight.ndim == 2
        and input.ndim >= 1
        and input.shape[-1] == weight.shape[1]
        and bias.shape == weight.shape[:1]
    ):
        return Linear.apply(input, weight, bias)  # the layer's case: one op, as torch's addmm
    # no bias, a 1-D W (one output, as PyTorch), a bias that broadcasts otherwise, or
    # shapes that do not fit (matmul's error names them): a product and an addition
    out = input @ weight.mT if weight.ndim == 2 else input @ weight
    return out if bias is None else out + bias


def bilinear(input1, input2, weight, bias=None):
    """y_o = x1^T A_o x2 + b_o for each output o: weight A (out, in1, in2), x1 (*, in1),
    x2 (*, in2) with the same leading dims *, bias (out,).

    One einsum, 'bi,oij,bj->bo', over the leading dims flattened into b; its gradients are
    the same contraction with one factor left out: dL/dx1 = sum_o g_o A_o x2,
    dL/dx2 = sum_o g_o A_o^T x1, dL/dA_o = sum_b g_bo x1_b x2_b^T.
    """
    op = "bilinear"
    check_same_dtype(op, input1=input1, input2=input2, weight=weight, bias=bias)
    if input1.ndim != input2.ndim:
        raise RuntimeError(
            f"{op}(): input dimensions do not match: got {input1.ndim} and {input2.ndim}"
        )
    for d, (a, b) in enumerate(zip(input1.shape[:-1], input2.shape[:-1])):
        if a != b:
            raise RuntimeError(
                f"{op}(): input batch dimensions do not match at dim {d}: got {a} and {b}"
            )
    if weight.ndim != 3:
        raise RuntimeError(
            f"{op}(): weight must be 3-D (out, in1, in2), got shape {tuple(weight.shape)}"
        )
    out, in1, in2 = weight.shape
    if input1.shape[-1] != in1:
        raise RuntimeError(
            f"{op}(): input1 size does not match weight size: got {input1.shape[-1]} but expected "
            f"{in1}"
        )
    if input2.shape[-1] != in2:
        raise RuntimeError(
            f"{op}(): input2 size does not match weight size: got {input2.shape[-1]} but expected "
            f"{in2}"
        )
    if bias is not None and bias.shape != (out,):
        raise RuntimeError(
            f"{op}(): bias size does not match weight size: got {bias.shape[-1]} but expected {out}"
        )
    lead = input1.shape[:-1]
    y = einsum("bi,oij,bj->bo", input1.reshape(-1, in1), weight, input2.reshape(-1, in2)).reshape(
        *lead, out
    )
    return y if bias is None else y + bias
