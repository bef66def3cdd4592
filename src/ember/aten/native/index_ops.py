"""CPU kernels of index_add, index_copy, index_fill, scatter_add, scatter_reduce.two,
take, put_, masked_select, nonzero and argwhere.

Layer: aten/native. In: a StructuredMeta and the arguments with the out tensor (the
structured ops), or the full schema argument list. Out: values computed by NumPy
(repeated indices accumulate through ufunc.at, in index order). index_fill and put are
CompositeExplicitAutograd: a clone, then the in-place kernel. Mirrors
ATen/native/TensorAdvancedIndexing.cpp, IndexKernel.cpp and ScatterGatherKernel.cpp.
"""

from __future__ import annotations

import numpy as np

from ember._c10 import dtypes
from ember._tensor import empty_tensor
from ember.aten.memory_overlap import assert_no_internal_overlap, assert_no_overlap
from ember.aten.native import at
from ember.aten.native.common import wrap_dim
from ember.aten.native.gather_scatter import _as_nd, _check_bounds, _src_window, _window
from ember.aten.native.reduction import store
from ember.aten.native.resize import resize_impl, resize_output, resize_output_check

__all__ = [
    "argwhere",
    "index_add_cpu_out",
    "index_copy_out",
    "index_fill",
    "index_fill_",
    "masked_scatter",
    "masked_scatter_",
    "masked_scatter_backward",
    "masked_select",
    "masked_select_out",
    "nonzero",
    "nonzero_numpy",
    "nonzero_out",
    "put",
    "put_",
    "scatter_add_out",
    "scatter_reduce_two_out",
    "take",
    "take_out",
]

CONTIGUOUS_FORMAT = 0


def _start_from_self(self, out) -> None:
    if out is not self:
        at.copy_(out, self, False)


def _index_positions(index, size: int, message, error=IndexError) -> np.ndarray:
    positions = _as_nd(index.ndarray()).astype(np.int64).reshape(-1)
    bad = (positions < 0) | (positions >= size)
    if bad.any():
        raise error(message(int(positions[bad][0])))
    return positions


def index_add_cpu_out(meta, self, dim, index, source, alpha, out) -> None:
    _start_from_self(self, out)
    dim = wrap_dim(dim, self.dim())
    if index.numel() == 0:
        return
    target = _as_nd(out.ndarray())
    size = target.shape[dim]
    positions = _index_positions(
        index,
        size,
        lambda i: f"index {i} is out of bounds for dimension {dim} with size {size}",
        RuntimeError,
    )
    values = _as_nd(source.ndarray())
    if source.dim() == 0:
        values = np.broadcast_to(values, target.shape[:dim] + (1,) + target.shape[dim + 1 :])
    if alpha != 1:
        values = values * np.asarray(alpha).astype(values.dtype)
    moved = np.moveaxis(target, dim, 0)
    np.add.at(moved, positions, np.moveaxis(values, dim, 0).astype(target.dtype))


def index_copy_out(meta, self, dim, index, source, out) -> None:
    _start_from_self(self, out)
    dim = wrap_dim(dim, self.dim())
    if index.numel() == 0:
        return
    target = _as_nd(out.ndarray())
    size = target.shape[dim]
    positions = _index_positions(
        index,
        size,
        lambda i: f"index_copy_(): index {i} is out of bounds for dimension {dim} with size {size}",
    )
    values = _as_nd(source.ndarray())
    if source.dim() == 0:
        values = values.reshape((1,) * target.ndim)
    moved = np.moveaxis(target, dim, 0)
    moved[positions] = np.moveaxis(values, dim, 0)


