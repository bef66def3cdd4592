"""The primitive view kernels: view, _unsafe_view, alias, detach, as_strided, and resize_.

Layer: aten/native (device-generic: cpu and meta alike). In: the full schema
argument list (Note [Dispatcher calling convention]). Out: tensors that share
their input's storage, with a version counter of their own (`new_view`; the
ADInplaceOrView kernels give a view its base's counter), or, for resize_, the
input itself with new geometry. Mirrors ATen/native/TensorShape.cpp (view,
alias, as_strided_tensorimpl, detach, view_dtype), ATen/InferSize.h (infer_size),
ATen/TensorUtils.cpp (computeStride) and ATen/native/Resize.cpp (resize_).

Note [Views go through as_strided]
----------------------------------
The restriding views of PyTorch (transpose, permute, expand, select, slice,
squeeze, unsqueeze, diagonal) compute sizes and strides and then call
`self.as_strided(...)` through the dispatcher, so a dispatch trace shows
`aten::transpose.int` with a nested `aten::as_strided`. ember's kernels in
native/restride.py do the same through `at.as_strided`. `view`, `alias`,
`detach` and `_unsafe_view` build their result directly (PyTorch's
alias_with_sizes_and_strides), with no nested call.
"""

from __future__ import annotations

import math
from operator import mul

from ember._c10.dtypes import scalar_type_name
from ember._c10.storage import checked_numel
from ember._c10.tensor_impl import contiguous_strides, new_view
from ember.aten.native.common import as_dtype
from ember.aten.native.layout import memory_format_name, strides_for
from ember.aten.native.resize import resize_impl

__all__ = [
    "_unsafe_view",
    "alias",
    "lift_fresh",
    "as_strided",
    "detach",
    "resize_",
    "view",
    "view_dtype",
]

INT64_MAX = 2**63 - 1


def fmt_ints(values) -> str:
    """An IntArrayRef as c10 prints it: [2, 3]."""
    return "[" + ", ".join(str(int(v)) for v in values) + "]"


def type_string(tensor) -> str:
    """Tensor::toString(): torch.FloatTensor for the legacy cpu types, else CPUBoolType..."""
    name = scalar_type_name_of(tensor.dtype)
    if tensor.device.type == "cpu" and name in _LEGACY_CPU_NAMES:
        return f"torch.{name}Tensor"
    return ("CPU" if tensor.device.type == "cpu" else "Meta") + name + "Type"


_LEGACY_CPU_NAMES = {"Float", "Double", "Half", "Long", "Int", "Short", "Char", "Byte"}


def scalar_type_name_of(dtype) -> str:
    try:
        return scalar_type_name(dtype)
    except KeyError:
        return dtype.name.capitalize().replace("Uint", "UInt")


# -- shape arithmetic ---------------------------------------------------------


