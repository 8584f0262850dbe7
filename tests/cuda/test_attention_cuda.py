"""The CUDA attention kernels against the reference kernels, and the autograd Function on
the 'cuda' backend, on tiny shapes: on Numba's simulator every GPU thread runs as
Python (see tests/cuda/conftest.py for how and where these tests run)."""

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F
from minigrad.kernels.cuda import attention as gpu
from minigrad.kernels.reference import attention as ref

# (B, Tq, Tk, d, dv), is_causal, mask layout: size-1 dims, Tq != Tk both ways, and
# lengths past one tile (16 queries per block in float64, 32 in float32)
CASES = [
    ((2, 3, 5, 2, 3), False, None),
    ((1, 5, 3, 3, 2), True, None),  # Tq > Tk
    ((1, 3, 6, 2, 2), True, None),  # Tq < Tk
    ((1, 1, 1, 1, 1), False, None),
    ((2, 4, 5, 2, 2), False, (2, 4, 5)),  # a full mask, one row fully masked
    ((2, 3, 4, 2, 3), False, (2, 1, 4)),  # key padding
    ((1, 4, 3, 2, 2), False, (1, 4, 1)),  # a float bias per query
    ((1, 18, 17, 3, 2), True, None),  # more than one tile in float64
    ((1, 34, 33, 2, 1), True, None),  # more than one tile in float32
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


def test_function_on_the_cuda_backend_matches_numpy():
    arrays = _rand((2, 2, 4, 3), 0, np.float64), _rand((2, 1, 5, 3), 1, np.float64), _rand((2, 1, 5, 2), 2, np.float64)
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
