"""The tiled CUDA attention kernels at real head dims, on a real GPU: every set of kernels
`attention.py` builds (float32 and float64; head dims up to 32, 64 and 128, d and
dv apart), sequences over several tiles, causal (Tq != Tk) and with a key-padding mask,
against the reference in NumPy. tests/cuda checks the same kernels at tiny sizes (and, on
the simulator, tiny tiles); here the tiles are the GPU's."""

import numpy as np
import pytest

from minigrad.kernels.cuda import attention as blocked
from minigrad.kernels.cuda import attention_lanes as lanes
from minigrad.kernels.reference import attention as ref

# (d, dv): each head-dim bound of the blocked kernels, one with d != dv
HEAD_DIMS = [(32, 32), (48, 64), (64, 64), (128, 96)]


def _rand(shape, seed, dtype):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("kernels", [lanes, blocked], ids=["lanes", "blocked"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("d, dv", HEAD_DIMS)
@pytest.mark.parametrize("is_causal", [True, False], ids=["causal", "masked"])
def test_attention_matches_the_reference(is_causal, d, dv, dtype, kernels, gpu):
    B, Tq, Tk = 3, 77, 90  # past two tiles of the largest tiles, not a multiple of any
    q, k, v = _rand((B, Tq, d), 0, dtype), _rand((B, Tk, d), 1, dtype), _rand((B, Tk, dv), 2, dtype)
    mask = None
    if not is_causal:  # key padding: the last keys of each entry hidden, a mask per entry
        lengths = np.array([90, 61, 7])
        mask = np.where(np.arange(Tk) < lengths[:, None], 0.0, -np.inf)[:, None, :]
        mask = mask.astype(dtype)
    scale = d**-0.5
    out_ref, lse_ref = ref.attention_forward(q, k, v, scale, is_causal, mask)
    g = _rand(out_ref.shape, 3, dtype)
    grads_ref = ref.attention_backward(g, q, k, v, out_ref, lse_ref, scale, is_causal, mask)
    args = [gpu.asarray(a) if a is not None else None for a in (q, k, v, mask, g)]
    q_d, k_d, v_d, mask_d, g_d = args
    out, lse = kernels.attention_forward(q_d, k_d, v_d, scale, is_causal, mask_d)
    grads = kernels.attention_backward(g_d, q_d, k_d, v_d, out, lse, scale, is_causal, mask_d)
    tol = dict(rtol=1e-10, atol=1e-10) if dtype == np.float64 else dict(rtol=2e-4, atol=2e-4)
    np.testing.assert_allclose(gpu.asnumpy(out), out_ref, **tol, err_msg="out")
    np.testing.assert_allclose(gpu.asnumpy(lse), lse_ref, **tol, err_msg="lse")
    for name, got, want in zip(("dq", "dk", "dv"), grads, grads_ref):
        np.testing.assert_allclose(gpu.asnumpy(got), want, **tol, err_msg=name)