def infer_size(shape, numel: int) -> tuple:
    """infer_size: `shape` with its one -1 replaced, or PyTorch's error."""
    shape = tuple(int(s) for s in shape)
    newsize = 1
    infer_dim = None
    for dim, size in enumerate(shape):
        if size == -1:
            if infer_dim is not None:
                raise RuntimeError("only one dimension can be inferred")
            infer_dim = dim
        elif size >= 0:
            newsize *= size
        else:
            raise RuntimeError(
                f"invalid shape dimension {size} at index {dim} of shape {fmt_ints(shape)}"
            )
    if infer_dim is not None and newsize > 0 and numel % newsize == 0:
        return shape[:infer_dim] + (numel // newsize,) + shape[infer_dim + 1 :]
    if numel != newsize:
        raise RuntimeError(f"shape '{fmt_ints(shape)}' is invalid for input of size {numel}")
    if infer_dim is not None:
        # numel == newsize == 0: the -1 could be anything.
        raise RuntimeError(
            f"cannot reshape tensor of 0 elements into shape {fmt_ints(shape)} because the "
            "unspecified dimension size -1 can be any value and is ambiguous"
        )
    return shape


def compute_stride(oldshape, oldstride, newshape):
    """computeStride: strides that view (oldshape, oldstride) as newshape, or None.

    Dims of the old tensor are cut into chunks that are contiguous among
    themselves; each chunk must be covered exactly by consecutive new dims.
    """
    oldshape, newshape = tuple(oldshape), tuple(newshape)  # (cat and stack pass lists)
    if (
        oldshape
        and tuple(oldstride) == contiguous_strides(oldshape)
        and 0 not in oldshape
        and math.prod(oldshape) == math.prod(newshape)  # joining.py asks of other sizes
    ):
        return contiguous_strides(newshape)  # one chunk: what chunked_strides finds
    return chunked_strides(oldshape, oldstride, newshape)


def chunked_strides(oldshape, oldstride, newshape):
    """computeStride's walk over the chunks (compute_stride's general case)."""
    if len(oldshape) == 0:
        return (1,) * len(newshape)
    numel = 1
    for size in oldshape:
        numel *= size
    if numel == 0:
        if tuple(oldshape) == tuple(newshape):
            return tuple(oldstride)
        strides = [0] * len(newshape)
        for d in range(len(newshape) - 1, -1, -1):
            strides[d] = 1 if d == len(newshape) - 1 else max(newshape[d + 1], 1) * strides[d + 1]
        return tuple(strides)

    newstride = [0] * len(newshape)
    view_d = len(newshape) - 1
    chunk_base_stride = oldstride[-1]
    tensor_numel = 1
    view_numel = 1
    for tensor_d in range(len(oldshape) - 1, -1, -1):
        tensor_numel *= oldshape[tensor_d]
        chunk_ends = tensor_d == 0 or (
            oldshape[tensor_d - 1] != 1
            and oldstride[tensor_d - 1] != tensor_numel * chunk_base_stride
        )
        if chunk_ends:
            while view_d >= 0 and (view_numel < tensor_numel or newshape[view_d] == 1):
                newstride[view_d] = view_numel * chunk_base_stride
                view_numel *= newshape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base_stride = oldstride[tensor_d - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return None
    return tuple(newstride)


def _view_geometry(self, size):
    shape = infer_size(size, self.numel())
    strides = compute_stride(self._sizes, self._strides, shape)
    if strides is None:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
        )
    return shape, strides


# -- kernels --------------------------------------------------------------------


def view(self, size):
    shape, strides = _view_geometry(self, size)
    return new_view(self, shape, strides, self._storage_offset)


def _unsafe_view(self, size):
    # Same geometry as view; the op is not a view, so no ADInplaceOrView kernel
    # marks the result as one (reshape's copy path returns it).
    shape, strides = _view_geometry(self, size)
    return new_view(self, shape, strides, self._storage_offset)


def alias(self):
    return new_view(self, self._sizes, self._strides, self._storage_offset)


def lift_fresh(self):
    """The tensor itself: a fresh tensor from Python data, shown to dispatch modes."""
    return self


def detach(self):
    # A new tensor over the same storage that does not require grad.
    return new_view(self, self._sizes, self._strides, self._storage_offset)


def as_strided(self, size, stride, storage_offset):
    sizes, strides, offset = checked_strided_geometry(self, size, stride, storage_offset)
    return new_view(self, sizes, strides, offset)


def checked_strided_geometry(self, size, stride, storage_offset):
    """setStrided's checks: the geometry must fit the storage (not checked on meta)."""
    # restride kernels pass tuples of Python ints; anything else is converted
    sizes = size if size.__class__ is tuple else tuple(map(int, size))
    strides = stride if stride.__class__ is tuple else tuple(map(int, stride))
    offset = self._storage_offset if storage_offset is None else int(storage_offset)
    if len(sizes) != len(strides):
        raise RuntimeError("mismatch in length of strides and shape")
    if strides and min(strides) < 0:
        raise RuntimeError(
            "as_strided: Negative strides are not supported at the moment, "
            f"got strides: {fmt_ints(strides)}"
        )
    if 0 not in sizes:  # has elements
        if not sizes or min(sizes) > 0:  # (the common case) every term below is >= 0
            if self.device.type != "meta":
                span = 1 + sum(map(mul, strides, sizes)) - sum(strides)
                _check_span(self, sizes, strides, offset, span)
        else:
            if self.device.type != "meta":
                _check_in_bounds_for_storage(self, sizes, strides, offset)
            if offset >= 0:
                raise RuntimeError("numel: integer multiplication overflow")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    return sizes, strides, offset


def _check_in_bounds_for_storage(self, sizes, strides, offset) -> None:
    """checkInBoundsForStorage (ATen/native/Resize.h), for a geometry with elements."""
    span = 1
    for size, stride in zip(sizes, strides):
        term = stride * (size - 1)
        if term < 0:  # computed unsigned in ATen: a negative term overflows
            raise RuntimeError(
                f"Storage size calculation overflowed with sizes={fmt_ints(sizes)} "
                f"and strides={fmt_ints(strides)}"
            )
        span += term
    _check_span(self, sizes, strides, offset, span)


def _check_span(self, sizes, strides, offset, span) -> None:
    """The bytes a geometry of ``span`` elements from ``offset`` needs fit the storage."""
    itemsize = self.dtype.itemsize
    needed = (span + offset) * itemsize
    available = self.storage().nbytes
    if needed > available:
        raise RuntimeError(
            f"setStorage: sizes {fmt_ints(sizes)}, strides {fmt_ints(strides)}, storage offset "
            f"{offset}, and itemsize {itemsize} requiring a storage size of {needed} are out of "
            f"bounds for storage of size {available}"
        )


def view_dtype(self, dtype):
    """The same bytes read as another dtype; the last dim grows or shrinks by the size ratio."""
    dtype = as_dtype(dtype)
    old, new = self.dtype.itemsize, dtype.itemsize
    sizes = list(self._sizes)
    strides = list(self._strides)
    offset = self._storage_offset
    what = f"to view {scalar_type_name_of(self.dtype)} as {scalar_type_name_of(dtype)}"
    what += " (different element sizes)"
    if old == new:
        pass
    elif not sizes:
        raise RuntimeError(f"self.dim() cannot be 0 {what}")
    elif old > new:
        ratio = old // new
        if strides[-1] != 1:
            raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {strides[-1]}")
        strides = [s * ratio for s in strides[:-1]] + [1]
        sizes[-1] *= ratio
        offset *= ratio
    else:
        ratio = new // old
        if sizes[-1] % ratio:
            raise RuntimeError(
                f"self.size(-1) must be divisible by {ratio} {what}, but got {sizes[-1]}"
            )
        if offset % ratio:
            raise RuntimeError(
                f"self.storage_offset() must be divisible by {ratio} {what}, but got {offset}"
            )
        if strides[-1] != 1:
            raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {strides[-1]}")
        for i, stride in enumerate(strides[:-1]):
            if stride % ratio:
                raise RuntimeError(
                    f"self.stride({i}) must be divisible by {ratio} {what}, but got {stride}"
                )
        strides = [s // ratio for s in strides[:-1]] + [1]
        sizes[-1] //= ratio
        offset //= ratio
    result = new_view(self, sizes, strides, offset)
    result.dtype = dtype
    result._array = None  # the base's NumPy view reads the old dtype: rebuild from the bytes
    return result


# -- resize_ --------------------------------------------------------------------


def resize_(self, size, memory_format):
    sizes = tuple(int(s) for s in size)
    checked_numel(sizes)  # c10's numel overflow check, before anything changes
    format_name = memory_format_name(memory_format, None)
    if format_name == "preserve_format":
        raise RuntimeError("Unsupported memory formatPreserve")
    strides = strides_for(sizes, format_name) if format_name is not None else None
    if sizes != self._sizes:
        resize_impl(self, sizes)
    if strides is not None:
        self._set_sizes_strides(sizes, strides)
    return self
