"""Pooling: F.max_pool1d/2d, F.avg_pool1d/2d, F.adaptive_avg_pool2d and the layers.

- values, indices and input gradients against PyTorch (float64 and float32) on the
  NumPy reference and the Numba backend;
- the Numba kernels against the reference kernels on shapes and settings drawn by
  hypothesis (size-1 dims, primes, non-square, every stride/padding/dilation/ceil_mode
  combination PyTorch accepts);
- the reference against float64 finite differences, first and second derivatives;
- argument checks, layers (repr as PyTorch's, config), aliases.
The CUDA kernels are tested in tests/cuda/test_pool_cuda.py.
"""

import numpy as np
import pytest
import torch
import torch.nn.functional as TF
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F
from minigrad.kernels.cpu import pool as cpu
from minigrad.kernels.reference import pool as ref
from tests.helpers import assert_close, check_grads, rand

# The torch names whose behaviour this file checks against torch (read by tools/api_coverage.py).
TORCH_API = [
    "torch.nn.AdaptiveAvgPool2d",
    "torch.nn.AvgPool1d",
    "torch.nn.AvgPool2d",
    "torch.nn.MaxPool1d",
    "torch.nn.MaxPool2d",
    "torch.nn.functional.adaptive_avg_pool2d",
    "torch.nn.functional.avg_pool1d",
    "torch.nn.functional.avg_pool2d",
    "torch.nn.functional.max_pool1d",
    "torch.nn.functional.max_pool2d",
]

BACKENDS = ["numpy", "numba"]
HYPOTHESIS = settings(max_examples=100, deadline=None)


@pytest.fixture(scope="session", autouse=True)
def compiled_pool_kernels():
    """Compile (or load from Numba's cache) every CPU pooling kernel for both float
    dtypes once, so no test pays for it or times it."""
    if mg.backends.current() != "numba":
        # a run on the reference kernels (an exercise copy, minigrad.exercises): nothing to compile
        return
    for dtype in (np.float32, np.float64):
        x = np.ones((1, 1, 3, 3), dtype=dtype)
        y, indices = cpu.max_pool2d_forward(x, (2, 2), (1, 1), (0, 0), (1, 1), False)
        cpu.max_pool2d_backward(y, indices, x.shape)
        y = cpu.avg_pool2d_forward(x, (2, 2), (1, 1), (0, 0), False, True)
        cpu.avg_pool2d_backward(y, x.shape, (2, 2), (1, 1), (0, 0), False, True)


def against_torch(
    fn_mg, fn_torch, x, backend, dtype=np.float64, rtol=1e-6, atol=1e-8, square=False
):
    """Run both on the same x (float64 or float32); compare the outputs (and indices,
    if returned) and the input gradients for a random output gradient."""
    a = mg.tensor(x.astype(dtype), requires_grad=True)
    t = torch.tensor(x.astype(dtype), requires_grad=True)
    with mg.backends.use(backend):
        out = fn_mg(a)
        tout = fn_torch(t)
        if isinstance(tout, tuple):
            (out, indices), (tout, tindices) = out, tout
            assert indices.dtype == np.int64
            np.testing.assert_array_equal(indices.numpy(), tindices.numpy())
        assert out.dtype == dtype
        assert_close(out, tout, rtol=rtol, atol=atol)
        g = rand(*tout.shape, seed=7, dtype=dtype)
        if square:  # a loss that is not linear in y: its gradient depends on the values
            (out * out * mg.tensor(g)).sum().backward()
            (tout * tout * torch.tensor(g)).sum().backward()
        else:
            out.backward(mg.tensor(g))
            tout.backward(torch.tensor(g))
    assert a.grad.dtype == dtype
    assert_close(a.grad, t.grad, rtol=rtol, atol=atol)


