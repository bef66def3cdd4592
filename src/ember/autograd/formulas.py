"""Helpers the derivative formulas of derivatives.yaml call, written with ember operators.

Layer: autograd. In: gradients and saved values. Out: input gradients. Every
helper is built from dispatched ember operators, so a backward pass under
create_graph records its own graph and double backward works.
Mirrors torch/csrc/autograd/FunctionsManual.cpp. See Note [Formulas in derivatives.yaml].
"""

from __future__ import annotations

import math

import numpy as np

from ember._c10 import dtypes
from ember._c10.dtypes import int64
from ember._ops import ops
from ember._tensor_ctors import from_numpy
from ember.aten._generated.python_functions import (
    arange,
    cat,
    ones_like,
    stack,
    where,
    zeros,
    zeros_like,
)
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


def _safe_size(sizes, dim) -> int:
    """The number of elements `dim` reduces (1 for a 0-dim tensor, whatever dim says)."""
    if not sizes:
        return 1
    count = 1
    for d in _as_list(dim):
        count *= sizes[d]  # d is in range: the forward checked it
    return count


def _divide(numerator: float, denominator: float) -> float:
    """C++ double division: a zero denominator gives an infinity (or NaN), not an error."""
    if denominator == 0:
        return math.nan if numerator == 0 else math.copysign(math.inf, numerator)
    return numerator / denominator


def mean_backward(grad, sizes, dim, numel: int, keepdim: bool):
    count = numel if not _as_list(dim) else _safe_size(sizes, dim)
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
    # frompyfunc returns a Python float for a 0-d operand
    values = 0.5 * (1 + np.asarray(erf(detached.ndarray() / math.sqrt(2))).astype(np.float64))
    constant = from_numpy(np.asarray(values)).to(x.dtype)
    return constant + (x - detached) * pdf


def clamp_backward(grad, self, min, max):
    mask = ones_like(self, dtype=dtypes.bool)
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


def _maybe_overlapping_memory(sizes, strides) -> bool:
    """Could two elements of this geometry share memory? Walks the dims by stride, as
    FunctionsManual.cpp does."""
    reach = 0  # the largest offset reachable with the dims seen so far
    for size, stride in sorted(zip(sizes, strides), key=lambda pair: pair[1]):
        if stride <= reach:
            return True
        reach += stride * (size - 1)
    return False


def _min_storage_size(sizes, strides, offset: int) -> int:
    size_needed = offset + 1
    for size, stride in zip(sizes, strides):
        if size == 0:
            return offset
        size_needed += (size - 1) * stride
    return size_needed


def _kept_dims(sizes, strides):
    """The dims of size other than 1 (the others address nothing new)."""
    kept = [(size, stride) for size, stride in zip(sizes, strides) if size != 1]
    return [size for size, _ in kept], [stride for _, stride in kept]


def as_strided_backward(grad, sizes, strides, offset, size, stride, storage_offset):
    """The gradient of as_strided over the input's geometry: scattered into a flat buffer
    of the storage both geometries cover (summed where the output overlaps itself),
    divided where the input does by how often it reads each element, then viewed with
    the input's geometry."""
    storage_offset = offset if storage_offset is None else storage_offset
    if 0 in sizes or 0 in size:
        return at.zeros(list(sizes), grad.dtype, None, grad.device, None)
    out_sizes, out_strides = [], []
    for i in reversed(range(len(size))):
        if size[i] == 1:
            grad = at.squeeze_dim(grad, i)
        elif stride[i] == 0:  # an expanded dim: its gradients sum
            grad = at.sum_dim_IntList(grad, [i], False, None)
        else:
            out_sizes.insert(0, size[i])
            out_strides.insert(0, stride[i])
    in_sizes, in_strides = _kept_dims(sizes, strides)
    out_overlap = _maybe_overlapping_memory(out_sizes, out_strides)
    in_overlap = _maybe_overlapping_memory(in_sizes, in_strides)
    shared = min(offset, storage_offset)
    in_offset, out_offset = offset - shared, storage_offset - shared
    length = max(
        _min_storage_size(in_sizes, in_strides, in_offset),
        _min_storage_size(out_sizes, out_strides, out_offset),
    )
    storage = at.new_zeros(grad, [length], None, None, None, None)
    if in_overlap or out_overlap:
        positions = at.arange_start(0, length, int64, None, grad.device, None)
    if out_overlap:
        read = at.as_strided(positions, out_sizes, out_strides, out_offset)
        storage = at.index_put(storage, [at.reshape(read, [-1])], at.reshape(grad, [-1]), True)
    else:
        at.copy_(at.as_strided(storage, out_sizes, out_strides, out_offset), grad, False)
    if in_overlap:
        read = at.reshape(at.as_strided(positions, in_sizes, in_strides, in_offset), [-1])
        ones = at.expand(
            at.ones([1], grad.dtype, None, grad.device, None), list(read._sizes), False
        )
        count = at.index_put(
            at.zeros_like(storage, None, None, None, None, None), [read], ones, True
        )
        storage = at.div_Tensor(storage, count)  # NaN where the input reads nothing
    return at.as_strided(storage, list(sizes), list(strides), in_offset)


