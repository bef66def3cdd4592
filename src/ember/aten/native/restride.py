"""The restriding view kernels: transpose, t, permute, expand, squeeze, unsqueeze,
select, slice, diagonal, unfold, unbind, split, split_with_sizes.

Layer: aten/native, CompositeExplicitAutograd (device-generic). In: the full
schema argument list. Out: views computed as new sizes, strides and storage
offset, made by calling `at.as_strided` (See Note [Views go through
as_strided] in native/views.py); the list-returning ops return Python lists,
as the C++ ops return std::vector. Mirrors ATen/native/TensorShape.cpp and
ATen/ExpandUtils.cpp (inferExpandGeometry).
"""

from __future__ import annotations

from ember._c10.storage import checked_numel
from ember.aten.native import at
from ember.aten.native.common import wrap_dim
from ember.aten.native.views import INT64_MAX, fmt_ints, type_string

__all__ = [
    "diagonal",
    "expand",
    "permute",
    "select_int",
    "slice_Tensor",
    "split_Tensor",
    "split_with_sizes",
    "squeeze",
    "squeeze_dim",
    "squeeze_dims",
    "t",
    "transpose_int",
    "unbind_int",
    "unfold",
    "unsqueeze",
]


def _restrided(self, sizes, strides, storage_offset=None):
    return at.as_strided(self, tuple(sizes), tuple(strides), storage_offset)


def transpose_int(self, dim0, dim1):  # noqa: N802 (kernel names follow overloads)
    ndim = self.dim()
    if not (0 <= dim0 < ndim and 0 <= dim1 < ndim):  # (in range needs no wrapping)
        dim0 = wrap_dim(dim0, ndim)
        dim1 = wrap_dim(dim1, ndim)
    if dim0 == dim1:
        return at.alias(self)
    if ndim == 2:  # t(), and transpose(0, 1) of a matrix
        (rows, cols), (row_stride, col_stride) = self._sizes, self._strides
        return at.as_strided(self, (cols, rows), (col_stride, row_stride), None)
    sizes = list(self._sizes)
    strides = list(self._strides)
    sizes[dim0], sizes[dim1] = sizes[dim1], sizes[dim0]
    strides[dim0], strides[dim1] = strides[dim1], strides[dim0]
    return _restrided(self, sizes, strides)


def t(self):
    ndim = self.dim()
    if ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {ndim}D")
    return at.transpose_int(self, 0, 0 if ndim < 2 else 1)


def permute(self, dims):
    ndim = self.dim()
    dims = [int(d) for d in dims]
    if len(dims) != ndim:
        raise RuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the "
            "length of the desired ordering of dimensions i.e. input.dim() = "
            f"{ndim} is not equal to len(dims) = {len(dims)}"
        )
    seen = [False] * ndim
    sizes, strides = [], []
    for d in dims:
        d = wrap_dim(d, ndim)
        if seen[d]:
            raise RuntimeError("permute(): duplicate dims are not allowed.")
        seen[d] = True
        sizes.append(self._sizes[d])
        strides.append(self._strides[d])
    return _restrided(self, sizes, strides)


def expand(self, size, implicit):
    size = [int(s) for s in size]
    if len(size) < self.dim():
        raise RuntimeError(
            f"expand({type_string(self)}{{{fmt_ints(self._sizes)}}}, size={fmt_ints(size)}): "
            f"the number of sizes provided ({len(size)}) must be greater or equal to the number "
            f"of dimensions in the tensor ({self.dim()})"
        )
    sizes, strides = infer_expand_geometry(self._sizes, self._strides, size)
    checked_numel(sizes)  # a view that allocates nothing may still count too many elements
    return _restrided(self, sizes, strides)


