"""Factory kernels: empty / zeros / ones / full (and their _like and new_ forms), fill_, zero_.

Layer: aten/native. In: the full schema argument list (Note [Dispatcher
calling convention]); factories reach the CPU or Meta kernel through the
generated BackendSelect kernel. Out: fresh tensors. Mirrors
ATen/native/TensorFactories.cpp (empty, empty_like's preserve_format,
infer_full_options) and ATen/native/Fill.cpp (fill_ and the checked
Scalar conversion of c10/util/TypeCast.h). Ranges and random factories
live in factories_range.py.
"""

from __future__ import annotations

import functools
import math

import ml_dtypes
import numpy as np

from ember._c10 import dtypes
from ember._c10.device import as_device
from ember._c10.tensor_impl import ZERO_TENSOR_BITS, contiguous_strides
from ember._tensor import empty_tensor
from ember.aten.memory_overlap import assert_no_internal_overlap
from ember.aten.native import at
from ember.aten.native.common import as_dtype
from ember.aten.native.deterministic_fill import deterministic_fill
from ember.aten.native.layout import (
    check_sizes,
    like_strides,
    memory_format_name,
    strides_for,
    target_device,
)

__all__ = [
    "_efficientzerotensor",
    "empty_memory_format",
    "empty_strided",
    "empty_like",
    "zeros",
    "ones",
    "full",
    "zeros_out",
    "ones_out",
    "full_out",
    "empty_out",
    "zeros_like",
    "ones_like",
    "full_like",
    "new_empty",
    "new_empty_strided",
    "new_zeros",
    "new_ones",
    "new_full",
    "fill__Scalar",
    "fill__Tensor",
    "zero_",
    "item",
    "_local_scalar_dense",
]

# The C++ type names c10's checked_convert puts into its overflow message.
_CPP_NAMES = {
    dtypes.bool: "bool", dtypes.uint8: "uint8_t", dtypes.int8: "int8_t", dtypes.int16: "int16_t",
    dtypes.int32: "int", dtypes.int64: "int64_t", dtypes.float16: "c10::Half",
    dtypes.bfloat16: "c10::BFloat16", dtypes.float32: "float", dtypes.float64: "double",
    dtypes.complex32: "c10::complex<c10::Half>", dtypes.complex64: "c10::complex<float>",
    dtypes.complex128: "c10::complex<double>", dtypes.uint16: "uint16_t",
    dtypes.uint32: "uint32_t", dtypes.uint64: "uint64_t",
}  # fmt: skip


_NATIVE_FLOATS = (dtypes.float16, dtypes.float32, dtypes.float64)


@functools.cache
def _limits(dtype):
    if dtype.is_complex:
        dtype = dtype.to_real()
    if dtype.is_floating_point:
        info = ml_dtypes.finfo(dtype.np_dtype)
        return float(info.min), float(info.max)
    info = np.iinfo(dtype.np_dtype)
    return int(info.min), int(info.max)


def _overflows(value, dtype) -> bool:
    """c10::overflows<To>(value) for a Python bool / int / float / complex."""
    if dtype is dtypes.bool or isinstance(value, bool):
        return False
    if isinstance(value, complex):
        if not dtype.is_complex and value.imag != 0:
            return True
        return _overflows(value.real, dtype) or _overflows(value.imag, dtype)
    low, high = _limits(dtype)
    floating = dtype.is_floating_point or dtype.is_complex
    if isinstance(value, float):
        if math.isinf(value):
            return not floating
        if math.isnan(value):
            return not floating
        return value < low or value > high
    if not floating and low == 0 and value < 0:
        return -value > high  # negative numbers wrap into unsigned types
    return value < low or value > high


def checked_value(value, dtype):
    """Scalar::to<T>(): ``value`` as a NumPy scalar of ``dtype``, or PyTorch's overflow error."""
    if (value.__class__ is float or value.__class__ is int) and dtype in _NATIVE_FLOATS:
        low, high = _limits(dtype)
        if low <= value <= high:  # (the common case: NaN, infinities and overflow below)
            return dtype.np_dtype.type(value)
    if _overflows(value, dtype):
        raise RuntimeError(
            f"value cannot be converted to type {_CPP_NAMES[dtype]} without overflow"
        )
    if (value.__class__ is float or value.__class__ is int) and dtype in _NATIVE_FLOATS:
        return dtype.np_dtype.type(value)  # in range (checked above): no wrap to care about
    if dtype is dtypes.bool:
        return np.bool_(value != 0)  # c10::convert<bool>: any nonzero part (1j, NaN) is True
    if isinstance(value, complex) and not dtype.is_complex:
        value = value.real
    source = np.array(value)
    if source.dtype.kind == "i" and dtype.np_dtype.kind == "u":
        source = source.astype(np.int64)
    with np.errstate(all="ignore"):
        return source.astype(dtype.np_dtype)[()]


