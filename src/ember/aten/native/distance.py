"""Distances: cosine_similarity, pdist / _pdist_forward / _pdist_backward, cdist /
_cdist_forward / _cdist_backward and _euclidean_dist.

Layer: aten/native. In: the schema's arguments. Out: fresh tensors. The
CompositeImplicitAutograd ones (cosine_similarity, pdist, cdist) call operators through
`at` in the order of their C++ expressions, so a dispatch mode sees PyTorch's list; the CPU
kernels compute every pair's p-norm in NumPy in the tensor's dtype (p == 0 counts the
nonzero differences, inf takes the largest). Mirrors ATen/native/Distance.cpp and
ATen/native/cpu/DistanceOpsKernel.cpp.
"""

from __future__ import annotations

import math

import numpy as np

from ember._c10 import dtypes
from ember._c10.grad_mode import is_grad_enabled, set_grad_enabled
from ember._c10.memory_format import contiguous_format
from ember._tensor import wrap_array
from ember.aten.native import at
from ember.aten.native.views import scalar_type_name_of
from ember.aten.tensor_iterator import broadcast_shapes

__all__ = [
    "cosine_similarity", "pdist", "_pdist_forward", "_pdist_backward", "cdist",
    "_cdist_forward", "_cdist_backward", "_euclidean_dist",
]  # fmt: skip


def _no_grad_clamp_min_(tensors, eps):
    """`{ NoGradGuard guard; t.clamp_min_(eps); }` (a double binds clamp_min_.Tensor)."""
    before = is_grad_enabled()
    set_grad_enabled(False)
    try:
        bound = wrap_array(np.array(eps, dtype=tensors[0].dtype.np_dtype), tensors[0].dtype)
        for t in tensors:
            at.clamp_min__Tensor(t, bound)
    finally:
        set_grad_enabled(before)


def cosine_similarity(x1, x2, dim, eps):
    common = dtypes.promote_types(x1.dtype, x2.dtype)
    if not common.is_floating_point or common.is_complex:
        raise RuntimeError(
            "expected common dtype to be floating point, yet common dtype is "
            f"{scalar_type_name_of(common)}"
        )
    if not x1.dtype.is_floating_point and not x1.dtype.is_complex:
        x1 = at.to_dtype(x1, common, False, False, None)
    if not x2.dtype.is_floating_point and not x2.dtype.is_complex:
        x2 = at.to_dtype(x2, common, False, False, None)
    if x1._sizes != x2._sizes:
        shape = list(broadcast_shapes(x1._sizes, x2._sizes))
        x1, x2 = at.expand(x1, shape, False), at.expand(x2, shape, False)
    x1_norm = at.clone(at.linalg_vector_norm(x1, 2, [dim], True, None), None)
    x2_norm = at.clone(at.linalg_vector_norm(x2, 2, [dim], True, None), None)
    _no_grad_clamp_min_((x1_norm, x2_norm), eps)
    product = at.mul_Tensor(at.div_Tensor(x1, x1_norm), at.div_Tensor(x2, x2_norm))
    return at.sum_dim_IntList(product, [dim], False, None)


# -- the p-norm of a difference and its derivative (DistanceOpsKernel.cpp) ----------------


def _norms(diff, p: float, axis: int = -1):
    absolute = np.abs(diff)
    if p == 0:
        return np.sum(absolute != 0, axis=axis).astype(diff.dtype)
    if p == 1:
        return np.sum(absolute, axis=axis)
    if p == 2:
        return np.sqrt(np.sum(absolute * absolute, axis=axis))
    if math.isinf(p):
        if diff.shape[axis] == 0:
            return np.zeros(np.delete(diff.shape, axis), diff.dtype)
        return np.max(absolute, axis=axis)
    return np.power(np.sum(np.power(absolute, p), axis=axis), 1.0 / p)


