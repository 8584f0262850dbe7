"""The CUDA convolution kernels, on device arrays, against the reference kernels, and
F.conv2d / F.conv_transpose2d through the autograd on CUDA tensors, on tiny shapes: on
Numba's simulator every GPU thread runs as Python (tests/cuda/conftest.py says how and
where these tests run). Both implementations are checked: `conv` (im2col kernels and
cuBLAS products, what the backends use) and `conv_direct` (the naive direct kernels).
The simulated blocks are 4 x 4 threads (direct) or 8 threads (im2col), so the shapes
below also put block boundaries inside the images."""

import contextlib

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F
from minigrad.kernels.cuda import conv as gpu
from minigrad.kernels.cuda import conv_direct
from minigrad.kernels.reference import conv as ref
from tests.cuda.device import dev, host, no_transfers

# (x shape, w shape, stride, padding, dilation, groups): size-1 dims, odd and
# non-square sizes, strides, padding, dilation, groups and depthwise, and a window
# too large for the shared-memory patch (the kernel without it)
CASES = [
    ((1, 2, 5, 4), (3, 2, 3, 2), (1, 1), (1, 0), (1, 1), 1),
    ((2, 4, 6, 5), (4, 2, 2, 3), (2, 1), (0, 1), (1, 2), 2),
    ((1, 3, 5, 5), (3, 1, 3, 3), (1, 1), (1, 1), (1, 1), 3),
    ((1, 1, 9, 3), (2, 1, 3, 1), (3, 1), (2, 0), (2, 1), 1),
    ((1, 4, 5, 7), (6, 2, 2, 3), (1, 2), (1, 1), (2, 1), 2),
    ((1, 1, 1, 1), (1, 1, 1, 1), (1, 1), (0, 0), (1, 1), 1),
]
IMPLEMENTATIONS = {"im2col": gpu, "direct": conv_direct}
_D = conv_direct.PATCH // 2  # a 3-tap window spanning 2 _D + 1 > PATCH rows
LARGE_PATCH = ((1, 1, 2 * _D + 2, 3), (1, 1, 3, 1), (1, 1), (0, 0), (_D, 1), 1)


def _rand(shape, seed, dtype):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _check(impl, xs, ws, stride, padding, dilation, groups, dtype, extra=(0, 0)):
    x, w = _rand(xs, 0, dtype), _rand(ws, 1, dtype)
    tol = dict(rtol=1e-10, atol=1e-10) if dtype == np.float64 else dict(rtol=1e-4, atol=1e-4)
    y_ref = ref.conv2d_forward(x, w, stride, padding, dilation, groups)
    g = _rand(y_ref.shape, 2, dtype)
    x_shape = xs[:2] + (xs[2] + extra[0], xs[3] + extra[1])  # as conv_transpose2d's output_padding
    x_d, w_d, g_d = dev(x), dev(w), dev(g)
    with no_transfers():  # device arrays in, device arrays out
        y = impl.conv2d_forward(x_d, w_d, stride, padding, dilation, groups)
        gx = impl.conv2d_backward_input(g_d, w_d, x_shape, stride, padding, dilation, groups)
        gw = impl.conv2d_backward_weight(g_d, x_d, ws, stride, padding, dilation, groups)
    assert y.dtype == gx.dtype == gw.dtype == dtype
    np.testing.assert_allclose(host(y), y_ref, **tol)
    b = _rand(ws[:1], 3, dtype)  # the bias, added by the forward to each channel's outputs
    b_d = dev(b)
    with no_transfers():
        y_b = impl.conv2d_forward(x_d, w_d, stride, padding, dilation, groups, bias=b_d)
    np.testing.assert_allclose(host(y_b), y_ref + b.reshape(1, -1, 1, 1), **tol)
    settings = (stride, padding, dilation, groups)
    np.testing.assert_allclose(host(gx), ref.conv2d_backward_input(g, w, x_shape, *settings), **tol)
    np.testing.assert_allclose(host(gw), ref.conv2d_backward_weight(g, x, ws, *settings), **tol)


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
@pytest.mark.parametrize("case", CASES + [LARGE_PATCH], ids=str)
def test_conv_kernels_match_reference(case, impl):
    _check(IMPLEMENTATIONS[impl], *case, np.float64)


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
@pytest.mark.parametrize("case", CASES[:2], ids=str)
def test_conv_kernels_match_reference_float32(case, impl):
    _check(IMPLEMENTATIONS[impl], *case, np.float32)


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_input_gradient_for_a_larger_input_shape(impl):
    """x_shape one row and column larger than the output needs (stride 2)."""
    case = ((1, 2, 5, 5), (2, 2, 3, 3), (2, 2), (1, 1), (1, 1), 1, np.float64)
    _check(IMPLEMENTATIONS[impl], *case, extra=(1, 1))


def _conv_chain(device, backend, x, w, b):
    """z = conv_transpose2d(conv2d(x, w, b), w) on `device`, and its gradients, on the host."""
    with mg.backends.use(backend):
        leaves = [mg.tensor(a, requires_grad=True, device=device) for a in (x, w, b)]
        with no_transfers() if device == "cuda" else contextlib.nullcontext():
            y = F.conv2d(leaves[0], leaves[1], leaves[2], stride=(2, 1), padding=1)
            z = F.conv_transpose2d(y, leaves[1], stride=2, output_padding=1)
            (z * z).sum().backward()
    assert z.device.type == device
    return [z.detach().cpu().numpy()] + [t.grad.cpu().numpy() for t in leaves]


@pytest.mark.parametrize("backend", ["numba", "numpy"])
def test_functions_on_cuda_tensors_match_the_cpu(backend, monkeypatch):
    """On CUDA tensors the 'numba' backend launches the CUDA kernels (counted here), the
    'numpy' one runs the reference on the device; both give the CPU's numbers."""
    x, w = _rand((1, 2, 5, 4), 0, np.float64), _rand((2, 2, 2, 2), 1, np.float64)
    b = _rand((2,), 2, np.float64)
    calls = []
    for name in ("conv2d_forward", "conv2d_backward_input", "conv2d_backward_weight"):
        kernel = getattr(gpu, name)
        monkeypatch.setattr(
            gpu, name, lambda *a, _k=kernel, _n=name, **kw: calls.append(_n) or _k(*a, **kw)
        )
    expected = _conv_chain("cpu", "numpy", x, w, b)
    for mine, theirs in zip(_conv_chain("cuda", backend, x, w, b), expected):
        np.testing.assert_allclose(mine, theirs, rtol=1e-10, atol=1e-10)
    assert len(set(calls)) == (3 if backend == "numba" else 0), calls


def test_the_cuda_backend_on_cpu_tensors_is_a_demonstration(monkeypatch):
    """mg.backends.use("cuda") on CPU tensors: the CUDA kernels on host arrays (Numba copies
    them to the GPU and back around each launch), CPU tensors out, the reference's numbers."""
    x, w = _rand((1, 2, 5, 4), 0, np.float64), _rand((2, 2, 2, 2), 1, np.float64)
    b = _rand((2,), 2, np.float64)
    calls = []
    kernel = gpu.conv2d_forward
    monkeypatch.setattr(
        gpu, "conv2d_forward", lambda *a, **kw: calls.append(type(a[0])) or kernel(*a, **kw)
    )
    expected = _conv_chain("cpu", "numpy", x, w, b)
    for mine, theirs in zip(_conv_chain("cpu", "cuda", x, w, b), expected):
        np.testing.assert_allclose(mine, theirs, rtol=1e-10, atol=1e-10)
    assert calls and all(t is np.ndarray for t in calls)
