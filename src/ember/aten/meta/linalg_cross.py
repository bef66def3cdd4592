"""Meta function of linalg_cross.

Layer: aten/meta. In: input, other, dim. Out: a StructuredMeta of the broadcast shape in the
input's dtype. Mirrors TORCH_META_FUNC(linalg_cross) of ATen/native/Cross.cpp.
"""

from __future__ import annotations

from ember.aten.native.common import wrap_dim
from ember.aten.structured import StructuredMeta
from ember.aten.tensor_iterator import OutputSpec, broadcast_shapes

__all__ = ["linalg_cross"]


def linalg_cross(self, other, dim) -> StructuredMeta:
    if self.dim() != other.dim():
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    a = self._sizes[wrap_dim(dim, self.dim())]
    b = other._sizes[wrap_dim(dim, other.dim())]
    if a != 3 or b != 3:
        raise RuntimeError(
            f"linalg.cross: inputs dimension {dim} must have length 3. Got {a} and {b}"
        )
    sizes = broadcast_shapes(self._sizes, other._sizes)
    return StructuredMeta(OutputSpec(sizes, None, self.dtype, self.device), exact_out=True)
