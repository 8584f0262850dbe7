"""`torch.nn.modules.transformer`'s names: `from minigrad.nn.modules.transformer import
Transformer`.

The same objects as minigrad.nn's, read from there when asked for (see _forward.py); the
names torch defines that minigrad.nn lacks fail as missing names do.
"""

from minigrad.nn.modules._forward import forwarding

NAMES = tuple(
    """
    Transformer TransformerEncoder TransformerDecoder TransformerEncoderLayer
    TransformerDecoderLayer
    """.split()
)
"""torch.nn.modules.transformer's public classes."""

__getattr__, __dir__ = forwarding(__name__, NAMES)
