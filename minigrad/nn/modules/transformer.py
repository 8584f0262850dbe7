"""`torch.nn.modules.transformer`'s names that minigrad has, the same objects as minigrad.nn's.

The code lives in minigrad.nn.transformer.
"""

from minigrad.nn.transformer import (
    Transformer,
    TransformerDecoder,
    TransformerDecoderLayer,
    TransformerEncoder,
    TransformerEncoderLayer,
)

__all__ = [
    "Transformer",
    "TransformerDecoder",
    "TransformerDecoderLayer",
    "TransformerEncoder",
    "TransformerEncoderLayer",
]
