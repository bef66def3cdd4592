"""`F.max_pool*d`, `F.avg_pool*d`, `F.adaptive_{avg,max}_pool*d`, `F.lp_pool*d`.

Layer: the Python face, above aten. As torch/nn/functional.py: the max pools pick
the `_with_indices` binding when return_indices is set (boolean_dispatch), a None
stride becomes [], adaptive output sizes may hold None (the input's size there),
avg_pool2d/3d are the torch._C._nn bindings and lp_pool is written with pow,
avg_pool, sign, abs and relu as PyTorch writes it. Mirrors torch/nn/functional.py.
"""

from __future__ import annotations

from ember._torch_function import handle_torch_function, has_torch_function
from ember.aten._generated import python_functions as _functions
from ember.aten._generated import python_nn_functions as _nn

__all__ = [
    "max_pool1d", "max_pool2d", "max_pool3d", "max_pool1d_with_indices",
    "max_pool2d_with_indices", "max_pool3d_with_indices", "avg_pool1d", "avg_pool2d",
    "avg_pool3d", "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_max_pool1d",
    "adaptive_max_pool2d", "adaptive_max_pool1d_with_indices",
    "adaptive_max_pool2d_with_indices", "lp_pool1d", "lp_pool2d",
]  # fmt: skip

avg_pool1d = _functions.avg_pool1d
avg_pool2d = _nn.avg_pool2d
avg_pool3d = _nn.avg_pool3d
adaptive_avg_pool1d = _functions.adaptive_avg_pool1d


def _overridden(input):  # noqa: A002
    return has_torch_function((input,))


def _stride(stride):
    return [] if stride is None else stride


def max_pool1d_with_indices(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):  # noqa: A002,E501
    if _overridden(input):
        return handle_torch_function(
            max_pool1d_with_indices,
            (input,),
            input,
            kernel_size,
            stride=stride,
            padding=padding,
            dilation=dilation,
            ceil_mode=ceil_mode,
            return_indices=return_indices,
        )  # noqa: E501
    return _functions.max_pool1d_with_indices(
        input, kernel_size, _stride(stride), padding, dilation, ceil_mode
    )  # noqa: E501


def max_pool2d_with_indices(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):  # noqa: A002,E501
    if _overridden(input):
        return handle_torch_function(
            max_pool2d_with_indices,
            (input,),
            input,
            kernel_size,
            stride=stride,
            padding=padding,
            dilation=dilation,
            ceil_mode=ceil_mode,
            return_indices=return_indices,
        )  # noqa: E501
    return _nn.max_pool2d_with_indices(
        input, kernel_size, _stride(stride), padding, dilation, ceil_mode
    )  # noqa: E501


def max_pool3d_with_indices(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):  # noqa: A002,E501
    if _overridden(input):
        return handle_torch_function(
            max_pool3d_with_indices,
            (input,),
            input,
            kernel_size,
            stride=stride,
            padding=padding,
            dilation=dilation,
            ceil_mode=ceil_mode,
            return_indices=return_indices,
        )  # noqa: E501
    return _nn.max_pool3d_with_indices(
        input, kernel_size, _stride(stride), padding, dilation, ceil_mode
    )  # noqa: E501


def max_pool1d(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):  # noqa: A002,E501
    if return_indices:
        return max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    if _overridden(input):
        return handle_torch_function(
            max_pool1d,
            (input,),
            input,
            kernel_size,
            stride=stride,
            padding=padding,
            dilation=dilation,
            ceil_mode=ceil_mode,
            return_indices=return_indices,
        )  # noqa: E501
    return _functions.max_pool1d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool2d(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):  # noqa: A002,E501
    if return_indices:
        return max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    if _overridden(input):
        return handle_torch_function(
            max_pool2d,
            (input,),
            input,
            kernel_size,
            stride=stride,
            padding=padding,
            dilation=dilation,
            ceil_mode=ceil_mode,
            return_indices=return_indices,
        )  # noqa: E501
    return _functions.max_pool2d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool3d(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):  # noqa: A002,E501
    if return_indices:
        return max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    if _overridden(input):
        return handle_torch_function(
            max_pool3d,
            (input,),
            input,
            kernel_size,
            stride=stride,
            padding=padding,
            dilation=dilation,
            ceil_mode=ceil_mode,
            return_indices=return_indices,
        )  # noqa: E501
    return _functions.max_pool3d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def _list_with_default(out_size, defaults):
    """torch.nn.modules.utils._list_with_default: None entries take the input's size."""
    if isinstance(out_size, int):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    return [v if v is not None else d for v, d in zip(out_size, defaults[-len(out_size) :])]


def adaptive_avg_pool2d(input, output_size):  # noqa: A002
    if _overridden(input):
        return handle_torch_function(adaptive_avg_pool2d, (input,), input, output_size)
    return _nn.adaptive_avg_pool2d(input, _list_with_default(output_size, input.size()))


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):  # noqa: A002
    if _overridden(input):
        return handle_torch_function(
            adaptive_max_pool1d_with_indices,
            (input,),
            input,
            output_size,
            return_indices=return_indices,
        )  # noqa: E501
    return _functions.adaptive_max_pool1d(input, output_size)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):  # noqa: A002
    if _overridden(input):
        return handle_torch_function(
            adaptive_max_pool2d_with_indices,
            (input,),
            input,
            output_size,
            return_indices=return_indices,
        )  # noqa: E501
    return _nn.adaptive_max_pool2d(input, _list_with_default(output_size, input.size()))


def adaptive_max_pool1d(input, output_size, return_indices=False):  # noqa: A002
    if return_indices:
        return adaptive_max_pool1d_with_indices(input, output_size)
    if _overridden(input):
        return handle_torch_function(
            adaptive_max_pool1d, (input,), input, output_size, return_indices=return_indices
        )  # noqa: E501
    return adaptive_max_pool1d_with_indices(input, output_size)[0]


def adaptive_max_pool2d(input, output_size, return_indices=False):  # noqa: A002
    if return_indices:
        return adaptive_max_pool2d_with_indices(input, output_size)
    if _overridden(input):
        return handle_torch_function(
            adaptive_max_pool2d, (input,), input, output_size, return_indices=return_indices
        )  # noqa: E501
    return adaptive_max_pool2d_with_indices(input, output_size)[0]


def _pair(value, n):
    return tuple(value) if isinstance(value, (list, tuple)) else (value,) * n


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):  # noqa: A002
    """(sign(x) relu(|x|)) * (kw kh) of the average of x ** p, to the power 1 / p."""
    if _overridden(input):
        return handle_torch_function(
            lp_pool2d, (input,), input, norm_type, kernel_size, stride=stride, ceil_mode=ceil_mode
        )  # noqa: E501
    kw, kh = _pair(kernel_size, 2)
    if stride is not None:
        out = avg_pool2d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool2d(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return (_functions.sign(out) * _nn_relu(_functions.abs(out))).mul(kw * kh).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):  # noqa: A002
    if _overridden(input):
        return handle_torch_function(
            lp_pool1d, (input,), input, norm_type, kernel_size, stride=stride, ceil_mode=ceil_mode
        )  # noqa: E501
    if stride is not None:
        out = avg_pool1d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool1d(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return (
        (_functions.sign(out) * _nn_relu(_functions.abs(out))).mul(kernel_size).pow(1.0 / norm_type)
    )


def _nn_relu(x):
    return _functions.relu(x)
