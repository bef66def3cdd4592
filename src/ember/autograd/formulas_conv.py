"""Derivative helpers of the convolution, padding and pooling entries of derivatives.yaml.

Layer: autograd. In: gradients and saved values. Out: input gradients, built from
dispatched operators. Mirrors the matching functions of
torch/csrc/autograd/FunctionsManual.cpp (constant_pad_nd_backward).
"""

from __future__ import annotations

from ember._c10.memory_format import channels_last, contiguous_format
from ember.aten.native import at

__all__ = ["constant_pad_nd_backward", "convolution_double_backward", "max_pool_double_backward"]


def constant_pad_nd_backward(grad, pad):
    """The gradient of constant_pad_nd: the same op with every pad negated."""
    return at.constant_pad_nd(grad, [-p for p in pad], 0)


def convolution_double_backward(
    ggI, ggW, ggb, gO, weight, input, stride, padding, dilation, transposed,  # noqa: A002
    output_padding, groups, grad_input_mask,
):  # fmt: skip
    """_convolution_double_backward: the gradients of convolution_backward's inputs
    (grad_output, input, weight) from those of its results (ggI, ggW, ggb).

    grad_output's is the convolution of ggI with the weight, plus that of the input with
    ggW, plus ggb per channel; input's is the input-gradient of conv(input, ggW) and the
    weight's the weight-gradient of conv(ggI, weight), both seeded with gO."""
    params = (stride, padding, dilation, transposed, output_padding, groups)
    ggO = gI = gW = None
    if grad_input_mask[0]:
        if ggI is not None:
            ggO = at.convolution(ggI, weight, None, *params)
        if ggW is not None:
            term = at.convolution(input, ggW, None, *params)
            ggO = term if ggO is None else at.add_Tensor(ggO, term, 1)
        if ggb is not None:
            shape = [1, ggb._sizes[0]] + [1] * (weight.dim() - 2)
            term = at.view(ggb, shape)
            if ggO is None:
                sizes = at.convolution(input, weight, None, *params)._sizes
                ggO = at.expand(term, list(sizes), False).contiguous()
            else:
                ggO = at.add_Tensor(ggO, term, 1)
    if grad_input_mask[1] and ggW is not None:
        gI = at.convolution_backward(
            gO, input, ggW, None, *params, [True, False, False]
        )[0]  # fmt: skip
    if grad_input_mask[2] and ggI is not None:
        gW = at.convolution_backward(
            gO, ggI, weight, None, *params, [False, True, False]
        )[1]  # fmt: skip
    return ggO, gI, gW


def max_pool_double_backward(grad, indices, dim):
    """The gradient of a max pool's backward in its grad_output: grad read at the indices
    (indices viewed flat, grad made contiguous in the indices' memory format and viewed
    flat, gathered, viewed back: the operators PyTorch's formula dispatches)."""
    if indices.numel() == 0:
        return at.empty_like(indices, grad.dtype, None, None, None, None)
    size = list(indices._sizes[: indices.dim() - dim]) + [-1]
    indices_view = at.view(indices, size)
    memory_format = contiguous_format
    if indices.dim() == 4 and not indices.is_contiguous():
        if indices.is_contiguous(memory_format=channels_last):
            memory_format = channels_last
    flat = at.view(at.contiguous(grad, memory_format), size)
    return at.view(at.gather(flat, -1, indices_view, False), list(indices._sizes))
