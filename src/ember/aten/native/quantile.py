"""quantile and nanquantile (the Tensor and float q overloads, and their out= forms).

Layer: aten/native (CompositeImplicitAutograd kernels). In: the full schema argument list.
Out: the quantiles, computed by other operators in PyTorch's order (sort, the ranks,
gather, lerp_), so a dispatch mode sees PyTorch's operator sequence and autograd comes
from those operators. Mirrors quantile_impl and its callers in ATen/native/Sorting.cpp:
the input is sorted along the reduced dim (moved last, or flattened), q is turned into
ranks in [0, n) (nanquantile counts the non-NaN values; quantile sends a row holding
NaN to its last rank), the ranks are rounded for lower / higher / nearest, and linear /
midpoint interpolate between the neighbouring sorted values.
"""

from __future__ import annotations

import numpy as np

from ember._c10 import dtypes
from ember._c10.layout import strided
from ember.aten.native import at
from ember.aten.native.common import wrap_dim
from ember.aten.native.ranges import _cpp
from ember.aten.native.resize import resize_output_check

__all__ = [
    "quantile",
    "quantile_out",
    "quantile_scalar",
    "quantile_scalar_out",
    "nanquantile",
    "nanquantile_out",
    "nanquantile_scalar",
    "nanquantile_scalar_out",
]

_MODES = ("linear", "lower", "higher", "midpoint", "nearest")


def _mode(interpolation: str) -> str:
    if interpolation not in _MODES:
        raise RuntimeError(
            "quantile() interpolation must be one of linear, lower, higher, midpoint or "
            f"nearest, but got {interpolation}"
        )
    return interpolation


def _check(self, q, out) -> None:
    if self.numel() == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    if q.dim() > 1:
        raise RuntimeError("quantile() q must be a scalar or 1D tensor")
    if self.dtype not in (dtypes.float32, dtypes.float64):
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if q.dtype is not self.dtype:
        raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
    if out is not None and out.dtype is not self.dtype:
        raise RuntimeError("quantile() out tensor must be same dtype as the input tensor")


def _output_shape(self, q, dim, wrapped: int, keepdim: bool) -> list:
    """q's size, then the reduced input's sizes."""
    shape = []
    if dim is not None and self.dim() > 0:
        shape = list(self._sizes)
        if keepdim:
            shape[wrapped] = 1
        else:
            del shape[wrapped]
    elif keepdim:
        shape = [1] * self.dim()
    if q.dim() > 0:
        shape.insert(0, q.numel())
    return shape


def _sorted(self, dim, wrapped: int):
    if dim is None:
        return at.sort(at.flatten_using_ints(self, 0, -1), -1, False)[0]
    if wrapped == self.dim() - 1:
        return at.sort(self, -1, False)[0]
    return at.sort(at.transpose_int(at.unsqueeze(self, -1), wrapped, -1), -1, False)[0]


def _to_long(t):
    return at._to_copy(t, dtypes.int64, strided, t.device, None, False, None)


def _ranks(sorted_, q, ignore_nan: bool):
    if ignore_nan:
        present = at.logical_not_(at.isnan(sorted_))
        counts = at.sub_Scalar(at.sum_dim_IntList(present, [-1], True, None), 1, 1)
        ranks = at.mul_Tensor(q, counts)
        return at.masked_fill__Scalar(ranks, at.lt_Scalar(ranks, 0), 0)
    last_index = sorted_._sizes[-1] - 1
    scaled = at.mul_Scalar(q, last_index)
    ranks, has_nan = at.broadcast_tensors([scaled, at.any_dim(at.isnan(sorted_), -1, True)])
    return at.masked_fill_Scalar(ranks, has_nan, last_index)


def _quantile(self, q, dim, keepdim, interpolation, ignore_nan, out=None):
    mode = _mode(interpolation)
    wrapped = wrap_dim(0 if dim is None else dim, self.dim())
    _check(self, q, out)
    out_shape = _output_shape(self, q, dim, wrapped, keepdim)
    if out is not None and resize_output_check(out, tuple(out_shape)):
        at.resize_(out, out_shape, None)
    if self.device.type == "cpu":
        values = q.ndarray()
        if not np.all((values >= 0) & (values <= 1)):
            raise RuntimeError("quantile() q values must be in the range [0, 1]")
    sorted_ = _sorted(self, dim, wrapped)
    if q.dim() == 0:
        out_shape.insert(0, q.numel())
    in_shape = out_shape[1:] + [sorted_._sizes[-1]]
    sorted_ = at.view(sorted_, in_shape)
    if sorted_._sizes[-1] > 1 << 24:
        raise RuntimeError("quantile() input tensor is too large")
    ranks = _ranks(sorted_, q, ignore_nan)
    if mode == "lower":
        at.floor_(ranks)
    elif mode == "higher":
        at.ceil_(ranks)
    elif mode == "nearest":
        at.round_(ranks)
    ranks_below = _to_long(ranks)
    values_below = at.gather(sorted_, -1, ranks_below, False)
    if mode in ("linear", "midpoint"):
        if mode == "midpoint":
            weights = at.full_like(ranks, 0.5, None, None, None, None, None)
        else:
            weights = at.sub_Tensor(ranks, ranks_below, 1)
        ranks_above = _to_long(at.ceil_(ranks))
        values_above = at.gather(sorted_, -1, ranks_above, False)
        at.lerp__Tensor(values_below, values_above, weights)
    if q.dim() == 0:
        at.squeeze__dim(values_below, -1)
    else:
        at.squeeze__dim(at.transpose_(at.unsqueeze_(values_below, 0), 0, -1), -1)
    if out is None:
        return values_below
    return at.copy_(out, values_below, False)


def _scalar_q(self, q):
    if not 0 <= q <= 1:
        raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {_cpp(q)}")
    return at.scalar_tensor(q, self.dtype, strided, self.device, None)


def quantile(self, q, dim, keepdim, interpolation):
    return _quantile(self, q, dim, keepdim, interpolation, False)


def quantile_out(self, q, dim, keepdim, interpolation, out):
    return _quantile(self, q, dim, keepdim, interpolation, False, out)


def quantile_scalar(self, q, dim, keepdim, interpolation):
    return _quantile(self, _scalar_q(self, q), dim, keepdim, interpolation, False)


def quantile_scalar_out(self, q, dim, keepdim, interpolation, out):
    return _quantile(self, _scalar_q(self, q), dim, keepdim, interpolation, False, out)


def nanquantile(self, q, dim, keepdim, interpolation):
    return _quantile(self, q, dim, keepdim, interpolation, True)


def nanquantile_out(self, q, dim, keepdim, interpolation, out):
    return _quantile(self, q, dim, keepdim, interpolation, True, out)


def nanquantile_scalar(self, q, dim, keepdim, interpolation):
    return _quantile(self, _scalar_q(self, q), dim, keepdim, interpolation, True)


def nanquantile_scalar_out(self, q, dim, keepdim, interpolation, out):
    return _quantile(self, _scalar_q(self, q), dim, keepdim, interpolation, True, out)
