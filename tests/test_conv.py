"""Convolution (issue #4): conv1d, conv2d, conv_transpose2d and their layers.

- the functional forms against PyTorch in float64 and float32 (values and the
  gradients of input, weight and bias), on the NumPy and the Numba backend;
- float64 finite-difference gradchecks and gradgradchecks of the reference path;
- the Numba kernels against the reference kernels on shapes drawn by hypothesis, and
  on fixed shapes through each of the two Numba designs (tiled product, direct loop);
- the layers: parameter shapes, PyTorch state dicts, default initialisation, repr,
  padding modes, aliases, init_weights; and the errors.
"""

import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as TF
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F
import minigrad.optim as optim
from minigrad.kernels.cpu import conv as cpu
from minigrad.kernels.reference import conv as ref
from tests.helpers import assert_close, rand

# The torch names whose behaviour this file checks against torch (read by tools/api_coverage.py).
TORCH_API = [
    "torch.nn.Conv1d",
    "torch.nn.Conv2d",
    "torch.nn.ConvTranspose2d",
    "torch.nn.functional.conv1d",
    "torch.nn.functional.conv2d",
    "torch.nn.functional.conv_transpose2d",
]

BACKENDS = ["numpy", "numba"]
# PyTorch warns that it copies the input for an uneven padding="same"; so do we
pytestmark = pytest.mark.filterwarnings("ignore:Using padding=.same. with even kernel")


@pytest.fixture(scope="session", autouse=True)
def warm_numba_kernels():
    """Compile (or load from the on-disk cache) every Numba conv kernel once, in both
    dtypes and through both designs, so that no test's time is mostly compilation."""
    if mg.backends.current() != "numba":
        # a run on the reference kernels (an exercise copy, minigrad.exercises): nothing to compile
        return
    for dtype in (np.float32, np.float64):
        # the direct loop; the tiled product; and its input gradient for a stride of 2
        for c, o in ((1, 1), (8, 8), (8, 32)):
            x = np.ones((1, c, 5, 5), dtype)
            w = np.ones((o, c, 3, 3), dtype)
            for stride in ((1, 1), (2, 2)):
                y = cpu.conv2d_forward(x, w, stride, (1, 1), (1, 1), 1)
                cpu.conv2d_backward_input(y, w, x.shape, stride, (1, 1), (1, 1), 1)
                cpu.conv2d_backward_weight(y, x, w.shape, stride, (1, 1), (1, 1), 1)


def torch_leaves(arrays, dtype):
    return [torch.tensor(a.astype(dtype), requires_grad=True) for a in arrays]


def mg_leaves(arrays, dtype):
    return [mg.tensor(a.astype(dtype), requires_grad=True) for a in arrays]


def compare_with_torch(mine, theirs, arrays, dtype=np.float64, backend="numba"):
    """Run both on the same arrays (None entries are passed through as None); compare
    the outputs and the gradients of every array for a random output gradient."""
    tol = dict(rtol=1e-7, atol=1e-9) if dtype == np.float64 else dict(rtol=2e-4, atol=2e-4)
    present = [a for a in arrays if a is not None]
    xs, ts = iter(mg_leaves(present, dtype)), iter(torch_leaves(present, dtype))
    mine_args = [None if a is None else next(xs) for a in arrays]
    torch_args = [None if a is None else next(ts) for a in arrays]
    with mg.backends.use(backend):
        out = mine(*mine_args)
        tout = theirs(*torch_args)
        assert out.dtype == np.dtype(dtype)
        assert_close(out, tout, **tol)
        g = rand(*tout.shape, seed=7).astype(dtype)
        out.backward(mg.tensor(g))
    tout.backward(torch.tensor(g))
    for x, t in zip(mine_args, torch_args):
        if t is not None:
            assert_close(x.grad, t.grad, **tol)


