"""`mg.amp`: PyTorch's automatic mixed precision API (`torch.amp`).

- grad_scaler.py    GradScaler: dynamic loss scaling, torch's algorithm, in full
- autocast_mode.py  autocast: accepted, and never lowers the precision (minigrad's ops
                    compute in their inputs' dtypes); custom_fwd / custom_bwd

`mg.cuda.amp` holds the same under torch.cuda.amp's deprecated names.
"""

from minigrad.amp import autocast_mode, grad_scaler  # noqa: F401
from minigrad.amp.autocast_mode import autocast, custom_bwd, custom_fwd, is_autocast_available
from minigrad.amp.grad_scaler import GradScaler

__all__ = ["GradScaler", "autocast", "custom_bwd", "custom_fwd", "is_autocast_available"]
