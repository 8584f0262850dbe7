"""`torch.nn.modules.batchnorm`'s names: `from minigrad.nn.modules.batchnorm import BatchNorm1d`.

The same objects as minigrad.nn's, read from there when asked for (see _forward.py); the
names torch defines that minigrad.nn lacks fail as missing names do.
"""

from minigrad.nn.modules._forward import forwarding

NAMES = tuple(
    """
    BatchNorm1d LazyBatchNorm1d BatchNorm2d LazyBatchNorm2d BatchNorm3d
    LazyBatchNorm3d SyncBatchNorm
    """.split()
)
"""torch.nn.modules.batchnorm's public classes."""

__getattr__, __dir__ = forwarding(__name__, NAMES)
