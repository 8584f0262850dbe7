"""Distances and similarities between vectors: F.pairwise_distance, F.cosine_similarity,
and F.pdist (every pair of rows of one matrix).

torch.nn.functional's "distance functions", composed of differentiable Tensor ops
(their gradients are those ops'). `mg.cdist`, every row against every row, is in
`minigrad/ops/distance.py`.
"""

from minigrad import dtypes
from minigrad.array_module import array_module
from minigrad.autograd import no_grad
from minigrad.creation import as_tensor
from minigrad.ops.broadcast import check_broadcast
from minigrad.ops.linalg import triangle
from minigrad.tensor import Tensor


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """||x1 - x2 + eps||_p over the last dim, row by row (x1 and x2 broadcast): (N, D) and
    (N, D) give (N,). `eps` keeps the norm away from 0, where its gradient is undefined,
    as PyTorch adds it."""
    x1, x2 = as_tensor(x1), as_tensor(x2)
    check_broadcast("pairwise_distance", x1.shape, x2.shape, names=("x1", "x2"))
    innermost = max(x1.ndim, x2.ndim) - 1  # -1 for two 0-d tensors, as PyTorch
    return (x1 - x2 + eps).norm(p, dim=innermost, keepdim=keepdim)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """The cosine of the angle between x1 and x2 along `dim` (the two broadcast):
    sum(x1 / ||x1|| * x2 / ||x2||), each norm at least `eps`.

    As PyTorch, each vector is divided by its own norm before the product (the result
    stays in [-1, 1]), and the norms are clamped to eps outside the graph: a norm below
    eps is replaced by eps, but the gradient flows as if it were not."""
    x1, x2 = as_tensor(x1), as_tensor(x2)
    dtype = dtypes.result_type(x1.dtype, x2.dtype)
    if dtype.kind != "f":
        raise RuntimeError(
            "cosine_similarity: expected common dtype to be floating point, yet common dtype is "
            f"{dtype}"
        )
    check_broadcast("cosine_similarity", x1.shape, x2.shape, names=("x1", "x2"))
    x1, x2 = x1.to(dtype), x2.to(dtype)
    shape = tuple(
        max(a, b)
        for a, b in zip(
            (1,) * (x2.ndim - x1.ndim) + x1.shape, (1,) * (x1.ndim - x2.ndim) + x2.shape
        )
    )
    x1, x2 = x1.expand(shape), x2.expand(shape)
    norm1 = x1.norm(2, dim=dim, keepdim=True).clone()
    norm2 = x2.norm(2, dim=dim, keepdim=True).clone()
    with no_grad():  # clamped where the graph does not see it, as PyTorch does
        norm1.clamp_min_(eps)
        norm2.clamp_min_(eps)
    return ((x1 / norm1) * (x2 / norm2)).sum(dim)


def pdist(input, p=2.0):
    """The p-norm distance between every pair of rows of input (N, M), i < j, in row-major
    order: a vector of N (N - 1) / 2 distances (the upper triangle of cdist(x, x),
    without its diagonal). Its gradient is the norm's, pair by pair."""
    if not isinstance(input, Tensor) or input.ndim != 2:
        shape = getattr(input, "shape", None)
        raise RuntimeError(
            f"pdist only supports 2D tensors, got: {len(shape) if shape is not None else 'no'}D"
        )
    if input.dtype.kind != "f":
        raise RuntimeError(f"pdist only supports floating-point dtypes, got {input.dtype}")
    if p < 0:
        raise RuntimeError(f"pdist only supports non-negative p values, got {p}")
    n = input.shape[0]
    i, j = triangle(array_module(input.array), n, n, 1, lower=False)  # made where input lives
    return (input[i] - input[j]).norm(p, dim=1)
