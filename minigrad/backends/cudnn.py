"""`mg.backends.cudnn`: the cuDNN switches of `torch.backends.cudnn`, accepted and stored.

PyTorch programs often start with `torch.backends.cudnn.benchmark = True` or, for
reproducibility, `torch.backends.cudnn.deterministic = True`. minigrad never calls cuDNN
(its GPU kernels are its own Numba ones, see `mg.backends`), so these are plain module
attributes with PyTorch's defaults: setting them works and changes nothing.
"""

enabled = True
"""Whether PyTorch may use cuDNN (default True)."""

benchmark = False
"""Whether PyTorch times several convolution algorithms and keeps the fastest (default False)."""

deterministic = False
"""Whether PyTorch must pick deterministic convolution algorithms (default False)."""

allow_tf32 = True
"""Whether cuDNN convolutions may use TensorFloat-32 on Ampere GPUs (default True)."""


def is_available():
    """False: minigrad is not built against cuDNN."""
    return False


def version():
    """None, as `torch.backends.cudnn.version()` when cuDNN is not available."""
    return None
