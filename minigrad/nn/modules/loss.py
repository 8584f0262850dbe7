"""`torch.nn.modules.loss`'s names that minigrad has, the same objects as minigrad.nn's.

The code lives in minigrad.nn.loss.
"""

from minigrad.nn.loss import (
    BCELoss,
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    HuberLoss,
    KLDivLoss,
    L1Loss,
    MSELoss,
    NLLLoss,
    SmoothL1Loss,
)

__all__ = [
    "BCELoss",
    "BCEWithLogitsLoss",
    "CrossEntropyLoss",
    "HuberLoss",
    "KLDivLoss",
    "L1Loss",
    "MSELoss",
    "NLLLoss",
    "SmoothL1Loss",
]
