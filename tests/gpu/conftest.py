"""The tests that need a real NVIDIA GPU and CuPy (issue #21's GPU checks).

They are collected only where CuPy finds a GPU (`pytest tests/gpu`; tools/gpu_check.sh runs
them on a lent GPU machine); elsewhere, CI included, this folder collects nothing. With
MINIGRAD_GPU_TESTS_SIMULATED=1 they run on the simulated GPU instead (minigrad/cuda/
simulator.py), which checks the tests themselves on a machine without one; the timings and
CuPy's own behaviour are then not tested.

Each test takes the `gpu` fixture: the real GPU's stand-in (tests/gpu/real_gpu.py), with
the simulator's hooks `forbid_transfers()` and `transfers`.
"""

import os

import pytest

SIMULATED = os.environ.get("MINIGRAD_GPU_TESTS_SIMULATED") == "1"


def _gpu_present():
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # no CuPy, no driver, or a driver too old for this CuPy: no GPU to test on
        return False


collect_ignore_glob = [] if SIMULATED or _gpu_present() else ["test_*.py"]

if os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":  # the kernels on Numba's simulator too:
    from tests.cuda import simulator_fixes  # its shared arrays made race-free, as in tests/cuda

    simulator_fixes.share_shared_arrays()


@pytest.fixture
def gpu(monkeypatch, request):
    """The GPU for one test: the real one (or the simulated one, see above)."""
    if SIMULATED:
        return request.getfixturevalue("simulated_gpu")
    from tests.gpu.real_gpu import real_gpu

    return real_gpu(monkeypatch)
