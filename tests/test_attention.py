"""Scaled dot-product attention: F.scaled_dot_product_attention, its Function and kernels.

- values and query/key/value gradients against PyTorch (float64 and float32) on the
  NumPy reference and the Numba backend: masks (bool, float, broadcast, fully masked
  rows), is_causal with Tq != Tk, scale, leading batch dims and their broadcasting,
  grouped-query attention;
- the Numba kernels against the reference kernels on shapes drawn by hypothesis (size-1
  dims, primes, lengths across the block sizes, every mask layout), and the memory they
  use: O(T d), where the reference needs O(T^2);
- the reference against float64 finite differences, first and second derivatives;
- dropout (the global generator), a float mask that needs a gradient, argument checks;
- benchmarks/bench_attention.py runs.
The CUDA kernels are tested in tests/cuda/test_attention_cuda.py.
"""

import contextlib
import importlib.util
import tracemalloc
from pathlib import Path

import numba
import numpy as np
import pytest
import torch
import torch.nn.functional as TF
from hypothesis import given, settings
from hypothesis import strategies as st

import minigrad as mg
import minigrad.nn.functional as F
from minigrad.kernels.cpu import attention as cpu
from minigrad.kernels.cpu import attention_short as short
from minigrad.kernels.reference import attention as ref
from tests.helpers import assert_close, check_grads, rand

# The torch names whose behaviour this file checks against torch (read by tools/api_coverage.py).
TORCH_API = [
    "torch.nn.functional.scaled_dot_product_attention",
]

BACKENDS = ["numpy", "numba"]
TOLERANCE = {np.float64: dict(rtol=1e-9, atol=1e-11), np.float32: dict(rtol=2e-4, atol=2e-5)}


@pytest.fixture(scope="session", autouse=True)
def compiled_attention_kernels():
    """Compile (or load from Numba's cache) the CPU attention kernels for both float
    dtypes once, so that no test pays for it."""
    if mg.backends.current() != "numba":
        # a run on the reference kernels (an exercise copy, minigrad.exercises): nothing to compile
        return
    for dtype in (np.float32, np.float64):
        q = np.ones((1, 3, 2), dtype=dtype)
        out, lse = cpu.attention_forward(q, q, q, 1.0, True, None)
        cpu.attention_backward(out, q, q, q, out, lse, 1.0, True, None)


def _mask_tensors(mask, dtype):
    if mask is None:
        return None, None
    if mask.dtype == bool:
        return mg.tensor(mask), torch.tensor(mask)
    mask = mask.astype(dtype) if mask.dtype != np.float32 else mask
    return mg.tensor(mask), torch.tensor(mask)


