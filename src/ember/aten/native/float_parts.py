"""frexp (a float's mantissa and exponent) and angle (a number's argument).

Layer: aten/native (CPU and Meta kernels: the full schema-ordered arguments). In: tensors.
Out: tensors. Mirrors frexp_out and angle / angle_out of ATen/native/UnaryOps.cpp with
frexp_kernel and angle_kernel of ATen/native/cpu/UnaryOpsKernel.cpp: frexp's mantissa has
self's dtype and its exponent is int32 (floating inputs only); angle is atan2(imag, real)
for complex inputs and pi for negative reals (NaN kept), in the real value type.
"""

from __future__ import annotations

import math

import numpy as np

from ember._c10 import dtypes
from ember.aten.meta.pointwise import PointwiseMeta, unary_spec
from ember.aten.meta.pointwise_unary import unary_float_op
from ember.aten.native import at
from ember.aten.native.common import type_meta_name
from ember.aten.native.unary_math import computes, operand_values
from ember.aten.ufunc_loops import quiet, store

__all__ = ["frexp_Tensor", "frexp_Tensor_out", "angle", "angle_out"]

_REAL_OF = {dtypes.complex64: dtypes.float32, dtypes.complex128: dtypes.float64}


def frexp_Tensor(self):  # noqa: N802
    mantissa = at.empty_like(self, None, None, None, None, None)
    exponent = at.empty_like(self, dtypes.int32, None, None, None, None)
    return at.frexp_Tensor_out(self, mantissa, exponent)


@quiet
def frexp_Tensor_out(self, mantissa, exponent):  # noqa: N802
    if not self.dtype.is_floating_point:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    if mantissa.dtype is not self.dtype:
        raise RuntimeError(
            f"torch.frexp() expects mantissa to have dtype {type_meta_name(self.dtype)} but "
            f"got {type_meta_name(mantissa.dtype)}"
        )
    if exponent.dtype is not dtypes.int32:
        raise RuntimeError(
            "torch.frexp() expects exponent to have int dtype but got "
            f"{type_meta_name(exponent.dtype)}"
        )
    for out in (mantissa, exponent):
        if out.shape != self.shape:
            at.resize_(out, list(self.shape), None)
    if computes(mantissa):
        values = self.ndarray()
        if self.dtype is dtypes.bfloat16:  # every bfloat16 is a float32 with the same parts
            values = values.astype(np.float32)
        parts, powers = np.frexp(values)
        np.copyto(mantissa.ndarray(), parts, casting="unsafe")
        np.copyto(exponent.ndarray(), powers, casting="unsafe")
    return mantissa, exponent


def _angle_meta(self):
    if self.dtype.is_complex:
        return PointwiseMeta(unary_spec(self, _REAL_OF[self.dtype]), self.dtype)
    return unary_float_op(self)


@quiet
def _angle_values(meta, self, out) -> None:
    if meta.compute_dtype.is_complex:
        np.copyto(out.ndarray(), np.angle(self.ndarray()), casting="unsafe")
        return
    x = operand_values(meta, self)
    store(out, np.where(np.isnan(x), x, np.where(x < 0, x.dtype.type(math.pi), 0)), meta)


def angle(self):
    meta = _angle_meta(self)
    out = meta.allocate()
    if computes(out):
        _angle_values(meta, self, out)
    return out


def angle_out(self, out):
    meta = _angle_meta(self)
    if out is self:
        meta.check_read_write(out)
    meta.resize_outputs(out)
    if computes(out):
        _angle_values(meta, self, out)
    return out
