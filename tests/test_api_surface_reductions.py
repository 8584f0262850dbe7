"""The API surface of reductions, searching, linear algebra and creation, table-driven
(issue #19): each row proves one torch name against torch, as tests/test_api_surface.py
explains (tests/surface.py is the machinery: values, dtypes, shapes, input gradients and
a float64 gradient check).

Where torch returns one of several valid answers (the index of a tied median or k-th
value), the inputs have no ties; where torch's rule is known (mode: the smallest of the
most frequent values, at its last position; cummax: the latest of equal maxima), rows
with ties check the rule. Results with NaN are compared without gradients (`.detach()`):
a finite-difference check cannot see through NaN.
"""

import array

import numpy as np
import pytest
import torch

import minigrad as mg

from .surface import bools, case, ids, ints, pos, run, unit  # noqa: F401  (row helpers)

TORCH_API = ["torch.gradient"]

NAN = float("nan")
DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]


def idx(lib, *values):
    return lib.tensor(list(values))


def dtype_table(lib, fn):
    """fn on every pair of dtypes, by name, as one list."""
    return [fn(getattr(lib, a), getattr(lib, b)) for a in DTYPES for b in DTYPES]


def result_types(lib):
    """torch.result_type over tensors with dims, 0-d tensors and Python numbers."""
    values = [True, 3, 2.5]
    tensors = [lib.ones(2, dtype=getattr(lib, name)) for name in DTYPES]
    scalars = [lib.ones((), dtype=getattr(lib, name)) for name in DTYPES]
    operands = values + tensors + scalars
    return [lib.result_type(a, b) for a in operands for b in operands]


def shared_buffer(lib):
    """frombuffer shares the buffer's memory: a write to the buffer shows in the tensor."""
    buffer = bytearray(4)
    t = lib.frombuffer(buffer, dtype=lib.uint8)
    buffer[1] = 7
    return t


def well_conditioned(x):
    """A random matrix plus a multiple of the identity: comfortably invertible."""
    return x + 3 * x.new_ones(x.shape[-1]).diag()


def lower_factor(x):
    """A lower-triangular Cholesky factor with a positive diagonal, from any square x."""
    return x.tril(-1) + (x.diagonal().abs() + 1).diag()


