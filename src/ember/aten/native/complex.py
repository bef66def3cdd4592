"""conj and the lazy conjugate / negative bits; conj_physical, the copying conjugate.

Layer: aten/native. In: a tensor (and an out= tensor). Out: its conjugate; a real tensor
is its own conjugate. Mirrors ATen/native/UnaryOps.cpp (conj, _conj, _neg_view,
resolve_conj, resolve_neg, conj_physical, _conj_physical, conj_physical_,
conj_physical_out) and TensorBody.h (is_conj, is_neg). `conj()` of a complex tensor is a
view of the same storage with the Conjugate key; the operators that meet it resolve it
(aten/math_bits.py, Note [Math bits]).
"""

from __future__ import annotations

import numpy as np

from ember._c10.tensor_impl import CONJ_BITS, NEG_BITS, new_view
from ember._tensor import empty_tensor
from ember.aten import ufunc
from ember.aten.meta.pointwise import SameDtypeMeta, unary_spec
from ember.aten.native import at
from ember.aten.tensor_iterator import output_strides

__all__ = [
    "conj",
    "_conj",
    "_neg_view",
    "conj_physical",
    "_conj_physical",
    "conj_physical_",
    "conj_physical_out",
    "is_conj",
    "is_neg",
    "resolve_conj",
    "resolve_neg",
]


def conj(self):
    """A real tensor is its own conjugate; a complex one gets a view with the bit flipped."""
    if not self.dtype.is_complex:
        return self
    return at._conj(self)


def _conj(self):
    """The same elements, the conjugate bit flipped (Note [Math bits])."""
    if not self.dtype.is_complex:  # TensorImpl::_set_conj's assertion, word for word
        raise RuntimeError(
            "isComplexType(typeMetaToScalarType(dtype())) INTERNAL ASSERT FAILED at "
            '"/__w/pytorch/pytorch/c10/core/TensorImpl.h":1470, please report a bug to PyTorch. '
        )
    view = new_view(self, self._sizes, self._strides, self._storage_offset)
    view._key_bits ^= CONJ_BITS
    return view


def _neg_view(self):
    """The same elements, the negative bit flipped (Note [Math bits])."""
    view = new_view(self, self._sizes, self._strides, self._storage_offset)
    view._key_bits ^= NEG_BITS
    return view


def is_conj(self) -> bool:
    return bool(self._key_bits & CONJ_BITS)


def is_neg(self) -> bool:
    return bool(self._key_bits & NEG_BITS)


def resolve_conj(self):
    """The tensor itself, or (with the bit) a new tensor of the values: clone resolves it
    (a graph records CloneBackward0, a mode sees aten.clone)."""
    if not self._key_bits & CONJ_BITS:
        return self
    return at.clone(self, None)


def resolve_neg(self):
    if not self._key_bits & NEG_BITS:
        return self
    return at.clone(self, None)


def conj_physical(self):
    """CompositeImplicitAutograd: a real tensor comes back as itself."""
    if not self.dtype.is_complex:
        return self
    return at._conj_physical(self)


def _conj_physical(self):
    """Falls through the Conjugate key: of a conjugate view, the un-flipped view cloned."""
    if self._key_bits & CONJ_BITS:
        return at.clone(at.conj(self), None)
    out = empty_tensor(self._sizes, self.dtype, self.device, output_strides((self,), self._sizes))
    return at.conj_physical_out(self, out)


def conj_physical_(self):
    if not self.dtype.is_complex:
        return self
    return at.conj_physical_out(self, self)


def conj_physical_out(self, out):
    SameDtypeMeta(unary_spec(self, self.dtype), self.dtype).resize_outputs(out)
    if out.device.type != "meta":
        ufunc.unary_into(np.conjugate, self.ndarray(), out.ndarray())
    return out
