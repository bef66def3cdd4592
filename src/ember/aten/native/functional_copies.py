"""The operators functionalization calls in place of a mutation or a view: copy (copy_'s
functional variant), select_copy, slice_copy, split_copy, detach_copy.

Layer: aten/native (device-generic). In: the operator's arguments. Out: a fresh tensor.
copy is PyTorch's CompositeExplicitAutogradNonFunctional kernel (Copy.cpp): the result is
``self`` cloned with its strides kept, then ``src`` copied in. The view copies are
CompositeViewCopyKernels.cpp's: the view through the dispatcher, then a contiguous clone.
"""

from __future__ import annotations

from ember.aten.native import at
from ember.aten.native.as_strided_scatter import clone_preserve_strides

__all__ = [
    "copy",
    "detach_copy",
    "select_copy_symint",
    "slice_copy_Tensor_symint",
    "split_copy_Tensor_symint",
]

CONTIGUOUS_FORMAT = 0


def copy(self, src, non_blocking):
    result = clone_preserve_strides(self)
    at.copy_(result, src, non_blocking)
    return result


def select_copy_symint(self, dim, index):
    return at.clone(at.select_int(self, dim, index), CONTIGUOUS_FORMAT)


def slice_copy_Tensor_symint(self, dim, start, end, step):  # noqa: N802
    return at.clone(at.slice_Tensor(self, dim, start, end, step), CONTIGUOUS_FORMAT)


def split_copy_Tensor_symint(self, split_size, dim):  # noqa: N802
    return [at.clone(piece, CONTIGUOUS_FORMAT) for piece in at.split_Tensor(self, split_size, dim)]


def detach_copy(self):
    return at.clone(at.detach(self), CONTIGUOUS_FORMAT)
