"""Memory formats and dense strides shared by factories, copies and the overlap checks.

Layer: aten/native. In: sizes, strides, memory_format arguments (None, the
MemoryFormat enum number, or an `ember.memory_format` object). Out: the
strides a new tensor gets, and whether a layout is non-overlapping and dense.
Mirrors c10/core/MemoryFormat.h (get_channels_last_strides_*),
c10/core/Contiguity.h and ATen/ExpandUtils.cpp (infer_dense_strides).
Overlap checks: aten/memory_overlap.py; resizing: native/resize.py.
"""

from __future__ import annotations

from ember._c10.device import CPU, META, as_device, check_linked
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
    if device.type == "cpu":
        return CPU
    if device.type != "meta":
        check_linked(device.type)  # See Note [Devices ember has no backend for]
    return META


def check_sizes(sizes) -> tuple:
    """check_size_nonnegative: PyTorch's error for a negative dimension."""
    sizes = tuple(int(s) for s in sizes)
    for size in sizes:
        if size < 0:
            text = shape_text(sizes)
            raise RuntimeError(f"Trying to create tensor with negative dimension {size}: {text}")
    return sizes
