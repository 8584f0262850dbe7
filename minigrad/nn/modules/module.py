"""`torch.nn.modules.module`'s names that minigrad has, the same objects as minigrad.nn's.

The code lives in minigrad.nn.module.
"""

from minigrad.nn.module import Module

__all__ = ["Module"]