_RELAXED_FLOATS = (dtypes.float16, dtypes.bfloat16)


def scalar_fill_value(value, dtype):
    """The value at::scalar_tensor (scalar_fill) stores: as checked_value, except that a
    half or bfloat16 goes through a checked double and then a plain cast (1e10 is inf),
    as ATen/ScalarOps.cpp's relaxed float cast does. ``where`` with a Python number and
    ``tensor[i] = number`` build their 0-dim tensor this way."""
    if dtype in _RELAXED_FLOATS:
        as_double = checked_value(value, dtypes.float64)
        with np.errstate(all="ignore"):
            return np.asarray(as_double).astype(dtype.np_dtype)[()]
    return checked_value(value, dtype)


# -- empty --------------------------------------------------------------------


def empty_memory_format(size, dtype, layout, device, pin_memory, memory_format):
    sizes = check_sizes(size)
    name = memory_format_name(memory_format, "contiguous_format")
    if name == "preserve_format":
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    strides = None if name == "contiguous_format" else strides_for(sizes, name)
    dtype = as_dtype(dtype, dtypes.get_default_dtype())
    return deterministic_fill(empty_tensor(sizes, dtype, target_device(device), strides))


def empty_strided(size, stride, dtype, layout, device, pin_memory):
    sizes = check_sizes(size)
    strides = tuple(int(s) for s in stride)
    if len(strides) != len(sizes):
        raise RuntimeError(
            f"dimensionality of sizes ({len(sizes)}) must match dimensionality of strides "
            f"({len(strides)})"
        )
    if any(s < 0 for s in strides):
        raise RuntimeError(
            f"Storage size calculation overflowed with sizes={list(sizes)} and "
            f"strides={list(strides)}"
        )
    dtype = as_dtype(dtype, dtypes.get_default_dtype())
    return deterministic_fill(empty_tensor(sizes, dtype, target_device(device), strides))


def empty_like(self, dtype, layout, device, pin_memory, memory_format):
    dtype = as_dtype(dtype, self.dtype)
    if device is not None and as_device(device).type not in ("cpu", "meta"):
        # empty_strided on that device: its backend key has no kernel (Note [Devices ember
        # has no backend for])
        strides = like_strides(self, memory_format) or contiguous_strides(self._sizes)
        return at.empty_strided(self._sizes, strides, dtype, layout, device, pin_memory)
    device = target_device(device, self.device)
    return deterministic_fill(
        empty_tensor(self._sizes, dtype, device, like_strides(self, memory_format))
    )


# -- filled factories -----------------------------------------------------------


def zeros(size, dtype, layout, device, pin_memory):
    if (device is None or as_device(device).type != "meta") and any(s < 0 for s in size):
        raise RuntimeError("zeros: Dimension size must be non-negative.")
    return at.zero_(at.empty_memory_format(size, dtype, layout, device, pin_memory, None))


def _efficientzerotensor(size, dtype, layout, device, pin_memory):
    """zeros carrying the ZeroTensor key (aten/zero_tensor.py); its storage holds zeros."""
    result = zeros(size, dtype, layout, device, pin_memory)
    result._key_bits |= ZERO_TENSOR_BITS
    return result


def ones(size, dtype, layout, device, pin_memory):
    result = at.empty_memory_format(size, dtype, layout, device, pin_memory, None)
    return at.fill__Scalar(result, 1)


# -- the out= overloads of the factories (TensorFactories.cpp): `out` is resized ------------


def zeros_out(size, out):
    at.resize_(out, size, None)
    return at.zero_(out)


def full_out(size, fill_value, out):
    at.resize_(out, size, None)
    return at.fill__Scalar(out, fill_value)


def ones_out(size, out):
    return full_out(size, 1.0, out)


