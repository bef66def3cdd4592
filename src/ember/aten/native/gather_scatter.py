"""Gathering kernels: index_select, gather, scatter (src / value).

Layer: aten/native. In: the full schema argument list (index_select), or a
StructuredMeta plus the arguments and `out` (gather, scatter: structured
implementations). Out: values written into `out`. Mirrors
ATen/native/TensorAdvancedIndexing.cpp (index_select_out_cpu_, gather_out,
scatter) and the bound checks of ATen/native/cpu/ScatterGatherKernel.cpp.
"""

from __future__ import annotations

import numpy as np

from ember._c10 import dtypes
from ember.aten.memory_overlap import assert_no_internal_overlap, assert_no_overlap
from ember.aten.native import at
from ember.aten.native.common import wrap_dim
from ember.aten.native.factories import checked_value
from ember.aten.native.resize import resize_output

__all__ = [
    "index_select",
    "index_select_out",
    "gather_out",
    "scatter_src_out",
    "scatter_value_out",
]


def index_select_out(self, dim, index, out):
    if index.dim() > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if index.dtype not in (dtypes.int64, dtypes.int32):
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    if self.dtype is not out.dtype:
        raise RuntimeError("index_select(): self and result must have the same scalar type")
    assert_no_internal_overlap(out)  # Note [Memory overlap checks]
    assert_no_overlap(out, self)
    assert_no_overlap(out, index)
    dim = wrap_dim(dim, self.dim())
    numel = index.numel()
    sizes = list(self._sizes)
    if sizes:
        sizes[dim] = numel
    resize_output(out, tuple(sizes))
    if out.device.type == "meta" or index.device.type == "meta":
        return out  # the meta function checks no more than this
    if not sizes and numel != 1:
        raise RuntimeError(
            f"index_select(): Index to scalar can have only 1 value, got {numel} value(s)"
        )
    positions = index.ndarray().reshape(-1).astype(np.int64)
    size = self._sizes[dim] if self._sizes else 1
    if positions.size and (positions.min() < 0 or positions.max() >= size):
        raise IndexError("index out of range in self")
    if out.numel():
        source = self.ndarray() if self._sizes else self.ndarray().reshape(1)
        out.ndarray()[...] = np.take(source, positions, axis=dim).reshape(out._sizes)
    return out


def index_select(self, dim, index):
    out = at.empty_memory_format([0], self.dtype, None, self.device, None, None)
    return index_select_out(self, dim, index, out)


def _as_nd(array: np.ndarray) -> np.ndarray:
    return array.reshape(1) if array.ndim == 0 else array


def _check_bounds(positions: np.ndarray, dim: int, size: int) -> None:
    outside = (positions < 0) | (positions >= size)
    if outside.any():
        bad = int(positions[outside].flat[0])
        raise RuntimeError(f"index {bad} is out of bounds for dimension {dim} with size {size}")


def _window(array: np.ndarray, shape: tuple, dim: int) -> np.ndarray:
    """The leading corner of ``array`` that ``shape`` covers in every dim but ``dim``."""
    where = tuple(slice(None) if d == dim else slice(0, n) for d, n in enumerate(shape))
    return array[where]


def gather_out(meta, self, dim, index, sparse_grad, out) -> None:
    if index.numel() == 0:
        return
    dim = wrap_dim(dim, self.dim())
    positions = _as_nd(index.ndarray()).astype(np.int64)
    source = _as_nd(self.ndarray())
    _check_bounds(positions, dim, source.shape[dim])
    values = np.take_along_axis(_window(source, positions.shape, dim), positions, axis=dim)
    out.ndarray()[...] = values.reshape(out._sizes)


def _scatter(self, dim, index, values, out) -> None:
    if out is not self:
        at.copy_(out, self, False)
    if index.numel() == 0:
        return
    dim = wrap_dim(dim, self.dim())
    positions = _as_nd(index.ndarray()).astype(np.int64)
    target = _as_nd(out.ndarray())
    _check_bounds(positions, dim, target.shape[dim])
    np.put_along_axis(_window(target, positions.shape, dim), positions, values, axis=dim)


def scatter_src_out(meta, self, dim, index, src, out) -> None:
    shape = _as_nd(index.ndarray()).shape
    source = _as_nd(src.ndarray())
    _scatter(self, dim, index, source[tuple(slice(0, n) for n in shape)], out)


def scatter_value_out(meta, self, dim, index, value, out) -> None:
    _scatter(self, dim, index, checked_value(value, self.dtype), out)
