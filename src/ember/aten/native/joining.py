"""Joining and rearranging kernels: cat, stack, flip, roll, tril, triu.

Layer: aten/native. In: a StructuredMeta plus the arguments (cat, tril, triu:
structured implementations writing into `out`), or the full schema argument
list (stack, flip, roll). Out: tensors. Mirrors ATen/native/TensorShape.cpp
(cat_out_cpu, stack via cat and a view), ATen/native/TensorTransformations.cpp
(flip, roll_cpu, roll_common) and TriangularOps.cpp.
"""

from __future__ import annotations

import numpy as np

from ember._c10.tensor_impl import contiguous_strides, shape_text
from ember._tensor import make_view
from ember.aten.loop_order import in_loop_order
from ember.aten.memory_overlap import assert_no_internal_overlap, assert_no_overlap
from ember.aten.meta.joining import cat_should_skip, cat_wrap_dim
from ember.aten.meta.out_wrapper import check_copy_devices
from ember.aten.native import at
from ember.aten.native.common import wrap_dim
from ember.aten.native.copy import converted, copy_element
from ember.aten.native.resize import resize_output
from ember.aten.native.views import compute_stride

__all__ = ["cat_out", "stack", "stack_out", "flip", "roll", "tril_out", "triu_out"]


def cat_out(meta, tensors, dim, out) -> None:
    tensors = list(tensors)
    # after the resize, as in TORCH_PRECOMPUTE_META_FUNC(cat) (Note [Memory overlap checks])
    assert_no_internal_overlap(out)
    for t in tensors:
        assert_no_overlap(out, t)
    if out.numel() == 0:
        return
    dim = cat_wrap_dim(dim, tensors)
    target = out.ndarray()
    offset = 0
    for t in tensors:
        if cat_should_skip(t):
            continue
        length = t._sizes[dim]
        if t._storage is out._storage and _copied_in_loop_order(meta, t, out, dim, offset):
            offset += length
            continue
        where = (slice(None),) * dim + (slice(offset, offset + length),)
        target[where] = converted(t.ndarray(), t.dtype, out.dtype)
        offset += length


def _copied_in_loop_order(meta, t, out, dim: int, offset: int) -> bool:
    """cat_out_cpu copies an input that shares the output's memory with copy_ into its slice
    of the result, in TensorIterator's loop order (Note [Overlapping operands in loop order])."""
    sizes = list(out._sizes)
    sizes[dim] = t._sizes[dim]
    start = out._storage_offset + offset * out._strides[dim]
    return in_loop_order(
        copy_element, meta, (t,), make_view(out, sizes, out._strides, start), promotes=False
    )


def _unsqueezed(t, dim: int):
    """unsqueeze(t, dim) as a view (the stride of the new dim follows inferUnsqueezeGeometry)."""
    sizes = list(t._sizes)
    strides = list(t._strides)
    new_stride = 1 if dim >= len(sizes) else sizes[dim] * strides[dim]
    sizes.insert(dim, 1)
    strides.insert(dim, new_stride)
    return make_view(t, sizes, strides, t._storage_offset)


def _stack_dim(tensors, dim) -> int:
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    return wrap_dim(dim, len(tensors[0]._sizes) + 1)


def _check_stack_inputs(tensors) -> None:
    first = tensors[0]
    for i, t in enumerate(tensors):
        if t._sizes != first._sizes:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {shape_text(first._sizes)} "
                f"at entry 0 and {shape_text(t._sizes)} at entry {i}"
            )


def stack(tensors, dim):
    tensors = list(tensors)
    dim = _stack_dim(tensors, dim)
    first = tensors[0]
    _check_stack_inputs(tensors)
    if dim < len(first._sizes):
        joined = at.cat(tensors, dim)
        # Split dim (n * k) into (n, k): always expressible as a view of cat's output.
        inner = first._sizes[dim]
        sizes = list(joined._sizes)
        strides = list(joined._strides)
        sizes[dim : dim + 1] = [len(tensors), inner]
        strides[dim : dim + 1] = [strides[dim] * inner, strides[dim]]
        if joined.numel() == 0:  # computeStride: an empty view is laid out contiguously
            strides = list(contiguous_strides(tuple(sizes)))
        return make_view(joined, sizes, strides, joined._storage_offset)
    return at.cat([_unsqueezed(t, dim) for t in tensors], dim)


