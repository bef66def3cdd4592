"""Strided geometry: contiguous strides, element counts, storage spans, layout tests.

Layer: _c10 (imports nothing). In: sizes and strides in elements, as tuples.
Out: the facts about that geometry c10's TensorImpl computes
(c10/core/TensorImpl.h, c10/core/Contiguity.h), for tensor_impl.py, the meta
functions and the kernels; shape_text writes sizes as c10's messages do.
"""

from __future__ import annotations

_CONTIGUOUS_STRIDES: dict[tuple, tuple] = {}


def contiguous_strides(sizes: tuple) -> tuple:
    """Row-major strides in elements (size-0 and size-1 dims count as 1), cached."""
    found = _CONTIGUOUS_STRIDES.get(sizes)
    if found is None:
        strides = []
        step = 1
        for size in reversed(sizes):
            strides.append(step)
            step *= size if size > 1 else 1
        found = tuple(reversed(strides))
        if len(_CONTIGUOUS_STRIDES) > 4096:
            _CONTIGUOUS_STRIDES.clear()
        _CONTIGUOUS_STRIDES[sizes] = found
    return found


def shape_text(sizes) -> str:
    """Sizes as c10 prints an IntArrayRef in messages: ``[2, 3]``."""
    return "[" + ", ".join(str(s) for s in sizes) + "]"


def compute_numel(sizes: tuple) -> int:
    numel = 1
    for size in sizes:
        numel *= size
    return numel


def storage_span(sizes: tuple, strides: tuple, storage_offset: int) -> int:
    """Elements a storage needs for this geometry (0 when any size is 0)."""
    if 0 in sizes:
        return 0
    return storage_offset + 1 + sum((size - 1) * stride for size, stride in zip(sizes, strides))


def is_contiguous_strides(sizes, strides) -> bool:
    if _CONTIGUOUS_STRIDES.get(sizes) == strides:
        return True  # exactly row-major (the common case, one dict lookup)
    if 0 in sizes:
        return True
    expected = 1
    for size, stride in zip(reversed(sizes), reversed(strides)):
        if size != 1:
            if stride != expected:
                return False
            expected *= size
    return True


def is_channels_last(sizes, strides, name) -> bool:
    dims = 4 if name == "channels_last" else 5
    if len(sizes) != dims:
        return False
    order = (1, *range(dims - 1, 1, -1), 0)  # fastest-varying first: C, W, H, (D), N
    if 0 in sizes:
        return True
    expected = 1
    for d in order:
        size = sizes[d]
        if size != 1:
            if strides[d] != expected:
                return False
            expected *= size
    return True


def dense_order(sizes, strides):
    """The dims from outermost to innermost when the strides are a permutation of a
    contiguous layout (transposed, channels-last...); None otherwise."""
    order = sorted(range(len(sizes)), key=lambda d: -strides[d])
    expected = 1
    for d in reversed(order):
        if sizes[d] != 1:
            if strides[d] != expected:
                return None
            expected *= sizes[d]
    return order


def inverse_permutation(order):
    inverse = [0] * len(order)
    for position, d in enumerate(order):
        inverse[d] = position
    return inverse
