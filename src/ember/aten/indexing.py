"""Python indexing: Tensor.__getitem__ and Tensor.__setitem__ as operator calls.

Layer: aten (the torch face calls it; it calls operators through `at`).
In: a tensor and a Python index (int, slice, None, Ellipsis, bool, tensor,
sequence, or a tuple of those), and for assignment a value (tensor or
number). Out: the same sequence of aten calls PyTorch makes: select.int,
slice.Tensor, unsqueeze, alias, then index.Tensor for advanced indices;
for assignment, copy_ / fill_.Tensor / expand / view, or index_put_.
Mirrors torch/csrc/autograd/python_variable_indexing.cpp (THPVariable_getitem,
THPVariable_setitem, applySlicing) and ATen/TensorIndexing.h (get_item,
set_item, handleDimInMultiDimIndexing, copy_to). One difference: PyTorch
passes freshly made index and value tensors through `aten::lift_fresh`,
which ember's yaml does not have, so those calls do not appear.
"""

from __future__ import annotations

import warnings

import numpy as np

from ember._c10 import dtypes
from ember._tensor import Tensor, empty_tensor, tensor_from_numpy
from ember._torch_function import overrides
from ember.aten import torch_function
from ember.aten.native import at
from ember.aten.native.factories import scalar_fill_value
from ember.aten.native.views import scalar_type_name_of

__all__ = ["index_tensor", "install", "set_index"]

PY_SSIZE_T_MAX = 2**63 - 1
PY_SSIZE_T_MIN = -(2**63)
INDEX_MIN = -(2**62)  # c10::SymInt::min_representable_int()
INDEX_MAX = -(INDEX_MIN + 1)

_SEQUENCE_WARNING = (
    "Using a non-tuple sequence for multidimensional indexing is deprecated and will be "
    "changed in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will "
    "be interpreted as tensor index, x[torch.tensor(seq)], which will result either in an "
    "error or a different result"
)


# -- classifying index objects ----------------------------------------------------------


def _is_long(obj) -> bool:
    """THPUtils_checkLong: a Python int (not bool) or a NumPy integer."""
    return (isinstance(obj, int) and not isinstance(obj, bool)) or isinstance(obj, np.integer)


def _is_sequence(obj) -> bool:
    """PySequence_Check: lists, tuples, strings, arrays, anything indexable but a dict."""
    if isinstance(obj, dict):
        return False
    return hasattr(type(obj), "__getitem__") and not isinstance(obj, Tensor)


def _tp_name(obj) -> str:
    cls = type(obj)
    return cls.__name__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__name__}"


def _unpack_slice(index: slice):
    """__PySlice_Unpack: start, stop, step as ints, with PyTorch's defaults and clipping."""
    step = 1 if index.step is None else _slice_index(index.step)
    if step == 0:
        raise ValueError("slice step cannot be zero")
    step = max(step, INDEX_MIN)
    if index.start is None:
        start = PY_SSIZE_T_MAX if step < 0 else 0
    else:
        start = max(_slice_index(index.start), INDEX_MIN)
    if index.stop is None:
        stop = INDEX_MIN if step < 0 else PY_SSIZE_T_MAX
    else:
        stop = max(_slice_index(index.stop), INDEX_MIN)
    return start, stop, step


def _slice_index(value) -> int:
    """_PyEval_SliceIndex: __index__, clamped into Py_ssize_t."""
    if not hasattr(type(value), "__index__"):
        raise TypeError("slice indices must be integers or None or have an __index__ method")
    return min(max(value.__index__(), PY_SSIZE_T_MIN), PY_SSIZE_T_MAX)


def _treat_sequence_as_tuple(index) -> bool:
    """NumPy's heuristic: a short list holding a sequence, slice, tensor, None or ... is a tuple."""
    if isinstance(index, tuple):
        return True
    if isinstance(index, (Tensor, np.ndarray)) or not _is_sequence(index):
        return False
    try:
        n = len(index)
    except TypeError:
        return False
    if n >= 32:
        return False
    for i in range(n):
        try:
            obj = index[i]
        except Exception:
            return False
        if isinstance(obj, (Tensor, slice)) or _is_sequence(obj) or obj is None or obj is ...:
            warnings.warn(_SEQUENCE_WARNING, UserWarning, stacklevel=4)
            return True
    return False


def _wrap_tuple(index) -> tuple:
    return tuple(index) if _treat_sequence_as_tuple(index) else (index,)


def _is_mask_type(dtype) -> bool:
    return dtype is dtypes.bool or dtype is dtypes.uint8


def _count_specified_dimensions(index: tuple) -> int:
    """Dims the index consumes (everything but None, Ellipsis and Python bools); -1 where
    an index tensor overrides __torch_function__ (count_specified_dimensions' sentinel)."""
    count = 0
    for obj in index:
        if isinstance(obj, Tensor):
            if obj.__class__ is not Tensor and overrides(obj):
                return -1
            count += obj.dim() if _is_mask_type(obj.dtype) else 1
        elif obj is not None and obj is not ... and obj is not True and obj is not False:
            count += 1
    return count


