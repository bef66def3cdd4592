"""CPU kernels of _softmax / _log_softmax and the softmax.int / log_softmax.int composites.

Layer: aten/native. In: StructuredMeta + out tensor (the structured kernels),
or (self, dim, dtype) for the composites, which convert the dtype through
`at._to_copy` and call the structured op through `at`. Out: tensors.
Mirrors ATen/native/SoftMax.cpp (softmax, log_softmax, the CPU kernels'
"not implemented for" errors on integer inputs).
"""

from __future__ import annotations

import numpy as np

from ember._c10 import dtypes
from ember.aten.native import at
from ember.aten.native.common import as_dtype, wrap_dim
from ember.aten.native.reduction import accumulate_dtype, store

__all__ = ["_softmax_out", "_log_softmax_out", "softmax_int", "log_softmax_int"]


def _check_floating(kernel: str, self, dim: int) -> None:
    if self.numel() != 0 and not self.dtype.is_floating_point:
        last = self.dim() == 0 or dim == self.dim() - 1
        name = f"{kernel}_lastdim_kernel_impl" if last else f"{kernel}_kernel_impl"
        raise NotImplementedError(
            f"\"{name}\" not implemented for '{dtypes.scalar_type_name(self.dtype)}'"
        )


def _shifted(self, dim):
    """(x - max along dim, axis), in the compute dtype; 0-dim inputs act as 1 element."""
    values = self.ndarray()
    compute = accumulate_dtype(self.dtype)
    if values.dtype != compute:
        values = values.astype(compute)
    if self.dim() == 0:
        values = values.reshape(1)
    axis = wrap_dim(dim, self.dim())
    if values.size == 0:
        return values, axis
    peak = np.max(values, axis=axis, keepdims=True)
    peak = np.where(np.isfinite(peak), peak, 0)
    return values - peak, axis


def _softmax_out(meta, self, dim, half_to_float, out) -> None:
    _check_floating("softmax", self, wrap_dim(dim, self.dim()))
    shifted, axis = _shifted(self, dim)
    with np.errstate(invalid="ignore", over="ignore"):
        exps = np.exp(shifted)
        result = exps / np.sum(exps, axis=axis, keepdims=True)
    store(out, result)


def _log_softmax_out(meta, self, dim, half_to_float, out) -> None:
    _check_floating("log_softmax", self, wrap_dim(dim, self.dim()))
    shifted, axis = _shifted(self, dim)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        result = shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))
    store(out, result)


def _converted(self, dtype):
    dtype = as_dtype(dtype)
    if dtype is None or dtype is self.dtype:  # Tensor.to(dtype): no copy when it matches
        return self
    return at._to_copy(self, dtype, None, None, None, False, None)


def softmax_int(self, dim, dtype):
    return at._softmax(_converted(self, dtype), dim, False)


def log_softmax_int(self, dim, dtype):
    return at._log_softmax(_converted(self, dtype), dim, False)
