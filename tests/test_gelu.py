"""GELU (exact and tanh) in float32 and float64: values and gradients against PyTorch and
against the exact function (math.erf in double precision), the ordinary backward (one
multiply by the slope forward kept) against the recorded one (create_graph=True, through
GeluSlope), special values, non-contiguous, 0-d and empty inputs.

float32 tolerances: the fused loop evaluates erf's rational function and e^(-x^2/2) in
float32, so its errors scale with |x| (y = x Phi(x), and Phi(x) = (1 + erf) / 2 loses
digits to cancellation for x < 0, in PyTorch too). Measured on a dense grid: y within
1.8 eps |x| of the exact value and s = GELU'(x) within 1.4 eps max(1, |x|); PyTorch's
float32 GELU within 2.3 and 2.5. The tests allow 2 of each against the exact values and
4 against PyTorch (eps = 2^-23).
"""

import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import minigrad as mg
import minigrad.nn.functional as F
from tests.helpers import check_against_torch, check_grads, leaf, rand

# The torch names whose behaviour this file checks against torch (read by tools/api_coverage.py).
TORCH_API = [
    "torch.nn.functional.gelu",
]

EPS32 = float(np.finfo(np.float32).eps)


def grid32():
    """float32 points: a dense grid through the whole interesting range and random ones."""
    rng = np.random.default_rng(0)
    return np.concatenate([np.linspace(-15, 15, 30001), rng.standard_normal(20000) * 3]).astype(
        np.float32
    )


def exact(x):
    """y = x Phi(x) and s = Phi(x) + x phi(x) in double precision, math.erf per element."""
    x = np.asarray(x, dtype=np.float64)
    cdf = 0.5 * (
        1.0 + np.array([math.erf(v / math.sqrt(2.0)) for v in x.reshape(-1)]).reshape(x.shape)
    )
    return x * cdf, cdf + x * np.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)


def mine(x, approximate="none", grad=None):
    """minigrad's GELU and dL/dx (for dL/dy = 1 unless `grad`) as float64 arrays."""
    t = mg.tensor(x, requires_grad=True)
    y = F.gelu(t, approximate=approximate)
    y.backward(mg.ones_like(y) if grad is None else mg.tensor(grad))
    assert y.dtype == t.dtype and t.grad.dtype == t.dtype
    return y.detach().numpy().astype(np.float64), t.grad.numpy().astype(np.float64)


def theirs(x, approximate="none", grad=None):
    t = torch.tensor(x, requires_grad=True)
    y = TF.gelu(t, approximate=approximate)
    y.backward(torch.ones_like(y) if grad is None else torch.tensor(grad))
    return y.detach().numpy().astype(np.float64), t.grad.numpy().astype(np.float64)


def assert_within(got, want, x, k, floor):
    """|got - want| <= k eps32 max(|x|, floor), elementwise."""
    bound = k * EPS32 * np.maximum(np.abs(np.asarray(x, dtype=np.float64)), floor)
    err = np.abs(got - want)
    worst = int(np.argmax(err / bound))
    assert np.all(err <= bound), (
        f"x={x.reshape(-1)[worst]!r}: {got.reshape(-1)[worst]!r} vs {want.reshape(-1)[worst]!r}"
    )


def test_float32_is_within_2_eps_of_the_exact_gelu_and_slope():
    x = grid32()
    y, s = mine(x)
    y_exact, s_exact = exact(x)
    assert_within(y, y_exact, x, 2, 1e-30)
    assert_within(s, s_exact, x, 2, 1.0)


def test_float32_matches_pytorch_within_4_eps():
    x = grid32()
    y, s = mine(x)  # dL/dy = 1: the gradient is the slope
    y_t, s_t = theirs(x)
    assert_within(y, y_t, x, 4, 1e-30)
    assert_within(s, s_t, x, 4, 1.0)
    # any other dL/dy: the gradient is dL/dy * s, one float32 product
    g = np.random.default_rng(1).standard_normal(x.shape).astype(np.float32)
    _, dx = mine(x, grad=g)
    np.testing.assert_array_equal(dx, (g * s.astype(np.float32)).astype(np.float64))


