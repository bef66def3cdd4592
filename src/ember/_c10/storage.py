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

import errno
import itertools
import os
import weakref

import numpy as np

from .device import CPU, META
from .naming import prefix

# Note [Allocation errors]
# PyTorch sizes a storage in uint64 arithmetic and refuses any product that wraps or
# passes INT64_MAX ("Storage size calculation overflowed with sizes=[...]",
# aten/EmptyTensor.cpp), before it asks the allocator; the CPU allocator then fails
# with c10's enforce message (c10/core/impl/alloc_cpu.cpp). NumPy says neither: it
# raises ValueError("array is too big") or its MemoryError. ember asks NumPy first
# (the common case pays nothing) and, when NumPy refuses, computes the error PyTorch
# would give: ``storage_nbytes`` / ``strided_storage_nbytes`` for the overflow,
# ``out_of_memory`` for the allocator's message. The generated bindings translate a
# MemoryError from any NumPy computation with ``out_of_memory`` too.
_STORAGE_MAX = 2**63 - 1
_U64 = 2**64


def _text(values) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"


def checked_numel(sizes) -> int:
    """c10::safe_compute_numel: the element count in uint64 arithmetic (a negative size is a
    huge one), refused when a partial product wraps or the count passes INT64_MAX."""
    product = 1
    for size in sizes:
        product *= size if size >= 0 else size + _U64
        if product >= _U64:
            raise RuntimeError("numel: integer multiplication overflow")
    if product > _STORAGE_MAX:
        raise RuntimeError("numel: integer multiplication overflow")
    return product


def storage_nbytes(sizes, itemsize: int) -> int:
    """computeStorageNbytesContiguous: the bytes of a contiguous tensor, or PyTorch's error."""
    product, overflowed = 1, False
    for size in sizes:
        product *= size
        if product >= _U64:  # c10::safe_multiply_u64 wraps: a later zero does not undo it
            overflowed = True
            product %= _U64
    nbytes = product * itemsize
    if overflowed or nbytes > _STORAGE_MAX:
        raise RuntimeError(f"Storage size calculation overflowed with sizes={_text(sizes)}")
    return nbytes


def strided_storage_nbytes(sizes, strides, itemsize: int, storage_offset: int = 0) -> int:
    """computeStorageNbytes: the bytes a strided geometry needs, or PyTorch's error."""
    if 0 in sizes:
        return 0
    span = storage_offset + 1 + sum((n - 1) * s for n, s in zip(sizes, strides))
    nbytes = span * itemsize
    if nbytes > _STORAGE_MAX or min(strides, default=0) < 0:
        raise RuntimeError(
            f"Storage size calculation overflowed with sizes={_text(sizes)} and "
            f"strides={_text(strides)}"
        )
    return nbytes


def out_of_memory(nbytes: int) -> RuntimeError:
    """DefaultCPUAllocator's error for a failed allocation of ``nbytes``."""
    return RuntimeError(
        "[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate "
        f"memory: you tried to allocate {nbytes} bytes. Error code {errno.ENOMEM} "
        f"({os.strerror(errno.ENOMEM)})"
    )


def translate_memory_error(error: MemoryError) -> RuntimeError:
    """A NumPy MemoryError (it knows the bytes it wanted) as the allocator's error."""
    nbytes = getattr(error, "_total_size", None)
    if nbytes is None:
        return RuntimeError(f"DefaultCPUAllocator: can't allocate memory: {error}")
    return out_of_memory(nbytes)


NUMPY_MAX_DIMS = 64


def too_many_dims(ndim: int) -> RuntimeError:
    """ember's refusal of a tensor NumPy cannot hold (PyTorch's tensors have no such limit)."""
    return RuntimeError(
        f"ember cannot hold a tensor of {ndim} dimensions: NumPy's arrays have at most "
        f"{NUMPY_MAX_DIMS}"
    )


def allocation_error(error: Exception, shape, itemsize: int) -> RuntimeError:
    """PyTorch's error for an ``np.empty(shape)`` that raised ``error`` (Note [Allocation errors])."""
    if isinstance(error, MemoryError):
        return translate_memory_error(error)
    if len(shape) > NUMPY_MAX_DIMS:
        return too_many_dims(len(shape))
    nbytes = storage_nbytes(shape, itemsize)  # raises PyTorch's overflow error
    return RuntimeError(
        f"ember cannot hold a tensor of sizes {_text(shape)} ({nbytes} bytes): NumPy's "
        "arrays are limited to sizes whose product fits in int64"
    )


def numpy_empty(shape, np_dtype, itemsize: int) -> np.ndarray:
    """``np.empty(shape)``, with PyTorch's errors where NumPy refuses."""
    try:
        return np.empty(shape, np_dtype)
    except (MemoryError, ValueError) as error:
        raise allocation_error(error, shape, itemsize) from None


