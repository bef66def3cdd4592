"""conj_physical: the complex conjugate as an ordinary (copying) operator.

Layer: aten/native. In: a tensor (and an out= tensor). Out: its conjugate;
a real tensor is its own conjugate. Mirrors ATen/native/UnaryOps.cpp
(conj_physical, _conj_physical, conj_physical_, conj_physical_out). ember has
no lazy conjugate bit (Tensor.conj); the complex derivative formulas use this.
"""

from __future__ import annotations

import numpy as np

from ember._tensor import empty_tensor
from ember.aten import ufunc
from ember.aten.meta.pointwise import SameDtypeMeta, unary_spec
from ember.aten.native import at
from ember.aten.tensor_iterator import output_strides

__all__ = ["conj_physical", "_conj_physical", "conj_physical_", "conj_physical_out"]


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
