"""Tensor constructors from Python data, memory formats, and the conversion methods of Tensor.

Layer: torch face. In: nested Python lists / tuples / numbers / bools, NumPy
arrays and scalars, tensors. Out: new tensors (`tensor`, `as_tensor`,
`Tensor.new_tensor`), tensors sharing a NumPy array's memory (`from_numpy`),
and `install(Tensor)`, which adds the hand-written methods PyTorch keeps in
its Python layer: `to` (dispatching to the aten `to.*` overloads), `float()`
... `bool()`, `cpu()`, `type()`, `new_tensor`. Mirrors
torch/csrc/utils/tensor_new.cpp (compute_sizes, infer_scalar_type,
recursive_store, internal_new_from_data), tensor_numpy.cpp (tensor_from_numpy)
and python_variable_methods.cpp (THPVariable_to, dispatch_to, the type
conversion methods).
"""

from __future__ import annotations

import warnings

import numpy as np

from ember._c10 import dtypes
from ember._c10.device import CPU, as_device
from ember._c10.storage import Storage
from ember._tensor import Tensor, empty_tensor

__all__ = [
    "tensor",
    "as_tensor",
    "from_numpy",
    "memory_format",
    "contiguous_format",
    "preserve_format",
    "channels_last",
    "channels_last_3d",
    "install",
]


class memory_format:  # noqa: N801 (PyTorch's name)
    """torch.memory_format: four named singletons, printed as `ember.<name>`."""

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return "ember." + self._name

    def __reduce__(self):
        return self._name


contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")

_MAX_DIMS = 64
_NUMPY_TYPES = (
    "float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint64, "
    "uint32, uint16, uint8, and bool"
)
_NEGATIVE_STRIDES = (
    "At least one stride in the given numpy array is negative, and tensors with negative "
    "strides are not currently supported. (You can probably work around this by making a copy "
    "of your array  with array.copy().) "
)
_INTEGRAL_NAMES = {
    dtypes.uint8: "uint8", dtypes.int8: "int8", dtypes.int16: "int16",
    dtypes.int32: "int32", dtypes.int64: "int64",
}  # fmt: skip


# -- NumPy ---------------------------------------------------------------------------


def _numpy_dtype(array: np.ndarray):
    found = dtypes._BY_NUMPY.get(array.dtype)
    if found is None:
        raise TypeError(
            f"can't convert np.ndarray of type {type(array.dtype.type()).__module__}."
            f"{array.dtype.type.__name__}. The only supported types are: {_NUMPY_TYPES}."
        )
    return found


def _check_numpy_strides(array: np.ndarray) -> None:
    if any(s < 0 for s in array.strides):
        raise ValueError(_NEGATIVE_STRIDES)


