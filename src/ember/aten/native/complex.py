"""conj_physical: the complex conjugate as an ordinary (copying) operator; conj and the
math-bit queries.

Layer: aten/native. In: a tensor (and an out= tensor). Out: its conjugate;
a real tensor is its own conjugate. Mirrors ATen/native/UnaryOps.cpp
(conj_physical, _conj_physical, conj_physical_, conj_physical_out, conj,
resolve_conj, resolve_neg) and TensorBody.h (is_conj, is_neg). ember has no lazy
conjugate or negative bit: no tensor carries one, so is_conj / is_neg are False and
resolve_conj / resolve_neg return the tensor itself, as PyTorch does for a tensor
without the bit; conj() of a real tensor is the tensor, and of a complex one (a lazy
view in PyTorch) it is refused. The complex derivative formulas use conj_physical.
"""

from __future__ import annotations

import numpy as np

from ember._tensor import empty_tensor
from ember.aten import ufunc
from ember.aten.meta.pointwise import SameDtypeMeta, unary_spec
from ember.aten.native import at
from ember.aten.tensor_iterator import output_strides

__all__ = [
    "conj",
    "conj_physical",
    "_conj_physical",
    "conj_physical_",
    "conj_physical_out",
    "is_conj",
    "is_neg",
    "resolve_conj",
    "resolve_neg",
]

_NO_CONJUGATE_BIT = (
    "conj() of a complex tensor is a view with the conjugate bit in PyTorch; ember has no "
    "conjugate bit. Use conj_physical() for the conjugated values in a new tensor."
)


def conj(self):
    """A real tensor is its own conjugate (the tensor itself, as in PyTorch)."""
    if self.dtype.is_complex:
        raise NotImplementedError(_NO_CONJUGATE_BIT)
    return self


def is_conj(self) -> bool:
    return False


def is_neg(self) -> bool:
    return False


def resolve_conj(self):
    return self


def resolve_neg(self):
    return self


def conj_physical(self):
    """CompositeImplicitAutograd: a real tensor comes back as itself."""
    if not self.dtype.is_complex:
        return self
    return at._conj_physical(self)


def _conj_physical(self):
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
