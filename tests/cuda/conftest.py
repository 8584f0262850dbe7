"""The CUDA kernel tests: on a real GPU, or on Numba's CUDA simulator.

They are collected only in a process where the CUDA target can run: a machine with
an NVIDIA GPU (`pytest tests/cuda`), or any machine with the simulator switched on
before Numba is imported (`NUMBA_ENABLE_CUDASIM=1 pytest tests/cuda`). The main test
session runs the latter in a subprocess (tests/test_cuda_simulator.py), because the
simulator cannot be switched on once Numba has been imported.

The kernels take the arrays CUDA tensors hold: CuPy arrays on a GPU. Under Numba's
simulator, there is no GPU memory, so the tests run on minigrad's simulated GPU
(`MINIGRAD_CUDA_SIMULATOR=1`, switched on below if it is not already): its device arrays
are handed to the simulated kernels as their host buffers (`array_module.kernel_view`).
"""

import os
import sys


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

if SIMULATED:
    from minigrad.cuda import runtime

    if not runtime.simulated():
        runtime.simulate()
    # The simulator runs each thread of a block as a Python thread, and meanwhile polls
    # them from the main thread in a busy loop. Python hands the GIL from a busy thread
    # to a waiting one only every "switch interval" (5 ms by default), so every step of
    # every simulated thread waited about that long for the poller: with 0.2 ms these
    # tests take half the CPU time and less than half the wall time. Nothing else changes.
    sys.setswitchinterval(0.0002)
    # Numba's simulator hands out a block's shared arrays from a dict keyed by the line
    # that asks for one: look up, and if none, create and store. Its threads run that
    # check-then-store concurrently, so a thread switch between the two gives two threads
    # two different "shared" arrays, each with its own uninitialised memory: a kernel then
    # reads garbage where another thread wrote, now and then (a switch there is rare; the
    # short switch interval above makes it less so). `simulator_fixes` makes the two steps
    # one, under a lock; tests/cuda/test_simulator_shared.py shows the race and the fix.
    from tests.cuda import simulator_fixes

    simulator_fixes.share_shared_arrays()
