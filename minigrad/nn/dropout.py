"""Dropout: randomly silence units while training, so no unit can rely on another.

Each element is zeroed with probability p and the survivors are scaled by 1 / (1 - p)
("inverted" dropout), so the expected output equals the input and evaluation is the
identity: `model.eval()` switches it off, nothing needs rescaling at test time.
"""

from minigrad.nn import functional as F
from minigrad.nn.functional.dropout import check_dropout_probability
from minigrad.nn.module import Module


class Dropout(Module):
    """y = x * m / (1 - p), m ~ Bernoulli(1 - p) per element, in training; y = x in eval.

    dL/dx = dL/dy * m / (1 - p): the gradient flows only through the kept elements.
    The mask comes from the global generator (`mg.manual_seed`). `inplace` is accepted
    for PyTorch compatibility; minigrad always returns a new tensor.
    """

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        check_dropout_probability(p, "Dropout")
        self.p, self.inplace = p, inplace

    def forward(self, input):
        return F.dropout(input, self.p, self.training)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"