CASES = [
    # -- searching among sorted boundaries --
    case(
        "torch.searchsorted",
        lambda lib, v: lib.searchsorted(idx(lib, 1.0, 3.0, 5.0, 7.0), v),
        (2, 3),
    ),
    case(
        "torch.searchsorted",
        lambda lib: lib.searchsorted(
            idx(lib, 1.0, 3.0, 3.0, 7.0), idx(lib, 3.0, 0.0, 9.0), side="right"
        ),
    ),
    case(
        "torch.searchsorted",
        lambda lib: lib.searchsorted(
            idx(lib, 1.0, 3.0, 3.0, 7.0), idx(lib, 3.0), right=True, out_int32=True
        ),
    ),
    case(
        "torch.searchsorted",
        lambda lib: lib.searchsorted(
            idx(lib, [1.0, 3.0, 5.0], [2.0, 4.0, 6.0]), idx(lib, [3.0, 6.0], [1.0, 7.0])
        ),
    ),
    case(
        "torch.searchsorted",
        lambda lib: lib.searchsorted(
            idx(lib, 5.0, 1.0, 3.0), idx(lib, 3.0, 6.0), sorter=idx(lib, 1, 2, 0)
        ),
    ),
    case("torch.searchsorted", lambda lib: lib.searchsorted(idx(lib, 1, 3, 5), 4)),
    case(
        "torch.searchsorted",
        lambda lib: lib.searchsorted(idx(lib, 1.0, 3.0), idx(lib, 2.0), right=True, side="left"),
        raises=RuntimeError,
    ),  # fmt: skip
    case(
        "torch.searchsorted",
        lambda lib: lib.searchsorted(idx(lib, [1.0, 3.0], [2.0, 4.0]), idx(lib, [3.0])),
        raises=RuntimeError,
    ),  # fmt: skip
    case("torch.bucketize", lambda lib, v: lib.bucketize(v, idx(lib, -1.0, 0.0, 0.5)), (2, 3)),
    case(
        "torch.bucketize",
        lambda lib: lib.bucketize(idx(lib, [3, 6], [9, 1]), idx(lib, 1, 3, 5, 7), right=True),
    ),
    case(
        "torch.bucketize", lambda lib: lib.bucketize(3.0, idx(lib, 1.0, 3.0, 5.0), out_int32=True)
    ),
    # -- counting --
    case("torch.bincount", lambda lib, x: lib.bincount(x), ints(10, high=6)),
    case("torch.bincount", lambda lib, x: lib.bincount(x, minlength=9), ints(10, high=6)),
    case("torch.bincount", lambda lib, x, w: lib.bincount(x, w.detach()), ints(6, high=4), (6,)),
    # int weights: float64
    case("torch.bincount", lambda lib, x, w: lib.bincount(x, w), ints(5, high=4), ints(5)),
    case("torch.bincount", lambda lib: lib.bincount(lib.tensor([], dtype=lib.long))),
    case("torch.bincount", lambda lib: lib.bincount(idx(lib, 0, -1)), raises=RuntimeError),
    case("torch.bincount", lambda lib: lib.bincount(idx(lib, [0, 1])), raises=RuntimeError),
    case(
        "torch.bincount", lambda lib: lib.bincount(idx(lib, 1.0, 2.0)), raises=NotImplementedError
    ),
    case("torch.Tensor.bincount", lambda lib, x: x.bincount(minlength=2), ints(7, high=5)),
    case("torch.histc", lambda lib, x: lib.histc(x.detach(), bins=4, min=-1, max=1), (20,)),
    case("torch.histc", lambda lib, x: lib.histc(x.detach(), bins=5), (3, 7)),
    case("torch.histc", lambda lib: lib.histc(idx(lib, 1.0, 1.0), bins=4)),
    case("torch.histc", lambda lib: lib.histc(idx(lib, 1, 2), bins=4), raises=NotImplementedError),
    case("torch.Tensor.histc", lambda lib, x: x.detach().histc(3, 0, 2), pos(10)),
    case(
        "torch.histogram",
        lambda lib, x: lib.histogram(x.detach(), bins=4, range=(-2.0, 2.0)),
        (20,),
    ),
    case(
        "torch.histogram",
        lambda lib, x, w: lib.histogram(x.detach(), 3, weight=w.detach(), density=True),
        (12,),
        pos(12),
    ),
    case(
        "torch.histogram",
        lambda lib, x: lib.histogram(x.detach(), idx(lib, -1.0, 0.0, 0.5, 2.0).double()),
        (3, 4),
    ),
    case("torch.Tensor.histogram", lambda lib, x: x.detach().histogram(5), (9,)),
    case(
        "torch.histogramdd",
        lambda lib, x, w: lib.histogramdd(x.detach(), [3, 2], weight=w.detach()),
        (10, 2),
        pos(10),
    ),
    case(
        "torch.histogramdd",
        lambda lib, x: lib.histogramdd(x.detach(), 2, range=[-1.0, 1.0, 0.0, 2.0], density=True),
        (4, 5, 2),
    ),
    case(
        "torch.histogramdd",
        lambda lib, x: lib.histogramdd(
            x.detach(), [idx(lib, -2.0, 0.0, 2.0).double(), idx(lib, -1.0, 1.0).double()]
        ),
        (8, 2),
    ),
    case("torch.count_nonzero", lambda lib, x: lib.count_nonzero(x), ints(3, 4, high=3)),
    case(
        "torch.count_nonzero",
        lambda lib, x: lib.count_nonzero(x, dim=(0, -1)),
        ints(2, 3, 4, high=2),
    ),
    case("torch.Tensor.count_nonzero", lambda lib, x: x.count_nonzero(1), bools(3, 4)),
    case(
        "torch.unique_consecutive",
        lambda lib: lib.unique_consecutive(idx(lib, 1, 1, 2, 2, 3, 1, 1, 2)),
    ),
    case(
        "torch.unique_consecutive",
        lambda lib: lib.unique_consecutive(
            idx(lib, [1, 1], [1, 1], [2, 3]), return_inverse=True, return_counts=True
        ),
    ),
    case(
        "torch.unique_consecutive",
        lambda lib: lib.unique_consecutive(idx(lib, [1, 1], [1, 1], [2, 3]), dim=0),
    ),
    case(
        "torch.unique_consecutive",
        lambda lib: lib.unique_consecutive(
            idx(lib, [1, 1, 2], [1, 1, 3]), return_counts=True, return_inverse=True, dim=1
        ),
    ),
    case(
        "torch.Tensor.unique_consecutive",
        lambda lib, x: x.detach().round().unique_consecutive(),
        (12,),
    ),
    # -- running extremes and log-sum-exp --
    case("torch.cummax", lambda lib, x: lib.cummax(x, 1), (3, 5)),
    # ties: the latest
    case("torch.cummax", lambda lib: lib.cummax(idx(lib, [1, 3, 3, 2, 3, 5, 5]), 1)),
    # ties: see below
    case("torch.cummax", lambda lib, x: lib.cummax(x.detach(), 0), np.array([1.0, 3.0, 3.0, 2.0])),
    case(
        "torch.cummax",
        lambda lib, x: lib.cummax(x.detach(), 0),
        np.array([1.0, NAN, 2.0, NAN, 5.0]),
    ),
    case("torch.cummax", lambda lib, x: lib.cummax(x, 0), ()),
    case("torch.Tensor.cummax", lambda lib, x: x.cummax(-1), (2, 4)),
    case("torch.cummin", lambda lib, x: lib.cummin(x, 0), (4, 3)),
    case("torch.cummin", lambda lib: lib.cummin(idx(lib, 3.0, 1.0, 1.0, 2.0, 1.0), 0)),
    case("torch.Tensor.cummin", lambda lib, x: x.cummin(dim=-1), (2, 5)),
    case("torch.logcumsumexp", lambda lib, x: lib.logcumsumexp(x, 1), (3, 4)),
    case(
        "torch.logcumsumexp", lambda lib, x: lib.logcumsumexp(x * 300, 0), (5,)
    ),  # exp(300) overflows float64's sum? no: the stable form
    case("torch.logcumsumexp", lambda lib: lib.logcumsumexp(idx(lib, 1.0, 2.0, -float("inf")), 0)),
    case("torch.Tensor.logcumsumexp", lambda lib, x: x.logcumsumexp(-2), (4, 2)),
    # -- order statistics --
    case("torch.kthvalue", lambda lib, x: lib.kthvalue(x, 2), (3, 5)),
    case("torch.kthvalue", lambda lib, x: lib.kthvalue(x, 3, 0, keepdim=True), (4, 2)),
    case("torch.kthvalue", lambda lib, x: lib.kthvalue(x, 1), ()),
    case("torch.kthvalue", lambda lib, x: lib.kthvalue(x, 6), (5,), raises=RuntimeError),
    case("torch.Tensor.kthvalue", lambda lib, x: x.kthvalue(4, dim=-1), (2, 6)),
    # even count: the lower middle value
    case("torch.median", lambda lib, x: lib.median(x), (3, 4)),
    # ties: below
    case(
        "torch.median", lambda lib, x: lib.median(x.detach()), np.array([2.0, 1.0, 2.0, 3.0, 2.0])
    ),
    case("torch.median", lambda lib, x: lib.median(x, 1), (3, 5)),
    case("torch.median", lambda lib, x: lib.median(x, 0, keepdim=True), (4, 2)),
    case("torch.median", lambda lib, x: lib.median(x.detach(), 0), np.array([4.0, NAN, 2.0, 3.0])),
    case("torch.median", lambda lib, x: lib.median(x.detach()), np.array([4.0, NAN, 2.0])),
    case("torch.median", lambda lib, x: lib.median(x), ints(7, high=100)),
    case("torch.Tensor.median", lambda lib, x: x.median(-1), (2, 3)),
    case("torch.nanmedian", lambda lib, x: lib.nanmedian(x, 0), np.array([4.0, NAN, 2.0, 3.0])),
    case("torch.nanmedian", lambda lib, x: lib.nanmedian(x), np.array([NAN, 1.0, 5.0, NAN, 2.0])),
    case(
        "torch.nanmedian",
        lambda lib, x: lib.nanmedian(x.detach(), 1),
        np.array([[NAN, NAN], [1.0, NAN]]),
    ),
    case("torch.Tensor.nanmedian", lambda lib, x: x.nanmedian(1, keepdim=True), (2, 5)),
    # ties: smallest, last
    case("torch.mode", lambda lib: lib.mode(idx(lib, [2, 1, 2, 1, 3], [5, 5, 4, 4, 4]), 1)),
    case(
        "torch.mode",
        lambda lib, x: lib.mode(x.detach(), 0),
        np.array([[2.0, 1.0], [1.0, 1.0], [2.0, 3.0]]),
    ),
    case("torch.mode", lambda lib, x: lib.mode(x), (4,)),  # all distinct: the smallest
    case("torch.Tensor.mode", lambda lib, x: x.mode(keepdim=True), ints(3, 6, high=3)),
    *[
        case(
            "torch.quantile",
            lambda lib, x, how=how: lib.quantile(
                x, idx(lib, 0.0, 0.25, 0.4, 0.5, 1.0).double(), dim=1, interpolation=how
            ),
            (3, 5),
        )
        for how in ("linear", "lower", "higher", "midpoint", "nearest")
    ],
    case("torch.quantile", lambda lib, x: lib.quantile(x, 0.3), (3, 4)),
    case("torch.quantile", lambda lib, x: lib.quantile(x, 0.75, dim=0, keepdim=True), (4, 3)),
    case(
        "torch.quantile",
        lambda lib, x: lib.quantile(x, idx(lib, 0.5, 0.9).double(), keepdim=True),
        (2, 3),
    ),
    case(
        "torch.quantile",
        lambda lib, x: lib.quantile(x, 0.375, interpolation="nearest"),
        np.arange(5.0),
    ),  # half to even
    case(
        "torch.quantile",
        lambda lib, x: lib.quantile(x.detach(), 0.4, dim=1),
        np.array([[0.0, NAN, 2.0], [1.0, 2.0, 3.0]]),
    ),
    case("torch.quantile", lambda lib, x: lib.quantile(x, 1.5), (3,), raises=RuntimeError),
    case("torch.quantile", lambda lib, x: lib.quantile(x, 0.5), ints(3), raises=RuntimeError),
    case(
        "torch.quantile",
        lambda lib, x: lib.quantile(x, 0.5, interpolation="cubic"),
        (3,),
        raises=RuntimeError,
    ),
    case("torch.Tensor.quantile", lambda lib, x: x.quantile(0.6, -1), (2, 4)),
    case(
        "torch.nanquantile", lambda lib, x: lib.nanquantile(x, 0.4), np.array([0.0, NAN, 2.0, 3.0])
    ),
    case(
        "torch.nanquantile",
        lambda lib, x: lib.nanquantile(x.detach(), idx(lib, 0.2, 0.8).double(), dim=1),
        np.array([[0.0, NAN, 2.0], [NAN, NAN, NAN]]),
    ),
    case(
        "torch.Tensor.nanquantile",
        lambda lib, x: x.nanquantile(0.5, 0, interpolation="higher"),
        (5, 2),
    ),
    # -- sums and means that skip NaN, spread and centre, both extremes --
    case("torch.nansum", lambda lib, x: lib.nansum(x), np.array([[1.0, NAN], [2.0, 4.0]])),
    case(
        "torch.nansum",
        lambda lib, x: lib.nansum(x, 1, keepdim=True),
        np.array([[1.0, NAN], [NAN, 4.0]]),
    ),
    case("torch.nansum", lambda lib, x: lib.nansum(x), ints(3, 2)),
    case("torch.Tensor.nansum", lambda lib, x: x.nansum(dim=0), np.array([[1.0, NAN], [2.0, 4.0]])),
    case(
        "torch.nanmean",
        lambda lib, x: lib.nanmean(x, 1),
        np.array([[1.0, NAN, 3.0], [2.0, 4.0, NAN]]),
    ),
    case(
        "torch.nanmean",
        lambda lib, x: lib.nanmean(x.detach(), 0),
        np.array([[NAN, 1.0], [NAN, 2.0]]),
    ),
    case("torch.nanmean", lambda lib, x: lib.nanmean(x), ints(3), raises=RuntimeError),
    case("torch.Tensor.nanmean", lambda lib, x: x.nanmean(), (3, 4)),
    case("torch.std_mean", lambda lib, x: lib.std_mean(x), (3, 4)),
    case("torch.std_mean", lambda lib, x: lib.std_mean(x, 0, correction=0, keepdim=True), (3, 4)),
    case("torch.std_mean", lambda lib, x: lib.std_mean(x, (0, -1), unbiased=False), (2, 3, 4)),
    case("torch.var_mean", lambda lib, x: lib.var_mean(x, 1), (3, 4)),
    case("torch.var_mean", lambda lib, x: lib.var_mean(x, False), (3, 4)),
    case(
        "torch.var_mean", lambda lib, x: lib.var_mean(x, dim=-1, correction=2, keepdim=True), (2, 5)
    ),
    case("torch.aminmax", lambda lib, x: lib.aminmax(x), (3, 4)),
    case("torch.aminmax", lambda lib, x: lib.aminmax(x, dim=0, keepdim=True), (3, 4)),
    # ties share
    case("torch.aminmax", lambda lib, x: lib.aminmax(x), np.array([1.0, 1.0, 2.0, 2.0])),
    case("torch.aminmax", lambda lib, x: lib.aminmax(x, dim=1), ints(2, 5)),
    case("torch.Tensor.aminmax", lambda lib, x: x.aminmax(dim=-1), (2, 3)),
    # -- differences, derivatives, integrals --
    case("torch.diff", lambda lib, x: lib.diff(x), (3, 5)),
    case("torch.diff", lambda lib, x: lib.diff(x, n=2, dim=0), (4, 3)),
    case("torch.diff", lambda lib, x, a, b: lib.diff(x, prepend=a, append=b), (5,), (1,), (2,)),
    case("torch.diff", lambda lib, x: lib.diff(x, n=4), (3,)),
    case("torch.diff", lambda lib, x: lib.diff(x), bools(6)),
    case("torch.diff", lambda lib, x: lib.diff(x, prepend=idx(lib, 0.5)), ints(4)),
    case("torch.diff", lambda lib, x: lib.diff(x), (), raises=RuntimeError),
    case("torch.diff", lambda lib, x, a: lib.diff(x, prepend=a), (2, 3), (3,), raises=RuntimeError),
    case("torch.Tensor.diff", lambda lib, x: x.diff(dim=0), (3, 2)),
    case("torch.trapezoid", lambda lib, y: lib.trapezoid(y), (3, 5)),
    case("torch.trapezoid", lambda lib, y: lib.trapezoid(y, dx=0.5, dim=0), (4, 2)),
    case("torch.trapezoid", lambda lib, y, x: lib.trapezoid(y, x), (2, 5), (5,)),
    case("torch.trapezoid", lambda lib, y, x: lib.trapezoid(y, x), (2, 5), (1, 5)),
    case("torch.trapezoid", lambda lib, y: lib.trapezoid(y), ints(4)),
    case(
        "torch.trapezoid", lambda lib, y, x: lib.trapezoid(y, x), (2, 2), (3,), raises=RuntimeError
    ),
    case("torch.trapz", lambda lib, y, x: lib.trapz(y, x), (3, 4), (4,)),
    case("torch.trapz", lambda lib, y: lib.trapz(y, dx=2.0, dim=0), (3, 4)),
    case("torch.cumulative_trapezoid", lambda lib, y: lib.cumulative_trapezoid(y), (2, 5)),
    case(
        "torch.cumulative_trapezoid",
        lambda lib, y, x: lib.cumulative_trapezoid(y, x, dim=0),
        (4, 2),
        (4,),
    ),
    case(
        "torch.cumulative_trapezoid",
        lambda lib, y: lib.cumulative_trapezoid(y, dx=2, dim=0),
        (1, 3),
    ),
    # -- norms of differences and of slices --
    case("torch.dist", lambda lib, a, b: lib.dist(a, b), (2, 3), (3,)),
    case("torch.dist", lambda lib, a, b: lib.dist(a, b, 3), (3,), (2, 1)),
    case("torch.dist", lambda lib, a, b: lib.dist(a, b, float("inf")), (4,), (4,)),
    case("torch.Tensor.dist", lambda lib, a, b: a.dist(b, p=1), (2, 3), (2, 3)),
    case("torch.renorm", lambda lib, x: lib.renorm(x, 2, 0, 1.5), (3, 4)),
    case("torch.renorm", lambda lib, x: lib.renorm(x, 1, -1, 2.0), (2, 3, 4)),
    case("torch.renorm", lambda lib, x: lib.renorm(x, 2, 0, 1.0), ints(2, 2), raises=RuntimeError),
    case("torch.Tensor.renorm", lambda lib, x: x.renorm(3, 1, 0.8), (4, 3)),
    case("torch.Tensor.renorm_", lambda lib, x: (x * 1).renorm_(2, 1, 1.0), (3, 4)),
    # -- covariance and correlation --
    case("torch.cov", lambda lib, x: lib.cov(x), (3, 6)),
    case("torch.cov", lambda lib, x: lib.cov(x, correction=0), (5,)),
    case(
        "torch.cov",
        lambda lib, x, w: lib.cov(x, fweights=idx(lib, 1, 2, 1, 3), aweights=w),
        (2, 4),
        pos(4),
    ),
    case("torch.cov", lambda lib, x: lib.cov(x), ints(2, 5)),
    case("torch.cov", lambda lib, x: lib.cov(x), (2, 2, 2), raises=RuntimeError),
    case("torch.Tensor.cov", lambda lib, x, w: x.cov(aweights=w), (3, 5), pos(5)),
    case("torch.corrcoef", lambda lib, x: lib.corrcoef(x), (3, 6)),
    case("torch.corrcoef", lambda lib, x: lib.corrcoef(x), (4,)),
    case("torch.Tensor.corrcoef", lambda lib, x: x.corrcoef(), (2, 5)),
    # -- products --
    case("torch.mv", lambda lib, a, v: lib.mv(a, v), (2, 3), (3,)),
    case("torch.mv", lambda lib, a, v: lib.mv(a, v), (2, 3), (2,), raises=RuntimeError),
    case("torch.mv", lambda lib, a, v: lib.mv(a, v.float()), (2, 3), (3,), raises=RuntimeError),
    case("torch.Tensor.mv", lambda lib, a, v: a.mv(v), (4, 2), (2,)),
    case(
        "torch.addmv",
        lambda lib, c, a, v: lib.addmv(c, a, v, beta=0.5, alpha=2),
        (2,),
        (2, 3),
        (3,),
    ),
    case("torch.addmv", lambda lib, c, a, v: lib.addmv(c, a, v), (1,), (2, 3), (3,)),
    case("torch.Tensor.addmv", lambda lib, c, a, v: c.addmv(a, v, beta=0), (2,), (2, 3), (3,)),
    case(
        "torch.Tensor.addmv_",
        lambda lib, c, a, v: (c * 1).addmv_(a, v, alpha=-1),
        (2,),
        (2, 3),
        (3,),
    ),
    case("torch.addr", lambda lib, c, a, b: lib.addr(c, a, b, beta=2), (2, 3), (2,), (3,)),
    case("torch.addr", lambda lib, c, a, b: lib.addr(c, a, b), (3,), (2,), (3,)),
    case("torch.Tensor.addr", lambda lib, c, a, b: c.addr(a, b, alpha=0.5), (2, 3), (2,), (3,)),
    case("torch.Tensor.addr_", lambda lib, c, a, b: (c * 1).addr_(a, b), (2, 3), (2,), (3,)),
    case("torch.addbmm", lambda lib, c, a, b: lib.addbmm(c, a, b), (2, 4), (5, 2, 3), (5, 3, 4)),
    case(
        "torch.addbmm",
        lambda lib, c, a, b: lib.addbmm(c, a, b, beta=0.5, alpha=3),
        (4,),
        (2, 2, 3),
        (2, 3, 4),
    ),
    case("torch.Tensor.addbmm", lambda lib, c, a, b: c.addbmm(a, b), (2, 2), (3, 2, 1), (3, 1, 2)),
    case(
        "torch.Tensor.addbmm_",
        lambda lib, c, a, b: (c * 1).addbmm_(a, b, beta=2),
        (2, 2),
        (3, 2, 1),
        (3, 1, 2),
    ),
    case(
        "torch.Tensor.addmm_",
        lambda lib, c, a, b: (c * 1).addmm_(a, b, beta=0.5),
        (2, 4),
        (2, 3),
        (3, 4),
    ),
    case(
        "torch.Tensor.baddbmm_",
        lambda lib, c, a, b: (c * 1).baddbmm_(a, b, alpha=2),
        (2, 2, 4),
        (2, 2, 3),
        (2, 3, 4),
    ),
    case("torch.kron", lambda lib, a, b: lib.kron(a, b), (2, 3), (2, 2)),
    case("torch.kron", lambda lib, a, b: lib.kron(a, b), (2,), (3, 2, 2)),
    case("torch.kron", lambda lib, a, b: lib.kron(a, b), ints(2, 2), ints(3)),
    case("torch.Tensor.kron", lambda lib, a, b: a.kron(b), (3,), (2,)),
    case("torch.tensordot", lambda lib, a, b: lib.tensordot(a, b), (2, 3, 4), (3, 4, 5)),
    case(
        "torch.tensordot",
        lambda lib, a, b: lib.tensordot(a, b, dims=([1, 2], [1, 0])),
        (2, 3, 4),
        (4, 3, 5),
    ),
    case("torch.tensordot", lambda lib, a, b: lib.tensordot(a, b, dims=0), (2, 3), (2,)),
    case("torch.tensordot", lambda lib, a, b: lib.tensordot(a, b, dims=[[1], [0]]), (2, 3), (3, 5)),
    case(
        "torch.tensordot",
        lambda lib, a, b: lib.tensordot(a, b, dims=1),
        (2, 3),
        (4, 5),
        raises=RuntimeError,
    ),
    # (torch's gradient of vander fails: its cumprod_ overwrites a saved tensor; see the test below)
    case("torch.vander", lambda lib, x: lib.vander(x.detach()), (4,)),
    case(
        "torch.vander",
        lambda lib, x: lib.vander(x.detach(), N=3, increasing=True),
        np.array([0.0, 1.5, -2.0]),
    ),
    case("torch.vander", lambda lib, x: lib.vander(x, N=2), ints(3)),
    case("torch.vander", lambda lib, x: lib.vander(x, N=0), (3,)),
    case("torch.tril_indices", lambda lib: lib.tril_indices(3, 4, 1)),
    case("torch.tril_indices", lambda lib: lib.tril_indices(0, 3)),
    case("torch.triu_indices", lambda lib: lib.triu_indices(3, 3, -1)),
    case("torch.triu_indices", lambda lib: lib.triu_indices(4, 2, 1, dtype=lib.int32)),
    # -- inverses and determinants --
    case("torch.inverse", lambda lib, a: lib.inverse(well_conditioned(a)), (3, 3)),
    case("torch.inverse", lambda lib, a: lib.inverse(well_conditioned(a)), (2, 3, 3)),
    case(
        "torch.inverse",
        lambda lib: lib.inverse(idx(lib, [1.0, 2.0], [2.0, 4.0])),
        raises=RuntimeError,
    ),
    case("torch.inverse", lambda lib, a: lib.inverse(a), ints(2, 2), raises=RuntimeError),
    case("torch.inverse", lambda lib, a: lib.inverse(a), (2, 3), raises=RuntimeError),
    case("torch.Tensor.inverse", lambda lib, a: well_conditioned(a).inverse(), (4, 4)),
    case("torch.det", lambda lib, a: lib.det(a), (3, 3)),
    case("torch.det", lambda lib, a: lib.det(a), (2, 4, 4)),
    # singular: below
    case("torch.det", lambda lib, a: lib.det(a.detach()), np.array([[1.0, 2.0], [2.0, 4.0]])),
    case("torch.det", lambda lib, a: lib.det(a), (1, 1)),
    case("torch.det", lambda lib, a: lib.det(a), (2, 3), raises=RuntimeError),
    case("torch.Tensor.det", lambda lib, a: a.det(), (3, 3)),
    case("torch.logdet", lambda lib, a: lib.logdet(a @ a.mT + 0.1 * a.new_ones(3).diag()), (3, 3)),
    # det < 0: NaN
    case("torch.logdet", lambda lib, a: lib.logdet(a.detach()), np.array([[1.0, 2.0], [3.0, 4.0]])),
    case("torch.Tensor.logdet", lambda lib, a: well_conditioned(a).logdet(), (2, 2, 2)),
    case("torch.slogdet", lambda lib, a: lib.slogdet(a), (3, 3)),
    case("torch.slogdet", lambda lib, a: lib.slogdet(a), (2, 2, 2)),
    case("torch.Tensor.slogdet", lambda lib, a: a.slogdet(), (4, 4)),
    case("torch.pinverse", lambda lib, a: lib.pinverse(a), (3, 2)),
    case("torch.pinverse", lambda lib, a: lib.pinverse(a), (2, 2, 4)),
    case("torch.Tensor.pinverse", lambda lib, a: a.pinverse(), (3, 3)),
    case("torch.matrix_power", lambda lib, a: lib.matrix_power(a, 3), (3, 3)),
    case("torch.matrix_power", lambda lib, a: lib.matrix_power(a, 6), (2, 2, 2)),
    case("torch.matrix_power", lambda lib, a: lib.matrix_power(well_conditioned(a), -2), (2, 2)),
    case("torch.matrix_power", lambda lib, a: lib.matrix_power(a, 0), (2, 3, 3)),
    case("torch.matrix_power", lambda lib, a: lib.matrix_power(a, 2), ints(2, 2)),
    case("torch.matrix_power", lambda lib, a: lib.matrix_power(a, 2), (2, 3), raises=RuntimeError),
    case("torch.matrix_exp", lambda lib, a: lib.matrix_exp(a), (3, 3)),
    # large: scaled and squared
    case("torch.matrix_exp", lambda lib, a: lib.matrix_exp(a * 4), (2, 2, 2)),
    # skew-symmetric: a rotation
    case("torch.matrix_exp", lambda lib, a: lib.matrix_exp(a - a.mT), (3, 3)),
    case("torch.Tensor.matrix_exp", lambda lib, a: a.matrix_exp(), (1, 1)),
    case("torch.cholesky_inverse", lambda lib, a: lib.cholesky_inverse(lower_factor(a)), (3, 3)),
    case(
        "torch.cholesky_inverse",
        lambda lib, a: lib.cholesky_inverse(lower_factor(a).mT, upper=True),
        (3, 3),
    ),
    case(
        "torch.Tensor.cholesky_inverse", lambda lib, a: lower_factor(a).cholesky_inverse(), (2, 2)
    ),
    case(
        "torch.cholesky_solve",
        lambda lib, b, a: lib.cholesky_solve(b, lower_factor(a)),
        (3, 2),
        (3, 3),
    ),
    case(
        "torch.cholesky_solve",
        lambda lib, b, a: lib.cholesky_solve(b, lower_factor(a).mT, True),
        (3, 1),
        (3, 3),
    ),
    case(
        "torch.Tensor.cholesky_solve",
        lambda lib, b, a: b.cholesky_solve(lower_factor(a)),
        (2, 3),
        (2, 2),
    ),
    # torch.linalg, whose functions the torch-level ones alias
    case("torch.linalg.inv", lambda lib, a: lib.linalg.inv(well_conditioned(a)), (3, 3)),
    case("torch.linalg.det", lambda lib, a: lib.linalg.det(a), (2, 2)),
    case("torch.linalg.slogdet", lambda lib, a: lib.linalg.slogdet(a), (3, 3)),
    case(
        "torch.linalg.solve",
        lambda lib, a, b: lib.linalg.solve(well_conditioned(a), b),
        (3, 3),
        (3, 2),
    ),
    case(
        "torch.linalg.solve",
        lambda lib, a, b: lib.linalg.solve(well_conditioned(a), b),
        (2, 3, 3),
        (2, 3),
    ),
    case(
        "torch.linalg.solve",
        lambda lib, a, b: lib.linalg.solve(well_conditioned(a), b),
        (3, 3),
        (3,),
    ),
    case(
        "torch.linalg.solve",
        lambda lib, a, b: lib.linalg.solve(well_conditioned(a), b, left=False),
        (3, 3),
        (2, 3),
    ),
    case("torch.linalg.matrix_power", lambda lib, a: lib.linalg.matrix_power(a, 2), (3, 3)),
    case("torch.linalg.matrix_exp", lambda lib, a: lib.linalg.matrix_exp(a), (2, 2)),
    # -- creation --
    case("torch.logspace", lambda lib: lib.logspace(0, 2, 3)),
    case("torch.logspace", lambda lib: lib.logspace(-1, 2, 5, base=2, dtype=lib.float64)),
    case("torch.logspace", lambda lib: lib.logspace(0, 2, 3, dtype=lib.int64)),
    case("torch.scalar_tensor", lambda lib: lib.scalar_tensor(3)),
    case("torch.scalar_tensor", lambda lib: lib.scalar_tensor(True)),
    case("torch.scalar_tensor", lambda lib: lib.scalar_tensor(2.5, dtype=lib.float64)),
    case("torch.asarray", lambda lib: lib.asarray([1, 2])),
    case("torch.asarray", lambda lib: lib.asarray(3.5)),
    case("torch.asarray", lambda lib: lib.asarray(np.array([1.0, 2.0]))),
    case("torch.asarray", lambda lib, x: lib.asarray(x, requires_grad=None) is x, (2,)),
    case("torch.asarray", lambda lib, x: lib.asarray(x, copy=True), (2,)),  # a copy in the graph
    case("torch.asarray", lambda lib, x: lib.asarray(x, copy=True) is x, (2,)),
    case("torch.asarray", lambda lib, x: lib.asarray(x.detach(), dtype=lib.float32), (2,)),
    case("torch.asarray", lambda lib, x: lib.asarray(x * 2, dtype=lib.float64), ints(2)),
    case("torch.asarray", lambda lib: lib.asarray([1.0, 2.0], requires_grad=True).requires_grad),
    case("torch.asarray", lambda lib: lib.asarray([1, 2], requires_grad=True), raises=RuntimeError),
    case(
        "torch.frombuffer",
        lambda lib: lib.frombuffer(bytearray(b"\x01\x02\x03\x04"), dtype=lib.uint8),
    ),
    case(
        "torch.frombuffer",
        lambda lib: lib.frombuffer(
            array.array("f", [1, 2, 3]), dtype=lib.float32, offset=4, count=1
        ),
    ),
    case(
        "torch.frombuffer",
        lambda lib: lib.frombuffer(bytearray(3), dtype=lib.int16),
        raises=ValueError,
    ),
    case("torch.frombuffer", shared_buffer),
    case(
        "torch.empty_permuted", lambda lib: lib.empty_permuted((2, 3, 4), (0, 2, 1)), values=False
    ),
    case(
        "torch.empty_permuted",
        lambda lib: lib.empty_permuted((2, 3, 4), (2, 0, 1), dtype=lib.int64).stride(),
    ),
    case(
        "torch.empty_permuted", lambda lib: lib.empty_permuted((2, 3), (0, 0)), raises=RuntimeError
    ),
    case("torch.empty_strided", lambda lib: lib.empty_strided((2, 3), (1, 2)), values=False),
    case("torch.empty_strided", lambda lib: lib.empty_strided((2, 3), (1, 2)).stride()),
    case(
        "torch.empty_strided",
        lambda lib: lib.empty_strided((2, 0, 4), (4, 4, 1), dtype=lib.int64).stride(),
    ),
    # each window at an odd and an even length, periodic and symmetric, one point and none
    *[
        case(
            name,
            lambda lib, name=name, n=n, periodic=periodic: getattr(lib, name[6:])(
                n, periodic, dtype=lib.float64
            ),
        )
        for name in (
            "torch.hann_window",
            "torch.hamming_window",
            "torch.bartlett_window",
            "torch.blackman_window",
            "torch.kaiser_window",
        )
        for n, periodic in ((5, True), (6, False), (1, True), (0, False))
    ],
    case("torch.bartlett_window", lambda lib: lib.bartlett_window(4, dtype=lib.float64)),
    case("torch.blackman_window", lambda lib: lib.blackman_window(4, False, dtype=lib.float64)),
    case("torch.hann_window", lambda lib: lib.hann_window(7), atol=1e-6),  # float32
    case(
        "torch.hamming_window",
        lambda lib: lib.hamming_window(6, False, 0.5, 0.5, dtype=lib.float64),
    ),
    case("torch.kaiser_window", lambda lib: lib.kaiser_window(5, False, 5.0, dtype=lib.float64)),
    case("torch.hann_window", lambda lib: lib.hann_window(5, dtype=lib.int64), raises=RuntimeError),
    # -- dtypes: PyTorch's promotion tables --
    case("torch.promote_types", lambda lib: dtype_table(lib, lib.promote_types)),
    case("torch.can_cast", lambda lib: dtype_table(lib, lib.can_cast)),
    case("torch.result_type", result_types),
]