def against_torch(shapes, backend, dtype, mask=None, seed=0, **kwargs):
    """F.scaled_dot_product_attention and PyTorch's on the same q, k, v (shapes) and mask:
    compare the outputs and the q, k, v gradients for a random output gradient."""
    arrays = [rand(*s, seed=seed + i, dtype=dtype) for i, s in enumerate(shapes)]
    mine = [mg.tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    mask_mg, mask_torch = _mask_tensors(mask, dtype)
    with mg.backends.use(backend):
        out = F.scaled_dot_product_attention(*mine, attn_mask=mask_mg, **kwargs)
        tout = TF.scaled_dot_product_attention(*theirs, attn_mask=mask_torch, **kwargs)
        assert out.dtype == dtype
        assert_close(out, tout, **TOLERANCE[dtype])
        g = rand(*tout.shape, seed=seed + 9, dtype=dtype)
        out.backward(mg.tensor(g))
        tout.backward(torch.tensor(g))
    for x, t in zip(mine, theirs):
        assert x.grad.dtype == dtype
        assert_close(x.grad, t.grad, **TOLERANCE[dtype])


def _bool_mask(shape, seed, masked_rows=()):
    """True = attend; about a third masked out; the listed rows (dim -2) fully masked."""
    mask = np.random.default_rng(seed).random(shape) > 0.35
    for row in masked_rows:
        mask[..., row, :] = False
    return mask


# ---- PyTorch as the oracle --------------------------------------------------------------------
CASES = [  # (query, key, value shapes), mask, keyword arguments
    (((2, 3, 5, 4), (2, 3, 5, 4), (2, 3, 5, 4)), None, {}),
    (((2, 3, 6, 4), (2, 3, 6, 4), (2, 3, 6, 3)), None, dict(is_causal=True)),
    (((1, 2, 3, 4), (1, 2, 7, 4), (1, 2, 7, 5)), None, dict(is_causal=True)),  # Tq < Tk
    (((1, 2, 7, 4), (1, 2, 3, 4), (1, 2, 3, 2)), None, dict(is_causal=True)),  # Tq > Tk
    (((5, 4), (6, 4), (6, 3)), None, {}),  # no batch dims
    (((3, 5, 4), (3, 6, 4), (3, 6, 2)), None, dict(scale=0.3)),
    # 3 batch dims
    (((2, 1, 2, 3, 4), (2, 1, 2, 5, 4), (2, 1, 2, 5, 3)), None, dict(is_causal=True)),
    # key and value broadcast over the batch
    (((2, 3, 4, 5), (1, 1, 6, 5), (1, 1, 6, 3)), None, {}),
    (((2, 4, 5), (6, 5), (6, 2)), None, {}),  # 2-D key and value
    (((1, 1, 1), (1, 1, 1), (1, 1, 1)), None, {}),
    (((2, 2, 5, 3), (2, 2, 7, 3), (2, 2, 7, 4)), _bool_mask((5, 7), 0, masked_rows=(1,)), {}),
    (((2, 2, 5, 3), (2, 2, 7, 3), (2, 2, 7, 4)), _bool_mask((2, 1, 1, 7), 1), {}),  # key padding
    (
        ((2, 2, 5, 3), (2, 2, 7, 3), (2, 2, 7, 4)),
        _bool_mask((2, 2, 5, 7), 2, masked_rows=(0, 4)),
        {},
    ),
    (((2, 2, 5, 3), (2, 2, 7, 3), (2, 2, 7, 4)), rand(2, 2, 5, 7, seed=3), {}),  # float mask
    (((2, 2, 5, 3), (2, 2, 7, 3), (2, 2, 7, 4)), rand(5, 1, seed=4), dict(scale=2.0)),  # per-query
    (((2, 2, 5, 3), (2, 2, 7, 3), (2, 2, 7, 4)), rand(1, 7, seed=5).astype(np.float32), {}),
    (((2, 4, 5, 8), (2, 2, 6, 8), (2, 1, 6, 3)), None, dict(enable_gqa=True)),
    (((2, 4, 5, 8), (2, 2, 6, 8), (2, 2, 6, 3)), None, dict(enable_gqa=True, is_causal=True)),
    # several blocks
    (((1, 2, 150, 16), (1, 2, 150, 16), (1, 2, 150, 9)), None, dict(is_causal=True)),
    (((2, 131, 7), (2, 67, 7), (2, 67, 5)), _bool_mask((2, 131, 67), 6, masked_rows=(3, 130)), {}),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shapes, mask, kwargs", CASES)
def test_matches_pytorch(shapes, mask, kwargs, dtype, backend):
    against_torch(shapes, backend, dtype, mask=mask, **kwargs)


@pytest.mark.parametrize("backend", BACKENDS)
def test_fully_masked_rows_give_zeros_as_pytorch(backend):
    q, k, v = (mg.tensor(rand(1, 3, 4, seed=i), requires_grad=True) for i in range(3))
    mask = np.ones((3, 3), dtype=bool)
    mask[1] = False
    with mg.backends.use(backend):
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=mg.tensor(mask))
        out.sum().backward()
    assert np.all(out.array[0, 1] == 0) and np.all(np.isfinite(out.array))
    assert np.all(q.grad.array[0, 1] == 0) and np.all(np.isfinite(k.grad.array))
    # a float mask of -inf is the same thing
    with mg.backends.use(backend):
        float_mask = mg.tensor(np.where(mask, 0.0, -np.inf))
        again = F.scaled_dot_product_attention(q, k, v, attn_mask=float_mask)
    np.testing.assert_array_equal(again.array, out.array)


def test_float16_runs_on_the_reference_kernels_on_every_backend():
    arrays = [rand(2, 4, 3, seed=i, dtype=np.float16) for i in range(3)]
    expected = TF.scaled_dot_product_attention(
        *(torch.tensor(a, dtype=torch.float32) for a in arrays), is_causal=True
    )
    for backend in BACKENDS:
        with mg.backends.use(backend):
            out = F.scaled_dot_product_attention(*(mg.tensor(a) for a in arrays), is_causal=True)
        assert out.dtype == np.float16
        assert_close(out.to(mg.float32), expected, rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("Tq, Tk, d", [(0, 3, 2), (3, 0, 2), (3, 4, 0)])
def test_empty_dims_as_pytorch(Tq, Tk, d):
    arrays = [rand(2, Tq, d, seed=0), rand(2, Tk, d, seed=1), rand(2, Tk, 3, seed=2)]
    out = F.scaled_dot_product_attention(*(mg.tensor(a) for a in arrays))
    assert_close(out, TF.scaled_dot_product_attention(*(torch.tensor(a) for a in arrays)))


def test_float_mask_that_requires_grad_gets_its_gradient():
    q, k, v, m = (
        rand(2, 4, 3, seed=0),
        rand(2, 5, 3, seed=1),
        rand(2, 5, 2, seed=2),
        rand(4, 5, seed=3),
    )
    mine = [mg.tensor(a, requires_grad=True) for a in (q, k, v, m)]
    theirs = [torch.tensor(a, requires_grad=True) for a in (q, k, v, m)]
    out = F.scaled_dot_product_attention(*mine[:3], attn_mask=mine[3])
    tout = TF.scaled_dot_product_attention(*theirs[:3], attn_mask=theirs[3])
    assert_close(out, tout)
    g = rand(2, 4, 2, seed=4)
    out.backward(mg.tensor(g))
    tout.backward(torch.tensor(g))
    for x, t in zip(mine, theirs):
        assert_close(x.grad, t.grad)


# ---- dropout ------------------------------------------------------------------------------------
def test_dropout_uses_the_global_generator():
    q, k, v = (mg.tensor(rand(2, 5, 4, seed=i)) for i in range(3))

    def run(seed):
        mg.manual_seed(seed)
        return F.scaled_dot_product_attention(q, k, v, dropout_p=0.4).numpy()

    assert np.array_equal(run(0), run(0))
    assert not np.allclose(run(0), run(1))
    # the same numbers by hand: softmax, then drop with a generator seeded the same way
    probs, _ = ref.attention_forward(
        q.array, k.array, np.eye(5)[None].repeat(2, 0), 0.5, False, None
    )
    keep = np.random.default_rng(0).random(probs.shape) >= 0.4
    np.testing.assert_allclose(run(0), (probs * keep / 0.6) @ v.array, rtol=1e-6)


def test_dropout_of_one_gives_zeros_and_gradients_flow():
    q, k, v = (mg.tensor(rand(2, 3, 4, seed=i), requires_grad=True) for i in range(3))
    assert np.all(F.scaled_dot_product_attention(q, k, v, dropout_p=1.0).array == 0)

    def attention_with_dropout(q, k, v):
        mg.manual_seed(3)  # the same dropout mask on every call of gradcheck
        return F.scaled_dot_product_attention(q, k, v, dropout_p=0.3, is_causal=True)

    check_grads(
        attention_with_dropout, rand(2, 3, 4, seed=0), rand(2, 3, 4, seed=1), rand(2, 3, 2, seed=2)
    )


# ---- finite differences -------------------------------------------------------------------------
GRAD_CASES = [
    ((2, 4, 3), (2, 5, 3), (2, 5, 2), None, {}),
    ((2, 4, 3), (2, 5, 3), (2, 5, 2), None, dict(is_causal=True, scale=0.7)),
    ((1, 2, 4, 3), (1, 2, 3, 3), (1, 2, 3, 2), _bool_mask((4, 3), 7, masked_rows=(2,)), {}),
    ((1, 4, 3, 2), (1, 2, 3, 2), (1, 2, 3, 2), None, dict(enable_gqa=True)),
    ((2, 3, 4), (4, 4), (4, 3), rand(3, 4, seed=8), {}),  # float mask, broadcast key/value
]


# the same cases on the reference kernel, with second derivatives, are the attention
# exercise's test (tests/test_exercise_attention.py)
@pytest.mark.parametrize("q_shape, k_shape, v_shape, mask, kwargs", GRAD_CASES)
def test_gradients_match_finite_differences(q_shape, k_shape, v_shape, mask, kwargs):
    attn_mask = None if mask is None else mg.tensor(mask)

    def attention(q, k, v):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask, **kwargs)

    arrays = rand(*q_shape, seed=0), rand(*k_shape, seed=1), rand(*v_shape, seed=2)
    with mg.backends.use("numba"):
        check_grads(attention, *arrays)


def test_second_derivatives_are_the_same_on_every_backend():
    arrays = rand(2, 5, 3, seed=0), rand(2, 6, 3, seed=1), rand(2, 6, 4, seed=2)
    results = []
    for backend in BACKENDS:
        q, k, v = (mg.tensor(a, requires_grad=True) for a in arrays)
        with mg.backends.use(backend):
            out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            (gq,) = mg.autograd.grad((out * out).sum(), q, create_graph=True)
            (gq * gq).sum().backward()
        results.append([t.grad.numpy() for t in (q, k, v)])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)


