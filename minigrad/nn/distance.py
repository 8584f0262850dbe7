"""Distance layers: F.pairwise_distance and F.cosine_similarity as Modules.

They hold no parameters; a Module form lets a distance be passed where torch expects a
layer (TripletMarginWithDistanceLoss's distance_function, a Sequential).
"""

from minigrad.nn import functional as F
from minigrad.nn.module import Module


class PairwiseDistance(Module):
    """y = ||x1 - x2 + eps||_p over the last dim, row by row (the two broadcast)."""

    def __init__(self, p=2.0, eps=1e-6, keepdim=False):
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def forward(self, x1, x2):
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class CosineSimilarity(Module):
    """y = x1 . x2 / (max(||x1||, eps) max(||x2||, eps)) along `dim`."""

    def __init__(self, dim=1, eps=1e-8):
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, self.dim, self.eps)
