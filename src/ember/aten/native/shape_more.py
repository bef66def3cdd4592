"""More shape kernels: moveaxis, ravel, fliplr / flipud, rot90, argsort, msort,
take_along_dim, diag, diagflat, diag_embed, diagonal_copy, trace, block_diag, vdot.

Layer: aten/native. The CompositeImplicitAutograd kernels only call operators through
`at` (so a mode and autograd see PyTorch's calls); rot90, block_diag and diag_embed are
CompositeExplicitAutograd(NonFunctional) and trace / vdot CPU kernels, each with its
derivative in derivatives.yaml. Mirrors ATen/native/TensorShape.cpp,
TensorTransformations.cpp, Sorting.cpp (argsort, msort), TensorAdvancedIndexing.cpp
(take_along_dim), ReduceOps.cpp (trace_cpu) and Blas.cpp (vdot).
"""

from __future__ import annotations

import math

import numpy as np

from ember._c10 import dtypes
from ember._tensor import empty_tensor
from ember.aten.native import at
from ember.aten.native.common import wrap_dim
from ember.aten.native.linalg import dot
from ember.aten.native.reduction import store

__all__ = [
    "argsort",
    "argsort_stable",
    "argsort_stable_out",
    "block_diag",
    "diag",
    "diag_embed",
    "diagflat",
    "diagonal_copy",
    "fliplr",
    "flipud",
    "moveaxis_int",
    "moveaxis_intlist",
    "msort",
    "msort_out",
    "ravel",
    "rot90",
    "take_along_dim",
    "take_along_dim_out",
    "trace",
    "vdot",
]

CONTIGUOUS_FORMAT = 0


def moveaxis_intlist(self, source, destination):
    return at.movedim_intlist(self, list(source), list(destination))


def moveaxis_int(self, source, destination):
    return at.movedim_int(self, source, destination)


def ravel(self):
    return at.view(at.contiguous(self, CONTIGUOUS_FORMAT), [-1])


def fliplr(self):
    if self.dim() < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return at.flip(self, [1])


def flipud(self):
    if self.dim() < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return at.flip(self, [0])


def rot90(self, k, dims):
    dims = [int(d) for d in dims]
    total_dims = self.dim()
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if total_dims < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {total_dims}")
    if dims[0] == dims[1] or abs(dims[0] - dims[1]) == total_dims:
        raise RuntimeError(
            f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = {dims[1]}"
        )
    for i in (0, 1):
        if not -total_dims <= dims[i] < total_dims:
            raise RuntimeError(f"Rotation dim{i} out of range, dim{i} = {dims[i]}")
    k = (4 + int(math.fmod(k, 4))) % 4
    if k == 1:
        return at.transpose_(at.flip(self, [dims[1]]), dims[0], dims[1])
    if k == 2:
        return at.flip(self, dims)
    if k == 3:
        return at.transpose_(at.flip(self, [dims[0]]), dims[0], dims[1])
    return at.clone(self, CONTIGUOUS_FORMAT)


def argsort(self, dim, descending):
    return at.sort(self, dim, descending)[1]


def argsort_stable(self, stable, dim, descending):
    return at.sort_stable(self, stable, dim, descending)[1]


def argsort_stable_out(self, stable, dim, descending, out):
    values = at.empty_memory_format([0], self.dtype, None, self.device, None, None)
    at.sort_values_stable(self, stable, dim, descending, values, out)
    return out


def msort(self):
    return at.sort(self, 0, False)[0]


def msort_out(self, out):
    indices = at.empty_memory_format([0], dtypes.int64, None, self.device, None, None)
    at.sort_values(self, 0, False, out, indices)
    return out


def _take_along_dim_checks(self, indices, dim):
    if indices.dtype is not dtypes.int64:
        raise RuntimeError(
            "torch.take_along_dim(): dtype of indices should be Long but got "
            f"{dtypes.scalar_type_name(indices.dtype)}"
        )
    if dim is not None and self.dim() != indices.dim():
        raise RuntimeError(
            "torch.take_along_dim(): input and indices should have the same number of "
            f"dimensions, but got {self.dim()} dimensions for input, and {indices.dim()} "
            "dimensions for indices"
        )


def _broadcast_pair(a, b) -> list:
    shape = []
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y and x != 1 and y != 1:
            raise RuntimeError(
                f"The size of tensor a ({x}) must match the size of tensor b ({y}) at "
                f"non-singleton dimension {i}"
            )
        shape.append(y if x == 1 else x)
    return shape


