"""`torch.nn.modules.sparse`'s names that minigrad has, the same objects as minigrad.nn's.

The code lives in minigrad.nn.embedding.
"""

from minigrad.nn.embedding import Embedding

__all__ = ["Embedding"]
