"""The CUDA convolution kernels against the reference kernels, and F.conv2d /
F.conv_transpose2d through the autograd on the 'cuda' backend, on tiny shapes: on
Numba's simulator every GPU thread runs as Python (tests/cuda/conftest.py says how and
where these tests run). The simulated blocks are 4 x 4 threads, so the shapes below
also put tile boundaries inside the images."""

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F
from minigrad.kernels.cuda import conv as gpu
from minigrad.kernels.reference import conv as ref

# (x shape, w shape, stride, padding, dilation, groups): size-1 dims, odd and
# non-square sizes, strides, padding, dilation, groups and depthwise, and a window
# too large for the shared-memory patch (the kernel without it)
CASES = [
    ((1, 2, 5, 4), (3, 2, 3, 2), (1, 1), (1, 0), (1, 1), 1),
    ((2, 4, 6, 5), (4, 2, 2, 3), (2, 1), (0, 1), (1, 2), 2),
    ((1, 3, 5, 5), (3, 1, 3, 3), (1, 1), (1, 1), (1, 1), 3),
    ((1, 1, 9, 3), (2, 1, 3, 1), (3, 1), (2, 0), (2, 1), 1),
    ((1, 1, 1, 1), (1, 1, 1, 1), (1, 1), (0, 0), (1, 1), 1),
]
_D = gpu.PATCH // 2  # a 3-tap window spanning 2 _D + 1 > PATCH rows
LARGE_PATCH = ((1, 1, 2 * _D + 2, 3), (1, 1, 3, 1), (1, 1), (0, 0), (_D, 1), 1)


def _rand(shape, seed, dtype):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _check(xs, ws, stride, padding, dilation, groups, dtype, extra=(0, 0)):
    x, w = _rand(xs, 0, dtype), _rand(ws, 1, dtype)
    tol = dict(rtol=1e-10, atol=1e-10) if dtype == np.float64 else dict(rtol=1e-4, atol=1e-4)
    y = gpu.conv2d_forward(x, w, stride, padding, dilation, groups)
    y_ref = ref.conv2d_forward(x, w, stride, padding, dilation, groups)
    assert y.dtype == dtype
    np.testing.assert_allclose(y, y_ref, **tol)
    g = _rand(y_ref.shape, 2, dtype)
    x_shape = xs[:2] + (xs[2] + extra[0], xs[3] + extra[1])  # as conv_transpose2d's output_padding
    np.testing.assert_allclose(
        gpu.conv2d_backward_input(g, w, x_shape, stride, padding, dilation, groups),
        ref.conv2d_backward_input(g, w, x_shape, stride, padding, dilation, groups),
        **tol,
    )
    np.testing.assert_allclose(
        gpu.conv2d_backward_weight(g, x, ws, stride, padding, dilation, groups),
        ref.conv2d_backward_weight(g, x, ws, stride, padding, dilation, groups),
        **tol,
    )


@pytest.mark.parametrize("case", CASES + [LARGE_PATCH], ids=str)
def test_conv_kernels_match_reference(case):
    _check(*case, np.float64)


@pytest.mark.parametrize("case", CASES[:2], ids=str)
def test_conv_kernels_match_reference_float32(case):
    _check(*case, np.float32)


def test_input_gradient_for_a_larger_input_shape():
    """x_shape one row and column larger than the output needs (stride 2)."""
    _check((1, 2, 5, 5), (2, 2, 3, 3), (2, 2), (1, 1), (1, 1), 1, np.float64, extra=(1, 1))


def test_functions_on_the_cuda_backend():
    x, w, b = (
        _rand((1, 2, 5, 4), 0, np.float64),
        _rand((2, 2, 2, 2), 1, np.float64),
        _rand((2,), 2, np.float64),
    )
    results = {}
    for backend in ("numpy", "cuda"):
        with mg.backends.use(backend):
            leaves = [mg.tensor(a, requires_grad=True) for a in (x, w, b)]
            y = F.conv2d(leaves[0], leaves[1], leaves[2], stride=(2, 1), padding=1)
            z = F.conv_transpose2d(y, leaves[1], stride=2, output_padding=1)
            z.sum().backward()
            results[backend] = [z.detach().numpy()] + [t.grad.numpy() for t in leaves]
    for mine, theirs in zip(results["cuda"], results["numpy"]):
        np.testing.assert_allclose(mine, theirs, rtol=1e-10, atol=1e-10)
