"""Kernels of the losses beyond nll / cross_entropy / mse: l1, smooth_l1, huber,
soft_margin, binary_cross_entropy (and with logits), kl_div, poisson_nll,
pairwise_distance.

Layer: aten/native. In: the full schema arguments (`reduction` is at::Reduction's
number), or a StructuredMeta and `out` for smooth_l1_loss. Out: tensors. The
CompositeImplicitAutograd ones call operators through `at` in the order of their C++
expressions (a dispatch mode sees them); the CPU ones compute in NumPy in the opmath
dtype. Mirrors ATen/native/Loss.cpp and BinaryCrossEntropy.cpp.
"""

from __future__ import annotations

import numpy as np

from ember._c10 import dtypes
from ember._c10.geometry import shape_text
from ember._tensor import empty_tensor
from ember.aten.meta.loss import REDUCTION_MEAN, REDUCTION_SUM
from ember.aten.native import at
from ember.aten.native.reduction import store
from ember.aten.tensor_iterator import broadcast_shapes
from ember.aten.ufunc_loops import quiet
from ember.aten.ufunc_special import not_implemented_for, opmath

__all__ = [
    "l1_loss",
    "smooth_l1_loss_out",
    "smooth_l1_loss_backward",
    "huber_loss",
    "huber_loss_backward",
    "soft_margin_loss",
    "soft_margin_loss_backward",
    "binary_cross_entropy_cpu",
    "binary_cross_entropy_backward_cpu",
    "binary_cross_entropy_with_logits",
    "kl_div",
    "poisson_nll_loss",
    "pairwise_distance",
]


def apply_loss_reduction(loss, reduction: int):
    if reduction == REDUCTION_MEAN:
        return at.mean(loss, None)
    if reduction == REDUCTION_SUM:
        return at.sum(loss, None)
    return loss


def _reduced(values, reduction: int):
    with np.errstate(invalid="ignore", divide="ignore"):
        if reduction == REDUCTION_MEAN:
            return np.asarray(np.mean(values))
        if reduction == REDUCTION_SUM:
            return np.asarray(np.sum(values))
    return values


def _operands(kernel: str, *tensors):
    """The operands in the opmath dtype of their common dtype (TensorIterator's broadcast
    error for shapes that do not broadcast; AT_DISPATCH's for non-float dtypes)."""
    sizes = tensors[0]._sizes
    for t in tensors[1:]:
        if t is not None:
            sizes = broadcast_shapes(sizes, t._sizes)
    dtype = tensors[0].dtype
    for t in tensors[1:]:
        if t is not None:
            dtype = dtypes.promote_types(dtype, t.dtype)
    if not dtype.is_floating_point:
        not_implemented_for(kernel, dtype)
    compute = opmath(dtype.np_dtype)
    arrays = [None if t is None else t.ndarray().astype(compute, copy=False) for t in tensors]
    return dtype, arrays


def _result(values, dtype, device):
    out = empty_tensor(tuple(np.shape(values)), dtype, device)
    store(out, values)
    return out


def _norm(reduction: int, numel: int) -> float:
    return 1.0 / numel if reduction == REDUCTION_MEAN and numel else 1.0


# -- l1, smooth_l1, huber, soft_margin ----------------------------------------------------


def l1_loss(self, target, reduction):
    return apply_loss_reduction(at.abs(at.sub_Tensor(self, target, 1)), reduction)


@quiet
def smooth_l1_loss_out(meta, self, target, reduction, beta, out) -> None:
    compute = meta.compute_dtype
    if not compute.is_floating_point:
        not_implemented_for("smooth_l1_cpu", compute)
    np_type = opmath(compute.np_dtype)
    x = self.ndarray().astype(np_type) - target.ndarray().astype(np_type)
    z = np.abs(x)
    beta_ = np_type.type(beta)
    loss = np.where(z < beta_, 0.5 * z * z / beta_, z - 0.5 * beta_) if beta else z
    store(out, _reduced(loss, reduction))


@quiet
def smooth_l1_loss_backward(grad_output, self, target, reduction, beta):
    dtype, (grad, x, y) = _operands("smooth_l1_backward_cpu", grad_output, self, target)
    norm = grad.dtype.type(_norm(reduction, self.numel()))
    diff = x - y
    beta_ = diff.dtype.type(beta)
    inside = norm * diff * grad / beta_ if beta else np.zeros_like(diff)
    values = np.where(diff < -beta_, -norm * grad, np.where(diff > beta_, norm * grad, inside))
    return _result(np.broadcast_to(values, np.broadcast_shapes(diff.shape, grad.shape)),
                   dtype, self.device)  # fmt: skip


@quiet
def huber_loss(self, target, reduction, delta):
    if not delta > 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    dtype, (x, y) = _operands("huber_cpu", self, target)
    z = np.abs(x - y)
    delta_ = z.dtype.type(delta)
    loss = np.where(z < delta_, 0.5 * z * z, delta_ * (z - 0.5 * delta_))
    return _result(_reduced(loss, reduction), dtype, self.device)


@quiet
def huber_loss_backward(grad_output, self, target, reduction, delta):
    dtype, (grad, x, y) = _operands("huber_backward_cpu_out", grad_output, self, target)
    norm = grad.dtype.type(_norm(reduction, self.numel()))
    diff = x - y
    delta_ = diff.dtype.type(delta)
    values = np.where(
        diff < -delta_, -norm * grad * delta_,
        np.where(diff > delta_, norm * grad * delta_, norm * diff * grad),
    )  # fmt: skip
    return _result(np.broadcast_to(values, np.broadcast_shapes(diff.shape, grad.shape)),
                   dtype, self.device)  # fmt: skip


