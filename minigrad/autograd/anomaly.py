"""`detect_anomaly`: stop at the first op whose forward or backward makes NaN or Inf.

Without it a NaN appears in a loss many steps after the op that produced it; with it
the error names that op. It checks every output, so it is slow: a debugging tool.
"""

import numpy as np

_enabled = False


def is_anomaly_enabled():
    return _enabled


class detect_anomaly:
    """Context manager: raise at the op that first produces NaN/Inf, naming it."""

    def __init__(self, check_nan=True):
        self.check_nan = check_nan

    def __enter__(self):
        global _enabled
        self.prev, _enabled = _enabled, self.check_nan
        return self

    def __exit__(self, *exc):
        global _enabled
        _enabled = self.prev
        return False


def check_finite(array, where):
    """Raise RuntimeError naming `where` if a float array holds NaN or Inf."""
    if array.dtype.kind == "f" and not np.all(np.isfinite(array)):
        kind = "nan" if np.isnan(array).any() else "inf"
        raise RuntimeError(f"detect_anomaly: {where} returned {kind} values")
