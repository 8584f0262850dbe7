"""`torch.nn.modules.batchnorm`'s names that minigrad has, the same objects as minigrad.nn's.

The code lives in minigrad.nn.normalization.
"""

from minigrad.nn.normalization import BatchNorm1d, BatchNorm2d

__all__ = ["BatchNorm1d", "BatchNorm2d"]
