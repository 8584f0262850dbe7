"""Convolution, pooling and attention on CUDA tensors (the simulated GPU): the same values
and gradients as on the CPU, CUDA tensors out, and no copy between host and device
inside the ops, under both backends.

In this process Numba's CUDA simulator is off (it must be switched on before Numba is
imported), so the `@cuda.jit` kernels cannot run here and CUDA tensors take the
reference kernels through the array module, under either backend; tests/cuda runs the
CUDA kernels themselves on CUDA tensors (tests/test_cuda_simulator.py).
"""

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F
from minigrad import backends
from tests.conftest import REAL_GPU

RNG = np.random.default_rng(21)
X = RNG.standard_normal((2, 4, 7, 6))  # (N, C, H, W)
W = RNG.standard_normal((6, 2, 3, 2))  # (O, C / groups, kH, kW), groups 2
B = RNG.standard_normal(6)
Q, K, V = (RNG.standard_normal(shape) for shape in [(2, 2, 5, 4), (2, 1, 6, 4), (2, 1, 6, 3)])
ALLOWED = RNG.random((5, 6)) > 0.3

# name -> (the host arrays of the inputs, the op as a function of a bool mask and the
# input tensors); every input gets a gradient
OPS = {
    "conv2d": (
        (X, W, B),
        lambda m, x, w, b: F.conv2d(x, w, b, stride=(2, 1), padding=1, dilation=(1, 2), groups=2),
    ),
    "conv_transpose2d": (
        (X, W[:4]),
        lambda m, x, w: F.conv_transpose2d(x, w, stride=2, output_padding=1),
    ),
    "max_pool2d": ((X,), lambda m, x: F.max_pool2d(x, 3, stride=2, padding=1, ceil_mode=True)),
    "max_pool2d dilated": ((X,), lambda m, x: F.max_pool2d(x, 2, stride=1, dilation=2)),
    "avg_pool2d": (
        (X,),
        lambda m, x: F.avg_pool2d(x, 3, stride=2, padding=1, count_include_pad=False),
    ),
    "avg_pool2d divisor": ((X,), lambda m, x: F.avg_pool2d(x, (2, 3), 1, divisor_override=4)),
    "scaled_dot_product_attention causal": (
        (Q, K, V),
        lambda m, q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True),
    ),
    "scaled_dot_product_attention masked": (
        (Q, K, V),
        lambda m, q, k, v: F.scaled_dot_product_attention(q, k, v, attn_mask=m, enable_gqa=True),
    ),
}


def _run(name, device, dtype, backend, simulated_gpu):
    """The op's output and its inputs' gradients, as host arrays; on `device`, with every
    copy between host and device forbidden from the op's start to the end of backward
    (the inputs, the mask and the output gradient are made before)."""
    arrays, op = OPS[name]
    inputs = [mg.tensor(a.astype(dtype), requires_grad=True, device=device) for a in arrays]
    mask = mg.tensor(ALLOWED, device=device)
    shape = op(mg.tensor(ALLOWED), *[mg.tensor(a.astype(dtype)) for a in arrays]).shape
    grad_out = np.random.default_rng(1).standard_normal(shape).astype(dtype)
    grad_out = mg.tensor(grad_out, device=device)
    with mg.backends.use(backend):
        with simulated_gpu.forbid_transfers():  # counts (and forbids) copies of device arrays only
            out = op(mask, *inputs)
            out.backward(grad_out)
    assert out.device.type == device and out.dtype == dtype
    assert all(t.grad.device.type == device for t in inputs)
    return [out.detach().cpu().numpy()] + [t.grad.cpu().numpy() for t in inputs]


