"""copy.deepcopy of a tensor: Tensor.__deepcopy__ (installed on Tensor).

Layer: the constructors (beside _tensor_subclass; imports _c10 and _tensor; calls the
operators through the tensor's own methods). Mirrors Tensor.__deepcopy__ of
torch/_tensor.py: a graph leaf only; a storage-less tensor (a wrapper subclass, a meta
tensor) is copied by ``clone()``, any other by a copy of its storage (one copy per storage
in the memo, so tensors sharing one share the copy) set into ``new_empty([])``; then
requires_grad, ``.grad``, a subclass's slots and its Python attributes follow, and a
subclass whose clone or new_empty gives another class gets PyTorch's error. In: the
tensor and the memo. Out: the copy.

One difference: the storage is set into the new tensor directly, where PyTorch calls
``set_`` (which a ``__torch_dispatch__`` of a non-wrapper subclass would see).
"""

from __future__ import annotations

import copy
import copyreg

from ember._c10.storage import Storage
from ember._c10.thread_state import per_thread
from ember._tensor import Tensor

__all__ = ["install", "subclass_slots", "user_state"]

_NOT_A_LEAF = (
    "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol "
    "at the moment.  If you were attempting to deepcopy a module, this may be because of a "
    "torch.nn.utils.weight_norm usage, see https://github.com/pytorch/pytorch/pull/103001"
)
_WRAPPER_CLONE = (
    "The default implementation of __deepcopy__() for wrapper subclasses only works for "
    "subclass types that implement clone() and for which cloning returns another instance of "
    "the same subclass. You should either properly implement clone() for your subclass or "
    "override __deepcopy__() if it is intended behavior for clone() to return an instance of "
    "a different type."
)
_NEW_EMPTY = (
    "The default implementation of __deepcopy__() for non-wrapper subclasses only works for "
    "subclass types that implement new_empty() and for which that function returns another "
    "instance of the same subclass. You should either properly implement new_empty() for "
    "your subclass or override __deepcopy__() if it is intended behavior for new_empty() to "
    "return an instance of a different type."
)
_TYPE_CHANGED = (
    "Type of deepcopy result does not match the type of the source tensor. If you encounter "
    "this, please open an issue on PyTorch's GitHub."
)


def _storage_copy(storage: Storage, memo: dict) -> Storage:
    """UntypedStorage.__deepcopy__: one copy per storage, kept in the memo's "torch" table."""
    copies = memo.setdefault("torch", {})
    found = copies.get(id(storage))
    if found is not None:
        return found[1]
    if storage.data is None:
        fresh = Storage(None, storage.nbytes, storage.device)
    else:
        fresh = Storage.from_array(storage.data.copy())
    copies[id(storage)] = (storage, fresh)  # the original stays alive with its id
    return fresh


def user_state(tensor) -> dict:
    """The tensor's Python attributes: its __dict__ without the fields ember keeps there
    (each of them has a class-level default on Tensor)."""
    return {k: v for k, v in tensor.__dict__.items() if not hasattr(Tensor, k)}


def subclass_slots(cls) -> list:
    """copyreg._slotnames of the classes below ember.Tensor, without the slots ember's
    TensorImpl keeps the tensor's data in."""
    own = set(copyreg._slotnames(Tensor))
    return [name for name in copyreg._slotnames(cls) if name not in own]


def _copy_data(self, memo):
    storage_less = self.device.type == "meta" or (type(self) is not Tensor and self.data_ptr() == 0)
    if storage_less:
        new_tensor = self.clone()
        if type(new_tensor) is not type(self):
            raise RuntimeError(_WRAPPER_CLONE)
        return new_tensor
    new_storage = _storage_copy(self.storage(), memo)
    new_tensor = self.new_empty([])
    if type(new_tensor) is not type(self):
        raise RuntimeError(_NEW_EMPTY)
    new_tensor._storage = new_storage  # set_(storage, offset, size, stride), which
    new_tensor._set_sizes_strides(self._sizes, self._strides, self._storage_offset)
    if not new_tensor._is_inference:
        new_tensor.version_counter().version += 1  # bumps the version as an in-place op
    if self.is_conj():  # the copied storage holds the unresolved values
        new_tensor = new_tensor.conj_physical()
    if self.is_neg():
        new_tensor = new_tensor.neg()
    return new_tensor


def deepcopy(self, memo):
    """Tensor.__deepcopy__ (torch/_tensor.py)."""
    if not self.is_leaf:
        raise RuntimeError(_NOT_A_LEAF)
    if id(self) in memo:
        return memo[id(self)]
    state = per_thread.state
    enabled = state.grad_mode
    state.grad_mode = False  # torch.no_grad()
    try:
        new_tensor = _copy_data(self, memo)
        if self.requires_grad:
            new_tensor.requires_grad_()
        if self.grad is not None:
            new_tensor.grad = self.grad.__deepcopy__(memo)
        if type(self) is not Tensor:
            if type(new_tensor) is not type(self):
                raise RuntimeError(_TYPE_CHANGED)
            for slot in subclass_slots(type(self)):
                if hasattr(self, slot):
                    setattr(new_tensor, slot, copy.deepcopy(getattr(self, slot), memo))
        new_tensor.__dict__.update(copy.deepcopy(user_state(self), memo))
    finally:
        state.grad_mode = enabled
    memo[id(self)] = new_tensor
    return new_tensor


def install(tensor_class) -> None:
    deepcopy.__name__ = deepcopy.__qualname__ = "__deepcopy__"
    tensor_class.__deepcopy__ = deepcopy
