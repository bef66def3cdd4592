"""Resizing a tensor in place, and the rules for resizing an out= argument.

Layer: aten/native. In: a tensor and the sizes (and strides) it must take.
Out: the same tensor object with its new geometry, its storage grown when it
is too small. Mirrors ATen/native/Resize.cpp (resize_output_check,
resize_output, resize_impl_cpu_, maybe_resize_storage_cpu).

Note [Resizing out= arguments]
------------------------------
An out= tensor whose shape differs from the result's is resized: silently
when it has no elements, with PyTorch's deprecation UserWarning otherwise.
Resizing keeps the tensor's storage and storage offset (so its views still
see what the kernel writes) and grows the storage when the new geometry
does not fit, as resize_ does. TensorIterator never resizes an output that
is also one of its inputs ("read-write"): it raises "output with shape
[...] doesn't match the broadcast shape [...]" (StructuredMeta.check_read_write
and its TensorIterator override). Other kernels do resize such an input
before they read it, and PyTorch then computes from the resized memory;
ember cannot give that result, so it raises instead (see
aten/structured.py).
"""

from __future__ import annotations

import gc
import sys

import numpy as np

from ember._c10.storage import translate_memory_error
from ember._c10.tensor_impl import TensorImpl, contiguous_strides, shape_text, storage_span
from ember._c10.warning import torch_warn

__all__: list[str] = []

_INT64_MAX = 2**63 - 1

_RESIZED = (
    "An output with one or more elements was resized since it had shape {old}, which does not "
    "match the required output shape {new}. This behavior is deprecated, and in a future "
    "PyTorch release outputs will not be resized unless they have zero elements. You can "
    "explicitly reuse an out tensor t by resizing it, inplace, to zero elements with "
    "t.resize_(0)."
)


def check_input_not_resized(out, sizes: tuple) -> None:
    """An out= tensor that is also an input, outside TensorIterator: PyTorch's kernel would
    resize it before reading it; ember refuses (Note [Resizing out= arguments]). A meta
    tensor has nothing to read, and is resized."""
    if out._sizes != sizes and out.device.type != "meta":
        raise RuntimeError(
            "unsupported operation: the out= tensor is also an input of the operation and would "
            f"be resized from shape {shape_text(out._sizes)} to {shape_text(sizes)} before it "
            "is read. Please clone() the tensor before performing the operation."
        )


def resize_output_check(out, sizes: tuple) -> bool:
    """Whether ``out`` must be resized to ``sizes``; warns when it has elements."""
    if out._sizes == sizes:
        return False
    if out.numel() != 0:
        message = _RESIZED.format(old=shape_text(out._sizes), new=shape_text(sizes))
        torch_warn(message, "aten/src/ATen/native/Resize.cpp:30")
    return True


def resize_output(out, sizes) -> bool:
    """at::native::resize_output: resize ``out`` (contiguously) when its shape is not ``sizes``."""
    sizes = tuple(sizes)
    if not resize_output_check(out, sizes):
        return False
    resize_impl(out, sizes)
    return True


def resize_impl(t, sizes: tuple, strides: tuple | None = None) -> None:
    """resize_impl_cpu_: new sizes (contiguous strides unless given), the storage offset kept,
    the storage grown (never shrunk) to fit. The storage grows first, so a refused or failed
    allocation leaves the tensor as it was."""
    if strides is None:
        strides = contiguous_strides(sizes)
    _maybe_grow_storage(t, sizes, strides)
    t._set_sizes_strides(sizes, strides)


def _maybe_grow_storage(t, sizes: tuple, strides: tuple) -> None:
    """maybe_resize_storage_cpu: nothing for an empty geometry; else grow the bytes to fit,
    with PyTorch's errors for an overflowing size, a storage NumPy shares and a failed
    allocation (Note [Allocation errors] in _c10/storage.py)."""
    if 0 in sizes:
        return
    needed = storage_span(sizes, strides, t._storage_offset) * t.dtype.itemsize
    if needed > _INT64_MAX:
        raise RuntimeError(f"Storage size calculation overflowed with sizes={shape_text(sizes)}")
    storage = t.storage()
    if needed <= storage.nbytes:
        return
    storage.check_resizable(needed)
    if storage.data is not None:
        try:
            grown = np.zeros(needed, dtype=np.uint8)
        except MemoryError as error:
            raise translate_memory_error(error) from None
        grown[: storage.nbytes] = storage.bytes_view()
        storage.data = grown
        storage._data_ptr = None
        _forget_old_buffer(storage)
    storage.nbytes = needed
    t._array = None


# the references to a storage only its resized tensor holds, seen from _forget_old_buffer:
# that tensor's slot, _maybe_grow_storage's local, this function's argument, getrefcount's
_OWN_REFERENCES = 4


def _forget_old_buffer(storage) -> None:
    """Every other tensor on `storage` drops its NumPy view of the old buffer, as views of
    one StorageImpl see its new memory in PyTorch. Only a storage that other tensors hold
    pays the search (the referrers of one object): a fresh out= tensor's does not."""
    if sys.getrefcount(storage) <= _OWN_REFERENCES:
        return
    for holder in gc.get_referrers(storage):
        if isinstance(holder, TensorImpl) and holder._storage is storage:
            holder._array = None
