"""Pointwise kernels that are not structured: Scalar overloads, abs, floor_divide, logical ops.

Layer: aten/native. In: the full schema-ordered arguments (Note [Dispatcher
calling convention]). Out: tensors. Kernels listed under `CPU, Meta` work on
meta tensors too (they compute shapes and dtypes and skip the data).
Mirrors ATen/native/BinaryOps.cpp (the CompositeExplicitAutograd Scalar
overloads that wrap the scalar and call the Tensor overload, floor_divide,
logical_and/or/xor/not, rsub), UnaryOps.cpp (abs), Pow.cpp (pow.Scalar_out),
Activation.cpp (relu, threshold_backward), TensorCompare.cpp (isnan, max/min.other).
"""

from __future__ import annotations

import numpy as np

from ember._c10 import dtypes
from ember._c10.dtypes import scalar_type_name
from ember._tensor import empty_tensor
from ember.aten import ufunc
from ember.aten.binding import scalar_to_tensor
from ember.aten.memory_overlap import check_tensor_iterator
from ember.aten.meta.pointwise import (
    PointwiseMeta,
    SameDtypeMeta,
    div_Tensor_mode,
    unary_spec,
)
from ember.aten.native import at
from ember.aten.native.factories import checked_value
from ember.aten.structured import StructuredMeta, _can_cast, resize_output
from ember.aten.tensor_iterator import output_strides, pointwise_spec
from ember.aten.ufunc_special import not_implemented_for, operand

__all__ = [
    "add_Scalar",
    "add__Scalar",
    "sub_Scalar",
    "sub__Scalar",
    "rsub_Tensor",
    "rsub_Scalar",
    "mul_Scalar",
    "mul__Scalar",
    "div_Scalar",
    "div__Scalar",
    "div_Scalar_mode",
    "div__Scalar_mode",
    "remainder_Scalar",
    "remainder_Scalar_out",
    "remainder__Scalar",
    "remainder_Scalar_Tensor",
    "floor_divide",
    "floor_divide__Tensor",
    "floor_divide_Scalar",
    "floor_divide__Scalar",
    "floor_divide_out",
    "pow_Scalar_out",
    "abs",
    "abs_",
    "abs_out",
    "relu",
    "relu_",
    "threshold_backward_out",
    "isnan",
    "max_other",
    "max_out",
    "min_other",
    "min_out",
    "logical_and",
    "logical_and_",
    "logical_and_out",
    "logical_or",
    "logical_or_",
    "logical_or_out",
    "logical_xor",
    "logical_xor_",
    "logical_xor_out",
    "logical_not",
    "logical_not_",
    "logical_not_out",
]


def preserved_strides(self) -> tuple:
    """The layout TensorIterator gives the output of a unary op over ``self``."""
    return output_strides((self,), self._sizes)


def _computes(tensor) -> bool:
    """Whether a kernel registered for CPU and Meta has data to compute (not a meta tensor)."""
    return tensor.device.type != "meta"


# -- Scalar overloads: wrap the number, call the Tensor overload ---------------------


def add_Scalar(self, other, alpha):  # noqa: N802 (kernel names follow overloads)
    return at.add_Tensor(self, scalar_to_tensor(other), alpha)


def add__Scalar(self, other, alpha):  # noqa: N802
    return at.add__Tensor(self, scalar_to_tensor(other), alpha)


def sub_Scalar(self, other, alpha):  # noqa: N802
    return at.sub_Tensor(self, scalar_to_tensor(other), alpha)


def sub__Scalar(self, other, alpha):  # noqa: N802
    return at.sub__Tensor(self, scalar_to_tensor(other), alpha)


def rsub_Tensor(self, other, alpha):  # noqa: N802
    """rsub: `other - alpha * self`, the CPU kernel calling at::sub (so a trace sees rsub)."""
    return at.sub_Tensor(other, self, alpha)


def rsub_Scalar(self, other, alpha):  # noqa: N802
    return at.sub_Tensor(scalar_to_tensor(other), self, alpha)


def mul_Scalar(self, other):  # noqa: N802
    return at.mul_Tensor(self, scalar_to_tensor(other))


def mul__Scalar(self, other):  # noqa: N802
    return at.mul__Tensor(self, scalar_to_tensor(other))


def div_Scalar(self, other):  # noqa: N802
    return at.div_Tensor(self, scalar_to_tensor(other))


