"""minigrad.nn: Modules (layers, containers, losses), functional forms, init and utils."""

from minigrad.nn import functional, init
from minigrad.nn.containers import (
    Flatten,
    Identity,
    ModuleDict,
    ModuleList,
    ParameterDict,
    ParameterList,
    Sequential,
    Unflatten,
)
from minigrad.nn.linear import Linear
from minigrad.nn.module import Module
from minigrad.nn.parameter import Parameter

__all__ = [
    "Flatten",
    "Identity",
    "Linear",
    "Module",
    "ModuleDict",
    "ModuleList",
    "Parameter",
    "ParameterDict",
    "ParameterList",
    "Sequential",
    "Unflatten",
    "functional",
    "init",
]