def _sequence_to_tensor(self, seq) -> Tensor:
    """indexing_tensor_from_data: a bool/uint8 tensor for masks, else int64."""
    try:
        array = np.asarray(seq)
    except ValueError as error:
        raise ValueError(str(error)) from None
    if not isinstance(seq, np.ndarray) and array.dtype == np.uint64:
        raise ValueError("Overflow when unpacking long long")  # Python ints past int64
    if array.dtype.kind == "O" and isinstance(_first_leaf(seq), int):
        raise ValueError("Overflow when unpacking long long")  # ... and past uint64
    if array.dtype.kind in "USOV":
        bad = _first_leaf(seq)
        raise TypeError(f"new(): invalid data type '{_tp_name(bad)}'")
    keep = array.dtype == np.bool_ or (array.dtype == np.uint8 and isinstance(seq, np.ndarray))
    if not keep:
        array = array.astype(np.int64)
    return tensor_from_numpy(array, device=self.device)


def _first_leaf(seq):
    while _is_sequence(seq) and not isinstance(seq, (str, bytes)) and len(seq):
        seq = seq[0]
    return seq


# -- the per-dimension steps (ATen/TensorIndexing.h) --------------------------------------


def _apply_select(result, dim: int, index: int, real_dim: int):
    if not -(2**63) <= index < 2**63:  # THPUtils_unpackLong
        raise ValueError("Overflow when unpacking long long")
    sizes = result._sizes
    if index == 0 and dim == 0 and not sizes:
        raise IndexError(
            "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
            "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number"
        )
    # A 0-dim tensor has no size to read: applySelect reads (*self_sizes)[dim] past the end
    # of an empty list, which in PyTorch 2.13 is the 0 of the inline size storage.
    size = sizes[dim] if sizes else 0
    if not (size > -1 - index and size > index):
        raise IndexError(
            f"index {index} is out of bounds for dimension {real_dim} with size {size}"
        )
    return at.select_int(result, dim, index)


def _apply_slice(result, dim: int, start: int, stop: int, step: int, disable_optimization: bool):
    if step <= 0:
        raise ValueError("step must be greater than zero")
    sizes = result._sizes
    if sizes and not disable_optimization and start == 0 and sizes[dim] <= stop and step == 1:
        return result
    return at.slice_Tensor(result, dim, start, stop, step)


def _bool_to_indexing_tensor(result, value: bool):
    if value:
        return at.fill__Scalar(
            at.empty_memory_format([1], dtypes.int64, None, result.device, None, None), 0.0
        )
    return at.empty_memory_format([0], dtypes.int64, None, result.device, None, None)


class _Slicing:
    """applySlicing's running state: the dim reached and the tensor indices recorded."""

    __slots__ = ("dim", "specified", "indices")

    def __init__(self, specified: int) -> None:
        self.dim = 0
        self.specified = specified
        self.indices: list = []

    def record(self, tensor) -> None:
        """recordTensorIndex: the first tensor index pads the list with None up to its dim."""
        if not self.indices:
            self.indices = [None] * self.dim + [tensor]
        else:
            self.indices.append(tensor)
        self.dim += tensor.dim() if _is_mask_type(tensor.dtype) else 1

    def skip(self, count: int) -> None:
        self.dim += count
        if self.indices:
            self.indices.extend([None] * count)


def _handle_dim(self, result, obj, real_dim: int, state: _Slicing):
    """One element of the index tuple (handleDimInMultiDimIndexing)."""
    if _is_long(obj):
        return _apply_select(result, state.dim, int(obj), real_dim)
    if isinstance(obj, slice):
        start, stop, step = _unpack_slice(obj)
        result = _apply_slice(result, state.dim, start, stop, step, False)
        state.skip(1)
        return result
    if obj is ...:
        state.skip(self.dim() - state.specified)
        return result
    if obj is None:
        result = at.unsqueeze(result, state.dim)
        state.skip(1)
        return result
    if obj is True or obj is False:
        result = at.unsqueeze(result, state.dim)
        state.record(_bool_to_indexing_tensor(result, obj))
        return result
    if isinstance(obj, Tensor):
        if obj.dim() == 0 and not (obj.dtype.is_floating_point or obj.dtype.is_complex):
            if not _is_mask_type(obj.dtype):
                index = int(at._local_scalar_dense(obj))
                return _apply_select(result, state.dim, index, real_dim)
            result = at.unsqueeze(result, state.dim)
            value = bool(at._local_scalar_dense(obj))
            state.record(_bool_to_indexing_tensor(result, value))
            return result
        state.record(obj)
        return result
    if _is_sequence(obj):
        state.record(_sequence_to_tensor(self, obj))
        return result
    if not hasattr(type(obj), "__index__") or isinstance(obj, np.bool_):
        raise IndexError(
            "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables "
            f"are valid indices (got {_tp_name(obj)})"
        )
    return _apply_select(result, state.dim, obj.__index__(), real_dim)


def _apply_slicing(self, index: tuple, specified: int):
    state = _Slicing(specified)
    if state.specified > self.dim():
        raise IndexError(f"too many indices for tensor of dimension {self.dim()}")
    result = self
    for real_dim, obj in enumerate(index):
        result = _handle_dim(self, result, obj, real_dim, state)
    indices = state.indices
    while indices and indices[-1] is None:
        indices.pop()
    return result, indices


