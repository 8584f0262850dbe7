"""Statistics of a tensor's elements, built from the reductions: sums and means that skip
NaN (`nansum`, `nanmean`), a spread and a centre at once (`std_mean`, `var_mean`), the
two extremes at once (`aminmax`), and the covariance and correlation of variables
(`cov`, `corrcoef`).

Each is a composition of differentiable Tensor ops, so each gradient is the chain rule's:
NaN places get none (they were replaced by 0 before summing), and a covariance's
gradient flows through its centring and its product.
"""

from collections import namedtuple

import numpy as np

from minigrad import dtypes
from minigrad._args import normalize_dims
from minigrad.array_module import array_module
from minigrad.creation import as_tensor, from_numpy
from minigrad.tensor import Tensor

aminmax_result = namedtuple("aminmax", ["min", "max"])
aminmax_result.__doc__ = "(min, max): what `aminmax` returns, as torch.return_types.aminmax."


def _without_nan(x):
    """x with its NaNs replaced by 0 (their gradient is then 0)."""
    if x.dtype.kind != "f":
        return x
    return x.masked_fill(from_numpy(np.isnan(x.array)), 0.0)


def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """The sum over `dim` (all elements by default) of the elements that are not NaN."""
    x = as_tensor(input)
    if dtype is not None:
        x = x.to(dtypes.to_dtype(dtype, "nansum"))
    return _without_nan(x).sum(dim, keepdim)


def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """The mean over `dim` of the elements that are not NaN (NaN where all are)."""
    x = as_tensor(input)
    if dtype is not None:
        x = x.to(dtypes.to_dtype(dtype, "nanmean"))
    if x.dtype.kind != "f":
        raise RuntimeError(
            f"nanmean(): expected input to have floating point dtype but got {x.dtype}"
        )
    axes = normalize_dims(dim, x.ndim, "nanmean")
    count = (~np.isnan(x.array)).sum(axis=axes, keepdims=keepdim)
    with np.errstate(invalid="ignore", divide="ignore"):
        count = from_numpy(array_module(x.array).asarray(count, dtype=x.dtype))
        return _without_nan(x).sum(axes, keepdim) / count


def _dim_and_correction(op, dim, correction, unbiased):
    """torch's overloads: std_mean(x, True) passes `unbiased` where dim is."""
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    if unbiased is not None:
        correction = int(unbiased)
    return dim, 1 if correction is None else correction


def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """(variance, mean) over `dim`, computed together: the variance divides by
    N - correction (1, Bessel's, by default)."""
    x = as_tensor(input)
    dim, correction = _dim_and_correction("var_mean", dim, correction, unbiased)
    return x.var(dim, correction=correction, keepdim=keepdim), x.mean(dim, keepdim)


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """(standard deviation, mean) over `dim`, computed together (see `var_mean`)."""
    x = as_tensor(input)
    dim, correction = _dim_and_correction("std_mean", dim, correction, unbiased)
    return x.std(dim, correction=correction, keepdim=keepdim), x.mean(dim, keepdim)


def aminmax(input, *, dim=None, keepdim=False):
    """(min, max): the smallest and the largest element over `dim` (all by default), each
    gradient shared by the elements that tie for it."""
    x = as_tensor(input)
    if x.numel() == 0:
        raise RuntimeError(
            "aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
            "identity"
        )
    return aminmax_result(x.amin(dim, keepdim), x.amax(dim, keepdim))


def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance matrix of the variables in the rows of `input` (observations in the
    columns; a 1-D input is one variable, giving a 0-d variance):
    cov = sum_k w_k (x_k - mean)(x_k - mean)^T / (sum_k w_k - correction * ...),
    with integer frequency weights `fweights` and real `aweights` per observation, the
    weighted mean and NumPy's (and torch's) normalisation."""
    x = as_tensor(input)
    if x.ndim > 2:
        raise RuntimeError(
            f"cov(): expected input to have two or fewer dimensions but got an input with {x.ndim}"
        )
    if x.dtype.kind != "f":
        x = x.to(dtypes.default_float)
    x = x.reshape(1, -1) if x.ndim < 2 else x
    observations = x.shape[1]
    weights = None
    for name, w in (("fweights", fweights), ("aweights", aweights)):
        if w is None:
            continue
        w = as_tensor(w)
        if w.ndim > 1 or w.numel() != observations:
            raise RuntimeError(
                f"cov(): expected {name} to be a 1-D tensor with {observations} elements, got "
                f"{w.shape}"
            )
        if name == "fweights" and w.dtype.kind not in "iu":
            raise RuntimeError(f"cov(): expected fweights to have integral dtype, got {w.dtype}")
        if (w.array < 0).any():  # one bool read on the host, on a GPU too (as torch reads it)
            raise RuntimeError(f"cov(): {name} cannot be negative")
        w = w.to(x.dtype)
        weights = w if weights is None else weights * w
    if weights is None:
        total = float(observations)
        mean = x.mean(1, keepdim=True)
        norm = total - correction
    else:
        total = weights.sum()
        mean = (x * weights).sum(1, keepdim=True) / total
        if aweights is None:
            norm = total - correction
        else:
            norm = total - correction * (weights * as_tensor(aweights).to(x.dtype)).sum() / total
    centred = x - mean
    weighted = centred if weights is None else centred * weights
    if isinstance(norm, Tensor):
        norm = norm.clamp(min=0)
    else:
        norm = max(norm, 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        c = (weighted @ centred.mT) / norm
    return c.reshape(()) if as_tensor(input).ndim < 2 else c


def corrcoef(input):
    """The Pearson correlation coefficients of the variables in the rows of `input`:
    cov_ij / sqrt(cov_ii cov_jj), clipped to [-1, 1] (rounding can step past them)."""
    c = cov(input)
    if c.ndim == 0:
        return c / c
    d = c.diagonal().sqrt()
    return (c / d.unsqueeze(1) / d.unsqueeze(0)).clamp(-1, 1)
