"""Helpers the forward formulas (`result:` entries) of derivatives.yaml call.

Layer: autograd. In: primals, tangents and results of an operator. Out: the result's
tangent. Built from dispatched operators, as the backward helpers are (a tangent that
requires grad records its graph). Mirrors the *_jvp functions of
torch/csrc/autograd/FunctionsManual.cpp. See Note [Generated forward formulas].
"""

from __future__ import annotations

import math

from ember.aten.native import at

__all__ = [
    "amaxamin_jvp",
    "apply_loss_reduction",
    "batch_norm_jvp",
    "clamp_jvp",
    "convolution_jvp",
    "glu_jvp",
    "layer_norm_jvp",
    "logcumsumexp_jvp",
    "copy_tangent",
    "evenly_read_jvp",
    "gather_with_keepdimed_indices",
    "logsumexp_jvp",
    "norm_jvp",
    "prod_jvp",
    "sgn_jvp",
    "std_jvp",
    "var_jvp",
]


def _dims(dim, ndim: int) -> list[int]:
    if dim is None:
        return list(range(ndim))
    if isinstance(dim, int):
        dim = [dim]
    return [d % ndim if ndim else 0 for d in dim]


def _unsqueeze_reduced(tensor, dim, keepdim: bool, ndim: int):
    """A reduction's result with its reduced dims back (size 1), as restore_reduced_dims."""
    if keepdim or ndim == 0:
        return tensor
    for d in sorted(_dims(dim, ndim)):
        tensor = tensor.unsqueeze(d)
    return tensor


def _real(tensor):
    return tensor.real if tensor.dtype.is_complex else tensor


def logsumexp_jvp(self_p, self_t, dim, keepdim: bool):
    if self_p.numel() > 0:  # the exp-normalize trick
        self_p_exp = (self_p - at.amax(self_p, list(dim), True)).exp()
    else:
        self_p_exp = self_p.exp()
    sumexp_p = self_p_exp.sum(list(dim), keepdim)
    return (self_p_exp * self_t).sum(list(dim), keepdim) / sumexp_p


def amaxamin_jvp(x, dx, result, dim, keepdim: bool):
    mask = x == _unsqueeze_reduced(result, dim, keepdim, x.dim())
    dims = _dims(dim, x.dim()) if list(dim) else list(range(x.dim()))
    return at.where_ScalarOther(mask, dx, 0.0).sum(dims, keepdim) / mask.sum(dims, keepdim)


def evenly_read_jvp(fw_grad, input, value):  # noqa: A002 (PyTorch's name)
    mask = input == value
    count = mask.sum()
    return (at.where_ScalarOther(mask, fw_grad, 0.0)).sum() / count


def gather_with_keepdimed_indices(input, dim: int, indices, keepdim: bool):  # noqa: A002
    full = indices if keepdim else indices.unsqueeze(dim)
    out = at.gather(input, dim, full, False)
    return out if keepdim else out.squeeze(dim)


def norm_jvp(self_p, self_t, p, norm, dim=None, keepdim: bool = False):
    ndim = self_p.dim()
    dims = _dims(dim, ndim) if dim is not None and list(dim) else list(range(ndim))
    p = 2.0 if p is None else float(p)
    if p == 0.0:
        return at.zeros_like(norm, None, None, None, None, None)
    if p == 1.0:
        return _real(self_p.sgn().conj() * self_t).sum(dims, keepdim)
    if p == 2.0:
        out = _real(self_p.conj() * self_t).sum(dims, keepdim) / norm
        return out.masked_fill(norm == 0, 0)
    if math.isinf(p):
        full = _unsqueeze_reduced(norm, dims, keepdim, ndim)
        nan_both = self_p.isnan().logical_and(full.isnan())
        is_max = (self_p.abs() == full).logical_or(nan_both).type_as(full)
        count = is_max.sum(dims, keepdim)
        return (_real(self_p.sgn().conj() * self_t) * is_max).sum(dims, keepdim) / count
    if p < 1.0:
        scale = self_p.abs().pow(p - 1).masked_fill(self_p == 0, 0)
        return (scale * _real(self_p.sgn().conj() * self_t)).sum(dims, keepdim) * norm.pow(1 - p)
    out = (self_p.abs().pow(p - 2) * _real(self_p.conj() * self_t)).sum(dims, keepdim)
    return (out / norm.pow(p - 1)).masked_fill(norm == 0, 0)


def prod_jvp(self_p, self_t, result, dim=None, keepdim: bool = False):
    from .formulas import prod_backward

    ones = at.ones([], result.dtype, None, result.device, None).expand_as(result)
    if dim is None:
        grad = prod_backward(ones, self_p.to(result.dtype), result)
        return (grad * self_t.conj()).sum().conj()
    grad = prod_backward(ones, self_p.to(result.dtype), result, dim, keepdim)
    return (grad * self_t.conj()).sum(dim, keepdim).conj()


def var_jvp(self_p, self_t, dim, correction, keepdim: bool):
    from .formulas import var_backward

    dims = [] if dim is None else dim
    return _real(var_backward(self_t.conj(), self_p, dim, correction, True).sum(dims, keepdim))