def index_fill_(self, dim, index, value):
    if hasattr(value, "_sizes"):  # the int_Tensor overload
        if value.dim() != 0:
            raise RuntimeError(
                "index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                f"{value.dim()} dimension(s)."
            )
        value = at._local_scalar_dense(value)
    if index.dtype is not dtypes.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    if not self.dtype.is_complex and isinstance(value, complex):
        raise RuntimeError(
            "index_fill_(): Converting complex Scalar to non-complex type is not supported"
        )
    ndim = max(self.dim(), 1)
    dim = wrap_dim(dim, ndim)
    if index.dim() > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    if index.numel() == 0 or self.device.type == "meta":
        return self
    target = _as_nd(self.ndarray())
    size = target.shape[dim]
    positions = _as_nd(index.ndarray()).astype(np.int64).reshape(-1)
    bad = (positions < -size) | (positions >= size)
    if bad.any():
        raise IndexError(
            f"index {int(positions[bad][0])} is out of bounds for dimension {dim} with size {size}"
        )
    np.moveaxis(target, dim, 0)[positions] = value
    return self


def index_fill(self, dim, index, value):
    result = at.clone(self, CONTIGUOUS_FORMAT)
    if hasattr(value, "_sizes"):
        return at.index_fill__int_Tensor(result, dim, index, value)
    return at.index_fill__int_Scalar(result, dim, index, value)


def scatter_add_out(meta, self, dim, index, src, out) -> None:
    _start_from_self(self, out)
    if index.numel() == 0:
        return
    _scatter_accumulate(out, dim, index, _src_window(index, src), np.add)


def _scatter_where(dim: int, positions: np.ndarray) -> tuple:
    return tuple(
        positions if d == dim else np.arange(n).reshape((-1,) + (1,) * (positions.ndim - d - 1))
        for d, n in enumerate(positions.shape)
    )


def _scatter_accumulate(out, dim, index, values, ufunc) -> None:
    dim = wrap_dim(dim, out.dim())
    positions = _as_nd(index.ndarray()).astype(np.int64)
    target = _as_nd(out.ndarray())
    _check_bounds(positions, dim, target.shape[dim])
    window = _window(target, positions.shape, dim)
    ufunc.at(window, _scatter_where(dim, positions), values)


def _identity(reduce: str, dtype):
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    np_dtype = dtype.np_dtype
    if dtype.is_floating_point:
        return -np.inf if reduce == "amax" else np.inf
    if dtype is dtypes.bool:
        return reduce == "amin"
    info = np.iinfo(np_dtype)
    return info.min if reduce == "amax" else info.max


_SCATTER_UFUNCS = {
    "max": np.fmax,
    "min": np.fmin,
    "sum": np.add,
    "mean": np.add,
    "prod": np.multiply,
    "amax": np.fmax,
    "amin": np.fmin,
}


def scatter_reduce_two_out(meta, self, dim, index, src, reduce, include_self, out) -> None:
    _start_from_self(self, out)
    if index.numel() == 0:
        return
    if self.dtype.is_complex and reduce in ("amax", "amin", "max", "min"):
        raise RuntimeError(f"scatter_reduce(): {reduce} is not supported for complex inputs")
    dim = wrap_dim(dim, self.dim())
    positions = _as_nd(index.ndarray()).astype(np.int64)
    target = _as_nd(out.ndarray())
    _check_bounds(positions, dim, target.shape[dim])
    window = _window(target, positions.shape, dim)
    where = _scatter_where(dim, positions)
    values = _src_window(index, src)
    reduce = {"max": "amax", "min": "amin"}.get(reduce, reduce)
    if reduce in ("amax", "amin") and self.dtype.is_floating_point:
        nan_ufunc = np.maximum if reduce == "amax" else np.minimum
    else:
        nan_ufunc = _SCATTER_UFUNCS[reduce]
    if not include_self:
        window[where] = _identity(reduce, self.dtype)
    nan_ufunc.at(window, where, values)
    if reduce == "mean":
        counts = np.zeros(window.shape, np.int64)
        if include_self:
            counts[...] = 1
        else:
            counts[where] = 0
        np.add.at(counts, where, 1)
        counts[counts == 0] = 1
        if self.dtype.is_floating_point or self.dtype.is_complex:
            window[...] = window / counts
        else:
            window[...] = np.floor_divide(window, counts)


