"""Backward of index_reduce: the gradients of self and source for prod, mean, amax, amin.

Layer: autograd. In: the gradient, the saved inputs and result. Out: (grad_self,
grad_source), built from dispatched operators (so double backward records its graph).
Mirrors index_reduce_backward of torch/csrc/autograd/FunctionsManual.cpp (its DelayedError
for a double backward through several zeros reduced into one position is not reproduced:
the first backward's values are the same).
"""

from __future__ import annotations

from ember.aten.native import at

__all__ = ["index_reduce_backward"]


def _like(fn, t):
    return fn(t, None, None, None, None, None)


def _prod(grad, self, dim, index, source, include_self, result):
    masked_self = at.masked_fill_Scalar(self, at.eq_Scalar(self, 0), 1)
    masked_self_result = at.index_reduce(masked_self, dim, index, source, "prod", include_self)
    grad_self = at.div_Tensor(at.mul_Tensor(grad, masked_self_result), masked_self)
    src_zero = at.eq_Scalar(source, 0)
    zeros = _like(at.zeros_like, self)
    counted = at.index_add(
        zeros, dim, index, at.to_dtype(src_zero, self.dtype, False, False, None), 1
    )
    src_num_zeros = at.index_select(counted, dim, index)
    src_single_zero = at.bitwise_and_Tensor(src_zero, at.eq_Scalar(src_num_zeros, 1))
    masked_src = at.masked_fill_Scalar(source, src_single_zero, 1)
    masked_src_result = at.index_reduce(self, dim, index, masked_src, "prod", include_self)
    grad_src = at.where_self(
        src_single_zero,
        at.index_select(at.mul_Tensor(grad, masked_src_result), dim, index),
        at.div_Tensor(
            at.index_select(at.mul_Tensor(grad, result), dim, index),
            at.masked_fill_Scalar(source, src_zero, 1),
        ),
    )
    return grad_self, grad_src


def _mean(grad, dim, index, source, include_self):
    counts = _like(at.ones_like if include_self else at.zeros_like, grad)
    counts = at.index_add(counts, dim, index, _like(at.ones_like, source), 1)
    at.masked_fill__Scalar(counts, at.eq_Scalar(counts, 0), 1)
    grad_self = at.div_Tensor(grad, counts)
    grad_src = at.div_Tensor(at.index_select(grad, dim, index), at.index_select(counts, dim, index))
    return grad_self, grad_src


def _extreme(grad, self, dim, index, source, result):
    """amax / amin: the gradient shared evenly between the elements equal to the result."""
    value = at.index_select(result, dim, index)
    self_is_result = at.to_dtype(at.eq_Tensor(self, result), self.dtype, False, False, None)
    source_is_result = at.to_dtype(at.eq_Tensor(source, value), self.dtype, False, False, None)
    counts = at.index_add(self_is_result, dim, index, source_is_result, 1)
    shared = at.div_Tensor(grad, counts)
    grad_self = at.mul_Tensor(self_is_result, shared)
    grad_src = at.mul_Tensor(source_is_result, at.index_select(shared, dim, index))
    return grad_self, grad_src


def index_reduce_backward(grad, self, dim, index, source, reduce, include_self, result):
    if reduce == "prod":
        grad_self, grad_src = _prod(grad, self, dim, index, source, include_self, result)
    elif reduce == "mean":
        grad_self, grad_src = _mean(grad, dim, index, source, include_self)
    elif reduce in ("amax", "amin"):
        grad_self, grad_src = _extreme(grad, self, dim, index, source, result)
    else:
        raise RuntimeError(
            f"Expected 'reduce' to be one of 'prod', 'amax', 'amin' or 'mean' but got {reduce}."
        )
    if not include_self:
        grad_self = at.index_fill_int_Scalar(grad_self, dim, index, 0)
    return grad_self, grad_src
