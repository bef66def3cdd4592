"""Tensor.__reduce_ex__ and the storage's __reduce__: tensors under plain ``pickle`` and
``copy``, and Tensor subclasses (wrapper subclasses included) under ``ember.save``.

Layer: serialization (installed on Tensor and Storage from here, as _tensor_deepcopy
installs __deepcopy__). Mirrors Tensor.__reduce_ex__ / _reduce_ex_internal of
torch/_tensor.py and torch._utils' _get_obj_state / _set_obj_state. In: a tensor; out:
a reduce tuple whose callables are ember's rebuild functions, which ember.save writes
under PyTorch's names (torch._utils._rebuild_tensor_v2, _rebuild_wrapper_subclass,
torch._tensor._rebuild_from_type_v2) and plain pickle under ember's own.

Note [Tensors under plain pickle]
---------------------------------
A tensor reduces to ``_rebuild_tensor_v2(StorageRef(storage, dtype), offset, size,
stride, requires_grad, OrderedDict())``. Under ember.save the StorageRef is a persistent
id (the storage's bytes go to archive/data/<key>, once per storage); under plain pickle
it carries a copy of the storage's bytes, one per tensor, so views pickled together do
not share a storage after loading -- as in PyTorch, whose tensors each pickle a
TypedStorage of their own; under ``copy.copy`` (no pickling) the rebuilt tensor shares
the storage. A subclass instance, or a tensor with Python attributes, is
``_rebuild_from_type_v2(func, type, args, state)``: the plain rebuild (or, for a wrapper
subclass, whose storage has no data, ``_rebuild_wrapper_subclass``), then ``as_subclass``
and the attributes.
"""

from __future__ import annotations

import collections

import numpy as np

from ember._c10.device import device
from ember._c10.layout import OTHER_LAYOUTS, strided
from ember._c10.storage import Storage
from ember._tensor import Tensor
from ember._tensor_deepcopy import subclass_slots, user_state
from ember._torch_function import handle_torch_function, mode_enabled, overrides
from ember.serialization.torch_names import (
    STORAGE_NAMES,
    _rebuild_meta_tensor_no_storage,
    _rebuild_tensor_v2,
    register_weights_only_global,
)

__all__ = ["StorageRef", "install", "reduce_ex_internal"]


class StorageRef:
    """A tensor's storage with the dtype it is viewed as: under ember.save the persistent
    id's storage type; under plain pickle a copy of the storage's bytes of its own, as
    PyTorch's (each tensor pickles its own TypedStorage: views do not share after
    loading); under ``copy.copy`` the storage itself."""

    __slots__ = ("storage", "dtype")

    def __init__(self, storage, dtype) -> None:
        self.storage = storage
        self.dtype = dtype

    def __iter__(self):  # _rebuild_tensor_v2 unpacks it, as the pair persistent_load gives
        return iter((self.storage, self.dtype))

    def __reduce__(self):
        return _storage_and_dtype, (*_reduce_storage(self.storage)[1], self.dtype)


def _storage_and_dtype(raw: bytes, location: str, dtype) -> tuple:
    return _storage_from_bytes(raw, location), dtype


def _storage_from_bytes(raw: bytes, location: str) -> Storage:
    """A CPU (or meta) storage from the bytes its reduce carried."""
    if location == "meta":
        return Storage(None, len(raw), device("meta"))
    return Storage.from_array(np.frombuffer(raw, dtype=np.uint8).copy())


def _reduce_storage(storage: Storage):
    if storage.device.type == "meta":
        return _storage_from_bytes, (b"\0" * storage.nbytes, "meta")
    if storage.data is None:
        raise RuntimeError("Cannot pickle a storage without data (a wrapper subclass's)")
    return _storage_from_bytes, (storage.bytes_view().tobytes(), storage.device.type)


def _is_wrapper(self) -> bool:
    cls = type(self)
    return (
        cls is not Tensor
        and cls.__torch_dispatch__ is not Tensor.__torch_dispatch__
        and self.data_ptr() == 0
        and self.device.type != "meta"
    )


