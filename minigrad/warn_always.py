"""`set_warn_always`: whether warnings that are given once per process repeat every time,
as torch's switch for its warn-once warnings (TORCH_WARN_ONCE).

minigrad's once-only warnings (the Numba cache warning of `minigrad.kernels.jit`, say)
read `is_warn_always_enabled()` and, when it is on, warn on every occurrence.
"""

_warn_always = False


def set_warn_always(b):
    """Make once-only warnings repeat (True) or not (False, the default)."""
    global _warn_always
    _warn_always = bool(b)


def is_warn_always_enabled():
    """True when once-only warnings repeat (see `set_warn_always`)."""
    return _warn_always
