"""`torch.nn.modules.pooling`'s names that minigrad has, the same objects as minigrad.nn's.

The code lives in minigrad.nn.pooling.
"""

from minigrad.nn.pooling import AdaptiveAvgPool2d, AvgPool1d, AvgPool2d, MaxPool1d, MaxPool2d

__all__ = ["AdaptiveAvgPool2d", "AvgPool1d", "AvgPool2d", "MaxPool1d", "MaxPool2d"]
