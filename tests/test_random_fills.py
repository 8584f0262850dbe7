"""The random fills and samplers whose values cannot equal torch's (the generators differ:
NumPy's PCG64 here, a Mersenne Twister there): the same shapes, dtypes, supports and
errors as torch's, moments within a few standard errors of the distribution's, and the
same values again from the same seed."""

import math

import numpy as np
import pytest
import torch

import minigrad as mg

# The torch names whose behaviour this file checks against torch (read by tools/api_coverage.py).
TORCH_API = [
    "torch.Tensor.cauchy_",
    "torch.Tensor.geometric_",
    "torch.Tensor.log_normal_",
    "torch.binomial",
    "torch.poisson",
]

N = 20000


def same_kind(mine, theirs):
    assert tuple(mine.shape) == tuple(theirs.shape)
    assert str(mine.dtype) == str(theirs.dtype).replace("torch.", "")


def within(sample, expected, sd, k=5.0):
    """The sample mean is within k standard errors of `expected`."""
    assert abs(sample.mean() - expected) < k * sd / math.sqrt(sample.size), (
        sample.mean(),
        expected,
    )


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_log_normal_moments_and_support(dtype):
    for lib in (mg, torch):
        lib.manual_seed(0)
    mine = mg.empty(N, dtype=getattr(mg, dtype)).log_normal_(0.5, 0.25)
    theirs = torch.empty(N, dtype=getattr(torch, dtype)).log_normal_(0.5, 0.25)
    same_kind(mine, theirs)
    x = mine.numpy()
    assert np.all(x > 0)
    mean, var = math.exp(0.5 + 0.25**2 / 2), (math.exp(0.25**2) - 1) * math.exp(1 + 0.25**2)
    within(x, mean, math.sqrt(var))
    within(theirs.numpy(), mean, math.sqrt(var))  # the same test holds for torch's draws


def test_geometric_counts_trials_and_keeps_the_dtype():
    for dtype in ("float32", "int64"):
        mine = mg.empty(N, dtype=getattr(mg, dtype)).geometric_(0.3)
        theirs = torch.empty(N, dtype=getattr(torch, dtype)).geometric_(0.3)
        same_kind(mine, theirs)
        x = mine.numpy()
        assert x.min() >= 1 and np.all(x == np.round(x))
        within(x.astype(float), 1 / 0.3, math.sqrt(0.7) / 0.3)
    for lib in (mg, torch):
        with pytest.raises(RuntimeError):
            lib.empty(3).geometric_(0.0)


def test_cauchy_median_and_quartiles():
    mine = mg.empty(N, dtype=mg.float64).cauchy_(2.0, 0.5)
    same_kind(mine, torch.empty(N, dtype=torch.float64).cauchy_(2.0, 0.5))
    q1, median, q3 = np.quantile(mine.numpy(), [0.25, 0.5, 0.75])  # quartiles: median -+ sigma
    assert abs(median - 2.0) < 0.05 and abs(q1 - 1.5) < 0.05 and abs(q3 - 2.5) < 0.05


def test_poisson_and_binomial_as_torch():
    rates = np.array([0.5, 3.0, 20.0])
    mine = mg.poisson(mg.tensor(np.repeat(rates[None], N // 4, 0)))
    theirs = torch.poisson(torch.tensor(np.repeat(rates[None], N // 4, 0)))
    same_kind(mine, theirs)
    for j, rate in enumerate(rates):
        within(mine.numpy()[:, j], rate, math.sqrt(rate))
    count, prob = np.array([5.0, 40.0]), np.array([0.5, 0.1])
    mine = mg.binomial(
        mg.tensor(np.tile(count, (N // 4, 1))), mg.tensor(np.tile(prob, (N // 4, 1)))
    )
    theirs = torch.binomial(
        torch.tensor(np.tile(count, (N // 4, 1))), torch.tensor(np.tile(prob, (N // 4, 1)))
    )
    same_kind(mine, theirs)
    for j in range(2):
        x = mine.numpy()[:, j]
        assert x.min() >= 0 and x.max() <= count[j]
        within(x, count[j] * prob[j], math.sqrt(count[j] * prob[j] * (1 - prob[j])))
    for lib in (mg, torch):
        with pytest.raises(RuntimeError):
            lib.poisson(lib.tensor([-1.0]))


def test_the_same_seed_gives_the_same_draws():
    def draws():
        g = mg.Generator().manual_seed(7)
        t = mg.empty(5)
        return (
            t.clone().cauchy_(generator=g).tolist(),
            t.clone().log_normal_(generator=g).tolist(),
            t.clone().geometric_(0.5, generator=g).tolist(),
            mg.poisson(mg.ones(5), generator=g).tolist(),
            mg.binomial(mg.full((5,), 10.0), mg.full((5,), 0.5), generator=g).tolist(),
        )

    assert draws() == draws()


def test_fills_on_a_tensor_in_the_graph_give_it_a_zero_gradient_as_torch():
    for lib in (mg, torch):
        x = lib.ones(3, requires_grad=True)
        h = x * 2.0
        h.log_normal_()
        (h * 3.0).sum().backward()
        assert x.grad.tolist() == [0.0, 0.0, 0.0]
