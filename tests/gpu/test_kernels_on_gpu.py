"""The @cuda.jit kernels called on CuPy arrays, as CUDA tensors' ops call them: results on
the device (no copy back), equal to the reference kernels run in NumPy on the host.

tests/cuda checks the same kernels on device arrays too (CuPy on a GPU, the simulator
elsewhere); here they run on a real GPU, the path training takes.
"""

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F
from minigrad.kernels.cuda import attention as gpu_attention
from minigrad.kernels.cuda import conv as gpu_conv
from minigrad.kernels.cuda import conv_direct
from minigrad.kernels.cuda import pool as gpu_pool
from minigrad.kernels.reference import attention as ref_attention
from minigrad.kernels.reference import conv as ref_conv
from minigrad.kernels.reference import pool as ref_pool


def _rand(shape, seed, dtype):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _tol(dtype):
    return dict(rtol=1e-10, atol=1e-10) if dtype == np.float64 else dict(rtol=1e-4, atol=1e-4)


def _check_on_device(gpu, result, expected, dtype, what):
    """`result` is a device array and equals `expected` (host) to rounding."""
    assert isinstance(result, gpu.ndarray), (
        f"{what}: the kernel returned {type(result).__name__}, not a GPU array"
    )
    np.testing.assert_allclose(gpu.asnumpy(result), expected, **_tol(dtype), err_msg=what)


@pytest.mark.parametrize("impl", [gpu_conv, conv_direct], ids=["im2col", "direct"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
def test_conv_kernels_on_device_arrays(dtype, impl, gpu):
    x, w, g = _rand((2, 4, 7, 6), 0, dtype), _rand((6, 2, 3, 3), 1, dtype), None
    args = ((2, 1), (1, 1), (1, 1), 2)  # stride, padding, dilation, groups
    y_ref = ref_conv.conv2d_forward(x, w, *args)
    g = _rand(y_ref.shape, 2, dtype)
    x_d, w_d, g_d = gpu.asarray(x), gpu.asarray(w), gpu.asarray(g)
    _check_on_device(gpu, impl.conv2d_forward(x_d, w_d, *args), y_ref, dtype, "conv2d_forward")
    b = _rand((6,), 3, dtype)
    y_b = impl.conv2d_forward(x_d, w_d, *args, bias=gpu.asarray(b))
    _check_on_device(gpu, y_b, y_ref + b.reshape(1, -1, 1, 1), dtype, "conv2d_forward + bias")
    _check_on_device(
        gpu,
        impl.conv2d_backward_input(g_d, w_d, x.shape, *args),
        ref_conv.conv2d_backward_input(g, w, x.shape, *args),
        dtype,
        "conv2d_backward_input",
    )
    _check_on_device(
        gpu,
        impl.conv2d_backward_weight(g_d, x_d, w.shape, *args),
        ref_conv.conv2d_backward_weight(g, x, w.shape, *args),
        dtype,
        "conv2d_backward_weight",
    )


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
def test_pool_kernels_on_device_arrays(dtype, gpu):
    x = _rand((2, 3, 7, 6), 0, dtype)
    y_ref, idx_ref = ref_pool.max_pool2d_forward(x, (3, 2), (2, 2), (1, 0), (1, 1), False)
    y, idx = gpu_pool.max_pool2d_forward(gpu.asarray(x), (3, 2), (2, 2), (1, 0), (1, 1), False)
    _check_on_device(gpu, y, y_ref, dtype, "max_pool2d_forward")
    assert isinstance(idx, gpu.ndarray) and np.array_equal(gpu.asnumpy(idx), idx_ref)
    g = _rand(y_ref.shape, 1, dtype)
    _check_on_device(
        gpu,
        gpu_pool.max_pool2d_backward(gpu.asarray(g), idx, x.shape),
        ref_pool.max_pool2d_backward(g, idx_ref, x.shape),
        dtype,
        "max_pool2d_backward",
    )
    # kernel, stride, padding, ceil_mode, count_include_pad
    args = ((3, 3), (2, 2), (1, 1), False, True)
    y_ref = ref_pool.avg_pool2d_forward(x, *args)
    _check_on_device(
        gpu, gpu_pool.avg_pool2d_forward(gpu.asarray(x), *args), y_ref, dtype, "avg_pool2d_forward"
    )
    g = _rand(y_ref.shape, 2, dtype)
    _check_on_device(
        gpu,
        gpu_pool.avg_pool2d_backward(gpu.asarray(g), x.shape, *args),
        ref_pool.avg_pool2d_backward(g, x.shape, *args),
        dtype,
        "avg_pool2d_backward",
    )


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("is_causal", [True, False], ids=["causal", "full"])
def test_attention_kernels_on_device_arrays(dtype, is_causal, gpu):
    q, k, v = _rand((3, 9, 8), 0, dtype), _rand((3, 9, 8), 1, dtype), _rand((3, 9, 8), 2, dtype)
    scale = 8**-0.5
    out_ref, lse_ref = ref_attention.attention_forward(q, k, v, scale, is_causal, None)
    q_d, k_d, v_d = gpu.asarray(q), gpu.asarray(k), gpu.asarray(v)
    out, lse = gpu_attention.attention_forward(q_d, k_d, v_d, scale, is_causal, None)
    _check_on_device(gpu, out, out_ref, dtype, "attention_forward out")
    _check_on_device(gpu, lse, lse_ref, dtype, "attention_forward lse")
    g = _rand(out_ref.shape, 3, dtype)
    grads = gpu_attention.attention_backward(
        gpu.asarray(g), q_d, k_d, v_d, out, lse, scale, is_causal, None
    )
    grads_ref = ref_attention.attention_backward(
        g, q, k, v, out_ref, lse_ref, scale, is_causal, None
    )
    for name, got, want in zip(("dq", "dk", "dv"), grads, grads_ref):
        _check_on_device(gpu, got, want, dtype, f"attention_backward {name}")


@pytest.mark.parametrize("backend", ["numba", "numpy"])
def test_conv_on_cuda_tensors_with_either_backend(backend, gpu):
    """On a CUDA tensor the 'numba' backend runs the @cuda.jit kernels and 'numpy' the
    reference through CuPy: both on the device, both equal to the CPU's result."""
    x, w = _rand((2, 3, 6, 6), 0, np.float64), _rand((4, 3, 3, 3), 1, np.float64)
    expected = F.conv2d(mg.tensor(x), mg.tensor(w), padding=1).numpy()
    with mg.backends.use(backend):
        y = F.conv2d(mg.tensor(x, device="cuda"), mg.tensor(w, device="cuda"), padding=1)
    assert y.device.type == "cuda"
    np.testing.assert_allclose(y.cpu().numpy(), expected, rtol=1e-10, atol=1e-10)