def empty_out(size, memory_format, out):
    if memory_format is not None:
        raise RuntimeError("'memory_format' argument is incompatible with 'out' tensor argument")
    check_sizes(size)
    return at.resize_(out, size, None)


def _full_dtype(fill_value, dtype):
    """infer_full_options: bool -> bool, int -> int64, complex -> the default complex."""
    if dtype is not None:
        return dtype
    if isinstance(fill_value, bool):
        return dtypes.bool
    if isinstance(fill_value, int):
        return dtypes.int64
    if isinstance(fill_value, complex):
        return dtypes.get_default_complex_dtype()
    return None


def full(size, fill_value, dtype, layout, device, pin_memory):
    dtype = _full_dtype(fill_value, dtype)
    result = at.empty_memory_format(size, dtype, layout, device, pin_memory, None)
    return at.fill__Scalar(result, fill_value)


def zeros_like(self, dtype, layout, device, pin_memory, memory_format):
    return at.zero_(at.empty_like(self, dtype, layout, device, pin_memory, memory_format))


def ones_like(self, dtype, layout, device, pin_memory, memory_format):
    result = at.empty_like(self, dtype, layout, device, pin_memory, memory_format)
    return at.fill__Scalar(result, 1)


def full_like(self, fill_value, dtype, layout, device, pin_memory, memory_format):
    result = at.empty_like(self, dtype, layout, device, pin_memory, memory_format)
    return at.fill__Scalar(result, fill_value)


# -- Tensor.new_* (dtype and device default to self's) ---------------------------


def _new_options(self, dtype, device):
    return as_dtype(dtype, self.dtype), target_device(device, self.device)


def new_empty(self, size, dtype, layout, device, pin_memory):
    dtype, device = _new_options(self, dtype, device)
    return at.empty_memory_format(size, dtype, layout, device, pin_memory, None)


def new_empty_strided(self, size, stride, dtype, layout, device, pin_memory):
    dtype, device = _new_options(self, dtype, device)
    return at.empty_strided(size, stride, dtype, layout, device, pin_memory)


def new_zeros(self, size, dtype, layout, device, pin_memory):
    dtype, device = _new_options(self, dtype, device)
    return at.zeros(size, dtype, layout, device, pin_memory)


def new_ones(self, size, dtype, layout, device, pin_memory):
    dtype, device = _new_options(self, dtype, device)
    return at.ones(size, dtype, layout, device, pin_memory)


def new_full(self, size, fill_value, dtype, layout, device, pin_memory):
    dtype, device = _new_options(self, dtype, device)
    return at.full(size, fill_value, dtype, layout, device, pin_memory)


# -- fill_ / zero_ / item ----------------------------------------------------------


def fill__Scalar(self, value):  # noqa: N802 (kernel names follow overloads)
    converted = checked_value(value, self.dtype)
    if self.device.type != "meta" and self.numel():
        self.ndarray()[...] = converted
    return self


def fill__Tensor(self, value):  # noqa: N802
    if value.dim() != 0:
        raise RuntimeError(
            "fill_ only supports 0-dimension value tensor but got tensor with "
            f"{value.dim()} dimensions."
        )
    if self.device.type == "meta":
        return self
    if self.device == value.device:
        assert_no_internal_overlap(self)  # PyTorch copies: self.copy_(value)
    return fill__Scalar(self, at._local_scalar_dense(value))


def zero_(self):
    if self.device.type != "meta" and self.numel():
        self.ndarray()[...] = 0
    return self


def item(self):
    """at::native::item: one element, read by aten::_local_scalar_dense (which a dispatch mode
    or a subclass's __torch_dispatch__ sees)."""
    numel = self.numel()
    if numel != 1:
        raise RuntimeError(f"a Tensor with {numel} elements cannot be converted to Scalar")
    return at._local_scalar_dense(self)


def _local_scalar_dense(self):
    """The first element as a Python number (called directly, any tensor with elements)."""
    if self.device.type == "meta":
        raise RuntimeError("Tensor.item() cannot be called on meta tensors")
    if self.numel() == 0:
        raise RuntimeError("_local_scalar_dense: Empty tensor not supported")
    value = self.ndarray().reshape(-1)[0].item()
    if self.dtype.is_floating_point:
        return float(value)
    if self.dtype.is_complex:
        return complex(value)
    if self.dtype is dtypes.bool:
        return bool(value)
    return int(value)
