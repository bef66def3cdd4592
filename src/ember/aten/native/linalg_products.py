"""linalg.cross (its CPU kernel) and torch.cross; the composites linalg.multi_dot,
linalg.vander, linalg.tensorinv and linalg.tensorsolve.

Layer: aten/native. In: the schema's arguments. Out: tensors; the composites call `at` (mm in
the optimal chain order, cumprod and cat, reshape / movedim with linalg_inv_ex or
linalg_solve) so autograd and a dispatch mode see PyTorch's operators. Mirrors
ATen/native/Cross.cpp (linalg_cross_out, cross, _default_cross_dim) and LinearAlgebra.cpp
(multi_dot_impl, matrix_chain_order, linalg_tensorinv, linalg_tensorsolve) and
BatchLinearAlgebra.cpp's linalg_vander_symint.
"""

from __future__ import annotations

import math

import numpy as np

from ember._c10 import dtypes
from ember._c10.warning import torch_warn_once
from ember.aten.native import at
from ember.aten.native.common import type_meta_name, wrap_dim
from ember.aten.native.linalg_cholesky import _check_compatible, _copy_into
from ember.aten.native.reduction import store
from ember.aten.native.resize import resize_output

__all__ = [
    "linalg_cross_out", "cross", "cross_out", "linalg_multi_dot", "linalg_multi_dot_out",
    "linalg_vander", "linalg_tensorinv", "linalg_tensorinv_out", "linalg_tensorsolve",
    "linalg_tensorsolve_out",
]  # fmt: skip


# -- cross -----------------------------------------------------------------------------------


def linalg_cross_out(meta, self, other, dim, out) -> None:
    if self.dtype is dtypes.bool:
        raise NotImplementedError("\"cross\" not implemented for 'Bool'")
    if other.dtype is not self.dtype:
        name = dtypes.scalar_type_name
        raise RuntimeError(f"expected scalar type {name(self.dtype)} but found {name(other.dtype)}")
    axis = wrap_dim(dim, self.dim())
    sizes = out._sizes
    a = np.broadcast_to(self.ndarray(), sizes)
    b = np.broadcast_to(other.ndarray(), sizes)
    if a.size == 0:
        return
    a0, a1, a2 = (np.take(a, i, axis=axis) for i in range(3))
    b0, b1, b2 = (np.take(b, i, axis=axis) for i in range(3))
    with np.errstate(all="ignore"):
        result = np.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=axis)
    store(out, result)


_CROSS_DEPRECATED = (
    "Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim "
    "explicitly or simply use torch.linalg.cross.\nThe default value of dim will change to agree "
    "with that of linalg.cross in a future release."
)


def _default_cross_dim(dim, sizes) -> int:
    if dim is not None:
        return dim
    for i, size in enumerate(sizes):
        if size == 3:
            return i
    raise RuntimeError("no dimension of size 3 in input")


def cross(self, other, dim):
    if dim is None:
        torch_warn_once(_CROSS_DEPRECATED, "aten/src/ATen/native/Cross.cpp:63")
    return at.linalg_cross(self, other, _default_cross_dim(dim, self._sizes))


def cross_out(self, other, dim, out):
    return at.linalg_cross_out(self, other, _default_cross_dim(dim, self._sizes), out)


# -- multi_dot -------------------------------------------------------------------------------


def _chain_order(tensors) -> list:
    """matrix_chain_order: Cormen's dynamic programme over the costs p_i p_k+1 p_j+1."""
    n = len(tensors)
    p = [t._sizes[0] for t in tensors] + [tensors[-1]._sizes[1]]
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = math.inf
            for k in range(i, j):
                q = cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1]
                if q < cost[i][j]:
                    cost[i][j], split[i][j] = q, k
    return split


def _chain(tensors, order, i, j):
    if i == j:
        return tensors[i]
    left = _chain(tensors, order, i, order[i][j])
    return at.mm(left, _chain(tensors, order, order[i][j] + 1, j))


def _sizes_text(sizes) -> str:
    return "[" + ", ".join(str(s) for s in sizes) + "]"


