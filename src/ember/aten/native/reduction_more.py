"""More reductions and scans: var_mean / std_mean, nansum / nanmean, aminmax,
cummax / cummin and logcumsumexp.

Layer: aten/native. In: the schema arguments (out tensors for the out= overloads). Out:
tensors computed by NumPy. var_mean / std_mean compute what var / std and mean compute;
nanmean is CompositeImplicitAutograd (ne, logical_not_, sum, nansum, div as
ATen/native/ReduceOps.cpp writes it); logcumsumexp is CompositeExplicitAutograd over
_logcumsumexp. Mirrors ATen/native/ReduceOps.cpp (std_var_mean, nansum, nanmean,
aminmax, cummax / cummin and their helpers, logcumsumexp).
"""

from __future__ import annotations

import numpy as np

from ember._c10 import dtypes
from ember._tensor import empty_tensor
from ember.aten.meta import reduction as meta_reduction
from ember.aten.native import at
from ember.aten.native.common import type_meta_name, wrap_dim
from ember.aten.native.reduction import store
from ember.aten.native.reduction_stats import _var_values
from ember.aten.native.resize import resize_output

__all__ = [
    "_cummax_helper",
    "_cummin_helper",
    "_logcumsumexp",
    "_logcumsumexp_out",
    "aminmax",
    "aminmax_out",
    "cummax",
    "cummax_out",
    "cummin",
    "cummin_out",
    "logcumsumexp",
    "logcumsumexp_out",
    "nanmean",
    "nanmean_out",
    "nansum",
    "nansum_out",
    "std_mean",
    "std_mean_correction",
    "std_mean_dim",
    "var_mean",
    "var_mean_correction",
    "var_mean_dim",
]


def _stat_mean(name: str, self, dim, correction, keepdim, take_sqrt: bool):
    if not (self.dtype.is_floating_point or self.dtype.is_complex):
        raise RuntimeError(f"{name} only support floating point and complex dtypes")
    dims = meta_reduction.reduced_dims(self, dim)
    sizes = meta_reduction.reduction_shape(self, dims, keepdim)
    stat = empty_tensor(sizes, self.dtype.to_real(), self.device)
    if self.device.type != "meta":
        store(stat, _var_values(name.split("_")[0], self, dims, correction, keepdim, take_sqrt))
    return stat, at.mean_dim(self, dims, keepdim, None)


def var_mean_correction(self, dim, correction, keepdim):
    return _stat_mean("var_mean", self, dim, correction, keepdim, False)


def std_mean_correction(self, dim, correction, keepdim):
    return _stat_mean("std_mean", self, dim, correction, keepdim, True)


def var_mean(self, unbiased):
    return at.var_mean_correction(self, None, 1 if unbiased else 0, False)


def var_mean_dim(self, dim, unbiased, keepdim):
    return at.var_mean_correction(self, dim, 1 if unbiased else 0, keepdim)


def std_mean(self, unbiased):
    return at.std_mean_correction(self, None, 1 if unbiased else 0, False)


def std_mean_dim(self, dim, unbiased, keepdim):
    return at.std_mean_correction(self, dim, 1 if unbiased else 0, keepdim)


def _nansum_dtype(self, dtype):
    if dtype is not None:
        return dtype
    if self.dtype.is_floating_point or self.dtype.is_complex:
        return self.dtype
    return dtypes.int64


def _nansum_values(self, dims, keepdim, dtype):
    if self.dtype.is_complex:
        raise RuntimeError("nansum on CPU does not support complex inputs")
    values = self.ndarray()
    if self.dtype is dtypes.bfloat16 or self.dtype is dtypes.float16:
        values = values.astype(np.float32)
    compute = dtype.np_dtype if not dtype.is_floating_point else values.dtype
    if dtype.is_floating_point and np.dtype(dtype.np_dtype).itemsize > values.dtype.itemsize:
        values = values.astype(dtype.np_dtype)
    with np.errstate(all="ignore"):
        return np.nansum(values, axis=tuple(dims), keepdims=keepdim, dtype=compute)


def nansum(self, dim, keepdim, dtype):
    dtype = _nansum_dtype(self, dtype)
    dims = meta_reduction.reduced_dims(self, dim)
    result = empty_tensor(meta_reduction.reduction_shape(self, dims, keepdim), dtype, self.device)
    if self.device.type != "meta":
        store(result, _nansum_values(self, dims, keepdim, dtype))
    return result


