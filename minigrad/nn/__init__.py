"""minigrad.nn: Modules (layers, containers, losses), functional forms, init and utils."""

from minigrad.nn import functional, init, modules, parallel, utils
from minigrad.nn.activation import ELU, GELU, LeakyReLU, LogSoftmax, Mish, ReLU, Sigmoid, SiLU, Softmax, Softplus, Tanh
from minigrad.nn.attention import Attention, AttnProcessor, AttnProcessor2_0
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
from minigrad.nn.conv import Conv1d, Conv2D, Conv2d, Conv2DTranspose, Conv2dTranspose, ConvTranspose2d
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
from minigrad.nn.multihead_attention import MultiheadAttention
from minigrad.nn.normalization import (
    BatchNorm1D,
    BatchNorm1d,
    BatchNorm2D,
    BatchNorm2d,
    GroupNorm,
    LayerNorm,
    RMSNorm,
)
from minigrad.nn.parallel import DataParallel
from minigrad.nn.parameter import Parameter
from minigrad.nn.pooling import (
    AdaptiveAvgPool2d,
    AvgPool1d,
    AvgPool2D,
    AvgPool2d,
    GlobalAvgPool2D,
    GlobalAvgPool2d,
    MaxPool1d,
    MaxPool2D,
    MaxPool2d,
)
from minigrad.nn.positional import LearnedPositionalEmbedding, SinusoidalPositionalEncoding
from minigrad.nn.recurrent import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase
from minigrad.nn.rotary import RotaryEmbedding
from minigrad.nn.simple_attention import MultiHeadAttention
from minigrad.nn.transformer import (
    Transformer,
    TransformerDecoder,
    TransformerDecoderLayer,
    TransformerEncoder,
    TransformerEncoderLayer,
)
from minigrad.nn.upsampling import Upsample, UpsamplingBilinear2d, UpsamplingNearest2d

__all__ = [
    "AdaptiveAvgPool2d",
    "Attention",
    "AttnProcessor",
    "AttnProcessor2_0",
    "AvgPool1d",
    "AvgPool2D",
    "AvgPool2d",
    "BCELoss",
    "BCEWithLogitsLoss",
    "BatchNorm1D",
    "BatchNorm1d",
    "BatchNorm2D",
    "BatchNorm2d",
    "Conv1d",
    "Conv2D",
    "Conv2DTranspose",
    "Conv2d",
    "Conv2dTranspose",
    "ConvTranspose2d",
    "CrossEntropyLoss",
    "DataParallel",
    "Dense",
    "Dropout",
    "ELU",
    "Embedding",
    "Flatten",
    "GELU",
    "GRU",
    "GRUCell",
    "GlobalAvgPool2D",
    "GlobalAvgPool2d",
    "GroupNorm",
    "HuberLoss",
    "Identity",
    "KLDivLoss",
    "L1Loss",
    "LSTM",
    "LSTMCell",
    "LayerNorm",
    "LearnedPositionalEmbedding",
    "LeakyReLU",
    "Linear",
    "LogSoftmax",
    "MSELoss",
    "MaxPool1d",
    "MaxPool2D",
    "MaxPool2d",
    "Mish",
    "Module",
    "MultiheadAttention",
    "ModuleDict",
    "ModuleList",
    "MultiHeadAttention",
    "NLLLoss",
    "Parameter",
    "ParameterDict",
    "ParameterList",
    "RMSNorm",
    "RNN",
    "RNNBase",
    "RNNCell",
    "RNNCellBase",
    "ReLU",
    "RotaryEmbedding",
    "Sequential",
    "SiLU",
    "Sigmoid",
    "SmoothL1Loss",
    "Softmax",
    "Softplus",
    "SinusoidalPositionalEncoding",
    "Tanh",
    "Transformer",
    "TransformerDecoder",
    "TransformerDecoderLayer",
    "TransformerEncoder",
    "TransformerEncoderLayer",
    "Unflatten",
    "Upsample",
    "UpsamplingBilinear2d",
    "UpsamplingNearest2d",
    "functional",
    "init",
    "modules",
    "parallel",
    "utils",
]
