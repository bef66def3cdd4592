"""copy: copy_'s functional variant, which functionalization calls in place of copy_ (the
view copies it calls are in view_copy.py and view_copy_more.py).

Layer: aten/native (device-generic). In: the operator's arguments. Out: a fresh tensor.
copy is PyTorch's CompositeExplicitAutogradNonFunctional kernel (Copy.cpp): the result is
``self`` cloned with its strides kept, then ``src`` copied in.
"""

from __future__ import annotations

from ember.aten.native import at
from ember.aten.native.as_strided_scatter import clone_preserve_strides

__all__ = ["copy"]


def copy(self, src, non_blocking):
    result = clone_preserve_strides(self)
    at.copy_(result, src, non_blocking)
    return result
