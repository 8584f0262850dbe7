"""The same names as `torch.utils.data`; the code lives in `minigrad.data`."""

from minigrad.data import *  # noqa: F403
from minigrad.data import __all__  # noqa: F401
