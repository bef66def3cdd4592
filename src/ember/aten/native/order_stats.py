"""CPU kernels of median, nanmedian, kthvalue and mode (values and indices).

Layer: aten/native. In: the schema arguments (with the values / indices outs for the
out= overloads). Out: the outs filled, resized to the reduced shape. median / nanmedian
pick the ((n - 1) / 2)-th element of the order (value, index), NaN last (so the index of
a tie is the one a stable sort puts there); kthvalue runs Sorting.cpp's quick-select and
mode libstdc++'s std::sort over (value, index) pairs, so the indices reported among equal
values are PyTorch's (aten/native/std_algorithms.py). Mirrors median_impl,
median_with_indices_impl, kthvalue_out_impl_cpu of ATen/native/Sorting.cpp and
mode_kernel_impl of ATen/native/cpu/TensorCompareKernel.cpp.
"""

from __future__ import annotations

import math

import numpy as np

from ember._c10 import dtypes
from ember._tensor import empty_tensor
from ember.aten.memory_overlap import assert_no_overlap
from ember.aten.native import at
from ember.aten.native.common import wrap_dim
from ember.aten.native.reduction import store
from ember.aten.native.resize import resize_output
from ember.aten.native.std_algorithms import quick_select, std_sort

__all__ = [
    "kthvalue",
    "kthvalue_values",
    "median",
    "median_dim",
    "median_dim_values",
    "mode",
    "mode_values",
    "nanmedian",
    "nanmedian_dim",
    "nanmedian_dim_values",
]


def _refuse_bool(self, kernel: str) -> None:
    if self.dtype is dtypes.bool or self.dtype.is_complex:
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{dtypes.scalar_type_name(self.dtype)}'"
        )


def _rows(self, dim: int):
    """The values as a 2-d array: one row per reduced slice, the reduced dim last."""
    data = self.ndarray()
    if self.dim() == 0:
        return data.reshape(1, 1)
    moved = np.moveaxis(data, dim, -1)
    return moved.reshape(-1, moved.shape[-1])


def _reduced_shape(self, dim: int, keepdim: bool) -> list:
    shape = list(self._sizes)
    if self.dim() > 0:
        if keepdim:
            shape[dim] = 1
        else:
            del shape[dim]
    return shape


def _python_values(row, dtype) -> list:
    if dtype is dtypes.bfloat16 or dtype is dtypes.float16:
        row = row.astype(np.float32)
    return row.tolist()


def _store_pair(values, indices, shape, picked_values, picked_indices, dtype) -> None:
    resize_output(values, shape)
    resize_output(indices, shape)
    if values.numel():
        store(values, np.asarray(picked_values, dtype=dtype.np_dtype).reshape(shape))
        store(indices, np.asarray(picked_indices, dtype=np.int64).reshape(shape))


def _is_nan(x) -> bool:
    return isinstance(x, float) and math.isnan(x)


def _check_indices_out(indices, name: str) -> None:
    if indices.dtype is not dtypes.int64:
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have scalar type Long; but got "
            f"torch.{dtypes.scalar_type_name(indices.dtype)}Tensor instead (while checking "
            f"arguments for {name})"
        )


def _median_dim(self, dim, keepdim, values, indices, ignore_nan: bool, kernel: str):
    dim = wrap_dim(dim, self.dim())
    size = self._sizes[dim] if self.dim() > 0 else 1
    if size == 0:
        raise IndexError(f"median(): Expected reduction dim {dim} to have non-zero size.")
    _refuse_bool(self, kernel)
    shape = _reduced_shape(self, dim, keepdim)
    picked_values, picked_indices = [], []
    for row in _rows(self, dim):
        items = _python_values(row, self.dtype)
        nan_at = next((i for i, v in enumerate(items) if _is_nan(v)), None)
        if not ignore_nan and nan_at is not None:
            picked_values.append(items[nan_at])
            picked_indices.append(nan_at)
            continue
        nan_count = sum(1 for v in items if _is_nan(v))
        order = sorted(range(len(items)), key=lambda i: (_is_nan(items[i]), items[i], i))
        position = (len(items) - nan_count - 1) // 2 if ignore_nan else (len(items) - 1) // 2
        chosen = order[max(position, 0)]
        picked_values.append(items[chosen])
        picked_indices.append(chosen)
    _store_pair(values, indices, shape, picked_values, picked_indices, self.dtype)
    return values, indices


def median_dim_values(self, dim, keepdim, values, indices):
    _check_indices_out(indices, "median")
    return _median_dim(self, dim, keepdim, values, indices, False, "median_out")


