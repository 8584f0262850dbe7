"""`mg.accelerator`: PyTorch's device-generic accelerator API (`torch.accelerator`).

Newer PyTorch programs pick their device with
`torch.accelerator.current_accelerator() or torch.device("cpu")` instead of naming CUDA.
minigrad tensors live in host memory, so there is no accelerator: the idiom gives the CPU.
"""


def is_available():
    """False: no accelerator can hold minigrad tensors."""
    return False


def current_accelerator(check_available=False):
    """None, as PyTorch returns when no accelerator is present."""
    return None


def device_count():
    """0 accelerator devices."""
    return 0


def synchronize(device=None):
    """Return at once: minigrad ops have finished when they return (see mg.cuda.synchronize)."""