def _torch_attention(q, k, v, mask, is_causal):
    """Attention composed of torch ops: the oracle for derivatives of every order."""
    scores = q @ k.mT / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores + torch.tensor(mask)
    if is_causal:
        scores = scores.masked_fill(
            ~torch.ones(scores.shape[-2:], dtype=torch.bool).tril(), -torch.inf
        )
    return scores.softmax(dim=-1) @ v


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "mask, is_causal", [(None, False), (None, True), (rand(4, 5, seed=3), False)]
)
# leading dims: one, none, and two (heads): without a mask the Function takes the tensors
# as they are and flattens their arrays itself
@pytest.mark.parametrize("batch", [(2,), (), (1, 2)], ids=str)
def test_third_derivatives_match_a_torch_composition(backend, mask, is_causal, batch):
    """A penalty on the second derivatives, differentiated once more: each order goes
    through the derivative of the kernels' gradients (AttentionGradient), with respect
    to q, k, v and to the output gradient."""
    arrays = rand(*batch, 4, 3, seed=0), rand(*batch, 5, 3, seed=1), rand(*batch, 5, 2, seed=2)

    def third(lib, attention, inputs):
        out = attention(*inputs)
        first = lib.autograd.grad((out * out * out).sum(), inputs, create_graph=True)
        second = lib.autograd.grad(sum((g * g).sum() for g in first), inputs, create_graph=True)
        return sum((g * g).sum() for g in second)

    mine = [mg.tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    attn_mask = None if mask is None else mg.tensor(mask)
    with mg.backends.use(backend):
        third(
            mg,
            lambda q, k, v: F.scaled_dot_product_attention(q, k, v, attn_mask, is_causal=is_causal),
            mine,
        ).backward()
    third(torch, lambda q, k, v: _torch_attention(q, k, v, mask, is_causal), theirs).backward()
    for x, t in zip(mine, theirs):
        assert_close(x.grad, t.grad, rtol=1e-7, atol=1e-10)


def test_backward_runs_on_the_backend_forward_ran_on(monkeypatch):
    """The Function keeps the kernels its forward used (ctx.kernels): choosing another
    backend between forward and backward must not mix two backends in one op."""
    calls = []
    for name, module in (("numpy", ref), ("numba", cpu)):

        def spy(*args, _original=module.attention_backward, _name=name):
            calls.append(_name)
            return _original(*args)

        monkeypatch.setattr(module, "attention_backward", spy)
    arrays = rand(2, 4, 3, seed=0), rand(2, 5, 3, seed=1), rand(2, 5, 2, seed=2)
    for forward_backend, backward_backend in (("numpy", "numba"), ("numba", "numpy")):
        q, k, v = (mg.tensor(a, requires_grad=True) for a in arrays)
        calls.clear()
        with mg.backends.use(forward_backend):
            out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        with mg.backends.use(backward_backend):
            (gq,) = mg.autograd.grad((out * out).sum(), q, create_graph=True)
            (gq * gq).sum().backward()
        # twice: the second backward reaches `out` again, through d(out * out)/d out = 2 out
        assert calls == [forward_backend] * 2


def test_mask_gradient_matches_finite_differences():
    def attention(q, k, v, m):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=m)

    check_grads(
        attention,
        rand(2, 3, 2, seed=0),
        rand(2, 4, 2, seed=1),
        rand(2, 4, 2, seed=2),
        rand(3, 4, seed=3),
    )


