"""aten::select_backward, slice_backward and diagonal_backward: a view's gradient put back.

Layer: aten (device-generic composites). In: the gradient of the view, the input's
sizes and the view's arguments. Out: zeros of the input's sizes, the view's slots
holding the gradient. Mirrors select_backward_symint, slice_backward and
diagonal_backward_symint in ATen/native/TensorShape.cpp; the backward formulas of
select, slice and diagonal call these operators, so a dispatch mode sees one call.
"""

from __future__ import annotations

from ember.aten.native import at

__all__ = ["select_backward", "slice_backward", "diagonal_backward"]


def _zeros_like_input(grad, input_sizes):
    """at::zeros(input_sizes, grad.options())."""
    return at.zeros([int(s) for s in input_sizes], grad.dtype, None, grad.device, None)


def select_backward(grad_output, input_sizes, dim, index):
    grad_input = _zeros_like_input(grad_output, input_sizes)
    at.copy_(at.select_int(grad_input, dim, index), grad_output, False)
    return grad_input


def slice_backward(grad_output, input_sizes, dim, start, end, step):
    grad_input = _zeros_like_input(grad_output, input_sizes)
    at.copy_(at.slice_Tensor(grad_input, dim, start, end, step), grad_output, False)
    return grad_input


def diagonal_backward(grad_output, input_sizes, offset, dim1, dim2):
    grad_input = _zeros_like_input(grad_output, input_sizes)
    at.copy_(at.diagonal(grad_input, offset, dim1, dim2), grad_output, False)
    return grad_input
