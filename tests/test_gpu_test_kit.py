"""The kit that runs the GPU tests on a real GPU, checked here without one.

tests/gpu/real_gpu.py stands in for the simulator's test hooks on a real GPU (the fixture
`simulated_gpu` returns it under MINIGRAD_TEST_REAL_GPU=1), by watching the doors through
which minigrad copies between host and device. Here CuPy is played by the simulator module,
with the simulator's own counting left off, so that what is caught is the stand-in's doing.
"""

import numpy as np
import pytest

import minigrad as mg
from minigrad.cuda import runtime, simulator
from tests.gpu import real_gpu


@pytest.fixture
def fake_cupy(monkeypatch):
    """runtime finds 'CuPy' (the simulator module) as it would find the real one."""

    def find():
        runtime._looked, runtime._module = True, simulator

    monkeypatch.setattr(runtime, "_find", find)
    return simulator


def test_the_stand_in_counts_copies_and_forbids_them(monkeypatch, fake_cupy):
    gpu = real_gpu.real_gpu(monkeypatch)
    # CuPy's names, through the stand-in
    assert not runtime.simulated() and gpu.ndarray is simulator.ndarray
    assert gpu.SimulatedArray is gpu.ndarray  # the simulator's name for it, which tests use
    x = mg.tensor(np.arange(3.0), device="cuda")
    assert gpu.transfers == {"to_host": 0, "to_device": 1}
    assert x.cpu().tolist() == [0.0, 1.0, 2.0]
    assert gpu.transfers == {"to_host": 1, "to_device": 1}
    with gpu.forbid_transfers():
        y = (x * 2).sum()  # on the device: no copy
        with pytest.raises(
            RuntimeError, match="real GPU: a copy to device happened inside forbid_transfers"
        ):
            mg.tensor([1.0], device="cuda")
        with pytest.raises(
            RuntimeError, match="real GPU: a copy to host happened inside forbid_transfers"
        ):
            y.cpu()
        with pytest.raises(RuntimeError, match="real GPU: a copy to host"):
            gpu.asnumpy(y.array)
    assert gpu.asnumpy(y.array) == 6.0  # allowed again after the block


def test_the_stand_in_says_when_there_is_no_gpu(monkeypatch):
    monkeypatch.setattr(
        runtime, "_find", lambda: setattr(runtime, "_why_not", "CuPy is not installed")
    )
    with pytest.raises(
        RuntimeError, match="MINIGRAD_TEST_REAL_GPU=1, but there is no GPU to test on: CuPy is not"
    ):
        real_gpu.real_gpu(monkeypatch)


def test_the_gpu_tests_are_not_collected_without_a_gpu():
    """tests/gpu/conftest.py: without CuPy and a GPU (CI) the folder collects nothing."""
    from tests.gpu import conftest

    if conftest._gpu_present() or conftest.SIMULATED:
        # the opposite case: tools/gpu_check.sh runs them
        pytest.skip("this machine runs the GPU tests")
    assert conftest.collect_ignore_glob == ["test_*.py"]