@quiet
def soft_margin_loss(self, target, reduction):
    if self.dtype is dtypes.bool:  # at::neg_out(output, input), then in-place exp_
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
            "to invert a mask, use the `~` or `logical_not()` operator instead."
        )
    if not (self.dtype.is_floating_point or self.dtype.is_complex):
        raise RuntimeError(
            "result type Float can't be cast to the desired output type "
            f"{dtypes.scalar_type_name(self.dtype)}"
        )
    dtype, (x, y) = _operands("soft_margin_loss", self, target)
    return _result(_reduced(np.log1p(np.exp(-x * y)), reduction), dtype, self.device)


@quiet
def soft_margin_loss_backward(grad_output, self, target, reduction):
    dtype, (grad, x, y) = _operands("soft_margin_loss_backward", grad_output, self, target)
    norm = x.dtype.type(_norm(reduction, self.numel()))
    z = np.exp(-y * x)
    return _result(-norm * y * z / (1 + z) * grad, dtype, self.device)


# -- binary_cross_entropy ---------------------------------------------------------------


def _check_bce_sizes(self, target, weight) -> None:
    if self._sizes != target._sizes:
        raise RuntimeError(
            f"The size of target {shape_text(target._sizes)} must be the same as the size "
            f"of input {shape_text(self._sizes)}"
        )


@quiet
def binary_cross_entropy_cpu(self, target, weight, reduction):
    _check_bce_sizes(self, target, weight)
    dtype, (x, y, w) = _operands("binary_cross_entropy", self, target, weight)
    if ((x < 0) | (x > 1)).any():
        raise RuntimeError("all elements of input should be between 0 and 1")
    if ((y < 0) | (y > 1)).any():
        raise RuntimeError("all elements of target should be between 0 and 1")
    with np.errstate(divide="ignore", invalid="ignore"):
        low = x.dtype.type(-100)
        loss = (y - 1) * np.maximum(np.log1p(-x), low) - y * np.maximum(np.log(x), low)
    if w is not None:
        loss = loss * w
    return _result(_reduced(loss, reduction), self.dtype, self.device)


@quiet
def binary_cross_entropy_backward_cpu(grad_output, self, target, weight, reduction):
    dtype, (grad, x, y, w) = _operands(
        "binary_cross_entropy_backward", grad_output, self, target, weight
    )
    eps = x.dtype.type(1e-12)
    values = grad * (x - y) / np.maximum((1 - x) * x, eps)
    if w is not None:
        values = values * w
    if reduction == REDUCTION_MEAN:
        values = values / x.dtype.type(self.numel())
    return _result(np.broadcast_to(values, self._sizes), self.dtype, self.device)


def binary_cross_entropy_with_logits(self, target, weight, pos_weight, reduction):
    log_sigmoid_input = at.log_sigmoid(self)
    if pos_weight is not None:
        log_weight = at.add__Scalar(at.mul_Tensor(at.sub_Scalar(pos_weight, 1, 1), target), 1, 1)
        log_sigmoid_input = at.mul__Tensor(log_sigmoid_input, log_weight)
    one_minus_target = at.sub__Tensor(
        at.fill__Scalar(at.empty_like(target, None, None, None, None, None), 1), target, 1
    )
    loss = at.sub__Tensor(at.mul__Tensor(one_minus_target, self), log_sigmoid_input, 1)
    if weight is not None:
        loss = at.mul__Tensor(loss, weight)
    return apply_loss_reduction(loss, reduction)


# -- the CompositeImplicitAutograd losses -------------------------------------------------


def _xlogy(target):
    """at::xlogy(target, target) where this build has it, else its values: 0 where the
    target is 0, target * log(target) elsewhere (a dispatch mode then sees those ops)."""
    try:
        xlogy = at.xlogy_Tensor
    except AttributeError:
        zero = at.zeros_like(target, None, None, None, None, None)
        return at.where_self(at.eq_Scalar(target, 0), zero, at.mul_Tensor(target, at.log(target)))
    return xlogy(target, target)


def kl_div(self, target, reduction, log_target):
    if self.dtype.is_complex or target.dtype.is_complex:
        raise RuntimeError("kl_div: Complex inputs not supported.")
    if not (self.dtype.is_floating_point and target.dtype.is_floating_point):
        raise RuntimeError("kl_div: Integral inputs not supported.")
    if log_target:
        difference = at.sub_Tensor(target, self, 1)
        output = at.mul_Tensor(at.exp(target), difference)
    else:
        product = at.mul_Tensor(target, self)
        output = at.sub_Tensor(_xlogy(target), product, 1)
    return apply_loss_reduction(output, reduction)


_PI = 3.141592653589793


def poisson_nll_loss(input, target, log_input, full, eps, reduction):  # noqa: A002
    if log_input:
        product = at.mul_Tensor(target, input)
        loss = at.sub_Tensor(at.exp(input), product, 1)
    else:
        logged = at.log(at.add_Scalar(input, eps, 1))
        loss = at.sub_Tensor(input, at.mul_Tensor(target, logged), 1)
    if full:
        half_log = at.mul_Scalar(at.log(at.mul_Scalar(target, 2 * _PI)), 0.5)
        entropy = at.sub_Tensor(at.mul_Tensor(target, at.log(target)), target, 1)
        stirling = at.add_Tensor(entropy, half_log, 1)
        loss = at.add__Tensor(loss, at.masked_fill_Scalar(stirling, at.le_Scalar(target, 1), 0), 1)
    return apply_loss_reduction(loss, reduction)


def pairwise_distance(x1, x2, p, eps, keepdim):
    output_dim = max(x1.dim(), x2.dim())
    innermost = output_dim - 1
    shifted = at.add_Scalar(at.sub_Tensor(x1, x2, 1), eps, 1)
    return at.norm_ScalarOpt_dim(shifted, p, [innermost], keepdim)
