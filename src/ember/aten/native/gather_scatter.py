"""Gathering kernels: index_select, gather, scatter (src / value, with reduce or not).

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
    "scatter_reduce_out",
    "scatter_value_reduce_out",
]


def index_select_out(self, dim, index, out):
    """index_select_out_cpu_: the dim, the index, the result, then the overlap checks."""
    dim = wrap_dim(dim, self.dim())
    numel = index.numel()
    if index.dim() > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if not self._sizes and numel != 1:
        raise RuntimeError(
            f"index_select(): Index to scalar can have only 1 value, got {numel} value(s)"
        )
    if index.dtype not in (dtypes.int64, dtypes.int32):
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    if self.dtype is not out.dtype:
        raise RuntimeError("index_select(): self and result must have the same scalar type")
    assert_no_internal_overlap(out)  # Note [Memory overlap checks]
    assert_no_overlap(out, self)
    assert_no_overlap(out, index)
    sizes = list(self._sizes)
    if sizes:
        sizes[dim] = numel
    resize_output(out, tuple(sizes))
    if out.device.type == "meta" or index.device.type == "meta":
        return out
    positions = index.ndarray().reshape(-1).astype(np.int64)
    size = self._sizes[dim] if self._sizes else 1
    if positions.size and (positions.min() < 0 or positions.max() >= size):
        raise IndexError("index out of range in self")
    if out.numel():
        source = self.ndarray() if self._sizes else self.ndarray().reshape(1)
        out.ndarray()[...] = np.take(source, positions, axis=dim).reshape(out._sizes)
    return out


def index_select(self, dim, index):
    if "meta" in (self.device.type, index.device.type):
        # meta_index_select (torch/_meta_registrations.py): only the result's shape, the
        # dim taken as a Python list index
        sizes = list(self._sizes)
        if sizes:
            if not -len(sizes) <= dim < len(sizes):
                raise IndexError("list assignment index out of range")
            sizes[dim] = index.numel()
        return at.empty_memory_format(sizes, self.dtype, None, self.device, None, None)
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


# The ufuncs of scatter's reduce argument; each repeated index accumulates (ufunc.at).
_REDUCE_UFUNCS = {"add": np.add, "multiply": np.multiply}


def _scatter(self, dim, index, values, out, reduce=None) -> None:
    if out is not self:
        at.copy_(out, self, False)
    if index.numel() == 0:
        return
    dim = wrap_dim(dim, self.dim())
    positions = _as_nd(index.ndarray()).astype(np.int64)
    target = _as_nd(out.ndarray())
    _check_bounds(positions, dim, target.shape[dim])
    window = _window(target, positions.shape, dim)
    if reduce is None:
        np.put_along_axis(window, positions, values, axis=dim)
        return
    where = tuple(
        positions if d == dim else np.arange(n).reshape((-1,) + (1,) * (positions.ndim - d - 1))
        for d, n in enumerate(positions.shape)
    )
    _REDUCE_UFUNCS[reduce].at(window, where, values)


def _src_window(index, src):
    shape = _as_nd(index.ndarray()).shape
    return _as_nd(src.ndarray())[tuple(slice(0, n) for n in shape)]


def scatter_src_out(meta, self, dim, index, src, out) -> None:
    _scatter(self, dim, index, _src_window(index, src), out)


def scatter_value_out(meta, self, dim, index, value, out) -> None:
    _scatter(self, dim, index, checked_value(value, self.dtype), out)


def scatter_reduce_out(meta, self, dim, index, src, reduce, out) -> None:
    _scatter(self, dim, index, _src_window(index, src), out, reduce)


def scatter_value_reduce_out(meta, self, dim, index, value, reduce, out) -> None:
    _scatter(self, dim, index, checked_value(value, self.dtype), out, reduce)
