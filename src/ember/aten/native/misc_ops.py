"""Smaller operators: tril_indices / triu_indices, combinations, diff, the *_scatter ops
(slice_scatter, select_scatter, diagonal_scatter) and dist.

Layer: aten/native. tril/triu_indices are CPU factories; combinations and diff are
CompositeImplicitAutograd (meshgrid, masked_select, stack; narrow and sub / logical_xor,
cat); the *_scatter ops are CompositeExplicitAutogradNonFunctional (a clone, then copy_
into the view) and dist CompositeExplicitAutograd (norm of the difference). Mirrors
ATen/native/TensorFactories.cpp, Itertools.cpp, ReduceOps.cpp (diff), TensorShape.cpp
(the scatter ops) and Distance.cpp (dist).
"""

from __future__ import annotations

import numpy as np

from ember._c10 import dtypes
from ember._c10.tensor_impl import shape_text
from ember._tensor import empty_tensor
from ember.aten.native import at
from ember.aten.native.common import as_dtype, wrap_dim
from ember.aten.native.reduction import store
from ember.aten.native.resize import resize_output

__all__ = [
    "combinations",
    "diagonal_scatter",
    "diff",
    "diff_out",
    "dist",
    "select_scatter",
    "slice_scatter",
    "tril_indices",
    "triu_indices",
]

CONTIGUOUS_FORMAT = 0


def _tril_size(row: int, col: int, offset: int) -> int:
    """get_tril_size (TensorFactories.h): the elements of a row x col lower triangle."""
    if row == 0 or col == 0:
        return 0
    first = min(col, 1 + offset) if offset > 0 else int(row + offset > 0)
    last = max(0, min(col, row + offset))
    rows = max(0, min(row, row + offset))
    trapezoid = last - first + 1
    size = (first + last) * trapezoid >> 1
    if rows - trapezoid > 0:
        size += (rows - trapezoid) * col
    return size


def _triangle_indices(name, row, col, offset, dtype, layout, device, lower: bool):
    if row < 0:
        raise RuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"col must be non-negative, got{col}")
    dtype = as_dtype(dtype, dtypes.int64)
    if dtype.is_floating_point or dtype.is_complex or dtype is dtypes.bool:
        raise NotImplementedError(
            f"\"{name}\" not implemented for '{dtypes.scalar_type_name(dtype)}'"
        )
    size = _tril_size(row, col, offset) if lower else row * col - _tril_size(row, col, offset - 1)
    result = empty_tensor((2, size), dtype, device if device is not None else "cpu")
    if size and result.device.type != "meta":
        rows, cols = [], []
        last_row = row if lower else min(row, max(0, col - offset))  # later rows are empty
        for i in range(max(0, -offset - 1) if lower else 0, last_row):
            start, stop = (0, min(col, i + offset + 1)) if lower else (max(0, i + offset), col)
            if stop > start:
                rows.append(np.full(stop - start, i))
                cols.append(np.arange(start, stop))
        store(result, np.stack([np.concatenate(rows), np.concatenate(cols)]))
    return result


def tril_indices(row, col, offset, dtype, layout, device, pin_memory):
    return _triangle_indices("tril_indices", row, col, offset, dtype, layout, device, True)


def triu_indices(row, col, offset, dtype, layout, device, pin_memory):
    return _triangle_indices("triu_indices", row, col, offset, dtype, layout, device, False)


def _triu_mask(n: int, dims: int, diagonal: bool, device):
    """A mask that is True where i < j < k < ... (or i <= j <= k <= ... with diagonal)."""
    index_range = at.arange(n, dtypes.int64, None, device, None)
    grids = at.meshgrid_indexing([index_range] * dims, "ij")
    mask = at.full(list(grids[0]._sizes), True, dtypes.bool, None, device, None)
    for i in range(dims - 1):
        if diagonal:
            at.mul__Tensor(mask, at.le_Tensor(grids[i], grids[i + 1]))
        else:
            at.mul__Tensor(mask, at.lt_Tensor(grids[i], grids[i + 1]))
    return mask