def _norm_grads(diff, grad, dist, p: float):
    """d dist / d diff times grad, per element (grad and dist broadcast over the last axis)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        if p == 0:
            return np.zeros_like(diff)
        if p == 1:
            return np.sign(diff) * grad
        if math.isinf(p):
            return np.sign(diff) * (np.abs(diff) == dist) * grad
        if p < 2:
            values = np.sign(diff) * np.power(np.abs(diff), p - 1) * grad / np.power(dist, p - 1)
            zero = (dist == 0) | ((diff == 0) & (p < 1))
            return np.where(zero, 0, values)
        if p == 2:
            return np.where(dist == 0, 0, grad * diff / dist)
        values = diff * np.power(np.abs(diff), p - 2) * grad / np.power(dist, p - 1)
        return np.where(dist == 0, 0, values)


def _cpu_only(name: str, tensor) -> None:
    if tensor.device.type != "cpu":
        raise RuntimeError(
            f"{name} only supports CPU and CUDA devices, got: {tensor.device.type.upper()}"
        )


def _floating_kernel(name: str, dtype) -> None:
    if dtype not in (dtypes.float32, dtypes.float64):
        raise NotImplementedError(f"\"{name}\" not implemented for '{scalar_type_name_of(dtype)}'")


# -- pdist ---------------------------------------------------------------------------------


def pdist(self, p):
    if self.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {self.dim()}D")
    if not self.dtype.is_floating_point:
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    return at._pdist_forward(at.contiguous(self, contiguous_format), p)


def _pairs(n: int):
    return np.triu_indices(n, 1)


def _pdist_forward(self, p):
    if not self.is_contiguous():
        raise RuntimeError("_pdist_forward requires contiguous input")
    n = self._sizes[0]
    if n <= 1:
        return wrap_array(np.empty((0,), self.dtype.np_dtype), self.dtype)
    if self._sizes[1] == 0:
        return wrap_array(np.zeros((n * (n - 1) // 2,), self.dtype.np_dtype), self.dtype)
    _floating_kernel("pdist", self.dtype)
    x = self.ndarray()
    rows, cols = _pairs(n)
    return wrap_array(_norms(x[rows] - x[cols], p).astype(x.dtype, copy=False), self.dtype)


def _pdist_backward(grad, self, p, pdist):
    if not self.is_contiguous():
        raise RuntimeError("_pdist_backward requires self to be contiguous")
    if not pdist.is_contiguous():
        raise RuntimeError("_pdist_backward requires pdist to be contiguous")
    x = self.ndarray()
    n = self._sizes[0]
    result = np.zeros(x.shape, x.dtype)
    if n > 1 and self._sizes[1] > 0 and p != 0:
        _floating_kernel("pdist_backward", self.dtype)
        rows, cols = _pairs(n)
        g = grad.ndarray()[:, None].astype(x.dtype, copy=False)
        d = pdist.ndarray()[:, None].astype(x.dtype, copy=False)
        pair = _norm_grads(x[rows] - x[cols], g, d, p).astype(x.dtype, copy=False)
        np.add.at(result, rows, pair)
        np.subtract.at(result, cols, pair)
    return wrap_array(result, self.dtype)


# -- cdist ---------------------------------------------------------------------------------


def _use_mm(p, mode, r1, r2) -> bool:
    """See PyTorch's note "cdist relies on cdist_impl redispatching" in Distance.cpp."""
    return p == 2 and (mode == 1 or (mode == 0 and (r1 > 25 or r2 > 25)))


def _check_cdist_args(x1, x2) -> None:
    if x1.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.dim()}D")
    if x2.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X2 got: {x2.dim()}D")
    if x1._sizes[-1] != x2._sizes[-1]:
        raise RuntimeError(
            "X1 and X2 must have the same number of columns. "
            f"X1: {x1._sizes[-1]} X2: {x2._sizes[-1]}"
        )


def cdist(x1, x2, p, compute_mode):
    _check_cdist_args(x1, x2)
    if x1.numel() == 0 or x2.numel() == 0:
        return at._cdist_forward(x1, x2, p, compute_mode)
    mode = 0 if compute_mode is None else compute_mode
    if _use_mm(p, mode, x1._sizes[-2], x2._sizes[-2]):
        return _cdist_impl(x1, x2, p, compute_mode)
    return at._cdist_forward(x1, x2, p, compute_mode)


