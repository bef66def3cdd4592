"""Tensor constructors from Python data, memory formats, and the conversion methods of Tensor.

Layer: torch face. In: the arguments of `torch.tensor` / `as_tensor` /
`from_numpy` (bound by the argument parser as PyTorch binds them: `data` is a
PyObject*, dtype and device are checked). Out: new tensors (`tensor`,
`as_tensor`), tensors sharing a NumPy array's memory (`from_numpy`, whose
storage cannot grow), and `install(Tensor)`, which adds the hand-written
methods of _tensor_conversions.py. Nested Python data is read by
_tensor_new.py. Mirrors torch/csrc/utils/tensor_new.cpp
(internal_new_from_data, tensor_ctor, as_tensor) and tensor_numpy.cpp
(tensor_from_numpy).
"""

from __future__ import annotations

import warnings

import numpy as np

from ember._c10.device import CPU
from ember._c10.dispatch_key import DispatchKey
from ember._c10.dispatch_key_set import functionality_bit
from ember._c10.memory_format import (  # noqa: F401 (torch.memory_format and its values)
    channels_last,
    channels_last_3d,
    contiguous_format,
    memory_format,
    preserve_format,
)
from ember._c10.storage import Storage
from ember._c10.tensor_impl import contiguous_strides
from ember._c10.tls import local_state
from ember._tensor import Tensor, empty_tensor
from ember._tensor_new import check_data, compute_sizes, infer_dtype, numpy_dtype, values_array
from ember.aten.binding import check_target_device
from ember.aten.native import at
from ember.aten.native.layout import preserved_strides
from ember.aten.python_arg_parser import PythonArgParser
from ember.aten.torch_function import overridable

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


_MAX_DIMS = 64
_NEGATIVE_STRIDES = (
    "At least one stride in the given numpy array is negative, and tensors with negative "
    "strides are not currently supported. (You can probably work around this by making a copy "
    "of your array  with array.copy().) "
)
# Note [What a mode sees of torch.tensor]
# ---------------------------------------
# PyTorch builds a tensor from Python data below every dispatch key, then hands
# it to `aten::lift_fresh` (tensor_new.cpp, tensor_numpy.cpp), so a dispatch mode
# sees `lift_fresh` for torch.tensor, as_tensor and from_numpy; the conversions
# that follow are `Tensor.to` calls (`_to_copy(dtype=, device=)`), and a Tensor
# given as data is detached first. lift_fresh returns its argument, so ember
# takes those dispatched steps only while the Python key is in the TLS include
# set (a mode is active, facts §8.1) or the data is a __torch_dispatch__
# subclass; otherwise it builds the same result directly. Functionalization needs the
# step too (lift_fresh wraps the new tensor), so it is taken while Functionalize or a
# functorch layer (FrontMode) is in the include set.
_PYTHON_KEY = functionality_bit(DispatchKey.Python)
_LIFT_KEYS = (
    _PYTHON_KEY
    | functionality_bit(DispatchKey.Functionalize)
    | functionality_bit(DispatchKey.FuncTorchDynamicLayerFrontMode)
)


def _modes_watch() -> bool:
    return bool(local_state.included & _PYTHON_KEY)


def _lifted(result: Tensor) -> Tensor:
    return at.lift_fresh(result) if local_state.included & _LIFT_KEYS else result


def _to_copy(source: Tensor, dtype, device) -> Tensor:
    """source.to(device, dtype, copy=True) as PyTorch's constructors call it."""
    return at._to_copy(source, dtype, None, device, None, False, None)


# -- NumPy ---------------------------------------------------------------------------


def _check_numpy_strides(array: np.ndarray) -> None:
    if any(s < 0 for s in array.strides):
        raise ValueError(_NEGATIVE_STRIDES)


def from_numpy(*args, **kwargs) -> Tensor:
    """A CPU tensor sharing ``array``'s memory (torch.from_numpy, a METH_O function)."""
    qualified = "torch._VariableFunctionsClass.from_numpy()".replace("torch", "ember", 1)
    if kwargs:
        raise TypeError(f"{qualified} takes no keyword arguments")
    if len(args) != 1:
        raise TypeError(f"{qualified} takes exactly one argument ({len(args)} given)")
    (array,) = args
    if not isinstance(array, np.ndarray):
        kind = type(array)
        name = (
            kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"
        )
        raise TypeError(f"expected np.ndarray (got {name})")
    return _tensor_from_numpy(array, warn_if_not_writable=True)


