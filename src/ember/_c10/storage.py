"""Storage: the memory a tensor and its views share.

Layer: _c10 (imports nothing of ember outside _c10). Mirrors c10/core/StorageImpl.h.
In: a C-contiguous NumPy array (cpu) or a byte count (meta). Out: a flat buffer
that TensorImpl views with sizes, strides and an offset.

A cpu storage holds one C-contiguous NumPy array that owns (or keeps alive) the
memory; its dtype and shape do not matter, only its bytes: tensors view it
through ``np.ndarray(..., buffer=storage.data, ...)``, so a storage can be
viewed as any dtype. A meta storage has ``data is None`` and only ``nbytes``.
"""

from __future__ import annotations

import numpy as np

from .device import CPU, META


class Storage:
    """A flat buffer: ``data`` (NumPy array, or None on meta), ``nbytes``, ``device``."""

    __slots__ = ("data", "nbytes", "device", "_data_ptr", "__weakref__")

    def __init__(self, data, nbytes, device) -> None:
        self.data = data
        self.nbytes = nbytes
        self.device = device
        self._data_ptr = None

    @classmethod
    def from_array(cls, array: np.ndarray) -> Storage:
        """A cpu storage over ``array``'s memory (``array`` must be C-contiguous)."""
        storage = object.__new__(cls)
        storage.data = array
        storage.nbytes = array.nbytes
        storage.device = CPU
        storage._data_ptr = None
        return storage

    @classmethod
    def allocate(cls, nbytes: int, device) -> Storage:
        """Fresh, uninitialised memory (zeros, in fact) on cpu; no memory on meta."""
        if device.type == "meta":
            return cls(None, nbytes, META)
        return cls.from_array(np.empty(nbytes, dtype=np.uint8))

    def data_ptr(self) -> int:
        """The address of the first byte: stable for the storage's lifetime (0 on meta)."""
        ptr = self._data_ptr
        if ptr is None:
            ptr = 0 if self.data is None else self.data.__array_interface__["data"][0]
            self._data_ptr = ptr
        return ptr

    def bytes_view(self) -> np.ndarray:
        """The storage as a flat uint8 array (shares memory)."""
        if self.data is None:
            raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")
        return self.data.reshape(-1).view(np.uint8)

    def __repr__(self) -> str:
        return f"Storage(nbytes={self.nbytes}, device='{self.device}')"