def _multi_dot(given, out):
    n = len(given)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    tensors = list(given)
    out_shape = []
    first, last = given[0], given[-1]
    if first.dim() == 1:
        tensors[0] = at.unsqueeze(first, 0)
    elif first.dim() == 2:
        out_shape.append(first._sizes[0])
    else:
        raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got {first.dim()}D")
    if last.dim() == 1:
        tensors[-1] = at.unsqueeze(last, -1)
    elif last.dim() == 2:
        out_shape.append(last._sizes[1])
    else:
        raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got {last.dim()}D")
    for i in range(1, n - 1):
        if given[i].dim() != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {given[i].dim()}D")
    dtype = tensors[0].dtype
    for i in range(1, n):
        if tensors[i].dtype is not dtype:
            raise RuntimeError(
                "multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                f"{type_meta_name(dtype)} and tensor {i} {type_meta_name(tensors[i].dtype)}"
            )
        if tensors[i].device != tensors[0].device:
            raise RuntimeError(
                "multi_dot(): all tensors must be on the same device but tensor 0 is on "
                f"{tensors[0].device} and tensor {i} on {tensors[i].device}"
            )
        if tensors[i - 1]._sizes[-1] != tensors[i]._sizes[0]:
            raise RuntimeError(
                f"multi_dot(): tensors {i - 1} and {i} with shapes {_sizes_text(given[i - 1]._sizes)}"
                f" and {_sizes_text(given[i]._sizes)} cannot be multiplied"
            )
    result = None
    if out is not None:
        if out.dtype is not dtype:
            raise RuntimeError(
                f"multi_dot(): expected out tensor to have dtype {type_meta_name(dtype)} but got "
                f"{type_meta_name(out.dtype)}"
            )
        if out.device != tensors[0].device:
            raise RuntimeError(
                f"multi_dot(): expected out tensor to be on device {tensors[0].device} but got "
                f"{out.device}"
            )
        resize_output(out, tuple(out_shape))
        result = at.view(out, [tensors[0]._sizes[0], tensors[-1]._sizes[-1]])

    def finish(a, b):
        if out is not None:
            at.mm_out(a, b, result)
            return out
        return at.view(at.mm(a, b), out_shape)

    if n == 2:
        return finish(tensors[0], tensors[1])
    if n == 3:
        a, b = tensors[0]._sizes[0], tensors[1]._sizes[0]
        c, d = tensors[2]._sizes[0], tensors[2]._sizes[1]
        if (a * c) * (b + d) > (b * d) * (a + c):
            return finish(tensors[0], at.mm(tensors[1], tensors[2]))
        return finish(at.mm(tensors[0], tensors[1]), tensors[2])
    order = _chain_order(tensors)
    left = _chain(tensors, order, 0, order[0][n - 1])
    right = _chain(tensors, order, order[0][n - 1] + 1, n - 1)
    if out is not None:
        return finish(left, right)
    return at.view(at.mm(left, right), out_shape)


def linalg_multi_dot(tensors):
    return _multi_dot(tensors, None)


def linalg_multi_dot_out(tensors, out):
    _multi_dot(tensors, out)
    return out


# -- vander ----------------------------------------------------------------------------------

_VANDER_TYPES = (dtypes.float32, dtypes.float64, dtypes.complex64, dtypes.complex128)
_INTEGRAL = tuple(
    getattr(dtypes, name)
    for name in ("uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64")
    if hasattr(dtypes, name)
)  # isIntegralType(t, /*includeBool=*/false)


def linalg_vander(x, N):  # noqa: N803 (aten's name)
    if x.dtype not in _VANDER_TYPES + _INTEGRAL:
        raise RuntimeError(
            "linalg.vander supports floating point, complex, and integer tensors, but got "
            f"{dtypes.scalar_type_name(x.dtype)}"
        )
    x_ = at.unsqueeze(x, -1) if x.dim() == 0 else x
    shape = list(x_._sizes)
    n = shape[-1] if N is None else N
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    result = at.cumprod(at.expand(at.unsqueeze(x_, -1), shape + [n - 1], False), -1, None)
    ones = at.new_ones(result, shape + [1], None, None, None, None)
    return at.cat([ones, result], -1)


# -- tensorinv, tensorsolve ------------------------------------------------------------------


def linalg_tensorinv(self, ind):
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    end, start = list(self._sizes[ind:]), list(self._sizes[:ind])
    prod_end, prod_start = math.prod(end), math.prod(start)
    if prod_end != prod_start:
        raise RuntimeError(
            "Expected self to satisfy the requirement prod(self.shape[ind:]) == "
            f"prod(self.shape[:ind]), but got {prod_end} != {prod_start}"
        )
    result, info = at.linalg_inv_ex(at.reshape(self, [prod_end, prod_end]), False)
    at._linalg_check_errors(info, "inv", True)
    return at.reshape(result, end + start)


def linalg_tensorinv_out(self, ind, out):
    _check_compatible("tensorinv", out, self)
    return _copy_into(out, at.linalg_tensorinv(self, ind))


def linalg_tensorsolve(self, other, dims):
    ndim = self.dim()
    self_ = self
    if dims is not None:
        destination = list(range(ndim - len(dims), ndim))
        self_ = at.movedim_intlist(self_, list(dims), destination)
    result_shape = list(self_._sizes[other.dim() : ndim])
    result_product = math.prod(result_shape)
    other_product = math.prod(other._sizes)
    if result_product != other_product:
        raise RuntimeError(
            "Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
            f"prod(self.shape[:other.ndim]), but got {result_product} != {other_product}"
        )
    self_ = at.reshape(self_, [result_product, result_product])
    result = at.linalg_solve(self_, at.flatten_using_ints(other, 0, -1), True)
    return at.reshape(result, result_shape)


def linalg_tensorsolve_out(self, other, dims, out):
    _check_compatible("tensorsolve", out, self)
    return _copy_into(out, at.linalg_tensorsolve(self, other, dims))
