"""nonzero_static: nonzero's indices in a result of a fixed number of rows.

Layer: aten/native (CPU). In: a tensor, `size` (rows) and `fill_value`. Out: int64
(size, ndim), contiguous: the first `size` indices nonzero finds, the rows past them
filled with fill_value. Mirrors ATen/native/TensorAdvancedIndexing.cpp
(nonzero_static_out_cpu, nonzero_static_cpu).
"""

from __future__ import annotations

import numpy as np

from ember._c10 import dtypes
from ember._c10.storage import checked_numel
from ember._tensor import empty_tensor
from ember.aten.native.reduction import store
from ember.aten.native.resize import resize_output

__all__ = ["nonzero_static_cpu", "nonzero_static_out_cpu"]


def _check_size(size: int) -> None:
    if size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")


def _fill(result, self, fill_value: int) -> None:
    """The first rows of `result` (allocated already: PyTorch's allocation errors first)
    hold nonzero's indices, the rest fill_value."""
    size = result._sizes[0]
    data = self.ndarray()
    if self.dim():
        found = np.argwhere(data).astype(np.int64)
    else:
        found = np.zeros((int(bool(data)), 0), np.int64)
    rows = np.full((size, self.dim()), fill_value, dtype=np.int64)
    count = min(size, found.shape[0])
    rows[:count] = found[:count]
    store(result, rows)


def nonzero_static_out_cpu(self, size, fill_value, out):
    _check_size(size)
    if out.dtype is not dtypes.int64:
        raise RuntimeError(
            "nonzero_static: Expected out tensor to have scalar type Long but got scalar type"
            f"{dtypes.scalar_type_name(out.dtype)}"
        )
    checked_numel((size, self.dim()))  # resize_'s overflow check, before anything changes
    resize_output(out, (size, self.dim()))
    _fill(out, self, fill_value)
    return out


def nonzero_static_cpu(self, size, fill_value):
    _check_size(size)
    result = empty_tensor((size, self.dim()), dtypes.int64, self.device)
    _fill(result, self, fill_value)
    return result
