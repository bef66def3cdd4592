"""The margin losses: margin_ranking, hinge_embedding, cosine_embedding, triplet_margin
(CompositeImplicitAutograd), multi_margin and multilabel_margin (CPU kernels and their
backward kernels).

Layer: aten/native. In: the schema's arguments (`reduction` is at::Reduction's number).
Out: tensors. The composites call operators through `at` in the order of their C++
expressions (C++'s `scalar - tensor` is empty_like + fill_ + sub_); the CPU kernels loop
over frames in NumPy as LossMultiMargin.cpp and LossMultiLabelMargin.cpp do. Mirrors
ATen/native/Loss.cpp, LossMultiMargin.cpp, LossMultiLabelMargin.cpp and LossMulti.h.
"""

from __future__ import annotations

import math

import numpy as np

from ember._c10 import dtypes
from ember._c10.memory_format import contiguous_format, preserve_format
from ember._tensor import wrap_array
from ember.aten.meta.loss import REDUCTION_MEAN, REDUCTION_NONE
from ember.aten.native import at
from ember.aten.native.loss_more import apply_loss_reduction
from ember.aten.native.views import fmt_ints, scalar_type_name_of

__all__ = [
    "margin_ranking_loss", "hinge_embedding_loss", "cosine_embedding_loss",
    "triplet_margin_loss", "multi_margin_loss_cpu", "multi_margin_loss_cpu_backward",
    "multilabel_margin_loss", "multilabel_margin_loss_forward_cpu",
    "multilabel_margin_loss_backward_cpu",
]  # fmt: skip

EPSILON = float(np.float32(1e-12))  # Loss.cpp's `constexpr float EPSILON`


def _scalar_minus(value, tensor):
    """C++'s `Scalar - Tensor` (TensorOperators.h): empty_like, fill_, sub_."""
    out = at.empty_like(tensor, None, None, None, None, preserve_format)
    at.fill__Scalar(out, value)
    return at.sub__Tensor(out, tensor, 1)


# -- the composites (Loss.cpp) -------------------------------------------------------------


def margin_ranking_loss(input1, input2, target, margin, reduction):
    difference = at.sub_Tensor(input1, input2, 1)  # C++ evaluates `-target *`'s right side first
    unclamped = at.add_Scalar(at.mul_Tensor(at.neg(target), difference), margin, 1)
    return apply_loss_reduction(at.clamp_min_(unclamped, 0), reduction)


def hinge_embedding_loss(self, target, margin, reduction):
    zeros = at.zeros_like(self, None, None, None, None, contiguous_format)
    margin_clamp = at.clamp_min_(_scalar_minus(margin, self), 0)
    output_margin = at.where_self(at.ne_Scalar(target, 1), margin_clamp, zeros)
    output_self = at.where_self(at.ne_Scalar(target, -1), self, zeros)
    return apply_loss_reduction(at.add_Tensor(output_margin, output_self, 1), reduction)


def cosine_embedding_loss(input1, input2, target, margin, reduction):
    targ_dim = target.dim()
    if targ_dim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if targ_dim == 1 and not (input1.dim() == 2 and input2.dim() == 2):
        raise RuntimeError(
            "1D target tensor expects 2D input tensors, but found inputs with sizes "
            f"{fmt_ints(input1._sizes)} and {fmt_ints(input2._sizes)}."
        )
    if targ_dim == 0 and not (input1.dim() == 1 and input2.dim() == 1):
        raise RuntimeError(
            "0D target tensor expects 1D input tensors, but found inputs with sizes "
            f"{fmt_ints(input1._sizes)} and {fmt_ints(input2._sizes)}."
        )
    prod_sum = at.sum_dim_IntList(at.mul_Tensor(input1, input2), [targ_dim], False, None)
    mag_square1 = at.add_Scalar(
        at.sum_dim_IntList(at.mul_Tensor(input1, input1), [targ_dim], False, None), EPSILON, 1
    )
    mag_square2 = at.add_Scalar(
        at.sum_dim_IntList(at.mul_Tensor(input2, input2), [targ_dim], False, None), EPSILON, 1
    )
    denom = at.sqrt_(at.mul_Tensor(mag_square1, mag_square2))
    cos = at.div_Tensor(prod_sum, denom)
    zeros = at.zeros_like(cos, None, None, None, None, contiguous_format)
    pos = _scalar_minus(1, cos)
    neg = at.clamp_min_(at.sub_Scalar(cos, margin, 1), 0)
    output_pos = at.where_self(at.eq_Scalar(target, 1), pos, zeros)
    output_neg = at.where_self(at.eq_Scalar(target, -1), neg, zeros)
    return apply_loss_reduction(at.add_Tensor(output_pos, output_neg, 1), reduction)


def triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, reduction):
    a_dim, p_dim, n_dim = anchor.dim(), positive.dim(), negative.dim()
    if not (a_dim == p_dim and p_dim == n_dim):
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number "
            f"of dimensions, but got: anchor {a_dim}D, positive {p_dim}D, and negative "
            f"{n_dim}D inputs"
        )
    dist_pos = at.pairwise_distance(anchor, positive, p, eps, False)
    dist_neg = at.pairwise_distance(anchor, negative, p, eps, False)
    if swap:
        dist_swap = at.pairwise_distance(positive, negative, p, eps, False)
        dist_neg = at.minimum(dist_neg, dist_swap)
    output = at.clamp_min(at.sub_Tensor(at.add_Scalar(dist_pos, margin, 1), dist_neg, 1), 0)
    return apply_loss_reduction(output, reduction)


# -- shared checks (LossMulti.h) -----------------------------------------------------------


def _frames(self) -> tuple[int, int]:
    ndims = self.dim()
    sizes = self._sizes
    if not ((ndims == 2 and sizes[1] != 0) or (ndims == 1 and sizes[0] != 0) or ndims == 0):
        raise RuntimeError(
            "Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
            f"{fmt_ints(sizes)}"
        )
    if ndims <= 1:
        return 1, 1 if ndims == 0 else sizes[0]
    return sizes[0], sizes[1]


def _floating(name: str, dtype) -> None:
    if dtype not in (dtypes.float32, dtypes.float64):
        raise NotImplementedError(f"\"{name}\" not implemented for '{scalar_type_name_of(dtype)}'")


def _data(tensor, dtype):
    """data_ptr<scalar_t>(): the dtype must be exactly the kernel's."""
    if tensor.dtype != dtype:
        raise RuntimeError(
            f"expected scalar type {scalar_type_name_of(dtype)} but found "
            f"{scalar_type_name_of(tensor.dtype)}"
        )
    return tensor.ndarray()


def _apply_grad_output(grad, grad_output, reduction, nframe):
    g = grad_output.ndarray().astype(grad.dtype, copy=False)
    if reduction != REDUCTION_NONE or grad_output.dim() == 0:
        return grad * g.reshape(-1)[0]
    return grad * g.reshape(nframe, 1)


# -- multi_margin_loss (LossMultiMargin.cpp) -----------------------------------------------


def _to_int(value) -> int:
    """Scalar::toInt: truncation, and c10's overflow error outside int32 (NaN and inf too)."""
    if isinstance(value, float) and not math.isfinite(value) or not (-(2**31) <= value < 2**31):
        raise RuntimeError("value cannot be converted to type int without overflow")
    return int(value)


def _multi_margin_setup(self, target, p, margin, weight):
    p = _to_int(p)
    if p not in (1, 2):
        raise RuntimeError("only p == 1 and p == 2 supported")
    nframe, dim = _frames(self)
    if not (target.dim() <= 1 and target.numel() == nframe):
        raise RuntimeError(
            "multi_margin_loss: target tensor should be 1-D with size equal to the number of "
            f"input samples (batch size). Expected target size [{nframe}], but got "
            f"{fmt_ints(target._sizes)}. Input has shape {fmt_ints(self._sizes)}."
        )
    if weight is not None and not (weight.dim() <= 1 and weight.numel() == dim):
        raise RuntimeError(
            f"inconsistent weight size, expected {dim} but got {fmt_ints(weight._sizes)}"
        )
    return p, nframe, dim


def _multi_margin_arrays(self, target, weight, nframe, dim):
    _floating("multi_margin_loss_cpu_kernel", self.dtype)
    x = self.ndarray().reshape(nframe, dim)
    idx = _data(target, dtypes.int64).reshape(nframe)
    w = None if weight is None else _data(weight, self.dtype).reshape(dim)
    if ((idx < 0) | (idx >= dim)).any():
        raise RuntimeError("target out of range")
    return x, idx, w


def multi_margin_loss_cpu(self, target, p, margin, weight, reduction):
    p, nframe, dim = _multi_margin_setup(self, target, p, margin, weight)
    scalar_out = not (reduction == REDUCTION_NONE and target.dim() > 0)
    if self.numel() == 0:
        return at.empty_memory_format([] if scalar_out else [nframe], self.dtype, None,
                                      self.device, None, None)  # fmt: skip
    x, idx, w = _multi_margin_arrays(self, target, weight, nframe, dim)
    rows = np.arange(nframe)
    margin_ = x.dtype.type(margin)
    z = margin_ - x[rows, idx][:, None] + x
    h = np.where(z > 0, z if p == 1 else z * z, 0).astype(x.dtype, copy=False)
    if w is not None:
        h = h * w[idx][:, None]
    h[rows, idx] = 0
    per_frame = (np.sum(h, axis=1) / dim).astype(x.dtype, copy=False)
    if not scalar_out:
        return wrap_array(per_frame, self.dtype)
    total = np.sum(per_frame)
    if reduction == REDUCTION_MEAN:
        total = total / nframe
    return wrap_array(np.asarray(total, dtype=x.dtype), self.dtype)


