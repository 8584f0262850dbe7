"""Where CUDA tensors get their arrays: CuPy on an NVIDIA GPU, or the simulator.

A CUDA tensor's storage is a CuPy array: CuPy is NumPy's API on the GPU, so the body of
each op, written once with NumPy's names, runs on either (see `minigrad/array_module.py`).
CuPy is optional (`pip install "minigrad[cuda]"`) and is imported the first time a GPU is
asked about, never by `import minigrad`. Three situations:

- CuPy is installed and a GPU answers: `cupy()` is CuPy, `mg.cuda.is_available()` is True;
- `MINIGRAD_CUDA_SIMULATOR=1` is set (or `simulate()` was called): `cupy()` is
  `minigrad/cuda/simulator.py`, CuPy's rules on host memory (how CI tests this code);
- neither: `cupy()` is None, and asking for a CUDA tensor raises `require`'s error, which
  says what is missing.
"""

import os

_module = None  # CuPy, the simulator, or None, once found
_looked = False  # whether _find has run
_why_not = ""  # why there is no GPU, for the error message
_simulated = os.environ.get("MINIGRAD_CUDA_SIMULATOR") == "1"
in_use = False  # set once a CUDA tensor may exist; until then ops skip the device check


def _find():
    """Import CuPy and ask it for a GPU; remember the answer (and why not)."""
    global _module, _looked, _why_not
    _looked = True
    if _simulated:
        from minigrad.cuda import simulator

        _module = simulator
        return
    try:
        import cupy
    except ImportError:
        _why_not = (
            'CuPy is not installed (pip install "minigrad[cuda]", on a machine with an NVIDIA GPU)'
        )
        return
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as error:  # no driver, or a driver too old for this CuPy
        _why_not = f"CuPy is installed but found no usable NVIDIA GPU ({error})"
        return
    if count == 0:
        _why_not = "CuPy is installed but found no NVIDIA GPU"
        return
    _module = cupy


def cupy():
    """The array module of CUDA tensors (CuPy or the simulator), or None without a GPU."""
    if not _looked:
        _find()
    return _module


def simulated():
    """True when CUDA tensors live on the simulated GPU."""
    return cupy() is not None and _simulated


def simulate(on=True):
    """Switch the simulated GPU on (or off) for this process: `device="cuda"` then makes
    tensors on it. For tests and for trying device code on a machine without a GPU;
    tensors made before the switch keep the arrays they have."""
    global _simulated, _looked, _module
    _simulated, _looked, _module = bool(on), False, None


def require(op):
    """CuPy (or the simulator), or a RuntimeError naming `op` and what is missing."""
    global in_use
    module = cupy()
    if module is None:
        raise RuntimeError(
            f"{op}: no CUDA device is available: {_why_not}. "
            "mg.cuda.is_available() tells whether there is one; device-agnostic code picks "
            "mg.device('cuda' if mg.cuda.is_available() else 'cpu'). "
            "Without a GPU, MINIGRAD_CUDA_SIMULATOR=1 simulates one in host memory."
        )
    in_use = True
    return module


def device_count():
    """The number of GPUs CuPy sees (1 for the simulator, 0 without CuPy or a GPU)."""
    module = cupy()
    return 0 if module is None else module.cuda.runtime.getDeviceCount()


_generator = {"rng": None, "seed": None}  # the GPU's generator, made at its first draw


def seed_generator(seed):
    """Seed the GPU's generator (torch.cuda.manual_seed); it is made when first drawn from,
    so seeding imports nothing and works without a GPU."""
    _generator["seed"], _generator["rng"] = int(seed) & 0xFFFF_FFFF_FFFF_FFFF, None


def generator(default_seed):
    """The GPU's generator, a CuPy `random.RandomState` (seeded with `default_seed` if
    `seed_generator` was never called)."""
    if _generator["rng"] is None:
        xp = require("random numbers on cuda")
        seed = _generator["seed"] if _generator["seed"] is not None else default_seed
        # RandomState takes 32-bit seeds
        _generator["rng"] = xp.random.RandomState(seed & 0xFFFF_FFFF)
    return _generator["rng"]
