"""The simulator fix of simulator_fixes.py: every thread of a block gets the same shared
array, even when creating it is slow enough for the threads to switch in between. Only on
the simulator (on a GPU shared memory needs no fix)."""

import time

import numpy as np
import pytest
from numba import cuda

from tests.cuda.conftest import SIMULATED

if SIMULATED:  # it patches the simulator's module, which a GPU run never imports
    from tests.cuda import simulator_fixes

pytestmark = pytest.mark.skipif(not SIMULATED, reason="a fix of Numba's CUDA simulator")

N = 16


@cuda.jit
def _rotate(out):
    """out[t] = t + 1 (mod N), through shared memory: thread t writes slot t, then reads
    the slot its neighbour wrote."""
    t = cuda.threadIdx.x
    slots = cuda.shared.array(N, np.float64)
    slots[t] = t
    cuda.syncthreads()
    out[t] = slots[(t + 1) % N]


def _launches(monkeypatch, n=3):
    """n launches with np.empty slowed down: every thread asking for the shared array while
    the first one creates it (it sleeps) sees none yet."""
    empty = np.empty

    def slow_empty(*args, **kwargs):
        time.sleep(0.02)  # long enough for every thread to start meanwhile
        return empty(*args, **kwargs)

    monkeypatch.setattr(np, "empty", slow_empty)
    outs = []
    for _ in range(n):
        out = np.zeros(N)
        _rotate[1, N](out)
        outs.append(out)
    monkeypatch.setattr(np, "empty", empty)
    return outs


def test_every_thread_shares_one_array(monkeypatch):
    for out in _launches(monkeypatch):
        np.testing.assert_array_equal(out, (np.arange(N) + 1) % N)


def test_without_the_fix_threads_get_arrays_of_their_own(monkeypatch):
    """What the fix is for: Numba's own method, with the same slow creation, hands some
    threads arrays of their own, and they read what nobody wrote."""
    simulator_fixes.share_shared_arrays(enable=False)
    try:
        outs = _launches(monkeypatch)
    finally:
        simulator_fixes.share_shared_arrays()
    expected = (np.arange(N) + 1) % N
    assert any(not np.array_equal(out, expected) for out in outs)
