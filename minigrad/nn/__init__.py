"""minigrad.nn: Modules (layers, containers, losses), functional forms, init and utils."""

from minigrad.nn import functional, init, utils
from minigrad.nn.activation import ELU, GELU, LeakyReLU, LogSoftmax, Mish, ReLU, Sigmoid, SiLU, Softmax, Softplus, Tanh
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
from minigrad.nn.dropout import Dropout
from minigrad.nn.embedding import Embedding
from minigrad.nn.linear import Dense, Linear
from minigrad.nn.loss import (
    BCELoss,
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    HuberLoss,
    KLDivLoss,
    L1Loss,
    MSELoss,
    NLLLoss,
    SmoothL1Loss,
)
from minigrad.nn.module import Module
from minigrad.nn.normalization import (
    BatchNorm1D,
    BatchNorm1d,
    BatchNorm2D,
    BatchNorm2d,
    GroupNorm,
    LayerNorm,
    RMSNorm,
)
from minigrad.nn.parameter import Parameter

__all__ = [
    "BCELoss",
    "BCEWithLogitsLoss",
    "BatchNorm1D",
    "BatchNorm1d",
    "BatchNorm2D",
    "BatchNorm2d",
    "CrossEntropyLoss",
    "Dense",
    "Dropout",
    "ELU",
    "Embedding",
    "Flatten",
    "GELU",
    "GroupNorm",
    "HuberLoss",
    "Identity",
    "KLDivLoss",
    "L1Loss",
    "LayerNorm",
    "LeakyReLU",
    "Linear",
    "LogSoftmax",
    "MSELoss",
    "Mish",
    "Module",
    "ModuleDict",
    "ModuleList",
    "NLLLoss",
    "Parameter",
    "ParameterDict",
    "ParameterList",
    "RMSNorm",
    "ReLU",
    "Sequential",
    "SiLU",
    "Sigmoid",
    "SmoothL1Loss",
    "Softmax",
    "Softplus",
    "Tanh",
    "Unflatten",
    "functional",
    "init",
    "utils",
]
