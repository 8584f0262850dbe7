"""A fix for Numba's CUDA simulator, used by the tests in this folder (see conftest.py).

Numba's `FakeCUDAShared.array` looks up the block's array for the calling line in a dict
and, when it finds none, creates one and stores it. The simulated threads of a block run
this concurrently: when the interpreter switches threads between the look-up and the
store, two threads each create their own array, and what one writes "to shared memory"
the other never sees. `share_shared_arrays` replaces the method with one that looks up
and stores under a lock, so every thread of a launch gets the same array per line.
"""

import sys
import threading

import numpy as np
from numba import types
from numba.cuda.simulator import kernelapi
from numba.np import numpy_support

_ORIGINAL = kernelapi.FakeCUDAShared.array
_LOCK = threading.Lock()


def _shared_array(self, shape, dtype):
    """The array of the calling line, created by the first thread that asks (the others
    wait on the lock): `cuda.shared.array(shape, dtype)` as the simulator means it."""
    if shape == 0:  # dynamic shared memory: one buffer made at launch, no race
        return _ORIGINAL(self, shape, dtype)
    if isinstance(dtype, types.Type):
        dtype = numpy_support.as_dtype(dtype)
    caller = sys._getframe(1)
    line = (caller.f_code.co_filename, caller.f_lineno)  # the simulator's key: one per line
    with _LOCK:
        array = self._allocations.get(line)
        if array is None:
            array = self._allocations[line] = np.empty(shape, dtype)
    return array


def share_shared_arrays(enable=True):
    """Install the fixed `FakeCUDAShared.array` (or, with enable=False, Numba's own)."""
    kernelapi.FakeCUDAShared.array = _shared_array if enable else _ORIGINAL
