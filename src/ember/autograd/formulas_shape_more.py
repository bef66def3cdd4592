"""Backward helpers of the wSHAPEIDX operators: repeat, trace, block_diag.

Layer: autograd. In: gradients and saved metadata. Out: input gradients, built from
dispatched operators (so double backward records its graph). Mirrors repeat_backward,
trace_backward_symint and block_diag_backward of torch/csrc/autograd/FunctionsManual.cpp.
"""

from __future__ import annotations

from ember._c10 import dtypes
from ember.aten.native import at

__all__ = ["block_diag_backward", "repeat_backward", "trace_backward"]


def repeat_backward(grad, repeats, input_shape):
    repeats = [int(r) for r in repeats]
    input_shape = list(input_shape)
    if 0 in repeats:
        return at.zeros(input_shape, grad.dtype, None, grad.device, None)
    num_unsqueezed = grad.dim() - len(input_shape)
    for _ in range(num_unsqueezed):
        grad = at.sum_dim_IntList(grad, [0], False, None)
    grad_size, sum_dims = [], []
    for dim, size in enumerate(input_shape):
        repeat = repeats[dim + num_unsqueezed]
        if repeat != 1:
            grad_size.append(repeat)
            sum_dims.append(len(grad_size) - 1)
        grad_size.append(size)
    if sum_dims:
        grad = at.sum_dim_IntList(at.reshape(grad, grad_size), sum_dims, False, None)
    return grad


def trace_backward(grad, sizes):
    sizes = list(sizes)
    if len(sizes) != 2:
        raise RuntimeError("expected matrix input")
    grad_input = at.zeros([sizes[0] * sizes[1]], grad.dtype, None, grad.device, None)
    indices = at.arange_start_step(
        0, grad_input.numel(), sizes[1] + 1, dtypes.int64, None, grad.device, None
    )
    grad_input = at.index_fill_int_Tensor(grad_input, 0, indices, grad)
    return at.view(grad_input, sizes)


def block_diag_backward(grad, sizes, input_dtypes):
    grads = []
    row = col = 0
    for shape, dtype in zip(sizes, input_dtypes):
        shape = list(shape)
        if grad.dtype.is_complex and not dtype.is_complex:
            raise NotImplementedError(
                "block_diag_backward: the real part of a complex gradient (at::real) is not "
                "implemented in ember"
            )
        part = grad
        if len(shape) == 1 and shape[0] == 0:
            grads.append(at.zeros([0], part.dtype, None, part.device, None))
            continue
        height = shape[0] if len(shape) == 2 else 1
        width = shape[1] if len(shape) == 2 else (shape[0] if len(shape) == 1 else 1)
        piece = at.slice_Tensor(at.slice_Tensor(part, 0, row, row + height, 1), 1, col,
                                col + width, 1)
        if len(shape) == 1:
            piece = at.squeeze_dim(piece, 0)
        elif not shape:
            piece = at.squeeze_dim(at.squeeze_dim(piece, -1), -1)
        grads.append(piece)
        row += height
        col += width
    return grads
