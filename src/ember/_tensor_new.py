"""Tensors from nested Python data: the sizes, the inferred dtype and the stored elements.

Layer: torch face (imports _c10, _tensor and aten's conversion helpers). In: ``data`` as torch.tensor takes it
(nested sequences of Python numbers, NumPy scalars and arrays, tensors) and a dtype
or None. Out: a C-contiguous NumPy array of the dtype's values, or PyTorch's error for
data it refuses. Mirrors torch/csrc/utils/tensor_new.cpp (compute_sizes,
infer_scalar_type, recursive_store, internal_new_from_data) and the element
conversions of torch/csrc/utils/python_scalars.h and python_numbers.h (store_scalar,
unpackIntegral, THPUtils_unpackNumberAsBool, THPUtils_unpackDouble).
"""

from __future__ import annotations

import operator
import warnings

import numpy as np

from ember._c10 import dtypes
from ember._tensor import Tensor
from ember.aten.native.factories import _overflows
from ember.aten.python_arg_convert import tp_name

__all__ = ["compute_sizes", "infer_dtype", "values_array", "numpy_dtype", "check_data"]

_MAX_DIMS = 64
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_NUMPY_TYPES = (
    "float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint64, "
    "uint32, uint16, uint8, and bool"
)
# The short names checked_convert puts in its message for torch.tensor's elements.
_INTEGRAL_NAMES = {
    dtypes.uint8: "uint8", dtypes.int8: "int8", dtypes.int16: "int16",
    dtypes.int32: "int32", dtypes.int64: "int64", dtypes.uint16: "uint16",
    dtypes.uint32: "uint32",
}  # fmt: skip


def _tp_name(obj) -> str:
    return tp_name(obj)


def numpy_dtype(array: np.ndarray):
    found = dtypes._BY_NUMPY.get(array.dtype)
    if found is None:
        raise TypeError(
            f"can't convert np.ndarray of type {type(array.dtype.type()).__module__}."
            f"{array.dtype.type.__name__}. The only supported types are: {_NUMPY_TYPES}."
        )
    return found


