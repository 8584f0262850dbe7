"""Which implementation of the hot-path kernels the autograd Functions call.

Convolution, pooling and attention each exist three times, with the same function
names and array-in/array-out signatures:

- ``"numpy"``: `minigrad/kernels/reference/`, readable NumPy, the lesson code;
- ``"numba"``: `minigrad/kernels/cpu/`, Numba ``@njit(parallel=True, cache=True)`` kernels;
- ``"cuda"``:  `minigrad/kernels/cuda/`, Numba ``@cuda.jit`` kernels (an NVIDIA GPU, or
  Numba's simulator with ``NUMBA_ENABLE_CUDASIM=1``).

    mg.backends.use("numpy")            # from now on
    with mg.backends.use("numba"): ...  # only inside the block
    mg.backends.current()               # -> "numba"

The default is ``"numba"`` when Numba is installed, else ``"numpy"``. A backend's kernel
modules are imported the first time they are asked for (`kernels`, through the function
of that backend below), so choosing a backend compiles nothing (and ``import minigrad``
does not import Numba, which alone takes longer than the rest).

The submodules ``cudnn``, ``mps`` and ``cuda`` hold the switches PyTorch programs set
(``mg.backends.cudnn.benchmark = True``, ``mg.backends.mps.is_available()``): they are
accepted and stored, and change nothing, since minigrad runs neither cuDNN nor Metal.
"""

import importlib.util
import os


# One function per backend: each imports that backend's three kernel modules, inside the
# function, so that nothing is imported before a kernel is needed (Python imports a
# module once; later calls only look it up).
def _numpy_kernels():
    from minigrad.kernels.reference import attention, conv, pool

    return {"attention": attention, "conv": conv, "pool": pool}


def _numba_kernels():
    from minigrad.kernels.cpu import attention, conv, pool

    return {"attention": attention, "conv": conv, "pool": pool}


def _cuda_kernels():
    from minigrad.kernels.cuda import attention, conv, pool

    return {"attention": attention, "conv": conv, "pool": pool}


BACKENDS = {"numpy": _numpy_kernels, "numba": _numba_kernels, "cuda": _cuda_kernels}


def _numba_available():
    # find_spec looks for the package without importing it
    return importlib.util.find_spec("numba") is not None


_current = "numba" if _numba_available() else "numpy"


class use:
    """Select a backend: now, or (as a context manager) until the block ends."""

    def __init__(self, name):
        global _current
        if name not in BACKENDS:
            raise ValueError(f"backends.use: unknown backend {name!r}; choose one of {sorted(BACKENDS)}")
        check_available(name)
        self.previous, self.name = _current, name
        _current = name

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        global _current
        _current = self.previous
        return False

    def __repr__(self):
        return f"backends.use({self.name!r})"


def current():
    """The name of the backend the kernels are taken from."""
    return _current


def check_available(name):
    """Raise a clear error if backend `name` cannot run on this machine."""
    if name in ("numba", "cuda") and not _numba_available():
        raise RuntimeError(f"backends: the {name!r} backend needs Numba (pip install numba)")
    if name == "cuda":
        from numba import cuda

        if not cuda.is_available():
            simulated = os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"
            raise RuntimeError(
                "backends: the 'cuda' backend needs an NVIDIA GPU with a working driver"
                + ("" if simulated else ", or Numba's simulator (set NUMBA_ENABLE_CUDASIM=1 before importing numba)")
            )


def kernels(family, backend=None):
    """The kernel module for `family` ('conv', 'pool', 'attention') of a backend
    (the current one by default)."""
    return BACKENDS[backend or _current]()[family]


# The PyTorch-shaped switches (see the module docstring); imported last, as they import
# nothing from here.
from minigrad.backends import cuda, cudnn, mps  # noqa: E402, F401
