"""`torch.nn.modules.normalization`'s names: `from minigrad.nn.modules.normalization import
LocalResponseNorm`.

The same objects as minigrad.nn's, read from there when asked for (see _forward.py); the
names torch defines that minigrad.nn lacks fail as missing names do.
"""

from minigrad.nn.modules._forward import forwarding

NAMES = tuple(
    """
    LocalResponseNorm CrossMapLRN2d LayerNorm GroupNorm RMSNorm
    """.split()
)
"""torch.nn.modules.normalization's public classes."""

__getattr__, __dir__ = forwarding(__name__, NAMES)
