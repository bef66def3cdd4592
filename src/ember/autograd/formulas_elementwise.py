"""Backward helpers of the elementwise operators: sgn, sinc, logit, mvlgamma, the Bessel
functions i1 / i1e, deg2rad / rad2deg, atan2, copysign, and the masked xlogy forms.

Layer: autograd. In: gradients and saved values. Out: input gradients, built from
dispatched operators so create_graph records them. Mirrors sgn_backward, sinc_backward,
infinitely_differentiable_logit_backward, mvlgamma_backward, i1_backward, i1e_backward,
deg2rad_backward, rad2deg_backward and copysign_tensor_self_backward of
torch/csrc/autograd/FunctionsManual.cpp.
"""

from __future__ import annotations

import math

import numpy as np

from ember.aten.native import at

__all__ = [
    "sgn_backward",
    "sinc_backward",
    "logit_backward",
    "mvlgamma_backward",
    "i1_backward",
    "i1e_backward",
    "deg2rad_backward",
    "rad2deg_backward",
    "scalar_like",
    "copysign_tensor_self_backward",
    "not_implemented",
    "angle_backward",
]


def angle_backward(grad, self):
    """Zero for real inputs; i grad z / |z|^2 (zero at z == 0) for complex ones."""
    if not self.dtype.is_complex:
        return at.zeros_like(self, None, None, None, None, None)
    ratio = at.div_Tensor(at.mul_Tensor(grad, self), at.pow_Tensor_Scalar(at.abs(self), 2))
    rotated = at.mul_Scalar(ratio, 1j)
    return at.where_self(at.eq_Scalar(self, 0.0), scalar_like(0, self), rotated)


def not_implemented(name: str):
    """torch::autograd::not_implemented: a formula PyTorch leaves unwritten."""
    raise NotImplementedError(f"the derivative for '{name}' is not implemented.")


def scalar_like(value, tensor):
    """at::scalar_tensor(value, tensor.options()): a 0-d tensor of tensor's dtype."""
    return at.full([], value, tensor.dtype, None, tensor.device, None)


def sgn_backward(x, gx, sgn):
    """(gx - sgn sgn conj(gx)) / 2|x|, zero where |x| is zero; a ZeroTensor for real x."""
    if not x.dtype.is_complex:
        return at._efficientzerotensor(list(sgn.shape), sgn.dtype, None, sgn.device, None)
    magnitude = at.abs(x)
    step = at.sub_Tensor(gx, at.mul_Tensor(at.mul_Tensor(sgn, sgn), at.conj(gx)), 1)
    result = at.div_Tensor(step, at.mul_Scalar(magnitude, 2.0))
    return at.masked_fill__Scalar(result, at.eq_Scalar(magnitude, 0.0), 0.0)


def sinc_backward(grad, self):
    self_pi = at.mul_Scalar(self, math.pi)
    self_squared_pi = at.mul_Scalar(at.mul_Tensor(self, self), math.pi)
    numerator = at.sub_Tensor(at.mul_Tensor(self_pi, at.cos(self_pi)), at.sin(self_pi), 1)
    out = at.div_Tensor(at.mul_Tensor(grad, numerator), at.conj(self_squared_pi))
    return at.where_self(at.eq_Scalar(self_squared_pi, 0.0), scalar_like(0, grad), out)


def logit_backward(grad, self, eps):
    """infinitely_differentiable_logit_backward: 0 outside [eps, 1 - eps]; NaN outside
    [0, 1] without eps."""
    if eps is not None and eps >= 0:
        inside = at.logical_and(at.ge_Scalar(self, eps), at.le_Scalar(self, 1 - eps))
        outside = scalar_like(0, self)
    else:
        inside = at.logical_and(at.ge_Scalar(self, 0), at.le_Scalar(self, 1))
        outside = scalar_like(math.nan, self)
    denominator = at.mul_Tensor(self, at.rsub_Scalar(self, 1, 1))
    return at.where_self(inside, at.div_Tensor(grad, denominator), outside)


def mvlgamma_backward(grad, self, p):
    offsets = at.arange_start_step(-p / 2.0 + 0.5, 0.5, 0.5, self.dtype, None, self.device, None)
    args = at.add_Tensor(offsets, at.unsqueeze(self, -1), 1)
    return at.mul_Tensor(grad, at.sum_dim_IntList(at.digamma(args), [-1], False, None))


def _tiny_safe(self):
    eps = float(np.finfo(self.dtype.np_dtype).eps)
    not_tiny = at.gt_Scalar(at.abs(self), eps)
    return not_tiny, at.where_self(not_tiny, self, scalar_like(eps, self))


def i1_backward(grad, self, result):
    not_tiny, safe = _tiny_safe(self)
    gradx = at.sub_Tensor(at.i0(safe), at.mul_Tensor(result, at.reciprocal(safe)), 1)
    return at.mul_Tensor(grad, at.where_self(not_tiny, gradx, scalar_like(0.5, self)))


def i1e_backward(grad, self, result):
    not_tiny, safe = _tiny_safe(self)
    factor = at.add_Tensor(at.sgn(safe), at.reciprocal(safe), 1)
    gradx = at.sub_Tensor(at.special_i0e(safe), at.mul_Tensor(result, factor), 1)
    return at.mul_Tensor(grad, at.where_self(not_tiny, gradx, scalar_like(0.5, self)))


def deg2rad_backward(grad):
    return at.mul_Scalar(grad, math.pi / 180)


def rad2deg_backward(grad):
    return at.mul_Scalar(grad, 180 / math.pi)


def copysign_tensor_self_backward(grad, self, result):
    ratio = at.div_Tensor(result, self)
    ratio = at.masked_fill_Scalar(ratio, at.eq_Scalar(self, 0), 0)
    return at.mul_Tensor(grad, ratio)
