"""The CUDA attention kernels, on device arrays, against the reference kernels, and the
autograd Function on CUDA tensors, on tiny shapes: on Numba's simulator every GPU thread runs as
Python (see tests/cuda/conftest.py for how and where these tests run)."""

import contextlib

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F
from minigrad.kernels.cuda import attention as gpu
from minigrad.kernels.cuda import attention_lanes as lanes
from minigrad.kernels.cuda import attention_naive as naive
from minigrad.kernels.reference import attention as ref
from tests.cuda.device import dev, host, no_transfers

# the FlashAttention-2 kernels with a register block per thread (the backends' own), those
# with a few threads per row, and the naive one-thread-per-row ones
IMPLEMENTATIONS = pytest.mark.parametrize(
    "kernels", [gpu, lanes, naive], ids=["blocked", "lanes", "naive"]
)
# rows (or keys) per tile: the largest of the implementations' (on the simulator 8 for the
# naive kernels, 6 keys for the blocked ones), where the smaller tiles fall inside too
T64 = max(lanes.TILE_FLOAT64, naive.TILE_FLOAT64, *gpu.tiles(np.float64, gpu.DIMS[0])[:2])
T32 = max(lanes.TILE_FLOAT32, naive.TILE_FLOAT32, *gpu.tiles(np.float32, gpu.DIMS[0])[:2])

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


@IMPLEMENTATIONS
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("dims, is_causal, mask_layout", CASES)
def test_kernels_match_reference(dims, is_causal, mask_layout, dtype, kernels):
    B, Tq, Tk, d, dv = dims
    q, k, v = _rand((B, Tq, d), 0, dtype), _rand((B, Tk, d), 1, dtype), _rand((B, Tk, dv), 2, dtype)
    mask = _mask(mask_layout, dtype)
    scale = 0.7
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-13)
    out_ref, lse_ref = ref.attention_forward(q, k, v, scale, is_causal, mask)
    g = _rand(out_ref.shape, 3, dtype)
    q_d, k_d, v_d, mask_d, g_d = (dev(a) for a in (q, k, v, mask, g))
    with no_transfers():  # device arrays in, device arrays out
        out, lse = kernels.attention_forward(q_d, k_d, v_d, scale, is_causal, mask_d)
        grads = kernels.attention_backward(g_d, q_d, k_d, v_d, out, lse, scale, is_causal, mask_d)
    assert out.dtype == lse.dtype == dtype
    np.testing.assert_allclose(host(out), out_ref, **tol)
    np.testing.assert_allclose(host(lse), lse_ref, **tol)
    grads_ref = ref.attention_backward(g, q, k, v, out_ref, lse_ref, scale, is_causal, mask)
    for name, a, b in zip("qkv", grads, grads_ref):
        assert a.dtype == dtype
        np.testing.assert_allclose(host(a), b, **tol, err_msg=f"d{name}")


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
@IMPLEMENTATIONS
@pytest.mark.parametrize("is_causal, with_mask, name, index, value", NON_FINITE)
def test_nan_and_inf_propagate_as_the_reference(is_causal, with_mask, name, index, value, kernels):
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
        q_d, k_d, v_d, mask_d, grad_out_d = (dev(a) for a in (q, k, v, mask, grad_out))
        out, lse = kernels.attention_forward(q_d, k_d, v_d, 0.5, is_causal, mask_d)
        out_ref, lse_ref = ref.attention_forward(q, k, v, 0.5, is_causal, mask)
        grads = kernels.attention_backward(
            grad_out_d, q_d, k_d, v_d, out, lse, 0.5, is_causal, mask_d
        )
        grads_ref = ref.attention_backward(
            grad_out, q, k, v, out_ref, lse_ref, 0.5, is_causal, mask
        )
    _assert_same_nan_inf(host(out), out_ref, "out", **tol)
    _assert_same_nan_inf(host(lse), lse_ref, "lse", **tol)
    for n, g, g_ref in zip("qkv", grads, grads_ref):
        _assert_same_nan_inf(host(g), g_ref, f"d{n}", **tol)
    # the bad number got through
    assert not all(np.all(np.isfinite(a)) for a in (out_ref, *grads_ref))


@IMPLEMENTATIONS
@pytest.mark.parametrize("is_causal", [False, True])
def test_an_empty_batch(is_causal, kernels):
    for dtype in (np.float32, np.float64):
        q = dev(np.zeros((0, 3, 2), dtype))
        out, lse = kernels.attention_forward(q, q, q, 1.0, is_causal, None)
        assert host(out).shape == (0, 3, 2) and host(lse).shape == (0, 3)
        grads = kernels.attention_backward(out, q, q, q, out, lse, 1.0, is_causal, None)
        assert [host(g).shape for g in grads] == [(0, 3, 2)] * 3


def _attention(device, backend, arrays, allowed):
    """F.scaled_dot_product_attention on `device` and its gradients, on the host."""
    q, k, v = (mg.tensor(a, requires_grad=True, device=device) for a in arrays)
    mask = mg.tensor(allowed, device=device)
    with mg.backends.use(backend), no_transfers() if device == "cuda" else contextlib.nullcontext():
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, enable_gqa=True)
        (out * out).sum().backward()
    assert out.device.type == q.grad.device.type == device
    return [out.detach().cpu().numpy()] + [t.grad.cpu().numpy() for t in (q, k, v)]


@pytest.mark.parametrize("backend", ["numba", "numpy"])
def test_function_on_cuda_tensors_matches_the_cpu(backend, monkeypatch):
    """The 'numba' backend launches the CUDA kernels on CUDA tensors (counted here); the
    'numpy' one runs the reference on the device. Both give the CPU's numbers."""
    arrays = (
        _rand((2, 2, 4, 3), 0, np.float64),
        _rand((2, 1, 5, 3), 1, np.float64),
        _rand((2, 1, 5, 2), 2, np.float64),
    )
    allowed = np.random.default_rng(4).random((4, 5)) > 0.3
    calls = []
    for name in ("attention_forward", "attention_backward"):
        kernel = getattr(gpu, name)
        monkeypatch.setattr(gpu, name, lambda *a, _k=kernel, _n=name: calls.append(_n) or _k(*a))
    expected = _attention("cpu", "numpy", arrays, allowed)
    for a, b in zip(_attention("cuda", backend, arrays, allowed), expected):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-13)
    assert len(set(calls)) == (2 if backend == "numba" else 0), calls


@IMPLEMENTATIONS
def test_head_dims_beyond_the_tile_limit_raise(kernels):
    q = dev(np.zeros((1, 2, kernels.MAX_DIM + 1)))
    with pytest.raises(ValueError, match=r"attention_forward \(cuda\).*129"):
        kernels.attention_forward(q, q, q, 1.0, False, None)