# Note [Storage handles]
# PyTorch names a StorageImpl by its address (``storage._cdata``); a weak reference to
# it (StorageWeakRef) is that number, kept valid by the impl's weak count, so the address
# is never reused while a weak reference lives. ember's storages are Python objects whose
# ids can be reused once they die, so a storage's handle is a serial number, drawn the
# first time ``_cdata`` is read (an allocation pays nothing), and never given twice.
# ``_weak_ref`` enters the storage in a table of weak references by handle, which
# answers ``_expired`` for a handle whose storage has died (the entry goes with it).
_HANDLES = itertools.count(1)
_WEAKLY_REFERENCED: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


class Storage:
    """A flat buffer: ``data`` (NumPy array, or None on meta), ``nbytes``, ``device``."""

    __slots__ = ("data", "nbytes", "device", "_data_ptr", "resizable", "_handle", "__weakref__")

    def __init__(self, data, nbytes, device) -> None:
        self.data = data
        self.nbytes = nbytes
        self.device = device
        self._data_ptr = None
        self.resizable = True  # False once NumPy shares the memory (from_numpy, numpy())

    @classmethod
    def from_array(cls, array: np.ndarray) -> Storage:
        """A cpu storage over ``array``'s memory (``array`` must be C-contiguous)."""
        storage = object.__new__(cls)
        storage.data = array
        storage.nbytes = array.nbytes
        storage.device = CPU
        storage._data_ptr = None
        storage.resizable = True
        return storage

    def check_resizable(self, nbytes: int) -> None:
        """resize_bytes_cpu's check: growing a storage NumPy shares is refused."""
        if nbytes > self.nbytes and not self.resizable:
            raise RuntimeError("Trying to resize storage that is not resizable")

    @classmethod
    def allocate(cls, nbytes: int, device) -> Storage:
        """Fresh, uninitialised memory (zeros, in fact) on cpu; no memory on meta."""
        if device.type == "meta":
            return cls(None, nbytes, META)
        return cls.from_array(numpy_empty((nbytes,), np.uint8, 1))

    def data_ptr(self) -> int:
        """The address of the first byte: stable for the storage's lifetime (0 on meta)."""
        ptr = self._data_ptr
        if ptr is None:
            if self.data is None:
                # THPStorage_dataPtr: no data off meta (a wrapper subclass's storage) is an
                # invalid Python storage, unless it holds no bytes.
                if self.device.type != "meta" and self.nbytes != 0:
                    raise RuntimeError(
                        "Attempted to access the data pointer on an invalid python storage."
                    )
                return 0
            ptr = self._data_ptr = self.data.__array_interface__["data"][0]
        return ptr

    @property
    def _cdata(self) -> int:
        """The storage's handle (Note [Storage handles]): equal for every tensor sharing it."""
        try:
            return self._handle
        except AttributeError:
            handle = self._handle = next(_HANDLES)
            return handle

    def _weak_ref(self) -> int:
        """THPStorage_weakRef: the handle, now answerable by ``_expired``."""
        handle = self._cdata
        _WEAKLY_REFERENCED[handle] = self
        return handle

    @staticmethod
    def _expired(handle: int) -> bool:
        """Whether the storage a ``_weak_ref`` handle names has died."""
        return handle not in _WEAKLY_REFERENCED

    @staticmethod
    def _free_weak_ref(handle: int) -> None:
        """THPStorage_freeWeakRef: ember's table drops an entry when its storage dies, so
        releasing a weak reference has nothing to do."""

    def bytes_view(self) -> np.ndarray:
        """The storage as a flat uint8 array (shares memory)."""
        if self.data is None:
            raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")
        return self.data.reshape(-1).view(np.uint8)

    def __repr__(self) -> str:
        """UntypedStorage's printout (torch/storage.py): its bytes, one a line, then a footer."""
        info = f"[{prefix()}.storage.UntypedStorage(device={self.device}) of size {self.nbytes}]"
        if self.device.type == "meta":
            return "...\n" + info
        if self.data is None and self.nbytes:
            raise RuntimeError(_NOT_ALLOCATED)
        values = self.bytes_view()[: self.nbytes].tolist() if self.nbytes else []
        return " " + "\n ".join(str(value) for value in values) + "\n" + info

    __str__ = __repr__


# A storage's public name is PyTorch's (it is what ``t.untyped_storage()`` gives there).
Storage.__name__ = Storage.__qualname__ = "UntypedStorage"
Storage.__module__ = "ember.storage"

_NOT_ALLOCATED = (
    "The tensor has a non-zero number of elements, but its data is not allocated yet.\n"
    "If you're using torch.compile/export/fx, it is likely that we are erroneously tracing "
    "into a custom kernel. To fix this, please wrap the custom kernel into an opaque custom "
    "op. Please see the following for details: "
    "https://pytorch.org/tutorials/advanced/custom_ops_landing_page.html\n"
    "If you're using Caffe2, Caffe2 uses a lazy allocation, so you will need to call "
    "mutable_data() or raw_mutable_data() to actually allocate memory."
)
