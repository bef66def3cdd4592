"""In-place view kernels: as_strided_, squeeze_, unsqueeze_, transpose_, t_.

Layer: aten/native, CompositeExplicitAutograd (as_strided_: ...NonFunctional),
device-generic. In: the full schema argument list. Out: `self`, whose sizes,
strides and offset changed in place (`_set_sizes_strides`); storage and
version counter are untouched here (the ADInplaceOrView kernel bumps the
version once per call). As in ATen, each op but as_strided_ computes the new
geometry and calls `at.as_strided_`. Mirrors ATen/native/TensorShape.cpp.
"""

from __future__ import annotations

from ember.aten.native import at
from ember.aten.native.common import wrap_dim
from ember.aten.native.restride import (
    squeeze_dim_geometry,
    squeeze_dims_to_set,
    squeeze_geometry,
    unsqueeze_geometry,
)
from ember.aten.native.views import checked_strided_geometry

__all__ = [
    "as_strided_",
    "squeeze_",
    "squeeze__dim",
    "squeeze__dims",
    "t_",
    "transpose_",
    "unsqueeze_",
]


def as_strided_(self, size, stride, storage_offset):
    sizes, strides, offset = checked_strided_geometry(self, size, stride, storage_offset)
    self._set_sizes_strides(sizes, strides, offset)
    return self


def _restride_(self, sizes, strides):
    at.as_strided_(self, list(sizes), list(strides), None)
    return self


def squeeze_(self):
    return _restride_(self, *squeeze_geometry(self, range(self.dim())))


def squeeze__dim(self, dim):
    return _restride_(self, *squeeze_dim_geometry(self, dim))


def squeeze__dims(self, dim):
    return _restride_(self, *squeeze_geometry(self, squeeze_dims_to_set(self, dim)))


def unsqueeze_(self, dim):
    return _restride_(self, *unsqueeze_geometry(self, dim))


def transpose_(self, dim0, dim1):
    ndim = self.dim()
    dim0 = wrap_dim(dim0, ndim)
    dim1 = wrap_dim(dim1, ndim)
    if dim0 == dim1:
        return self
    sizes = list(self._sizes)
    strides = list(self._strides)
    sizes[dim0], sizes[dim1] = sizes[dim1], sizes[dim0]
    strides[dim0], strides[dim1] = strides[dim1], strides[dim0]
    return _restride_(self, sizes, strides)


def t_(self):
    ndim = self.dim()
    if ndim > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {ndim}D")
    return at.transpose_(self, 0, 0 if ndim < 2 else 1)