def stack_out(tensors, dim, out):
    """stack_out (TensorShape.cpp): cat into a view of `out` where one exists, else cat of
    the unsqueezed inputs into `out`."""
    tensors = list(tensors)
    wrapped = _stack_dim(tensors, dim)
    first = tensors[0]
    if out.device != first.device:  # a meta tensor: PyTorch's Python meta kernel refuses it
        _check_stack_inputs(tensors)
        check_copy_devices(first, out)
    if wrapped < len(first._sizes):
        _check_stack_inputs(tensors)
        result_sizes = list(first._sizes)
        result_sizes.insert(wrapped, len(tensors))
        resize_output(out, tuple(result_sizes))
        cat_sizes = list(first._sizes)
        cat_sizes[wrapped] *= len(tensors)
        if compute_stride(out._sizes, out._strides, cat_sizes) is not None:
            at.cat_out(tensors, wrapped, at.view(out, cat_sizes))
            return out
    return at.cat_out([at.unsqueeze(t, wrapped) for t in tensors], dim, out)


def _flip_dims(dims, ndim: int) -> list[int]:
    """dim_list_to_bitset: wrap each dim in turn, failing on the first repeat."""
    seen: list[int] = []
    for d in dims:
        d = wrap_dim(d, ndim)
        if d in seen:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        seen.append(d)
    return seen


def flip(self, dims):
    axes = _flip_dims(dims, len(self._sizes))
    out = at.empty_like(self, None, None, None, None, None)
    if out.device.type != "meta" and out.numel():
        # a 0-dim tensor wraps dim 0 / -1 to its one implicit dim: nothing to reverse
        flipped = np.flip(self.ndarray(), axis=tuple(axes)) if axes and self._sizes else None
        out.ndarray()[...] = self.ndarray() if flipped is None else flipped
    return out


def roll(self, shifts, dims):
    shifts, dims = list(shifts), list(dims)
    if not shifts:
        raise RuntimeError("`shifts` required")
    if not dims and len(shifts) == 1:
        return _roll_flat(self, shifts[0])
    if len(shifts) != len(dims):
        raise RuntimeError(
            f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}"
        )
    result = self
    for shift, dim in zip(shifts, dims):
        result = _roll_one(result, shift, dim)
    return result


def _roll_one(self, shift: int, dim: int):
    """roll_cpu for one dim: an empty input is cloned (before its dim is even checked)."""
    if self.numel() == 0:
        return at.clone(self, None)
    dim = wrap_dim(dim, len(self._sizes), wrap_scalar=False)  # roll_cpu's self.size(dim)
    out = at.empty_memory_format(list(self._sizes), self.dtype, None, self.device, None, None)
    if out.device.type != "meta":
        out.ndarray()[...] = np.roll(self.ndarray(), shift, axis=dim)
    return out


def _roll_flat(self, shift: int):
    """roll_common without dims: roll the flattened tensor, then view it in self's shape."""
    if self.numel() == 0:
        strides = self._strides if len(self._sizes) == 1 else contiguous_strides(self._sizes)
        return at.empty_strided(
            list(self._sizes), list(strides), self.dtype, None, self.device, None
        )
    out = at.empty_memory_format(list(self._sizes), self.dtype, None, self.device, None, None)
    if out.device.type != "meta":
        flat = np.roll(self.ndarray().reshape(-1), shift)
        out.ndarray()[...] = flat.reshape(self._sizes)
    return out


def _diagonal_in_range(self, diagonal: int) -> int:
    """Any int64 diagonal selects as torch's does; NumPy's own arithmetic on it would wrap."""
    bound = sum(self._sizes[-2:]) + 1
    return max(-bound, min(bound, diagonal))


def tril_out(meta, self, diagonal, out) -> None:
    if out.numel():
        out.ndarray()[...] = np.tril(self.ndarray(), _diagonal_in_range(self, diagonal))


def triu_out(meta, self, diagonal, out) -> None:
    if out.numel():
        out.ndarray()[...] = np.triu(self.ndarray(), _diagonal_in_range(self, diagonal))
