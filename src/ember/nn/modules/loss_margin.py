"""torch.nn's margin and embedding loss modules: MarginRankingLoss, HingeEmbeddingLoss,
CosineEmbeddingLoss, TripletMarginLoss, TripletMarginWithDistanceLoss, MultiMarginLoss,
MultiLabelMarginLoss.

Layer: nn. In: PyTorch's constructor arguments (checked as PyTorch checks them; the
legacy size_average / reduce pair turns into `reduction`). Out: modules whose forward
calls the nn.functional loss; TripletMarginWithDistanceLoss holds its distance function
(a PairwiseDistance submodule by default). Mirrors torch/nn/modules/loss.py.
"""

from __future__ import annotations

from ember.nn import functional as F
from ember.nn.modules.distance import PairwiseDistance
from ember.nn.modules.loss import _Loss, _WeightedLoss

__all__ = [
    "MarginRankingLoss",
    "HingeEmbeddingLoss",
    "CosineEmbeddingLoss",
    "TripletMarginLoss",
    "TripletMarginWithDistanceLoss",
    "MultiMarginLoss",
    "MultiLabelMarginLoss",
]


class _MarginLoss(_Loss):
    __constants__ = ["margin", "reduction"]
    _default_margin = 0.0

    def __init__(self, margin=None, size_average=None, reduce=None, reduction="mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = self._default_margin if margin is None else margin


class MarginRankingLoss(_MarginLoss):
    def __init__(self, margin: float = 0.0, size_average=None, reduce=None,
                 reduction: str = "mean") -> None:  # fmt: skip
        super().__init__(margin, size_average, reduce, reduction)

    def forward(self, input1, input2, target):
        return F.margin_ranking_loss(input1, input2, target, margin=self.margin,
                                     reduction=self.reduction)  # fmt: skip


class HingeEmbeddingLoss(_MarginLoss):
    def __init__(self, margin: float = 1.0, size_average=None, reduce=None,
                 reduction: str = "mean") -> None:  # fmt: skip
        super().__init__(margin, size_average, reduce, reduction)

    def forward(self, input, target):  # noqa: A002 (PyTorch's names)
        return F.hinge_embedding_loss(input, target, margin=self.margin,
                                      reduction=self.reduction)  # fmt: skip


class CosineEmbeddingLoss(_MarginLoss):
    def __init__(self, margin: float = 0.0, size_average=None, reduce=None,
                 reduction: str = "mean") -> None:  # fmt: skip
        super().__init__(margin, size_average, reduce, reduction)

    def forward(self, input1, input2, target):
        return F.cosine_embedding_loss(input1, input2, target, margin=self.margin,
                                       reduction=self.reduction)  # fmt: skip


class TripletMarginLoss(_Loss):
    __constants__ = ["margin", "p", "eps", "swap", "reduction"]

    def __init__(self, margin: float = 1.0, p: float = 2.0, eps: float = 1e-6,
                 swap: bool = False, size_average=None, reduce=None,
                 reduction: str = "mean") -> None:  # fmt: skip
        super().__init__(size_average, reduce, reduction)
        if margin <= 0:
            raise ValueError(
                f"TripletMarginLoss: expected margin to be greater than 0, got {margin} instead"
            )
        self.margin = margin
        self.p = p
        self.eps = eps
        self.swap = swap

    def forward(self, anchor, positive, negative):
        return F.triplet_margin_loss(
            anchor, positive, negative, margin=self.margin, p=self.p, eps=self.eps,
            swap=self.swap, reduction=self.reduction,
        )  # fmt: skip


class TripletMarginWithDistanceLoss(_Loss):
    __constants__ = ["margin", "swap", "reduction"]

    def __init__(self, *, distance_function=None, margin: float = 1.0, swap: bool = False,
                 reduction: str = "mean") -> None:  # fmt: skip
        super().__init__(size_average=None, reduce=None, reduction=reduction)
        if margin <= 0:
            raise ValueError(
                "TripletMarginWithDistanceLoss: expected margin to be greater than 0, got "
                f"{margin} instead"
            )
        self.distance_function = (
            distance_function if distance_function is not None else PairwiseDistance()
        )
        self.margin = margin
        self.swap = swap

    def forward(self, anchor, positive, negative):
        return F.triplet_margin_with_distance_loss(
            anchor, positive, negative, distance_function=self.distance_function,
            margin=self.margin, swap=self.swap, reduction=self.reduction,
        )  # fmt: skip


class MultiMarginLoss(_WeightedLoss):
    __constants__ = ["p", "margin", "reduction"]

    def __init__(self, p: int = 1, margin: float = 1.0, weight=None, size_average=None,
                 reduce=None, reduction: str = "mean") -> None:  # fmt: skip
        super().__init__(weight, size_average, reduce, reduction)
        if p != 1 and p != 2:
            raise ValueError("only p == 1 and p == 2 supported")
        if weight is not None and weight.dim() != 1:
            raise ValueError(
                "MultiMarginLoss: expected weight to be None or 1D tensor, got "
                f"{weight.dim()}D instead"
            )
        self.p = p
        self.margin = margin

    def forward(self, input, target):  # noqa: A002
        return F.multi_margin_loss(input, target, p=self.p, margin=self.margin,
                                   weight=self.weight, reduction=self.reduction)  # fmt: skip


class MultiLabelMarginLoss(_Loss):
    __constants__ = ["reduction"]

    def forward(self, input, target):  # noqa: A002
        return F.multilabel_margin_loss(input, target, reduction=self.reduction)