# torch's, of its new default
@pytest.mark.filterwarnings("ignore:torch.asarray. unspecified requires_grad")
@pytest.mark.parametrize("row", CASES, ids=list(ids(CASES)))
def test_behaves_as_torch(row):
    run(row)


# ---- what a row cannot say ---------------------------------------------------------------------
def test_gradient_matches_torch():
    """torch.gradient: one derivative per dim, with even and uneven spacing and both edge
    orders (a tuple of tensors, which gradcheck takes one at a time)."""
    data = np.random.default_rng(0).standard_normal((4, 5))
    coords = np.array([0.0, 1.0, 1.5, 3.5])
    calls = [
        lambda lib, x: lib.gradient(x),
        lambda lib, x: lib.gradient(x, spacing=2.0, dim=1),
        lambda lib, x: lib.gradient(x, spacing=[1.0, 0.5], edge_order=2),
        lambda lib, x: lib.gradient(x, spacing=(lib.tensor(coords),), dim=0),
        lambda lib, x: lib.gradient(x, spacing=(lib.tensor(coords),), dim=0, edge_order=2),
        lambda lib, x: lib.gradient(x[0]),
    ]
    for call in calls:
        mine, theirs = call(mg, mg.tensor(data)), call(torch, torch.tensor(data))
        assert len(mine) == len(theirs)
        for m, t in zip(mine, theirs):
            np.testing.assert_allclose(m.numpy(), t.numpy(), rtol=1e-12, atol=1e-12)
        x = mg.tensor(data, requires_grad=True)
        assert mg.autograd.gradcheck(lambda x, call=call: call(mg, x), (x,))
    with pytest.raises(RuntimeError, match="edge_order"):
        mg.gradient(mg.tensor([1.0, 2.0]), edge_order=2)
    with pytest.raises(RuntimeError):
        torch.gradient(torch.tensor([1.0, 2.0]), edge_order=2)
    ints_grad = mg.gradient(mg.tensor([1, 2, 4]))[0]
    assert (
        ints_grad.dtype == mg.float32
        and ints_grad.tolist() == torch.gradient(torch.tensor([1, 2, 4]))[0].tolist()
    )


