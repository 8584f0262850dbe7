"""Tensor's reductions: sums, means, extremes and norms along dims, running sums and
extremes, sorting and order statistics, NaN-skipping forms, statistics and counting.

`Tensor` inherits them (tensor.py); the math and the gradients are in `minigrad/ops/`.
"""

import numpy as np

from minigrad._args import normalize_dim, normalize_dims

# Bound by tensor.py once they exist: the Tensor class, and the autograd and ops packages
# that import it (the one break in the import circle is at the bottom of tensor.py).
Tensor = ops = None


class ReductionMethods:
    """The mixin Tensor inherits these methods from (see the module docstring)."""

    __slots__ = ()

    # ---- reductions ---------------------------------------------------------------------
    def sum(self, dim=None, keepdim=False, dtype=None):
        """Sum over `dim` (an int, a tuple, or None for all), keeping reduced dims as size 1 if
        `keepdim`. dL/dx = dL/dy broadcast back over the summed dims. Integer sums are int64.
        """
        x = self if dtype is None else self.to(dtype)
        if x.dtype.kind in "biu" and x.dtype != np.int64:
            x = x.to(np.int64)  # integer sums do not overflow their input type, as PyTorch
        return ops.reduce.Sum.apply(x, dim=normalize_dims(dim, x.ndim, "sum"), keepdim=keepdim)

    def mean(self, dim=None, keepdim=False):
        """Mean over `dim` (an int, a tuple, or None for all); floating point only.
        dL/dx = dL/dy / N broadcast back, N the number of elements averaged.
        """
        if self.dtype.kind != "f":
            raise RuntimeError(f"mean: input dtype must be floating point, got {self.dtype}")
        axes = normalize_dims(dim, self.ndim, "mean")
        count = ops.reduce.reduced_count(self.shape, axes)
        total = ops.reduce.Sum.apply(self, dim=axes, keepdim=keepdim)
        # the mean of no elements is 0 / 0 = nan, as torch; a product, so NumPy does not
        # warn of a division by zero (the loss of an empty batch, reduction='mean')
        return total / count if count else total * float("nan")

    def var(self, dim=None, correction=1, keepdim=False, unbiased=None):
        """Variance sum((x - mean)^2) / (N - correction); correction=1 is Bessel's."""
        if unbiased is not None:
            correction = int(unbiased)
        x = ops.promotion.floating(self)
        axes = normalize_dims(dim, x.ndim, "var")
        count = ops.reduce.reduced_count(x.shape, axes)
        centred = x - x.mean(dim=axes, keepdim=True)
        return (centred * centred).sum(dim=axes, keepdim=keepdim) / max(count - correction, 0)

    def std(self, dim=None, correction=1, keepdim=False, unbiased=None):
        """Standard deviation sqrt(var) over `dim`, with `correction=1` (Bessel's) by default:
        dL/dx = dL/dy * (x - mean) / ((N - correction) * std).
        """
        dim = normalize_dims(dim, self.ndim, "std")  # here, so that errors name std, not var
        return ops.reduce.Std.apply(
            self.var(dim=dim, correction=correction, keepdim=keepdim, unbiased=unbiased)
        )

    def max(self, dim=None, keepdim=False):
        """Without dim: the largest element. With dim: a (values, indices) pair."""
        if isinstance(dim, Tensor):
            return ops.elementwise.maximum(self, dim)
        return ops.reduce.max_or_min(self, dim, keepdim, largest=True)

    def min(self, dim=None, keepdim=False):
        """Without dim: the smallest element. With dim: a (values, indices) pair. The gradient goes
        to the element(s) chosen (with dim, to the index returned).
        """
        if isinstance(dim, Tensor):
            return ops.elementwise.minimum(self, dim)
        return ops.reduce.max_or_min(self, dim, keepdim, largest=False)

    def amax(self, dim=None, keepdim=False):
        """The largest value over `dim` (an int or tuple; all by default), without indices; the
        gradient is shared evenly between tied maxima.
        """
        return ops.reduce.Amax.apply(
            self, dim=normalize_dims(dim, self.ndim, "amax"), keepdim=keepdim, largest=True
        )

    def amin(self, dim=None, keepdim=False):
        """The smallest value over `dim` (an int or tuple; all by default), without indices; the
        gradient is shared evenly between tied minima.
        """
        return ops.reduce.Amax.apply(
            self, dim=normalize_dims(dim, self.ndim, "amin"), keepdim=keepdim, largest=False
        )

    def argmax(self, dim=None, keepdim=False):
        """The index of the largest element (of the flattened tensor, or along `dim`); int64, no
        gradient."""
        return ops.reduce.arg_extreme(self, dim, keepdim, np.argmax, "argmax")

    def argmin(self, dim=None, keepdim=False):
        """The index of the smallest element (of the flattened tensor, or along `dim`); int64, no
        gradient."""
        return ops.reduce.arg_extreme(self, dim, keepdim, np.argmin, "argmin")

    def prod(self, dim=None, keepdim=False):
        """The product over `dim` (or all elements); dL/dx_i = dL/dy times the product of the
        other elements (zeros handled).
        """
        if dim is not None and not isinstance(dim, int):
            raise TypeError(f"prod: dim must be an int or None, got {dim!r}")
        return ops.reduce.Prod.apply(
            self,
            dim=None if dim is None else normalize_dim(dim, self.ndim, "prod"),
            keepdim=keepdim,
        )

    def logsumexp(self, dim, keepdim=False):
        """log(sum(exp(x))) over `dim`, computed stably as m + log(sum(exp(x - m))) with m the max;
        dL/dx = dL/dy * softmax(x).
        """
        return ops.reduce.LogSumExp.apply(
            ops.promotion.floating(self),
            dim=normalize_dims(dim, self.ndim, "logsumexp"),
            keepdim=keepdim,
        )

    def norm(self, p="fro", dim=None, keepdim=False, dtype=None):
        """The p-norm over `dim` (the Frobenius / 2-norm by default): (sum |x|^p)^(1/p); for p = 2,
        dL/dx = dL/dy * x / norm.
        """
        return ops.reduce.norm_function(self, p, dim, keepdim, dtype=dtype)

    def cumsum(self, dim, *, dtype=None):
        """Running sums along `dim`: y_i = x_0 + ... + x_i; dL/dx is the reversed running sum of
        dL/dy."""
        return ops.reduce.cumsum(self, dim, dtype=dtype)

    def cumprod(self, dim, *, dtype=None):
        """Running products along `dim`: y_i = x_0 * ... * x_i."""
        return ops.reduce.cumprod(self, dim, dtype=dtype)

    # ---- sorting and order ---------------------------------------------------------------
    def sort(self, dim=-1, descending=False, *, stable=False):
        """(values, indices) sorted along `dim` (ascending unless `descending`); the gradient goes
        back to the positions the values came from.
        """
        return ops.sort.sort(self, dim, descending, stable=stable)

    def argsort(self, dim=-1, descending=False, *, stable=False):
        """The indices that sort the tensor along `dim` (int64, no gradient)."""
        return ops.sort.argsort(self, dim, descending, stable=stable)

    def msort(self):
        """Sorted along the first dim: `sort(dim=0)`'s values."""
        return ops.sort.msort(self)

    def topk(self, k, dim=None, largest=True, sorted=True):
        """(values, indices) of the k largest (or smallest, `largest=False`) along `dim` (the last
        by default).
        """
        return ops.sort.topk(self, k, dim, largest, sorted)

    def unique(self, sorted=True, return_inverse=False, return_counts=False, dim=None):
        """The distinct values (sorted), with the inverse indices and counts if asked; no
        gradient."""
        return ops.sort.unique(self, sorted, return_inverse, return_counts, dim)

    # ---- reductions: order statistics, running extremes, NaN-skipping sums, statistics -------
    def cummax(self, dim):
        """(values, indices): the running maximum along `dim` and where it is; see `mg.cummax`."""
        return ops.cumulative.cummax(self, dim)

    def cummin(self, dim):
        """(values, indices): the running minimum along `dim` and where it is; see `mg.cummin`."""
        return ops.cumulative.cummin(self, dim)

    def logcumsumexp(self, dim):
        """Running log(sum(exp(x))) along `dim`, computed stably; see `mg.logcumsumexp`."""
        return ops.cumulative.logcumsumexp(self, dim)

    def kthvalue(self, k, dim=-1, keepdim=False):
        """(values, indices) of the k-th smallest element along `dim`; see `mg.kthvalue`."""
        return ops.order_stats.kthvalue(self, k, dim, keepdim)

    def median(self, dim=None, keepdim=False):
        """The lower median (of all elements, or (values, indices) along `dim`); see `mg.median`."""
        return ops.order_stats.median(self, dim, keepdim)

    def nanmedian(self, dim=None, keepdim=False):
        """`median` of the non-NaN elements; see `mg.nanmedian`."""
        return ops.order_stats.nanmedian(self, dim, keepdim)

    def mode(self, dim=-1, keepdim=False):
        """(values, indices) of the most frequent value along `dim`; see `mg.mode`."""
        return ops.order_stats.mode(self, dim, keepdim)

    def quantile(self, q, dim=None, keepdim=False, *, interpolation="linear"):
        """The q-th quantiles along `dim`; see `mg.quantile`."""
        return ops.order_stats.quantile(self, q, dim, keepdim, interpolation=interpolation)

    def nanquantile(self, q, dim=None, keepdim=False, *, interpolation="linear"):
        """The q-th quantiles of the non-NaN elements along `dim`; see `mg.nanquantile`."""
        return ops.order_stats.nanquantile(self, q, dim, keepdim, interpolation=interpolation)

    def nansum(self, dim=None, keepdim=False, *, dtype=None):
        """The sum over `dim` of the elements that are not NaN; see `mg.nansum`."""
        return ops.statistics.nansum(self, dim, keepdim, dtype=dtype)

    def nanmean(self, dim=None, keepdim=False, *, dtype=None):
        """The mean over `dim` of the elements that are not NaN; see `mg.nanmean`."""
        return ops.statistics.nanmean(self, dim, keepdim, dtype=dtype)

    def aminmax(self, *, dim=None, keepdim=False):
        """(min, max) over `dim`; see `mg.aminmax`."""
        return ops.statistics.aminmax(self, dim=dim, keepdim=keepdim)

    def cov(self, *, correction=1, fweights=None, aweights=None):
        """The covariance matrix of the variables in the rows; see `mg.cov`."""
        return ops.statistics.cov(self, correction=correction, fweights=fweights, aweights=aweights)

    def corrcoef(self):
        """The correlation coefficients of the variables in the rows; see `mg.corrcoef`."""
        return ops.statistics.corrcoef(self)

    def diff(self, n=1, dim=-1, prepend=None, append=None):
        """The n-th forward difference along `dim`; see `mg.diff`."""
        return ops.calculus.diff(self, n, dim, prepend, append)

    def dist(self, other, p=2):
        """The p-norm of self - other; see `mg.dist`."""
        return ops.norms.dist(self, other, p)

    def renorm(self, p, dim, maxnorm):
        """The slices along `dim` scaled down to p-norm at most `maxnorm`; see `mg.renorm`."""
        return ops.norms.renorm(self, p, dim, maxnorm)

    # ---- counting --------------------------------------------------------------------------
    def bincount(self, weights=None, minlength=0):
        """How often each value 0, 1, ... occurs (or the sum of `weights` in each bin); see
        `mg.bincount`."""
        return ops.search.bincount(self, weights, minlength)

    def histc(self, bins=100, min=0, max=0):  # noqa: A002  (torch's argument names)
        """The histogram in `bins` equal bins between min and max; see `mg.histc`."""
        return ops.search.histc(self, bins, min, max)

    def histogram(self, bins=100, *, range=None, weight=None, density=False):  # noqa: A002
        """(hist, bin_edges); see `mg.histogram`."""
        return ops.search.histogram(self, bins, range=range, weight=weight, density=density)

    def count_nonzero(self, dim=None):
        """The number of non-zero elements over `dim`; see `mg.count_nonzero`."""
        return ops.search.count_nonzero(self, dim)

    def unique_consecutive(self, return_inverse=False, return_counts=False, dim=None):
        """Each run of equal consecutive elements squeezed to one; see `mg.unique_consecutive`."""
        return ops.sort.unique_consecutive(self, return_inverse, return_counts, dim)
