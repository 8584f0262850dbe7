"""Norms of differences and of slices: `dist`, the p-norm of a - b, and `renorm`, which
rescales the slices of a tensor whose p-norm exceeds a bound.

Both are the vector norm of reduce.py (`norm`) composed with elementwise ops, so their
gradients are the chain rule's. renorm's scale factor depends on the slice's own norm,
and its gradient goes through that norm too, as PyTorch's does.
"""

from minigrad._args import normalize_dim
from minigrad.creation import as_tensor
from minigrad.ops.reduce import norm


def dist(input, other, p=2):
    """The p-norm of input - other (broadcast together), over all elements: 2 (Euclidean)
    by default, any real p, inf (the largest difference) or 0 (how many differ)."""
    a, b = as_tensor(input), as_tensor(other)
    return norm(a - b, p)


def renorm(input, p, dim, maxnorm):
    """Each slice of `input` along `dim` (`input.select(dim, i)`) whose p-norm exceeds
    `maxnorm`, scaled down to norm `maxnorm` (the others unchanged):
    out_i = x_i * maxnorm / (||x_i||_p + 1e-7) where ||x_i||_p > maxnorm."""
    x = as_tensor(input)
    if x.dtype.kind != "f":
        raise RuntimeError(f"renorm: expected a floating point tensor as input, got {x.dtype}")
    if p <= 0:
        raise RuntimeError(f"renorm: non-positive-norm not supported, got p={p}")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    d = normalize_dim(dim, x.ndim, "renorm")
    others = tuple(k for k in range(x.ndim) if k != d)
    norms = norm(x, p, others, keepdim=True)
    factor = (maxnorm / (norms + 1e-7)).masked_fill(norms <= maxnorm, 1.0)
    return x * factor
