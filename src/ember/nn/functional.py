"""`ember.nn.functional`: PyTorch's functional layers and losses, calling the aten operators.

Layer: the Python face, above aten. In: tensors and PyTorch's keyword
arguments (`reduction='mean'`, `ignore_index=-100`, `dim=None` with its
deprecation warning). Out: tensors. Each function translates its arguments
(reduction names to at::Reduction numbers, the legacy size_average/reduce
pair) and calls one aten operator through the dispatcher. Mirrors
torch/nn/functional.py and torch/nn/_reduction.py.
"""

from __future__ import annotations

import warnings

from ember.aten.binding import handle
from ember.aten.native.loss import nll_loss_nd
from ember.aten.tensor_iterator import broadcast_shapes

__all__ = [
    "linear",
    "relu",
    "gelu",
    "softmax",
    "log_softmax",
    "nll_loss",
    "cross_entropy",
    "one_hot",
    "mse_loss",
    "dropout",
]

_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _reduction_enum(reduction: str) -> int:
    """torch.nn._reduction.get_enum."""
    if reduction == "elementwise_mean":
        warnings.warn(
            "reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.",
            stacklevel=3,
        )
        return 1
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return _REDUCTIONS[reduction]


def _legacy_reduction(size_average, reduce) -> str:
    """torch.nn._reduction.legacy_get_string: the old size_average / reduce pair."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if size_average and reduce:
        result = "mean"
    elif reduce:
        result = "sum"
    else:
        result = "none"
    warnings.warn(
        f"size_average and reduce args will be deprecated, please use reduction='{result}' "
        "instead.",
        stacklevel=3,
    )
    return result


def _softmax_dim(name: str, ndim: int, stacklevel: int) -> int:
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. "
        "Change the call to include dim=X as an argument.",
        stacklevel=stacklevel,
    )
    return 0 if ndim in (0, 1, 3) else 1


def linear(input, weight, bias=None):  # noqa: A002 (PyTorch's argument names)
    return handle("linear").call(input, weight, bias)


def relu(input, inplace: bool = False):  # noqa: A002
    if inplace:
        return handle("relu_").call(input)
    return handle("relu").call(input)


def gelu(input, approximate: str = "none"):  # noqa: A002
    return handle("gelu").call(input, approximate)


def softmax(input, dim=None, _stacklevel: int = 3, dtype=None):  # noqa: A002
    if dim is None:
        dim = _softmax_dim("softmax", input.dim(), _stacklevel)
    return handle("softmax.int").call(input, dim, dtype)


def log_softmax(input, dim=None, _stacklevel: int = 3, dtype=None):  # noqa: A002
    if dim is None:
        dim = _softmax_dim("log_softmax", input.dim(), _stacklevel)
    return handle("log_softmax.int").call(input, dim, dtype)


def nll_loss(
    input,  # noqa: A002
    target,
    weight=None,
    size_average=None,
    ignore_index: int = -100,
    reduce=None,
    reduction: str = "mean",
):
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    return nll_loss_nd(input, target, weight, _reduction_enum(reduction), ignore_index)


def cross_entropy(
    input,  # noqa: A002
    target,
    weight=None,
    size_average=None,
    ignore_index: int = -100,
    reduce=None,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
):
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    return handle("cross_entropy_loss").call(
        input, target, weight, _reduction_enum(reduction), ignore_index, label_smoothing
    )


def one_hot(tensor, num_classes: int = -1):
    return handle("one_hot").call(tensor, num_classes)


def mse_loss(
    input,  # noqa: A002
    target,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
    weight=None,
):
    if target.size() != input.size():
        warnings.warn(
            f"Using a target size ({target.size()}) that is different to the input size "
            f"({input.size()}). This will likely lead to incorrect results due to "
            "broadcasting. Please ensure they have the same size.",
            stacklevel=2,
        )
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    shape = list(broadcast_shapes(tuple(input.size()), tuple(target.size())))
    expand = handle("expand")
    expanded_input = expand.call(input, shape, False)
    expanded_target = expand.call(target, shape, False)
    if weight is None:
        return handle("mse_loss").call(expanded_input, expanded_target, _reduction_enum(reduction))
    if weight.size() != input.size():
        raise ValueError("Weights and input must have the same size.")
    difference = expanded_input - expanded_target
    weighted = difference * difference * weight
    if reduction == "none":
        return weighted
    if reduction == "sum":
        return handle("sum").call(weighted, None)
    if reduction == "mean":
        return handle("sum").call(weighted, None) / handle("sum").call(weight, None)
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


def dropout(input, p: float = 0.5, training: bool = True, inplace: bool = False):  # noqa: A002
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    result = handle("dropout").call(input, p, training)
    if inplace and result is not input:
        handle("copy_").call(input, result, False)
        return input
    return result
