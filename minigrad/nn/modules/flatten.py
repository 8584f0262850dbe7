"""`torch.nn.modules.flatten`'s names that minigrad has, the same objects as minigrad.nn's.

The code lives in minigrad.nn.containers.
"""

from minigrad.nn.containers import Flatten, Unflatten

__all__ = ["Flatten", "Unflatten"]
