"""`mg.cuda.amp`: torch.cuda.amp's names, deprecated in PyTorch in favour of torch.amp.

Each warns as torch's does (FutureWarning) and is `mg.amp`'s with device "cuda", so
without a CUDA device for tensors (always, in minigrad) the scaler and autocast disable
themselves with torch's warning: `scaler = torch.cuda.amp.GradScaler(enabled=use_amp)`
and `with torch.cuda.amp.autocast():` run, in full precision.
"""

import warnings

from minigrad import amp, dtypes


class GradScaler(amp.GradScaler):
    """`torch.cuda.amp.GradScaler(init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5,
    growth_interval=2000, enabled=True)`: `mg.amp.GradScaler("cuda", ...)`."""

    def __init__(
        self,
        init_scale=2.0**16,
        growth_factor=2.0,
        backoff_factor=0.5,
        growth_interval=2000,
        enabled=True,
    ):
        warnings.warn(
            "`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
            "`torch.amp.GradScaler('cuda', args...)` instead.",
            FutureWarning,
            stacklevel=2,
        )
        super().__init__(
            "cuda", init_scale, growth_factor, backoff_factor, growth_interval, enabled
        )


class autocast(amp.autocast):
    """`torch.cuda.amp.autocast(enabled=True, dtype=float16, cache_enabled=True)`:
    `mg.amp.autocast("cuda", ...)`."""

    def __init__(self, enabled=True, dtype=dtypes.float16, cache_enabled=True):
        warnings.warn(
            "`torch.cuda.amp.autocast(args...)` is deprecated. Please use "
            "`torch.amp.autocast('cuda', args...)` instead.",
            FutureWarning,
            stacklevel=2,
        )
        super().__init__("cuda", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


def custom_fwd(fwd=None, *, cast_inputs=None):
    """`torch.cuda.amp.custom_fwd`: `mg.amp.custom_fwd(device_type="cuda")`."""
    warnings.warn(
        "`torch.cuda.amp.custom_fwd(args...)` is deprecated. Please use "
        "`torch.amp.custom_fwd(args..., device_type='cuda')` instead.",
        FutureWarning,
        stacklevel=2,
    )
    return amp.custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)


def custom_bwd(bwd=None):
    """`torch.cuda.amp.custom_bwd`: `mg.amp.custom_bwd(device_type="cuda")`."""
    warnings.warn(
        "`torch.cuda.amp.custom_bwd(args...)` is deprecated. Please use "
        "`torch.amp.custom_bwd(args..., device_type='cuda')` instead.",
        FutureWarning,
        stacklevel=2,
    )
    return amp.custom_bwd(bwd, device_type="cuda")
