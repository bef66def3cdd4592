"""nonzero_static: nonzero's indices in a result of a fixed number of rows.

Layer: aten/native (CPU). In: a tensor, `size` (rows) and `fill_value`. Out: int64
(size, ndim), contiguous: the first `size` indices nonzero finds, the rows past them
filled with fill_value. Mirrors ATen/native/TensorAdvancedIndexing.cpp
(nonzero_static_out_cpu, nonzero_static_cpu).
"""

from __future__ import annotations

import numpy as np

from ember._c10 import dtypes
from ember._tensor import empty_tensor
from ember.aten.native.reduction import store
from ember.aten.native.resize import resize_output

__all__ = ["nonzero_static_cpu", "nonzero_static_out_cpu"]


def _rows(self, size: int, fill_value: int) -> np.ndarray:
    if size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    data = self.ndarray()
    found = (
        np.argwhere(data).astype(np.int64)
        if self.dim()
        else np.zeros((int(bool(data)), 0), np.int64)
    )
    rows = np.full((size, self.dim()), fill_value, dtype=np.int64)
    count = min(size, found.shape[0])
    rows[:count] = found[:count]
    return rows


def nonzero_static_out_cpu(self, size, fill_value, out):
    if out.dtype is not dtypes.int64:
        raise RuntimeError(
            "nonzero_static: Expected out tensor to have scalar type Long but got scalar type"
            f"{dtypes.scalar_type_name(out.dtype)}"
        )
    rows = _rows(self, size, fill_value)
    resize_output(out, rows.shape)
    store(out, rows)
    return out


def nonzero_static_cpu(self, size, fill_value):
    rows = _rows(self, size, fill_value)
    result = empty_tensor(rows.shape, dtypes.int64, self.device)
    store(result, rows)
    return result
