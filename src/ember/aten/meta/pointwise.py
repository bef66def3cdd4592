"""Meta functions of the pointwise (TensorIterator) operators.

Layer: aten/meta. Mirrors TORCH_META_FUNC2(add, Tensor) and friends in
ATen/native/BinaryOps.cpp, UnaryOps.cpp: a TensorIterator over the operands
decides the output's shape, dtype and strides.
"""

from __future__ import annotations

from ember.aten.structured import StructuredMeta
from ember.aten.tensor_iterator import pointwise_spec


def binary_op(self, other) -> StructuredMeta:
    spec, common = pointwise_spec((self, other))
    return StructuredMeta(spec, common)


def binary_float_op(self, other) -> StructuredMeta:
    spec, common = pointwise_spec((self, other), promote_integer_inputs_to_float=True)
    return StructuredMeta(spec, common)


def unary_op(self) -> StructuredMeta:
    spec, common = pointwise_spec((self,))
    return StructuredMeta(spec, common)


def unary_float_op(self) -> StructuredMeta:
    spec, common = pointwise_spec((self,), promote_integer_inputs_to_float=True)
    return StructuredMeta(spec, common)


def _check_alpha(self, other, alpha) -> None:
    """alpha_check (BinaryOps.h)."""
    if isinstance(alpha, bool):
        return
    integral = not (self.dtype.is_floating_point or self.dtype.is_complex)
    if integral and isinstance(alpha, float):
        raise RuntimeError(
            "For integral input tensors, argument alpha must not be a floating point number."
        )


def add_Tensor(self, other, alpha) -> StructuredMeta:  # noqa: N802 (kernel names follow overloads)
    meta = binary_op(self, other)
    _check_alpha(self, other, alpha)
    return meta


def sub_Tensor(self, other, alpha) -> StructuredMeta:  # noqa: N802
    meta = binary_op(self, other)
    _check_alpha(self, other, alpha)
    return meta


def mul_Tensor(self, other) -> StructuredMeta:  # noqa: N802
    return binary_op(self, other)


def sin(self) -> StructuredMeta:
    return unary_float_op(self)
