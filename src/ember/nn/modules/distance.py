"""torch.nn's distance modules: PairwiseDistance and CosineSimilarity.

Layer: nn. In: PyTorch's constructor arguments. Out: parameterless modules whose forward
calls F.pairwise_distance / F.cosine_similarity; they print as `PairwiseDistance()`.
Mirrors torch/nn/modules/distance.py.
"""

from __future__ import annotations

from ember.nn import functional as F
from ember.nn.modules.module import Module

__all__ = ["PairwiseDistance", "CosineSimilarity"]


class PairwiseDistance(Module):
    __constants__ = ["norm", "eps", "keepdim"]

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> None:
        super().__init__()
        self.norm = p
        self.eps = eps
        self.keepdim = keepdim

    def forward(self, x1, x2):
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class CosineSimilarity(Module):
    __constants__ = ["dim", "eps"]

    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim = dim
        self.eps = eps

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, self.dim, self.eps)