def nansum_out(self, dim, keepdim, dtype, out):
    dtype = _nansum_dtype(self, dtype) if dtype is not None else out.dtype
    dims = meta_reduction.reduced_dims(self, dim)
    resize_output(out, meta_reduction.reduction_shape(self, dims, keepdim))
    store(out, _nansum_values(self, dims, keepdim, dtype))
    return out


def _nanmean_check(self) -> None:
    if not (self.dtype.is_floating_point or self.dtype.is_complex):
        raise RuntimeError(
            "nanmean(): expected input to have floating point or complex dtype but got "
            f"{dtypes.scalar_type_name(self.dtype)}"
        )


def nanmean(self, dim, keepdim, dtype):
    _nanmean_check(self)
    plain = at.detach(self)
    factor = at.sum_dim_IntList(at.logical_not_(at.ne_Tensor(plain, plain)), dim, keepdim, None)
    return at.div_Tensor(at.nansum(self, dim, keepdim, dtype), factor)


def nanmean_out(self, dim, keepdim, dtype, out):
    _nanmean_check(self)
    plain = at.detach(self)
    factor = at.sum_dim_IntList(at.logical_not_(at.ne_Tensor(plain, plain)), dim, keepdim, None)
    at.nansum_out(self, dim, keepdim, dtype, out)
    return at.div__Tensor(out, factor)


def _aminmax_values(self, dim, keepdim):
    if self.dim() > 64:
        raise RuntimeError("only tensors with up to 64 dims are supported")
    if self.dtype.is_complex:
        raise NotImplementedError(
            f"\"aminmax_cpu\" not implemented for '{dtypes.scalar_type_name(self.dtype)}'"
        )
    if dim is None:
        if self.numel() == 0:
            raise RuntimeError(
                "aminmax(): cannot compute aminmax over an empty dimension as the operation "
                "has no identity."
            )
        axes = tuple(range(self.dim()))
    else:
        wrapped = wrap_dim(dim, self.dim())
        if self.dim() > 0 and self._sizes[wrapped] == 0:
            raise IndexError(f"aminmax: Expected reduction dim {wrapped} to have non-zero size.")
        axes = (wrapped,) if self.dim() > 0 else ()
    values = self.ndarray()
    if self.dtype is dtypes.bfloat16:
        values = values.astype(np.float32)
    if dim is None and not keepdim:
        shape = ()
    elif keepdim:
        shape = tuple(1 if d in axes else s for d, s in enumerate(self._sizes))
    else:
        shape = tuple(s for d, s in enumerate(self._sizes) if d not in axes)
    low = np.min(values, axis=axes, keepdims=True).reshape(shape)
    high = np.max(values, axis=axes, keepdims=True).reshape(shape)
    return shape, low, high


def aminmax(self, dim, keepdim):
    shape, low, high = _aminmax_values(self, dim, keepdim)
    minimum = empty_tensor(shape, self.dtype, self.device)
    maximum = empty_tensor(shape, self.dtype, self.device)
    store(minimum, low)
    store(maximum, high)
    return minimum, maximum


def aminmax_out(self, dim, keepdim, min, max):  # noqa: A002 (PyTorch's names)
    for out in (min, max):  # the structured out= check of set_output
        if out.dtype is not self.dtype:
            raise RuntimeError(
                f"Expected out tensor to have dtype {type_meta_name(self.dtype)}, but got "
                f"{type_meta_name(out.dtype)} instead"
            )
    shape, low, high = _aminmax_values(self, dim, keepdim)
    resize_output(min, shape)
    resize_output(max, shape)
    store(min, low)
    store(max, high)
    return min, max


def _cumulative_extreme(name: str, self, dim, values, indices, better) -> None:
    """cummax_cummin_helper: a NaN, or a value `better` than (or equal to) the running one,
    takes over the value and its index."""
    if self.dtype.is_complex:
        raise NotImplementedError(
            f"\"{name}_cpu\" not implemented for '{dtypes.scalar_type_name(self.dtype)}'"
        )
    data = self.ndarray()
    if self.dim() == 0:
        store(values, data)
        store(indices, np.zeros((), np.int64))
        return
    axis = wrap_dim(dim, self.dim())
    moved = np.moveaxis(data, axis, -1)
    out_values = np.empty_like(moved)
    out_indices = np.empty(moved.shape, np.int64)
    floating = self.dtype.is_floating_point
    for position in np.ndindex(moved.shape[:-1]):
        row = moved[position]
        best, best_index = row[0], 0
        for i, x in enumerate(row):
            x_nan = floating and x != x
            if x_nan or (not (floating and best != best) and better(x, best)):
                best, best_index = x, i
            out_values[position + (i,)] = best
            out_indices[position + (i,)] = best_index
    store(values, np.moveaxis(out_values, -1, axis))
    store(indices, np.moveaxis(out_indices, -1, axis))


