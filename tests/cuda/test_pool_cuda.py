"""The CUDA pooling kernels, on device arrays, against the reference kernels, and the
autograd Functions on CUDA tensors, on tiny shapes: on Numba's simulator every GPU thread runs as
Python (see tests/cuda/conftest.py for how and where these tests run)."""

import contextlib

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F
from minigrad.kernels.cuda import pool as gpu
from minigrad.kernels.reference import pool as ref
from tests.cuda.device import dev, host, no_transfers

# (shape, kernel_size, stride, padding, dilation, ceil_mode): size-1 dims, odd sizes,
# non-square windows, overlap (stride < kernel), gaps (stride > kernel), padding,
# dilation and ceil-mode windows that run past the padding
CASES = [
    ((1, 2, 4, 4), (2, 2), (2, 2), (0, 0), (1, 1), False),
    ((2, 1, 5, 3), (3, 2), (1, 1), (1, 1), (1, 1), False),
    ((1, 2, 5, 4), (3, 3), (2, 2), (1, 1), (1, 1), True),
    ((1, 1, 6, 5), (2, 3), (3, 2), (1, 0), (2, 1), True),
    ((1, 1, 1, 7), (1, 3), (1, 2), (0, 1), (1, 2), False),
    ((1, 1, 1, 1), (1, 1), (1, 1), (0, 0), (1, 1), False),
]


def _rand(shape, seed, dtype):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape, kernel, stride, padding, dilation, ceil_mode", CASES)
def test_max_pool_kernels_match_reference(
    shape, kernel, stride, padding, dilation, ceil_mode, dtype
):
    x = _rand(shape, 0, dtype)
    y_ref, indices_ref = ref.max_pool2d_forward(x, kernel, stride, padding, dilation, ceil_mode)
    g = _rand(y_ref.shape, 1, dtype)
    x_d, g_d = dev(x), dev(g)
    with no_transfers():  # device arrays in, device arrays out
        y, indices = gpu.max_pool2d_forward(x_d, kernel, stride, padding, dilation, ceil_mode)
        grad_x = gpu.max_pool2d_backward(g_d, indices, x.shape)
    assert y.dtype == grad_x.dtype == dtype and indices.dtype == np.int64
    np.testing.assert_array_equal(host(y), y_ref)
    np.testing.assert_array_equal(host(indices), indices_ref)
    expected = ref.max_pool2d_backward(g, indices_ref, x.shape)
    np.testing.assert_allclose(host(grad_x), expected, rtol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape, kernel, stride, padding, _, ceil_mode", CASES)
@pytest.mark.parametrize(
    "count_include_pad, divisor_override", [(True, None), (False, None), (False, 3)]
)
def test_avg_pool_kernels_match_reference(
    shape, kernel, stride, padding, _, ceil_mode, count_include_pad, divisor_override, dtype
):
    args = (kernel, stride, padding, ceil_mode, count_include_pad, divisor_override)
    x = _rand(shape, 2, dtype)
    y_ref = ref.avg_pool2d_forward(x, *args)
    g = _rand(y_ref.shape, 3, dtype)
    x_d, g_d = dev(x), dev(g)
    with no_transfers():
        y = gpu.avg_pool2d_forward(x_d, *args)
        grad_x = gpu.avg_pool2d_backward(g_d, x.shape, *args)
    assert y.dtype == grad_x.dtype == dtype
    np.testing.assert_allclose(host(y), y_ref, rtol=1e-5, atol=1e-6)
    expected = ref.avg_pool2d_backward(g, x.shape, *args)
    np.testing.assert_allclose(host(grad_x), expected, rtol=1e-5, atol=1e-6)


def test_nan_and_minus_infinity_as_the_reference():
    x = np.array([[[[1.0, np.nan, 3.0, np.nan], [-np.inf, -np.inf, np.nan, 1.0]]]])
    for args in [((2, 2), (2, 2), (0, 0)), ((2, 2), (1, 1), (1, 1))]:
        y, indices = gpu.max_pool2d_forward(dev(x), *args, (1, 1), False)
        y_ref, indices_ref = ref.max_pool2d_forward(x, *args, (1, 1), False)
        np.testing.assert_array_equal(host(y), y_ref)
        np.testing.assert_array_equal(host(indices), indices_ref)


def test_a_nan_spoils_only_its_own_windows():
    x = _rand((1, 1, 4, 4), 5, np.float64)
    x[0, 0, 0, 0] = np.nan
    args = ((2, 2), (2, 2), (0, 0), False, True, None)
    y = host(gpu.avg_pool2d_forward(dev(x), *args))
    np.testing.assert_array_equal(np.isnan(y[0, 0]), [[True, False], [False, False]])
    np.testing.assert_allclose(y, ref.avg_pool2d_forward(x, *args))
    g = np.ones_like(y)
    g[0, 0, 0, 0] = np.nan
    grad_x = host(gpu.avg_pool2d_backward(dev(g), x.shape, *args))
    np.testing.assert_allclose(grad_x, ref.avg_pool2d_backward(g, x.shape, *args))


def test_empty_batch():
    x = dev(np.zeros((0, 2, 4, 4), dtype=np.float32))
    y, indices = gpu.max_pool2d_forward(x, (2, 2), (2, 2), (0, 0), (1, 1), False)
    assert host(y).shape == host(indices).shape == (0, 2, 2, 2)
    assert host(gpu.max_pool2d_backward(y, indices, x.shape)).shape == x.shape
    y = gpu.avg_pool2d_forward(x, (2, 2), (2, 2), (0, 0), False, True)
    grad_x = gpu.avg_pool2d_backward(y, x.shape, (2, 2), (2, 2), (0, 0), False, True)
    assert host(grad_x).shape == x.shape


def _pool_chain(device, backend, x):
    """Forward, first and second derivatives through the autograd Functions, on the host."""
    with mg.backends.use(backend):
        a = mg.tensor(x, requires_grad=True, device=device)
        with no_transfers() if device == "cuda" else contextlib.nullcontext():
            y = F.max_pool2d(a, 3, 1, 1) + F.avg_pool2d(a, 3, 1, 1, count_include_pad=False)
            (g,) = mg.autograd.grad((y**2).sum(), a, create_graph=True)
            g.sum().backward()
    assert y.device.type == g.device.type == a.grad.device.type == device
    return y.detach().cpu().numpy(), g.detach().cpu().numpy(), a.grad.cpu().numpy()


@pytest.mark.parametrize("backend", ["numba", "numpy"])
def test_the_ops_on_cuda_tensors_match_the_cpu(backend, monkeypatch):
    """The 'numba' backend launches the CUDA kernels on CUDA tensors (counted here); the
    'numpy' one runs the reference on the device. Both give the CPU's numbers."""
    x = _rand((2, 2, 5, 4), 4, np.float64)
    calls = []
    steps = ("forward", "backward")
    for name in [f"{kind}_pool2d_{step}" for kind in ("max", "avg") for step in steps]:
        kernel = getattr(gpu, name)
        monkeypatch.setattr(gpu, name, lambda *a, _k=kernel, _n=name: calls.append(_n) or _k(*a))
    expected = _pool_chain("cpu", "numpy", x)
    for mine, theirs in zip(_pool_chain("cuda", backend, x), expected):
        np.testing.assert_allclose(mine, theirs, rtol=1e-10, atol=1e-12)
    assert len(set(calls)) == (4 if backend == "numba" else 0), calls