def div__Scalar(self, other):  # noqa: N802
    return at.div__Tensor(self, scalar_to_tensor(other))


def div_Scalar_mode(self, other, rounding_mode):  # noqa: N802
    return at.div_Tensor_mode(self, scalar_to_tensor(other), rounding_mode)


def div__Scalar_mode(self, other, rounding_mode):  # noqa: N802
    return at.div__Tensor_mode(self, scalar_to_tensor(other), rounding_mode)


def remainder_Scalar(self, other):  # noqa: N802
    return at.remainder_Tensor(self, scalar_to_tensor(other))


def remainder_Scalar_out(self, other, out):  # noqa: N802
    return at.remainder_Tensor_out(self, scalar_to_tensor(other), out)


def remainder__Scalar(self, other):  # noqa: N802
    return at.remainder__Tensor(self, scalar_to_tensor(other))


def remainder_Scalar_Tensor(self, other):  # noqa: N802
    return at.remainder_Tensor(scalar_to_tensor(self), other)


# -- floor_divide: a TensorIterator binary op with div_floor's formula ---------------


def floor_divide(self, other):
    meta = div_Tensor_mode(self, other, "floor")
    out = meta.allocate()
    if _computes(out):
        ufunc.div(meta, self, other, "floor", out)
    return out


def floor_divide__Tensor(self, other):  # noqa: N802
    check_tensor_iterator(self, other)  # Note [Memory overlap checks]
    meta = div_Tensor_mode(self, other, "floor")
    meta.check_inplace(self)
    if _computes(self):
        ufunc.div(meta, self, other, "floor", self)
    return self


def floor_divide_Scalar(self, other):  # noqa: N802
    return at.floor_divide(self, scalar_to_tensor(other))


def floor_divide__Scalar(self, other):  # noqa: N802
    return at.floor_divide__Tensor(self, scalar_to_tensor(other))


def floor_divide_out(self, other, out):
    check_tensor_iterator(out, self, other)
    meta = div_Tensor_mode(self, other, "floor")
    if out is self or out is other:
        meta.check_read_write(out)
    meta.resize_outputs(out)
    if _computes(out):
        ufunc.div(meta, self, other, "floor", out)
    return out


# -- pow(Scalar, Tensor) -------------------------------------------------------------


def pow_Scalar_out(meta, self, exponent, out):  # noqa: N802
    """TORCH_IMPL_FUNC(pow_Scalar_out): 1 ** x is 1; otherwise pow.Tensor_Tensor_out.

    Scalar::equal never holds for a bool scalar, so True ** x goes the long way.
    """
    if self == 1 and not isinstance(self, bool):
        at.fill__Scalar(out, 1)
    else:
        at.pow_Tensor_Tensor_out(scalar_to_tensor(self), exponent, out)
    return out


# -- abs: complex inputs give real results -------------------------------------------


def abs(self):  # noqa: A001 (the operator's name)
    if self.dtype.is_complex:
        out = at.empty_like(self, self.dtype.to_real(), None, None, None, None)
    else:
        out = empty_tensor(self._sizes, self.dtype, self.device, preserved_strides(self))
    return at.abs_out(self, out)


def abs_(self):
    if self.dtype.is_complex:
        raise RuntimeError("In-place abs is not supported for complex tensors.")
    return at.abs_out(self, self)


def abs_out(self, out):
    check_tensor_iterator(out, self)
    ufunc.check_barebones("abs_cpu", self.dtype)
    if self.dtype.is_complex and not out.dtype.is_complex:
        real = self.dtype.to_real()
        if not _can_cast(real, out.dtype):
            raise RuntimeError(
                f"result type {scalar_type_name(real)} can't be cast to the desired output "
                f"type {scalar_type_name(out.dtype)}"
            )
        resize_output(out, self._sizes)
    else:
        SameDtypeMeta(unary_spec(self, self.dtype), self.dtype).resize_outputs(out)
    if _computes(out):
        if self.dtype is dtypes.bool:
            not_implemented_for("abs_cpu", self.dtype)
        ufunc.unary_into(np.absolute, self.ndarray(), out.ndarray())
    return out


# -- relu, isnan, max / min of two tensors ---------------------------------------------


def relu(self):
    if self.dtype is dtypes.bool:
        raise RuntimeError("Boolean inputs not supported for relu")
    return at.clamp(self, 0, None)


def relu_(self):
    if self.dtype is dtypes.bool:
        raise RuntimeError("Boolean inputs not supported for relu")
    return at.clamp_(self, 0, None)


