"""`torch.nn.modules.activation`'s names that minigrad has, the same objects as minigrad.nn's.

The code lives in minigrad.nn.activation and minigrad.nn.multihead_attention.
"""

from minigrad.nn.activation import ELU, GELU, LeakyReLU, LogSoftmax, Mish, ReLU, Sigmoid, SiLU, Softmax, Softplus, Tanh
from minigrad.nn.multihead_attention import MultiheadAttention

__all__ = [
    "ELU",
    "GELU",
    "LeakyReLU",
    "LogSoftmax",
    "Mish",
    "MultiheadAttention",
    "ReLU",
    "SiLU",
    "Sigmoid",
    "Softmax",
    "Softplus",
    "Tanh",
]
