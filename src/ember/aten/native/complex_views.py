"""The complex views: view_as_real, view_as_complex, real and imag.

Layer: aten/native (device-generic: cpu and meta alike). In: a tensor. Out: a view of its
storage in the other dtype family: view_as_real reads each complex element as two real
ones along a new last dimension (strides doubled, the offset counted in real elements),
view_as_complex the reverse; real and imag select one of the two. Mirrors
ATen/native/ComplexHelper.h (view_tensor, _view_as_real_physical, view_as_real,
view_as_complex) and real / imag of ATen/native/UnaryOps.cpp. A conjugated tensor cannot
be viewed as real (its storage holds the conjugate); real and imag view the un-flipped
tensor instead, imag with the Negative bit set (Note [Math bits]).
"""

from __future__ import annotations

from ember._c10 import dtypes
from ember._c10.tensor_impl import CONJ_BITS, new_view
from ember.aten.native import at
from ember.aten.native.views import scalar_type_name_of

__all__ = ["view_as_real", "view_as_complex", "real", "imag"]

_VIEWABLE_AS_COMPLEX = (dtypes.float32, dtypes.float64, dtypes.float16)


def _view_tensor(self, dtype, offset, sizes, strides):
    """view_tensor: `self`'s storage and key set (less Conjugate), another dtype."""
    view = new_view(self, sizes, strides, offset)
    view.dtype = dtype
    view._array = None  # the base's NumPy view reads the other dtype: rebuild from the bytes
    view._key_bits &= ~CONJ_BITS
    return view


def view_as_real(self):
    if self._key_bits & CONJ_BITS:
        raise RuntimeError(
            "view_as_real doesn't work on unresolved conjugated tensors.  To resolve the "
            "conjugate tensor so you can view it as real, use self.resolve_conj(); however, "
            "be warned that the resulting tensor will NOT alias the original."
        )
    if not self.dtype.is_complex:  # _view_as_real_physical
        raise RuntimeError("view_as_real is only supported for complex tensors")
    sizes = (*self._sizes, 2)
    strides = (*(stride * 2 for stride in self._strides), 1)
    return _view_tensor(self, self.dtype.to_real(), self._storage_offset * 2, sizes, strides)


def view_as_complex(self):
    if self.dtype not in _VIEWABLE_AS_COMPLEX:
        raise RuntimeError(
            "view_as_complex is only supported for half, float and double tensors, but got a "
            f"tensor of scalar type: {scalar_type_name_of(self.dtype)}"
        )
    sizes = self._sizes
    if not sizes:
        raise RuntimeError("Input tensor must have one or more dimensions")
    if sizes[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    strides = self._strides
    if strides[-1] != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    new_strides = []
    for size, stride in zip(sizes[:-1], strides[:-1]):
        # a dimension of size 1 is never stepped along: its stride need not be even
        if size != 1 and stride % 2:
            raise RuntimeError(
                "Tensor must have a stride divisible by 2 for all but last dimension"
            )
        new_strides.append(stride // 2)
    if self._storage_offset % 2:
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    complex_type = self.dtype.to_complex()
    return _view_tensor(self, complex_type, self._storage_offset // 2, sizes[:-1], new_strides)


def real(self):
    """A real tensor is its own real part; a complex one's is a view of every other element."""
    if not self.dtype.is_complex:
        return self
    parts = at.view_as_real(at._conj(self) if self._key_bits & CONJ_BITS else self)
    return at.select_int(parts, parts.dim() - 1, 0)


def imag(self):
    """The imaginary parts; of a conjugated tensor, the stored ones with the Negative bit."""
    if not self.dtype.is_complex:
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    if self._key_bits & CONJ_BITS:
        parts = at._neg_view(at.view_as_real(at._conj(self)))
    else:
        parts = at.view_as_real(self)
    return at.select_int(parts, parts.dim() - 1, 1)
