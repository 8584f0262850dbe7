"""Which implementation of the hot-path kernels the autograd Functions call.

Every kernel family (`FAMILIES`: attention, convolution, pooling, the matrix product,
GELU, erf, layer norm, softmax, the Adam/AdamW step, the rotary embedding, the
element-wise passes over whole arrays: a + b, a reshape's copy, the split's backward, and
the sum of every element)
exists as a reference and as CPU kernels, and attention, convolution and pooling also as
CUDA kernels, with the same function names and array-in/array-out signatures:

- `minigrad/kernels/reference/`: readable NumPy, the lesson code. Written with the array
  module of its inputs (`minigrad/array_module.py`), so it runs on CuPy arrays too;
- `minigrad/kernels/cpu/`: Numba ``@njit(nogil=True, cache=True)`` kernels whose tasks are
  cut over the cores (`kernels/cpu/workers.py`), the matrix product cut likewise, and the
  element-wise passes as NumPy calls on one block per thread, for arrays in host memory;
- `minigrad/kernels/cuda/`: Numba ``@cuda.jit`` kernels, for arrays in GPU memory (CuPy
  arrays, read in place through ``__cuda_array_interface__``). A family without them
  runs its reference on GPU arrays.

A program chooses the *backend*; the *device* of the data then picks the kernels:

    backend      a CPU tensor                 a CUDA tensor
    "numpy"      reference, in NumPy          reference, in CuPy (on the GPU)
    "numba"      Numba CPU kernels            Numba CUDA kernels
    "cuda"       Numba CUDA kernels on host   Numba CUDA kernels
                 arrays (a demonstration)

    mg.backends.use("numpy")            # from now on
    with mg.backends.use("numba"): ...  # only inside the block
    mg.backends.current()               # -> "numba"

The default is ``"numba"`` when Numba is installed, else ``"numpy"``.

``"cuda"`` is kept as a lesson demonstration of why tensors live on the GPU: on a CPU
tensor it launches the GPU kernels on host arrays, so Numba copies every array to the GPU
before each launch and back after it (slower than the CPU kernels, for all the copying);
on CUDA tensors it is ``"numba"``. It needs an NVIDIA GPU, or Numba's simulator
(``NUMBA_ENABLE_CUDASIM=1``).

The CUDA kernels need Numba's CUDA target: an NVIDIA GPU, or Numba's simulator. Where
CUDA tensors exist without either (minigrad's simulated GPU, ``MINIGRAD_CUDA_SIMULATOR=1``,
in a process without ``NUMBA_ENABLE_CUDASIM=1``, as in the main test run; or a GPU whose
driver Numba cannot use), the ``"numba"`` backend runs the reference on them, through
the array module, and says nothing.

A backend's kernel modules are imported the first time they are asked for (`kernels`),
so choosing a backend compiles nothing (and ``import minigrad`` does not import Numba,
which alone takes longer than the rest).

The submodules ``cudnn``, ``mps`` and ``cuda`` hold the switches PyTorch programs set
(``mg.backends.cudnn.benchmark = True``, ``mg.backends.mps.is_available()``): they are
accepted and stored, and change nothing, since minigrad runs neither cuDNN nor Metal.
"""

import importlib
import importlib.util
import os

import numpy as np

from minigrad.array_module import on_device

# The kernel families, and for each set of kernels the module of each family. A family
# with no CUDA kernel runs its reference on GPU arrays: array expressions, which CuPy
# runs on the GPU (GELU, erf, layer norm, softmax, the Adam/AdamW step, the rotary
# embedding, the element-wise passes, the sum), or one cuBLAS call (the matrix product).
FAMILIES = ("attention", "conv", "pool", "matmul", "gelu", "special", "layer_norm", "softmax")
FAMILIES += ("adamw", "rotary", "elementwise", "reduce")
_REFERENCE = {family: f"minigrad.kernels.reference.{family}" for family in FAMILIES}
_CPU = {family: f"minigrad.kernels.cpu.{family}" for family in FAMILIES}
_CUDA = dict(_REFERENCE)
for _family in ("attention", "conv", "pool"):
    _CUDA[_family] = f"minigrad.kernels.cuda.{_family}"

