"""Backward helpers of var_mean / std_mean, nansum, aminmax, cummax / cummin and
logcumsumexp.

Layer: autograd. In: gradients (None for an output that got none) and saved values.
Out: the input's gradient, built from dispatched operators. Mirrors var_mean_backward,
std_mean_backward, nansum_backward, aminmax_backward, cummaxmin_backward and
logcumsumexp_backward of torch/csrc/autograd/FunctionsManual.cpp.
"""

from __future__ import annotations

import numpy as np

from ember.aten.native import at
from ember.aten.tensor_subclass_like import are_any_tensor_subclass_like

__all__ = [
    "aminmax_backward",
    "cummaxmin_backward",
    "logcumsumexp_backward",
    "nansum_backward",
    "std_mean_backward",
    "var_mean_backward",
]


def _mean_part(gmean, self, dim, keepdim):
    from ember.autograd.formulas import mean_backward

    return mean_backward(gmean, self._sizes, [] if dim is None else dim, self.numel(), keepdim)


def var_mean_backward(gvar, gmean, self, dim, correction, keepdim):
    from ember.autograd.formulas import var_backward

    gself = None
    if gvar is not None:
        gself = var_backward(gvar, self, dim, correction, keepdim)
    if gmean is not None:
        part = _mean_part(gmean, self, dim, keepdim)
        gself = part if gself is None else at.add_Tensor(gself, part, 1)
    return gself


def std_mean_backward(gstd, gmean, self, std, dim, correction, keepdim):
    from ember.autograd.formulas import std_backward

    gself = None
    if gstd is not None:
        gself = std_backward(std, gstd, self, dim, correction, keepdim)
    if gmean is not None:
        part = _mean_part(gmean, self, dim, keepdim)
        gself = part if gself is None else at.add_Tensor(gself, part, 1)
    return gself


def nansum_backward(grad, self, dim, keepdim):
    from ember.autograd.formulas import sum_backward

    return at.mul_Tensor(
        sum_backward(grad, self._sizes, dim, keepdim), at.logical_not(at.isnan(self))
    )


def aminmax_backward(self, dim, keepdim, grad_min, grad_max, min, max):  # noqa: A002
    from ember.autograd.formulas import amax_amin_backward

    dims = [] if dim is None else [dim]
    parts = []
    if grad_min is not None:
        parts.append(amax_amin_backward(grad_min, self, min, dims, keepdim))
    if grad_max is not None:
        parts.append(amax_amin_backward(grad_max, self, max, dims, keepdim))
    if len(parts) == 2:
        return at.add_Tensor(parts[0], parts[1], 1)
    return parts[0] if parts else None


def cummaxmin_backward(grad, input, indices, dim):  # noqa: A002 (PyTorch's name)
    if input.numel() == 0:
        return input
    result = at.zeros(list(input._sizes), input.dtype, None, input.device, None)
    if are_any_tensor_subclass_like(indices, grad):
        return at.scatter_add(result, dim, indices, grad)
    return at.scatter_add_(result, dim, indices, grad)


def logcumsumexp_backward(grad, self, result, dim):
    if grad.dim() == 0 or grad.numel() == 0:
        return grad
    if grad.dtype.is_complex:
        raise NotImplementedError("ember: logcumsumexp_backward of a complex gradient")
    lowest = float(np.finfo(np.float32 if grad.dtype.itemsize < 8 else np.float64).min)
    if grad.dtype.itemsize == 2:
        lowest = float(np.finfo(grad.dtype.np_dtype).min) if grad.dtype.np_dtype else lowest
    grad_min = at.full([], lowest, grad.dtype, None, grad.device, None)

    def reverse_logcumsumexp(x):
        return at.flip(at.logcumsumexp(at.flip(x, [dim]), dim), [dim])

    log_abs_grad = at.log(at.abs(grad))
    log_grad_positive = at.where_self(at.gt_Scalar(grad, 0), log_abs_grad, grad_min)
    log_grad_negative = at.where_self(at.lt_Scalar(grad, 0), log_abs_grad, grad_min)
    output_pos = at.exp(
        at.add_Tensor(reverse_logcumsumexp(at.sub_Tensor(log_grad_positive, result, 1)), self, 1)
    )
    output_neg = at.exp(
        at.add_Tensor(reverse_logcumsumexp(at.sub_Tensor(log_grad_negative, result, 1)), self, 1)
    )
    return at.sub_Tensor(output_pos, output_neg, 1)
