"""`torch.nn.modules.normalization`'s names that minigrad has, the same objects as minigrad.nn's.

The code lives in minigrad.nn.normalization.
"""

from minigrad.nn.normalization import GroupNorm, LayerNorm, RMSNorm

__all__ = ["GroupNorm", "LayerNorm", "RMSNorm"]