def _check_take_index(index) -> None:
    if index.dtype is not dtypes.int64:
        raise RuntimeError(
            f"take(): Expected a long tensor for index, but got "
            f"{dtypes.scalar_type_name(index.dtype)}"
        )


def _take_values(self, index):
    flat = self.ndarray().reshape(-1)
    positions = index.ndarray().astype(np.int64)
    size = flat.shape[0]
    if size == 0 and positions.size:
        raise IndexError("take(): tried to take from an empty tensor")
    bad = (positions < -size) | (positions >= size)
    if bad.any():
        raise IndexError(
            f"out of range: tried to access index {int(positions[bad].flat[0])} on a tensor of "
            f"{size} elements."
        )
    return flat[positions]


def take(self, index):
    _check_take_index(index)
    result = empty_tensor(index._sizes, self.dtype, self.device)
    if index.numel():
        store(result, _take_values(self, index))
    return result


def take_out(self, index, out):
    _check_take_index(index)
    if out.dtype is not self.dtype:
        raise RuntimeError(
            f"take(): self and out expected to have the same dtype, but got self.dtype = "
            f"{dtypes.scalar_type_name(self.dtype)} and out.dtype = "
            f"{dtypes.scalar_type_name(out.dtype)}"
        )
    if self.numel() == 0 and index.numel() != 0:
        raise IndexError("take(): tried to take from an empty tensor")
    assert_no_internal_overlap(out)
    assert_no_overlap(out, index)
    assert_no_overlap(out, self)
    resize_output(out, index._sizes)
    if index.numel():
        store(out, _take_values(self, index))
    return out


def put_(self, index, source, accumulate):
    if index.dtype is not dtypes.int64:
        raise RuntimeError(
            f"put_(): Expected a long tensor for index, but got "
            f"{dtypes.scalar_type_name(index.dtype)}"
        )
    if self.dtype is not source.dtype:
        raise RuntimeError(
            "put_(): self and source expected to have the same dtype, but got "
            f"self.dtype = {dtypes.scalar_type_name(self.dtype)} and source.dtype = "
            f"{dtypes.scalar_type_name(source.dtype)}"
        )
    if index.numel() != source.numel():
        raise IndexError(
            f"put_(): Expected source and index to have the same number of elements, but got "
            f"source.numel() = {source.numel()}, index.numel() = {index.numel()}"
        )
    if index.numel() == 0:
        return self
    size = self.numel()
    positions = index.ndarray().astype(np.int64).reshape(-1)
    if size == 0:
        raise IndexError("put_(): Tried to put elements into an empty tensor")
    bad = (positions < -size) | (positions >= size)
    if bad.any():
        raise IndexError(
            f"out of range: tried to access index {int(positions[bad][0])} on a tensor of "
            f"{size} elements."
        )
    positions = np.where(positions < 0, positions + size, positions)
    flat = self.ndarray().reshape(-1).copy()
    values = source.ndarray().reshape(-1)
    if accumulate:
        np.add.at(flat, positions, values)
    else:
        flat[positions] = values
    store(self, flat.reshape(self._sizes))
    return self


def put(self, index, source, accumulate):
    return at.put_(at.clone(self, CONTIGUOUS_FORMAT), index, source, accumulate)


def _masked_values(self, mask):
    if mask.dtype is not dtypes.bool:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    shape = broadcast_pair(list(mask._sizes), list(self._sizes))
    values = np.broadcast_to(self.ndarray(), shape)
    chosen = np.broadcast_to(mask.ndarray(), shape)
    return values[chosen]


def masked_select(self, mask):
    values = _masked_values(self, mask)
    result = empty_tensor((values.shape[0],), self.dtype, self.device)
    store(result, values)
    return result


def masked_select_out(self, mask, out):
    if mask.dtype is not dtypes.bool:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    if self.dtype is not out.dtype:
        raise RuntimeError("masked_select(): self and result must have the same scalar type")
    assert_no_internal_overlap(out)
    assert_no_overlap(out, self)
    assert_no_overlap(out, mask)
    values = _masked_values(self, mask)
    assert_no_internal_overlap(out)
    assert_no_overlap(out, self)
    assert_no_overlap(out, mask)
    resize_output(out, (values.shape[0],))
    store(out, values)
    return out


