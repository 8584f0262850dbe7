"""`torch.nn.modules.module`'s names: `from minigrad.nn.modules.module import Module`.

The same objects as minigrad.nn's, read from there when asked for (see _forward.py); the
names torch defines that minigrad.nn lacks fail as missing names do.
"""

from minigrad.nn.modules._forward import forwarding

NAMES = tuple(
    """
    Module
    """.split()
)
"""torch.nn.modules.module's public classes."""

__getattr__, __dir__ = forwarding(__name__, NAMES)
