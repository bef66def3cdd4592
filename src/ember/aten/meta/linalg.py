"""Meta functions of the matrix products: mm, bmm, addmm, addmv.

Layer: aten/meta. In: the functional arguments (tensors may be meta). Out: a
StructuredMeta with one contiguous output. Mirrors TORCH_META_FUNC(mm),
TORCH_META_FUNC(bmm), TORCH_META_FUNC(addmm) and TORCH_META_FUNC(addmv) of ATen/native/LinearAlgebra.cpp,
with their error texts. mm's dtype check is its CPU kernel's (aten/native/linalg.py): after
the shapes and the out= tensor, and not made on the Meta backend.
"""

from __future__ import annotations

from ember._c10 import dtypes
from ember.aten.structured import StructuredMeta
from ember.aten.tensor_iterator import OutputSpec

__all__ = ["mm", "bmm", "addmm", "addmv"]


def _shape(t) -> str:
    return f"{t._sizes[0]}x{t._sizes[1]}"


def meta_mm_checks(self, mat2) -> None:
    """meta_mm (torch/_meta_registrations.py): the Meta backend's kernel and its texts."""
    if self.dim() != 2:
        raise RuntimeError("a must be 2D")
    if mat2.dim() != 2:
        raise RuntimeError("b must be 2D")
    (n, m1), (m2, p) = self._sizes, mat2._sizes
    if m1 != m2:
        raise RuntimeError(
            f"a and b must have same reduction dim, but got [{n}, {m1}] X [{m2}, {p}]."
        )


def mm(self, mat2) -> StructuredMeta:
    if "meta" in (self.device.type, mat2.device.type):
        meta_mm_checks(self, mat2)
    if self.dim() != 2:
        raise RuntimeError("self must be a matrix")
    if mat2.dim() != 2:
        raise RuntimeError("mat2 must be a matrix")
    if self._sizes[1] != mat2._sizes[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({_shape(self)} and {_shape(mat2)})"
        )
    sizes = (self._sizes[0], mat2._sizes[1])
    return StructuredMeta(OutputSpec(sizes, None, self.dtype, self.device), exact_out=True)


def bmm(self, mat2) -> StructuredMeta:
    if self.dim() != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if mat2.dim() != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    batch, rows, contraction = self._sizes
    if mat2._sizes[0] != batch or mat2._sizes[1] != contraction:
        raise RuntimeError(
            "Expected size for first two dimensions of batch2 tensor to be: "
            f"[{batch}, {contraction}] but got: [{mat2._sizes[0]}, {mat2._sizes[1]}]."
        )
    sizes = (batch, rows, mat2._sizes[2])  # the output takes batch2's options
    return StructuredMeta(OutputSpec(sizes, None, mat2.dtype, self.device), exact_out=True)


def addmm(self, mat1, mat2, beta, alpha) -> StructuredMeta:
    name = dtypes.scalar_type_name
    if self.dtype is not mat2.dtype:
        raise RuntimeError(
            "self and mat2 must have the same dtype, but got "
            f"{name(self.dtype)} and {name(mat2.dtype)}"
        )
    if mat1.dtype is not mat2.dtype:
        raise RuntimeError(
            "mat1 and mat2 must have the same dtype, but got "
            f"{name(mat1.dtype)} and {name(mat2.dtype)}"
        )
    if mat1.dim() != 2:
        raise RuntimeError(f"mat1 must be a matrix, got {mat1.dim()}-D tensor")
    if mat2.dim() != 2:
        raise RuntimeError(f"mat2 must be a matrix, got {mat2.dim()}-D tensor")
    if mat1._sizes[1] != mat2._sizes[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({_shape(mat1)} and {_shape(mat2)})"
        )
    sizes = (mat1._sizes[0], mat2._sizes[1])
    spec = OutputSpec(sizes, None, mat1.dtype, mat1.device)
    return StructuredMeta(spec, exact_out=True, exact_inplace=True)


def addmv(self, mat, vec, beta, alpha) -> StructuredMeta:
    """The output has mat's rows and vec's options; self is one value or one per row."""
    if not (mat.dim() == 2 and vec.dim() == 1 and self.dim() <= 1):
        raise RuntimeError(
            f"vector + matrix @ vector expected, got {self.dim()}, {mat.dim()}, {vec.dim()}"
        )
    rows, columns = mat._sizes
    if columns != vec._sizes[0] or (rows != self.numel() and self.numel() != 1):
        if self.dim() == 0:  # the message reads self.size(0)
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
        raise RuntimeError(
            f"size mismatch, got input ({self._sizes[0]}), mat ({rows}x{columns}), "
            f"vec ({vec._sizes[0]})"
        )
    if not (self.dtype is mat.dtype is vec.dtype):
        name = dtypes.scalar_type_name
        raise RuntimeError(
            "addmv input tensors must have the same dtype, but got "
            f"{name(self.dtype)}, {name(mat.dtype)}, and {name(vec.dtype)}"
        )
    spec = OutputSpec((rows,), None, vec.dtype, vec.device)
    return StructuredMeta(spec, exact_out=True, exact_inplace=True)