# ---- the Numba kernels against the reference ----------------------------------------------------
LENGTHS = st.sampled_from([1, 2, 3, 7, 13, 64, 65, 127, 128, 129, 200])
MASKS = ["none", "full", "keys", "queries", "batch keys"]


def _kernel_mask(kind, B, Tq, Tk, rng, dtype):
    """An additive mask in each layout the Function passes to the kernels."""
    shape = {
        "none": None,
        "full": (B, Tq, Tk),
        "keys": (1, 1, Tk),
        "queries": (1, Tq, 1),
        "batch keys": (B, 1, Tk),
    }
    if shape[kind] is None:
        return None
    if kind == "queries":  # a float mask: an additive bias per query
        return rng.standard_normal(shape[kind]).astype(dtype)
    return np.where(rng.random(shape[kind]) < 0.3, -np.inf, 0.0).astype(dtype)


@settings(max_examples=100, deadline=None)
@given(
    B=st.integers(1, 3),
    Tq=LENGTHS,
    Tk=LENGTHS,
    d=st.sampled_from([1, 2, 3, 5, 16, 33, 64]),
    dv=st.sampled_from([1, 4, 7, 64]),
    is_causal=st.booleans(),
    mask_kind=st.sampled_from(MASKS),
    dtype=st.sampled_from([np.float64, np.float32]),
    seed=st.integers(0, 2**16),
    blocked=st.booleans(),
)
def test_numba_kernels_match_reference(
    B, Tq, Tk, d, dv, is_causal, mask_kind, dtype, seed, blocked
):
    """Both CPU paths: the short-sequence kernel (Tq, Tk <= SHORT_T) and, with `blocked`,
    the FlashAttention kernel at every length (SHORT_T = 0 sends everything to it)."""
    with short_path_limit(0 if blocked else short.SHORT_T):
        _kernels_match_reference(B, Tq, Tk, d, dv, is_causal, mask_kind, dtype, seed)


@contextlib.contextmanager
def short_path_limit(limit):
    """Sequences up to `limit` take the short-sequence kernel, for the duration."""
    saved, short.SHORT_T = short.SHORT_T, limit
    try:
        yield
    finally:
        short.SHORT_T = saved


def _kernels_match_reference(B, Tq, Tk, d, dv, is_causal, mask_kind, dtype, seed):
    rng = np.random.default_rng(seed)
    q, k, v = (rng.standard_normal(s).astype(dtype) for s in ((B, Tq, d), (B, Tk, d), (B, Tk, dv)))
    mask = None if is_causal else _kernel_mask(mask_kind, B, Tq, Tk, rng, dtype)
    scale = 1.0 / np.sqrt(d)
    inputs = [a.copy() for a in (q, k, v)]
    out, lse = cpu.attention_forward(q, k, v, scale, is_causal, mask)
    out_ref, lse_ref = ref.attention_forward(q, k, v, scale, is_causal, mask)
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-12)
    assert (
        out.dtype == lse.dtype == dtype
        and out.shape == out_ref.shape
        and lse.shape == lse_ref.shape
    )
    np.testing.assert_allclose(out, out_ref, **tol)
    np.testing.assert_allclose(lse, lse_ref, **tol)  # -inf where a query sees no key, in both
    grad_out = rng.standard_normal(out.shape).astype(dtype)
    grads = cpu.attention_backward(grad_out, q, k, v, out, lse, scale, is_causal, mask)
    grads_ref = ref.attention_backward(grad_out, q, k, v, out_ref, lse_ref, scale, is_causal, mask)
    if dtype == np.float32:  # dk and dq sum up to T * d terms of dS = P (dP - delta), a difference
        # of numbers as large as |dO| |v|: their float32 rounding grows with the length of the sums
        tol = dict(rtol=1e-4, atol=1e-5 * np.sqrt(max(Tq, Tk) * max(d, dv)))
    for name, g, g_ref in zip("qkv", grads, grads_ref):
        assert g.dtype == dtype and g.shape == g_ref.shape, name
        np.testing.assert_allclose(g, g_ref, **tol, err_msg=f"d{name}")
    for a, before in zip((q, k, v), inputs):  # the kernels never write to their inputs
        np.testing.assert_array_equal(a, before)


