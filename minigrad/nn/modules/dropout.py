"""`torch.nn.modules.dropout`'s names: `from minigrad.nn.modules.dropout import Dropout`.

The same objects as minigrad.nn's, read from there when asked for (see _forward.py); the
names torch defines that minigrad.nn lacks fail as missing names do.
"""

from minigrad.nn.modules._forward import forwarding

NAMES = tuple(
    """
    Dropout Dropout1d Dropout2d Dropout3d AlphaDropout FeatureAlphaDropout
    """.split()
)
"""torch.nn.modules.dropout's public classes."""

__getattr__, __dir__ = forwarding(__name__, NAMES)