def test_float32_tanh_approximation_matches_pytorch():
    x = (rand(4000, seed=2) * 4).astype(np.float32)
    y, s = mine(x, approximate="tanh")
    y_t, s_t = theirs(x, approximate="tanh")
    # 1 + tanh(u) cancels for x < 0, in both: errors of a few eps |x|
    assert_within(y, y_t, x, 8, 1.0)
    assert_within(s, s_t, x, 8, 1.0)


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_float64_matches_pytorch_to_double_precision(approximate):
    x = rand(500, seed=4) * 4
    # (1 + erf or tanh, for x < 0, cancels: absolute errors of a few eps64 |x|)
    check_against_torch(
        lambda t: F.gelu(t, approximate),
        lambda t: TF.gelu(t, approximate=approximate),
        x,
        rtol=1e-13,
        atol=1e-14,
    )


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_float64_gradcheck_and_gradgradcheck(approximate):
    x = rand(3, 4, seed=5) * 2
    check_grads(lambda t: F.gelu(t, approximate=approximate), x, second=True)


@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_second_derivative_through_create_graph_matches_pytorch(dtype, approximate):
    """create_graph=True takes the Tensor-op path (GeluSlope for the exact form); its first
    gradient must equal the ordinary backward's (grad * the slope forward kept) and its
    second PyTorch's."""
    x_np = (rand(64, seed=6) * 3).astype(dtype)
    x = mg.tensor(x_np, requires_grad=True)
    (dx,) = mg.autograd.grad(F.gelu(x, approximate=approximate).sum(), [x], create_graph=True)
    (d2x,) = mg.autograd.grad(dx.sum(), [x])
    _, dx_plain = mine(x_np, approximate=approximate)
    if approximate == "none":  # the very same slope array
        np.testing.assert_array_equal(dx.detach().numpy(), dx_plain.astype(dtype))
    else:  # the same formula, as Tensor ops or in the loop
        assert_within(dx.detach().numpy().astype(np.float64), dx_plain, x_np, 8, 1.0)
    t = torch.tensor(x_np, requires_grad=True)
    (dt,) = torch.autograd.grad(TF.gelu(t, approximate=approximate).sum(), [t], create_graph=True)
    (d2t,) = torch.autograd.grad(dt.sum(), [t])
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(d2x.numpy(), d2t.numpy(), rtol=tol, atol=tol)


SPECIAL = [-np.inf, -1e30, -20.0, -10.0, -5.0, -0.0, 0.0, 5.0, 10.0, 20.0, 1e30, np.inf, np.nan]


@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_special_values_give_what_pytorch_gives(dtype, approximate):
    x = np.array(SPECIAL, dtype=dtype)
    y, s = mine(x, approximate)
    y_t, s_t = theirs(x, approximate)
    if approximate == "none":
        # PyTorch's vectorised kernel gives gelu(+inf) = NaN on some CPUs (AVX-512), inf on
        # others; the value is inf = inf * Phi(inf), which minigrad gives on every CPU
        y_t = np.where(x == np.inf, np.inf, y_t)
    # NaN where PyTorch has NaN (gelu(-inf) = -inf * 0, the slope at +-inf, and in
    # float32 the tanh form's slope at +-1e30, whose x^3 overflows)
    assert np.array_equal(np.isnan(y), np.isnan(y_t)) and np.array_equal(np.isnan(s), np.isnan(s_t))
    # the same infinities, and elsewhere values within the tolerances of the tests above
    # (PyTorch's float32 slope at -10 is 0, the exact one -7.7e-22)
    assert np.array_equal(y[np.isinf(y_t)], y_t[np.isinf(y_t)])
    k = (4 if approximate == "none" else 8) * (
        1 if dtype == np.float32 else np.finfo(np.float64).eps / EPS32
    )
    fy, fs = np.isfinite(y_t), np.isfinite(s_t)
    assert_within(y[fy], y_t[fy], x[fy], k, 1e-30)
    assert_within(s[fs], s_t[fs], x[fs], k, 1.0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_non_contiguous_input(dtype):
    base = (rand(6, 10, seed=7) * 3).astype(dtype)
    x_np = base.T[::2]  # (5, 6), strided both ways
    assert not x_np.flags.c_contiguous and not x_np.flags.f_contiguous
    g = rand(5, 6, seed=8).astype(dtype)
    y, dx = mine(x_np, grad=g)
    y_t, dx_t = theirs(np.ascontiguousarray(x_np), grad=g)
    tol = 8 * EPS32 if dtype == np.float32 else 1e-13
    np.testing.assert_allclose(y, y_t, rtol=tol, atol=tol)
    np.testing.assert_allclose(dx, dx_t, rtol=tol, atol=tol)
    # and as a minigrad view of a larger tensor: the gradient lands in the right places
    b = mg.tensor(base, requires_grad=True)
    F.gelu(b.T[::2]).backward(mg.tensor(g))
    tb = torch.tensor(base, requires_grad=True)
    TF.gelu(tb.T[::2]).backward(torch.tensor(g))
    np.testing.assert_allclose(b.grad.numpy(), tb.grad.numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(), (0,), (3, 0, 2)], ids=str)
