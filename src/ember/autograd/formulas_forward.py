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
    "copy_tangent",
    "evenly_read_jvp",
    "gather_with_keepdimed_indices",
    "logsumexp_jvp",
    "norm_jvp",
    "prod_jvp",
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


def copy_tangent(src_t, sizes):
    """copy_'s tangent for a self without one: src's, broadcast to self's size."""
    if tuple(src_t._sizes) != tuple(sizes):
        return src_t.expand(list(sizes))
    return src_t.clone()