def reduce_ex_internal(self) -> tuple:
    """Tensor._reduce_ex_internal: (rebuild function, its arguments) for the data alone."""
    sizes, strides = tuple(self.shape), tuple(self.stride())
    if self.device.type == "meta":
        return _rebuild_meta_tensor_no_storage, (self.dtype, sizes, strides, self.requires_grad)
    if _is_wrapper(self):
        arguments = (
            type(self), self.dtype, sizes, strides, self.storage_offset(), self.layout,
            self.device, self.requires_grad,
        )  # fmt: skip
        return _rebuild_wrapper_subclass, arguments
    if self.device.type != "cpu":
        raise NotImplementedError(f"ember.save: tensors on {self.device} cannot be saved")
    if self.dtype.name not in STORAGE_NAMES:
        raise NotImplementedError(f"ember.save: {self.dtype} tensors cannot be saved")
    arguments = (
        StorageRef(self.untyped_storage(), self.dtype), self.storage_offset(), sizes, strides,
        self.requires_grad, collections.OrderedDict(),
    )  # fmt: skip
    metadata = {}  # torch._utils.get_tensor_metadata: the lazy math bits that are set
    if self.is_conj():
        metadata["conj"] = True
    if self.is_neg():
        metadata["neg"] = True
    return _rebuild_tensor_v2, (*arguments, metadata) if metadata else arguments


def get_obj_state(obj):
    """torch._utils._get_obj_state, which calls ``obj.__getstate__()``: a __getstate__ of the
    class's own, else object's default, read over the Python attributes alone -- the
    attributes (None when there are none), paired with the set __slots__ of a subclass
    when there are some."""
    getstate = getattr(type(obj), "__getstate__", None)
    if getstate is not None and getstate is not object.__getstate__:
        return obj.__getstate__()
    state = user_state(obj) or None
    slots = {name: getattr(obj, name) for name in subclass_slots(type(obj)) if hasattr(obj, name)}
    return (state, slots) if slots else state


def set_obj_state(obj, state):
    """torch._utils._set_obj_state."""
    if isinstance(state, tuple):
        if len(state) != 2:
            raise RuntimeError(f"Invalid serialized state: {state}")
        dict_state, slots_state = state
    else:
        dict_state, slots_state = state, None
    if dict_state:
        for name, value in dict_state.items():
            setattr(obj, name, value)
    if slots_state:
        for name, value in slots_state.items():
            setattr(obj, name, value)
    return obj


def __reduce_ex__(self, proto):
    """Tensor.__reduce_ex__."""
    state = get_obj_state(self)
    if type(self) is Tensor and not state:
        return reduce_ex_internal(self)  # a plain tensor with no Python attributes
    if overrides(self) or mode_enabled():
        return handle_torch_function(Tensor.__reduce_ex__, (self,), self, proto)
    func, arguments = reduce_ex_internal(self)
    return _rebuild_from_type_v2, (func, type(self), arguments, state)


def _rebuild_from_type_v2(func, new_type, arguments, state):
    """torch._tensor._rebuild_from_type_v2."""
    made = func(*arguments)
    if type(made) is not new_type:
        made = made.as_subclass(new_type)
    if getattr(made.__class__, "__setstate__", None) is not None:
        made.__setstate__(state)
    else:
        made = set_obj_state(made, state)
    return made


def _rebuild_wrapper_subclass(
    cls, dtype, size, stride, storage_offset, layout, device, requires_grad
):  # fmt: skip
    """torch._utils._rebuild_wrapper_subclass."""
    return Tensor._make_wrapper_subclass(
        cls, size, strides=stride, dtype=dtype, storage_offset=storage_offset, layout=layout,
        device=device, requires_grad=requires_grad,
    )  # fmt: skip


def _get_layout(name: str):
    """torch.serialization._get_layout: a layout by its name in a checkpoint."""
    found = {"torch.strided": strided, **{f"torch.{n}": v for n, v in OTHER_LAYOUTS.items()}}
    if name not in found:
        raise RuntimeError(f"ember.load: unknown layout {name!r}")
    return found[name]


def install() -> None:
    __reduce_ex__.__qualname__ = "Tensor.__reduce_ex__"
    Tensor.__reduce_ex__ = __reduce_ex__
    Storage.__reduce__ = _reduce_storage
    register_weights_only_global(_rebuild_from_type_v2, "torch._tensor._rebuild_from_type_v2")
    register_weights_only_global(
        _rebuild_wrapper_subclass, "torch._utils._rebuild_wrapper_subclass"
    )
    register_weights_only_global(_get_layout, "torch.serialization._get_layout")
