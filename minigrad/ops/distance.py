"""Distances between every row of one set of vectors and every row of another: mg.cdist.

out[..., i, j] = ||x1[..., i, :] - x2[..., j, :]||_p. It is built from differentiable
ops: the differences of every pair of rows, (..., P, R, M), and their p-norm over the
last dim. So its gradient is the norm's: for p = 2, dL/dx1_i = sum_j dL/dout_ij *
(x1_i - x2_j) / out_ij, and 0 for a pair at distance 0 (the norm's choice, and
PyTorch's), so cdist(x, x) has no NaN gradient on its diagonal.

The differences take P * R * M numbers of memory, where PyTorch's p = 2 path for many
rows uses ||a||^2 + ||b||^2 - 2 a.b (three matrix products, less memory, and rounding
error where two rows are close); the values agree to rounding.
"""

from minigrad.creation import as_tensor
from minigrad.ops.broadcast import check_broadcast

COMPUTE_MODES = (
    "use_mm_for_euclid_dist_if_necessary",
    "use_mm_for_euclid_dist",
    "donot_use_mm_for_euclid_dist",
)


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """The p-norm distance between each row of x1 (B.., P, M) and each row of x2 (B.., R, M):
    a (B.., P, R) tensor (batch dims broadcast). p >= 0: 2 (Euclidean), 1, inf (the largest
    coordinate difference), 0 (how many coordinates differ), or any other. `compute_mode`
    is accepted and changes nothing (see the module docstring)."""
    x1, x2 = as_tensor(x1), as_tensor(x2)
    for name, x in (("X1", x1), ("X2", x2)):
        if x.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {x.ndim}D")
        if x.dtype.kind != "f":
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: {x.dtype}")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(
            f"cdist: X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: "
            f"{x2.shape[-1]}"
        )
    if x1.dtype != x2.dtype:
        raise RuntimeError(
            f"cdist: expected both inputs to have the same dtype, got {x1.dtype} and {x2.dtype}"
        )
    if p < 0:
        raise RuntimeError(f"cdist only supports non-negative p values, got p={p}")
    if compute_mode not in COMPUTE_MODES:
        raise ValueError(
            f"cdist: {compute_mode} is not a valid value for compute_mode (one of {COMPUTE_MODES})"
        )
    check_broadcast("cdist", x1.shape[:-2], x2.shape[:-2], names=("x1", "x2"))
    differences = x1.unsqueeze(-2) - x2.unsqueeze(-3)  # (.., P, 1, M) - (.., 1, R, M)
    return differences.norm(p, dim=-1)