def test_zero_dim_and_empty(dtype, shape):
    x_np = np.full(shape, 0.75, dtype=dtype)
    y, s = mine(x_np)
    y_t, s_t = theirs(x_np)
    assert y.shape == shape and s.shape == shape
    np.testing.assert_allclose(y, y_t, rtol=4 * EPS32)
    np.testing.assert_allclose(s, s_t, rtol=4 * EPS32)


def test_float16_is_computed_in_float32_and_kept():
    x_np = np.linspace(-4, 4, 33).astype(np.float16)
    y, s = mine(x_np)
    y_exact, s_exact = exact(x_np)
    np.testing.assert_allclose(y, y_exact, atol=2e-3)
    np.testing.assert_allclose(s, s_exact, atol=2e-3)


def test_input_without_grad_needs_no_slope():
    x_np = (rand(10, seed=9) * 2).astype(np.float32)
    y = F.gelu(mg.tensor(x_np))
    assert not y.requires_grad
    assert_within(y.numpy().astype(np.float64), exact(x_np)[0], x_np, 2, 1e-30)
    with mg.no_grad():
        x = leaf(x_np)
        assert not F.gelu(x).requires_grad


def test_float32_tanh_form_is_within_2_eps_of_its_exact_value():
    """The tanh form in double precision, from the same formula with math-level exp."""
    x = grid32()
    y, s = mine(x, approximate="tanh")
    xd = x.astype(np.float64)
    k, c = math.sqrt(2.0 / math.pi), 0.044715
    u = k * (xd + c * xd**3)
    e = np.exp(-2.0 * np.abs(u))
    cdf = np.where(u >= 0, 1.0 / (1.0 + e), e / (1.0 + e))
    assert_within(y, xd * cdf, x, 2, 1e-30)
    assert_within(s, cdf + 2.0 * xd * e / (1.0 + e) ** 2 * k * (1.0 + 3.0 * c * xd * xd), x, 2, 1.0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_the_loop_cut_into_chunks_gives_the_one_pass_result_to_the_bit(
    monkeypatch, dtype, approximate
):
    """The loops' chunks shared out over the threads give what one pass over the whole
    array gives, bit for bit: an odd size over several chunks (made small to keep it
    quick), with NaN and infinities among the values."""
    from minigrad.kernels.cpu import gelu as cpu_gelu

    x = np.linspace(-12, 12, 5 * 256 + 77).astype(dtype)
    x[[3, 700, 1300]] = [np.nan, np.inf, -np.inf]
    # one task, on this thread: the loop over every element in one go
    monkeypatch.setattr(cpu_gelu, "CHUNK", 1 << 40)
    monkeypatch.setattr(cpu_gelu, "MIN_SPLIT", 1 << 40)
    whole = cpu_gelu.gelu_and_slope(x, approximate=approximate)
    # chunks of 256, cut over the threads
    tasks = []
    monkeypatch.setattr(cpu_gelu, "CHUNK", 256)
    monkeypatch.setattr(cpu_gelu, "MIN_SPLIT", 0)
    run = cpu_gelu.workers.run
    monkeypatch.setattr(
        cpu_gelu.workers, "run", lambda k, n, *a, **kw: tasks.append(n) or run(k, n, *a, **kw)
    )
    for slope in (True, False):
        cut = cpu_gelu.gelu_and_slope(x, slope=slope, approximate=approximate)
        np.testing.assert_array_equal(cut[0].view(np.uint8), whole[0].view(np.uint8))
        if slope:
            np.testing.assert_array_equal(cut[1].view(np.uint8), whole[1].view(np.uint8))
    assert tasks == [6, 6]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_backward_product_cut_over_the_threads_is_the_one_product(monkeypatch, dtype):
    """dL/dx = dL/dy * s on every core (gelu_backward) from MIN_SPLIT on: the same bits as
    one product, NaN and infinities included, in the input's shape and dtype; other
    inputs (below the size, non-contiguous, mixed dtypes) take the reference's product."""
    from minigrad.kernels.cpu import gelu as cpu_gelu
    from minigrad.kernels.reference import gelu as reference

    rng = np.random.default_rng(3)
    grad = rng.standard_normal((7, 301)).astype(dtype)
    slope = rng.standard_normal((7, 301)).astype(dtype)
    grad[0, :3], slope[1, :2] = [np.nan, np.inf, -np.inf], [np.inf, 0.0]
    jobs = []
    monkeypatch.setattr(cpu_gelu, "MIN_SPLIT", 0)
    monkeypatch.setattr(cpu_gelu.workers, "count", lambda: 3)
    run_jobs = cpu_gelu.workers.run_jobs
    monkeypatch.setattr(cpu_gelu.workers, "run_jobs", lambda j: jobs.append(len(j)) or run_jobs(j))
    with np.errstate(invalid="ignore"):  # inf * 0
        dx = cpu_gelu.gelu_backward(grad, slope)
        expected = grad * slope
        assert dx.shape == grad.shape and dx.dtype == dtype and jobs == [3]
        np.testing.assert_array_equal(dx.view(np.uint8), expected.view(np.uint8))
        for g, s in ((grad.T, slope.T), (grad, slope.astype(np.float16))):
            np.testing.assert_array_equal(
                cpu_gelu.gelu_backward(g, s), reference.gelu_backward(g, s)
            )
    assert jobs == [3]  # the other two went to the reference: no jobs


def test_gelu_backward_through_the_layer_uses_the_kernels_product(monkeypatch):
    """Gelu's ordinary backward is the kernel family's product (what runs on every core)."""
    from minigrad.kernels.cpu import gelu as cpu_gelu

    calls = []
    product = cpu_gelu.gelu_backward
    monkeypatch.setattr(cpu_gelu, "gelu_backward", lambda g, s: calls.append(1) or product(g, s))
    x = mg.tensor(rand(4, 5, seed=2, dtype=np.float32), requires_grad=True)
    F.gelu(x).sum().backward()
    assert calls == [1]
    assert x.grad.dtype == mg.float32


CACHE_SCRIPT = """
import numpy as np
from minigrad.kernels.cpu.gelu import gelu_and_slope
for approximate in ("none", "tanh"):
    for dtype in (np.float32, np.float64):
        for slope in (True, False):
            gelu_and_slope(np.ones(3, dtype), slope=slope, approximate=approximate)
"""


def test_the_loops_are_cached_a_second_process_compiles_nothing(tmp_path):
    """Numba cannot cache a loop that calls another compiled function made in the same
    closure (its cache key changes in every process): the loops are written to avoid
    that, and this would catch it coming back."""
    env = dict(
        os.environ,
        NUMBA_CACHE_DIR=str(tmp_path),
        PYTHONPATH=str(Path(__file__).resolve().parents[1]),
    )

    def compiles():
        run = subprocess.run(
            [sys.executable, "-c", CACHE_SCRIPT],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert run.returncode == 0, run.stderr
        return [
            line
            for line in run.stderr.splitlines()
            if line.startswith("minigrad: compiling the GELU")
        ]

    assert len(compiles()) == 1  # the first process compiles, and says so once
    assert compiles() == []
