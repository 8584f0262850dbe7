"""The real GPU, with the test hooks of the simulated one.

The tests of tests/test_cuda_tensors_*.py take the `simulated_gpu` fixture (tests/conftest.py):
CuPy's rules on host memory, and two hooks, `forbid_transfers()` (a copy between host and
device inside the block raises) and `transfers` (how many copies there were). With
MINIGRAD_TEST_REAL_GPU=1 the fixture returns `real_gpu(monkeypatch)` instead, so that the
same tests, unchanged, check the same ops on an NVIDIA GPU through CuPy:

    MINIGRAD_TEST_REAL_GPU=1 pytest -n 0 tests/test_cuda_tensors_*.py

A real GPU has no counter of copies, so the stand-in watches the doors minigrad uses:

- host to device: `cupy.asarray` / `cupy.array` given anything that is not already a GPU
  array (`minigrad.array_module.to_device` copies through `cupy.asarray`);
- device to host: `cupy.asnumpy` and `minigrad.array_module.to_host` (every name it is
  imported under; it copies with `.get()`), and, inside
  `forbid_transfers()`, CuPy's own guard `cupyx.allow_synchronize(False)`, which raises at
  any CuPy call that waits for the GPU: `.get()`, `.item()`, `float(x)`, `bool(x)`, and also a
  boolean-mask index (its size must reach the host), which the simulator lets through.
  That guard is deprecated in CuPy (still present in CuPy 14); without it only the doors
  above are watched, and the stand-in says so in `guards`.
"""

import contextlib
import sys

from minigrad import array_module
from minigrad.cuda import runtime


class RealGPU:
    """CuPy, plus the simulator's `transfers` and `forbid_transfers()`; any other attribute
    is CuPy's (`real.ndarray` is `cupy.ndarray`, `real.asarray` CuPy's `asarray`)."""

    def __init__(self, cupy):
        self._cupy = cupy
        self.transfers = {"to_host": 0, "to_device": 0}
        self._forbidden = 0
        self.guards = ["cupy.asarray", "cupy.array", "cupy.asnumpy", "array_module.to_host"]

    def __getattr__(self, name):
        return getattr(self._cupy, name)

    @property
    def SimulatedArray(self):
        """The device array type, under the simulator's name (tests check `isinstance` with it)."""
        return self._cupy.ndarray

    def count(self, direction):
        """Count a copy; raise inside forbid_transfers(), as the simulator does."""
        if self._forbidden:
            raise RuntimeError(
                f"real GPU: a copy {direction.replace('_', ' ')} happened inside forbid_transfers()"
            )
        self.transfers[direction] += 1

    @contextlib.contextmanager
    def forbid_transfers(self):
        """Inside the block, a copy between host and device raises."""
        self._forbidden += 1
        try:
            with _no_synchronize(self._cupy):
                yield
        finally:
            self._forbidden -= 1


def _no_synchronize(cupy):
    """CuPy's guard against waiting for the GPU, where this CuPy still has it."""
    try:
        import cupyx

        guard = cupyx.allow_synchronize
    except (ImportError, AttributeError):
        return contextlib.nullcontext()
    return guard(False)


def real_gpu(monkeypatch):
    """Point minigrad at the real GPU for one test and return its stand-in (undone after it)."""
    monkeypatch.setattr(runtime, "_simulated", False)
    monkeypatch.setattr(runtime, "_looked", False)
    monkeypatch.setattr(runtime, "_module", None)
    monkeypatch.setattr(runtime, "_generator", {"rng": None, "seed": None})
    cupy = runtime.cupy()
    if cupy is None:
        raise RuntimeError(
            f"MINIGRAD_TEST_REAL_GPU=1, but there is no GPU to test on: {runtime._why_not}"
        )
    real = RealGPU(cupy)
    if not isinstance(_no_synchronize(cupy), contextlib.nullcontext):
        real.guards.append("cupyx.allow_synchronize(False)")

    def host_to_device(original):
        def copy_in(a, *args, **kwargs):
            if not isinstance(a, cupy.ndarray):
                real.count("to_device")
            return original(a, *args, **kwargs)

        return copy_in

    def device_to_host(original):
        def copy_out(a, *args, **kwargs):
            if isinstance(a, cupy.ndarray):
                real.count("to_host")
            return original(a, *args, **kwargs)

        return copy_out

    for name in ("asarray", "array"):
        monkeypatch.setattr(cupy, name, host_to_device(getattr(cupy, name)))
    monkeypatch.setattr(cupy, "asnumpy", device_to_host(cupy.asnumpy))
    # minigrad's modules import to_host by name: replace every binding of it
    wrapped = {id(array_module.to_host): device_to_host(array_module.to_host)}
    for module_name, module in list(sys.modules.items()):
        if module is None or not (module_name == "minigrad" or module_name.startswith("minigrad.")):
            continue
        for attr, value in list(vars(module).items()):
            if callable(value) and id(value) in wrapped:
                monkeypatch.setattr(module, attr, wrapped[id(value)])
    return real
