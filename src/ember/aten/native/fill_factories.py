"""fill (functional), scalar_tensor and empty_permuted: fresh tensors of a given value or
layout.

Layer: aten/native (CompositeExplicitAutograd: the result is allocated through `at` and
filled there). In: a template tensor or a size; a Scalar or a 0-d tensor. Out: a fresh
tensor. Mirrors ATen/native/Fill.cpp (fill), TensorFactories.cpp (scalar_tensor,
empty_permuted_symint).
"""

from __future__ import annotations

from ember._c10.tensor_impl import contiguous_strides
from ember.aten.native import at

__all__ = ["empty_permuted", "fill_Scalar", "fill_Tensor", "scalar_tensor"]

PRESERVE_FORMAT = 1


def fill_Scalar(self, value):  # noqa: N802 (kernel names follow overloads)
    result = at.empty_like(self, None, None, None, None, PRESERVE_FORMAT)
    return at.fill__Scalar(result, value)


def fill_Tensor(self, value):  # noqa: N802 (kernel names follow overloads)
    result = at.empty_like(self, None, None, None, None, PRESERVE_FORMAT)
    return at.fill__Tensor(result, value)


def scalar_tensor(s, dtype, layout, device, pin_memory):
    result = at.empty_memory_format([], dtype, layout, device, pin_memory, None)
    return at.fill__Scalar(result, s)


def empty_permuted(size, physical_layout, dtype, layout, device, pin_memory):
    size, physical_layout = list(size), list(physical_layout)
    dim = len(size)
    if dim != len(physical_layout):
        raise RuntimeError(
            "Number of dimensions in size does not match the length of the physical_layout; "
            f"i.e. len(size) = {dim} is not equal to len(physical_layout) = "
            f"{len(physical_layout)}"
        )
    seen = [False] * dim
    for i, d in enumerate(physical_layout):
        if not 0 <= d < dim:
            raise RuntimeError(
                f"Dimension out of range (expected to be between 0 and {dim - 1}, but got {d} "
                f"at index {i}).  NB: negative dims not currently supported; file an issue if "
                "you want it."
            )
        if seen[d]:
            raise RuntimeError("Duplicate dim not allowed")
        seen[d] = True
    physical_strides = contiguous_strides(tuple(size[d] for d in physical_layout))
    strides = [0] * dim
    for i, d in enumerate(physical_layout):
        strides[d] = physical_strides[i]
    return at.empty_strided(size, strides, dtype, layout, device, pin_memory)
