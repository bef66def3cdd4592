"""Helpers the derivative formulas of derivatives.yaml call, written with ember operators.

Layer: autograd. In: gradients and saved values. Out: input gradients. Every
helper is built from dispatched ember operators, so a backward pass under
create_graph records its own graph and double backward works.
Mirrors torch/csrc/autograd/FunctionsManual.cpp. See Note [Formulas in derivatives.yaml].
"""

from __future__ import annotations

import math

import numpy as np

import ember
from ember.aten.native import at
from ember.autograd.formulas_pointwise import (  # noqa: F401 (helpers of derivatives.yaml)
    conj_scalar,
    div_tensor_other_backward,
    div_tensor_self_backward,
    handle_r_to_c,
    maybe_multiply,
    mm_mat1_backward,
    mm_mat2_backward,
    mul_tensor_backward,
    pow_backward,
    pow_backward_exponent,
    pow_backward_self,
    prod_backward,
    sgn,
    sigmoid_backward,
    tanh_backward,
    to_copy_backward,
)


def _wrap_dims(dims, ndim: int) -> list[int]:
    if dims is None:
        return list(range(ndim))
    if isinstance(dims, int):
        dims = [dims]
    result = [d + ndim if d < 0 else d for d in dims]
    return result if result or ndim == 0 else list(range(ndim))


def sum_to(grad, sizes):
    """Sum a broadcast gradient back to `sizes` (at::sum_to)."""
    sizes = tuple(sizes)
    if grad._sizes == sizes:
        return grad
    lead = len(grad._sizes) - len(sizes)
    dims = list(range(lead))
    dims += [lead + i for i, s in enumerate(sizes) if s == 1 and grad._sizes[lead + i] != 1]
    if dims:
        grad = at.sum_dim_IntList(grad, dims, True, None)
    return at.view(grad, list(sizes)) if lead else grad


def restore_reduced_dims(grad, dim, keepdim: bool, ndim: int | None = None):
    """Unsqueeze the reduced dims back (so the gradient broadcasts over the input)."""
    if keepdim:
        return grad
    total = ndim if ndim is not None else len(grad._sizes) + len(_as_list(dim))
    for d in sorted(_wrap_dims(dim, total)):
        grad = grad.unsqueeze(d)
    return grad


def _as_list(dim):
    if dim is None:
        return []
    return [dim] if isinstance(dim, int) else list(dim)


def sum_backward(grad, sizes, dim, keepdim: bool):
    if dim is not None and len(_as_list(dim)) == 0 and len(sizes) > 0:
        dim = None
    if not keepdim and len(sizes) > 0:
        grad = restore_reduced_dims(grad, dim, False, len(sizes))
    return grad.expand(list(sizes))


def mean_backward(grad, sizes, dim, numel: int, keepdim: bool):
    dims = _wrap_dims(dim, len(sizes)) if _as_list(dim) else list(range(len(sizes)))
    count = 1
    for d in dims:
        count *= sizes[d]
    return sum_backward(grad, sizes, dim, keepdim) / count


def value_selecting_reduction_backward(grad, dim: int, indices, sizes, keepdim: bool):
    if not keepdim and len(sizes) > 0:
        grad = grad.unsqueeze(dim)
        indices = indices.unsqueeze(dim)
    return grad.new_zeros(list(sizes)).scatter(dim, indices, grad)


def evenly_distribute_backward(grad, input, value):
    mask = (input == value).logical_or(input.isnan().logical_and(value.isnan()))
    count = mask.sum()
    return mask * (grad / count)


def scale_grad_by_count(grad, mask, dims):
    return (grad / mask.sum(_wrap_dims(dims, len(mask._sizes)), keepdim=True)) * mask


def softmax_backward(grad, output, dim: int):
    return at._softmax_backward_data(grad, output, dim, output.dtype)


def softmax_double_backward(grad, grad_output, dim: int, output):
    """The gradient of _softmax_backward_data with respect to its `output`."""
    return (
        grad * grad_output
        - grad * (grad_output * output).sum(dim, keepdim=True)
        - grad_output * (grad * output).sum(dim, keepdim=True)
    )


def log_softmax_backward(grad, output, dim: int):
    return at._log_softmax_backward_data(grad, output, dim, output.dtype)


def log_softmax_double_backward(grad, grad_output, dim: int, output):
    """The gradient of _log_softmax_backward_data with respect to its `output`:
    -grad_output.sum(dim) * output.exp() * grad, with exp taken first (the order
    PyTorch's compiled formula dispatches in)."""
    exp = output.exp()
    return -grad_output.sum(dim, keepdim=True) * exp * grad


def logsumexp_backward(grad, self, result, dim, keepdim: bool):
    ndim = len(self._sizes)
    grad = restore_reduced_dims(grad, dim, keepdim, ndim)
    result = restore_reduced_dims(result, dim, keepdim, ndim)
    return grad * (self - result).exp()


