"""Meta functions of sort and topk.

Layer: aten/meta. In: the functional arguments. Out: a StructuredMeta with
(values, indices) specs; sort keeps self's dense strides, topk's outputs are
contiguous. Mirrors TORCH_META_FUNC2(sort, stable) of ATen/native/Sorting.cpp
and TORCH_META_FUNC(topk) of ATen/native/TopKImpl / Sorting.cpp.
"""

from __future__ import annotations

from ember._c10 import dtypes
from ember.aten.native.common import wrap_dim
from ember.aten.native.layout import is_non_overlapping_and_dense
from ember.aten.structured import StructuredMeta
from ember.aten.tensor_iterator import OutputSpec, output_strides

__all__ = ["sort_stable", "topk"]


def sort_stable(self, stable, dim, descending) -> StructuredMeta:
    wrap_dim(dim, self.dim())
    # self's strides when dense, else infer_dense_strides (the layout TensorIterator picks).
    if is_non_overlapping_and_dense(self):
        strides = self._strides
    else:
        strides = output_strides([self], self._sizes)
    values = OutputSpec(self._sizes, strides, self.dtype, self.device)
    indices = OutputSpec(self._sizes, strides, dtypes.int64, self.device)
    return StructuredMeta((values, indices), exact_out=True)


def topk(self, k, dim, largest, sorted) -> StructuredMeta:  # noqa: A002 (aten's name)
    dim = wrap_dim(dim, self.dim())
    slice_size = self._sizes[dim] if self.dim() > 0 else 1
    if k < 0 or k > slice_size:
        raise RuntimeError("selected index k out of range")
    sizes = list(self._sizes)
    if sizes:
        sizes[dim] = k
    sizes = tuple(sizes)
    values = OutputSpec(sizes, None, self.dtype, self.device)
    indices = OutputSpec(sizes, None, dtypes.int64, self.device)
    return StructuredMeta((values, indices), exact_out=True)
