"""Small reference models built only from minigrad's public API."""

from minigrad.models.mlp import MLP

__all__ = ["MLP"]
