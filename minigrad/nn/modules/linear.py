"""`torch.nn.modules.linear`'s names that minigrad has, the same objects as minigrad.nn's.

The code lives in minigrad.nn.containers and minigrad.nn.linear.
"""

from minigrad.nn.containers import Identity
from minigrad.nn.linear import Linear

__all__ = ["Identity", "Linear"]
