"""`torch.nn.modules.container`'s names: `from minigrad.nn.modules.container import Container`.

The same objects as minigrad.nn's, read from there when asked for (see _forward.py); the
names torch defines that minigrad.nn lacks fail as missing names do.
"""

from minigrad.nn.modules._forward import forwarding

NAMES = tuple(
    """
    Container Sequential ModuleList ModuleDict ParameterList ParameterDict
    """.split()
)
"""torch.nn.modules.container's public classes."""

__getattr__, __dir__ = forwarding(__name__, NAMES)
