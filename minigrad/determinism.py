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
        raise TypeError(
            f"use_deterministic_algorithms: mode must be a bool, got {type(mode).__name__}"
        )
    _deterministic, _warn_only = mode, bool(warn_only)


def are_deterministic_algorithms_enabled():
    """What `use_deterministic_algorithms` was last given (False by default)."""
    return _deterministic


def is_deterministic_algorithms_warn_only_enabled():
    return _warn_only


_DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}


def set_deterministic_debug_mode(debug_mode):
    """torch's other spelling of `use_deterministic_algorithms`: "default" (0) is
    `use_deterministic_algorithms(False)`, "warn" (1) the same with warn_only=True, "error"
    (2) with warn_only=False (stored, as use_deterministic_algorithms)."""
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError(
                "invalid value of debug_mode, expected one of `default`, `warn`, `error`, but got "
                f"{debug_mode}"
            )
        debug_mode = _DEBUG_MODES[debug_mode]
    elif not isinstance(debug_mode, int) or isinstance(debug_mode, bool):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(
            f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}"
        )
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode():
    """0, 1 or 2: the setting of `use_deterministic_algorithms` as a debug mode (see
    `set_deterministic_debug_mode`)."""
    if not _deterministic:
        return 0
    return 1 if _warn_only else 2


def set_float32_matmul_precision(precision):
    """'highest' (the default), 'high' or 'medium' (stored; NumPy's matmul is float32)."""
    global _matmul_precision
    if precision not in ("highest", "high", "medium"):
        raise RuntimeError(
            "set_float32_matmul_precision: expected 'highest', 'high' or 'medium', got "
            f"{precision!r}"
        )
    _matmul_precision = precision


def get_float32_matmul_precision():
    return _matmul_precision
