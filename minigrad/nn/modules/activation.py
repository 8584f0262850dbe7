"""`torch.nn.modules.activation`'s names: `from minigrad.nn.modules.activation import Threshold`.

The same objects as minigrad.nn's, read from there when asked for (see _forward.py); the
names torch defines that minigrad.nn lacks fail as missing names do.
"""

from minigrad.nn.modules._forward import forwarding

NAMES = tuple(
    """
    Threshold ReLU RReLU Hardtanh ReLU6 Sigmoid Hardsigmoid Tanh SiLU Mish Hardswish
    ELU CELU SELU GLU GELU Hardshrink LeakyReLU LogSigmoid Softplus Softshrink
    MultiheadAttention PReLU Softsign Tanhshrink Softmin Softmax Softmax2d
    LogSoftmax
    """.split()
)
"""torch.nn.modules.activation's public classes."""

__getattr__, __dir__ = forwarding(__name__, NAMES)
