"""The check the tests/test_cuda_tensors_*.py tables share: an op run on CPU tensors and
on the same values on the simulated GPU gives CUDA tensors with the CPU's values and
gradients, and copies nothing between host and device while it runs.

A case is a function of the input tensors, and the input arrays: floats become leaves
that require grad (unless listed in `constants`), integers stay integer tensors.
"""

import contextlib

import numpy as np

import minigrad as mg
from minigrad.array_module import to_host

TOLERANCE = {np.float32: dict(rtol=2e-5, atol=2e-6), np.float64: dict(rtol=1e-12, atol=1e-13)}


def _inputs(arrays, dtype, device, constants):
    tensors = []
    for i, a in enumerate(arrays):
        a = np.asarray(a)
        if a.dtype.kind == "f":
            a = a.astype(dtype)
        grad = a.dtype.kind == "f" and i not in constants
        tensors.append(mg.tensor(a, device=device, requires_grad=grad))
    return tensors


def _outputs(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def run_on(fn, arrays, dtype, device, constants=(), simulator=None, backward=True):
    """fn's outputs and its float inputs' gradients (host arrays) on `device`; on cuda the
    call and its backward run inside `forbid_transfers()` and every result must be there."""
    tensors = _inputs(arrays, dtype, device, constants)
    with _guard(simulator):
        outs = _outputs(fn(*tensors))
    differentiable = [o for o in outs if o.requires_grad]
    if backward and differentiable:
        # upstream gradients that are not all ones (1, 1.25, 1.5, 1, ...), made beforehand
        seeds = []
        for o in differentiable:
            pattern = 1 + np.arange(o.numel()).reshape(o.shape) % 3 / 4
            seeds.append(mg.tensor(pattern, dtype=o.dtype, device=device))
        with _guard(simulator):
            total = sum((o * s).sum() for o, s in zip(differentiable, seeds))
            total.backward()
    for o in outs:
        assert o.device.type == device, f"an output is on {o.device}, not {device}"
    grads = [t.grad for t in tensors if t.requires_grad]
    for g in grads:
        assert g is None or g.device.type == device, f"a gradient is on {g.device}, not {device}"
    values = [to_host(o.detach().array) for o in outs]
    return values, [None if g is None else to_host(g.array) for g in grads]


def _guard(simulator):
    return simulator.forbid_transfers() if simulator is not None else contextlib.nullcontext()


def assert_same_as_cpu(simulator, fn, arrays, dtype, constants=(), backward=True, tolerance=None):
    """fn on the simulated GPU equals fn on the CPU (values and gradients), with no copy."""
    cpu_values, cpu_grads = run_on(fn, arrays, dtype, "cpu", constants, backward=backward)
    gpu_values, gpu_grads = run_on(fn, arrays, dtype, "cuda", constants, simulator, backward)
    tol = tolerance or TOLERANCE[dtype]
    assert len(cpu_values) == len(gpu_values)
    for c, g in zip(cpu_values, gpu_values):
        assert (c.dtype, c.shape) == (g.dtype, g.shape), f"{g.dtype}{g.shape}, cpu: {c.shape}"
        np.testing.assert_allclose(g, c, **tol)
    if backward:
        assert any(g is not None for g in cpu_grads) or not cpu_grads
        for c, g in zip(cpu_grads, gpu_grads):
            assert (c is None) == (g is None)
            if c is not None:
                np.testing.assert_allclose(g, c, **tol)
