"""`torch.nn.modules.conv`'s names: `from minigrad.nn.modules.conv import Conv1d`.

The same objects as minigrad.nn's, read from there when asked for (see _forward.py); the
names torch defines that minigrad.nn lacks fail as missing names do.
"""

from minigrad.nn.modules._forward import forwarding

NAMES = tuple(
    """
    Conv1d Conv2d Conv3d ConvTranspose1d ConvTranspose2d ConvTranspose3d LazyConv1d
    LazyConv2d LazyConv3d LazyConvTranspose1d LazyConvTranspose2d
    LazyConvTranspose3d
    """.split()
)
"""torch.nn.modules.conv's public classes."""

__getattr__, __dir__ = forwarding(__name__, NAMES)
