"""minigrad.nn: layers and losses (issue #3 adds the Module system); `functional` holds
the functional forms."""

from minigrad.nn import functional

__all__ = ["functional"]