# ---- NaN and Inf propagate, as in the reference and PyTorch -------------------------------------
def assert_same_nan_inf(actual, expected, err_msg="", **tol):
    """NaN where expected has NaN, the same +-Inf, and the finite numbers close."""
    np.testing.assert_array_equal(
        np.isnan(actual), np.isnan(expected), err_msg=f"{err_msg}: NaN positions"
    )
    np.testing.assert_array_equal(
        np.isposinf(actual), np.isposinf(expected), err_msg=f"{err_msg}: +inf positions"
    )
    np.testing.assert_array_equal(
        np.isneginf(actual), np.isneginf(expected), err_msg=f"{err_msg}: -inf positions"
    )
    finite = np.isfinite(expected)
    np.testing.assert_allclose(actual[finite], expected[finite], err_msg=err_msg, **tol)


# (array, index, value): one bad number in q (B, Tq, d), k or v (B, Tk, d), or the float mask (B,
# Tq, Tk)
NON_FINITE = [
    (name, index, value)
    for name, index in (("q", (0, 1, 0)), ("k", (1, 2, 1)), ("v", (0, 3, 2)), ("mask", (1, 2, 0)))
    for value in (np.nan, np.inf, -np.inf)
    if not (name == "mask" and value == -np.inf)  # that one just hides a key
]


@pytest.mark.parametrize("backend", BACKENDS + ["tensor ops"])
@pytest.mark.parametrize("name, index, value", NON_FINITE)
def test_nan_and_inf_propagate_as_in_pytorch(name, index, value, backend):
    """One NaN or Inf in q, k, v or a float mask (with a fully masked row): the output and
    the q, k, v gradients hold NaN and Inf exactly where PyTorch's (math path) do. On the
    kernels of each backend, and on the Tensor-ops path (a mask that requires grad)."""
    mask_grad = backend == "tensor ops"
    backend = "numpy" if mask_grad else backend
    arrays = dict(
        q=rand(2, 3, 2, seed=0),
        k=rand(2, 4, 2, seed=1),
        v=rand(2, 4, 3, seed=2),
        mask=rand(2, 3, 4, seed=3),
    )
    arrays["mask"][0, 2, :] = -np.inf  # a query that sees no key: zeros, not NaN
    arrays[name][index] = value
    mine = {n: mg.tensor(a, requires_grad=n != "mask" or mask_grad) for n, a in arrays.items()}
    theirs = {n: torch.tensor(a, requires_grad=n != "mask" or mask_grad) for n, a in arrays.items()}
    with mg.backends.use(backend), np.errstate(all="ignore"):
        out = F.scaled_dot_product_attention(
            mine["q"], mine["k"], mine["v"], attn_mask=mine["mask"]
        )
        out.backward(mg.tensor(rand(2, 3, 3, seed=4)))
    with torch.nn.attention.sdpa_kernel(torch.nn.attention.SDPBackend.MATH):
        tout = TF.scaled_dot_product_attention(
            theirs["q"], theirs["k"], theirs["v"], attn_mask=theirs["mask"]
        )
    tout.backward(torch.tensor(rand(2, 3, 3, seed=4)))
    assert not np.all(np.isfinite(out.array))  # the bad number did reach the output
    assert_same_nan_inf(out.array, tout.detach().numpy(), "out")
    for n in ("q", "k", "v", "mask") if mask_grad else "qkv":
        assert_same_nan_inf(mine[n].grad.array, theirs[n].grad.numpy(), f"d{n}")


def _plant(arrays, name, index, value):
    arrays = dict(arrays)
    arrays[name] = arrays[name].copy()
    arrays[name][index] = value
    return arrays


# Shapes past the Numba kernel's blocks (128 queries, 64 keys), so that with is_causal the
# kernel would skip whole blocks: the bad number sits where a skipped block would lose it.
KERNEL_NON_FINITE = [  # (is_causal, mask, array, index, value)
    # a key hidden from the first query block: 0 * NaN in every row
    (True, False, "v", (0, 190, 1), np.nan),
    (True, False, "v", (1, 150, 0), np.inf),
    (True, False, "q", (0, 5, 2), np.nan),  # an early query: its P row is NaN, hidden keys included
    # the causal mask hides it from every query but the last
    (True, False, "k", (1, 199, 0), np.nan),
    (True, False, "k", (0, 70, 1), -np.inf),
    (True, False, "grad_out", (0, 3, 0), np.nan),  # reaches dv of the keys query 3 cannot see
    (True, False, "grad_out", (1, 100, 2), np.inf),
    (False, True, "mask", (0, 7, 100), np.nan),
    (False, True, "mask", (1, 150, 3), np.inf),
    (False, True, "q", (1, 129, 0), -np.inf),
    (False, True, "v", (0, 64, 0), np.nan),  # in a key that some queries' masks hide
    (False, False, "k", (0, 0, 0), np.inf),
    (False, False, "none", None, None),
]


