"""CPU kernels of sort and topk.

Layer: aten/native. In: a StructuredMeta, the schema arguments and the
(values, indices) out tensors. Out: values written into the outputs' views.
Sorting is always stable (PyTorch's CPU sort is stable too); NaN sorts as the
largest value, as in PyTorch. Mirrors ATen/native/Sorting.cpp and
ATen/native/cpu/SortingKernel.cpp.
"""

from __future__ import annotations

import numpy as np

from ember._c10 import dtypes
from ember.aten.memory_overlap import assert_no_internal_overlap, check_copy, check_tensor_iterator
from ember.aten.native import at
from ember.aten.native.common import wrap_dim
from ember.aten.native.reduction import store

__all__ = ["sort", "sort_values", "sort_values_stable", "topk_values"]

_BFLOAT16 = dtypes.bfloat16.np_dtype


def _order(values, axis: int, descending: bool):
    """Stable argsort along `axis`; descending keeps equal elements in their original order."""
    if values.dtype == _BFLOAT16:
        values = values.astype(np.float32)  # exact; ml_dtypes' own sort misplaces NaN
    if not descending:
        return np.argsort(values, axis=axis, kind="stable")
    # Reverse, sort ascending stably, reverse back, then map indices: this gives a
    # descending order in which ties keep ascending index order.
    length = values.shape[axis]
    flipped = np.flip(values, axis=axis)
    order = np.argsort(flipped, axis=axis, kind="stable")
    order = np.flip(order, axis=axis)
    return length - 1 - order


def _as_vectors(self):
    """The values with 0-dim inputs treated as one element along axis 0."""
    values = self.ndarray()
    return values.reshape(1) if self.dim() == 0 else values


def _refuse_complex(self, name: str) -> None:
    if self.dtype.is_complex:
        raise RuntimeError(f" {name} does not support complex dtypes on CPU")


def sort_values_stable(meta, self, stable, dim, descending, values, indices) -> None:
    check_copy(values, self)  # sort_stable_out starts with values.copy_(self)
    if self.dim() != 0 or self.numel() != 1:
        assert_no_internal_overlap(indices)  # the TensorIterator of sort_stub
    _refuse_complex(self, "Sort")
    data = _as_vectors(self)
    axis = wrap_dim(dim, self.dim())
    order = _order(data, axis, descending)
    store(indices, order)
    store(values, np.take_along_axis(data, order, axis=axis))


def topk_values(meta, self, k, dim, largest, sorted, values, indices) -> None:  # noqa: A002
    if self.dtype is dtypes.bool:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    _refuse_complex(self, "topk")
    if self.dim() == 0 and self.numel() == 1:
        check_copy(values, self)  # values.copy_(self)
    else:
        check_tensor_iterator(values, self)  # the TensorIterator of topk_stub
        check_tensor_iterator(indices, self)
    data = _as_vectors(self)
    axis = wrap_dim(dim, self.dim())
    order = _order(data, axis, descending=largest)
    count = max(k, 1) if self.dim() == 0 else k  # a 0-dim output holds its element
    chosen = np.take(order, np.arange(count), axis=axis)
    store(indices, chosen)
    store(values, np.take_along_axis(data, chosen, axis=axis))


def sort(self, dim, descending):
    """sort(self, dim, descending): sort.stable with stable=False."""
    return at.sort_stable(self, False, dim, descending)


def sort_values(self, dim, descending, values, indices):
    return at.sort_values_stable(self, False, dim, descending, values, indices)
