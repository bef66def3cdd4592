"""`ember.nn.functional`: PyTorch's functional layers and losses, calling the aten operators.

Layer: the Python face, above aten. In: tensors and PyTorch's keyword
arguments (`reduction='mean'`, `ignore_index=-100`, `dim=None` with its
deprecation warning). Out: tensors. As in PyTorch, `linear`, `gelu` and
`one_hot` are the `ember._C._nn` bindings themselves, and the others do in
Python what torch/nn/functional.py does (reduction names to at::Reduction
numbers, the legacy size_average/reduce pair) before calling a binding, so
that a bad argument meets the same argument parser, with the same message,
as in PyTorch. Mirrors torch/nn/functional.py and torch/nn/_reduction.py.
"""

from __future__ import annotations

import warnings

from ember._tensor import Tensor
from ember._torch_function import handle_torch_function, has_torch_function
from ember._torch_function import state as _tf_state
from ember.aten._generated import python_functions as _functions
from ember.aten._generated import python_nn_functions as _nn
from ember.aten.native.loss import nll_loss_nd as _nll_loss_nd
from ember.aten.python_arg_parser import PythonArgParser

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


def _reduction_enum(reduction: str) -> int:
    """torch.nn._reduction.get_enum."""
    if reduction == "none":
        return 0
    if reduction == "mean":
        return 1
    if reduction == "elementwise_mean":
        warnings.warn(
            "reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.",
            stacklevel=3,
        )
        return 1
    if reduction == "sum":
        return 2
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _overridden(input, target, weight) -> bool:  # noqa: A002
    """has_torch_function_variadic for the losses: plain tensors (and None) pass with three
    class tests, unless a TorchFunctionMode is pushed somewhere."""
    if (
        input.__class__ is not Tensor
        or target.__class__ is not Tensor
        or (weight is not None and weight.__class__ is not Tensor)
        or _tf_state.anywhere
    ):
        return has_torch_function((input, target, weight))
    return False


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


linear = _nn.linear
gelu = _nn.gelu
one_hot = _nn.one_hot


def relu(input, inplace: bool = False):  # noqa: A002 (PyTorch's argument names)
    if (input.__class__ is not Tensor or _tf_state.anywhere) and has_torch_function((input,)):
        return handle_torch_function(relu, (input,), input, inplace=inplace)
    if inplace:
        return _functions.relu_(input)
    return _functions.relu(input)


def softmax(input, dim=None, _stacklevel: int = 3, dtype=None):  # noqa: A002
    if (input.__class__ is not Tensor or _tf_state.anywhere) and has_torch_function((input,)):
        return handle_torch_function(
            softmax, (input,), input, dim=dim, _stacklevel=_stacklevel, dtype=dtype
        )
    if dim is None:
        dim = _softmax_dim("softmax", input.dim(), _stacklevel)
    if dtype is None:
        return input.softmax(dim)
    return input.softmax(dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel: int = 3, dtype=None):  # noqa: A002
    if (input.__class__ is not Tensor or _tf_state.anywhere) and has_torch_function((input,)):
        return handle_torch_function(
            log_softmax, (input,), input, dim=dim, _stacklevel=_stacklevel, dtype=dtype
        )
    if dim is None:
        dim = _softmax_dim("log_softmax", input.dim(), _stacklevel)
    if dtype is None:
        return input.log_softmax(dim)
    return input.log_softmax(dim, dtype=dtype)


# torch._C._nn.nll_loss_nd: a CompositeImplicit operator ember computes in Python.
_nll_loss_nd_parser = PythonArgParser(
    [
        "nll_loss_nd(Tensor input, Tensor target, Tensor? weight=None, int reduction=1, "
        "SymInt ignore_index=-100)"
    ]
)


def _nll_loss_nd_binding(*args, **kwargs):
    return _nll_loss_nd(*_nll_loss_nd_parser.parse(args, kwargs)[1])


def nll_loss(
    input,  # noqa: A002
    target,
    weight=None,
    size_average=None,
    ignore_index: int = -100,
    reduce=None,
    reduction: str = "mean",
):
    if _overridden(input, target, weight):
        return handle_torch_function(
            nll_loss,
            (input, target, weight),
            input,
            target,
            weight=weight,
            size_average=size_average,
            ignore_index=ignore_index,
            reduce=reduce,
            reduction=reduction,
        )
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    return _nll_loss_nd_binding(input, target, weight, _reduction_enum(reduction), ignore_index)


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
    if _overridden(input, target, weight):
        return handle_torch_function(
            cross_entropy,
            (input, target, weight),
            input,
            target,
            weight=weight,
            size_average=size_average,
            ignore_index=ignore_index,
            reduce=reduce,
            reduction=reduction,
            label_smoothing=label_smoothing,
        )
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    return _nn.cross_entropy_loss(
        input, target, weight, _reduction_enum(reduction), ignore_index, label_smoothing
    )