def unsqueeze_to(grad, dim, sizes):
    """squeeze's gradient: the size-1 dims of `sizes` (those among `dim`, if given) back."""
    ndim = len(sizes)
    if dim is None:
        dims = range(ndim)
    else:
        dims = sorted({d % ndim for d in ([dim] if isinstance(dim, int) else dim)} if ndim else ())
    for d in dims:
        if sizes[d] == 1:
            grad = at.unsqueeze(grad, d)
    return grad


def unfold_backward(grad, input_sizes, dim: int, size: int, step: int):
    return at.unfold_backward(grad, list(input_sizes), dim, size, step)


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
            grad = zeros(shape, dtype=dtype)
        pieces.append(grad)
    return cat(pieces, dim)


def unbind_backward(grads, dim: int, sizes, dtype):
    shape = list(sizes)
    del shape[dim % len(sizes)]
    pieces = [g if g is not None else zeros(shape, dtype=dtype) for g in grads]
    return stack(pieces, dim)


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
    """grad summed into zeros where index read (None entries take whole dimensions)."""
    return at.index_put(zeros, list(indices), grad, True)


def index_select_backward(grad, sizes, dim: int, index):
    if not sizes:  # a 0-dim self: its one element, selected once (index_add_ of grad)
        return grad.clone()
    dim = dim % len(sizes)
    indices = [None] * dim + [index.reshape([-1]) if len(index._sizes) == 0 else index]
    return ops.aten.index_put(grad.new_zeros(list(sizes)), indices, grad, True)


def gather_backward(grad, sizes, dim: int, index):
    """scatter_add into zeros, as index_put with one full index tensor per dimension."""
    ndim = len(index._sizes)
    if not sizes:  # a 0-dim self: every index is 0 (scatter_add_ sums grad into it)
        return grad.sum()
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
            indices.append(arange(index._sizes[d]).view(shape).expand(list(index._sizes)))
    return grad.new_zeros(list(sizes)).index_put(indices, grad, True)


def masked_fill_backward(grad, mask):
    return (grad * mask).sum()


def mse_loss_backward(grad, self, target, reduction: int):
    scale = 2.0 / self.numel() if reduction == 1 else 2.0
    return scale * (self - target) * grad


def var_backward(grad, self, dim, correction, keepdim: bool):
    correction = 1 if correction is None else correction
    sizes = self._sizes
    if not sizes or dim is None:
        dof = self.numel() - correction
        if dof <= 0:
            # 2 / dof is infinite: NaN where self is its mean (inf * 0), else infinity
            return grad * where(self == self.mean(), math.nan, math.inf)
        return (2.0 / dof) * grad * (self - self.mean())
    if not keepdim and len(sizes) > 1:
        grad = restore_reduced_dims(grad, dim, False, len(sizes))
    # an empty dim list counts 1 element here, as _safe_size does in PyTorch
    scale = _divide(2.0, _safe_size(sizes, dim) - correction)
    return scale * grad * (self - self.mean(_as_list(dim), keepdim=True))


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
    return where(condition, grad, zeros_like(grad))


def where_other_grad(condition, grad):
    return where(condition, zeros_like(grad), grad)


def maximum_backward(grad, self, other, pick_self: bool):
    half = where(self == other, grad / 2, grad)
    losing = (self < other) if pick_self else (self > other)
    return half.masked_fill(losing, 0)


def minimum_backward(grad, self, other, pick_self: bool):
    return maximum_backward(grad, self, other, not pick_self)


def index_put_self_backward(grad, indices, values, accumulate: bool):
    if accumulate:
        return grad
    zeros = at.zeros_like(values, None, None, None, None, None)
    return at.index_put(grad, list(indices), zeros, False)


def index_values_backward(grad, indices):
    return at.index_Tensor(grad, list(indices))