# ---- PyTorch as the oracle ------------------------------------------------------------------
MAX_2D = [  # (input shape, keyword arguments)
    ((2, 3, 8, 8), dict(kernel_size=2)),
    ((2, 3, 7, 9), dict(kernel_size=3, stride=2, padding=1)),
    ((1, 2, 7, 5), dict(kernel_size=(3, 2), stride=(1, 2), padding=(1, 0))),
    ((2, 2, 9, 8), dict(kernel_size=3, stride=1, dilation=2, padding=1)),
    ((1, 2, 10, 7), dict(kernel_size=(2, 3), stride=(3, 2), dilation=(3, 1), padding=(1, 1))),
    ((2, 1, 6, 6), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
    ((1, 2, 5, 7), dict(kernel_size=2, stride=2, ceil_mode=True)),
    ((2, 3, 5, 5), dict(kernel_size=3, stride=1)),  # overlapping windows: scatter-add
    ((1, 1, 1, 1), dict(kernel_size=1)),
    ((1, 3, 1, 9), dict(kernel_size=(1, 4), stride=(1, 3), ceil_mode=True)),
    ((3, 4, 6), dict(kernel_size=2, stride=1, padding=1)),  # unbatched (C, H, W)
    ((0, 2, 4, 4), dict(kernel_size=2)),  # an empty batch
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("shape, kwargs", MAX_2D)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_max_pool2d_matches_torch(backend, shape, kwargs, dtype):
    x = rand(*shape, seed=1)
    tol = dict(rtol=1e-6, atol=1e-8) if dtype == np.float64 else dict(rtol=1e-5, atol=1e-6)
    against_torch(
        lambda a: F.max_pool2d(a, return_indices=True, **kwargs),
        lambda t: TF.max_pool2d(t, return_indices=True, **kwargs),
        x,
        backend,
        dtype,
        square=True,
        **tol,
    )


AVG_2D = [
    ((2, 3, 8, 8), dict(kernel_size=2)),
    ((2, 3, 7, 9), dict(kernel_size=3, stride=2, padding=1)),
    ((2, 3, 7, 9), dict(kernel_size=3, stride=2, padding=1, count_include_pad=False)),
    ((1, 2, 7, 5), dict(kernel_size=(3, 2), stride=(1, 2), padding=(1, 1))),
    # ceil-mode windows that run past the padding: the divisor stops at its end
    ((1, 2, 4, 4), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
    (
        (2, 1, 5, 6),
        dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
    ),
    ((1, 2, 6, 6), dict(kernel_size=2, stride=3, ceil_mode=True)),
    ((1, 2, 5, 7), dict(kernel_size=(2, 3), stride=(2, 1), padding=(1, 1), divisor_override=5)),
    ((1, 2, 5, 7), dict(kernel_size=3, padding=1, ceil_mode=True, divisor_override=-2)),
    ((2, 3, 5, 5), dict(kernel_size=3, stride=1)),
    ((1, 1, 1, 1), dict(kernel_size=1)),
    ((3, 4, 6), dict(kernel_size=2, stride=1, padding=1, count_include_pad=False)),
    ((0, 2, 4, 4), dict(kernel_size=2)),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("shape, kwargs", AVG_2D)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_avg_pool2d_matches_torch(backend, shape, kwargs, dtype):
    x = rand(*shape, seed=2)
    tol = dict(rtol=1e-6, atol=1e-8) if dtype == np.float64 else dict(rtol=1e-5, atol=1e-6)
    against_torch(
        lambda a: F.avg_pool2d(a, **kwargs),
        lambda t: TF.avg_pool2d(t, **kwargs),
        x,
        backend,
        dtype,
        **tol,
    )


ONE_D = [
    ((2, 3, 9), dict(kernel_size=2)),
    ((2, 3, 10), dict(kernel_size=3, stride=2, padding=1)),
    ((1, 2, 11), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
    ((3, 7), dict(kernel_size=2, stride=1)),  # unbatched (C, L)
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("shape, kwargs", ONE_D)
def test_pool1d_matches_torch(backend, shape, kwargs):
    x = rand(*shape, seed=3)
    against_torch(
        lambda a: F.max_pool1d(a, return_indices=True, **kwargs),
        lambda t: TF.max_pool1d(t, return_indices=True, **kwargs),
        x,
        backend,
        square=True,
    )
    against_torch(
        lambda a: F.max_pool1d(a, dilation=2, **kwargs),
        lambda t: TF.max_pool1d(t, dilation=2, **kwargs),
        x,
        backend,
    )
    for include in (True, False):
        against_torch(
            lambda a, include=include: F.avg_pool1d(a, count_include_pad=include, **kwargs),
            lambda t, include=include: TF.avg_pool1d(t, count_include_pad=include, **kwargs),
            x,
            backend,
        )


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "shape, output_size",
    [
        ((2, 3, 7, 9), (3, 4)),  # overlapping windows
        ((2, 3, 8, 6), (4, 3)),  # tiles: the pooling kernels
        ((2, 3, 7, 9), 1),  # global: the mean
        ((2, 3, 5, 7), (None, 3)),
        ((2, 3, 5, 7), (8, 9)),  # larger than the input: windows repeat
        ((3, 5, 7), 2),  # unbatched
    ],
)
def test_adaptive_avg_pool2d_matches_torch(backend, shape, output_size):
    x = rand(*shape, seed=4)
    against_torch(
        lambda a: F.adaptive_avg_pool2d(a, output_size),
        lambda t: TF.adaptive_avg_pool2d(t, output_size),
        x,
        backend,
        square=True,
    )


def test_adaptive_avg_pool2d_to_an_empty_output():
    # PyTorch allows it in forward (though its backward then refuses)
    x = rand(1, 2, 5, 7)
    assert (
        F.adaptive_avg_pool2d(mg.tensor(x), (0, 3)).shape
        == TF.adaptive_avg_pool2d(torch.tensor(x), (0, 3)).shape
    )


def test_max_pool_ties_nan_and_minus_infinity():
    # ties go to the first element; a window of -inf points to its first real element
    x = np.array([[[[1.0, 1.0, -np.inf], [1.0, 0.0, -np.inf], [-np.inf, -np.inf, -np.inf]]]])
    for backend in BACKENDS:
        with mg.backends.use(backend):
            y, i = F.max_pool2d(mg.tensor(x), 2, 1, 1, return_indices=True)
        ty, ti = TF.max_pool2d(torch.tensor(x), 2, 1, 1, return_indices=True)
        assert_close(y, ty)
        np.testing.assert_array_equal(i.numpy(), ti.numpy())
    # NaN propagates, and a window holding a NaN routes its gradient to it
    x = np.array([[[[1.0, np.nan, 3.0, 4.0], [0.0, 2.0, np.nan, 1.0]]]])
    for backend in BACKENDS:
        with mg.backends.use(backend):
            a = mg.tensor(x, requires_grad=True)
            y, i = F.max_pool2d(a, 2, return_indices=True)
            y.sum().backward()
        assert np.isnan(y.detach().numpy()).all()
        np.testing.assert_array_equal(i.numpy(), [[[[1, 6]]]])
        np.testing.assert_array_equal(a.grad.numpy(), [[[[0, 1, 0, 0], [0, 0, 1, 0]]]])


@pytest.mark.parametrize("backend", BACKENDS)
def test_float16_is_pooled_in_float32(backend):
    x = rand(2, 3, 6, 6, seed=5).astype(np.float16)
    with mg.backends.use(backend):
        a = mg.tensor(x, requires_grad=True)
        y = F.max_pool2d(a, 2, 1) + F.avg_pool2d(a, 2, 1)
        y.sum().backward()
    assert y.dtype == np.float16 and a.grad.dtype == np.float16
    t = torch.tensor(x.astype(np.float32), requires_grad=True)
    ty = TF.max_pool2d(t, 2, 1) + TF.avg_pool2d(t, 2, 1)
    ty.sum().backward()
    assert_close(y.float(), ty, rtol=1e-2, atol=1e-2)
    assert_close(a.grad.float(), t.grad, rtol=1e-2, atol=1e-2)


def test_the_three_kernel_modules_have_the_same_functions():
    import inspect

    from minigrad.kernels.cuda import pool as gpu  # importing compiles nothing, and needs no GPU

    for name in (
        "max_pool2d_forward",
        "max_pool2d_backward",
        "avg_pool2d_forward",
        "avg_pool2d_backward",
    ):
        signatures = {str(inspect.signature(getattr(module, name))) for module in (ref, cpu, gpu)}
        assert len(signatures) == 1, (name, signatures)


# ---- every backend against the reference, on drawn shapes -------------------------------------
@st.composite
def windows(draw, dilated):
    """A pooling problem PyTorch accepts: shape, kernel, stride, padding, dilation, ceil_mode."""
    n, c = draw(st.integers(1, 2)), draw(st.integers(1, 3))
    hw = tuple(draw(st.sampled_from([1, 2, 3, 5, 7, 8, 11])) for _ in range(2))
    kernel = tuple(draw(st.integers(1, 4)) for _ in range(2))
    stride = tuple(draw(st.integers(1, 4)) for _ in range(2))
    padding = tuple(draw(st.integers(0, k // 2)) for k in kernel)
    dilation = tuple(draw(st.integers(1, 3)) for _ in range(2)) if dilated else (1, 1)
    ceil_mode = draw(st.booleans())
    out = ref.pool_output_shape(hw, kernel, stride, padding, dilation, ceil_mode)
    assume(min(out) >= 1)
    try:  # the ops' own check: no window may hold padding only
        F.max_pool2d(mg.zeros(1, 1, *hw), kernel, stride, padding, dilation, ceil_mode)
    except ValueError:
        assume(False)
    return (n, c) + hw, kernel, stride, padding, dilation, ceil_mode


@HYPOTHESIS
@given(problem=windows(dilated=True), seed=st.integers(0, 2**16), float32=st.booleans())
def test_numba_max_pool_matches_reference(problem, seed, float32):
    shape, kernel, stride, padding, dilation, ceil_mode = problem
    dtype = np.float32 if float32 else np.float64
    x = rand(*shape, seed=seed, dtype=dtype)
    y, indices = cpu.max_pool2d_forward(x, kernel, stride, padding, dilation, ceil_mode)
    y_ref, indices_ref = ref.max_pool2d_forward(x, kernel, stride, padding, dilation, ceil_mode)
    assert y.dtype == dtype and indices.dtype == np.int64
    np.testing.assert_array_equal(y, y_ref)  # a max is exact
    np.testing.assert_array_equal(indices, indices_ref)
    g = rand(*y.shape, seed=seed + 1, dtype=dtype)
    np.testing.assert_allclose(
        cpu.max_pool2d_backward(g, indices, x.shape),
        ref.max_pool2d_backward(g, indices, x.shape),
        rtol=1e-6,
    )


@HYPOTHESIS
@given(
    problem=windows(dilated=False),
    seed=st.integers(0, 2**16),
    float32=st.booleans(),
    choice=st.integers(0, 3),
)
def test_numba_avg_pool_matches_reference(problem, seed, float32, choice):
    shape, kernel, stride, padding, _, ceil_mode = problem
    count_include_pad, divisor_override = [(True, None), (False, None), (True, 3), (False, -2)][
        choice
    ]
    args = (kernel, stride, padding, ceil_mode, count_include_pad, divisor_override)
    dtype = np.float32 if float32 else np.float64
    tol = dict(rtol=1e-5, atol=1e-6) if float32 else dict(rtol=1e-12, atol=1e-12)
    x = rand(*shape, seed=seed, dtype=dtype)
    y = cpu.avg_pool2d_forward(x, *args)
    assert y.dtype == dtype
    np.testing.assert_allclose(y, ref.avg_pool2d_forward(x, *args), **tol)
    g = rand(*y.shape, seed=seed + 1, dtype=dtype)
    grad_x = cpu.avg_pool2d_backward(g, x.shape, *args)
    assert grad_x.dtype == dtype
    np.testing.assert_allclose(grad_x, ref.avg_pool2d_backward(g, x.shape, *args), **tol)


def test_numba_input_gradients_own_their_memory():
    # a view would be copied by the autograd engine before it became x.grad: a whole
    # input's worth of memory, about 1 ms on benchmarks/bench_pool.py's batch
    x = rand(2, 3, 6, 6)
    y, indices = cpu.max_pool2d_forward(x, (2, 2), (2, 2), (0, 0), (1, 1), False)
    for grad_x in (
        cpu.max_pool2d_backward(y, indices, x.shape),
        cpu.avg_pool2d_backward(y, x.shape, (2, 2), (2, 2), (0, 0), False, True),
    ):
        assert grad_x.shape == x.shape and grad_x.base is None


@settings(max_examples=30, deadline=None)
@given(problem=windows(dilated=True), seed=st.integers(0, 2**16))
def test_reference_matches_torch_on_drawn_problems(problem, seed):
    shape, kernel, stride, padding, dilation, ceil_mode = problem
    x = rand(*shape, seed=seed)
    args = dict(kernel_size=kernel, stride=stride, padding=padding, ceil_mode=ceil_mode)
    against_torch(
        lambda a: F.max_pool2d(a, dilation=dilation, return_indices=True, **args),
        lambda t: TF.max_pool2d(t, dilation=dilation, return_indices=True, **args),
        x,
        "numpy",
        square=True,
    )
    against_torch(
        lambda a: F.avg_pool2d(a, count_include_pad=seed % 2 == 0, **args),
        lambda t: TF.avg_pool2d(t, count_include_pad=seed % 2 == 0, **args),
        x,
        "numpy",
    )


# ---- finite differences ---------------------------------------------------------------------
# the numpy case is the pooling exercise's test (tests/test_exercise_pool.py)
def test_gradients_against_finite_differences():
    x = rand(2, 2, 5, 6, seed=6)  # distinct values: no ties for the max to break
    with mg.backends.use("numba"):
        check_grads(
            lambda a: F.max_pool2d(a, 3, 2, 1, dilation=(1, 2), ceil_mode=True), x, second=True
        )
        check_grads(
            lambda a: F.avg_pool2d(a, 3, 2, 1, ceil_mode=True, count_include_pad=False),
            x,
            second=True,
        )
        check_grads(lambda a: F.adaptive_avg_pool2d(a, (3, 4)), x, second=True)
        check_grads(lambda a: F.max_pool1d(a.reshape(4, 6, 5), 2, 1, 1) ** 2, x)


def test_second_derivative_of_a_loss_through_pooling():
    """d/dx of (dL/dx . v) for L = sum(pool(x)^3) matches PyTorch's double backward."""
    x = rand(2, 2, 6, 6, seed=8)
    v = rand(2, 2, 6, 6, seed=9)
    for backend in BACKENDS:
        for pool, tpool in [
            (lambda a: F.max_pool2d(a, 3, 1, 1), lambda t: TF.max_pool2d(t, 3, 1, 1)),
            (
                lambda a: F.avg_pool2d(a, 3, 2, 1, ceil_mode=True),
                lambda t: TF.avg_pool2d(t, 3, 2, 1, ceil_mode=True),
            ),
        ]:
            a = mg.tensor(x, requires_grad=True)
            t = torch.tensor(x, requires_grad=True)
            with mg.backends.use(backend):
                (g,) = mg.autograd.grad((pool(a) ** 3).sum(), a, create_graph=True)
                (g * mg.tensor(v)).sum().backward()
            (tg,) = torch.autograd.grad((tpool(t) ** 3).sum(), t, create_graph=True)
            (tg * torch.tensor(v)).sum().backward()
            assert_close(g, tg)
            assert_close(a.grad, t.grad)


@pytest.mark.parametrize("forward_on, backward_on", [("numpy", "numba"), ("numba", "numpy")])
def test_backward_runs_on_the_backend_of_its_forward(forward_on, backward_on, monkeypatch):
    """A backend switched between forward and backward does not mix kernels: each
    Function keeps the kernel module its forward ran on (ctx.kernels), and so does the
    backward of its backward (create_graph=True)."""
    kernel_names = (
        "max_pool2d_forward",
        "max_pool2d_backward",
        "avg_pool2d_forward",
        "avg_pool2d_backward",
    )
    calls = []

    def spy(module, backend, name):
        kernel = getattr(module, name)

        def recorded(*args):
            calls.append((backend, name))
            return kernel(*args)

        monkeypatch.setattr(module, name, recorded)

    for backend, module in (("numpy", ref), ("numba", cpu)):
        for name in kernel_names:
            spy(module, backend, name)

    x = rand(1, 2, 6, 6, seed=13)
    for pool, tpool in [
        (lambda a: F.max_pool2d(a, 3, 2, 1), lambda t: TF.max_pool2d(t, 3, 2, 1)),
        (lambda a: F.avg_pool2d(a, 3, 2, 1), lambda t: TF.avg_pool2d(t, 3, 2, 1)),
    ]:
        a = mg.tensor(x, requires_grad=True)
        with mg.backends.use(forward_on):
            y = pool(a)
        with mg.backends.use(backward_on):
            (g,) = mg.autograd.grad((y**3).sum(), a, create_graph=True)
            (g * g).sum().backward()
        t = torch.tensor(x, requires_grad=True)
        (tg,) = torch.autograd.grad((tpool(t) ** 3).sum(), t, create_graph=True)
        (tg * tg).sum().backward()
        assert_close(g, tg)
        assert_close(a.grad, t.grad)

    assert {backend for backend, _ in calls} == {forward_on}, calls
    assert {name for _, name in calls} == set(kernel_names), calls  # every kernel took part


# ---- argument checks --------------------------------------------------------------------------
@pytest.mark.parametrize(
    "call, error, words",
    [
        (
            lambda x: F.max_pool2d(x, 0),
            ValueError,
            "max_pool2d: kernel_size must be greater than zero",
        ),
        (lambda x: F.max_pool2d(x, 2, stride=0), ValueError, "stride must be greater than zero"),
        (
            lambda x: F.max_pool2d(x, 2, dilation=(1, 0)),
            ValueError,
            "dilation must be greater than zero",
        ),
        (lambda x: F.max_pool2d(x, 3, padding=-1), ValueError, "padding must be non-negative"),
        (lambda x: F.max_pool2d(x, 3, padding=2), ValueError, "at most half of kernel_size"),
        (
            lambda x: F.avg_pool2d(x, (2, 3), padding=(1, 2)),
            ValueError,
            "avg_pool2d: padding must be at most half",
        ),
        # as PyTorch
        (lambda x: F.max_pool2d(x, 6), RuntimeError, "too small for kernel_size=(6, 6)"),
        (lambda x: F.max_pool2d(x, 3, dilation=3), RuntimeError, "too small"),
        (
            lambda x: F.max_pool2d(x[:, :, :, :2], (1, 2), 1, (0, 1), (1, 3)),
            ValueError,
            "holds only padding",
        ),
        (
            lambda x: F.max_pool2d(x, (2, 2, 2)),
            TypeError,
            "kernel_size must be an int or a tuple of 2 ints",
        ),
        (lambda x: F.max_pool2d(x, 2.0), TypeError, "kernel_size must be"),
        (
            lambda x: F.avg_pool2d(x, 2, divisor_override=0),
            ValueError,
            "divisor_override must not be zero",
        ),
        (
            lambda x: F.avg_pool2d(x, 2, divisor_override=1.5),
            TypeError,
            "divisor_override must be an int",
        ),
        (
            lambda x: F.max_pool2d(x[0, 0], 2),
            RuntimeError,
            "expected a 3-D (C, H, W) or 4-D (N, C, H, W) input",
        ),
        (
            lambda x: F.max_pool1d(x, 2),
            RuntimeError,
            "max_pool1d: expected a 2-D (C, L) or 3-D (N, C, L) input",
        ),
        (lambda x: F.avg_pool2d(x[:, :0], 2), RuntimeError, "non-zero channel and spatial sizes"),
        (
            lambda x: F.max_pool2d(x.long(), 2),
            TypeError,
            "max_pool2d: input must be floating point",
        ),
        (lambda x: F.max_pool2d(x.numpy(), 2), TypeError, "input must be a Tensor"),
        (
            lambda x: F.adaptive_avg_pool2d(x, (2, 2, 2)),
            TypeError,
            "output_size must be an int or a pair",
        ),
        (lambda x: F.adaptive_avg_pool2d(x, -1), ValueError, "output_size must be non-negative"),
        (
            lambda x: F.adaptive_avg_pool2d(x, (2, 1.5)),
            TypeError,
            "output_size must hold ints or None",
        ),
    ],
)
def test_bad_arguments_raise_clear_errors(call, error, words):
    x = mg.tensor(rand(1, 2, 4, 5))
    with pytest.raises(error) as info:
        call(x)
    assert words in str(info.value)


def test_pytorch_accepts_and_refuses_the_same_settings():
    """The checks above mirror PyTorch's: where one refuses, so does the other."""
    x = rand(1, 2, 4, 5)
    for kwargs in [
        dict(kernel_size=3, padding=2),
        dict(kernel_size=6),
        dict(kernel_size=2, stride=0),
    ]:
        with pytest.raises((ValueError, RuntimeError)):
            F.max_pool2d(mg.tensor(x), **kwargs)
        with pytest.raises(RuntimeError):
            TF.max_pool2d(torch.tensor(x), **kwargs)
    # and both accept this one
    TF.max_pool2d(torch.tensor(x), 3, padding=1, dilation=2, ceil_mode=True)
    F.max_pool2d(mg.tensor(x), 3, padding=1, dilation=2, ceil_mode=True)


# ---- layers -----------------------------------------------------------------------------------
LAYERS = [
    ("MaxPool1d", (3,), dict(stride=2, padding=1, return_indices=True)),
    ("MaxPool2d", (2,), {}),
    ("MaxPool2d", ((3, 2),), dict(stride=(2, 1), padding=1, dilation=(1, 2), ceil_mode=True)),
    ("AvgPool1d", (3,), dict(stride=2, padding=1, ceil_mode=True)),
    ("AvgPool2d", (2,), {}),
    ("AvgPool2d", ((3, 2),), dict(padding=(1, 0), count_include_pad=False, divisor_override=4)),
    ("AdaptiveAvgPool2d", ((None, 3),), {}),
    ("AdaptiveAvgPool2d", (2,), {}),
]


@pytest.mark.parametrize("name, args, kwargs", LAYERS)
def test_layers_match_torch(name, args, kwargs):
    layer, tlayer = getattr(nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)
    assert repr(layer) == repr(tlayer)
    x = rand(2, 3, 7, 6, seed=10) if name[-2] == "2" else rand(2, 3, 9, seed=10)
    out, tout = layer(mg.tensor(x)), tlayer(torch.tensor(x))
    if kwargs.get("return_indices"):
        np.testing.assert_array_equal(out[1].numpy(), tout[1].numpy())
        out, tout = out[0], tout[0]
    assert_close(out, tout)
    assert list(layer.parameters()) == [] and layer.state_dict() == {}
    clone = type(layer).from_config(layer.get_config())
    assert repr(clone) == repr(layer)


def test_global_avg_pool_and_aliases():
    x = rand(2, 3, 5, 4, seed=11)
    layer = nn.GlobalAvgPool2d()
    assert repr(layer) == "GlobalAvgPool2d()"
    a = mg.tensor(x, requires_grad=True)
    y = layer(a)
    assert y.shape == (2, 3, 1, 1)
    assert_close(y, torch.nn.AdaptiveAvgPool2d(1)(torch.tensor(x)))
    y.sum().backward()
    assert_close(a.grad, np.full(x.shape, 1 / 20))
    assert layer(mg.tensor(x[0])).shape == (3, 1, 1)
    assert (
        nn.MaxPool2D is nn.MaxPool2d
        and nn.AvgPool2D is nn.AvgPool2d
        and nn.GlobalAvgPool2D is nn.GlobalAvgPool2d
    )
    for name in ("max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d", "adaptive_avg_pool2d"):
        assert name in F.__all__


def test_layers_in_a_model_train():
    """A pooling layer inside a Sequential passes gradients to the weights before it."""
    mg.manual_seed(0)
    model = nn.Sequential(
        nn.Linear(4, 4), nn.Unflatten(1, (1, 2, 2)), nn.MaxPool2d(2, 1, 1), nn.AvgPool2D(2)
    )
    # the model's dtype: Linear does not promote
    x = mg.tensor(rand(3, 4, seed=12, dtype=np.float32))
    model(x).sum().backward()
    assert model[0].weight.grad is not None and np.abs(model[0].weight.grad.numpy()).sum() > 0