def nanmedian_dim_values(self, dim, keepdim, values, indices):
    _check_indices_out(indices, "nanmedian")
    return _median_dim(self, dim, keepdim, values, indices, True, "nanmedian_out")


def _empty_pair(self):
    values = empty_tensor((0,), self.dtype, self.device)
    indices = empty_tensor((0,), dtypes.int64, self.device)
    return values, indices


def median_dim(self, dim, keepdim):
    values, indices = _empty_pair(self)
    return at.median_dim_values(self, dim, keepdim, values, indices)


def nanmedian_dim(self, dim, keepdim):
    values, indices = _empty_pair(self)
    return at.nanmedian_dim_values(self, dim, keepdim, values, indices)


def _median_all(self, ignore_nan: bool, kernel: str):
    _refuse_bool(self, kernel)
    out = empty_tensor((), self.dtype, self.device)
    items = [v for v in _python_values(self.ndarray().reshape(-1), self.dtype)]
    if not items:
        store(out, np.asarray(np.nan))
        return out
    nans = [v for v in items if _is_nan(v)]
    if nans and not ignore_nan:
        store(out, np.asarray(np.nan))
        return out
    finite = sorted(v for v in items if not _is_nan(v))
    if not finite:
        store(out, np.asarray(np.nan))
        return out
    store(out, np.asarray(finite[(len(finite) - 1) // 2]))
    return out


def median(self):
    return _median_all(self, False, "median_cpu")


def nanmedian(self):
    return _median_all(self, True, "nanmedian_cpu")


def _gt_or_nan(x, y) -> bool:
    return (_is_nan(x) and not _is_nan(y)) or x > y


def kthvalue_values(self, k, dim, keepdim, values, indices):
    dim = wrap_dim(dim, self.dim())
    size = self._sizes[dim] if self.dim() > 0 else 1
    if self.numel() == 0 or size == 0:
        raise IndexError(f"kthvalue(): Expected reduction dim {dim} to have non-zero size.")
    k = int(k)
    if not 0 < k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {dim}")
    assert_no_overlap(self, values)
    _refuse_bool(self, "kthvalue_cpu")
    shape = _reduced_shape(self, dim, keepdim)
    picked_values, picked_indices = [], []
    for row in _rows(self, dim):
        items = _python_values(row, self.dtype)
        order = list(range(len(items)))
        quick_select(items, order, k - 1, _gt_or_nan)
        picked_values.append(items[k - 1])
        picked_indices.append(order[k - 1])
    _store_pair(values, indices, shape, picked_values, picked_indices, self.dtype)
    return values, indices


def kthvalue(self, k, dim, keepdim):
    values, indices = _empty_pair(self)
    return at.kthvalue_values(self, k, dim, keepdim, values, indices)


def _mode_of(items) -> tuple:
    elements = [(v, i) for i, v in enumerate(items)]
    std_sort(elements, lambda a, b: a[0] < b[0])
    mode, mode_index, run, longest = 0, 0, 0, 0
    for i, (value, index) in enumerate(elements):
        run += 1
        if i == len(elements) - 1 or value != elements[i + 1][0]:
            if run > longest:
                mode, mode_index, longest = value, index, run
            run = 0
    return mode, mode_index


def mode_values(self, dim, keepdim, values, indices):
    if self.dtype is not values.dtype:
        raise RuntimeError(
            f"expected scalar type '{dtypes.scalar_type_name(self.dtype)}' but got "
            f"'{dtypes.scalar_type_name(values.dtype)}' for values output"
        )
    if indices.dtype is not dtypes.int64:
        raise RuntimeError(
            f"expected scalar type 'Long' but got '{dtypes.scalar_type_name(indices.dtype)}' "
            "for indices output"
        )
    dim = wrap_dim(dim, self.dim())
    if self.dim() == 0 and self.numel() == 1:
        resize_output(values, ())
        resize_output(indices, ())
        at.copy_(values, self, False)
        at.fill__Scalar(indices, 0)
        return values, indices
    if self._sizes[dim] == 0:
        raise IndexError(f"mode(): Expected reduction dim {dim} to have non-zero size.")
    shape = _reduced_shape(self, dim, keepdim)
    picked_values, picked_indices = [], []
    for row in _rows(self, dim):
        value, index = _mode_of(_python_values(row, self.dtype))
        picked_values.append(value)
        picked_indices.append(index)
    _store_pair(values, indices, shape, picked_values, picked_indices, self.dtype)
    return values, indices


def mode(self, dim, keepdim):
    values, indices = _empty_pair(self)
    return at.mode_values(self, dim, keepdim, values, indices)