def test_bincount_weights_have_a_gradient():
    """The sum of the weights in each bin is differentiable in the weights (torch's is
    not: it raises). dL/dweight_i is the gradient of weight i's bin."""
    x = mg.tensor([0, 2, 2, 1, 2])
    w = mg.randn(5, dtype=mg.float64, requires_grad=True)
    assert mg.autograd.gradcheck(lambda w: mg.bincount(x, w, minlength=4), (w,))
    mg.bincount(x, w, minlength=4).backward(mg.tensor([1.0, 10.0, 100.0, 1000.0], dtype=mg.float64))
    np.testing.assert_array_equal(w.grad.numpy(), [1.0, 100.0, 100.0, 10.0, 100.0])


def test_second_derivatives_of_the_matrix_functions():
    """The backward passes are written with Tensor ops, so they differentiate again."""
    rng = np.random.default_rng(1)
    a = mg.tensor(rng.standard_normal((3, 3)) + 3 * np.eye(3), requires_grad=True)
    for fn in (mg.inverse, mg.det, lambda m: mg.slogdet(m).logabsdet, mg.matrix_exp, mg.pinverse):
        assert mg.autograd.gradgradcheck(fn, (a,)), fn
    x = mg.tensor(rng.standard_normal(5), requires_grad=True)
    assert mg.autograd.gradgradcheck(lambda x: mg.logcumsumexp(x, 0), (x,))
    assert mg.autograd.gradgradcheck(lambda x: mg.quantile(x, 0.3), (x,))