def check_non_finite_against_reference(seed, T, is_causal, with_mask, name, index, value, dtype):
    """The CPU kernels give NaN and Inf where the reference does (and the same numbers
    elsewhere), with one bad number planted in q, k, v, the mask or dO (`_plant`)."""
    rng = np.random.default_rng(seed)
    B, d, dv = 2, 3, 4
    arrays = dict(
        q=rng.standard_normal((B, T, d)),
        k=rng.standard_normal((B, T, d)),
        v=rng.standard_normal((B, T, dv)),
        mask=np.where(rng.random((B, T, T)) < 0.3, -np.inf, rng.standard_normal((B, T, T))),
        grad_out=rng.standard_normal((B, T, dv)),
    )
    arrays["mask"][1, 11, :] = -np.inf  # a fully masked row
    if name != "none":
        arrays = _plant(arrays, name, index, value)
    q, k, v, mask, grad_out = (arrays[n].astype(dtype) for n in ("q", "k", "v", "mask", "grad_out"))
    mask = mask if with_mask else None
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-12)
    with np.errstate(all="ignore"):
        out, lse = cpu.attention_forward(q, k, v, 0.5, is_causal, mask)
        out_ref, lse_ref = ref.attention_forward(q, k, v, 0.5, is_causal, mask)
        grads = cpu.attention_backward(grad_out, q, k, v, out, lse, 0.5, is_causal, mask)
        grads_ref = ref.attention_backward(
            grad_out, q, k, v, out_ref, lse_ref, 0.5, is_causal, mask
        )
    assert_same_nan_inf(out, out_ref, "out", **tol)
    assert_same_nan_inf(lse, lse_ref, "lse", **tol)
    for n, g, g_ref in zip("qkv", grads, grads_ref):
        assert_same_nan_inf(g, g_ref, f"d{n}", **tol)
    if name != "none":  # the case is not vacuous: the bad number reached something
        assert not all(np.all(np.isfinite(a)) for a in (out_ref, *grads_ref))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("is_causal, with_mask, name, index, value", KERNEL_NON_FINITE)
def test_numba_kernels_propagate_nan_and_inf_as_the_reference(
    is_causal, with_mask, name, index, value, dtype
):
    check_non_finite_against_reference(7, 200, is_causal, with_mask, name, index, value, dtype)


def test_as_batches_views_or_copies_every_leading_dim_into_one(monkeypatch):
    """The kernels' (B, T, d) arrays from (..., T, d): a contiguous array as a view (no
    copy), the strided heads of a projection as a C-ordered copy made by the threads (the
    CPU's as_batches), with the reference's values; at any size on the threads here."""
    from minigrad.kernels.cpu import attention as cpu
    from minigrad.kernels.reference import attention as reference

    monkeypatch.setattr(cpu, "MIN_SPLIT_COPY", 0)
    qkv = rand(2, 7, 3 * 4 * 5, seed=1, dtype=np.float32)  # (N, T, 3 heads-worth)
    q = qkv[:, :, :20].reshape(2, 7, 4, 5).transpose(0, 2, 1, 3)  # (N, H, T, d), strided
    flat = cpu.as_batches(q)
    assert flat.shape == (8, 7, 5) and flat.flags.c_contiguous
    np.testing.assert_array_equal(flat, reference.as_batches(q))
    c = np.ascontiguousarray(q)
    assert np.shares_memory(cpu.as_batches(c), c)
    assert cpu.as_batches(c[0]).shape == (4, 7, 5) and cpu.as_batches(c[0, 0]).shape == (1, 7, 5)


# ---- the short-sequence kernel (kernels/cpu/attention_short.py) ----------------------------------
# (B, Tq, Tk, d, dv): the two transformer shapes, odd sizes, Tq != Tk, the threshold
SHORT_CASES = [
    (48, 64, 64, 32, 32),
    (5, 13, 7, 5, 3),
    (3, 7, 29, 16, 9),
    (3, 45, 77, 8, 5),  # lengths across several causal strips (STRIP), the last one partial
    (2, 128, 128, 8, 8),  # SHORT_T: the longest the short kernel takes
    (2, 129, 129, 8, 8),  # one past it: the blocked kernel
    (2, 128, 129, 4, 4),
]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("is_causal", [False, True])
@pytest.mark.parametrize("mask_kind", MASKS)
@pytest.mark.parametrize("B, Tq, Tk, d, dv", SHORT_CASES)
def test_short_kernel_matches_reference_at_the_transformer_shapes(
    B, Tq, Tk, d, dv, is_causal, mask_kind, dtype
):
    assert short.SHORT_T == 128  # the cases above straddle it
    _kernels_match_reference(B, Tq, Tk, d, dv, is_causal, mask_kind, dtype, seed=B * Tq + Tk)


SHORT_NON_FINITE = [  # (is_causal, mask, array, index, value) at B 2, T 40 (strips of 8 keys)
    # a key hidden from the first 30 queries: 0 * NaN in every row
    (True, False, "v", (0, 30, 1), np.nan),
    (True, False, "v", (1, 17, 0), np.inf),
    (True, False, "q", (0, 5, 2), np.nan),
    (True, False, "k", (1, 39, 0), np.nan),  # hidden from every query but the last
    (True, False, "k", (0, 9, 1), -np.inf),  # inside a strip: hidden from query 8, seen by 9
    (True, False, "grad_out", (0, 3, 0), np.nan),
    (True, False, "grad_out", (1, 20, 2), np.inf),
    (False, True, "mask", (0, 7, 30), np.nan),
    (False, True, "mask", (1, 15, 3), np.inf),
    (False, True, "q", (1, 29, 0), -np.inf),
    (False, True, "v", (0, 12, 0), np.nan),
    (False, False, "k", (0, 0, 0), np.inf),
    (False, False, "none", None, None),
]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("is_causal, with_mask, name, index, value", SHORT_NON_FINITE)
def test_short_kernel_propagates_nan_and_inf_as_the_reference(
    is_causal, with_mask, name, index, value, dtype
):
    assert 40 <= short.SHORT_T  # the short kernel runs
    check_non_finite_against_reference(8, 40, is_causal, with_mask, name, index, value, dtype)


