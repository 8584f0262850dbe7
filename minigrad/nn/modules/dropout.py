"""`torch.nn.modules.dropout`'s names that minigrad has, the same objects as minigrad.nn's.

The code lives in minigrad.nn.dropout.
"""

from minigrad.nn.dropout import Dropout

__all__ = ["Dropout"]