def test_ties_share_or_pick_as_torch():
    """Where values tie, the gradient follows torch's rule: the median of all elements and
    aminmax share it among the tied elements; cummax and mode send it to the index they
    return. (Not a row: at a tie the function has no derivative, so finite differences
    cannot check these.)"""
    calls = [
        (lambda lib, x: lib.median(x), [2.0, 1.0, 2.0, 3.0, 2.0]),
        (lambda lib, x: lib.nanmedian(x), [2.0, NAN, 2.0, 3.0, 1.0]),
        (lambda lib, x: lib.cummax(x, 0).values.sum(), [1.0, 3.0, 3.0, 2.0, 3.0]),
        (lambda lib, x: lib.cummin(x, 0).values.sum(), [3.0, 1.0, 1.0, 2.0]),
        (lambda lib, x: lib.mode(x).values, [2.0, 1.0, 2.0, 1.0, 3.0]),
        (lambda lib, x: sum(lib.aminmax(x)), [1.0, 1.0, 2.0, 2.0]),
    ]
    for call, values in calls:
        grads = []
        for lib in (mg, torch):
            x = lib.tensor(values, dtype=lib.float64, requires_grad=True)
            call(lib, x).backward()
            grads.append(np.asarray(x.grad.tolist()))
        np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12, err_msg=str(values))


def test_gradients_where_torch_gets_them_wrong():
    """Two gradients that torch 2.13 gets wrong are checked against finite differences
    instead: det at a singular matrix (torch returns 0, which fails torch's own gradcheck;
    the true gradient is the cofactor matrix), and vander (torch's backward raises: its
    cumprod_ overwrites a tensor saved for the gradient)."""
    singular = mg.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=mg.float64, requires_grad=True)
    assert mg.autograd.gradcheck(mg.det, (singular,))
    mg.det(singular).backward()
    np.testing.assert_allclose(singular.grad.numpy(), [[4.0, -2.0], [-2.0, 1.0]])
    x = mg.tensor([0.0, 1.5, -2.0, 0.5], dtype=mg.float64, requires_grad=True)
    assert mg.autograd.gradcheck(lambda x: mg.vander(x), (x,))
    assert mg.autograd.gradcheck(lambda x: mg.vander(x, N=3, increasing=True), (x,))