def threshold_backward(grad, result, threshold):
    return at.threshold_backward(grad, result, threshold)


def gelu_backward(grad, self, approximate: str):
    if approximate == "tanh":
        k = math.sqrt(2 / math.pi)
        inner = k * (self + 0.044715 * self * self * self)
        t = inner.tanh()
        d_inner = k * (1 + 3 * 0.044715 * self * self)
        return grad * (0.5 * (1 + t) + 0.5 * self * (1 - t * t) * d_inner)
    pdf = (self * self * -0.5).exp() * (1 / math.sqrt(2 * math.pi))
    return grad * (_normal_cdf(self, pdf) + self * pdf)


def _normal_cdf(x, pdf):
    """Phi(x) with slope pdf: the value from math.erf, the derivative kept by autograd."""
    erf = np.frompyfunc(math.erf, 1, 1)
    detached = x.detach()
    values = 0.5 * (1 + erf(detached.ndarray() / math.sqrt(2)).astype(np.float64))
    constant = ember.from_numpy(np.asarray(values)).to(x.dtype)
    return constant + (x - detached) * pdf


def clamp_backward(grad, self, min, max):
    mask = ember.ones_like(self, dtype=ember.bool)
    if min is not None:
        mask = mask.logical_and(self >= min)
    if max is not None:
        mask = mask.logical_and(self <= max)
    return grad * mask


def clamp_backward_min(grad, self, min, max):
    mask = self < min
    if max is not None:
        mask = mask.logical_and(min < max)
    return grad * mask


def clamp_backward_max(grad, self, min, max):
    mask = self > max
    if min is not None:
        mask = mask.logical_or(min >= max)
    return grad * mask


def cumsum_backward(grad, dim: int):
    if len(grad._sizes) == 0:
        return grad
    return grad.flip([dim]).cumsum(dim).flip([dim])


def _zeros_into(grad, sizes, view_of):
    """A zero tensor of `sizes` whose `view_of(result)` slot holds grad (select/slice/...)."""
    result = grad.new_zeros(list(sizes))
    view_of(result).copy_(grad)
    return result


def diagonal_backward(grad, sizes, offset: int, dim1: int, dim2: int):
    return _zeros_into(grad, sizes, lambda r: r.diagonal(offset, dim1, dim2))


def select_backward(grad, sizes, dim: int, index: int):
    return _zeros_into(grad, sizes, lambda r: r.select(dim, index))


def slice_backward(grad, sizes, dim: int, start, end, step: int):
    return _zeros_into(grad, sizes, lambda r: r.slice(dim, start, end, step))


def as_strided_backward(grad, sizes, strides, offset, size, stride, storage_offset):
    target = storage_offset if storage_offset is not None else offset
    result = ember.empty_strided(list(sizes), list(strides), dtype=grad.dtype, device=grad.device)
    result.zero_()
    result.as_strided(list(size), list(stride), target - offset).copy_(grad)
    return result


def permute_backwards(grad, dims):
    ndim = len(dims)
    inverse = [0] * ndim
    for position, d in enumerate(dims):
        inverse[d % ndim if ndim else 0] = position
    return grad.permute(inverse)


def split_backward(grads, split_size: int, dim: int, sizes, dtype):
    dim = dim % len(sizes)
    total = sizes[dim]
    split_sizes = [min(split_size, total - start) for start in range(0, total, split_size)]
    return split_with_sizes_backward(grads, split_sizes or [0], dim, sizes, dtype)


def split_with_sizes_backward(grads, split_sizes, dim: int, sizes, dtype):
    dim = dim % len(sizes)
    pieces = []
    for grad, length in zip(grads, split_sizes):
        if grad is None:
            shape = list(sizes)
            shape[dim] = length
            grad = ember.zeros(shape, dtype=dtype)
        pieces.append(grad)
    return ember.cat(pieces, dim)


def unbind_backward(grads, dim: int, sizes, dtype):
    shape = list(sizes)
    del shape[dim % len(sizes)]
    pieces = [g if g is not None else ember.zeros(shape, dtype=dtype) for g in grads]
    return ember.stack(pieces, dim)


def cat_tensors_backward(grad, sizes_list, dim: int):
    grads = []
    ndim = max(len(s) for s in sizes_list)
    dim = dim % ndim if ndim else 0
    start = 0
    for sizes in sizes_list:
        if len(sizes) == 1 and sizes[0] == 0 and ndim != 1:  # legacy empty inputs
            grads.append(None)
            continue
        length = sizes[dim]
        grads.append(grad.narrow(dim, start, length))
        start += length
    return grads


def stack_tensors_backward(grad, dim: int):
    return list(grad.unbind(dim % len(grad._sizes)))


def index_backward(zeros, indices, grad):
    return zeros.index_put(indices, grad, True)


