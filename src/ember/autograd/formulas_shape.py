"""Derivative helpers of the view, shape and indexing operators (derivatives.yaml).

Layer: autograd. In: a gradient and the forward call's saved sizes, strides and
indices. Out: the gradient of the input, put back into the input's geometry
(zero-filled where the forward pass never read). Built from dispatched ember
operators, so create_graph records them. Mirrors the view and indexing parts of
torch/csrc/autograd/FunctionsManual.cpp; re-exported by formulas.py, whose names
the generator reads.
"""

from __future__ import annotations

from ember._c10.dtypes import int64
from ember._c10.layout import strided
from ember._ops import ops
from ember.aten._generated.python_functions import arange, cat, stack
from ember.aten.native import at


def diagonal_backward(grad, sizes, offset: int, dim1: int, dim2: int):
    return at.diagonal_backward(grad, list(sizes), offset, dim1, dim2)


def select_backward(grad, sizes, dim: int, index: int):
    return at.select_backward(grad, list(sizes), dim, index)


def slice_backward(grad, sizes, dim: int, start, end, step: int):
    """slice_backward_wrapper: a missing start is 0, a missing end INT64_MAX."""
    start = 0 if start is None else start
    end = 9223372036854775807 if end is None else end
    return at.slice_backward(grad, list(sizes), dim, start, end, step)


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
            grad = zeros_with_options(shape, dtype, _device_of(grads))
        pieces.append(grad)
    return cat(pieces, dim)


def _device_of(grads):
    return next(g for g in grads if g is not None).device


def zeros_with_options(sizes, dtype, device):
    """at::zeros(sizes, options) as FunctionsManual calls it: a dispatch mode sees dtype=
    layout= and device=."""
    return at.zeros(list(sizes), dtype, strided, device, None)


def unbind_backward(grads, dim: int, sizes, dtype):
    """Undefined gradients are zeros({}, options).expand(sizes) of the first defined one."""
    first = next(g for g in grads if g is not None)
    pieces = [
        g
        if g is not None
        else zeros_with_options([], first.dtype, first.device).expand(list(first._sizes))
        for g in grads
    ]
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
    """grad.select(dim, i) for each input, as PyTorch's stack_tensors_backward."""
    dim = dim % len(grad._sizes)
    return [grad.select(dim, i) for i in range(grad._sizes[dim])]


def index_backward(zeros, indices, grad):
    """grad summed into zeros where index read (None entries take whole dimensions)."""
    return at.index_put(zeros, list(indices), grad, True)


def index_select_backward(grad, sizes, dim: int, index):
    if not sizes:  # a 0-dim self: its one element, selected once (index_add_ of grad)
        return grad.clone()
    dim = dim % len(sizes)
    indices = [None] * dim + [index.reshape([-1]) if len(index._sizes) == 0 else index]
    zeros = at.new_zeros(grad, list(sizes), grad.dtype, None, grad.device, None)
    return ops.aten.index_put(zeros, indices, grad, True)


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


def roll_backward(grad, shifts, dims):
    return grad.roll([-s for s in shifts], list(dims))


def index_put_self_backward(grad, indices, values, accumulate: bool):
    if accumulate:
        return grad
    zeros = zeros_with_options(values._sizes, grad.dtype, grad.device)
    return at.index_put(grad, list(indices), zeros, False)


def index_values_backward(grad, indices):
    return at.index_Tensor(grad, list(indices))