def _cdist_impl(x1, x2, p, compute_mode):
    for name, t in (("X1", x1), ("X2", x2)):
        if not t.dtype.is_floating_point:
            raise RuntimeError(
                f"cdist only supports floating-point dtypes, {name} got: "
                f"{scalar_type_name_of(t.dtype)}"
            )
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    mode = 0 if compute_mode is None else compute_mode
    if not 0 <= mode <= 2:
        raise RuntimeError(f"possible modes: 0, 1, 2, but was: {mode}")
    r1, c1 = x1._sizes[-2:]
    r2, c2 = x2._sizes[-2:]
    batch = list(broadcast_shapes(x1._sizes[:-2], x2._sizes[:-2]))
    product = math.prod(batch)
    expanded1 = at.view(at.contiguous(at.expand(x1, batch + [r1, c1], False), contiguous_format),
                        [product, r1, c1])  # fmt: skip
    expanded2 = at.view(at.contiguous(at.expand(x2, batch + [r2, c2], False), contiguous_format),
                        [product, r2, c2])  # fmt: skip
    shape = batch + [r1, r2]
    if r1 == 0 or r2 == 0 or product == 0:
        return at.empty_memory_format(shape, x1.dtype, None, x1.device, None, None)
    if c1 == 0:
        return at.zeros(shape, x1.dtype, None, x1.device, None)
    if _use_mm(p, mode, r1, r2):
        dist = (
            at._euclidean_dist(x1, x2) if product == 1 else at._euclidean_dist(expanded1, expanded2)
        )
        return at.view(dist, shape)
    _floating_kernel("cdist", x1.dtype)
    if x2.dtype is not x1.dtype:  # the kernel reads x2 as x1's scalar type
        raise RuntimeError(
            f"expected scalar type {scalar_type_name_of(x1.dtype)} but found "
            f"{scalar_type_name_of(x2.dtype)}"
        )
    a, b = expanded1.ndarray(), expanded2.ndarray()
    values = _norms(a[:, :, None, :] - b[:, None, :, :], p).astype(a.dtype, copy=False)
    return wrap_array(np.ascontiguousarray(values.reshape(shape)), x1.dtype)


def _cdist_forward(x1, x2, p, compute_mode):
    _check_cdist_args(x1, x2)
    return _cdist_impl(x1, x2, p, compute_mode)


def _cdist_backward(grad, x1, x2, p, cdist):
    r1, c1 = x1._sizes[-2:]
    r2, c2 = x2._sizes[-2:]
    batch = list(broadcast_shapes(x1._sizes[:-2], x2._sizes[:-2]))
    product = math.prod(batch)
    if r1 == 0 or r2 == 0 or c1 == 0 or product == 0:
        return at.zeros_like(x1, None, None, None, None, None)
    _floating_kernel("cdist_backward", x1.dtype)
    a = np.broadcast_to(x1.ndarray(), batch + [r1, c1]).reshape(product, r1, c1)
    b = np.broadcast_to(x2.ndarray(), batch + [r2, c2]).reshape(product, r2, c2)
    g = grad.ndarray().reshape(product, r1, r2, 1)
    d = cdist.ndarray().reshape(product, r1, r2, 1)
    pair = _norm_grads(a[:, :, None, :] - b[:, None, :, :], g, d, p)
    values = np.sum(pair, axis=2).astype(a.dtype, copy=False)
    return wrap_array(np.ascontiguousarray(values.reshape(batch + [r1, c1])), x1.dtype)


def _euclidean_dist(x1, x2):
    x1_norm = at.sum_dim_IntList(at.pow_Tensor_Scalar(x1, 2), [-1], True, None)
    x1_pad = at.ones_like(x1_norm, None, None, None, None, None)
    x2_norm = at.sum_dim_IntList(at.pow_Tensor_Scalar(x2, 2), [-1], True, None)
    x2_pad = at.ones_like(x2_norm, None, None, None, None, None)
    x1_ = at.cat([at.mul_Scalar(x1, -2), x1_norm, x1_pad], -1)
    x2_ = at.cat([x2, x2_pad, x2_norm], -1)
    result = at.matmul(x1_, at.transpose_int(x2_, -2, -1))
    at.sqrt_(at.clamp_min_(result, 0))
    return result
