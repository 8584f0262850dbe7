"""Device arrays for the CUDA kernel tests: the kernels take and return the arrays CUDA
tensors hold, CuPy arrays on a GPU, or the simulated GPU's (minigrad/cuda/simulator.py)
under Numba's simulator, which tests/cuda/conftest.py switches on there."""

import contextlib

from minigrad import array_module
from minigrad.cuda import runtime


def xp():
    """The GPU's array module: CuPy, or the simulator (a clear error without either)."""
    return runtime.require("tests/cuda")


def dev(array):
    """A host array copied to the GPU (None stays None)."""
    return None if array is None else xp().asarray(array)


def host(array):
    """A device array copied to the host, after checking that it is one."""
    assert array_module.on_device(array), f"expected a device array, got {type(array).__name__}"
    return array_module.to_host(array)


def no_transfers():
    """A block in which a copy between host and device fails the test: on the simulated
    GPU, which counts them; on a GPU the block checks nothing (there the no-copy test of
    a training step counts CuPy's transfers)."""
    if runtime.simulated():
        return runtime.cupy().forbid_transfers()
    return contextlib.nullcontext()