# Each module is imported the first time its family is asked for, so that nothing is
# imported before a kernel is needed; then it is looked up here (a dict, which every
# matrix product reads: cheaper than an import statement).
_modules = {}
_for_host = {}  # (backend, family) -> the module `kernels` gives for host arrays


def _module(name):
    module = _modules.get(name)
    if module is None:
        module = _modules[name] = importlib.import_module(name)
    return module


def _reference_kernels():
    return _REFERENCE


def _cpu_kernels():
    return _CPU


def _cuda_kernels():
    return _CUDA


# backend -> (kernels for host arrays, kernels for GPU arrays)
BACKENDS = {
    "numpy": (_reference_kernels, _reference_kernels),
    "numba": (_cpu_kernels, _cuda_kernels),
    "cuda": (_cuda_kernels, _cuda_kernels),
}


def _numba_available():
    # find_spec looks for the package without importing it
    return importlib.util.find_spec("numba") is not None


_current = "numba" if _numba_available() else "numpy"


class use:
    """Select a backend: now, or (as a context manager) until the block ends."""

    def __init__(self, name):
        global _current
        if name not in BACKENDS:
            raise ValueError(
                f"backends.use: unknown backend {name!r}; choose one of {sorted(BACKENDS)}"
            )
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
    """The name of the backend chosen: "numpy", "numba" or "cuda" (see the module docstring)."""
    return _current


def check_available(name):
    """Raise a clear error if backend `name` cannot run on this machine."""
    if name in ("numba", "cuda") and not _numba_available():
        raise RuntimeError(f"backends: the {name!r} backend needs Numba (pip install numba)")
    if name == "cuda" and not _numba_cuda_usable():
        simulated = os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"
        hint = ", or Numba's simulator (set NUMBA_ENABLE_CUDASIM=1 before importing numba)"
        needs = "backends: the 'cuda' backend needs an NVIDIA GPU with a working driver"
        raise RuntimeError(needs + ("" if simulated else hint))


def _numba_cuda_usable():
    """Whether Numba can launch `@cuda.jit` kernels here: a GPU it can drive, or its simulator."""
    import numba.cuda
    from numba import config

    return bool(config.ENABLE_CUDASIM) or numba.cuda.is_available()


_cuda_kernels_run = {}  # (GPU simulated?) -> can the CUDA kernels run on CUDA tensors' arrays


def cuda_kernels_run_on_device_arrays():
    """Whether the Numba CUDA kernels can take CUDA tensors' arrays. On a real GPU: Numba's
    CUDA target works (and is not its simulator, which cannot read GPU memory). On
    minigrad's simulated GPU: Numba's simulator is on (or Numba drives a real GPU, which
    then gets the host buffers copied per launch). Asked once per kind of GPU."""
    from minigrad.cuda import runtime

    simulated = runtime.simulated()
    if simulated not in _cuda_kernels_run:
        usable = False
        if _numba_available():
            from numba import config

            usable = _numba_cuda_usable() and (simulated or not config.ENABLE_CUDASIM)
        _cuda_kernels_run[simulated] = usable
    return _cuda_kernels_run[simulated]


def kernels(family, backend=None, array=None):
    """The kernel module for `family` (one of FAMILIES) of a backend (the current one by
    default), for data like `array`: an array on the GPU gets the backend's GPU kernels
    (the reference when the CUDA kernels cannot run here), any other (or none) its host
    kernels."""
    name = backend or _current
    if array is None or type(array) is np.ndarray or not on_device(array):
        # host arrays: every matrix product asks, so the answer is kept per (backend, family)
        module = _for_host.get((name, family))
        if module is None:
            module = _for_host[name, family] = _module(BACKENDS[name][0]()[family])
        return module
    for_gpu = BACKENDS[name][1]
    if for_gpu is _cuda_kernels and not cuda_kernels_run_on_device_arrays():
        return _module(_REFERENCE[family])
    return _module(for_gpu()[family])


# The PyTorch-shaped switches (see the module docstring); imported last, as they import
# nothing from here.
from minigrad.backends import cuda, cudnn, mps  # noqa: E402, F401
