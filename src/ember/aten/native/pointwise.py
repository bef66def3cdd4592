"""Pointwise kernels that are not structured: composite Scalar overloads and friends.

Layer: aten/native. Mirrors ATen/native/BinaryOps.cpp (the CompositeExplicitAutograd
Scalar overloads that wrap the scalar and call the Tensor overload).
"""

from __future__ import annotations

from ember.aten.binding import scalar_to_tensor
from ember.aten.native import at

__all__ = ["add_Scalar", "add__Scalar", "mul_Scalar", "mul__Scalar"]


def add_Scalar(self, other, alpha):  # noqa: N802 (kernel names follow overloads)
    return at.add_Tensor(self, scalar_to_tensor(other), alpha)


def add__Scalar(self, other, alpha):  # noqa: N802
    return at.add__Tensor(self, scalar_to_tensor(other), alpha)


def mul_Scalar(self, other):  # noqa: N802
    return at.mul_Tensor(self, scalar_to_tensor(other))


def mul__Scalar(self, other):  # noqa: N802
    return at.mul__Tensor(self, scalar_to_tensor(other))
