"""Whole-tensor comparisons: isclose, allclose, equal, count_nonzero.

Layer: aten/native. In: the full schema-ordered arguments (Note [Dispatcher calling
convention]). Out: a bool tensor (isclose), a Python bool (allclose, equal), an int64
count (count_nonzero). Mirrors ATen/native/TensorCompare.cpp (isclose, allclose, and
isfinite inlined as the decomposition a dispatch mode sees), ReduceOps.cpp
(count_nonzero) and ATen/native/cpu/ ... cpu_equal (equal).
"""

from __future__ import annotations

import numpy as np

from ember._c10 import dtypes
from ember._c10.dtypes import scalar_type_name
from ember._tensor import empty_tensor
from ember.aten.native import at

__all__ = ["isclose", "allclose", "equal", "count_nonzero", "count_nonzero_dim_IntList"]


def _inexact(dtype) -> bool:
    return dtype.is_floating_point or dtype.is_complex


def _isfinite(values):
    """at::isfinite on a real tensor, as its CompositeImplicitAutograd body calls it."""
    if not _inexact(values.dtype):
        return at.ones_like(values, dtypes.bool, None, None, None, None)
    not_inf = at.ne_Scalar(at.abs(values), float("inf"))
    return at.mul_Tensor(at.eq_Tensor(values, values), not_inf)


def isclose(self, other, rtol, atol, equal_nan):
    """|self - other| <= atol + rtol * |other|, elementwise, with exact equality (infinities)
    and, under equal_nan, NaN against NaN counted as close."""
    if self.dtype is not other.dtype:
        raise RuntimeError(
            f"{scalar_type_name(self.dtype)} did not match {scalar_type_name(other.dtype)}"
        )
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol:g}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol:g}")
    close = at.eq_Tensor(self, other)
    if equal_nan and _inexact(self.dtype):
        at.bitwise_or__Tensor(close, at.bitwise_and_Tensor(at.isnan(self), at.isnan(other)))
    if rtol == 0 and atol == 0:
        return close
    default = dtypes.get_default_dtype()
    cast_self = self
    if self.dtype is dtypes.bool:
        cast_self = at.to_dtype(self, default, False, False, None)
    cast_other = other
    if not _inexact(other.dtype):
        cast_other = at.to_dtype(other, default, False, False, None)
    allowed_error = at.add_Scalar(at.abs(at.mul_Scalar(cast_other, rtol)), atol, 1)
    actual_error = at.abs(at.sub_Tensor(cast_self, cast_other, 1))
    finite_and_close = _isfinite(actual_error)
    at.bitwise_and__Tensor(finite_and_close, at.le_Tensor(actual_error, allowed_error))
    at.bitwise_or__Tensor(close, finite_and_close)
    return close


def allclose(self, other, rtol, atol, equal_nan) -> bool:
    close = at.isclose(self, other, rtol, atol, equal_nan)
    return bool(at._local_scalar_dense(at.all(close)))


def equal(self, other) -> bool:
    """cpu_equal: same sizes and every element equal after promotion (NaN is unequal)."""
    if self.device != other.device:
        raise RuntimeError(
            "Cannot compare two tensors on different devices. Got: "
            f"{self.device} and {other.device}"
        )
    if self._sizes != other._sizes:
        return False
    common = dtypes.promote_types(self.dtype, other.dtype).np_dtype
    left = self.ndarray().astype(common, copy=False)
    right = other.ndarray().astype(common, copy=False)
    return bool(np.array_equal(left, right))


def count_nonzero_dim_IntList(self, dim):  # noqa: N802 (kernel names follow overloads)
    """The number of non-zero elements over `dim` (every dim when empty), as int64 (on meta:
    the result's shape, as torch/_meta_registrations.py gives it)."""
    if len(dim) != 0:
        return at.sum_dim_IntList(at.ne_Scalar(self, 0), dim, False, None)
    if self.device.type == "meta":
        return empty_tensor((), dtypes.int64, device=self.device)
    count = int(np.count_nonzero(self.ndarray()))
    result = empty_tensor((), dtypes.int64)
    result.ndarray()[...] = count
    return result


def count_nonzero(self, dim):
    return at.count_nonzero_dim_IntList(self, [] if dim is None else [dim])
