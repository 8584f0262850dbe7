"""`torch.nn.modules.loss`'s names: `from minigrad.nn.modules.loss import L1Loss`.

The same objects as minigrad.nn's, read from there when asked for (see _forward.py); the
names torch defines that minigrad.nn lacks fail as missing names do.
"""

from minigrad.nn.modules._forward import forwarding

NAMES = tuple(
    """
    L1Loss NLLLoss NLLLoss2d PoissonNLLLoss GaussianNLLLoss KLDivLoss MSELoss
    BCELoss BCEWithLogitsLoss HingeEmbeddingLoss MultiLabelMarginLoss SmoothL1Loss
    HuberLoss SoftMarginLoss CrossEntropyLoss LinearCrossEntropyLoss
    MultiLabelSoftMarginLoss CosineEmbeddingLoss MarginRankingLoss MultiMarginLoss
    TripletMarginLoss TripletMarginWithDistanceLoss CTCLoss
    """.split()
)
"""torch.nn.modules.loss's public classes."""

__getattr__, __dir__ = forwarding(__name__, NAMES)
