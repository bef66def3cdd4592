"""`torch.nn.functional`'s losses beyond nll / cross_entropy / mse: l1, smooth_l1, huber,
binary_cross_entropy (and with logits), kl_div, soft_margin, poisson_nll, gaussian_nll,
multilabel_soft_margin, pairwise_distance.

Layer: the Python face, above aten. In: tensors, `reduction` ('none' | 'mean' | 'sum')
or the legacy size_average / reduce pair. Out: tensors. Each does in Python what
torch/nn/functional.py does (the size warnings and checks, the reduction numbers) and
calls the same binding. Mirrors the loss section of torch/nn/functional.py.
"""

from __future__ import annotations

import math
import warnings

from ember._torch_function import handle_torch_function
from ember.aten._generated import python_functions as _functions
from ember.aten._generated import python_nn_functions as _nn
from ember.aten.tensor_iterator import broadcast_shapes
from ember.nn._functional.activation import logsigmoid
from ember.nn.functional import (
    _broadcast_tensors,
    _legacy_reduction,
    _overridden,
    _reduction_enum,
)

__all__ = [
    "l1_loss",
    "smooth_l1_loss",
    "huber_loss",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "kl_div",
    "soft_margin_loss",
    "poisson_nll_loss",
    "gaussian_nll_loss",
    "multilabel_soft_margin_loss",
    "pairwise_distance",
]


def _any_overridden(*tensors) -> bool:
    """has_torch_function_variadic over any number of tensors (None allowed)."""
    padded = list(tensors) + [None] * 3
    return any(_overridden(*padded[i : i + 3]) for i in range(0, len(tensors), 3))


def _warn_size(input, target) -> None:  # noqa: A002
    if target.size() != input.size():
        warnings.warn(
            f"Using a target size ({target.size()}) that is different to the input size "
            f"({input.size()}). This will likely lead to incorrect results due to "
            "broadcasting. Please ensure they have the same size.",
            stacklevel=3,
        )


def _enum(size_average, reduce, reduction) -> int:
    """legacy_get_enum when the legacy pair is given, else get_enum."""
    if size_average is not None or reduce is not None:
        return _reduction_enum(_legacy_reduction(size_average, reduce))
    return _reduction_enum(reduction)