def combinations(self, r, with_replacement):
    if self.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {shape_text(self._sizes)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return at.empty_memory_format([0], self.dtype, None, self.device, None, None)
    grids = at.meshgrid_indexing([self] * r, "ij")
    mask = _triu_mask(self.numel(), r, with_replacement, self.device)
    return at.stack([at.masked_select(g, mask) for g in grids], 1)


def _diff_check_shape(self, other, dim) -> None:
    wrapped = wrap_dim(dim, self.dim(), wrap_scalar=False)
    if self.dim() != other.dim():
        raise RuntimeError("diff expects prepend or append to be the same dimension as input")
    for i in range(other.dim()):
        if i != wrapped and other._sizes[i] != self._sizes[i]:
            raise RuntimeError(
                "diff expects the shape of tensor to prepend or append to match that of input "
                f"except along the differencing dimension; input.size({i}) = {self._sizes[i]}, "
                f"but got tensor.size({i}) = {other._sizes[i]}"
            )


def _diff_check(self, n, dim, prepend, append) -> None:
    if self.dim() < 1:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    for other in (prepend, append):
        if other is not None:
            _diff_check_shape(self, other, dim)


def _diff_helper(self, n, dim):
    if n == 0:
        result = at.zeros_like(self, None, None, None, None, None)
        return at.copy_(result, self, False)
    size = self._sizes[wrap_dim(dim, self.dim())]
    out_len = size - 1
    result = self
    for _ in range(min(n, size)):
        later = at.narrow(result, dim, 1, out_len)
        earlier = at.narrow(result, dim, 0, out_len)
        if self.dtype is dtypes.bool:
            result = at.logical_xor(later, earlier)
        else:
            result = at.sub_Tensor(later, earlier, 1)
        out_len -= 1
    return result


def _with_ends(self, prepend, append, dim):
    parts = [t for t in (prepend, self, append) if t is not None]
    return at.cat(parts, dim)


def diff(self, n, dim, prepend, append):
    _diff_check(self, n, dim, prepend, append)
    if (prepend is None and append is None) or n == 0:
        return _diff_helper(self, n, dim)
    return _diff_helper(_with_ends(self, prepend, append, dim), n, dim)


def diff_out(self, n, dim, prepend, append, out):
    """diff_out_helper: the last difference is written by sub.out / logical_xor.out."""
    _diff_check(self, n, dim, prepend, append)
    source = self
    if (prepend is not None or append is not None) and n != 0:
        source = _with_ends(self, prepend, append, dim)
    if n == 0:
        resize_output(out, source._sizes)
        return at.copy_(out, source, False)
    size = source._sizes[wrap_dim(dim, source.dim())]
    n = min(n, size)
    previous = _diff_helper(source, n - 1, dim) if n > 1 else source
    out_len = previous._sizes[wrap_dim(dim, previous.dim())] - 1
    later = at.narrow(previous, dim, 1, out_len)
    earlier = at.narrow(previous, dim, 0, out_len)
    if source.dtype is dtypes.bool:
        return at.logical_xor_out(later, earlier, out)
    return at.sub_out(later, earlier, 1, out)


def _check_scatter_src(src, view) -> None:
    if src._sizes != view._sizes:
        raise RuntimeError(
            "expected src to have a size equal to the slice of self. src size = "
            f"{shape_text(src._sizes)}, slice size = {shape_text(view._sizes)}"
        )


def slice_scatter(self, src, dim, start, end, step):
    output = at.clone(self, CONTIGUOUS_FORMAT)
    view = at.slice_Tensor(output, dim, start, end, step)
    _check_scatter_src(src, view)
    at.copy_(view, src, False)
    return output


def select_scatter(self, src, dim, index):
    output = at.clone(self, CONTIGUOUS_FORMAT)
    view = at.select_int(output, dim, index)
    _check_scatter_src(src, view)
    at.copy_(view, src, False)
    return output


def diagonal_scatter(self, src, offset, dim1, dim2):
    output = at.clone(self, CONTIGUOUS_FORMAT)
    view = at.diagonal(output, offset, dim1, dim2)
    _check_scatter_src(src, view)
    at.copy_(view, src, False)
    return output


def dist(self, other, p):
    return at.norm_Scalar(at.sub_Tensor(self, other, 1), p)