def std_jvp(self_p, self_t, result, dim, correction, keepdim: bool):
    return (var_jvp(self_p, self_t, dim, correction, keepdim) / (2.0 * result)).masked_fill(
        result == 0, 0
    )


def sgn_jvp(self_p, self_t, result):
    """sgn's tangent: sgn_backward's formula, which is zero for a real input (a plain zero
    tensor here, as PyTorch's; ember's backward helper gives a ZeroTensor)."""
    if not self_p.dtype.is_complex:
        return at.zeros_like(self_t, None, None, None, None, None)
    from .formulas import sgn_backward

    return sgn_backward(self_p, self_t, result)


def copy_tangent(src_t, sizes):
    """copy_'s tangent for a self without one: src's, broadcast to self's size."""
    if tuple(src_t._sizes) != tuple(sizes):
        return src_t.expand(list(sizes))
    return src_t.clone()


def logcumsumexp_jvp(self_p, self_t, dim: int):
    if self_p.numel() > 0:
        self_p_exp = (self_p - at.amax(self_p, [dim], True)).exp()
    else:
        self_p_exp = self_p.exp()
    return (self_p_exp * self_t).cumsum(dim) / self_p_exp.cumsum(dim)


def clamp_jvp(self_p, self_t, min_p, min_t, max_p, max_t):
    if min_p is not None and max_p is not None:
        inner = at.where_self(self_p > max_p, max_t, self_t)
        inner = at.where_self(self_p < min_p, min_t, inner)
        return at.where_self(min_p > max_p, max_t, inner)
    if min_p is not None:
        return at.where_self(self_p > min_p, self_t, min_t)
    if max_p is not None:
        return at.where_self(self_p < max_p, self_t, max_t)
    return self_t


def glu_jvp(glu, x, dx, dim: int):
    half = x.size(dim) // 2
    sig_b = x.narrow(dim, half, half).sigmoid()
    da = dx.narrow(dim, 0, half)
    db = dx.narrow(dim, half, half)
    return da * sig_b + db * (glu - glu * sig_b)


def _affine(tensor, sizes):
    return None if tensor is None else tensor.view(sizes)


def layer_norm_jvp(input_p, input_t, weight_p, weight_t, bias_p, bias_t, mean, invstd, shape):
    ndim = input_t.dim()
    lead = ndim - len(shape)
    dims = list(range(lead, ndim))
    view = [1 if i >= lead else s for i, s in enumerate(input_t._sizes)]
    view_affine = [1 if i < lead else s for i, s in enumerate(input_t._sizes)]
    mean_p = mean.view(view)
    invstd_p = invstd.view(view)
    centred_t = input_t - input_t.mean(dims, True)
    invstd_t = -invstd_p.pow(3) * (centred_t * (input_p - mean_p)).mean(dims, True)
    result_t = centred_t * invstd_p + (input_p - mean_p) * invstd_t
    if weight_p is not None:
        result_t = result_t * weight_p.view(view_affine)
    if weight_t is not None:
        result_t = result_t + weight_t.view(view_affine) * (input_p - mean_p) * invstd_p
    if bias_t is not None:
        result_t = result_t + bias_t.view(view_affine)
    return result_t


def batch_norm_jvp(
    input_p, input_t, weight_p, weight_t, bias_p, bias_t, running_mean, running_var,
    saved_mean, saved_invstd, train: bool, eps: float,
):  # fmt: skip
    dims = [d for d in range(input_t.dim()) if d != 1]
    view = [s if d == 1 else 1 for d, s in enumerate(input_t._sizes)]
    if train:
        count = 1
        for d in dims:
            count *= input_t._sizes[d]
        mean_p = saved_mean.view(view)
        invstd_p = saved_invstd.view(view)
        centred_t = input_t - input_t.mean(dims, True)
        invstd_t = -invstd_p.pow(3) * (centred_t * (input_p - mean_p)).sum(dims, True) / count
        result_t = centred_t * invstd_p + (input_p - mean_p) * invstd_t
    else:
        mean_p = running_mean.view(view)
        invstd_p = (1 / (running_var + eps).sqrt()).view(view)
        result_t = input_t * invstd_p
    if weight_p is not None:
        result_t = result_t * weight_p.view(view)
    if weight_t is not None:
        result_t = result_t + weight_t.view(view) * (input_p - mean_p) * invstd_p
    if bias_t is not None:
        result_t = result_t + bias_t.view(view)
    return result_t


def convolution_jvp(
    input_p, input_t, weight_p, weight_t, bias_p, bias_t, stride, padding, dilation,
    transposed: bool, output_padding, groups: int,
):  # fmt: skip
    args = (stride, padding, dilation, transposed, output_padding, groups)
    return at.convolution(input_t, weight_p, None, *args) + at.convolution(
        input_p, weight_t, bias_t, *args
    )


def apply_loss_reduction(unreduced, reduction: int):
    """Reduction::Mean (1) and Sum (2) of an elementwise loss's tangent."""
    if reduction == 1:
        return unreduced.mean()
    if reduction == 2:
        return unreduced.sum()
    return unreduced
