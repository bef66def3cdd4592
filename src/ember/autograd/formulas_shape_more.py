"""Backward helpers of the wSHAPEIDX operators: repeat, trace, block_diag.

Layer: autograd. In: gradients and saved metadata. Out: input gradients, built from
dispatched operators (so double backward records its graph). Mirrors repeat_backward,
trace_backward_symint and block_diag_backward of torch/csrc/autograd/FunctionsManual.cpp.
"""

from __future__ import annotations

from ember._c10 import dtypes
from ember._c10.memory_format import preserve_format
from ember.aten.native import at
from ember.aten.tensor_subclass_like import is_tensor_subclass_like

__all__ = [
    "block_diag_backward",
    "index_add_source_backward",
    "index_copy_source_backward",
    "index_fill_value_backward",
    "masked_select_backward",
    "not_implemented",
    "put_self_backward",
    "repeat_backward",
    "scatter_reduce_backward_self",
    "scatter_reduce_backward_src",
    "take_backward",
    "trace_backward",
]


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
        0, min(sizes) * (sizes[1] + 1), sizes[1] + 1, dtypes.int64, None, grad.device, None
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
        piece = at.slice_Tensor(
            at.slice_Tensor(part, 0, row, row + height, 1), 1, col, col + width, 1
        )
        if len(shape) == 1:
            piece = at.squeeze_dim(piece, 0)
        elif not shape:
            piece = at.squeeze_dim(at.squeeze_dim(piece, -1), -1)
        grads.append(piece)
        row += height
        col += width
    return grads


def index_add_source_backward(grad, dim, index, source, alpha):
    if source.dim() > 0:
        picked = at.expand_as(at.index_select(grad, dim, index), source)
    else:
        picked = at.index_select(grad, dim, at.squeeze_dim(index, 0))
    return picked if alpha == 1 else at.mul_Scalar(picked, alpha)


def index_copy_source_backward(grad, dim, index, source):
    if source.dim() > 0:
        return at.expand_as(at.index_select(grad, dim, index), source)
    return at.index_select(grad, dim, at.squeeze_dim(index, 0))


def index_fill_value_backward(grad, dim, index):
    unique = at._unique(index, False, False)[0]
    return at.sum(at.index_select(grad, dim, unique), None)


def take_backward(grad, self, index):
    """FunctionsManual's take_backward: zeros like self, put_ with accumulation."""
    zeros = at.zeros_like(self, None, None, None, None, None)
    return at.put(zeros, index, grad, True)


def put_self_backward(grad, index, source, accumulate):
    if accumulate:
        return grad
    zeros = at.zeros_like(source, None, None, None, None, None)
    return at.put(grad, index, zeros, False)


def masked_select_backward(grad, input, mask):  # noqa: A002 (PyTorch's name)
    """FunctionsManual's masked_select_backward: grad scattered into zeros of the broadcast
    shape, in place (the engine sums it back to input's shape)."""
    shape = _broadcast(input._sizes, mask._sizes)
    result = at.zeros_like(at.expand(input, shape, False), None, None, None, None, preserve_format)
    if is_tensor_subclass_like(grad) or is_tensor_subclass_like(mask):
        return at.masked_scatter(result, mask, grad)
    at.masked_scatter_(result, mask, grad)
    return result


def _broadcast(a, b):
    ndim = max(len(a), len(b))
    a = [1] * (ndim - len(a)) + list(a)
    b = [1] * (ndim - len(b)) + list(b)
    return [y if x == 1 else x for x, y in zip(a, b)]


def _scatter_reduce_grads(grad, self, dim, index, src, reduce, include_self, result):
    """FunctionsManual's scatter_reduce_backward: (grad_self, grad_src)."""
    reduce = {"max": "amax", "min": "amin"}.get(reduce, reduce)
    if reduce == "sum":
        grad_self = grad
        grad_src = at.gather(grad, dim, index, False)
    elif reduce == "prod":
        masked_self = at.masked_fill_Scalar(self, at.eq_Scalar(self, 0), 1)
        masked_self_result = at.scatter_reduce_two(
            masked_self, dim, index, src, reduce, include_self
        )
        grad_self = at.div_Tensor(at.mul_Tensor(grad, masked_self_result), masked_self)
        src_zero = at.eq_Scalar(src, 0)
        zeros = at.zeros_like(self, None, None, None, None, None)
        src_num_zeros = at.gather(
            at.scatter_add(
                zeros, dim, index, at.to_dtype(src_zero, self.dtype, False, False, None)
            ),
            dim,
            index,
            False,
        )
        src_single_zero = at.bitwise_and_Tensor(src_zero, at.eq_Scalar(src_num_zeros, 1))
        masked_src = at.masked_fill_Scalar(src, src_single_zero, 1)
        masked_src_result = at.scatter_reduce_two(
            self, dim, index, masked_src, reduce, include_self
        )
        grad_src = at.where_self(
            src_single_zero,
            at.gather(at.mul_Tensor(grad, masked_src_result), dim, index, False),
            at.div_Tensor(
                at.gather(at.mul_Tensor(grad, result), dim, index, False),
                at.masked_fill_Scalar(src, src_zero, 1),
            ),
        )
    elif reduce == "mean":
        counts = (at.ones_like if include_self else at.zeros_like)(
            grad, None, None, None, None, None
        )
        ones = at.ones_like(src, None, None, None, None, None)
        counts = at.scatter_add(counts, dim, index, ones)
        counts = at.masked_fill__Scalar(counts, at.eq_Scalar(counts, 0), 1)
        grad_self = at.div_Tensor(grad, counts)
        grad_src = at.div_Tensor(
            at.gather(grad, dim, index, False), at.gather(counts, dim, index, False)
        )
    else:  # amax / amin: the gradient is shared evenly between the extremes
        value = at.gather(result, dim, index, False)
        self_is_result = at.eq_Tensor(self, result)
        src_is_result = at.eq_Tensor(src, value)
        counts = at.scatter_add(
            at.to_dtype(self_is_result, self.dtype, False, False, None),
            dim,
            index,
            at.to_dtype(src_is_result, self.dtype, False, False, None),
        )
        shared = at.div_Tensor(grad, counts)
        grad_self = at.mul_Tensor(self_is_result, shared)
        grad_src = at.mul_Tensor(src_is_result, at.gather(shared, dim, index, False))
    if not include_self:
        grad_self = at.scatter_value(grad_self, dim, index, 0)
    return grad_self, grad_src


def scatter_reduce_backward_self(grad, self, dim, index, src, reduce, include_self, result):
    return _scatter_reduce_grads(grad, self, dim, index, src, reduce, include_self, result)[0]


def scatter_reduce_backward_src(grad, self, dim, index, src, reduce, include_self, result):
    return _scatter_reduce_grads(grad, self, dim, index, src, reduce, include_self, result)[1]


def not_implemented(name: str, reason: str = ""):
    """FunctionsManual's not_implemented: the backward of an entry PyTorch declares without
    a formula raises when it runs."""
    raise NotImplementedError(f"the derivative for '{name}' is not implemented. {reason}".rstrip())
