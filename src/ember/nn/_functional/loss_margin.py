"""`torch.nn.functional`'s margin and embedding losses: margin_ranking, hinge_embedding,
cosine_embedding, multi_margin, multilabel_margin, triplet_margin and
triplet_margin_with_distance.

Layer: the Python face, above aten. In: tensors, `reduction` ('none' | 'mean' | 'sum')
or the legacy size_average / reduce pair. Out: tensors. Each checks in Python what
torch/nn/functional.py checks and calls the same binding (torch.<loss> or
torch._C._nn.<loss>); triplet_margin_with_distance_loss is Python there and here.
Mirrors the loss section of torch/nn/functional.py.
"""

from __future__ import annotations

from ember._torch_function import handle_torch_function
from ember.aten._generated import python_functions as _functions
from ember.aten._generated import python_nn_functions as _nn
from ember.nn._functional.loss import _any_overridden, _enum

__all__ = [
    "margin_ranking_loss",
    "hinge_embedding_loss",
    "cosine_embedding_loss",
    "multi_margin_loss",
    "multilabel_margin_loss",
    "triplet_margin_loss",
    "triplet_margin_with_distance_loss",
]


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                        reduction="mean"):  # fmt: skip
    if _any_overridden(input1, input2, target):
        return handle_torch_function(
            margin_ranking_loss, (input1, input2, target), input1, input2, target,
            margin=margin, size_average=size_average, reduce=reduce, reduction=reduction,
        )  # fmt: skip
    reduction_enum = _enum(size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(
            "margin_ranking_loss : All input tensors should have same dimension but got sizes: "
            f"input1: {input1.size()}, input2: {input2.size()}, target: {target.size()} "
        )
    return _functions.margin_ranking_loss(input1, input2, target, margin, reduction_enum)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,  # noqa: A002
                         reduction="mean"):  # fmt: skip
    if _any_overridden(input, target):
        return handle_torch_function(
            hinge_embedding_loss, (input, target), input, target, margin=margin,
            size_average=size_average, reduce=reduce, reduction=reduction,
        )  # fmt: skip
    reduction_enum = _enum(size_average, reduce, reduction)
    return _functions.hinge_embedding_loss(input, target, margin, reduction_enum)


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                          reduction="mean"):  # fmt: skip
    if _any_overridden(input1, input2, target):
        return handle_torch_function(
            cosine_embedding_loss, (input1, input2, target), input1, input2, target,
            margin=margin, size_average=size_average, reduce=reduce, reduction=reduction,
        )  # fmt: skip
    reduction_enum = _enum(size_average, reduce, reduction)
    return _functions.cosine_embedding_loss(input1, input2, target, margin, reduction_enum)


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,  # noqa: A002
                      reduce=None, reduction="mean"):  # fmt: skip
    if _any_overridden(input, target, weight):
        return handle_torch_function(
            multi_margin_loss, (input, target, weight), input, target, p=p, margin=margin,
            weight=weight, size_average=size_average, reduce=reduce, reduction=reduction,
        )  # fmt: skip
    reduction_enum = _enum(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    return _nn.multi_margin_loss(input, target, p, margin, weight, reduction_enum)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):  # noqa: A002
    if _any_overridden(input, target):
        return handle_torch_function(
            multilabel_margin_loss, (input, target), input, target,
            size_average=size_average, reduce=reduce, reduction=reduction,
        )  # fmt: skip
    reduction_enum = _enum(size_average, reduce, reduction)
    return _nn.multilabel_margin_loss(input, target, reduction_enum)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction="mean"):  # fmt: skip
    if _any_overridden(anchor, positive, negative):
        return handle_torch_function(
            triplet_margin_loss, (anchor, positive, negative), anchor, positive, negative,
            margin=margin, p=p, eps=eps, swap=swap, size_average=size_average, reduce=reduce,
            reduction=reduction,
        )  # fmt: skip
    reduction_enum = _enum(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    return _functions.triplet_margin_loss(
        anchor, positive, negative, margin, p, eps, swap, reduction_enum
    )


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean"):  # fmt: skip
    if _any_overridden(anchor, positive, negative):
        return handle_torch_function(
            triplet_margin_with_distance_loss, (anchor, positive, negative), anchor, positive,
            negative, distance_function=distance_function, margin=margin, swap=swap,
            reduction=reduction,
        )  # fmt: skip
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    a_dim, p_dim, n_dim = anchor.ndim, positive.ndim, negative.ndim
    if not (a_dim == p_dim and p_dim == n_dim):
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number "
            f"of dimensions, but got: anchor {a_dim}D, positive {p_dim}D, and negative "
            f"{n_dim}D inputs"
        )
    if distance_function is None:
        distance_function = _functions.pairwise_distance
    dist_pos = distance_function(anchor, positive)
    dist_neg = distance_function(anchor, negative)
    if swap:
        dist_swap = distance_function(positive, negative)
        dist_neg = _functions.minimum(dist_neg, dist_swap)
    loss = _functions.clamp_min(margin + dist_pos - dist_neg, 0)
    if reduction == "sum":
        return _functions.sum(loss)
    if reduction == "mean":
        return _functions.mean(loss)
    return loss