def _tensor_from_numpy(array: np.ndarray, warn_if_not_writable: bool) -> Tensor:
    """tensor_from_numpy (torch/csrc/utils/tensor_numpy.cpp): the array's memory as a tensor."""
    dtype = numpy_dtype(array)
    _check_numpy_strides(array)
    itemsize = array.itemsize
    if any(s % itemsize for s in array.strides):
        raise ValueError(
            "given numpy array strides not a multiple of the element byte size. Copy the numpy "
            "array to reallocate the memory."
        )
    if warn_if_not_writable and not array.flags.writeable:
        warnings.warn(
            "The given NumPy array is not writable, and PyTorch does not support non-writable "
            "tensors. This means writing to this tensor will result in undefined behavior. You "
            "may want to copy the array to protect its data or make it writable before "
            "converting it to a tensor. This type of warning will be suppressed for the rest "
            "of this program.",
            UserWarning,
            stacklevel=3,
        )
    strides = tuple(s // itemsize for s in array.strides)
    base, offset = _base_buffer(array)
    storage = Storage.from_array(base)
    storage.resizable = False  # NumPy owns the memory (tensor_from_numpy)
    result = Tensor._from_storage(storage, array.shape, strides, offset, dtype, CPU)
    result._array = array
    return _lifted(result)


def _base_buffer(array: np.ndarray):
    """A C-contiguous 1-d alias spanning ``array``'s elements (the storage), and offset 0."""
    if array.size == 0:
        return np.empty(0, dtype=array.dtype), 0
    itemsize = array.itemsize
    span = 1 + sum((n - 1) * (s // itemsize) for n, s in zip(array.shape, array.strides))
    return np.lib.stride_tricks.as_strided(array, (span,), (itemsize,)), 0


# -- nested Python data (tensor_new.cpp) ----------------------------------------------


def _check_requires_grad(result: Tensor, requires_grad: bool) -> Tensor:
    if requires_grad:
        if not (result.dtype.is_floating_point or result.dtype.is_complex):
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients"
            )
        result.requires_grad = True
    return result


def _from_array(array: np.ndarray, dtype, device) -> Tensor:
    if device.type != "cpu" and device.type != "meta":
        check_target_device(device)  # once the data was read, as internal_new_from_data
    if device.type == "meta":
        return empty_tensor(array.shape, dtype, device)
    if array.dtype != dtype.np_dtype:
        with np.errstate(all="ignore"):
            array = array.astype(dtype.np_dtype)
    return Tensor._wrap(np.array(array, order="C", copy=True), dtype)


def _copy_preserving_layout(source: Tensor, dtype, device) -> Tensor:
    """source.to(device, dtype, copy=True): preserve_format keeps a dense layout (a
    transposed tensor or array stays transposed, an empty one keeps its strides); any
    other gets infer_dense_strides."""
    strides = preserved_strides(source)
    if source.device.type != "meta" and strides == contiguous_strides(source._sizes):
        return _from_array(source.ndarray(), dtype, device)  # the common case
    result = empty_tensor(source._sizes, dtype, device, strides)
    if device.type != "meta" and source.device.type != "meta":
        with np.errstate(all="ignore"):
            result.ndarray()[...] = source.ndarray().astype(dtype.np_dtype)
    return result


def _new_from_data(data, dtype, device, type_inference: bool, warning: str) -> Tensor:
    """internal_new_from_data: always copies; infers the dtype when asked."""
    if isinstance(data, Tensor):
        warnings.warn(warning, UserWarning, stacklevel=3)
        target = dtype if dtype is not None else data.dtype
        if device is None:
            device = data.device
        if _modes_watch() or getattr(data, "_python_dispatch", False):
            return _to_copy(at.detach(data), target, device)
        if data.device.type == "meta" and device.type != "cpu" and device.type != "meta":
            check_target_device(device)
        return _copy_preserving_layout(data, target, device)
    if device is None:
        device = CPU
    if isinstance(data, np.ndarray):
        _check_numpy_strides(data)
        source = numpy_dtype(data)  # tensor_from_numpy first: a str array is refused
        target = dtype if dtype is not None else source
        shared = _tensor_from_numpy(data, warn_if_not_writable=False)
        if _modes_watch():
            return _to_copy(shared, target, device)
        if data.flags.c_contiguous and data.size:
            return _from_array(data, target, device)
        return _copy_preserving_layout(shared, target, device)
    check_data(data)
    sizes = compute_sizes(data)
    target = infer_dtype(data) if type_inference else dtype
    return _lifted(_from_array(values_array(data, sizes, target), target, device))


_tensor_parser = PythonArgParser(
    [
        "tensor(PyObject* data, *, ScalarType dtype=None, Device? device=None, "
        "bool pin_memory=False, bool requires_grad=False)"
    ]
)
_as_tensor_parser = PythonArgParser(
    ["as_tensor(PyObject* data, *, ScalarType dtype=None, Device? device=None)"]
)
_COPY_WARNING = (
    "To copy construct from a tensor, it is recommended to use "
    "sourceTensor.detach().clone() or sourceTensor.detach().clone().requires_grad_(True), "
    "rather than {}(sourceTensor)."
)


def _device_argument(device):
    if device is None:
        return None
    return CPU if device.type == "cpu" else device


@overridable(_tensor_parser)
def tensor(*args, **kwargs) -> Tensor:
    """torch.tensor(data, *, dtype, device, pin_memory, requires_grad): a copy of ``data``,
    with PyTorch's dtype inference."""
    if len(args) == 1 and not kwargs:  # torch.tensor(data): nothing else to check
        data, dtype, device, requires_grad = args[0], None, None, False
    else:
        data, dtype, device, _pin_memory, requires_grad = _tensor_parser.parse(args, kwargs)[1]
    result = _new_from_data(
        data,
        dtype,
        _device_argument(device),
        type_inference=dtype is None,
        warning=_COPY_WARNING.format("torch.tensor"),
    )
    return _check_requires_grad(result, requires_grad)


@overridable(_as_tensor_parser)
def as_tensor(*args, **kwargs) -> Tensor:
    """torch.as_tensor(data, *, dtype, device): share memory with a tensor or NumPy array
    when nothing must change."""
    data, dtype, device = _as_tensor_parser.parse(args, kwargs)[1]
    device = _device_argument(device)
    if isinstance(data, Tensor):  # var.to(device, dtype): a dispatch mode sees both
        if dtype is None and device is None:
            return data
        return data.to(device or data.device, dtype or data.dtype)
    if isinstance(data, np.ndarray) and (device is None or device.type == "cpu"):
        shared = from_numpy(data)
        return shared if dtype is None or dtype is shared.dtype else shared.to(dtype)
    return _new_from_data(data, dtype, device, type_inference=dtype is None, warning="")


from ember._tensor_conversions import install  # noqa: E402  (its methods use the constructors)
