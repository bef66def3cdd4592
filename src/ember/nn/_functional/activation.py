"""`torch.nn.functional`'s activations: elu, selu, celu, leaky_relu, hardtanh, relu6,
softplus, silu, mish, hardswish, hardsigmoid, the shrinks, threshold, glu, logsigmoid,
prelu, softsign, tanhshrink, softmin, sigmoid, tanh and the in-place `_` spellings.

Layer: the Python face, above aten. In: tensors and PyTorch's keyword arguments. Out:
tensors. Each calls the binding torch/nn/functional.py calls (torch._C._nn.elu,
torch.selu, ...), so a dispatch mode sees PyTorch's operators and a bad argument meets
the same parser. Mirrors the activation section of torch/nn/functional.py.
"""

from __future__ import annotations

import warnings

from ember._tensor import Tensor
from ember._torch_function import handle_torch_function, has_torch_function
from ember._torch_function import state as _tf_state
from ember.aten._generated import python_functions as _functions
from ember.aten._generated import python_nn_functions as _nn

__all__ = [
    "threshold",
    "threshold_",
    "glu",
    "hardtanh",
    "hardtanh_",
    "relu6",
    "elu",
    "elu_",
    "selu",
    "selu_",
    "celu",
    "celu_",
    "leaky_relu",
    "leaky_relu_",
    "prelu",
    "logsigmoid",
    "hardshrink",
    "tanhshrink",
    "softsign",
    "softplus",
    "softmin",
    "softshrink",
    "tanh",
    "sigmoid",
    "hardsigmoid",
    "silu",
    "mish",
    "hardswish",
]


def _overridden(input) -> bool:  # noqa: A002 (PyTorch's argument names)
    """has_torch_function_unary: one class test for a plain tensor."""
    return (input.__class__ is not Tensor or _tf_state.anywhere) and has_torch_function((input,))


def _threshold(input, threshold, value, inplace: bool = False):  # noqa: A002
    """F.threshold (torch/nn/functional.py names the function _threshold)."""
    if _overridden(input):
        return handle_torch_function(_threshold, (input,), input, threshold, value, inplace=inplace)
    if inplace:
        return _functions.threshold_(input, threshold, value)
    return _functions.threshold(input, threshold, value)


threshold = _threshold
threshold_ = _functions.threshold_


def glu(input, dim: int = -1):  # noqa: A002
    if _overridden(input):
        return handle_torch_function(glu, (input,), input, dim=dim)
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    return _nn.glu(input, dim)


def hardtanh(input, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False):  # noqa: A002
    if _overridden(input):
        return handle_torch_function(
            hardtanh, (input,), input, min_val=min_val, max_val=max_val, inplace=inplace
        )
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if inplace:
        return _nn.hardtanh_(input, min_val, max_val)
    return _nn.hardtanh(input, min_val, max_val)


hardtanh_ = _nn.hardtanh_


def relu6(input, inplace: bool = False):  # noqa: A002
    if _overridden(input):
        return handle_torch_function(relu6, (input,), input, inplace=inplace)
    if inplace:
        return _nn.relu6_(input)
    return _nn.relu6(input)


def elu(input, alpha: float = 1.0, inplace: bool = False):  # noqa: A002
    if _overridden(input):
        return handle_torch_function(elu, (input,), input, alpha=alpha, inplace=inplace)
    if inplace:
        return _nn.elu_(input, alpha)
    return _nn.elu(input, alpha)


elu_ = _nn.elu_


def selu(input, inplace: bool = False):  # noqa: A002
    if _overridden(input):
        return handle_torch_function(selu, (input,), input, inplace=inplace)
    if inplace:
        return _functions.selu_(input)
    return _functions.selu(input)


selu_ = _functions.selu_


def celu(input, alpha: float = 1.0, inplace: bool = False):  # noqa: A002
    if _overridden(input):
        return handle_torch_function(celu, (input,), input, alpha=alpha, inplace=inplace)
    if inplace:
        return _functions.celu_(input, alpha)
    return _functions.celu(input, alpha)


celu_ = _functions.celu_


def leaky_relu(input, negative_slope: float = 0.01, inplace: bool = False):  # noqa: A002
    if _overridden(input):
        return handle_torch_function(
            leaky_relu, (input,), input, negative_slope=negative_slope, inplace=inplace
        )
    if inplace:
        return _nn.leaky_relu_(input, negative_slope)
    return _nn.leaky_relu(input, negative_slope)


leaky_relu_ = _nn.leaky_relu_
prelu = _functions.prelu
logsigmoid = _nn.log_sigmoid
hardshrink = _functions.hardshrink
softplus = _nn.softplus
softshrink = _nn.softshrink


def tanhshrink(input):  # noqa: A002
    if _overridden(input):
        return handle_torch_function(tanhshrink, (input,), input)
    return input - input.tanh()


def softsign(input):  # noqa: A002
    if _overridden(input):
        return handle_torch_function(softsign, (input,), input)
    return input / (input.abs() + 1)


def softmin(input, dim=None, _stacklevel: int = 3, dtype=None):  # noqa: A002
    if _overridden(input):
        return handle_torch_function(
            softmin, (input,), input, dim=dim, _stacklevel=_stacklevel, dtype=dtype
        )
    if dim is None:
        warnings.warn(
            "Implicit dimension choice for softmin has been deprecated. "
            "Change the call to include dim=X as an argument.",
            stacklevel=_stacklevel,
        )
        dim = 0 if input.dim() in (0, 1, 3) else 1
    if dtype is None:
        return (-input).softmax(dim)
    return (-input).softmax(dim, dtype=dtype)


def tanh(input):  # noqa: A002
    return input.tanh()


def sigmoid(input):  # noqa: A002
    return input.sigmoid()


def hardsigmoid(input, inplace: bool = False):  # noqa: A002
    if _overridden(input):
        return handle_torch_function(hardsigmoid, (input,), input, inplace=inplace)
    if inplace:
        return _nn.hardsigmoid_(input)
    return _nn.hardsigmoid(input)


def silu(input, inplace: bool = False):  # noqa: A002
    if _overridden(input):
        return handle_torch_function(silu, (input,), input, inplace=inplace)
    if inplace:
        return _nn.silu_(input)
    return _nn.silu(input)


def mish(input, inplace: bool = False):  # noqa: A002
    if _overridden(input):
        return handle_torch_function(mish, (input,), input, inplace=inplace)
    if inplace:
        return _nn.mish_(input)
    return _nn.mish(input)


def hardswish(input, inplace: bool = False):  # noqa: A002
    if _overridden(input):
        return handle_torch_function(hardswish, (input,), input, inplace=inplace)
    if inplace:
        return _nn.hardswish_(input)
    return _nn.hardswish(input)