# -- __getitem__ -------------------------------------------------------------------------


def index_tensor(self, index):
    """Tensor.__getitem__ (THPVariable_getitem)."""
    if index is None:
        return at.unsqueeze(self, 0)
    if index is ...:
        return at.alias(self)
    if _is_long(index):
        return _apply_select(self, 0, int(index), 0)
    if isinstance(index, slice):
        start, stop, step = _unpack_slice(index)
        return _apply_slice(self, 0, start, stop, step, True)
    if index is True or index is False:
        result = at.unsqueeze(self, 0)
        return at.index_Tensor(result, [_bool_to_indexing_tensor(result, index)])
    wrapped = _wrap_tuple(index)
    specified = _count_specified_dimensions(wrapped)
    if specified < 0:  # an exact tensor's index overrides: no wrapper asked it before
        return torch_function.dispatch_indexing(Tensor, "__getitem__", (self, index))
    sliced, indices = _apply_slicing(self, wrapped, specified)
    if not indices:
        return at.alias(sliced) if sliced is self else sliced
    return at.index_Tensor(sliced, indices)


# -- __setitem__ -------------------------------------------------------------------------


def _value_to_tensor(self, value) -> Tensor:
    """valueToTensor: a tensor as is; a number as a 0-dim tensor of self's dtype."""
    if isinstance(value, Tensor):
        return value
    if _is_long(value) or isinstance(value, bool):
        number = int(value)
        if not PY_SSIZE_T_MIN <= number <= PY_SSIZE_T_MAX:
            raise ValueError("Overflow when unpacking long long")
    elif isinstance(value, (float, complex)):
        number = value
    else:
        raise TypeError(f"can't assign a {_tp_name(value)} to a {_options_string(self)}")
    if self.device.type == "meta":
        return empty_tensor((), self.dtype, self.device)
    array = np.array(scalar_fill_value(number, self.dtype), dtype=self.dtype.np_dtype)
    return tensor_from_numpy(array, dtype=self.dtype)


def _options_string(self) -> str:
    device = "" if self.device.type == "cpu" else f"{self.device.type}."
    return f"torch.{device}{scalar_type_name_of(self.dtype)}Tensor"


def _slice_prefix_ones(sizes) -> list:
    """slicePrefix1sSize: drop leading size-1 dims (NumPy's rule for assigned values)."""
    first = 0
    while first < len(sizes) and sizes[first] == 1:
        first += 1
    return list(sizes[first:])


def _copy_to(dst, src) -> None:
    if dst._sizes == src._sizes:
        at.copy_(dst, src, False)
        return
    if src.dim() == 0 and src.device.type == "cpu":
        at.fill__Tensor(dst, src)
        return
    src_view = at.view(src, _slice_prefix_ones(src._sizes))
    if src_view._sizes != dst._sizes:
        src_view = at.expand(src_view, list(dst._sizes), False)
    at.copy_(dst, src_view, False)


def set_index(self, index, value) -> None:
    """Tensor.__setitem__ (THPVariable_setitem)."""
    if value.__class__ is not Tensor and isinstance(value, Tensor) and overrides(value):
        torch_function.dispatch_indexing(Tensor, "__setitem__", (self, index, value))
        return
    original = value
    value = _value_to_tensor(self, value)
    if index is False:
        return
    if index is ...:
        _copy_to(self, value)
        return
    if index is None or index is True:
        _copy_to(at.unsqueeze(self, 0), value)
        return
    if _is_long(index):
        _copy_to(_apply_select(self, 0, int(index), 0), value)
        return
    if isinstance(index, slice):
        start, stop, step = _unpack_slice(index)
        _copy_to(_apply_slice(self, 0, start, stop, step, False), value)
        return
    wrapped = _wrap_tuple(index)
    specified = _count_specified_dimensions(wrapped)
    if specified < 0:
        torch_function.dispatch_indexing(Tensor, "__setitem__", (self, index, original))
        return
    sliced, indices = _apply_slicing(self, wrapped, specified)
    if not indices:
        _copy_to(sliced, value)
        return
    value_sizes = _slice_prefix_ones(value._sizes)
    if list(value._sizes) != value_sizes:
        value = at.view(value, value_sizes)
    at.index_put_(sliced, indices, value, False)


def _delitem(self, index) -> None:
    raise TypeError("Tensor does not support deleting items")


def install(tensor_class) -> None:
    """Give `tensor_class` PyTorch's indexing: __getitem__, __setitem__, __delitem__."""
    tensor_class.__getitem__ = index_tensor
    tensor_class.__setitem__ = set_index
    # what __torch_function__ is handed: Tensor.__getitem__ / __setitem__, by name too
    index_tensor.__name__ = index_tensor.__qualname__ = "__getitem__"
    set_index.__name__ = set_index.__qualname__ = "__setitem__"
    tensor_class.__delitem__ = _delitem
    torch_function.install(tensor_class)  # the new methods consult __torch_function__
