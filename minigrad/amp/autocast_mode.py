"""autocast: PyTorch's mixed precision switch, which minigrad accepts and never turns on.

Inside `torch.autocast(device_type, dtype)`, PyTorch runs chosen ops (matmul, linear,
convolution) in a lower precision, float16 or bfloat16, for speed on hardware that has
fast low-precision units, and keeps others (softmax, losses) in float32. minigrad does
not do this: its ops always compute in their inputs' dtypes. So here `autocast` is the
context manager and decorator programs use, with torch's arguments and checks, and:

- `enabled=False`: does nothing, as in torch.
- the cases torch itself disables (CUDA asked for without CUDA; a CPU dtype other than
  bfloat16 and float16): disabled with torch's warning.
- the case torch would carry out (`autocast("cpu")`, in bfloat16 or float16): disabled
  too, with a warning that says so. The block then runs in full precision: the results
  are those of the program without autocast, not those of PyTorch's low-precision run.

`is_autocast_enabled()` is therefore always False, and `custom_fwd` / `custom_bwd`
(the decorators of a custom Function's forward and backward under autocast) leave the
function as it is, which is what torch's do when autocast is off.
"""

import functools
import warnings

from minigrad import cuda, dtypes
from minigrad.devices import device as _device

DEFAULT_DTYPES = {"cpu": dtypes.bfloat16, "cuda": dtypes.float16}
"""The dtype autocast would use on each device when none is given (torch's defaults)."""


class autocast:
    """`autocast(device_type, dtype=None, enabled=True, cache_enabled=None)`: a context
    manager (`with mg.autocast("cpu"):`) and decorator, as `torch.autocast`; minigrad
    never lowers the precision (see the module docstring), so the block always runs in
    the tensors' own dtypes."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        _check_device_type(device_type)
        self.device = _device(device_type).type  # an unknown device type raises here, as in torch
        self.fast_dtype = (
            DEFAULT_DTYPES.get(self.device, dtypes.float16) if dtype is None else dtype
        )
        self._enabled = bool(enabled)
        self._cache_enabled = cache_enabled
        if not self._enabled:
            return
        if self.device == "cuda" and not cuda.is_available():
            warnings.warn(
                "CUDA is not available or torch_xla is imported. Disabling autocast.", stacklevel=2
            )
        elif self.device == "cpu" and self.fast_dtype not in (dtypes.bfloat16, dtypes.float16):
            warnings.warn(
                "In CPU autocast, but the target dtype is not supported. Disabling autocast.\n"
                "CPU Autocast only supports dtypes of torch.bfloat16, torch.float16 currently.",
                stacklevel=2,
            )
        else:
            warnings.warn(
                f"mg.autocast({self.device!r}, dtype={self.fast_dtype}): minigrad does not run ops "
                "in a lower precision, so autocast is disabled and the block runs in the tensors' "
                "own dtypes (full precision: the results are those without autocast, not PyTorch's "
                "reduced-precision ones)",
                stacklevel=2,
            )
        self._enabled = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __call__(self, func):
        """Use as a decorator: `func` runs inside this autocast."""

        @functools.wraps(func)
        def decorated(*args, **kwargs):
            with self:
                return func(*args, **kwargs)

        return decorated


def is_autocast_available(device_type):
    """False for every device: minigrad never runs ops in a lower precision under autocast."""
    _device(device_type)  # an unknown device type still raises
    return False


def is_autocast_enabled(device_type=None):
    """False: autocast is never on in minigrad (`torch.is_autocast_enabled`)."""
    return False


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """Decorator for a custom Function's `forward` (`torch.amp.custom_fwd`): it would cast
    the inputs to `cast_inputs` inside an enabled autocast, and autocast is never enabled
    in minigrad, so the forward is returned as it is."""
    _check_device_type(device_type)
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)
    return fwd


def custom_bwd(bwd=None, *, device_type):
    """Decorator for a custom Function's `backward` (`torch.amp.custom_bwd`): returned as
    it is, for the reason `custom_fwd` gives."""
    _check_device_type(device_type)
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)
    return bwd


def _check_device_type(device_type):
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