def infer_expand_geometry(tensor_sizes, tensor_strides, sizes):
    """inferExpandGeometry: sizes and strides of `tensor` broadcast to `sizes` (stride 0)."""
    ndim = len(sizes)
    tensor_dim = len(tensor_sizes)
    if tensor_dim == 0:
        return list(sizes), [0] * ndim
    expanded_sizes = [0] * ndim
    expanded_strides = [0] * ndim
    for i in range(ndim - 1, -1, -1):
        dim = tensor_dim - 1 - (ndim - 1 - i)
        if dim >= 0:
            size, stride = tensor_sizes[dim], tensor_strides[dim]
        else:
            size, stride = 1, expanded_sizes[i + 1] * expanded_strides[i + 1]
        target = sizes[i]
        if target == -1:
            if dim < 0:
                raise RuntimeError(
                    f"The expanded size of the tensor ({target}) isn't allowed in a leading, "
                    f"non-existing dimension {i}"
                )
            target = size
        if size != target:
            if size != 1:
                raise RuntimeError(
                    f"The expanded size of the tensor ({target}) must match the existing size "
                    f"({size}) at non-singleton dimension {i}.  Target sizes: {fmt_ints(sizes)}"
                    f".  Tensor sizes: {fmt_ints(tensor_sizes)}"
                )
            size, stride = target, 0
        expanded_sizes[i] = size
        expanded_strides[i] = stride
    return expanded_sizes, expanded_strides


# -- squeeze / unsqueeze ------------------------------------------------------------


def squeeze_geometry(self, dims_to_squeeze):
    """Sizes and strides without the size-1 dims among `dims_to_squeeze`."""
    sizes, strides = [], []
    for d, (size, stride) in enumerate(zip(self._sizes, self._strides)):
        if d in dims_to_squeeze and size == 1:
            continue
        sizes.append(size)
        strides.append(stride)
    return sizes, strides


def squeeze_dims_to_set(self, dims) -> set:
    """dim_list_to_bitset: the wrapped dims, each at most once."""
    wrapped = set()
    for d in dims:
        d = wrap_dim(int(d), self.dim())
        if d in wrapped:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        wrapped.add(d)
    return wrapped


def squeeze_dim_geometry(self, dim):
    ndim = self.dim()
    dim = wrap_dim(dim, ndim)
    if ndim == 0 or self._sizes[dim] != 1:
        return list(self._sizes), list(self._strides)
    return squeeze_geometry(self, (dim,))


def unsqueeze_geometry(self, dim):
    ndim = self.dim()
    dim = wrap_dim(dim, ndim + 1)
    sizes = list(self._sizes)
    strides = list(self._strides)
    new_stride = 1 if dim >= ndim else sizes[dim] * strides[dim]
    sizes.insert(dim, 1)
    strides.insert(dim, new_stride)
    return sizes, strides


def squeeze(self):
    return _restrided(self, *squeeze_geometry(self, range(self.dim())))


def squeeze_dim(self, dim):
    return _restrided(self, *squeeze_dim_geometry(self, dim))


def squeeze_dims(self, dim):
    return _restrided(self, *squeeze_geometry(self, squeeze_dims_to_set(self, dim)))


def unsqueeze(self, dim):
    return _restrided(self, *unsqueeze_geometry(self, dim))


# -- select / slice / diagonal ----------------------------------------------------------


def select_int(self, dim, index):  # noqa: N802
    ndim = self.dim()
    if ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    dim = wrap_dim(dim, ndim)
    index = int(index)
    size = self._sizes[dim]
    if size <= -1 - index or size <= index:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size {fmt_ints(self._sizes)} "
            f"at dimension {dim}"
        )
    if index < 0:
        index += size
    sizes = list(self._sizes)
    strides = list(self._strides)
    offset = self._storage_offset + index * strides[dim]
    del sizes[dim], strides[dim]
    return _restrided(self, sizes, strides, offset)


def slice_bounds(size: int, start, end):
    """The [start, end) a slice keeps, clamped into [0, size] as ATen's slice does."""
    start = 0 if start is None else int(start)
    end = INT64_MAX if end is None else int(end)
    if start < 0:
        start += size
    if end < 0:
        end += size
    start = min(max(start, 0), size)
    end = min(max(end, start), size)
    return start, end


_INT64_MAX = 2**63 - 1


def slice_Tensor(self, dim, start, end, step):  # noqa: N802
    ndim = self.dim()
    if ndim == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    dim = wrap_dim(dim, ndim)
    step = int(step)
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    sizes = list(self._sizes)
    strides = list(self._strides)
    start, end = slice_bounds(sizes[dim], start, end)
    offset = self._storage_offset + start * strides[dim]
    sizes[dim] = (end - start + step - 1) // step
    strides[dim] *= step
    if strides[dim] > _INT64_MAX:  # PyTorch's int64 product wraps negative
        strides[dim] = (strides[dim] + 2**63) % 2**64 - 2**63
        raise RuntimeError(
            "as_strided: Negative strides are not supported at the moment, got strides: "
            f"[{', '.join(str(s) for s in strides)}]"
        )
    return _restrided(self, sizes, strides, offset)