def _weighted(loss, weight, reduction, mean):
    if reduction == "none":
        return loss
    if reduction == "sum":
        return _functions.sum(loss)
    if reduction == "mean":
        return mean(loss)
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):  # noqa: A002
    if _any_overridden(input, target, weight):
        return handle_torch_function(
            l1_loss, (input, target, weight), input, target, size_average=size_average,
            reduce=reduce, reduction=reduction,
        )  # fmt: skip
    _warn_size(input, target)
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    expanded_input, expanded_target = _broadcast_tensors(input, target)
    if weight is None:
        return _nn.l1_loss(expanded_input, expanded_target, _reduction_enum(reduction))
    if weight.size() != input.size():
        raise ValueError("Weights and input must have the same size.")
    loss = _functions.abs(expanded_input - expanded_target) * weight
    return _weighted(loss, weight, reduction, lambda t: _functions.sum(t) / _functions.sum(weight))


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):  # noqa: A002
    if _any_overridden(input, target):
        return handle_torch_function(
            smooth_l1_loss, (input, target), input, target, size_average=size_average,
            reduce=reduce, reduction=reduction, beta=beta,
        )  # fmt: skip
    _warn_size(input, target)
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    expanded_input, expanded_target = _broadcast_tensors(input, target)
    if beta == 0.0:
        return _nn.l1_loss(expanded_input, expanded_target, _reduction_enum(reduction))
    return _nn.smooth_l1_loss(expanded_input, expanded_target, _reduction_enum(reduction), beta)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):  # noqa: A002
    if _any_overridden(input, target, weight):
        return handle_torch_function(
            huber_loss, (input, target, weight), input, target, reduction=reduction,
            delta=delta, weight=weight,
        )  # fmt: skip
    _warn_size(input, target)
    expanded_input, expanded_target = _broadcast_tensors(input, target)
    if weight is None:
        return _nn.huber_loss(expanded_input, expanded_target, _reduction_enum(reduction), delta)
    if weight.size() != input.size():
        raise ValueError("Weights and input must have the same size.")
    loss = _nn.huber_loss(expanded_input, expanded_target, 0, delta) * weight
    return _weighted(loss, weight, reduction, lambda t: t.mean())


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,  # noqa: A002
                         reduction="mean"):  # fmt: skip
    if _any_overridden(input, target, weight):
        return handle_torch_function(
            binary_cross_entropy, (input, target, weight), input, target, weight=weight,
            size_average=size_average, reduce=reduce, reduction=reduction,
        )  # fmt: skip
    reduction_enum = _enum(size_average, reduce, reduction)
    if target.size() != input.size():
        raise ValueError(
            f"Using a target size ({target.size()}) that is different to the input size "
            f"({input.size()}) is deprecated. Please ensure they have the same size."
        )
    if weight is not None:
        shape = broadcast_shapes(tuple(target.size()), tuple(weight.size()))
        weight = weight.expand(list(shape))
    return _nn.binary_cross_entropy(input, target, weight, reduction_enum)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None,  # noqa: A002
                                     reduce=None, reduction="mean", pos_weight=None):  # fmt: skip
    if _any_overridden(input, target, weight, pos_weight):
        return handle_torch_function(
            binary_cross_entropy_with_logits, (input, target, weight, pos_weight), input,
            target, weight=weight, size_average=size_average, reduce=reduce,
            reduction=reduction, pos_weight=pos_weight,
        )  # fmt: skip
    reduction_enum = _enum(size_average, reduce, reduction)
    if not (target.size() == input.size()):
        raise ValueError(
            f"Target size ({target.size()}) must be the same as input size ({input.size()})"
        )
    return _functions.binary_cross_entropy_with_logits(
        input, target, weight, pos_weight, reduction_enum
    )


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):  # noqa: A002
    if _any_overridden(input, target):
        return handle_torch_function(
            kl_div, (input, target), input, target, size_average=size_average, reduce=reduce,
            reduction=reduction, log_target=log_target,
        )  # fmt: skip
    if size_average is not None or reduce is not None:
        reduction_enum = _reduction_enum(_legacy_reduction(size_average, reduce))
    else:
        if reduction == "mean":
            warnings.warn(
                "reduction: 'mean' divides the total loss by both the batch size and the "
                "support size.'batchmean' divides only by the batch size, and aligns with the "
                "KL div math definition.'mean' will be changed to behave the same as "
                "'batchmean' in the next major release.",
                stacklevel=2,
            )
        reduction_enum = _reduction_enum("sum" if reduction == "batchmean" else reduction)
    reduced = _functions.kl_div(input, target, reduction_enum, log_target=log_target)
    if reduction == "batchmean" and input.dim() != 0:
        reduced = reduced / input.size()[0]
    return reduced


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):  # noqa: A002
    if _any_overridden(input, target):
        return handle_torch_function(
            soft_margin_loss, (input, target), input, target, size_average=size_average,
            reduce=reduce, reduction=reduction,
        )  # fmt: skip
    return _nn.soft_margin_loss(input, target, _enum(size_average, reduce, reduction))


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,  # noqa: A002
                     reduce=None, reduction="mean"):  # fmt: skip
    if _any_overridden(input, target):
        return handle_torch_function(
            poisson_nll_loss, (input, target), input, target, log_input=log_input, full=full,
            size_average=size_average, eps=eps, reduce=reduce, reduction=reduction,
        )  # fmt: skip
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not a valid value for reduction")
    return _functions.poisson_nll_loss(
        input, target, log_input, full, eps, _reduction_enum(reduction)
    )


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):  # noqa: A002
    """In Python, as functional.py computes it."""
    if _any_overridden(input, target, var):
        return handle_torch_function(
            gaussian_nll_loss, (input, target, var), input, target, var, full=full, eps=eps,
            reduction=reduction,
        )  # fmt: skip
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * _functions.ones_like(input)
    elif (var < 0).any():
        raise ValueError("var has negative entry/entries")
    if var.size() != input.size():
        if input.size()[:-1] == var.size():
            var = var.unsqueeze(-1)
        elif input.dim() == var.dim() and sum(
            y for x, y in zip(input.size(), var.size(), strict=True) if x != y
        ) == 1:  # fmt: skip
            pass
        else:
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    from ember.autograd.grad_mode import no_grad

    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (_functions.log(var) + (input - target) ** 2 / var)
    if full:
        loss += 0.5 * math.log(2 * math.pi)
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,  # noqa: A002
                                reduction="mean"):  # fmt: skip
    if _any_overridden(input, target, weight):
        return handle_torch_function(
            multilabel_soft_margin_loss, (input, target, weight), input, target, weight=weight,
            size_average=size_average, reduce=reduce, reduction=reduction,
        )  # fmt: skip
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(dim=class_dim) / input.size(class_dim)
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(reduction + " is not valid")


pairwise_distance = _functions.pairwise_distance
