"""Meta functions of _softmax and _log_softmax.

Layer: aten/meta. In: self, dim, half_to_float. Out: a StructuredMeta with
one contiguous output of self's shape. Mirrors TORCH_META_FUNC(_softmax) and
TORCH_META_FUNC(_log_softmax) of ATen/native/SoftMax.cpp.
"""

from __future__ import annotations

from ember._c10 import dtypes
from ember.aten.native.common import wrap_dim
from ember.aten.structured import StructuredMeta
from ember.aten.tensor_iterator import OutputSpec

__all__ = ["_softmax", "_log_softmax"]


def _softmax_meta(self, dim, half_to_float) -> StructuredMeta:
    wrap_dim(dim, self.dim())
    dtype = self.dtype
    if half_to_float:
        if self.device.type == "cpu":
            raise RuntimeError("softmax with half to float conversion is not supported on CPU")
        dtype = dtypes.float32
    return StructuredMeta(OutputSpec(self._sizes, None, dtype, self.device))


def _softmax(self, dim, half_to_float) -> StructuredMeta:
    return _softmax_meta(self, dim, half_to_float)


def _log_softmax(self, dim, half_to_float) -> StructuredMeta:
    return _softmax_meta(self, dim, half_to_float)
