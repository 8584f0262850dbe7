"""Run an op on CPU tensors and on the same values on the simulated GPU, and compare.

The tests/test_cuda_tensors_*.py files are tables of `Case`s; `check_case` runs one:

1. on the CPU: the op's outputs, and its input gradients for a fixed random weighting of
   the outputs (loss = sum of output * weight);
2. on the simulated GPU (`simulated_gpu` fixture), with the inputs and the weights made
   first and then forward and backward inside `forbid_transfers()`: any copy between host
   and device inside the op raises;
3. every output and gradient must be a CUDA tensor and equal the CPU's.

A case whose result needs a host value (a Python bool, or a size read from the data, as
`bincount` reads its length) sets `host_value=True`: it runs without `forbid_transfers()`
and still must give CUDA tensors equal to the CPU's. A case whose result's size CuPy
finds by waiting for the GPU (a mask index, `nonzero`, `unique`) sets `sizes_from_data`:
that wait is a read from the GPU, on the simulator as on a real GPU
(`MINIGRAD_TEST_REAL_GPU=1`, tests/gpu/real_gpu.py), so neither puts up the guard there.
The real GPU also sums in another order than NumPy: its tolerance is wider.
"""

import os
from dataclasses import dataclass, field

import numpy as np

import minigrad as mg

REAL_GPU = os.environ.get("MINIGRAD_TEST_REAL_GPU") == "1"


@dataclass
class Case:
    """One op call: `fn(*tensors)` where tensors are made from `inputs`.

    `inputs` are NumPy arrays; the floating ones are cast to the dtype under test and
    require grad (unless `grad=False`), integer and bool ones are used as they are.
    """

    name: str
    fn: object
    inputs: tuple
    grad: bool = True
    host_value: bool = False
    sizes_from_data: bool = False
    dtypes: tuple = field(default=(np.float32, np.float64))

    def __repr__(self):
        return self.name


def rand(*shape, seed=0, low=-1.0, high=1.0):
    """Reproducible floats in [low, high)."""
    return np.random.default_rng(seed).uniform(low, high, shape)


def _leaves(case, dtype, device):
    leaves = []
    for a in case.inputs:
        a = np.asarray(a)
        if a.dtype.kind == "f":
            t = mg.tensor(a.astype(dtype), device=device, requires_grad=case.grad)
        else:
            t = mg.tensor(a, device=device)
        leaves.append(t)
    return leaves


def _tensors(result):
    """The tensors of a result (a tensor, a tuple or named tuple of them, or a list)."""
    if isinstance(result, mg.Tensor):
        return [result]
    if isinstance(result, (tuple, list)):
        return [t for r in result for t in _tensors(r)]
    return []


def _run(case, dtype, device, weights, forbid):
    leaves = _leaves(case, dtype, device)
    ws = None if weights is None else [mg.tensor(w, device=device) for w in weights]
    with forbid():
        result = case.fn(*leaves)
        outs = _tensors(result)
        graded = [o for o in outs if o.requires_grad]
        if ws is not None and graded:
            loss = sum((o * w).sum() for o, w in zip(graded, ws))
            loss.backward()
    return result, outs, graded, leaves


def _host(t):
    return t.detach().cpu().numpy()


def check_case(case, dtype, simulator):
    """Run `case` on both devices (see the module's docstring); assert they agree."""
    graded = _run(case, dtype, "cpu", None, _nothing)[2]  # which outputs have a gradient
    rngs = [np.random.default_rng(7 + i) for i in range(len(graded))]
    weights = [rng.uniform(0.5, 1.5, o.shape).astype(o.dtype) for rng, o in zip(rngs, graded)]
    cpu_result, cpu_outs, _, cpu_leaves = _run(case, dtype, "cpu", weights, _nothing)
    unguarded = case.host_value or case.sizes_from_data
    forbid = _nothing if unguarded else simulator.forbid_transfers
    gpu_result, gpu_outs, _, gpu_leaves = _run(case, dtype, "cuda", weights, forbid)

    if not cpu_outs:  # a host value (a bool, a list of sizes): the same on both
        assert gpu_result == cpu_result, f"{case.name}: {gpu_result!r} != {cpu_result!r}"
        return
    assert len(gpu_outs) == len(cpu_outs), case.name
    for k, (g, c) in enumerate(zip(gpu_outs, cpu_outs)):
        what = f"{case.name}: output {k}"
        assert g.device.type == "cuda", f"{what} is on {g.device}"
        layout = f"{what}: {g.dtype}{tuple(g.shape)} != {c.dtype}{tuple(c.shape)}"
        assert (g.dtype, g.shape) == (c.dtype, c.shape), layout
        _assert_equal(_host(g), _host(c), what, dtype)
    for k, (g, c) in enumerate(zip(gpu_leaves, cpu_leaves)):
        what = f"{case.name}: gradient of input {k}"
        assert (g.grad is None) == (c.grad is None), what
        if c.grad is not None:
            assert g.grad.device.type == "cuda", f"{what} is on {g.grad.device}"
            _assert_equal(_host(g.grad), _host(c.grad), what, dtype)


def _assert_equal(gpu, cpu, what, dtype):
    # The simulator computes with NumPy, so most results are bit-equal; an op may take a
    # different route on a device array (one matmul instead of CPU threads), so allow rounding.
    if REAL_GPU:
        tol = 1e-4 if dtype == np.float32 else 1e-9
    else:
        tol = 1e-5 if dtype == np.float32 else 1e-12
    if gpu.dtype.kind in "fc":
        np.testing.assert_allclose(gpu, cpu, rtol=tol, atol=tol, equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(gpu, cpu, err_msg=what)


class _Nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _nothing():
    return _Nothing()
