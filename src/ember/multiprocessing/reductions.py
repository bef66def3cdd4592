"""StorageWeakRef: a weak reference to a tensor's storage, compared by the storage's identity.

Layer: multiprocessing (imports only _c10). Mirrors StorageWeakRef of
torch/multiprocessing/reductions.py. In: a storage (``t.untyped_storage()``) or a handle
from ``_weak_ref``. Out: an object equal to (and hashed as) every weak reference to the same
storage, which says whether that storage has died (Note [Storage handles]).
"""

from __future__ import annotations

from ember._c10.storage import Storage

__all__ = ["StorageWeakRef"]


class StorageWeakRef:
    """A weak reference to a storage; ``cdata`` is the storage's handle, an int."""

    __slots__ = ("cdata",)

    def __init__(self, storage) -> None:
        self.cdata = storage._weak_ref()

    @classmethod
    def from_weakref(cls, cdata: int) -> StorageWeakRef:
        """The weak reference for a handle another one (or ``_weak_ref``) gave."""
        ref = cls.__new__(cls)
        ref.cdata = cdata
        return ref

    def expired(self) -> bool:
        """Whether the storage has died (no tensor or storage object holds it any more)."""
        return Storage._expired(self.cdata)

    def __hash__(self) -> int:
        return self.cdata

    def __eq__(self, other) -> bool:
        # As PyTorch's: any object with the same ``cdata`` is equal; one without raises
        # AttributeError, as there.
        return self is other or self.cdata == other.cdata
