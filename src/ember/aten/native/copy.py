"""Copy and conversion kernels: copy_, clone, contiguous, _to_copy and the aten `to` overloads.

Layer: aten/native. In: the full schema argument list. Out: `self` written in
place (copy_) or a new tensor / `self` itself (to, contiguous). Mirrors
ATen/native/Copy.cpp (copy_impl: same-tensor and same-data shortcuts, meta
rules, broadcasting, overlap checks, the complex-to-real warning),
TensorFactories.cpp (clone's preserve_format) and TensorConversions.cpp
(_to_copy, to_will_alias, the `to` overloads).
"""

from __future__ import annotations

import warnings

import numpy as np

from ember._c10 import dtypes
from ember._c10 import memory_format as _formats
from ember._c10.device import as_device
from ember._c10.tensor_impl import MATH_BITS, apply_math_bits, resolved_array, shape_text
from ember.aten.loop_order import in_loop_order
from ember.aten.memory_overlap import check_tensor_iterator, same_data
from ember.aten.native import at
from ember.aten.native.common import as_dtype
from ember.aten.native.layout import (
    memory_format_name,
    preserved_strides,
    strides_for,
    target_device,
)
from ember.aten.tensor_iterator import broadcast_shapes

__all__ = [
    "copy_",
    "clone",
    "contiguous",
    "_to_copy",
    "to_dtype",
    "to_dtype_layout",
    "to_device",
    "to_other",
]


def _check_broadcast_into(self, src) -> None:
    shape = broadcast_shapes(self._sizes, src._sizes)
    if shape != self._sizes:
        raise RuntimeError(
            f"output with shape {shape_text(self._sizes)} doesn't match the broadcast shape "
            f"{shape_text(shape)}"
        )


def converted(array: np.ndarray, source, target) -> np.ndarray:
    """``array`` (of dtype ``source``) as ``target``'s NumPy type, with C++ cast semantics."""
    if source is target:
        return array
    with np.errstate(all="ignore"):
        if source.is_complex and not target.is_complex:
            array = array.real if target is not dtypes.bool else array != 0
        if source is dtypes.bfloat16 and target is not dtypes.float32:
            array = array.astype(np.float32)  # ml_dtypes converts through float32
        if target is dtypes.bfloat16 and array.dtype.kind not in "f":
            array = array.astype(np.float32)
        return array.astype(target.np_dtype)


def copy_(self, src, non_blocking):
    if self is src:
        return self
    if self.device.type == "meta":
        _check_broadcast_into(self, src)
        return self
    if src.device.type == "meta":
        raise NotImplementedError("Cannot copy out of meta tensor; no data!")
    if self.numel() == 0:
        _check_broadcast_into(self, src)
        return self
    if same_data(self, src):
        return self
    check_tensor_iterator(self, src)  # before the shapes, as TensorIterator's build
    _check_broadcast_into(self, src)
    if src.dtype.is_complex and not self.dtype.is_complex:
        warnings.warn(
            "Casting complex values to real discards the imaginary part", UserWarning, stacklevel=2
        )
    if src._storage is self._storage and in_loop_order(
        copy_element, _CopyMeta(self.dtype), (src,), self, promotes=False
    ):
        return self
    values = converted(resolved_array(src), src.dtype, self.dtype)
    if self._key_bits & MATH_BITS:  # stored as the destination's bits say (Note [Math bits])
        values = apply_math_bits(values, self._key_bits)
    np.copyto(self.ndarray(), values, casting="unsafe")
    return self


class _CopyMeta:
    """What in_loop_order reads of a meta: copy_ computes in the destination's dtype."""

    __slots__ = ("compute_dtype",)

    def __init__(self, dtype) -> None:
        self.compute_dtype = dtype


def copy_element(meta, src, dst) -> None:
    """One step of copy's loop (also cat's, through copy_)."""
    values = converted(resolved_array(src), src.dtype, dst.dtype)
    if dst._key_bits & MATH_BITS:
        values = apply_math_bits(values, dst._key_bits)
    np.copyto(dst.ndarray(), values, casting="unsafe")


def _empty_in_format(self, memory_format, dtype=None, device=None):
    """The destination of a clone / _to_copy in ``memory_format`` (preserve keeps the layout)."""
    name = memory_format_name(memory_format)
    if name == "preserve_format":
        strides = preserved_strides(self)
    else:
        strides = strides_for(self._sizes, name)
    return at.empty_strided(
        list(self._sizes),
        list(strides),
        dtype if dtype is not None else self.dtype,
        None,
        device if device is not None else self.device,
        None,
    )


def clone(self, memory_format):
    return at.copy_(_empty_in_format(self, memory_format), self, False)


def contiguous(self, memory_format):
    name = memory_format_name(memory_format, "contiguous_format")
    if self.is_contiguous(memory_format=_Format(name)):
        return self
    if name == "preserve_format":
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    if memory_format is None:
        memory_format = _formats.contiguous_format
    return at.clone(self, memory_format)


class _Format:
    """A stand-in memory_format object for TensorImpl.is_contiguous (which reads `_name`)."""

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = None if name in ("contiguous_format", "preserve_format") else name


def _to_copy(self, dtype, layout, device, pin_memory, non_blocking, memory_format):
    dtype = as_dtype(dtype, self.dtype)
    device = target_device(device, self.device)
    result = _empty_in_format(self, memory_format, dtype, device)
    return at.copy_(result, self, non_blocking)


def _suggest_memory_format(self) -> str:
    """suggest_memory_format: channels_last when the strides say so, else contiguous."""
    if len(self._sizes) == 4 and not self.is_contiguous():
        if self.is_contiguous(memory_format=_Format("channels_last")):
            return "channels_last"
    if len(self._sizes) == 5 and not self.is_contiguous():
        if self.is_contiguous(memory_format=_Format("channels_last_3d")):
            return "channels_last_3d"
    return "contiguous_format"


def _to_will_alias(self, dtype, device, copy, memory_format) -> bool:
    name = memory_format_name(memory_format)
    return (
        (dtype is None or as_dtype(dtype) is self.dtype)
        and (device is None or as_device(device) == self.device)  # cpu:0 is not cpu
        and not copy
        and (name == "preserve_format" or _suggest_memory_format(self) == name)
    )


def _to(self, dtype, layout, device, pin_memory, non_blocking, copy, memory_format):
    if _to_will_alias(self, dtype, device, copy, memory_format):
        return self
    return at._to_copy(self, dtype, layout, device, pin_memory, non_blocking, memory_format)


def to_dtype_layout(self, dtype, layout, device, pin_memory, non_blocking, copy, memory_format):
    return _to(self, dtype, layout, device, pin_memory, non_blocking, copy, memory_format)


def to_device(self, device, dtype, non_blocking, copy, memory_format):
    return _to(self, dtype, None, device, None, non_blocking, copy, memory_format)


def to_dtype(self, dtype, non_blocking, copy, memory_format):
    return _to(self, dtype, None, None, None, non_blocking, copy, memory_format)


def to_other(self, other, non_blocking, copy, memory_format):
    return _to(self, other.dtype, None, other.device, None, non_blocking, copy, memory_format)