# ---- conv2d against PyTorch ----------------------------------------------------------------
# (x shape, w shape, with bias, keyword arguments)
CONV2D_CASES = [
    ((2, 3, 7, 6), (4, 3, 3, 3), True, {}),
    ((1, 2, 5, 8), (3, 2, 2, 3), True, dict(stride=(2, 1), padding=(1, 2))),
    ((2, 4, 9, 7), (6, 2, 3, 2), False, dict(stride=2, padding=1, dilation=(2, 1), groups=2)),
    ((3, 6, 5, 5), (6, 1, 3, 3), True, dict(padding=1, groups=6)),  # depthwise
    ((2, 1, 11, 4), (5, 1, 5, 1), True, dict(stride=(3, 1), padding=(2, 0), dilation=(2, 1))),
    ((1, 3, 6, 7), (2, 3, 4, 2), True, dict(padding="same")),  # even kernel: uneven padding
    ((1, 2, 6, 7), (3, 2, 3, 2), True, dict(padding="same", dilation=(2, 3))),
    ((2, 2, 5, 4), (3, 2, 3, 3), True, dict(padding="valid")),
    ((3, 5, 4), (2, 3, 3, 2), True, dict(padding=(1, 0))),  # unbatched
    ((1, 8, 6, 6), (8, 8, 3, 3), True, dict(padding=1)),  # big enough for the tiled product
    ((2, 8, 7, 5), (12, 4, 2, 3), True, dict(stride=(1, 2), groups=2, padding=(0, 1))),
    ((1, 1, 1, 1), (1, 1, 1, 1), True, {}),
    ((1, 2, 3, 3), (2, 2, 3, 3), True, dict(padding=4)),  # padding larger than the kernel
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("xs,ws,bias,kwargs", CONV2D_CASES, ids=str)
def test_conv2d_matches_torch(xs, ws, bias, kwargs, backend):
    arrays = [rand(*xs, seed=1), rand(*ws, seed=2), rand(ws[0], seed=3) if bias else None]
    compare_with_torch(
        lambda x, w, b: F.conv2d(x, w, b, **kwargs),
        lambda x, w, b: TF.conv2d(x, w, b, **kwargs),
        arrays,
        backend=backend,
    )


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("xs,ws,bias,kwargs", CONV2D_CASES[:6] + CONV2D_CASES[9:11], ids=str)
def test_conv2d_matches_torch_float32(xs, ws, bias, kwargs, backend):
    arrays = [rand(*xs, seed=1), rand(*ws, seed=2), rand(ws[0], seed=3) if bias else None]
    compare_with_torch(
        lambda x, w, b: F.conv2d(x, w, b, **kwargs),
        lambda x, w, b: TF.conv2d(x, w, b, **kwargs),
        arrays,
        dtype=np.float32,
        backend=backend,
    )


# ---- conv1d and conv_transpose2d against PyTorch ------------------------------------------
CONV1D_CASES = [
    ((2, 3, 9), (4, 3, 3), True, {}),
    ((1, 4, 10), (6, 2, 4), False, dict(stride=3, padding=2, dilation=2, groups=2)),
    ((2, 2, 8), (3, 2, 4), True, dict(padding="same")),
    ((3, 7), (2, 3, 2), True, dict(padding=1)),  # unbatched
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("xs,ws,bias,kwargs", CONV1D_CASES, ids=str)
def test_conv1d_matches_torch(xs, ws, bias, kwargs, backend):
    arrays = [rand(*xs, seed=1), rand(*ws, seed=2), rand(ws[0], seed=3) if bias else None]
    compare_with_torch(
        lambda x, w, b: F.conv1d(x, w, b, **kwargs),
        lambda x, w, b: TF.conv1d(x, w, b, **kwargs),
        arrays,
        backend=backend,
    )


# (x shape, w shape (C_in, C_out / groups, kH, kW), with bias, keyword arguments)
CONV_TRANSPOSE_CASES = [
    ((2, 3, 4, 5), (3, 2, 3, 3), True, {}),
    ((1, 4, 3, 4), (4, 3, 3, 2), True, dict(stride=2, padding=1, output_padding=1, groups=2)),
    ((2, 2, 5, 3), (2, 3, 2, 3), False, dict(stride=(3, 1), padding=(0, 1), output_padding=(2, 0))),
    # output_padding < dilation
    ((1, 2, 4, 4), (2, 2, 3, 3), True, dict(dilation=2, padding=2, output_padding=1)),
    ((3, 4, 4), (3, 2, 2, 2), True, dict(stride=2)),  # unbatched
    ((1, 8, 5, 5), (8, 8, 3, 3), True, dict(padding=1)),  # through the tiled product
    ((2, 8, 4, 3), (8, 4, 3, 2), True, dict(stride=2, padding=(1, 0), output_padding=(1, 1))),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("xs,ws,bias,kwargs", CONV_TRANSPOSE_CASES, ids=str)
def test_conv_transpose2d_matches_torch(xs, ws, bias, kwargs, backend):
    arrays = [
        rand(*xs, seed=1),
        rand(*ws, seed=2),
        rand(ws[1] * kwargs.get("groups", 1), seed=3) if bias else None,
    ]
    compare_with_torch(
        lambda x, w, b: F.conv_transpose2d(x, w, b, **kwargs),
        lambda x, w, b: TF.conv_transpose2d(x, w, b, **kwargs),
        arrays,
        backend=backend,
    )


@pytest.mark.parametrize("xs,ws,bias,kwargs", CONV_TRANSPOSE_CASES[:3], ids=str)
def test_conv_transpose2d_matches_torch_float32(xs, ws, bias, kwargs):
    arrays = [
        rand(*xs, seed=1),
        rand(*ws, seed=2),
        rand(ws[1] * kwargs.get("groups", 1), seed=3) if bias else None,
    ]
    compare_with_torch(
        lambda x, w, b: F.conv_transpose2d(x, w, b, **kwargs),
        lambda x, w, b: TF.conv_transpose2d(x, w, b, **kwargs),
        arrays,
        dtype=np.float32,
    )


def test_conv_transpose2d_is_the_input_gradient_of_conv2d():
    """The adjoint identity sum(T(g, w) * x) = sum(g * C(x, w)) that makes T the gradient."""
    x, w, g = rand(2, 4, 7, 6, seed=1), rand(6, 2, 3, 3, seed=2), rand(2, 6, 3, 6, seed=3)
    kwargs = dict(stride=(2, 1), padding=(0, 1), groups=2)
    y = F.conv2d(mg.tensor(x), mg.tensor(w), **kwargs)
    z = F.conv_transpose2d(mg.tensor(g), mg.tensor(w), **kwargs, output_padding=(0, 0))
    assert z.shape[2:] == (7, 6)
    assert math.isclose(float((z.array * x).sum()), float((g * y.array).sum()), rel_tol=1e-10)


# ---- one int-tuple rule: a tuple of one value stands for every spatial dim ------------------
ONE_VALUE_TUPLES = [
    (
        F.conv2d,
        TF.conv2d,
        (1, 2, 7, 6),
        (3, 2, 3, 3),
        dict(stride=(2,), padding=(1,), dilation=(2,)),
    ),
    (F.conv1d, TF.conv1d, (1, 2, 9), (3, 2, 3), dict(stride=(2,), padding=(1,), dilation=(2,))),
    (
        F.conv_transpose2d,
        TF.conv_transpose2d,
        (1, 2, 4, 3),
        (2, 3, 3, 3),
        dict(stride=(2,), output_padding=(1,)),
    ),
]


@pytest.mark.parametrize(
    "mine,theirs,xs,ws,kwargs", ONE_VALUE_TUPLES, ids=lambda v: getattr(v, "__name__", str(v))
)
def test_a_tuple_of_one_value_is_accepted_as_in_torch(mine, theirs, xs, ws, kwargs):
    """stride=(2,) means 2 in every spatial dim, as in PyTorch and in F.max_pool2d."""
    out_channels = ws[1] if mine is F.conv_transpose2d else ws[0]
    arrays = [rand(*xs, seed=1), rand(*ws, seed=2), rand(out_channels, seed=3)]
    compare_with_torch(
        lambda x, w, b: mine(x, w, b, **kwargs),
        lambda x, w, b: theirs(x, w, b, **kwargs),
        arrays,
        backend="numpy",
    )


# ---- forward and backward on one backend ---------------------------------------------------
@pytest.mark.parametrize("switch_to", ["numba", "numpy"])
def test_backward_runs_on_the_backend_of_the_forward(switch_to, monkeypatch):
    """A backend chosen between forward and backward (and the second backward) does not
    change the kernels the backward runs on: they are the forward's."""
    forward_backend = "numpy" if switch_to == "numba" else "numba"
    used = []
    for backend in BACKENDS:
        module = mg.backends.kernels("conv", backend)
        for name in ("conv2d_forward", "conv2d_backward_input", "conv2d_backward_weight"):
            kernel = getattr(module, name)
            monkeypatch.setattr(
                module,
                name,
                lambda *a, _k=kernel, _n=name, _b=backend, **kw: (
                    used.append((_b, _n)) or _k(*a, **kw)
                ),
            )
    x = mg.tensor(rand(1, 2, 5, 5, seed=1), requires_grad=True)
    w = mg.tensor(rand(3, 2, 3, 3, seed=2), requires_grad=True)
    with mg.backends.use(forward_backend):
        y = F.conv2d(x, w, stride=2, padding=1)
    with mg.backends.use(switch_to):
        (gw,) = mg.autograd.grad(y.square().sum(), w, create_graph=True)
        (gw * gw).sum().backward()
    names = {name for _, name in used}
    assert names == {"conv2d_forward", "conv2d_backward_input", "conv2d_backward_weight"}
    assert {backend for backend, _ in used} == {forward_backend}, used


# the finite-difference checks of the reference path are the convolution exercise's
# (tests/test_exercise_conv.py)


def test_bias_gradient_of_a_long_float32_sum():
    """2^20 float32 numbers per channel: the kernel's sum keeps within float32's rounding
    of the exact one (a plain running float32 sum of as many 0.1s is off by about 1%)."""
    gy = np.full((64, 2, 128, 128), 0.1, dtype=np.float32)
    gy[:, 1] = np.random.default_rng(0).standard_normal((64, 128, 128), dtype=np.float32)
    exact = gy.astype(np.float64).sum(axis=(0, 2, 3))
    np.testing.assert_allclose(cpu.conv2d_backward_bias(gy), exact, rtol=1e-6, atol=1e-3)


@pytest.mark.parametrize("backend", BACKENDS)
def test_bias_gradient_function_against_finite_differences(backend):
    """BiasGrad, the bias gradient as an op of its own (the sum of g over the batch and the
    positions), and its own gradient, in float64 on each backend's kernel."""
    from minigrad.ops.conv import BiasGrad
    from tests.finite_differences import check_grads

    kernels = mg.backends.kernels("conv", backend)
    v = rand(3, seed=6)  # a weight per channel, so that the sum's gradient is not all ones
    check_grads(
        lambda g: (BiasGrad.apply(g, kernels=kernels) * mg.tensor(v)).square().sum(),
        rand(2, 3, 4, 5, seed=5),
        second=True,
    )


@pytest.mark.parametrize("backend", BACKENDS)
def test_second_derivatives_through_the_bias_gradient_match_torch(backend):
    """d/dx and d/dw of sum(dL/db * v): the bias gradient is itself differentiable."""
    x, w, b, v = (
        rand(2, 2, 5, 5, seed=1),
        rand(3, 2, 3, 3, seed=2),
        rand(3, seed=3),
        rand(3, seed=4),
    )
    mine = [mg.tensor(a, requires_grad=True) for a in (x, w, b)]
    theirs = [torch.tensor(a, requires_grad=True) for a in (x, w, b)]
    with mg.backends.use(backend):
        (gb,) = mg.autograd.grad(
            F.conv2d(*mine, padding=1).square().sum(), mine[2], create_graph=True
        )
        (gb * mg.tensor(v)).sum().backward()
    (gbt,) = torch.autograd.grad(
        TF.conv2d(*theirs, padding=1).square().sum(), theirs[2], create_graph=True
    )
    (gbt * torch.tensor(v)).sum().backward()
    assert_close(gb, gbt, rtol=1e-9, atol=1e-10)
    for m, t in zip(mine[:2], theirs[:2]):
        assert_close(m.grad, t.grad, rtol=1e-9, atol=1e-10)


def test_second_derivatives_match_torch():
    """d/dx of sum(dL/dw * v) (a Hessian-vector product through conv2d's weight gradient)."""
    x, w, v = rand(1, 2, 5, 5, seed=1), rand(3, 2, 3, 3, seed=2), rand(3, 2, 3, 3, seed=4)
    xm, wm = mg.tensor(x, requires_grad=True), mg.tensor(w, requires_grad=True)
    xt, wt = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
    (gw,) = mg.autograd.grad(
        F.conv2d(xm, wm, stride=2, padding=1).square().sum(), wm, create_graph=True
    )
    (gwt,) = torch.autograd.grad(
        TF.conv2d(xt, wt, stride=2, padding=1).square().sum(), wt, create_graph=True
    )
    (gx,) = mg.autograd.grad((gw * mg.tensor(v)).sum(), xm)
    (gxt,) = torch.autograd.grad((gwt * torch.tensor(v)).sum(), xt)
    assert_close(gx, gxt, rtol=1e-9, atol=1e-10)


# ---- the Numba kernels against the reference ----------------------------------------------
def kernel_case(draw_or_values):
    """x, w and a grad_y for a case (n, groups, c/g, o/g, h, w, kh, kw, stride, padding,
    dilation)."""
    n, g, cg, og, h, width, kh, kw, s, p, d = draw_or_values
    x = rand(n, g * cg, h, width, seed=1)
    w = rand(g * og, cg, kh, kw, seed=2)
    ho = ref.conv_output_size(h, kh, s[0], p[0], d[0])
    wo = ref.conv_output_size(width, kw, s[1], p[1], d[1])
    gy = rand(n, g * og, ho, wo, seed=3)
    return x, w, gy


def check_kernels_agree(case, dtype, extra_rows=(0, 0)):
    """Forward, input and weight gradient of the Numba kernels against the reference.
    extra_rows grows x_shape as conv_transpose2d's output_padding does."""
    n, g, cg, og, h, width, kh, kw, s, p, d = case
    x, w, gy = (a.astype(dtype) for a in kernel_case(case))
    x_shape = (n, g * cg, h + extra_rows[0], width + extra_rows[1])
    tol = dict(rtol=1e-9, atol=1e-9) if dtype == np.float64 else dict(rtol=3e-4, atol=3e-4)
    y = cpu.conv2d_forward(x, w, s, p, d, g)
    assert y.dtype == dtype
    y_ref = ref.conv2d_forward(x, w, s, p, d, g)
    np.testing.assert_allclose(y, y_ref, **tol)
    # the bias, which both add to every position of its channel as they write y
    b = rand(w.shape[0], seed=4).astype(dtype)
    with_bias = y_ref + b.reshape(1, -1, 1, 1)
    np.testing.assert_allclose(cpu.conv2d_forward(x, w, s, p, d, g, bias=b), with_bias, **tol)
    np.testing.assert_allclose(ref.conv2d_forward(x, w, s, p, d, g, bias=b), with_bias, **tol)
    # the bias gradient: grad_y summed over the images and the positions
    gb = cpu.conv2d_backward_bias(gy)
    assert gb.shape == (w.shape[0],) and gb.dtype == dtype
    np.testing.assert_allclose(gb, gy.astype(np.float64).sum(axis=(0, 2, 3)), **tol)
    gx = cpu.conv2d_backward_input(gy, w, x_shape, s, p, d, g)
    assert gx.shape == x_shape and gx.dtype == dtype
    np.testing.assert_allclose(gx, ref.conv2d_backward_input(gy, w, x_shape, s, p, d, g), **tol)
    big_x = np.zeros(x_shape, dtype)
    big_x[:, :, :h, :width] = x
    gw = cpu.conv2d_backward_weight(gy, big_x, w.shape, s, p, d, g)
    assert gw.shape == w.shape and gw.dtype == dtype
    np.testing.assert_allclose(
        gw, ref.conv2d_backward_weight(gy, big_x, w.shape, s, p, d, g), **tol
    )


pairs = st.tuples(st.integers(1, 3), st.integers(1, 3))


@st.composite
def conv_cases(draw):
    """A convolution PyTorch accepts: any sizes, the output at least 1 x 1."""
    n = draw(st.sampled_from([1, 2, 3]))
    g = draw(st.sampled_from([1, 2, 3]))
    cg, og = draw(st.sampled_from([1, 2, 5])), draw(st.sampled_from([1, 3, 4, 7]))
    h, width = draw(st.integers(1, 11)), draw(st.integers(1, 11))
    kh, kw = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    s, d = draw(pairs), draw(pairs)
    p = (draw(st.integers(0, kh)), draw(st.integers(0, kw)))
    case = (n, g, cg, og, h, width, kh, kw, s, p, d)
    assume(
        all(
            ref.conv_output_size(*a) >= 1
            for a in ((h, kh, s[0], p[0], d[0]), (width, kw, s[1], p[1], d[1]))
        )
    )
    return case


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(case=conv_cases(), dtype=st.sampled_from([np.float64, np.float32]), grow=st.booleans())
def test_numba_kernels_match_reference(case, dtype, grow):
    s, d = case[8], case[10]
    # x_shape may be up to max(stride, dilation) - 1 larger and still give the same output
    extra = tuple(max(si, di) - 1 for si, di in zip(s, d)) if grow else (0, 0)
    check_kernels_agree(case, dtype, extra)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(case=conv_cases(), grow=st.booleans(), stack=st.booleans(), nhwc=st.booleans())
def test_tiled_kernels_match_reference_at_any_stride_and_padding(case, grow, stack, nhwc):
    """The tiled design on the random cases above, which it would mostly leave to the
    direct loops (few channels): with a stride, its col2im adds each window into the
    input gradient and drops the part that lies on the padding, by computing which
    positions of a row land inside x; padding up to the kernel size, strides and
    dilations up to 3 and the grown x_shape reach every edge of that."""
    s, d = case[8], case[10]
    extra = tuple(max(si, di) - 1 for si, di in zip(s, d)) if grow else (0, 0)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(cpu, "_use_gemm", lambda *args, **kwargs: True)
        # window rows multiplied in place, or stacked into one matrix first
        patch.setattr(cpu, "STACK_BELOW", 10**6 if stack else 0)
        # a strided weight gradient from the shifted planes or from channels last
        patch.setattr(cpu, "CHANNELS_LAST_FROM", 0 if nhwc else 10**6)
        check_kernels_agree(case, np.float64, extra)


# fixed cases through each design: the tiled product needs 4+ output channels per group
DESIGN_CASES = [
    (2, 1, 8, 8, 9, 7, 3, 3, (1, 1), (1, 1), (1, 1)),
    (1, 2, 4, 5, 6, 11, 2, 3, (2, 1), (0, 2), (1, 2)),
    (3, 1, 16, 4, 5, 5, 3, 1, (1, 2), (2, 0), (2, 1)),
    (1, 3, 3, 6, 13, 4, 4, 2, (3, 1), (1, 1), (1, 3)),
    (2, 4, 1, 1, 7, 7, 3, 3, (1, 1), (1, 1), (1, 1)),  # depthwise
    (1, 1, 5, 9, 1, 1, 1, 1, (1, 1), (0, 0), (1, 1)),  # 1 x 1
    # 3 x 3 at stride 1 (the direct kernels' one-pass taps, _add_3x3 and _dots_3x3), dilated
    # unevenly, several input channels per group, padding that differs by axis
    (2, 2, 3, 2, 9, 8, 3, 3, (1, 1), (2, 0), (2, 1)),
]


@pytest.mark.parametrize("design", ["tiled", "direct"])
@pytest.mark.parametrize("case", DESIGN_CASES, ids=str)
def test_numba_designs_match_reference(case, design, monkeypatch):
    monkeypatch.setattr(cpu, "_use_gemm", lambda *args, **kwargs: design == "tiled")
    for dtype in (np.float64, np.float32):
        check_kernels_agree(case, dtype)
    check_kernels_agree(
        case, np.float64, extra_rows=tuple(max(s, d) - 1 for s, d in zip(case[8], case[10]))
    )


# planes with more output positions than one tile of the tiled product, so that tiles
# start and end inside output rows: stride 1 keeping the width (each plane laid out as one
# run), narrower and wider than x (row by row; the input gradient of each is the other),
# dilated, and a stride (with window rows long enough for a channels-last weight gradient)
@pytest.mark.parametrize(
    "case",
    [
        (2, 1, 5, 8, 37, 29, 3, 3, (1, 1), (1, 1), (1, 1)),
        (2, 1, 5, 8, 37, 29, 3, 3, (1, 1), (2, 0), (1, 1)),
        (2, 1, 5, 8, 37, 29, 3, 3, (1, 1), (0, 2), (1, 1)),
        (1, 1, 5, 8, 33, 30, 3, 2, (1, 1), (2, 1), (2, 3)),
        (2, 2, 3, 4, 41, 35, 3, 2, (2, 3), (1, 0), (1, 2)),
        (2, 1, 16, 8, 37, 29, 3, 3, (2, 2), (1, 1), (1, 1)),
    ],
    ids=["same", "narrower", "wider", "dilated", "strided", "strided-channels-last"],
)
@pytest.mark.parametrize("tile", [None, 32])
@pytest.mark.parametrize("stack_below", [0, 10**6], ids=["in-place", "stacked"])
def test_numba_tiled_kernels_over_several_tiles(case, tile, stack_below, monkeypatch):
    """Each stride-1 case both ways: the window rows' blocks multiplied where they lie in
    the shifted planes, and copied into one windows' matrix first (STACK_BELOW)."""
    monkeypatch.setattr(cpu, "STACK_BELOW", stack_below)
    if tile is not None:
        monkeypatch.setattr(cpu, "TILE", tile)
    monkeypatch.setattr(cpu, "_use_gemm", lambda *args, **kwargs: True)
    check_kernels_agree(case, np.float64)
    check_kernels_agree(case, np.float32, extra_rows=(1, 1))


# the forward pass's product sums over a window in chunks of at most K_CHUNK numbers where
# OpenBLAS has its small-matrix kernels (SMALL_GEMM > 0), in one call where it has not:
# chunks that do not divide the window (a window of 72 numbers in 11 chunks of 6 or 7, or
# 15 of 4 or 5) and none at all
@pytest.mark.parametrize("k_chunk,small_gemm", [(7, 1_000_000), (5, 1_000_000), (64, 0)])
def test_forward_product_in_chunks_of_the_window(k_chunk, small_gemm, monkeypatch):
    monkeypatch.setattr(cpu, "K_CHUNK", k_chunk)
    monkeypatch.setattr(cpu, "SMALL_GEMM", small_gemm)
    monkeypatch.setattr(cpu, "_use_gemm", lambda *args, **kwargs: True)
    for case in DESIGN_CASES[:4]:
        check_kernels_agree(case, np.float64)


# the weight gradient's tiles, (positions, output channels per group, numbers per window),
# any length (align 1: the product sums over them): a mid-sized layer, a 64-channel one,
# a ResNet layer whose window is too large for the small products; the forward pass's, in
# multiples of 32: the ResNet layer (a chunk of K_CHUNK = 64 numbers of the window at a
# time), and no sizes given (tiles of up to TILE)
@pytest.mark.parametrize(
    "positions,rows,k,align,expected",
    [
        (222, 32, 144, 1, 111),
        (196, 32, 144, 1, 196),
        (222, 64, 288, 1, 45),
        (1024, 64, 576, 1, 256),
        (1024, 64, 64, 32, 224),
        (188, 0, 0, 32, 192),
    ],
)
def test_tiles_keep_the_product_within_blas_small_kernels(
    positions, rows, k, align, expected, monkeypatch
):
    # the limit of a processor with OpenBLAS's small-matrix kernels, whatever this one is
    monkeypatch.setattr(cpu, "SMALL_GEMM", 1_000_000)
    tile = cpu._tile(positions, rows, k, align)
    assert tile % align == 0 and tile <= cpu.TILE
    n_tiles = -(-positions // tile)
    assert (n_tiles - 1) * tile < positions  # no tile left empty
    if rows * k * cpu.MIN_SMALL_TILE <= cpu.SMALL_GEMM:
        assert rows * k * tile <= cpu.SMALL_GEMM  # OpenBLAS's small-matrix kernels apply
    else:  # too large for them whatever the tile: tiles of up to TILE positions
        assert tile == cpu._tile(positions, align=align)
    assert tile == expected


@pytest.mark.parametrize("pads", [(1, 1, 1, 1), (0, 2, 3, 0), (-1, 2, 1, -2), (2, -1, -1, 0)])
@pytest.mark.parametrize("c0,channels", [(0, 11), (3, 5), (10, 1)])
def test_channels_last_rows(pads, c0, channels):
    """_nhwc_row, the strided weight gradient's copy of one padded row of a group of
    channels, channels last, against np.pad; it writes every number of the row (the
    border's zeros too): on rows full of NaN it leaves none."""
    x = rand(2, 11, 5, 6, seed=1).astype(np.float32)
    top, bottom, left, right = pads
    expected = np.pad(
        x, ((0, 0), (0, 0), (max(top, 0), max(bottom, 0)), (max(left, 0), max(right, 0)))
    )
    expected = expected[:, :, max(-top, 0) : expected.shape[2] - max(-bottom, 0)]
    expected = expected[:, :, :, max(-left, 0) : expected.shape[3] - max(-right, 0)]
    expected = expected[:, c0 : c0 + channels].transpose(0, 2, 3, 1)  # (N, Hp, Wp, channels)
    out = np.full(expected.shape, np.nan, dtype=np.float32)
    for b in range(out.shape[0]):
        for r in range(out.shape[1]):
            cpu._nhwc_row(x, b, c0, r, out[b, r], top, left)
    np.testing.assert_array_equal(out, expected)


def test_backends_give_the_same_result():
    x, w, b = rand(2, 6, 8, 7, seed=1), rand(8, 3, 3, 3, seed=2), rand(8, seed=3)
    outs = []
    for backend in BACKENDS:
        with mg.backends.use(backend):
            xs = mg.tensor(x, requires_grad=True)
            y = F.conv2d(xs, mg.tensor(w), mg.tensor(b), stride=2, padding=1, groups=2)
            y.sum().backward()
            outs.append((y.array, xs.grad.array))
    np.testing.assert_allclose(outs[0][0], outs[1][0], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(outs[0][1], outs[1][1], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("channels", [1, 8])
def test_empty_batch(backend, channels):
    """A batch of 0 images gives an empty output and zero weight and bias gradients, as in
    PyTorch."""
    with mg.backends.use(backend):
        x = mg.zeros(0, channels, 5, 5, requires_grad=True)
        layer = nn.Conv2d(channels, 32, 3, stride=2, padding=1)
        y = layer(x)
        assert y.shape == (0, 32, 3, 3)
        y.sum().backward()
        assert x.grad.shape == x.shape
        assert np.all(layer.weight.grad.array == 0) and np.all(layer.bias.grad.array == 0)


# ---- layers -----------------------------------------------------------------------------------
LAYER_CASES = [
    (nn.Conv2d, torch.nn.Conv2d, (3, 4, 3), {}),
    (
        nn.Conv2d,
        torch.nn.Conv2d,
        (4, 6, (3, 2)),
        dict(stride=(2, 1), padding=(1, 0), dilation=(1, 2), groups=2),
    ),
    (nn.Conv2d, torch.nn.Conv2d, (2, 3, 4), dict(padding="same", bias=False)),
    (nn.Conv2d, torch.nn.Conv2d, (2, 3, 3), dict(padding="valid")),
    (nn.Conv2d, torch.nn.Conv2d, (2, 4, 3), dict(padding=1, padding_mode="reflect")),
    (
        nn.Conv2d,
        torch.nn.Conv2d,
        (2, 4, (3, 2)),
        dict(padding=(2, 1), padding_mode="replicate", stride=2),
    ),
    (nn.Conv2d, torch.nn.Conv2d, (2, 2, 4), dict(padding="same", padding_mode="circular")),
    (nn.Conv1d, torch.nn.Conv1d, (3, 4, 3), dict(stride=2, padding=1)),
    (nn.Conv1d, torch.nn.Conv1d, (2, 4, 2), dict(padding="same", padding_mode="reflect", groups=2)),
    (
        nn.ConvTranspose2d,
        torch.nn.ConvTranspose2d,
        (4, 6, 3),
        dict(stride=2, padding=1, output_padding=1, groups=2),
    ),
    (
        nn.ConvTranspose2d,
        torch.nn.ConvTranspose2d,
        (3, 2, (2, 3)),
        dict(dilation=(2, 1), bias=False),
    ),
]


@pytest.mark.parametrize("mine,theirs,args,kwargs", LAYER_CASES, ids=str)
def test_layer_matches_torch(mine, theirs, args, kwargs):
    """Same parameter names and shapes, same repr, and with PyTorch's weights loaded,
    the same outputs and gradients."""
    torch.manual_seed(0)
    t_layer = theirs(*args, **kwargs).double()
    layer = mine(*args, **kwargs).double()
    assert repr(layer) == repr(t_layer)
    t_state = {k: v.detach().numpy() for k, v in t_layer.state_dict().items()}
    assert {k: v.shape for k, v in layer.state_dict().items()} == {
        k: v.shape for k, v in t_state.items()
    }
    layer.load_state_dict({k: mg.tensor(v) for k, v in t_state.items()})
    spatial = (9,) if mine is nn.Conv1d else (7, 6)
    x = rand(2, args[0], *spatial, seed=4)
    compare_with_torch(lambda x: layer(x), lambda x: t_layer(x), [x])
    for (name, p), (_, tp) in zip(layer.named_parameters(), t_layer.named_parameters()):
        assert_close(p.grad, tp.grad, rtol=1e-7, atol=1e-9), name


def test_default_initialisation_is_pytorchs():
    """W and b uniform in +-1/sqrt(fan_in), fan_in = weight.shape[1] * kernel size."""
    mg.manual_seed(0)
    for layer, fan_in in (
        (nn.Conv2d(6, 32, (3, 5), groups=2), 3 * 15),
        (nn.Conv1d(4, 64, 7), 4 * 7),
        (nn.ConvTranspose2d(8, 48, 3, groups=4), 12 * 9),
    ):
        bound = 1 / math.sqrt(fan_in)
        for p in (layer.weight, layer.bias):
            assert np.abs(p.array).max() <= bound
            assert np.abs(p.array).max() > 0.8 * bound  # and spread over the range
        assert layer.weight.array.std() == pytest.approx(bound / math.sqrt(3), rel=0.15)


def test_layer_dtype_and_unbatched_input():
    layer = nn.Conv2d(3, 4, 3, padding=1, dtype=mg.float64)
    assert layer.weight.dtype == np.float64 and layer.bias.dtype == np.float64
    x = mg.randn(3, 5, 6, dtype=mg.float64)
    assert layer(x).shape == (4, 5, 6)
    np.testing.assert_allclose(layer(x).array, layer(x.unsqueeze(0)).array[0])


def test_conv_transpose2d_output_size():
    torch.manual_seed(0)
    t_layer = torch.nn.ConvTranspose2d(2, 3, 3, stride=(2, 3), padding=1).double()
    layer = nn.ConvTranspose2d(2, 3, 3, stride=(2, 3), padding=1).double()
    layer.load_state_dict(
        {k: mg.tensor(v.detach().numpy()) for k, v in t_layer.state_dict().items()}
    )
    x = rand(1, 2, 4, 4, seed=1)
    for size in [(7, 10), (8, 12), (1, 2, 8, 11)]:
        out = layer(mg.tensor(x), output_size=size)
        assert_close(out, t_layer(torch.tensor(x), output_size=size), rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError, match="valid sizes"):
        layer(mg.tensor(x), output_size=(9, 10))


def test_aliases():
    assert nn.Conv2D is nn.Conv2d
    assert nn.Conv2DTranspose is nn.ConvTranspose2d


def test_init_weights_covers_conv_layers():
    model = nn.Sequential(
        nn.Conv2d(3, 4, 3), nn.ConvTranspose2d(4, 2, 2), nn.Conv1d(2, 2, 3), nn.Linear(4, 2)
    )
    mg.manual_seed(1)
    nn.init.init_weights(model, "normal", gain=0.5)
    for m in model:
        assert np.all(m.bias.array == 0), type(m).__name__
        assert m.weight.array.std() == pytest.approx(0.5, rel=0.6), type(m).__name__
    nn.init.init_weights(model, "kaiming")
    fan_in = 3 * 9
    assert model[0].weight.array.std() == pytest.approx(math.sqrt(2 / fan_in), rel=0.5)


def test_a_small_cnn_learns():
    """A conv layer's gradients are right in practice too: a few SGD steps on a fixed batch
    reduce the loss of a small CNN."""
    mg.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(1, 4, 3, padding=1),
        nn.ReLU(),
        nn.Conv2d(4, 4, 3, stride=2),
        nn.ReLU(),
        nn.Flatten(),
        nn.Linear(36, 3),
    )
    x, target = mg.randn(8, 1, 7, 7), mg.tensor(np.arange(8) % 3)
    opt = optim.SGD(model.parameters(), lr=0.1)
    losses = []
    for _ in range(30):
        loss = F.cross_entropy(model(x), target)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(float(loss.array))
    assert losses[-1] < 0.5 * losses[0]


# ---- errors -------------------------------------------------------------------------------------
def t(*shape, dtype=mg.float64):
    return mg.zeros(*shape, dtype=dtype)


@pytest.mark.parametrize(
    "call,error,match",
    [
        (
            lambda: F.conv2d(t(1, 3, 5, 5), t(4, 2, 3, 3)),
            RuntimeError,
            "expected input .* to have 2 channels",
        ),
        (
            lambda: F.conv2d(t(1, 4, 5, 5), t(3, 2, 3, 3), groups=2),
            RuntimeError,
            "divisible by groups",
        ),
        (lambda: F.conv2d(t(1, 2, 2, 2), t(3, 2, 3, 3)), RuntimeError, "output would have size"),
        (
            lambda: F.conv2d(t(1, 2, 5, 5), t(3, 2, 3, 3), stride=2, padding="same"),
            ValueError,
            "strided",
        ),
        (
            lambda: F.conv2d(t(1, 2, 5, 5), t(3, 2, 3, 3), padding="full"),
            ValueError,
            "invalid padding string",
        ),
        (
            lambda: F.conv2d(t(1, 2, 5, 5), t(3, 2, 3, 3), stride=0),
            ValueError,
            "stride must be positive",
        ),
        (lambda: F.conv2d(t(1, 2, 5, 5), t(3, 2, 3, 3), padding=-1), ValueError, "non-negative"),
        (
            lambda: F.conv2d(t(1, 2, 5, 5), t(3, 2, 3, 3), stride=(1, 2, 3)),
            TypeError,
            "tuple of 2 ints",
        ),
        (lambda: F.conv2d(t(2, 5, 5), t(3, 2, 3)), RuntimeError, "4-d weight"),
        (lambda: F.conv2d(t(5, 5), t(3, 2, 3, 3)), RuntimeError, "3-d .* or 4-d"),
        (lambda: F.conv2d(t(1, 2, 5, 5), t(3, 2, 3, 3), t(4)), RuntimeError, "bias of shape"),
        (
            lambda: F.conv2d(t(1, 2, 5, 5), t(3, 2, 3, 3, dtype=mg.float32)),
            RuntimeError,
            "same dtype",
        ),
        (
            lambda: F.conv2d(mg.zeros(1, 2, 5, 5, dtype=mg.int64), t(3, 2, 3, 3)),
            TypeError,
            "floating point",
        ),
        (
            lambda: F.conv2d(t(1, 2, 5, 5, dtype=mg.float16), t(3, 2, 3, 3, dtype=mg.float16)),
            TypeError,
            "float32",
        ),
        (
            lambda: F.conv2d(t(1, 2, 5, 5), t(3, 2, 3, 3), groups=0),
            ValueError,
            "groups must be a positive",
        ),
        (lambda: F.conv1d(t(1, 2, 5), t(3, 2, 3, 3)), RuntimeError, "3-d weight"),
        (
            lambda: F.conv_transpose2d(t(1, 2, 3, 3), t(2, 2, 3, 3), stride=2, output_padding=2),
            ValueError,
            "output_padding must be smaller",
        ),
        (
            lambda: F.conv_transpose2d(t(1, 3, 3, 3), t(2, 2, 3, 3)),
            RuntimeError,
            "expects an input with 2 channels",
        ),
        (
            lambda: F.conv_transpose2d(t(1, 2, 3, 3), t(2, 2, 3, 3), padding="same"),
            ValueError,
            "padding must be",
        ),
        (
            lambda: F.conv_transpose2d(t(1, 2, 1, 1), t(2, 2, 3, 3), padding=2),
            RuntimeError,
            "output would have size",
        ),
        (lambda: nn.Conv2d(3, 4, 3, groups=2), ValueError, "in_channels"),
        (lambda: nn.Conv2d(4, 3, 3, groups=2), ValueError, "out_channels"),
        (lambda: nn.Conv2d(4, 4, 3, padding="same", stride=2), ValueError, "strided"),
        (lambda: nn.Conv2d(4, 4, 3, padding="half"), ValueError, "invalid padding string"),
        (
            lambda: nn.Conv2d(4, 4, 3, padding_mode="mirror"),
            ValueError,
            "padding_mode must be one of",
        ),
        (lambda: nn.ConvTranspose2d(4, 4, 3, padding_mode="reflect"), ValueError, "zeros"),
    ],
)
def test_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


# ---- the benchmark script ---------------------------------------------------------------
@pytest.mark.slow
def test_benchmark_script_runs(capsys):
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_conv.py"
    spec = importlib.util.spec_from_file_location("bench_conv", path)
    bench_conv = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench_conv)
    rows = bench_conv.main(["--quick", "--no-compile-time", "--threads", "1"])
    out = capsys.readouterr().out
    assert "ratio numba/PyTorch" in out and "GFLOP/s" in out
    assert [r["case"] for r in rows[::2]] == list(bench_conv.CASES)
    assert all(r["numba"] > 0 and r["torch"] > 0 and r["reference"] > 0 for r in rows)
