"""Meta functions of the bitwise operators: and, or, xor, not and the two shifts.

Layer: aten/meta. In: the functional arguments (tensors, possibly meta).
Out: a StructuredMeta. Mirrors TORCH_META_FUNC2(bitwise_and, Tensor) and its
siblings in ATen/native/BinaryOps.cpp (build_borrowing_binary_op: common
dtype, broadcast shape) and TORCH_META_FUNC(bitwise_not) in UnaryOps.cpp
(build_borrowing_unary_op). Which dtypes a kernel accepts is the CPU
kernel's question (ufunc_bitwise.py), as in PyTorch, so meta tensors of any
dtype pass.
"""

from __future__ import annotations

from ember.aten.meta.pointwise import binary_op
from ember.aten.meta.pointwise_unary import unary_op
from ember.aten.structured import StructuredMeta

__all__ = [
    "bitwise_and_Tensor",
    "bitwise_or_Tensor",
    "bitwise_xor_Tensor",
    "bitwise_left_shift_Tensor",
    "bitwise_right_shift_Tensor",
    "bitwise_not",
]


def bitwise_and_Tensor(self, other) -> StructuredMeta:  # noqa: N802 (kernel names follow overloads)
    return binary_op(self, other)


bitwise_or_Tensor = bitwise_xor_Tensor = bitwise_and_Tensor
bitwise_left_shift_Tensor = bitwise_right_shift_Tensor = bitwise_and_Tensor


def bitwise_not(self) -> StructuredMeta:
    return unary_op(self)