def _cummax_helper(self, values, indices, dim) -> None:
    _cumulative_extreme("cummax", self, dim, values, indices, lambda x, best: x >= best)


def _cummin_helper(self, values, indices, dim) -> None:
    _cumulative_extreme("cummin", self, dim, values, indices, lambda x, best: x <= best)


def _cum_extreme(helper, self, dim, values, indices):
    wrap_dim(dim, self.dim())
    resize_output(values, self._sizes)
    resize_output(indices, self._sizes)
    if self.numel():
        helper(self, values, indices, dim)
    return values, indices


def cummax(self, dim):
    values = empty_tensor(self._sizes, self.dtype, self.device)
    indices = empty_tensor(self._sizes, dtypes.int64, self.device)
    return _cum_extreme(at._cummax_helper, self, dim, values, indices)


def cummax_out(self, dim, values, indices):
    return _cum_extreme(at._cummax_helper, self, dim, values, indices)


def cummin(self, dim):
    values = empty_tensor(self._sizes, self.dtype, self.device)
    indices = empty_tensor(self._sizes, dtypes.int64, self.device)
    return _cum_extreme(at._cummin_helper, self, dim, values, indices)


def cummin_out(self, dim, values, indices):
    return _cum_extreme(at._cummin_helper, self, dim, values, indices)


def _complex_logcumsumexp(data, axis: int):
    """_log_add_exp_helper for complex values, element after element: the operand with the
    larger real part plus log1p(exp(other - it)); finite values only."""
    if not np.isfinite(data).all():
        raise NotImplementedError(
            "ember: logcumsumexp of a complex tensor holding inf or NaN is not implemented"
        )
    moved = np.moveaxis(data, axis, 0).copy()
    for i in range(1, moved.shape[0]):
        previous, current = moved[i - 1], moved[i]
        larger = np.where(previous.real < current.real, current, previous)
        smaller = np.where(previous.real < current.real, previous, current)
        moved[i] = larger + np.log1p(np.exp(smaller - larger))
    return np.moveaxis(moved, 0, axis)


def _logcumsumexp_values(self, dim):
    if self.dtype.is_complex:
        data = self.ndarray()
        if self.dim() == 0:
            return data
        return _complex_logcumsumexp(data, wrap_dim(dim, self.dim()))
    if not self.dtype.is_floating_point:
        raise NotImplementedError(
            f"\"logcumsumexp_out_cpu\" not implemented for '{dtypes.scalar_type_name(self.dtype)}'"
        )
    data = self.ndarray()
    if self.dtype is dtypes.bfloat16 or self.dtype is dtypes.float16:
        data = data.astype(np.float32)
    if self.dim() == 0:
        return data
    return _real_logcumsumexp(data, wrap_dim(dim, self.dim()))


def _real_logcumsumexp(data, axis: int):
    """logcumsumexp_cpu_kernel: the running value kept in acc_type<scalar_t, false> (double
    for float and double, float for the half types), one _log_add_exp_helper per element:
    log1p(exp(min - max)) + max, or the element itself where both are the same infinity."""
    acc = np.float64 if data.dtype.itemsize >= 4 else np.float32
    moved = np.moveaxis(data, axis, 0).astype(acc)
    with np.errstate(all="ignore"):
        for i in range(1, moved.shape[0]):
            x, running = moved[i], moved[i - 1]
            running_nan = np.isnan(running)
            low = np.where(running_nan, running, np.minimum(x, running))
            high = np.where(running_nan, running, np.maximum(x, running))
            step = np.log1p(np.exp((low - high).astype(np.float64))).astype(acc)
            combined = (step + high).astype(acc)
            moved[i] = np.where((low != high) | np.isfinite(low), combined, x)
    return np.moveaxis(moved, 0, axis)


def _logcumsumexp(self, dim):
    wrap_dim(dim, self.dim())
    result = empty_tensor(self._sizes, self.dtype, self.device)
    if self.numel():
        store(result, _logcumsumexp_values(self, dim))
    return result


def _logcumsumexp_out(self, dim, out):
    wrap_dim(dim, self.dim())
    resize_output(out, self._sizes)
    if self.numel():
        store(out, _logcumsumexp_values(self, dim))
    return out


def logcumsumexp(self, dim):
    return at._logcumsumexp(self, dim)


def logcumsumexp_out(self, dim, out):
    result = at._logcumsumexp(self, dim)
    resize_output(out, result._sizes)
    return at.copy_(out, result, False)
