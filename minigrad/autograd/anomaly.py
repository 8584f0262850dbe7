"""Anomaly detection: stop at the first op whose forward or backward makes NaN or Inf.

Without it a NaN appears in a loss many steps after the op that produced it; with it
the error names that op. It checks every output, so it is slow: a debugging tool.

The switch has two parts, as torch's: anomaly mode itself (`is_anomaly_enabled`) and
whether it checks for NaN (`is_anomaly_check_nan_enabled`, on by default). torch's
anomaly mode also keeps each op's forward traceback to print when its backward fails;
minigrad names the op in the error instead, so with `check_nan=False` the mode is on
but checks nothing.

- `detect_anomaly(check_nan=True)`: a context manager that turns the mode on inside;
- `set_detect_anomaly(mode, check_nan=True)`: turns it on or off at once, and, used as
  a context manager, restores the previous setting on exit;
- `set_anomaly_enabled(enabled, check_nan=True)`: torch's plain setter
  (`torch.set_anomaly_enabled`).
"""

import warnings

import numpy as np

_mode = False  # anomaly mode (is_anomaly_enabled)
_check_nan = True  # whether the mode checks for NaN/Inf (is_anomaly_check_nan_enabled)
_enabled = False  # what the engine reads, once per op: the mode is on and checks NaN


def is_anomaly_enabled():
    """True while anomaly mode is on (torch.is_anomaly_enabled)."""
    return _mode


def is_anomaly_check_nan_enabled():
    """True when anomaly mode checks for NaN/Inf (torch.is_anomaly_check_nan_enabled);
    True by default, as torch's."""
    return _check_nan


def set_anomaly_enabled(enabled, check_nan=True):
    """Turn anomaly mode on or off, and its NaN checks (torch.set_anomaly_enabled)."""
    global _mode, _check_nan, _enabled
    _mode, _check_nan = bool(enabled), bool(check_nan)
    _enabled = _mode and _check_nan


class detect_anomaly:
    """Context manager: anomaly mode on inside; with check_nan (the default) it raises at
    the op that first produces NaN/Inf, forward or backward, naming it. Warns, as torch,
    that it slows every op down."""

    def __init__(self, check_nan=True):
        self.prev, self.prev_check_nan = _mode, _check_nan
        self.check_nan = check_nan
        warnings.warn(
            "Anomaly Detection has been enabled. This mode will increase the runtime and should "
            "only be enabled for debugging.",
            stacklevel=2,
        )

    def __enter__(self):
        set_anomaly_enabled(True, self.check_nan)
        return self

    def __exit__(self, *exc):
        set_anomaly_enabled(self.prev, self.prev_check_nan)
        return False


class set_detect_anomaly:
    """`set_detect_anomaly(mode, check_nan=True)`: anomaly mode on or off from the call on;
    as a context manager, the previous setting comes back on exit
    (torch.autograd.set_detect_anomaly)."""

    def __init__(self, mode, check_nan=True):
        self.prev, self.prev_check_nan = _mode, _check_nan
        set_anomaly_enabled(mode, check_nan)

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        set_anomaly_enabled(self.prev, self.prev_check_nan)
        return False


def check_finite(array, where):
    """Raise RuntimeError naming `where` if a float array holds NaN or Inf."""
    if array.dtype.kind == "f" and not np.all(np.isfinite(array)):
        kind = "nan" if np.isnan(array).any() else "inf"
        raise RuntimeError(f"detect_anomaly: {where} returned {kind} values")
