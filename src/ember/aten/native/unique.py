"""CPU kernels of _unique, _unique2, unique_dim, unique_consecutive and
unique_dim_consecutive.

Layer: aten/native. In: the schema arguments. Out: (values, inverse, counts) tensors; without
a dim an output not asked for is an empty int64 tensor, as ATen returns it (the dim
overloads compute both anyway). The CPU kernels sort
whatever `sorted` says; every NaN is its own value (NaN != NaN). Mirrors
ATen/native/Unique.cpp.
"""

from __future__ import annotations

from builtins import sorted as _sorted

import numpy as np

from ember._c10 import dtypes
from ember._tensor import empty_tensor
from ember.aten.native.common import wrap_dim
from ember.aten.native.reduction import store

__all__ = [
    "_unique",
    "_unique2",
    "unique_consecutive",
    "unique_dim",
    "unique_dim_consecutive",
]


def _refuse_complex(self) -> None:
    if self.dtype.is_complex:
        raise NotImplementedError(
            f"\"unique\" not implemented for '{dtypes.scalar_type_name(self.dtype)}'"
        )


def _tensor(values, dtype, device):
    values = np.asarray(values)
    result = empty_tensor(values.shape, dtype, device)
    if values.size:
        store(result, values)
    return result


def _long(values, device):
    return _tensor(np.asarray(values, dtype=np.int64), dtypes.int64, device)


def _nothing(device):
    return _long(np.zeros((0,), np.int64), device)


def _flat_unique(flat: np.ndarray):
    """(values, inverse, counts) of a 1-d array, values sorted, each NaN its own value."""
    order = np.argsort(flat, kind="stable")
    ordered = flat[order]
    starts = np.ones(ordered.shape[0], dtype=bool)
    if ordered.shape[0] > 1:
        starts[1:] = ordered[1:] != ordered[:-1]
    groups = np.cumsum(starts) - 1
    inverse = np.empty(flat.shape[0], np.int64)
    inverse[order] = groups
    positions = np.flatnonzero(starts)
    counts = np.diff(np.append(positions, ordered.shape[0]))
    return ordered[starts], inverse, counts


def _unique2(self, sorted, return_inverse, return_counts):  # noqa: A002 (PyTorch's name)
    _refuse_complex(self)
    data = self.ndarray().reshape(-1)
    values, inverse, counts = _flat_unique(data)
    device = self.device
    return (
        _tensor(values, self.dtype, device),
        _long(inverse.reshape(self._sizes), device) if return_inverse else _nothing(device),
        _long(counts, device) if return_counts else _nothing(device),
    )


def _unique(self, sorted, return_inverse):  # noqa: A002
    values, inverse, _ = _unique2(self, sorted, return_inverse, False)
    return values, inverse


def _consecutive_groups(keys: list):
    starts = [i == 0 or keys[i] != keys[i - 1] for i in range(len(keys))]
    return starts


def unique_consecutive(self, return_inverse, return_counts, dim):
    if dim is not None:
        return unique_dim_consecutive(self, dim, return_inverse, return_counts)
    _refuse_complex(self)
    flat = self.ndarray().reshape(-1)
    starts = np.ones(flat.shape[0], dtype=bool)
    if flat.shape[0] > 1:
        starts[1:] = flat[1:] != flat[:-1]
    inverse = np.cumsum(starts) - 1
    positions = np.flatnonzero(starts)
    counts = np.diff(np.append(positions, flat.shape[0]))
    device = self.device
    return (
        _tensor(flat[starts], self.dtype, device),
        _long(inverse.reshape(self._sizes), device) if return_inverse else _nothing(device),
        _long(counts, device) if return_counts else _nothing(device),
    )


def _slices(self, dim: int) -> np.ndarray:
    moved = np.moveaxis(self.ndarray(), dim, 0)
    return moved.reshape(moved.shape[0], -1)


def _from_slices(self, dim: int, rows: np.ndarray):
    """The chosen slices, laid out as ATen builds them: contiguous with `dim` first, then
    moved back into place (a permuted layout)."""
    moved_shape = list(np.moveaxis(self.ndarray(), dim, 0).shape)
    moved_shape[0] = rows.shape[0]
    moved = np.ascontiguousarray(rows.reshape(moved_shape))
    strides = [s // moved.itemsize for s in moved.strides]
    order = list(range(1, dim + 1)) + [0] + list(range(dim + 1, len(moved_shape)))
    shape = [moved_shape[i] for i in order]
    result = empty_tensor(tuple(shape), self.dtype, self.device, tuple(strides[i] for i in order))
    if moved.size:
        store(result, np.moveaxis(moved, 0, dim))
    return result


def _empty_unique_dim(self, dim: int):
    if self._sizes[dim] != 0:
        raise RuntimeError(
            "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied"
        )
    if sum(1 for size in self._sizes if size == 0) > 1:
        raise RuntimeError(
            "Number of zero sized dimensions is more than one, so unique cannot be applied "
        )
    device = self.device
    return empty_tensor(self._sizes, self.dtype, device), _nothing(device), _nothing(device)


def unique_dim(self, dim, sorted, return_inverse, return_counts):  # noqa: A002
    _refuse_complex(self)
    dim = wrap_dim(dim, self.dim())
    device = self.device
    if self.numel() == 0:
        return _empty_unique_dim(self, dim)
    rows = _slices(self, dim)
    keys = [tuple(row.tolist()) for row in rows]
    order = _sorted(range(len(keys)), key=lambda i: keys[i])
    starts = _consecutive_groups([keys[i] for i in order])
    groups = np.cumsum(starts) - 1
    inverse = np.empty(len(keys), np.int64)
    inverse[order] = groups
    chosen = [order[i] for i, s in enumerate(starts) if s]
    counts = np.bincount(groups, minlength=len(chosen)) if len(keys) else np.zeros(0, np.int64)
    # unique_dim computes the inverse and the counts whatever the flags say
    return _from_slices(self, dim, rows[chosen]), _long(inverse, device), _long(counts, device)


def unique_dim_consecutive(self, dim, return_inverse, return_counts):
    _refuse_complex(self)
    dim = wrap_dim(dim, self.dim())
    device = self.device
    if self.numel() == 0:
        return _empty_unique_dim(self, dim)
    rows = _slices(self, dim)
    keys = [tuple(row.tolist()) for row in rows]
    starts = np.asarray(_consecutive_groups(keys), dtype=bool)
    inverse = np.cumsum(starts) - 1
    positions = np.flatnonzero(starts)
    counts = np.diff(np.append(positions, len(keys)))
    return _from_slices(self, dim, rows[starts]), _long(inverse, device), _long(counts, device)
