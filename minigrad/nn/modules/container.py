"""`torch.nn.modules.container`'s names that minigrad has, the same objects as minigrad.nn's.

The code lives in minigrad.nn.containers.
"""

from minigrad.nn.containers import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential

__all__ = ["ModuleDict", "ModuleList", "ParameterDict", "ParameterList", "Sequential"]
