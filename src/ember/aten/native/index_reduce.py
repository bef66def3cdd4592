"""index_reduce (prod, mean, amax, amin) along a dim, at the positions an index names.

Layer: aten/native. In: a StructuredMeta and the arguments with the out tensor. Out: out
reduced in place, in index order (ufunc.at applies repeated positions one after
another, as PyTorch's loop does), in the tensor's own type. Mirrors index_reduce_func_impl
and TORCH_IMPL_FUNC(index_reduce_cpu_out) of ATen/native/TensorAdvancedIndexing.cpp: without
include_self the named slices are first filled with the reduction's identity (through
index_fill_, whose checks come first), a tensor of more than one dim is reduced slice by
slice, a 0-d or 1-d one element by element, and mean divides by the counts (floor
division for integers).
"""

from __future__ import annotations

import numpy as np

from ember._c10 import dtypes
from ember._c10.warning import torch_warn_once
from ember.aten.native import at
from ember.aten.native.common import wrap_dim
from ember.aten.native.ranges import _not_implemented

__all__ = ["index_reduce_cpu_out"]

_UFUNCS = {"prod": np.multiply, "mean": np.add, "amax": np.maximum, "amin": np.minimum}
_BETA = "index_reduce() is in beta and the API may change at any time."


def _identity(reduce: str, dtype):
    if reduce == "prod":
        return 1
    if reduce == "mean":
        return 0
    if dtype.is_floating_point:
        return -float("inf") if reduce == "amax" else float("inf")
    if dtype is dtypes.bool:
        return reduce == "amin"
    info = np.iinfo(dtype.np_dtype)
    return int(info.min) if reduce == "amax" else int(info.max)


def _divide_by_counts(out, counts: np.ndarray) -> None:
    data = out.ndarray()
    counts[counts == 0] = 1
    if out.dtype.is_floating_point or out.dtype.is_complex:
        data[...] = data / counts
    else:
        data[...] = np.floor_divide(data, counts)


def _positions(index) -> np.ndarray:
    return np.ascontiguousarray(index.ndarray()).reshape(-1).astype(np.int64)


def _check_range(positions: np.ndarray, size: int) -> None:
    if ((positions < 0) | (positions >= size)).any():
        raise IndexError("index out of range in self")


def _by_slices(out, dim, positions, source, reduce, include_self) -> None:
    """result.dim() > 1: each named slice of out combined with the source slice."""
    if positions.size == 0:
        return
    target = np.moveaxis(out.ndarray(), dim, 0)
    _check_range(positions, target.shape[0])
    values = np.moveaxis(source.ndarray(), dim, 0).astype(target.dtype, copy=False)
    with np.errstate(all="ignore"):
        _UFUNCS[reduce].at(target, positions, values)
    if reduce == "mean":
        counts = np.full(out.ndarray().shape, 1 if include_self else 0, out.dtype.np_dtype)
        np.add.at(np.moveaxis(counts, dim, 0), positions, 1)
        _divide_by_counts(out, counts)


def _by_elements(out, positions, source, reduce, include_self) -> None:
    """A 0-d or 1-d out: element by element."""
    if source.dim() > 1:
        raise RuntimeError(
            f"source.dim() ({source.dim()}) must one or zero for given self.dim() ({out.dim()})"
        )
    if out.dtype is dtypes.bool or out.dtype.is_complex:
        raise _not_implemented("index_func_", out.dtype)
    target = out.ndarray().reshape(-1) if out.dim() == 0 else out.ndarray()
    _check_range(positions, out.numel())
    values = source.ndarray().reshape(-1)[: positions.size].astype(target.dtype, copy=False)
    with np.errstate(all="ignore"):
        _UFUNCS[reduce].at(target, positions, values)
    if reduce == "mean":
        counts = np.full(target.shape, 1 if include_self else 0, out.dtype.np_dtype)
        np.add.at(counts, positions, 1)
        _divide_by_counts(out, counts.reshape(out.ndarray().shape))


def index_reduce_cpu_out(meta, self, dim, index, source, reduce, include_self, out) -> None:
    torch_warn_once(_BETA, "aten/src/ATen/native/TensorAdvancedIndexing.cpp:1523")
    if out is not self:
        at.copy_(out, self, False)
    dim = wrap_dim(dim, self.dim())
    if not include_self:
        long_index = index
        if index.dtype is not dtypes.int64:
            long_index = at._to_copy(index, dtypes.int64, None, None, None, False, None)
        at.index_fill__int_Scalar(out, dim, long_index, _identity(reduce, self.dtype))
    if out.numel() == 0 and index.numel() == 0:
        return
    positions = _positions(index)
    if out.dim() > 1:
        _by_slices(out, dim, positions, source, reduce, include_self)
    else:
        _by_elements(out, positions, source, reduce, include_self)
