"""set_: a tensor takes another storage (or another tensor's storage and geometry) in place.

Layer: aten/native (CPU and Meta; the offset-taking Tensor overload is a composite). In:
`self` and a storage or a tensor, with an offset, sizes and strides for the long forms.
Out: `self`, which now views that storage (its dtype, key set and identity unchanged; the
ADInplaceOrView kernel bumps its version). Mirrors set_, set_storage_cpu_ /
set_storage_meta__symint, set_tensor_, set__symint and set_cpu_ of
ATen/native/TensorShape.cpp, with checkSetStorage (ATen/native/Resize.h).

A cpu tensor set to a geometry its storage does not hold grows that storage, as
resize_impl_cpu_ grows it (so every tensor on the storage sees the larger memory); a meta
storage, which holds no bytes, grows its byte count as PyTorch's does. Every check runs before `self` changes, and a
refused growth puts `self` back as it was.
"""

from __future__ import annotations

from ember._c10.storage import Storage, checked_numel
from ember.aten.native import at
from ember.aten.native.resize import resize_impl

__all__ = [
    "set_",
    "set__source_Storage",
    "set__source_Storage_storage_offset",
    "set__source_Tensor",
    "set__source_Tensor_storage_offset",
]


def _check_set_storage(self, source: Storage, storage_offset: int, sizes, strides) -> None:
    """checkSetStorage's checks (and resize_impl's of the geometry), before anything changes."""
    own = self.storage().device
    if own != source.device:
        raise RuntimeError(
            f'Attempted to set the storage of a tensor on device "{own}" to a storage on '
            f'different device "{source.device}".  This is no longer allowed; the devices must '
            "match."
        )
    if storage_offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {storage_offset}")
    if strides is not None and len(strides) != len(sizes):
        raise RuntimeError(f"unequal size length ({len(sizes)}) and stride length ({len(strides)})")
    checked_numel(sizes)


def set__source_Storage_storage_offset(self, source, storage_offset, size, stride):
    sizes = tuple(int(s) for s in size)
    # An empty stride list is the schema's default: contiguous strides.
    strides = tuple(int(s) for s in stride) if len(stride) else None
    offset = int(storage_offset)
    _check_set_storage(self, source, offset, sizes, strides)
    before = (self._storage, self._array, self._sizes, self._strides, self._storage_offset)
    self._storage = source
    self._array = None
    self._storage_offset = offset
    try:
        resize_impl(self, sizes, strides)  # a meta storage grows its byte count only
    except BaseException:
        self._storage, self._array, self._sizes, self._strides, self._storage_offset = before
        raise
    return self


def set__source_Storage(self, source):
    """The whole storage, as a flat tensor of as many elements as it has bytes for."""
    return set__source_Storage_storage_offset(
        self, source, 0, [source.nbytes // self.dtype.itemsize], []
    )


def set__source_Tensor(self, source):
    """`source`'s storage, offset, sizes and strides (nothing to do for `self` itself)."""
    if source is self:
        return self
    return set__source_Storage_storage_offset(
        self, source.storage(), source._storage_offset, source._sizes, source._strides
    )


def set__source_Tensor_storage_offset(self, source, storage_offset, size, stride):
    """CompositeImplicitAutograd: the storage overload, through the dispatcher."""
    return at.set__source_Storage_storage_offset(
        self, source.storage(), storage_offset, size, stride
    )


def set_(self):
    """A fresh, empty storage on `self`'s device: sizes [0], strides [1]."""
    return set__source_Storage_storage_offset(
        self, Storage.allocate(0, self.storage().device), 0, [0], []
    )
