"""The CUDA attention kernels against the reference kernels, and the autograd Function on
the 'cuda' backend, on tiny shapes: on Numba's simulator every GPU thread runs as
Python (see tests/cuda/conftest.py for how and where these tests run)."""

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F
from minigrad.kernels.cuda import attention as gpu
from minigrad.kernels.reference import attention as ref

# queries per block (16 and 32; 4 and 8 on the simulator)
T64, T32 = gpu.TILE_FLOAT64, gpu.TILE_FLOAT32

# (B, Tq, Tk, d, dv), is_causal, mask layout: size-1 dims, Tq != Tk both ways, and
# lengths past one tile
CASES = [
    ((2, 3, 5, 2, 3), False, None),
    ((1, 5, 3, 3, 2), True, None),  # Tq > Tk
    ((1, 3, 6, 2, 2), True, None),  # Tq < Tk
    ((1, 1, 1, 1, 1), False, None),
    ((2, 4, 5, 2, 2), False, (2, 4, 5)),  # a full mask, one row fully masked
    ((2, 3, 4, 2, 3), False, (2, 1, 4)),  # key padding
    ((1, 4, 3, 2, 2), False, (1, 4, 1)),  # a float bias per query
    ((1, T64 + 2, T64 + 1, 3, 2), True, None),  # more than one tile in float64
    ((1, T32 + 2, T32 + 1, 2, 1), True, None),  # more than one tile in float32
]


def _rand(shape, seed, dtype):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _mask(layout, dtype):
    if layout is None:
        return None
    if layout[2] == 1:  # per-query float bias
        return _rand(layout, 5, dtype)
    allowed = np.random.default_rng(6).random(layout) > 0.3
    allowed[..., 0, :] = False  # the first query of each entry sees nothing
    return np.where(allowed, 0.0, -np.inf).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("dims, is_causal, mask_layout", CASES)
def test_kernels_match_reference(dims, is_causal, mask_layout, dtype):
    B, Tq, Tk, d, dv = dims
    q, k, v = _rand((B, Tq, d), 0, dtype), _rand((B, Tk, d), 1, dtype), _rand((B, Tk, dv), 2, dtype)
    mask = _mask(mask_layout, dtype)
    scale = 0.7
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-13)
    out, lse = gpu.attention_forward(q, k, v, scale, is_causal, mask)
    out_ref, lse_ref = ref.attention_forward(q, k, v, scale, is_causal, mask)
    assert out.dtype == lse.dtype == dtype
    np.testing.assert_allclose(out, out_ref, **tol)
    np.testing.assert_allclose(lse, lse_ref, **tol)
    g = _rand(out.shape, 3, dtype)
    grads = gpu.attention_backward(g, q, k, v, out, lse, scale, is_causal, mask)
    grads_ref = ref.attention_backward(g, q, k, v, out_ref, lse_ref, scale, is_causal, mask)
    for name, a, b in zip("qkv", grads, grads_ref):
        assert a.dtype == dtype
        np.testing.assert_allclose(a, b, **tol, err_msg=f"d{name}")


def _assert_same_nan_inf(actual, expected, name, **tol):
    for test in (np.isnan, np.isposinf, np.isneginf):
        np.testing.assert_array_equal(
            test(actual), test(expected), err_msg=f"{name}: {test.__name__}"
        )
    finite = np.isfinite(expected)
    np.testing.assert_allclose(actual[finite], expected[finite], err_msg=name, **tol)


