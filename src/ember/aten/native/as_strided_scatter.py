"""as_strided_scatter: a copy of `self` whose as_strided window holds `src`, and its out=.

Layer: aten/native (device-generic). In: self, src and the window's size, stride and
storage offset. Out: a fresh tensor with self's strides and storage offset over a clone of
its whole storage (clone_preserve_strides), the window overwritten by src. Mirrors
ATen/native/TensorShape.cpp (as_strided_scatter_symint, clone_preserve_strides) and the
out= kernel torchgen autogenerates.
"""

from __future__ import annotations

from ember._c10.tensor_impl import shape_text
from ember.aten.memory_overlap import YES, has_internal_overlap
from ember.aten.native import at
from ember.aten.native.view_copy import copy_into

__all__ = ["as_strided_scatter", "as_strided_scatter_out"]


def clone_preserve_strides(self):
    """A clone with self's sizes, strides and storage offset (the whole storage cloned); a
    tensor that reaches an element twice is cloned contiguously."""
    if has_internal_overlap(self) == YES:
        return at.clone(self, None)
    numel = self.storage().nbytes // self.dtype.itemsize
    whole = at.clone(at.as_strided(self, [numel], [1], 0), None)
    return at.as_strided(whole, list(self._sizes), list(self._strides), self._storage_offset)


def as_strided_scatter(self, src, size, stride, storage_offset):
    output = clone_preserve_strides(self)
    window = at.as_strided(output, size, stride, storage_offset)
    if window._sizes != src._sizes:
        raise RuntimeError(
            "expected src to have a size equal to the slice of self. src size = "
            f"{shape_text(src._sizes)}, slice size = {shape_text(window._sizes)}"
        )
    at.copy_(window, src, False)
    return output


def as_strided_scatter_out(self, src, size, stride, storage_offset, out):
    return copy_into(out, at.as_strided_scatter(self, src, size, stride, storage_offset))
