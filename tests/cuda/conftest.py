"""The CUDA kernel tests: on a real GPU, or on Numba's CUDA simulator.

They are collected only in a process where the CUDA target can run: a machine with
an NVIDIA GPU (`pytest tests/cuda`), or any machine with the simulator switched on
before Numba is imported (`NUMBA_ENABLE_CUDASIM=1 pytest tests/cuda`). The main test
session runs the latter in a subprocess (tests/test_cuda_simulator.py), because the
simulator cannot be switched on once Numba has been imported.
"""

import os


def _cuda_usable():
    if os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":
        return True
    try:
        from numba import cuda

        return cuda.is_available()
    except Exception:  # no driver, no toolkit: no GPU to test on
        return False


collect_ignore_glob = [] if _cuda_usable() else ["test_*.py"]

SIMULATED = os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"