@pytest.mark.parametrize(
    "q_shape, kv_shape, kwargs, with_mask",
    [
        ((1, 2, 20, 4), (1, 2, 20, 4), dict(is_causal=True), False),
        ((1, 4, 11, 3), (1, 2, 11, 3), dict(enable_gqa=True, is_causal=True, scale=0.6), False),
        ((2, 9, 5), (2, 12, 5), {}, True),
    ],
)
def test_short_kernel_gradients_match_finite_differences(q_shape, kv_shape, kwargs, with_mask):
    """float64 gradcheck of F.scaled_dot_product_attention on the numba backend, through
    the short-sequence kernel (causal with strips of keys, GQA, a float mask)."""
    mask = mg.tensor(
        np.where(np.random.default_rng(3).random(q_shape[-2:-1] + kv_shape[-2:-1]) < 0.3, -1e9, 0.5)
    )
    attn_mask = mask if with_mask else None

    def attention(q, k, v):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask, **kwargs)

    assert max(q_shape[-2], kv_shape[-2]) <= short.SHORT_T
    arrays = rand(*q_shape, seed=0), rand(*kv_shape, seed=1), rand(*kv_shape, seed=2)
    with mg.backends.use("numba"):
        check_grads(attention, *arrays)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("is_causal", [False, True])
def test_an_empty_batch_gives_empty_outputs_and_gradients(backend, is_causal):
    q, k, v = (mg.tensor(np.zeros((0, 2, 5, 3)), requires_grad=True) for _ in range(3))
    with mg.backends.use(backend):
        out = F.scaled_dot_product_attention(q, k, v, is_causal=is_causal)
        out.sum().backward()
    assert out.shape == (0, 2, 5, 3)
    for t in (q, k, v):
        assert t.grad.shape == (0, 2, 5, 3)
    # the kernels themselves, float32 too
    for kernels in (ref, cpu):
        for dtype in (np.float32, np.float64):
            q = np.zeros((0, 4, 3), dtype)
            out, lse = kernels.attention_forward(q, q, q, 1.0, is_causal, None)
            assert out.shape == (0, 4, 3) and lse.shape == (0, 4)
            grads = kernels.attention_backward(out, q, q, q, out, lse, 1.0, is_causal, None)
            assert [g.shape for g in grads] == [(0, 4, 3)] * 3 and all(
                g.dtype == dtype for g in grads
            )


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_vectorised_exp_is_accurate(dtype):
    lowest = -87.3 if dtype == np.float32 else -708.3
    x = np.concatenate(
        [np.linspace(lowest, 0.0, 100001), [-1e-30, -0.0, lowest - 1, -1e30, -np.inf]]
    ).astype(dtype)
    expected = np.exp(x.astype(np.float64))
    got = x.copy()
    cpu.exp_nonpositive(got, cpu.exp_constants(got), np.empty_like(got))
    normal = x >= lowest
    ulp = np.finfo(dtype).eps
    np.testing.assert_allclose(got[normal], expected[normal], rtol=4 * ulp, atol=0)
    assert np.all(got[~normal] == 0.0)


@numba.njit
def _exp_strips(s, skip):
    """attention_short.exp_strips, which only kernels call (njit(inner=True)), from a kernel."""
    short.exp_strips(s, skip)


def test_short_kernels_exp_is_accurate():
    """The short-sequence kernels' exp (attention_short.exp_strips): float32 through
    vecmath's one-number exp_nonpositive32, held to the same 4 units in the last place of
    np.exp as the whole-array form; 0 below the lowest normal result, for -inf and NaN;
    float64 through the C library's exp (NaN to 0 as well, subnormal results kept)."""
    for dtype, lowest in ((np.float32, -87.3), (np.float64, -708.3)):
        x = np.concatenate(
            [np.linspace(lowest, 0.0, 40000), [-1e-30, -0.0, lowest - 1, -1e30, -np.inf, np.nan]]
        ).astype(dtype)
        s = x.reshape(1, -1).copy()  # one row of S^T: every entry computed (skip=False)
        _exp_strips(s, False)
        got = s[0]
        normal = x >= lowest
        expected = np.exp(x[normal].astype(np.float64))
        ulp = np.finfo(dtype).eps
        np.testing.assert_allclose(got[normal], expected, rtol=4 * ulp, atol=0)
        if dtype == np.float32:
            assert np.all(got[~normal] == 0.0), got[~normal]
        else:  # the C library's exp, subnormal results included; NaN still 0
            with np.errstate(invalid="ignore"):
                exact = np.where(np.isnan(x), 0.0, np.exp(x))
            np.testing.assert_array_equal(got[~normal], exact[~normal])


