"""`mg.cuda`: the `torch.cuda` functions programs call, about the one GPU minigrad uses.

With an NVIDIA GPU and CuPy installed (`pip install "minigrad[cuda]"`), tensors can live
on it (`device="cuda"`) and these functions answer about it. Without, `is_available()`
is False and `device_count()` 0, which sends the usual idiom
`torch.device("cuda" if torch.cuda.is_available() else "cpu")` to the CPU; the functions
that need a GPU (`current_device`, `get_device_name`) raise an error that says what is
missing. `MINIGRAD_CUDA_SIMULATOR=1` (or `simulate()`) simulates a GPU in host memory.

The GPU runs asynchronously: an op returns once its work is queued, not done. Timing
code must call `synchronize()` before reading the clock, as in PyTorch.
"""

from minigrad.cuda import runtime
from minigrad.cuda.runtime import simulate

__all__ = ["simulate"]


def is_available():
    """True when tensors can be placed on a GPU (CuPy and an NVIDIA GPU, or the simulator)."""
    return runtime.cupy() is not None


def device_count():
    """The number of GPUs CuPy sees (0 without CuPy or a GPU)."""
    return runtime.device_count()


def is_initialized():
    """True once a CUDA tensor may have been made in this process."""
    return runtime.in_use


def is_bf16_supported(including_emulation=True):
    """False: minigrad has no bfloat16 tensors on any device (NumPy has no bfloat16 type),
    which sends nanoGPT's `'bfloat16' if torch.cuda.is_available() and
    torch.cuda.is_bf16_supported() else 'float16'` to float16."""
    return False


def manual_seed(seed):
    """Seed the GPU's generator (what `mg.randn(..., device="cuda")` and dropout on CUDA
    tensors draw from); `mg.manual_seed` seeds it too. Without a GPU it checks the seed
    and changes nothing, as in PyTorch."""
    runtime.seed_generator(seed)


def manual_seed_all(seed):
    """As `manual_seed` (minigrad uses one GPU)."""
    manual_seed(seed)


def synchronize(device=None):
    """Wait until every op queued on the GPU has finished (returns at once without one).

    GPU ops return as soon as their work is queued, so a timer read right after a step
    measures the queueing, not the step; PyTorch and minigrad timing code calls this first."""
    module = runtime.cupy()
    if module is not None:
        module.cuda.Device(0).synchronize()


def empty_cache():
    """Give the GPU memory CuPy keeps for reuse back to the driver (no-op without a GPU)."""
    module = runtime.cupy()
    if module is not None:
        module.get_default_memory_pool().free_all_blocks()


def memory_allocated(device=None):
    """Bytes of GPU memory held by live arrays (CuPy's memory pool: its used bytes); 0
    without a GPU."""
    module = runtime.cupy()
    return 0 if module is None else int(module.get_default_memory_pool().used_bytes())


def memory_reserved(device=None):
    """Bytes of GPU memory CuPy's pool holds, in use or kept for reuse; 0 without a GPU."""
    module = runtime.cupy()
    return 0 if module is None else int(module.get_default_memory_pool().total_bytes())


def current_device():
    """0, the index of the GPU in use; raises without one."""
    runtime.require("mg.cuda.current_device")
    return 0


def get_device_name(device=None):
    """The GPU's name, as the driver reports it ('NVIDIA H100 80GB HBM3'); raises without one."""
    module = runtime.require("mg.cuda.get_device_name")
    name = module.cuda.runtime.getDeviceProperties(0)["name"]
    return name.decode() if isinstance(name, bytes) else str(name)