def check_data(data) -> None:
    """internal_new_from_data's first check: a string is no data, whatever the dtype."""
    if isinstance(data, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{_tp_name(data)}'")


# -- sizes and dtype (tensor_new.cpp) ----------------------------------------------------


def is_sequence(obj) -> bool:
    """PySequence_Check, as compute_sizes asks it (a tensor of no dimension is a scalar)."""
    if isinstance(obj, (list, tuple, range, str, bytes, np.ndarray)):
        return True
    if isinstance(obj, Tensor):
        return obj.dim() > 0
    return (
        hasattr(type(obj), "__getitem__")
        and hasattr(type(obj), "__len__")
        and not isinstance(obj, dict)
    )


def compute_sizes(data) -> list[int]:
    sizes: list[int] = []
    obj = data
    while is_sequence(obj):
        length = len(obj)
        sizes.append(length)
        if len(sizes) > _MAX_DIMS:
            raise ValueError(f"too many dimensions '{type(obj).__name__}'")
        if length == 0:
            break
        obj = obj[0]
    return sizes


def infer_dtype(obj):
    """infer_scalar_type: the dtype torch.tensor gives ``obj`` when none is asked for."""
    if isinstance(obj, np.generic):  # before float: np.float64 subclasses float
        return numpy_dtype(np.asarray(obj))
    if isinstance(obj, bool):
        return dtypes.bool
    if isinstance(obj, int):
        return dtypes.int64
    if isinstance(obj, float):
        return dtypes.get_default_dtype()
    if isinstance(obj, complex):
        return dtypes.get_default_complex_dtype()
    if isinstance(obj, Tensor):
        return obj.dtype
    if isinstance(obj, np.ndarray):
        return numpy_dtype(obj)
    check_data(obj)
    if is_sequence(obj):
        if len(obj) == 0:
            return dtypes.get_default_dtype()
        found = None
        for item in obj:
            if item is obj:
                raise TypeError("new(): self-referential lists are incompatible")
            item_dtype = infer_dtype(item)
            found = item_dtype if found is None else dtypes.promote_types(found, item_dtype)
            if found is dtypes.complex128:
                return found
        return found
    raise RuntimeError(f"Could not infer dtype of {type(obj).__name__}")


# -- elements (python_scalars.h: store_scalar) -------------------------------------------


def _as_bool(obj) -> bool:
    """THPUtils_unpackNumberAsBool: bools and floats as they are, anything else by __index__."""
    if isinstance(obj, (bool, np.bool_, float, complex)):
        return bool(obj)
    return bool(operator.index(obj))


def _as_integral(obj, dtype) -> int:
    """unpackIntegral: a float truncated, anything else by __index__ (int64), then checked."""
    if isinstance(obj, float):  # np.float64 too (a float subclass); np.float32 is not
        if _overflows(obj, dtype):
            raise RuntimeError(
                f"value cannot be converted to type {_INTEGRAL_NAMES[dtype]} without overflow"
            )
        return int(obj)
    value = operator.index(obj)
    if not _INT64_MIN <= value <= _INT64_MAX:
        raise ValueError("Overflow when unpacking long long")
    if _overflows(value, dtype):
        raise RuntimeError(
            f"value cannot be converted to type {_INTEGRAL_NAMES[dtype]} without overflow"
        )
    return value


def _as_uint64(obj) -> int:
    """store_scalar's UInt64 case: PyLong_AsUnsignedLongLong (bools are ints, floats not)."""
    if isinstance(obj, float):
        raise TypeError("an integer is required")
    value = operator.index(obj)
    if value < 0:
        raise OverflowError("can't convert negative int to unsigned")
    if value > 0xFFFF_FFFF_FFFF_FFFF:
        raise OverflowError("int too big to convert")
    return value


def _as_double(obj) -> float:
    """PyFloat_AsDouble: __float__, else __index__, else 'must be real number'."""
    if obj.__class__ is float:
        return obj
    kind = type(obj)
    if hasattr(kind, "__float__"):
        return float(obj)
    if hasattr(kind, "__index__"):
        return float(operator.index(obj))
    raise TypeError(f"must be real number, not {_tp_name(obj)}")


def _as_complex(obj) -> complex:
    """PyComplex_AsCComplex: __complex__, else as a real number."""
    if isinstance(obj, complex) or hasattr(type(obj), "__complex__"):
        return complex(obj)
    return complex(_as_double(obj))


def _store(obj, sizes: list[int], dim: int, flat: list) -> None:
    """recursive_store: check each sequence's length and collect the elements in order."""
    if dim == len(sizes):
        flat.append(obj)
        return
    if not is_sequence(obj):
        raise TypeError("not a sequence")
    items = list(obj)
    if len(items) != sizes[dim]:
        raise ValueError(
            f"expected sequence of length {sizes[dim]} at dim {dim} (got {len(items)})"
        )
    for item in items:
        if isinstance(item, np.ndarray):
            warnings.warn(
                "Creating a tensor from a list of numpy.ndarrays is extremely slow. Please "
                "consider converting the list to a single numpy.ndarray with numpy.array() "
                "before converting to a tensor.",
                UserWarning,
                stacklevel=5,
            )
        _store(item, sizes, dim + 1, flat)


def values_array(data, sizes: list[int], dtype) -> np.ndarray:
    """The elements of ``data`` as an array of ``dtype`` shaped ``sizes`` (none is read
    when ``sizes`` holds a 0, as internal_new_from_data skips recursive_store)."""
    if 0 in sizes:
        return np.zeros(sizes, dtype.np_dtype)
    flat: list = []
    _store(data, sizes, 0, flat)
    if dtype is dtypes.bool:
        array = np.array([_as_bool(v) for v in flat], dtype=np.bool_)
    elif dtype is dtypes.uint64:
        array = np.array([_as_uint64(v) for v in flat], dtype=np.uint64)
    elif dtype in _INTEGRAL_NAMES:
        values = [v if v.__class__ is int else _as_integral(v, dtype) for v in flat]
        if dtype is not dtypes.int64 or any(not _INT64_MIN <= v <= _INT64_MAX for v in values):
            values = [_as_integral(v, dtype) for v in values]
        array = np.array(values, dtype=np.int64)
    elif dtype.is_complex:
        array = np.array([_as_complex(v) for v in flat], dtype=np.complex128)
    else:
        array = np.array([v if v.__class__ is float else _as_double(v) for v in flat], np.float64)
    with np.errstate(all="ignore"):
        return array.astype(dtype.np_dtype).reshape(sizes)
