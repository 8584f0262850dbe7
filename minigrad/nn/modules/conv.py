"""`torch.nn.modules.conv`'s names that minigrad has, the same objects as minigrad.nn's.

The code lives in minigrad.nn.conv.
"""

from minigrad.nn.conv import Conv1d, Conv2d, ConvTranspose2d

__all__ = ["Conv1d", "Conv2d", "ConvTranspose2d"]