# (is_causal, mask, array, index, value) on (B, Tq, Tk, d, dv) = (1, T, T, 2, 2), T = T64 + 2:
# in float64 two tiles, so with is_causal the first tile's queries would skip the second key tile
T = T64 + 2
NON_FINITE = [
    # a key hidden from the first tile: 0 * NaN in every row
    (True, False, "v", (0, T - 1, 1), np.nan),
    (True, False, "q", (0, 2, 0), np.inf),  # its P row is NaN, hidden keys included
    (True, False, "k", (0, T - 1, 0), np.nan),  # hidden from all but the last query
    (True, False, "grad_out", (0, 1, 0), np.nan),
    (False, True, "mask", (0, 4, T - 1), np.nan),
    (False, True, "mask", (0, 5, 3), np.inf),
    (False, True, "v", (0, T - 2, 0), -np.inf),  # a key some masks hide
    (False, True, "k", (0, 0, 1), np.inf),
]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # the simulator's NumPy scalars warn of NaN
@pytest.mark.parametrize("is_causal, with_mask, name, index, value", NON_FINITE)
def test_nan_and_inf_propagate_as_the_reference(is_causal, with_mask, name, index, value):
    rng = np.random.default_rng(1)
    arrays = dict(
        q=rng.standard_normal((1, T, 2)),
        k=rng.standard_normal((1, T, 2)),
        v=rng.standard_normal((1, T, 2)),
        mask=np.where(rng.random((1, T, T)) < 0.3, -np.inf, rng.standard_normal((1, T, T))),
        grad_out=rng.standard_normal((1, T, 2)),
    )
    arrays["mask"][0, 3, :] = -np.inf  # a fully masked row
    arrays[name][index] = value
    q, k, v, grad_out = arrays["q"], arrays["k"], arrays["v"], arrays["grad_out"]
    mask = arrays["mask"] if with_mask else None
    tol = dict(rtol=1e-12, atol=1e-13)
    with np.errstate(all="ignore"):
        out, lse = gpu.attention_forward(q, k, v, 0.5, is_causal, mask)
        out_ref, lse_ref = ref.attention_forward(q, k, v, 0.5, is_causal, mask)
        grads = gpu.attention_backward(grad_out, q, k, v, out, lse, 0.5, is_causal, mask)
        grads_ref = ref.attention_backward(
            grad_out, q, k, v, out_ref, lse_ref, 0.5, is_causal, mask
        )
    _assert_same_nan_inf(out, out_ref, "out", **tol)
    _assert_same_nan_inf(lse, lse_ref, "lse", **tol)
    for n, g, g_ref in zip("qkv", grads, grads_ref):
        _assert_same_nan_inf(g, g_ref, f"d{n}", **tol)
    # the bad number got through
    assert not all(np.all(np.isfinite(a)) for a in (out_ref, *grads_ref))


@pytest.mark.parametrize("is_causal", [False, True])
def test_an_empty_batch(is_causal):
    for dtype in (np.float32, np.float64):
        q = np.zeros((0, 3, 2), dtype)
        out, lse = gpu.attention_forward(q, q, q, 1.0, is_causal, None)
        assert out.shape == (0, 3, 2) and lse.shape == (0, 3)
        grads = gpu.attention_backward(out, q, q, q, out, lse, 1.0, is_causal, None)
        assert [g.shape for g in grads] == [(0, 3, 2)] * 3


def test_function_on_the_cuda_backend_matches_numpy():
    arrays = (
        _rand((2, 2, 4, 3), 0, np.float64),
        _rand((2, 1, 5, 3), 1, np.float64),
        _rand((2, 1, 5, 2), 2, np.float64),
    )
    mask = mg.tensor(np.random.default_rng(4).random((4, 5)) > 0.3)
    results = []
    for backend in ("numpy", "cuda"):
        q, k, v = (mg.tensor(a, requires_grad=True) for a in arrays)
        with mg.backends.use(backend):
            out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, enable_gqa=True)
            (out * out).sum().backward()
        results.append([out.array] + [t.grad.array for t in (q, k, v)])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-13)


def test_head_dims_beyond_the_tile_limit_raise():
    q = np.zeros((1, 2, gpu.MAX_DIM + 1))
    with pytest.raises(ValueError, match=r"attention_forward \(cuda\).*129"):
        gpu.attention_forward(q, q, q, 1.0, False, None)
