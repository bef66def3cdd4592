"""conv1d/2d/3d (int and string padding), conv_transpose1d/2d/3d and _convolution_mode.

Layer: aten/native, CompositeImplicitAutograd kernels: they batchify an unbatched
input (unsqueeze / squeeze as PyTorch does, so a mode sees those ops), turn
padding='same' into symmetric padding (plus constant_pad_nd when the kernel's total
padding is odd) and call aten::convolution. Mirrors ATen/native/Convolution.cpp
(batchify, conv*d_symint, conv*d_padding_symint, _convolution_mode_symint,
_convolution_same, pooling_same_mode_padding_lr).
"""

from __future__ import annotations

from ember._c10.warning import torch_warn_once
from ember.aten.native import at
from ember.aten.native.common import type_meta_name
from ember.aten.native.views import fmt_ints

__all__ = [
    "conv1d", "conv2d", "conv3d", "conv1d_padding", "conv2d_padding", "conv3d_padding",
    "conv_transpose1d", "conv_transpose2d_input", "conv_transpose3d_input", "_convolution_mode",
]  # fmt: skip


def batchify(input, spatial: int, name: str):  # noqa: A002
    """(the input with a batch dim, was it batched), or PyTorch's error."""
    no_batch = spatial + 1
    batched = input.dim() == no_batch + 1
    if input.dim() != no_batch and not batched:
        raise RuntimeError(
            f"Expected {no_batch}D (unbatched) or {no_batch + 1}D (batched) input to {name}, "
            f"but got input of size: {fmt_ints(input._sizes)}"
        )
    return (input if batched else at.unsqueeze(input, 0)), batched


def _check_bias_type(input, bias):  # noqa: A002
    if bias is not None and bias.dtype != input.dtype:
        raise RuntimeError(
            f"Input type ({type_meta_name(input.dtype)}) and bias type "
            f"({type_meta_name(bias.dtype)}) should be the same"
        )


def _complex_refused(input):  # noqa: A002
    if input.dtype.is_complex:
        raise NotImplementedError("ember does not compute complex convolutions")


def _conv(spatial, name, input, weight, bias, stride, padding, dilation, groups):  # noqa: A002
    _check_bias_type(input, bias)
    batched_input, batched = batchify(input, spatial, name)
    _complex_refused(input)
    output = at.convolution(
        batched_input, weight, bias, stride, padding, dilation, False, [0] * spatial, groups
    )
    return output if batched else at.squeeze_dim(output, 0)


def _conv_padding(spatial, name, input, weight, bias, stride, padding, dilation, groups):  # noqa: A002
    _check_bias_type(input, bias)
    batched_input, batched = batchify(input, spatial, name)
    _complex_refused(input)
    output = at._convolution_mode(batched_input, weight, bias, stride, padding, dilation, groups)
    return output if batched else at.squeeze_dim(output, 0)


def conv1d(input, weight, bias, stride, padding, dilation, groups):  # noqa: A002
    return _conv(1, "conv1d", input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias, stride, padding, dilation, groups):  # noqa: A002
    return _conv(2, "conv2d", input, weight, bias, stride, padding, dilation, groups)


def conv3d(input, weight, bias, stride, padding, dilation, groups):  # noqa: A002
    return _conv(3, "conv3d", input, weight, bias, stride, padding, dilation, groups)


def conv1d_padding(input, weight, bias, stride, padding, dilation, groups):  # noqa: A002
    return _conv_padding(1, "conv1d", input, weight, bias, stride, padding, dilation, groups)


def conv2d_padding(input, weight, bias, stride, padding, dilation, groups):  # noqa: A002
    return _conv_padding(2, "conv2d", input, weight, bias, stride, padding, dilation, groups)


def conv3d_padding(input, weight, bias, stride, padding, dilation, groups):  # noqa: A002
    return _conv_padding(3, "conv3d", input, weight, bias, stride, padding, dilation, groups)


def _conv_transpose(
    spatial, name, input, weight, bias, stride, padding, output_padding, groups, dilation
):  # noqa: A002,E501
    batched_input, batched = batchify(input, spatial, name)
    _complex_refused(input)
    output = at.convolution(
        batched_input, weight, bias, stride, padding, dilation, True, output_padding, groups
    )
    return output if batched else at.squeeze_dim(output, 0)


def conv_transpose1d(input, weight, bias, stride, padding, output_padding, groups, dilation):  # noqa: A002
    return _conv_transpose(
        1,
        "conv_transpose1d",
        input,
        weight,
        bias,
        stride,
        padding,
        output_padding,
        groups,
        dilation,
    )


def conv_transpose2d_input(input, weight, bias, stride, padding, output_padding, groups, dilation):  # noqa: A002
    return _conv_transpose(
        2,
        "conv_transpose2d",
        input,
        weight,
        bias,
        stride,
        padding,
        output_padding,
        groups,
        dilation,
    )


def conv_transpose3d_input(input, weight, bias, stride, padding, output_padding, groups, dilation):  # noqa: A002
    return _conv_transpose(
        3,
        "conv_transpose3d",
        input,
        weight,
        bias,
        stride,
        padding,
        output_padding,
        groups,
        dilation,
    )


def _convolution_mode(input, weight, bias, stride, padding, dilation, groups):  # noqa: A002
    if padding == "same":
        return _convolution_same(input, weight, bias, stride, dilation, groups)
    if padding == "valid":
        return at.convolution(input, weight, bias, stride, [0], dilation, False, [0], groups)
    raise RuntimeError(f"Invalid padding string: '{padding}'")


def _same_padding_lr(kernel: int, dilation: int) -> tuple[int, int]:
    """pooling_same_mode_padding_lr for stride 1: the left part rounds down."""
    total = dilation * (kernel - 1)
    return total // 2, total - total // 2


def _convolution_same(input, weight, bias, stride, dilation, groups):  # noqa: A002
    k = weight.dim()
    if k <= 2:
        raise RuntimeError("weight should have at least three dimensions")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    dims = k - 2
    if k != input.dim():
        raise RuntimeError(
            f"Expected {k}-dimensional input for {k}-dimensional weight"
            f"{fmt_ints(weight._sizes)}, but got {input.dim()}-dimensional input of size "
            f"{fmt_ints(input._sizes)} instead"
        )
    if len(stride) not in (1, dims):
        raise RuntimeError(f"stride cannot broadcast to {dims} dimensions")
    if len(dilation) not in (1, dims):
        raise RuntimeError(f"dilation cannot broadcast to {dims} dimensions")
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    left, right = [], []
    for i in range(dims):
        d = dilation[0] if len(dilation) == 1 else dilation[i]
        lo, hi = _same_padding_lr(weight._sizes[i + 2], d)
        left.append(lo)
        right.append(hi)
    if left == right:
        return at.convolution(
            input, weight, bias, stride, left, dilation, False, [0] * dims, groups
        )
    torch_warn_once(
        "Using padding='same' with even kernel lengths and odd dilation may require a "
        "zero-padded copy of the input be created",
        "aten/src/ATen/native/Convolution.cpp:1101",
    )
    pad_nd = [0] * (2 * dims)
    for i in range(dims):
        delta = right[i] - left[i]
        index = 2 * (dims - 1 - i)  # F.pad's order: last dim first
        if delta > 0:
            pad_nd[index + 1] = delta
        else:
            pad_nd[index] = delta
            left[i] = right[i]
    padded = at.constant_pad_nd(input, pad_nd, 0)
    return at.convolution(padded, weight, bias, stride, left, dilation, False, [0] * dims, groups)
