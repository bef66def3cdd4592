"""Meta functions of the unary pointwise operators and of the comparisons.

Layer: aten/meta. In: the functional arguments (tensors, possibly meta;
Python numbers for the comparisons' Scalar overloads). Out: a StructuredMeta.
Mirrors TORCH_META_FUNC(neg), (sign), CREATE_UNARY_FLOAT_META_FUNC(sin) and
friends in ATen/native/UnaryOps.cpp, TORCH_META_FUNC(gelu) in Activation.cpp,
and CREATE_COMPARISON_SCALAR_TENSOR_META_FUNC(eq) in BinaryOps.cpp.
"""

from __future__ import annotations

from ember._c10 import dtypes
from ember.aten.meta.pointwise import PointwiseMeta, SameDtypeMeta, is_integral, unary_spec
from ember.aten.structured import StructuredMeta
from ember.aten.tensor_iterator import pointwise_spec

__all__ = [
    "unary_op",
    "unary_float_op",
    "neg",
    "sign",
    "exp",
    "log",
    "log1p",
    "sqrt",
    "rsqrt",
    "reciprocal",
    "sin",
    "cos",
    "tanh",
    "sigmoid",
    "acos",
    "asin",
    "atan",
    "tan",
    "sinh",
    "cosh",
    "expm1",
    "log2",
    "log10",
    "gelu",
    "eq_Tensor",
    "ne_Tensor",
    "lt_Tensor",
    "le_Tensor",
    "gt_Tensor",
    "ge_Tensor",
    "eq_Scalar",
    "ne_Scalar",
    "lt_Scalar",
    "le_Scalar",
    "gt_Scalar",
    "ge_Scalar",
]


def unary_op(self) -> StructuredMeta:
    """build_borrowing_unary_op: same dtype in and out, out= must match exactly."""
    return SameDtypeMeta(unary_spec(self, self.dtype), self.dtype)


def unary_float_op(self) -> StructuredMeta:
    """build_borrowing_unary_float_op: integers and bool compute in the default float dtype."""
    dtype = self.dtype
    if is_integral(dtype, include_bool=True):
        dtype = dtypes.get_default_dtype()
    return PointwiseMeta(unary_spec(self, dtype), dtype)


def neg(self) -> StructuredMeta:
    if self.dtype is dtypes.bool:
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
            "to invert a mask, use the `~` or `logical_not()` operator instead."
        )
    return unary_op(self)


def sign(self) -> StructuredMeta:
    if self.dtype.is_complex:
        raise NotImplementedError(
            "Unlike NumPy, torch.sign is not intended to support complex numbers. Please use "
            "torch.sgn instead."
        )
    return unary_op(self)


def exp(self) -> StructuredMeta:
    return unary_float_op(self)


def log(self) -> StructuredMeta:
    return unary_float_op(self)


def log1p(self) -> StructuredMeta:
    return unary_float_op(self)


def sqrt(self) -> StructuredMeta:
    return unary_float_op(self)


def rsqrt(self) -> StructuredMeta:
    return unary_float_op(self)


def reciprocal(self) -> StructuredMeta:
    return unary_float_op(self)


def sin(self) -> StructuredMeta:
    return unary_float_op(self)


def cos(self) -> StructuredMeta:
    return unary_float_op(self)


def tanh(self) -> StructuredMeta:
    return unary_float_op(self)


def sigmoid(self) -> StructuredMeta:
    return unary_float_op(self)


def acos(self) -> StructuredMeta:
    return unary_float_op(self)


def asin(self) -> StructuredMeta:
    return unary_float_op(self)


def atan(self) -> StructuredMeta:
    return unary_float_op(self)


def tan(self) -> StructuredMeta:
    return unary_float_op(self)


def sinh(self) -> StructuredMeta:
    return unary_float_op(self)


def cosh(self) -> StructuredMeta:
    return unary_float_op(self)


def expm1(self) -> StructuredMeta:
    return unary_float_op(self)


def log2(self) -> StructuredMeta:
    return unary_float_op(self)


def log10(self) -> StructuredMeta:
    return unary_float_op(self)


def gelu(self, approximate) -> StructuredMeta:
    """The approximate argument is checked by the CPU kernel (ufunc.gelu), as in PyTorch."""
    return unary_op(self)


# -- comparisons: bool results, computed in the common dtype ---------------------


def _compare_tensors(self, other) -> StructuredMeta:
    spec, common = pointwise_spec((self, other), out_dtype=dtypes.bool)
    return PointwiseMeta(spec, common)


def _compare_scalar(self, other) -> StructuredMeta:
    common = dtypes.result_type(self, other)
    return PointwiseMeta(unary_spec(self, dtypes.bool), common)


eq_Tensor = ne_Tensor = lt_Tensor = le_Tensor = gt_Tensor = ge_Tensor = _compare_tensors
eq_Scalar = ne_Scalar = lt_Scalar = le_Scalar = gt_Scalar = ge_Scalar = _compare_scalar
