"""Memory formats, dense strides and memory-overlap checks shared by factories and copies.

Layer: aten/native. In: sizes, strides, memory_format arguments (None, the
MemoryFormat enum number, or an `ember.memory_format` object). Out: the
strides a new tensor gets, or PyTorch's overlap errors. Mirrors
c10/core/MemoryFormat.h (get_channels_last_strides_*), ATen/ExpandUtils.cpp
(infer_dense_strides) and ATen/MemoryOverlap.cpp.
"""

from __future__ import annotations

from ember._c10.device import CPU, META, as_device
from ember._c10.tensor_impl import contiguous_strides, is_contiguous_strides, shape_text
from ember.aten.tensor_iterator import output_strides

__all__: list[str] = []

# c10::MemoryFormat, by enum number.
MEMORY_FORMATS = ("contiguous_format", "preserve_format", "channels_last", "channels_last_3d")


def memory_format_name(value, default: str = "preserve_format") -> str:
    """The name of a MemoryFormat argument; None means ``default``."""
    if value is None:
        return default
    if isinstance(value, int):
        return MEMORY_FORMATS[value]
    name = getattr(value, "_name", None)
    return name if name is not None else repr(value).rpartition(".")[2]


def strides_for(sizes: tuple, name: str) -> tuple:
    """The strides of a fresh tensor in memory format ``name`` (contiguous or channels-last)."""
    if name == "channels_last":
        if len(sizes) != 4:
            raise RuntimeError("required rank 4 tensor to use channels_last format")
        order = (1, 3, 2, 0)
    elif name == "channels_last_3d":
        if len(sizes) != 5:
            raise RuntimeError("required rank 5 tensor to use channels_last_3d format")
        order = (1, 4, 3, 2, 0)
    else:
        return contiguous_strides(tuple(sizes))
    strides = [0] * len(sizes)
    running = 1
    for dim in order:
        strides[dim] = running
        running *= max(sizes[dim], 1)
    return tuple(strides)


def is_non_overlapping_and_dense(t) -> bool:
    """is_non_overlapping_and_dense: empty tensors are; else _compute_non_overlapping_and_dense
    (c10/core/Contiguity.h), where dims of size < 2 sort last and end the check."""
    sizes, strides = t._sizes, t._strides
    if is_contiguous_strides(sizes, strides) or 0 in sizes:
        return True  # row-major is dense; an empty tensor counts as contiguous
    if len(sizes) == 1:
        return sizes[0] < 2 or strides[0] == 1
    order = sorted(
        range(len(sizes)), key=lambda d: (sizes[d] < 2, strides[d] if sizes[d] >= 2 else 0)
    )
    required = 1
    for d in order:
        if sizes[d] < 2:
            return True
        if strides[d] != required:
            return False
        required *= sizes[d]
    return True


def preserved_strides(t) -> tuple:
    """preserve_format: ``t``'s strides when dense, else infer_dense_strides."""
    if is_non_overlapping_and_dense(t):
        return t._strides
    return tuple(output_strides([t], t._sizes))


def like_strides(t, memory_format) -> tuple:
    """The strides `empty_like(t, memory_format=...)` gives its result."""
    name = memory_format_name(memory_format)
    if name == "preserve_format":
        return preserved_strides(t)
    return strides_for(t._sizes, name)


def target_device(device, default=CPU):
    """A Device argument as the canonical device a tensor reports (cpu:0 is cpu)."""
    if device is None:
        return default
    device = as_device(device)
    return CPU if device.type == "cpu" else META


def check_sizes(sizes) -> tuple:
    """check_size_nonnegative: PyTorch's error for a negative dimension."""
    sizes = tuple(int(s) for s in sizes)
    for size in sizes:
        if size < 0:
            text = shape_text(sizes)
            raise RuntimeError(f"Trying to create tensor with negative dimension {size}: {text}")
    return sizes


# -- memory overlap (ATen/MemoryOverlap.cpp) ---------------------------------

_INTERNAL_OVERLAP = (
    "unsupported operation: more than one element of the written-to tensor refers to a single "
    "memory location. Please clone() the tensor before performing the operation."
)
_PARTIAL_OVERLAP = (
    "unsupported operation: some elements of the input tensor and the written-to tensor refer to "
    "a single memory location. Please clone() the tensor before performing the operation."
)


def assert_no_internal_overlap(t) -> None:
    if is_non_overlapping_and_dense(t):
        return
    for size, stride in zip(t._sizes, t._strides):
        if size > 1 and stride == 0:
            raise RuntimeError(_INTERNAL_OVERLAP)


def _byte_range(t):
    start = t._storage_offset * t.dtype.itemsize
    return start, start + t.numel() * t.dtype.itemsize


def assert_no_partial_overlap(a, b) -> None:
    """get_overlap_status(a, b) == Partial raises; full (same elements) and none pass."""
    if a is b or a.numel() == 0 or b.numel() == 0:
        return
    if not (is_non_overlapping_and_dense(a) and is_non_overlapping_and_dense(b)):
        return
    if a.storage() is not b.storage():
        return
    a_begin, a_end = _byte_range(a)
    b_begin, b_end = _byte_range(b)
    if a_begin == b_begin and a_end == b_end:
        if a._strides != b._strides:
            raise RuntimeError(_PARTIAL_OVERLAP)
        return
    if a_begin < b_end and b_begin < a_end:
        raise RuntimeError(_PARTIAL_OVERLAP)


def resize_to(out, sizes) -> None:
    """Give ``out`` fresh contiguous memory of ``sizes`` (resize_ of an out= argument)."""
    from ember._tensor import empty_tensor

    sizes = tuple(sizes)
    if out._sizes == sizes:
        return
    storage = out._storage  # None: a fresh NumPy result, resizable
    if storage is not None:
        numel = 1
        for size in sizes:
            numel *= size
        storage.check_resizable((out._storage_offset + numel) * out.dtype.itemsize)
    fresh = empty_tensor(sizes, out.dtype, out.device)
    adopt = getattr(out, "_adopt_storage_of", None)
    if adopt is not None:
        adopt(fresh)
        return
    out._storage = fresh.storage()
    out._set_sizes_strides(sizes, fresh._strides, 0)


def resize_output(out, sizes) -> None:
    """at::native::resize_output: warn when resizing a non-empty `out`, then resize it."""
    import warnings

    sizes = tuple(sizes)
    if out._sizes == sizes:
        return
    if out.numel() != 0:
        old = shape_text(out._sizes)
        new = shape_text(sizes)
        warnings.warn(
            f"An output with one or more elements was resized since it had shape {old}, which "
            f"does not match the required output shape {new}. This behavior is deprecated, and "
            "in a future PyTorch release outputs will not be resized unless they have zero "
            "elements. You can explicitly reuse an out tensor t by resizing it, inplace, to zero "
            "elements with t.resize_(0).",
            UserWarning,
            stacklevel=3,
        )
    resize_to(out, sizes)