def mse_loss(
    input,  # noqa: A002
    target,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
    weight=None,
):
    if _overridden(input, target, weight):
        return handle_torch_function(
            mse_loss,
            (input, target, weight),
            input,
            target,
            size_average=size_average,
            reduce=reduce,
            reduction=reduction,
            weight=weight,
        )
    if target.size() != input.size():
        warnings.warn(
            f"Using a target size ({target.size()}) that is different to the input size "
            f"({input.size()}). This will likely lead to incorrect results due to "
            "broadcasting. Please ensure they have the same size.",
            stacklevel=2,
        )
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    expanded_input, expanded_target = _broadcast_tensors(input, target)
    if weight is None:
        return _nn.mse_loss(expanded_input, expanded_target, _reduction_enum(reduction))
    if weight.size() != input.size():
        raise ValueError("Weights and input must have the same size.")
    difference = expanded_input - expanded_target
    weighted = _functions.pow(difference, 2) * weight
    if reduction == "none":
        return weighted
    if reduction == "sum":
        return _functions.sum(weighted)
    if reduction == "mean":
        return _functions.sum(weighted) / _functions.sum(weight)
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


def _broadcast_tensors(input, target):  # noqa: A002
    """torch.broadcast_tensors of the two (ember has no broadcast_tensors binding yet):
    expand_outplace, which expands only a tensor whose size differs."""
    from ember.aten.tensor_iterator import broadcast_shapes

    sizes = tuple(input.size()), tuple(target.size())
    if sizes[0] == sizes[1]:
        return input, target
    shape = list(broadcast_shapes(*sizes))
    return tuple(
        t if size == tuple(shape) else t.expand(shape)
        for t, size in zip((input, target), sizes, strict=True)
    )


def dropout(input, p: float = 0.5, training: bool = True, inplace: bool = False):  # noqa: A002
    if (input.__class__ is not Tensor or _tf_state.anywhere) and has_torch_function((input,)):
        return handle_torch_function(
            dropout, (input,), input, p=p, training=training, inplace=inplace
        )
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if inplace:
        return _functions.dropout_(input, p, training)
    return _functions.dropout(input, p, training)


from ember.nn._functional import embedding as _embedding  # noqa: E402
from ember.nn._functional.embedding import *  # noqa: E402,F401,F403

__all__ += _embedding.__all__
from ember.nn._functional import linear as _linear  # noqa: E402
from ember.nn._functional.linear import *  # noqa: E402,F401,F403

__all__ += _linear.__all__
from ember.nn._functional import dropout as _dropout  # noqa: E402
from ember.nn._functional.dropout import *  # noqa: E402,F401,F403

__all__ += _dropout.__all__

from ember.nn._functional import activation as _activation  # noqa: E402
from ember.nn._functional.activation import *  # noqa: E402,F401,F403
from ember.nn._functional.activation import _threshold  # noqa: E402,F401 (F.threshold.__name__)

__all__ += _activation.__all__

from ember.nn._functional import normalization as _normalization  # noqa: E402
from ember.nn._functional.normalization import *  # noqa: E402,F401,F403

__all__ += _normalization.__all__

from ember.nn._functional import loss as _loss  # noqa: E402
from ember.nn._functional.loss import *  # noqa: E402,F401,F403

__all__ += _loss.__all__

from ember.nn._functional import attention as _attention  # noqa: E402
from ember.nn._functional.attention import *  # noqa: E402,F401,F403

__all__ += _attention.__all__

from ember.nn._functional import conv as _conv  # noqa: E402
from ember.nn._functional.conv import *  # noqa: E402,F401,F403

__all__ += _conv.__all__

from ember.nn._functional import padding as _padding  # noqa: E402
from ember.nn._functional.padding import *  # noqa: E402,F401,F403

__all__ += _padding.__all__

from ember.nn._functional import pooling as _pooling  # noqa: E402
from ember.nn._functional.pooling import *  # noqa: E402,F401,F403

__all__ += _pooling.__all__

from ember.nn._functional import interpolate as _interpolate  # noqa: E402
from ember.nn._functional.interpolate import *  # noqa: E402,F401,F403

__all__ += _interpolate.__all__

from ember.nn._functional import fold as _fold  # noqa: E402
from ember.nn._functional.fold import *  # noqa: E402,F401,F403

__all__ += _fold.__all__

from ember.nn._functional import loss_margin as _loss_margin  # noqa: E402
from ember.nn._functional.loss_margin import *  # noqa: E402,F401,F403

__all__ += _loss_margin.__all__

from ember.nn._functional import distance as _distance  # noqa: E402
from ember.nn._functional.distance import *  # noqa: E402,F401,F403

__all__ += _distance.__all__

from ember.nn._functional import pool3d_unpool as _pool3d_unpool  # noqa: E402
from ember.nn._functional.pool3d_unpool import *  # noqa: E402,F401,F403

__all__ += _pool3d_unpool.__all__

from ember.nn._functional import attention_mha as _attention_mha  # noqa: E402
from ember.nn._functional.attention_mha import *  # noqa: E402,F401,F403
from ember.nn._functional.attention_mha_inputs import (  # noqa: E402,F401
    _canonical_mask,
    _in_projection,
    _in_projection_packed,
    _mha_shape_check,
    _none_or_dtype,
)

__all__ += _attention_mha.__all__
