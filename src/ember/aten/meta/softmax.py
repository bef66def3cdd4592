"""Meta functions of _softmax and _log_softmax and their backward ops.

Layer: aten/meta. In: self, dim, half_to_float (or, for the backward ops,
grad_output, output, dim, input_dtype). Out: a StructuredMeta with one
contiguous output of self's (grad_output's) shape. Mirrors the
TORCH_META_FUNCs of _softmax, _log_softmax, _softmax_backward_data and
_log_softmax_backward_data in ATen/native/SoftMax.cpp.
"""

from __future__ import annotations

from ember._c10 import dtypes
from ember._c10.tensor_impl import shape_text
from ember.aten.native.common import as_dtype, wrap_dim
from ember.aten.structured import StructuredMeta
from ember.aten.tensor_iterator import OutputSpec

__all__ = ["_softmax", "_log_softmax", "_softmax_backward_data", "_log_softmax_backward_data"]


def _softmax_meta(self, dim, half_to_float) -> StructuredMeta:
    wrap_dim(dim, self.dim())
    dtype = self.dtype
    if half_to_float:
        if self.device.type == "cpu":
            raise RuntimeError("softmax with half to float conversion is not supported on CPU")
        dtype = dtypes.float32
    return StructuredMeta(OutputSpec(self._sizes, None, dtype, self.device), exact_out=True)


def _softmax(self, dim, half_to_float) -> StructuredMeta:
    return _softmax_meta(self, dim, half_to_float)


def _log_softmax(self, dim, half_to_float) -> StructuredMeta:
    return _softmax_meta(self, dim, half_to_float)


def _backward_data_meta(grad_output, output, dim, input_dtype) -> StructuredMeta:
    if grad_output._sizes != output._sizes:
        raise RuntimeError(
            "Expected tensor for argument #1 'grad' to have same size as tensor for argument #2 "
            f"'output'; but {shape_text(grad_output._sizes)} does not equal "
            f"{shape_text(output._sizes)} (while checking arguments for softmax_backward)"
        )
    wrap_dim(dim, grad_output.dim())  # PyTorch's IndexError for a dim out of range
    dtype = grad_output.dtype
    if (
        dtype is dtypes.float32 and as_dtype(input_dtype) is dtypes.float16
    ):  # half_to_float's backward
        dtype = dtypes.float16
    spec = OutputSpec(grad_output._sizes, None, dtype, grad_output.device)
    return StructuredMeta(spec, exact_out=True)


def _softmax_backward_data(grad_output, output, dim, input_dtype) -> StructuredMeta:
    return _backward_data_meta(grad_output, output, dim, input_dtype)


def _log_softmax_backward_data(grad_output, output, dim, input_dtype) -> StructuredMeta:
    # PyTorch leaves the sizes unchecked here (and reads past a smaller `output`); ember checks.
    return _backward_data_meta(grad_output, output, dim, input_dtype)