_SAME_SIZE_BITS = {np.dtype(np.float32): np.uint32, np.dtype(np.float64): np.uint64}


@ufunc.quiet
def threshold_backward_out(meta, grad_output, self, threshold, grad_input) -> None:
    """grad where self > threshold, else 0 (threshold_kernel with value 0)."""
    compute = meta.compute_dtype
    if compute is dtypes.bool:
        not_implemented_for("threshold_cpu", compute)
    values = operand(self)
    limit = checked_value(threshold, compute)
    dropped = np.asarray(values <= limit)  # 0-d operands compare to a NumPy scalar
    zero_where(operand(grad_output), dropped, grad_input.ndarray(), compute.np_dtype)


def zero_where(grad, dropped, target, compute) -> None:
    """target = 0 where ``dropped`` (a bool array; ``x <= t``, so NaN keeps its gradient),
    else grad. Also the fast path's core (Note [Arithmetic fast paths])."""
    bits = _SAME_SIZE_BITS.get(compute)
    if bits is not None and grad.dtype == target.dtype == compute and grad.shape == target.shape:
        # grad's bits AND all-ones (kept) or zero (+0.0): exact for every value, NaN and -0.0
        # included, and cheaper than np.where. `dropped` becomes the mask in place:
        # 1 - 1 = 0 clears, 0 - 1 wraps to all ones.
        mask = dropped.astype(bits)
        np.subtract(mask, bits(1), out=mask)
        np.bitwise_and(grad.view(bits), mask, out=target.view(bits))
    else:
        kept = np.where(dropped, np.zeros((), compute), grad)
        np.copyto(target, kept, casting="unsafe")


def isnan(self):
    return at.ne_Tensor(self, self)


def max_other(self, other):  # noqa: N802
    return at.maximum(self, other)


def max_out(self, other, out):
    return at.maximum_out(self, other, out)


def min_other(self, other):  # noqa: N802
    return at.minimum(self, other)


def min_out(self, other, out):
    return at.minimum_out(self, other, out)


# -- logical_and / or / xor / not: bool results, any output dtype ------------------------------


def _truth(tensor):
    values = tensor.ndarray()
    if tensor.dtype is dtypes.bool:
        return values
    return np.not_equal(values, 0)


def _logical_meta(self, other) -> StructuredMeta:
    spec, common = pointwise_spec((self, other), out_dtype=dtypes.bool)
    return PointwiseMeta(spec, common)


def _logical_out(ufunc_, self, other, out):
    check_tensor_iterator(out, self, other)
    meta = _logical_meta(self, other)
    if out is self or out is other:
        meta.check_read_write(out)
    meta.resize_outputs(out)
    if _computes(out):
        ufunc_(_truth(self), _truth(other), out=out.ndarray(), casting="unsafe")
    return out


def logical_and_out(self, other, out):
    return _logical_out(np.logical_and, self, other, out)


def logical_and(self, other):
    return at.logical_and_out(self, other, _logical_meta(self, other).allocate())


def logical_and_(self, other):
    check_tensor_iterator(self, other)
    _logical_meta(self, other).check_inplace(self)
    return at.logical_and_out(self, other, self)


def logical_or_out(self, other, out):
    return _logical_out(np.logical_or, self, other, out)


def logical_or(self, other):
    return at.logical_or_out(self, other, _logical_meta(self, other).allocate())


def logical_or_(self, other):
    check_tensor_iterator(self, other)
    _logical_meta(self, other).check_inplace(self)
    return at.logical_or_out(self, other, self)


def logical_xor_out(self, other, out):
    return _logical_out(np.logical_xor, self, other, out)


def logical_xor(self, other):
    return at.logical_xor_out(self, other, _logical_meta(self, other).allocate())


def logical_xor_(self, other):
    _logical_meta(self, other).check_inplace(self)
    return at.logical_xor_out(self, other, self)


def logical_not_out(self, out):
    check_tensor_iterator(out, self)
    PointwiseMeta(unary_spec(self, dtypes.bool)).resize_outputs(out)
    if _computes(out):
        ufunc.unary_into(np.logical_not, _truth(self), out.ndarray())
    return out


def logical_not(self):
    out = empty_tensor(self._sizes, dtypes.bool, self.device, preserved_strides(self))
    return at.logical_not_out(self, out)


def logical_not_(self):
    return at.logical_not_out(self, self)
