"""The meta function of renorm: its argument checks and its output.

Layer: aten/meta. In: self, p, dim, maxnorm. Out: a StructuredMeta with one contiguous
output of self's shape and dtype (an out= tensor must have that dtype). Mirrors
TORCH_META_FUNC(renorm) of ATen/native/Normalization.cpp.
"""

from __future__ import annotations

from ember.aten.structured import StructuredMeta
from ember.aten.tensor_iterator import OutputSpec

__all__ = ["renorm"]


def _real(value, what: str) -> float:
    if isinstance(value, complex):
        raise RuntimeError(f"renorm: {what} must be real-valued")
    return float(value)


def renorm(self, p, dim, maxnorm) -> StructuredMeta:
    if _real(p, "p") <= 0.0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    limit = _real(maxnorm, "maxnorm")
    if limit < 0.0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {limit:g}")
    ndim = self.dim()
    if ndim <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {ndim} dimensions")
    spec = OutputSpec(self._sizes, None, self.dtype, self.device)
    return StructuredMeta(spec, exact_out=True, exact_inplace=True)