def _take_along_dim_helper(self, indices, dim):
    dim = wrap_dim(dim, self.dim())
    self_sizes = list(self._sizes)
    self_sizes[dim] = indices._sizes[dim]
    indices_broadcasted = at.expand(indices, _broadcast_pair(self_sizes, indices._sizes), False)
    indices_sizes = list(indices._sizes)
    indices_sizes[dim] = self._sizes[dim]
    self_broadcasted = at.expand(self, _broadcast_pair(indices_sizes, self._sizes), False)
    wrapped = at.remainder_Scalar(indices_broadcasted, self._sizes[dim])
    return self_broadcasted, wrapped, dim


def take_along_dim(self, indices, dim):
    _take_along_dim_checks(self, indices, dim)
    if dim is not None:
        source, index, dim = _take_along_dim_helper(self, indices, dim)
        return at.gather(source, dim, index, False)
    return at.gather(at.view(self, [-1]), 0, at.view(indices, [-1]), False)


def take_along_dim_out(self, indices, dim, out):
    _take_along_dim_checks(self, indices, dim)
    if dim is not None:
        source, index, dim = _take_along_dim_helper(self, indices, dim)
        return at.gather_out(source, dim, index, False, out)
    return at.gather_out(at.view(self, [-1]), 0, at.view(indices, [-1]), False, out)


def _check_diag_dims(self) -> None:
    if self.dim() not in (1, 2):
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {self.dim()}D")


def diag(self, diagonal):
    _check_diag_dims(self)
    if self.dim() == 1:
        return at.diag_embed(self, diagonal, -2, -1)
    return at.diagonal_copy(self, diagonal, 0, 1)


def diagflat(self, offset):
    return at.diag(at.view(at.contiguous(self, CONTIGUOUS_FORMAT), [-1]), offset)


def diag_embed(self, offset, dim1, dim2):
    ndims = self.dim() + 1
    wrapped1 = wrap_dim(dim1, ndims)
    wrapped2 = wrap_dim(dim2, ndims)
    if wrapped1 == wrapped2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    last = self._sizes[wrap_dim(-1, self.dim(), wrap_scalar=False)]
    new_dim_len = abs(offset) + last
    sizes = list(self._sizes[:-1])
    sizes.insert(min(wrapped1, wrapped2), new_dim_len)
    sizes.insert(max(wrapped1, wrapped2), new_dim_len)
    result = at.zeros(sizes, self.dtype, None, self.device, None)
    at.copy_(at.diagonal(result, offset, wrapped1, wrapped2), self, False)
    return result


def diagonal_copy(self, offset, dim1, dim2):
    return at.clone(at.diagonal(self, offset, dim1, dim2), CONTIGUOUS_FORMAT)


def trace(self):
    if self.dim() != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {self.dim()}")
    if self.dtype is dtypes.bool:
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    integral = not (self.dtype.is_floating_point or self.dtype.is_complex)
    dtype = dtypes.int64 if integral else self.dtype
    result = empty_tensor((), dtype, self.device)
    if self.device.type != "meta":
        values = np.diagonal(self.ndarray())
        store(result, values.sum(dtype=dtype.np_dtype) if integral else values.sum())
    return result


def block_diag(tensors):
    tensors = list(tensors)
    if not tensors:
        return at.empty_memory_format([1, 0], None, None, None, None, None)
    device = tensors[0].device
    for i, t in enumerate(tensors):
        if t.device != device:
            raise RuntimeError(
                "torch.block_diag: input tensors must all be on the same device. Input 0 is on "
                f"device {device} and input {i} is on device {t.device}"
            )
    dtype = dtypes.result_type(tensors)
    parts = []
    rows = cols = 0
    for i, t in enumerate(tensors):
        if t.dim() > 2:
            raise RuntimeError(
                "torch.block_diag: Input tensors must have 2 or fewer dimensions. Input "
                f"{i} has {t.dim()} dimensions"
            )
        if t.dim() == 2:
            parts.append(t)
        else:
            parts.append(at.expand(t, [1, t.numel() if t.dim() == 1 else 1], False))
        rows += parts[-1]._sizes[0]
        cols += parts[-1]._sizes[1]
    result = at.zeros([rows, cols], dtype, None, device, None)
    row = col = 0
    for part in parts:
        height, width = part._sizes
        block = at.slice_Tensor(
            at.slice_Tensor(result, 0, row, row + height, 1), 1, col, col + width, 1
        )
        at.copy_(block, part, False)
        row += height
        col += width
    return result


def vdot(self, other):
    if not self.dtype.is_complex:
        return at.dot(self, other)
    result = dot(self, other)  # dot's checks and its 0-dim result; the values conjugate self
    if result.device.type != "meta":
        store(result, np.vdot(self.ndarray(), other.ndarray()))
    return result
