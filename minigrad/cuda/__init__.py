"""`mg.cuda`: the `torch.cuda` functions device-agnostic programs call.

minigrad tensors live in host memory, so from PyTorch's point of view there is no CUDA
device: `is_available()` is False and `device_count()` is 0, which sends the usual idiom
`torch.device("cuda" if torch.cuda.is_available() else "cpu")` to the CPU. minigrad's
GPU kernels are a separate matter: they run on host tensors and are chosen with
`mg.backends.use('cuda')` (see `minigrad/backends`).
"""


def is_available():
    """False: no minigrad tensor can live on a GPU (see `mg.backends.use('cuda')`)."""
    return False


def device_count():
    """0, the number of CUDA devices tensors can be placed on."""
    return 0


def is_initialized():
    """False: there is no CUDA context for tensors to initialise."""
    return False


def is_bf16_supported(including_emulation=True):
    """False: minigrad has no bfloat16 tensors on any device (NumPy has no bfloat16 type),
    which sends nanoGPT's `'bfloat16' if torch.cuda.is_available() and
    torch.cuda.is_bf16_supported() else 'float16'` to float16, as torch without CUDA does."""
    return False


def manual_seed(seed):
    """Accepted and ignored, as in PyTorch without CUDA (seed with `mg.manual_seed`)."""
    int(seed)  # a bad seed still fails here, as it would on a machine with a GPU


def manual_seed_all(seed):
    """Accepted and ignored, as `manual_seed`."""
    int(seed)


def synchronize(device=None):
    """Return at once: every minigrad op, GPU kernels included, has finished when it
    returns (the kernels copy their results back to host memory), so there is nothing
    to wait for. Timing code that calls it around a step therefore works unchanged."""


def empty_cache():
    """Nothing to free: there is no GPU memory cache (a no-op, as in PyTorch without CUDA)."""


def _no_gpu(op):
    return RuntimeError(
        f"mg.cuda.{op}: there is no CUDA device for tensors (mg.cuda.is_available() is False); "
        "minigrad's GPU kernels are selected with mg.backends.use('cuda')"
    )


def current_device():
    """Raises: there is no current CUDA device."""
    raise _no_gpu("current_device")


def get_device_name(device=None):
    """Raises: there is no CUDA device to name."""
    raise _no_gpu("get_device_name")