def diagonal(self, offset, dim1, dim2):
    ndim = self.dim()
    d1 = wrap_dim(dim1, ndim)
    d2 = wrap_dim(dim2, ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    sizes = list(self._sizes)
    strides = list(self._strides)
    if offset >= 0:
        diag_size = max(min(sizes[d1], sizes[d2] - offset), 0)
    else:
        diag_size = max(min(sizes[d1] + offset, sizes[d2]), 0)
    storage_offset = self._storage_offset
    if diag_size > 0:
        storage_offset += offset * strides[d2] if offset >= 0 else -offset * strides[d1]
    joint_stride = strides[d1] + strides[d2]
    for d in (max(d1, d2), min(d1, d2)):
        del sizes[d], strides[d]
    sizes.append(diag_size)
    strides.append(joint_stride)
    return _restrided(self, sizes, strides, storage_offset)


def unfold(self, dimension, size, step):
    """Every window of `size` elements along `dimension`, `step` apart, as a new last dim."""
    ndim = self.dim()
    d = wrap_dim(dimension, ndim)
    sizes = list(self._sizes)
    strides = list(self._strides)
    max_size = 1 if ndim == 0 else sizes[d]
    if size > max_size:
        raise RuntimeError(
            f"maximum size for tensor at dimension {d} is {max_size} but size is {size}"
        )
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    sizes.append(size)
    strides.append(1 if ndim == 0 else strides[d])
    if d < ndim:
        sizes[d] = (sizes[d] - size) // step + 1
        # int64_t arithmetic, as TensorShape.cpp's: an overflow wraps (as_strided refuses it)
        strides[d] = (strides[d] * step + 2**63) % 2**64 - 2**63
    return _restrided(self, sizes, strides)


# -- unbind / split ---------------------------------------------------------------------


def unbind_int(self, dim):  # noqa: N802
    dim = wrap_dim(dim, self.dim())  # (a 0-dim tensor wraps as a 1-dim one, as maybe_wrap_dim)
    if self.dim() == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    return [at.select_int(self, dim, i) for i in range(self._sizes[dim])]


def split_Tensor(self, split_size, dim):  # noqa: N802
    if self.dim() == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    split_size = int(split_size)
    if split_size < 0:
        raise RuntimeError(
            f"split expects split_size be non-negative, but got split_size={split_size}"
        )
    dim_size = self._sizes[wrap_dim(dim, self.dim())]
    if split_size == 0 and dim_size != 0:
        raise RuntimeError(
            f"split_size can only be 0 if dimension size is 0, but got dimension size of {dim_size}"
        )
    num_splits = 1
    if split_size != 0:
        num_splits = max((dim_size + split_size - 1) // split_size, 1)
    last_split_size = split_size - (split_size * num_splits - dim_size)
    return [
        at.narrow(self, dim, i * split_size, split_size if i < num_splits - 1 else last_split_size)
        for i in range(num_splits)
    ]


def split_with_sizes(self, split_sizes, dim):
    if self.dim() == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    split_sizes = [int(s) for s in split_sizes]
    wrapped = wrap_dim(dim, self.dim())
    dim_size = self._sizes[wrapped]
    sizes = list(self._sizes)
    strides = list(self._strides)
    splits = []
    start = 0
    for length in split_sizes:
        if length < 0:
            raise RuntimeError(
                "split_with_sizes expects split_sizes have only non-negative entries, but got "
                f"split_sizes={fmt_ints(split_sizes)}"
            )
        # ATen calls native::slice here (no dispatch), which calls as_strided.
        begin, end = slice_bounds(dim_size, start, start + length)
        sizes[wrapped] = end - begin
        offset = self._storage_offset + begin * strides[wrapped]
        splits.append(_restrided(self, sizes, strides, offset))
        start += length
    if start != dim_size:
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {dim_size} (input tensor's "
            f"size at dimension {dim}), but got split_sizes={fmt_ints(split_sizes)}"
        )
    return splits