def broadcast_pair(a, b) -> tuple:
    """infer_size of two shapes, with its message on a mismatch."""
    ndim = max(len(a), len(b))
    a = [1] * (ndim - len(a)) + a
    b = [1] * (ndim - len(b)) + b
    shape = []
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y and x != 1 and y != 1:
            raise RuntimeError(
                f"The size of tensor a ({x}) must match the size of tensor b ({y}) at "
                f"non-singleton dimension {i}"
            )
        shape.append(y if x == 1 else x)
    return tuple(shape)


def _nonzero_result(values: np.ndarray, device):
    """nonzero's result: (count, ndim) laid out column-major, as ATen allocates it."""
    count, ndim = values.shape
    result = empty_tensor((count, ndim), dtypes.int64, device, strides=(1, count))
    store(result, values)
    return result


def _nonzero_values(self) -> np.ndarray:
    data = self.ndarray()
    if self.dim() == 0:
        return np.zeros((int(bool(data)), 0), np.int64)
    return np.argwhere(data).astype(np.int64)


def nonzero(self):
    return _nonzero_result(_nonzero_values(self), self.device)


def nonzero_out(self, out):
    if out.dtype is not dtypes.int64:
        raise RuntimeError(
            f"nonzero: Expected out tensor to have scalar type Long but got scalar type"
            f"{dtypes.scalar_type_name(out.dtype)}"
        )
    values = _nonzero_values(self)
    count, ndim = values.shape
    if resize_output_check(out, (count, ndim)):  # laid out column-major, as nonzero's result
        resize_impl(out, (count, ndim), (1, count))
    store(out, values)
    return out


def argwhere(self):
    return at.nonzero(self)


def nonzero_numpy(self):
    if self.dim() == 0:
        return at.unbind_int(at.nonzero(at.unsqueeze(self, 0)), 1)
    return at.unbind_int(at.nonzero(self), 1)


def masked_scatter_(self, mask, source):
    assert_no_internal_overlap(self)
    if self.dtype is not source.dtype:
        raise RuntimeError(
            "masked_scatter_: expected self and source to have same dtypes but got"
            f"{dtypes.scalar_type_name(self.dtype)} and {dtypes.scalar_type_name(source.dtype)}"
        )
    if mask.dtype is not dtypes.bool:
        raise RuntimeError(
            "masked_scatter_ only supports boolean masks, but got mask with dtype "
            f"{dtypes.scalar_type_name(mask.dtype)}"
        )
    target = self.ndarray()
    chosen = np.broadcast_to(mask.ndarray(), broadcast_pair(list(self._sizes), list(mask._sizes)))
    if chosen.shape != target.shape:
        raise RuntimeError(
            f"The expanded size of the tensor ({target.shape[0] if target.shape else 0}) must "
            "match the existing size"
        )
    count = int(chosen.sum())
    values = source.ndarray().reshape(-1)
    if count > values.shape[0]:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    target[chosen] = values[:count]
    return self


def masked_scatter(self, mask, source):
    shape = broadcast_pair(list(mask._sizes), list(self._sizes))
    expanded_mask = (
        mask if list(mask._sizes) == list(shape) else at.expand(mask, list(shape), False)
    )
    expanded = self if list(self._sizes) == list(shape) else at.expand(self, list(shape), False)
    return at.masked_scatter_(at.clone(expanded, CONTIGUOUS_FORMAT), expanded_mask, source)


def masked_scatter_backward(grad_output, mask, sizes):
    numel = 1
    for size in sizes:
        numel *= int(size)
    selected = at.masked_select(grad_output, mask)
    missing = numel - selected.numel()
    if missing > 0:
        zeros = at.zeros([missing], grad_output.dtype, None, grad_output.device, None)
        selected = at.cat([selected, zeros], 0)
    return at.view(selected, [int(s) for s in sizes])