@pytest.mark.parametrize("backend", ["numba", "numpy"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", list(OPS))
def test_the_op_on_cuda_tensors_equals_the_cpu(name, dtype, backend, simulated_gpu):
    expected = _run(name, "cpu", dtype, backend, simulated_gpu)
    actual = _run(name, "cuda", dtype, backend, simulated_gpu)
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-12)
    names = ["output"] + [f"grad of input {i}" for i in range(len(expected) - 1)]
    for what, a, e in zip(names, actual, expected):
        assert a.dtype == e.dtype == dtype, what
        np.testing.assert_allclose(a, e, **tol, err_msg=f"{name}: {what}")


def test_max_pool_indices_stay_on_the_device(simulated_gpu):
    x = mg.tensor(X, device="cuda")
    with simulated_gpu.forbid_transfers():
        y, indices = F.max_pool2d(x, 2, return_indices=True)
    assert indices.device.type == "cuda" and indices.dtype == np.int64
    expected = F.max_pool2d(mg.tensor(X), 2, return_indices=True)[1]
    np.testing.assert_array_equal(indices.cpu().numpy(), expected.numpy())


def test_the_device_picks_the_kernels(simulated_gpu, monkeypatch):
    """The backend names the choice; the array's device picks the CPU or GPU kernels, and
    CUDA tensors fall back to the reference where @cuda.jit cannot run."""
    host, device = np.zeros(1), simulated_gpu.asarray(np.zeros(1))
    for can_run in (True, False):
        monkeypatch.setattr(backends, "_cuda_kernels_run", {True: can_run, False: can_run})
        gpu_kernels = "cuda" if can_run else "reference"
        for backend, on_host, on_gpu in [
            ("numpy", "reference", "reference"),
            ("numba", "cpu", gpu_kernels),
            ("cuda", "cuda", gpu_kernels),
        ]:
            for family in ("conv", "pool", "attention"):
                for array, kind in [(host, on_host), (device, on_gpu)]:
                    module = backends.kernels(family, backend, array).__name__
                    assert module == f"minigrad.kernels.{kind}.{family}", (backend, family)
        with mg.backends.use("numpy"):
            assert mg.backends.current() == "numpy"
            assert backends.kernels("conv", array=device).__name__.endswith("reference.conv")


def test_the_cuda_backend_without_a_gpu_says_what_is_missing(monkeypatch):
    monkeypatch.setattr(backends, "_numba_cuda_usable", lambda: False)
    with pytest.raises(RuntimeError, match="'cuda' backend needs an NVIDIA GPU"):
        mg.backends.use("cuda")
    assert mg.backends.current() != "cuda"


def test_a_mask_on_another_device_raises(simulated_gpu):
    q = mg.tensor(Q[:, :, :, :3], device="cuda")
    with pytest.raises(RuntimeError, match="found at least two devices, cuda:0 and cpu"):
        F.scaled_dot_product_attention(q, q, q, attn_mask=mg.tensor(ALLOWED[:, :5]))


# ---- what the kernels rely on in the array module and the simulated GPU ----------------------
# (the simulator's own behaviour: nothing to check on a real GPU, MINIGRAD_TEST_REAL_GPU=1)
simulator_only = pytest.mark.skipif(REAL_GPU, reason="checks the simulator itself")


@simulator_only
def test_kernel_view_is_the_host_buffer_on_the_simulated_gpu(simulated_gpu):
    """A @cuda.jit kernel under Numba's simulator reads and writes NumPy arrays: on the
    simulated GPU it is given the buffer behind the device array, without a copy."""
    from minigrad.array_module import kernel_view

    device = simulated_gpu.zeros((2, 3))
    view = kernel_view(device)
    assert isinstance(view, np.ndarray)
    view[1, 2] = 5.0  # what a kernel writes lands in the device array
    assert device[1, 2].get() == 5.0
    host = np.ones(3)
    assert kernel_view(host) is host  # host arrays are passed as they are


@simulator_only
def test_the_simulated_gpu_keeps_its_arrays_on_the_device(simulated_gpu):
    x = simulated_gpu.asarray(np.arange(12.0).reshape(3, 4))
    simulated_gpu.transfers.update(to_host=0, to_device=0)
    with simulated_gpu.forbid_transfers():
        contiguous = simulated_gpu.ascontiguousarray(x[:, ::2])
        windows = simulated_gpu.lib.stride_tricks.as_strided(x, shape=(2, 3), strides=(32, 8))
    assert all(isinstance(a, simulated_gpu.ndarray) for a in (contiguous, windows))
    np.testing.assert_array_equal(contiguous.get(), [[0, 2], [4, 6], [8, 10]])
    np.testing.assert_array_equal(windows.get(), [[0, 1, 2], [4, 5, 6]])
    as_strided = simulated_gpu.lib.stride_tricks.as_strided
    with pytest.raises(TypeError):  # CuPy's as_strided has no writeable argument
        as_strided(x, shape=(2, 3), strides=(32, 8), writeable=False)
    with pytest.raises(TypeError, match="Implicit conversion to a NumPy array"):
        np.asarray(x)  # no way in through __array_interface__ either
    assert simulated_gpu.transfers == {"to_host": 2, "to_device": 0}  # the two .get() above
