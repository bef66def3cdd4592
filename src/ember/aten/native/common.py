"""Small helpers every kernel family uses: dim wrapping, dtype arguments, NumPy dtypes.

Layer: aten/native. Mirrors c10/core/WrapDimMinimal.h (maybe_wrap_dim and its
IndexError text) and the ScalarType argument handling of ATen.
"""

from __future__ import annotations

from ember._c10 import dtypes
from ember._c10.dtypes import ALL_DTYPES

_BY_SCALAR_TYPE = {d.scalar_type: d for d in ALL_DTYPES}


def as_dtype(value, default=None):
    """A ScalarType argument: None (-> default), an ember.dtype, or its ScalarType number."""
    if value is None:
        return default
    if isinstance(value, dtypes.dtype):
        return value
    return _BY_SCALAR_TYPE[int(value)]


def wrap_dim(dim: int, ndim: int, wrap_scalar: bool = True) -> int:
    """maybe_wrap_dim: a possibly negative dim as an index, or PyTorch's IndexError."""
    if ndim <= 0:
        if not wrap_scalar:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        ndim = 1
    low, high = -ndim, ndim - 1
    if dim < low or dim > high:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{low}, {high}], but got {dim})"
        )
    return dim + ndim if dim < 0 else dim


def wrap_dims(dims, ndim: int) -> list[int]:
    """dim lists (reductions, permute): wrapped, with PyTorch's duplicate-dim error."""
    wrapped = [wrap_dim(d, ndim) for d in dims]
    seen = set()
    for d in wrapped:
        if d in seen:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        seen.add(d)
    return wrapped


def np_dtype(dtype):
    return dtype.np_dtype


# caffe2::TypeMeta names (the C++ type names), which some errors print: clamp_,
# masked_fill_, mm's "expected m1 and m2 to have the same dtype".
TYPE_META_NAMES = {
    dtypes.bool: "bool",
    dtypes.uint8: "unsigned char",
    dtypes.int8: "signed char",
    dtypes.int16: "short int",
    dtypes.int32: "int",
    dtypes.int64: "long int",
    dtypes.uint64: "long unsigned int",
    dtypes.float16: "c10::Half",
    dtypes.bfloat16: "c10::BFloat16",
    dtypes.float32: "float",
    dtypes.float64: "double",
    dtypes.complex64: "c10::complex<float>",
    dtypes.complex128: "c10::complex<double>",
}


def type_meta_name(dtype) -> str:
    return TYPE_META_NAMES.get(dtype, str(dtype))
