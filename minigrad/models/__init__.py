"""Small reference models built only from minigrad's public API."""

from minigrad.models.gpt import GPT
from minigrad.models.lenet import LeNet5
from minigrad.models.mlp import MLP
from minigrad.models.resnet import BasicBlock, ResNet
from minigrad.models.seq2seq import Seq2SeqTransformer

__all__ = ["GPT", "MLP", "BasicBlock", "LeNet5", "ResNet", "Seq2SeqTransformer"]