def _peak_bytes(fn):
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.slow
def test_numba_backend_memory_grows_as_t_times_d_not_t_squared():
    """Forward and backward at T = 2048: one (T, T) float32 matrix is 16 MiB. The NumPy
    allocations of the Numba path (inputs' copies, outputs, dq parts) stay a few MiB;
    the reference, which holds whole score matrices, needs many times 16 MiB."""
    T, d = 2048, 32
    q, k, v = (
        mg.tensor(rand(1, T, d, seed=i, dtype=np.float32), requires_grad=True) for i in range(3)
    )

    def forward_backward():
        F.scaled_dot_product_attention(q, k, v, is_causal=True).sum().backward()

    square = T * T * 4
    with mg.backends.use("numba"):
        forward_backward()  # compiled already; this just warms up
        assert _peak_bytes(forward_backward) < square / 4
    with mg.backends.use("numpy"):
        assert _peak_bytes(forward_backward) > 2 * square  # the measurement can see T^2


# ---- arguments ----------------------------------------------------------------------------------
def _t(*shape, dtype=np.float32):
    return mg.tensor(np.zeros(shape, dtype=dtype))


@pytest.mark.parametrize(
    "args, kwargs, error, words",
    [
        (
            (_t(3, 4), _t(5, 4), _t(5, 2)),
            dict(attn_mask=_t(3, 5).bool(), is_causal=True),
            RuntimeError,
            "is_causal",
        ),
        ((_t(4), _t(4), _t(4)), {}, RuntimeError, "at least 2 dims"),
        ((_t(3, 4), _t(5, 3), _t(5, 2)), {}, RuntimeError, "(5, 3)"),
        ((_t(3, 4), _t(5, 4), _t(6, 2)), {}, RuntimeError, "(6, 2)"),
        ((_t(2, 3, 4), _t(3, 5, 4), _t(3, 5, 2)), {}, RuntimeError, "(2, 3, 4)"),
        (
            (_t(3, 4), _t(5, 4), _t(5, 2)),
            dict(attn_mask=_t(3, 4).bool()),
            RuntimeError,
            "attn_mask (3, 4)",
        ),
        (
            (_t(3, 4), _t(5, 4), _t(5, 2)),
            dict(attn_mask=_t(2, 3, 5).bool()),
            RuntimeError,
            "(2, 3, 5)",
        ),
        ((_t(3, 4), _t(5, 4, dtype=np.float64), _t(5, 2)), {}, RuntimeError, "float64"),
        ((_t(3, 4), _t(5, 4), _t(5, 2)), dict(attn_mask=_t(3, 5).long()), RuntimeError, "int64"),
        (
            (_t(3, 4), _t(5, 4), _t(5, 2)),
            dict(attn_mask=_t(3, 5, dtype=np.float64)),
            RuntimeError,
            "float64",
        ),
        ((_t(3, 4), _t(5, 4), _t(5, 2)), dict(dropout_p=1.5), ValueError, "1.5"),
        (
            (_t(1, 4, 3, 2), _t(1, 3, 5, 2), _t(1, 3, 5, 2)),
            dict(enable_gqa=True),
            RuntimeError,
            "(3) must divide",
        ),
        ((_t(3, 2), _t(5, 2), _t(5, 2)), dict(enable_gqa=True), RuntimeError, "heads"),
        ((np.zeros((3, 2)), _t(5, 2), _t(5, 2)), {}, TypeError, "query must be a Tensor"),
    ],
)
def test_bad_arguments_raise_naming_them(args, kwargs, error, words):
    with pytest.raises(error, match="scaled_dot_product_attention") as info:
        F.scaled_dot_product_attention(*args, **kwargs)
    assert words in str(info.value)


def test_both_mask_and_causal_raise_in_pytorch_too():
    q = torch.zeros(3, 4)
    with pytest.raises(RuntimeError):
        TF.scaled_dot_product_attention(
            q, q, q, attn_mask=torch.ones(3, 3, dtype=torch.bool), is_causal=True
        )


def test_default_scale_is_one_over_sqrt_d():
    q, k, v = (mg.tensor(rand(2, 3, 9, seed=i)) for i in range(3))
    assert_close(
        F.scaled_dot_product_attention(q, k, v),
        F.scaled_dot_product_attention(q, k, v, scale=1 / 3),
    )
    assert not np.allclose(
        F.scaled_dot_product_attention(q, k, v).array,
        F.scaled_dot_product_attention(q, k, v, scale=1.0).array,
    )


# ---- the benchmark script ---------------------------------------------------------------------
@pytest.mark.slow
def test_benchmark_script_runs(capsys):
    """bench_attention.py in quick mode (no cold compile, no T = 4096 run), and its
    memory measurement in a subprocess on a small case."""
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_attention.py"
    spec = importlib.util.spec_from_file_location("bench_attention", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    results = bench.main(["--quick", "--threads", "1"])
    out = capsys.readouterr().out
    assert "numba/PyTorch" in out and "GFLOP/s" in out
    for timings in results.values():
        assert all(ms > 0 for pair in timings.values() for ms in pair)
    (memory,) = bench.peak_memory("numba", 1, [(1, 2, 256, 16)])
    assert 0 < memory["tracemalloc"] < 4 * 2**20
