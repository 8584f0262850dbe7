"""Process-wide switches of PyTorch about determinism and float32 matmul precision.

PyTorch programs call `torch.use_deterministic_algorithms(True)` for reproducibility
and `torch.set_float32_matmul_precision('high')` to allow TF32 on GPUs. minigrad's ops
are deterministic already on the CPU (given the seed from `mg.manual_seed`), and its
matmul is NumPy's, so these settings are accepted, checked and stored, and change nothing.
"""

_deterministic = False
_warn_only = False
_matmul_precision = "highest"


def use_deterministic_algorithms(mode, *, warn_only=False):
    """Ask for deterministic algorithms (stored; minigrad's CPU ops are deterministic)."""
    global _deterministic, _warn_only
    if not isinstance(mode, bool):
        raise TypeError(f"use_deterministic_algorithms: mode must be a bool, got {type(mode).__name__}")
    _deterministic, _warn_only = mode, bool(warn_only)


def are_deterministic_algorithms_enabled():
    """What `use_deterministic_algorithms` was last given (False by default)."""
    return _deterministic


def is_deterministic_algorithms_warn_only_enabled():
    return _warn_only


def set_float32_matmul_precision(precision):
    """'highest' (the default), 'high' or 'medium' (stored; NumPy's matmul is float32)."""
    global _matmul_precision
    if precision not in ("highest", "high", "medium"):
        raise RuntimeError(f"set_float32_matmul_precision: expected 'highest', 'high' or 'medium', got {precision!r}")
    _matmul_precision = precision


def get_float32_matmul_precision():
    return _matmul_precision