def from_numpy(array) -> Tensor:
    """A CPU tensor sharing ``array``'s memory (torch.from_numpy)."""
    if not isinstance(array, np.ndarray):
        kind = type(array)
        name = (
            kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"
        )
        raise TypeError(f"expected np.ndarray (got {name})")
    dtype = _numpy_dtype(array)
    _check_numpy_strides(array)
    itemsize = array.itemsize
    if any(s % itemsize for s in array.strides):
        raise ValueError(
            "given numpy array strides not a multiple of the element byte size. Copy the numpy "
            "array to reallocate the memory."
        )
    if not array.flags.writeable:
        warnings.warn(
            "The given NumPy array is not writable, and PyTorch does not support non-writable "
            "tensors. This means writing to this tensor will result in undefined behavior. You "
            "may want to copy the array to protect its data or make it writable before "
            "converting it to a tensor. This type of warning will be suppressed for the rest "
            "of this program.",
            UserWarning,
            stacklevel=2,
        )
    strides = tuple(s // itemsize for s in array.strides)
    base, offset = _base_buffer(array)
    result = Tensor._from_storage(
        Storage.from_array(base), array.shape, strides, offset, dtype, CPU
    )
    result._array = array
    return result


def _base_buffer(array: np.ndarray):
    """A C-contiguous 1-d alias spanning ``array``'s elements (the storage), and offset 0."""
    if array.size == 0:
        return np.empty(0, dtype=array.dtype), 0
    itemsize = array.itemsize
    span = 1 + sum((n - 1) * (s // itemsize) for n, s in zip(array.shape, array.strides))
    return np.lib.stride_tricks.as_strided(array, (span,), (itemsize,)), 0


# -- nested Python data (tensor_new.cpp) ----------------------------------------------


def _is_sequence(obj) -> bool:
    if isinstance(obj, (list, tuple, range, str, np.ndarray)):
        return True
    if isinstance(obj, Tensor):
        return obj.dim() > 0
    return (
        hasattr(type(obj), "__getitem__")
        and hasattr(type(obj), "__len__")
        and not isinstance(obj, dict)
    )


def _compute_sizes(data) -> list[int]:
    sizes: list[int] = []
    obj = data
    while _is_sequence(obj):
        length = len(obj)
        sizes.append(length)
        if len(sizes) > _MAX_DIMS:
            raise ValueError(f"too many dimensions '{type(obj).__name__}'")
        if length == 0:
            break
        obj = obj[0]
    return sizes


def _infer_dtype(obj):
    if isinstance(obj, np.generic):  # before float: np.float64 subclasses float
        return _numpy_dtype(np.asarray(obj))
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
        return _numpy_dtype(obj)
    if _is_sequence(obj) and not isinstance(obj, str):
        if len(obj) == 0:
            return dtypes.get_default_dtype()
        found = None
        for item in obj:
            if item is obj:
                raise TypeError("new(): self-referential lists are incompatible")
            item_dtype = _infer_dtype(item)
            found = item_dtype if found is None else dtypes.promote_types(found, item_dtype)
            if found is dtypes.complex128:
                return found
        return found
    raise RuntimeError(f"Could not infer dtype of {type(obj).__name__}")


def _store(obj, sizes: list[int], dim: int, flat: list) -> None:
    """recursive_store: check each sequence's length and collect the scalars in order."""
    if dim == len(sizes):
        flat.append(_scalar(obj))
        return
    if not _is_sequence(obj) or isinstance(obj, str):
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
                stacklevel=4,
            )
        _store(item, sizes, dim + 1, flat)


def _scalar(obj):
    if isinstance(obj, Tensor):
        if obj.numel() != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return obj.item()
    if isinstance(obj, (np.generic, np.ndarray)):
        return obj.item()
    return obj


def _integral(value, dtype) -> int:
    """unpackIntegral: checked_convert with the short dtype name."""
    from ember.aten.native.factories import _overflows

    if isinstance(value, float):
        if _overflows(value, dtype):
            raise RuntimeError(
                f"value cannot be converted to type {_INTEGRAL_NAMES[dtype]} without overflow"
            )
        return int(value)
    value = int(value)
    if not -(2**63) <= value < 2**63:
        raise ValueError("Overflow when unpacking long long")
    if _overflows(value, dtype):
        raise RuntimeError(
            f"value cannot be converted to type {_INTEGRAL_NAMES[dtype]} without overflow"
        )
    return value


def _values_array(flat: list, sizes: list[int], dtype) -> np.ndarray:
    if dtype is dtypes.bool:
        array = np.array([bool(v) for v in flat], dtype=np.bool_)
    elif dtype in _INTEGRAL_NAMES:
        array = np.array([_integral(v, dtype) for v in flat], dtype=np.int64)
    elif dtype.is_complex:
        array = np.array([complex(v) for v in flat], dtype=np.complex128)
    else:
        array = np.array([float(v) for v in flat], dtype=np.float64)
    with np.errstate(all="ignore"):
        return array.astype(dtype.np_dtype).reshape(sizes)


def _check_requires_grad(result: Tensor, requires_grad: bool) -> Tensor:
    if requires_grad:
        if not (result.dtype.is_floating_point or result.dtype.is_complex):
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients"
            )
        result.requires_grad = True
    return result


def _from_array(array: np.ndarray, dtype, device) -> Tensor:
    if device.type == "meta":
        return empty_tensor(array.shape, dtype, device)
    if array.dtype != dtype.np_dtype:
        with np.errstate(all="ignore"):
            array = array.astype(dtype.np_dtype)
    return Tensor._wrap(np.array(array, order="C", copy=True), dtype)


def _new_from_data(data, dtype, device, type_inference: bool, warning: str) -> Tensor:
    """internal_new_from_data: always copies; infers the dtype when asked."""
    if isinstance(data, Tensor):
        warnings.warn(warning, UserWarning, stacklevel=3)
        target = dtype if dtype is not None else data.dtype
        if device is None:
            device = data.device
        if data.device.type == "meta":
            return empty_tensor(data._sizes, target, device)
        return _from_array(data.ndarray(), target, device)
    if device is None:
        device = CPU
    if isinstance(data, np.ndarray):
        _check_numpy_strides(data)
        target = dtype if dtype is not None else _numpy_dtype(data)
        return _from_array(data, target, device)
    sizes = _compute_sizes(data)
    target = _infer_dtype(data) if type_inference else dtype
    flat: list = []
    _store(data, sizes, 0, flat)
    return _from_array(_values_array(flat, sizes, target), target, device)


def _dtype_argument(dtype):
    from ember.aten.native.common import as_dtype

    return None if dtype is None else as_dtype(dtype)


def _device_argument(device):
    if device is None:
        return None
    device = as_device(device)
    return CPU if device.type == "cpu" else device


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False) -> Tensor:
    """torch.tensor: a new tensor holding a copy of ``data``, with PyTorch's dtype inference."""
    dtype = _dtype_argument(dtype)
    result = _new_from_data(
        data,
        dtype,
        _device_argument(device),
        type_inference=dtype is None,
        warning=(
            "To copy construct from a tensor, it is recommended to use "
            "sourceTensor.detach().clone() or sourceTensor.detach().clone().requires_grad_(True), "
            "rather than torch.tensor(sourceTensor)."
        ),
    )
    return _check_requires_grad(result, requires_grad)


def as_tensor(data, dtype=None, device=None) -> Tensor:
    """torch.as_tensor: share memory with a tensor or NumPy array when nothing must change."""
    dtype = _dtype_argument(dtype)
    device = _device_argument(device)
    if isinstance(data, Tensor):
        return data.to(device=device, dtype=dtype) if (dtype or device) else data
    if isinstance(data, np.ndarray) and (device is None or device.type == "cpu"):
        shared = from_numpy(data)
        return shared if dtype is None or dtype is shared.dtype else shared.to(dtype)
    return _new_from_data(data, dtype, device, type_inference=dtype is None, warning="")


from ember._tensor_conversions import install  # noqa: E402  (its methods use the constructors)