def index_select_backward(grad, sizes, dim: int, index):
    dim = dim % len(sizes) if sizes else 0
    indices = [None] * dim + [index.reshape([-1]) if len(index._sizes) == 0 else index]
    return ember.ops.aten.index_put(grad.new_zeros(list(sizes)), indices, grad, True)


def gather_backward(grad, sizes, dim: int, index):
    """scatter_add into zeros, as index_put with one full index tensor per dimension."""
    ndim = len(index._sizes)
    if ndim == 0:
        return grad.new_zeros(list(sizes)).index_put([index.reshape([1])], grad.reshape([1]), True)
    dim = dim % ndim
    indices = []
    for d in range(ndim):
        if d == dim:
            indices.append(index)
        else:
            shape = [1] * ndim
            shape[d] = index._sizes[d]
            indices.append(ember.arange(index._sizes[d]).view(shape).expand(list(index._sizes)))
    return grad.new_zeros(list(sizes)).index_put(indices, grad, True)


def masked_fill_backward(grad, mask):
    return (grad * mask).sum()


def mse_loss_backward(grad, self, target, reduction: int):
    scale = 2.0 / self.numel() if reduction == 1 else 2.0
    return scale * (self - target) * grad


def var_backward(grad, self, dim, correction, keepdim: bool):
    ndim = len(self._sizes)
    dims = _wrap_dims(dim, ndim) if _as_list(dim) else list(range(ndim))
    count = 1
    for d in dims:
        count *= self._sizes[d]
    correction = 1 if correction is None else correction
    grad = restore_reduced_dims(grad, dims, keepdim, ndim)
    return (2.0 / max(count - correction, 0)) * grad * (self - self.mean(dims, keepdim=True))


def std_backward(result, grad, self, dim, correction, keepdim: bool):
    grad_var = (grad / (result * 2)).masked_fill(result == 0, 0)
    return var_backward(grad_var, self, dim, correction, keepdim)


def norm_backward(grad, self, p, result, dim=None, keepdim: bool = False):
    """FunctionsManual's norm_backward, case by case and in its order of computation
    (sgn for complex inputs); ord 0 has no gradient."""
    p = 2.0 if p is None else float(p)
    ndim = len(self._sizes)
    dims = _wrap_dims(dim, ndim) if dim is not None and _as_list(dim) else []
    if not keepdim and ndim != 0:
        grad = restore_reduced_dims(grad, dims or None, False, ndim)
        result = restore_reduced_dims(result, dims or None, False, ndim)
    if p == 0:
        return None  # an undefined gradient, as PyTorch's {} (x.grad stays None)
    if p == 1:
        return sgn(self) * grad
    if p == 2:
        return grad * (self / result).masked_fill(result == 0, 0)
    if math.isinf(p):
        magnitude = self.abs()
        mask = (magnitude == result).logical_or(magnitude != magnitude)
        count = mask.sum(dims, keepdim=True) if dims else mask.sum()
        return sgn(self) * ((grad / count) * mask)
    if p < 1:
        scaled = sgn(self) * self.abs().pow(p - 1).masked_fill(self == 0, 0)
        return scaled * grad * result.pow(1 - p)
    if p < 2:
        scaled = sgn(self) * self.abs().pow(p - 1)
        scale = (grad / result.pow(p - 1)).masked_fill(result == 0, 0)
        return scaled * scale
    scaled = self * self.abs().pow(p - 2)
    scale = (grad / result.pow(p - 1)).masked_fill(result == 0, 0)
    return scaled * scale


def linalg_vector_norm_backward(grad, self, ord, result, dim, keepdim: bool):  # noqa: A002
    """The dtype= argument needs nothing: grad's dtype broadcasts through."""
    return norm_backward(grad, self, ord, result, dim, keepdim)


def nll_loss_backward(grad, self, target, weight, reduction, ignore_index, total_weight):
    return at.nll_loss_backward(grad, self, target, weight, reduction, ignore_index, total_weight)


def nll_loss(self, target, weight, reduction, ignore_index):
    return at.nll_loss_forward(self, target, weight, reduction, ignore_index)[0]


def roll_backward(grad, shifts, dims):
    return grad.roll([-s for s in shifts], list(dims))


def where_self_grad(condition, grad):
    return ember.where(condition, grad, ember.zeros_like(grad))


def where_other_grad(condition, grad):
    return ember.where(condition, ember.zeros_like(grad), grad)


def maximum_backward(grad, self, other, pick_self: bool):
    half = ember.where(self == other, grad / 2, grad)
    losing = (self < other) if pick_self else (self > other)
    return half.masked_fill(losing, 0)


def minimum_backward(grad, self, other, pick_self: bool):
    return maximum_backward(grad, self, other, not pick_self)


def index_put_self_backward(grad, indices, values, accumulate: bool):
    if accumulate:
        return grad
    return grad.index_put(indices, grad.new_zeros(()), False)


def index_values_backward(grad, indices):
    return ember.ops.aten.index.Tensor(grad, indices)
