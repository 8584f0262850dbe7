"""The exception classes torch raises for devices, which programs catch by name.

    try:
        batch = model(x)
    except torch.OutOfMemoryError:
        ...  # retry with a smaller batch

Both are RuntimeErrors, as torch's. minigrad raises neither on the CPU (NumPy raises
MemoryError when memory runs out), but code that catches them must find the names.
"""


class OutOfMemoryError(RuntimeError):
    """An accelerator ran out of memory (torch.OutOfMemoryError, also torch.cuda's)."""


class AcceleratorError(RuntimeError):
    """An accelerator reported an error (torch.AcceleratorError)."""