def multi_margin_loss_cpu_backward(grad_output, self, target, p, margin, weight, reduction):
    p, nframe, dim = _multi_margin_setup(self, target, p, margin, weight)
    if self.numel() == 0:
        return at.zeros_like(self, None, None, None, None, None)
    x, idx, w = _multi_margin_arrays(self, target, weight, nframe, dim)
    g = x.dtype.type(1.0 / (nframe * dim) if reduction == REDUCTION_MEAN else 1.0 / dim)
    rows = np.arange(nframe)
    z = x.dtype.type(margin) - x[rows, idx][:, None] + x
    h = np.where(z > 0, g if p == 1 else 2 * g * z, 0).astype(x.dtype, copy=False)
    if w is not None:
        h = h * w[idx][:, None]
    h[rows, idx] = 0
    h[rows, idx] = -np.sum(h, axis=1)
    grad = _apply_grad_output(h, grad_output, reduction, nframe)
    return wrap_array(np.ascontiguousarray(grad).reshape(self._sizes), self.dtype)


# -- multilabel_margin_loss (LossMultiLabelMargin.cpp) -------------------------------------


def multilabel_margin_loss(self, target, reduction):
    return at.multilabel_margin_loss_forward(self, target, reduction)[0]


def _multilabel_setup(self, target):
    nframe, dim = _frames(self)
    ndims = self.dim()
    if ndims <= 1:
        ok = target.dim() <= 1 and target.numel() == dim
    else:
        ok = target.dim() == 2 and target._sizes[0] == nframe and target._sizes[1] == dim
    if not ok:
        raise RuntimeError(
            f"inconsistent target size: {fmt_ints(target._sizes)} for input of size: "
            f"{fmt_ints(self._sizes)}"
        )
    return nframe, dim


def _multilabel_arrays(self, target, nframe, dim, is_target=None):
    """The targets of each row (up to its first -1), the is_target mask (computed, or the
    backward's saved one) and the hinge terms z[t, j, d] = 1 - x[t, target[t, j]] + x[t, d]
    that count (valid j, d not a target, z > 0)."""
    values = target.ndarray()
    if values.size and (values.min() < -1 or values.max() >= dim):
        raise RuntimeError("argument #2 'target' is out of range")
    _floating("multilabel_margin_loss_forward_out_frame", self.dtype)
    idx = _data(target, dtypes.int64).reshape(nframe, dim)
    x = self.ndarray().reshape(nframe, dim)
    valid = np.cumprod(idx >= 0, axis=1).astype(bool)
    if is_target is None:
        mask = np.zeros((nframe, dim), dtype=x.dtype)
        rows = np.broadcast_to(np.arange(nframe)[:, None], idx.shape)
        mask[rows[valid], idx[valid]] = 1
    else:
        mask = _data(is_target, self.dtype).reshape(nframe, dim)
    picked = np.take_along_axis(x, np.where(valid, idx, 0), axis=1)
    z = 1 - picked[:, :, None] + x[:, None, :]
    counted = valid[:, :, None] & (mask[:, None, :] == 0) & (z > 0)
    return x, idx, valid, mask, z, counted


def multilabel_margin_loss_forward_cpu(self, target, reduction):
    nframe, dim = _multilabel_setup(self, target)
    scalar_out = reduction != REDUCTION_NONE or target.dim() <= 1
    if self.numel() == 0:
        out = at.empty_memory_format([] if scalar_out else [nframe], self.dtype, None,
                                     self.device, None, None)  # fmt: skip
        return out, at.empty_memory_format(list(target._sizes), self.dtype, None, self.device,
                                           None, None)  # fmt: skip
    x, _, _, is_target, z, counted = _multilabel_arrays(self, target, nframe, dim)
    per_frame = (np.sum(np.where(counted, z, 0), axis=(1, 2)) / dim).astype(x.dtype)
    if scalar_out:
        total = np.sum(per_frame)
        if reduction == REDUCTION_MEAN:
            total = total / nframe
        output = np.asarray(total, dtype=x.dtype)
    else:
        output = per_frame
    return (wrap_array(output, self.dtype),
            wrap_array(np.ascontiguousarray(is_target).reshape(target._sizes), self.dtype))  # fmt: skip


def multilabel_margin_loss_backward_cpu(grad_output, self, target, reduction, is_target):
    nframe, dim = _multilabel_setup(self, target)
    if is_target._sizes != target._sizes:
        raise RuntimeError(
            f"inconsistent is_target size: {fmt_ints(is_target._sizes)} for target of size: "
            f"{fmt_ints(target._sizes)}"
        )
    if self.numel() == 0:
        return at.zeros_like(self, None, None, None, None, None)
    x, idx, valid, _, _, counted = _multilabel_arrays(self, target, nframe, dim, is_target)
    g = x.dtype.type(1.0 / (nframe * dim) if reduction == REDUCTION_MEAN else 1.0 / dim)
    grad = np.zeros((nframe, dim), dtype=x.dtype)
    grad += g * np.sum(counted, axis=1)  # +g at each counted d
    minus = g * np.sum(counted, axis=2)  # -g at target[t, j] per counted (j, d)
    rows = np.broadcast_to(np.arange(nframe)[:, None], idx.shape)
    np.subtract.at(grad, (rows[valid], idx[valid]), minus[valid])
    grad = _apply_grad_output(grad, grad_output, reduction, nframe)
    return wrap_array(np.ascontiguousarray(grad).reshape(self._sizes), self.dtype)
