"""Reductions, scans, sorting and searching on CUDA tensors (the simulated GPU): forward
and backward equal the CPU's, results stay on the device, and nothing is copied to the
host inside the op (except where the result's size is read from the data, as torch must
too: `host_value=True`).

Families: reduce, cumulative, statistics, order_stats, sort, search, calculus. See
tests/device_compare.py for what each case checks.
"""

import numpy as np
import pytest

import minigrad as mg
from tests.device_compare import Case, check_case, rand

X = rand(3, 5)
POS = rand(3, 5, seed=3, low=0.5, high=2.0)
REPEATS = np.array(
    [[1.0, 2.0, 2.0, -1.0, 1.0], [0.5, 0.5, 3.0, 0.5, -2.0], [4.0, 4.0, 4.0, 1.0, 1.0]],
)
WITH_NAN = np.array([[1.0, np.nan, -3.0, 2.0], [np.nan, 0.5, 0.25, -1.0]])
SORTED = np.array([-0.5, -0.1, 0.2, 0.3, 0.8])
COUNTS = np.array([0, 3, 1, 3, 5, 0, 0])
SPACING = np.array([0.0, 0.5, 1.5, 2.0, 3.5])

CASES = [
    # reduce.py
    Case("sum", lambda a: (a.sum(), a.sum(dim=1), a.sum(dim=0, keepdim=True)), (X,)),
    Case("mean", lambda a: (a.mean(), a.mean(dim=(0, 1)), a.mean(dim=-1, keepdim=True)), (X,)),
    Case("var std", lambda a: (a.var(), a.std(dim=1), a.var(dim=0, correction=0)), (X,)),
    Case("prod", lambda a: (a.prod(), a.prod(dim=1)), (X,)),
    Case(
        "prod with zeros",
        lambda a: a.prod(dim=1),
        (np.array([[0.0, 2.0, 3.0], [0.0, 0.0, 1.5]]),),
    ),
    Case("logsumexp", lambda a: (mg.logsumexp(a, dim=1), mg.logsumexp(a, dim=(0, 1))), (X,)),
    Case("amax amin", lambda a: (mg.amax(a, dim=1), mg.amin(a)), (REPEATS,)),
    Case(
        "max min with dim",
        lambda a: (*mg.max(a, dim=1), *mg.min(a, dim=0, keepdim=True)),
        (REPEATS,),
    ),
    Case("max min", lambda a: (a.max(), a.min()), (REPEATS,)),
    Case("argmax argmin", lambda a: (a.argmax(), a.argmax(dim=1), mg.argmin(a, dim=0)), (REPEATS,)),
    Case("norm", lambda a: (mg.norm(a), mg.norm(a, p=1, dim=1), mg.norm(a, p=float("inf"))), (X,)),
    Case("norm 0 and p", lambda a: (mg.norm(a, p=0), mg.norm(a, p=3, dim=0)), (X,)),
    Case("cumsum", lambda a: (a.cumsum(1), mg.cumsum(a, 0)), (X,)),
    # cumprod's backward asks whether x holds a zero (one bool to the host), as torch's does
    Case("cumprod", lambda a: (a.cumprod(0), a.cumprod(1)), (X,), host_value=True),
    Case("sum of ints", lambda i: (i.sum(), i.sum(dim=0)), (COUNTS,)),
    # cumulative.py
    Case("cummax cummin", lambda a: (*mg.cummax(a, 1), *mg.cummin(a, 0)), (REPEATS,)),
    Case("logcumsumexp", lambda a: mg.logcumsumexp(a, 1), (X,)),
    # statistics.py
    Case("nansum nanmean", lambda a: (mg.nansum(a), mg.nanmean(a, dim=1)), (WITH_NAN,)),
    Case("var_mean std_mean", lambda a: (*mg.var_mean(a, dim=1), *mg.std_mean(a)), (X,)),
    Case("aminmax", lambda a: tuple(mg.aminmax(a, dim=1)), (REPEATS,)),
    Case("cov corrcoef", lambda a: (mg.cov(a), mg.corrcoef(a)), (X,)),
    Case(
        "cov weights",
        lambda a, w, f: mg.cov(a, fweights=f, aweights=w),
        (X, POS[0], COUNTS[:5] + 1),
        host_value=True,
    ),  # weights checked >= 0
    # order_stats.py
    Case("kthvalue", lambda a: tuple(mg.kthvalue(a, 2, dim=1)), (REPEATS,)),
    Case("median", lambda a: (a.median(), *mg.median(a, dim=1)), (X,)),
    Case("nanmedian", lambda a: (mg.nanmedian(a), *mg.nanmedian(a, dim=1)), (WITH_NAN,)),
    Case(
        "mode",
        lambda a: tuple(mg.mode(a, dim=1)),
        (REPEATS,),
        host_value=True,
    ),  # counted on the host
    Case("quantile", lambda a: (mg.quantile(a, 0.3), mg.quantile(a, 0.75, dim=1)), (X,)),
    Case(
        "quantile tensor q",
        lambda a, q: mg.quantile(a, q, dim=0, interpolation="midpoint"),
        (X, SORTED[2:] / 2),
        host_value=True,
    ),  # q checked
    Case(
        "nanquantile",
        lambda a: mg.nanquantile(a, 0.5, dim=1, interpolation="lower"),
        (WITH_NAN,),
    ),
    # sort.py
    Case(
        "sort",
        lambda a: (*mg.sort(a, dim=1), *mg.sort(a, dim=0, descending=True, stable=True)),
        (REPEATS,),
    ),
    Case("argsort msort", lambda a: (mg.argsort(a, dim=1, stable=True), mg.msort(a)), (REPEATS,)),
    Case("topk", lambda a: (*mg.topk(a, 2, dim=1), *mg.topk(a, 1, dim=0, largest=False)), (X,)),
    Case(
        "unique",
        lambda a: mg.unique(a, return_inverse=True, return_counts=True),
        (REPEATS,),
        sizes_from_data=True,
    ),
    Case(
        "unique dim",
        lambda i: mg.unique(i, dim=0, return_counts=True),
        (np.array([[1, 2], [0, 5], [1, 2]]),),
        sizes_from_data=True,
    ),
    Case(
        "unique_consecutive",
        lambda i: mg.unique_consecutive(i, return_counts=True),
        (COUNTS,),
        sizes_from_data=True,
    ),
    # search.py
    Case(
        "searchsorted",
        lambda s, a: (mg.searchsorted(s, a), mg.bucketize(a, s, right=True)),
        (SORTED, X),
    ),
    Case(
        "bincount",
        lambda i, w: (mg.bincount(i), mg.bincount(i, w)),
        (COUNTS, SORTED[:3].repeat(3)[:7]),
        host_value=True,
    ),
    Case("bincount minlength", lambda i: mg.bincount(i, minlength=9), (COUNTS,), host_value=True),
    Case("histc", lambda a: mg.histc(a, bins=4, min=-1, max=1), (X,)),
    Case("histogram", lambda a: tuple(mg.histogram(a, bins=3, range=(-1.0, 1.0))), (X,)),
    Case("histc data range", lambda a: mg.histc(a, bins=4), (X,), host_value=True),
    Case("count_nonzero", lambda i: (mg.count_nonzero(i), mg.count_nonzero(i, dim=0)), (COUNTS,)),
    # calculus.py
    Case("diff", lambda a, p: (mg.diff(a), mg.diff(a, n=2, dim=0, prepend=p)), (X, POS[:1])),
    Case("gradient", lambda a: mg.gradient(a, spacing=0.5, dim=1), (X,)),
    Case("gradient edge 2", lambda a: mg.gradient(a, edge_order=2), (X,)),
    Case(
        "trapezoid",
        lambda a, x: (mg.trapezoid(a, x), mg.trapezoid(a, dx=0.5, dim=0)),
        (X, SPACING),
    ),
    Case("cumulative_trapezoid", lambda a, x: mg.cumulative_trapezoid(a, x), (X, SPACING)),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("case", CASES, ids=repr)
def test_op_on_cuda_equals_cpu(case, dtype, simulated_gpu):
    check_case(case, dtype, simulated_gpu)
