"""Kernels of the statistical reductions: var, std, norm, logsumexp.

Layer: aten/native. In: the schema arguments (var/std/logsumexp and the full
norm overloads are plain kernels that work on CPU and meta tensors alike) or
a StructuredMeta + out tensor (norm.out, norm.dtype_out). Out: tensors.
Mirrors std_var_out of ATen/native/ReduceOps.cpp, linalg_vector_norm of
ATen/native/LinearAlgebra.cpp (the p = 0, 1, 2, inf, -inf and general cases)
and logsumexp of ATen/native/ReduceOps.cpp.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from ember._c10 import dtypes
from ember._tensor import empty_tensor
from ember.aten.meta import reduction as meta_reduction
from ember.aten.native import at
from ember.aten.native.reduction import accumulate_dtype, store
from ember.aten.native.resize import check_input_not_resized, resize_output

__all__ = [
    "var_correction",
    "var_correction_out",
    "std_correction",
    "std_correction_out",
    "norm_out",
    "norm_dtype_out",
    "norm_Scalar",
    "norm_ScalarOpt_dtype",
    "linalg_vector_norm_out",
    "logsumexp",
    "var",
    "var_dim",
    "var_out",
    "std",
    "std_dim",
    "std_out",
]


def _values(self, compute=None):
    values = self.ndarray()
    compute = accumulate_dtype(self.dtype) if compute is None else compute
    return values if values.dtype == compute else values.astype(compute)


# -- var, std --------------------------------------------------------------------


def _var_std_meta(self, dim):
    if not (self.dtype.is_floating_point or self.dtype.is_complex):
        raise RuntimeError("std and var only support floating point and complex dtypes")
    return meta_reduction.reduced_dims(self, dim)


def _var_values(fname: str, self, dims, correction, keepdim, take_sqrt: bool):
    correction = 1 if correction is None else correction
    values = _values(self)
    count = math.prod(self._sizes[d] for d in dims)
    if self.numel() == 0:
        shape = meta_reduction.reduction_shape(self, dims, keepdim)
        return np.full(shape, np.nan)
    if count - correction <= 0:
        warnings.warn(
            f"{fname}(): degrees of freedom is <= 0. Correction should be strictly less than "
            "the reduction factor (input numel divided by output numel).",
            UserWarning,
            stacklevel=3,
        )
    axes = tuple(dims)
    mean = np.mean(values, axis=axes, keepdims=True)
    deviation = np.abs(values - mean) ** 2
    with np.errstate(divide="ignore", invalid="ignore"):
        result = np.sum(deviation, axis=axes, keepdims=keepdim) / max(0, count - correction)
        return np.sqrt(result) if take_sqrt else result


def _var_std(fname, self, dim, correction, keepdim, take_sqrt, out=None):
    dims = _var_std_meta(self, dim)
    sizes = meta_reduction.reduction_shape(self, dims, keepdim)
    dtype = self.dtype.to_real()
    if out is None:
        out = empty_tensor(sizes, dtype, self.device)
    elif out._sizes != sizes:
        if out is self:
            check_input_not_resized(out, sizes)
        resize_output(out, sizes)
    if self.device.type != "meta":
        store(out, _var_values(fname, self, dims, correction, keepdim, take_sqrt))
    return out


def var_correction(self, dim, correction, keepdim):
    return _var_std("var", self, dim, correction, keepdim, False)


def var_correction_out(self, dim, correction, keepdim, out):
    return _var_std("var", self, dim, correction, keepdim, False, out)


def std_correction(self, dim, correction, keepdim):
    return _var_std("std", self, dim, correction, keepdim, True)


def std_correction_out(self, dim, correction, keepdim, out):
    return _var_std("std", self, dim, correction, keepdim, True, out)


# -- norm ----------------------------------------------------------------------


def _vector_norm(values, p, axes, keepdim):
    """linalg_vector_norm's cases: 0 (count non-zero), inf, -inf, 1, 2, general p."""
    p = 2 if p is None else p
    magnitude = np.abs(values)
    reduces_nothing = values.size == 0 and any(
        values.shape[a] == 0 for a in axes or range(values.ndim)
    )
    if reduces_nothing and p in (math.inf, -math.inf):
        raise RuntimeError(
            "linalg.vector_norm cannot compute the "
            f"{'inf' if p > 0 else '-inf'} norm on an empty tensor because the operation "
            "does not have an identity"
        )
    if p == 0:
        return np.sum(magnitude != 0, axis=axes, keepdims=keepdim)
    if p == math.inf:
        return np.max(magnitude, axis=axes, keepdims=keepdim)
    if p == -math.inf:
        return np.min(magnitude, axis=axes, keepdims=keepdim)
    if p == 1:
        return np.sum(magnitude, axis=axes, keepdims=keepdim)
    if p == 2:
        return np.sqrt(np.sum(magnitude * magnitude, axis=axes, keepdims=keepdim))
    with np.errstate(divide="ignore"):
        return np.sum(magnitude**p, axis=axes, keepdims=keepdim) ** (1.0 / p)


def norm_out(meta, self, p, dim, keepdim, out) -> None:
    """aten::norm reaches linalg_vector_norm_out, and its checks."""
    meta_reduction.check_empty_vector_norm(self, 2 if p is None else p, list(dim))
    axes = tuple(meta_reduction.reduced_dims(self, dim))
    store(out, _vector_norm(_values(self), p, axes, keepdim))


def norm_dtype_out(meta, self, p, dim, keepdim, dtype, out) -> None:
    meta_reduction.check_empty_vector_norm(self, 2 if p is None else p, list(dim))
    axes = tuple(meta_reduction.reduced_dims(self, dim))
    compute = accumulate_dtype(meta.compute_dtype)
    if self.dtype.is_complex and not meta.compute_dtype.is_complex:
        compute = None
    store(out, _vector_norm(_values(self, compute), p, axes, keepdim))


def linalg_vector_norm_out(meta, self, ord, dim, keepdim, dtype, out) -> None:  # noqa: A002
    """TORCH_IMPL_FUNC(linalg_vector_norm_out): over dims of size 1 only, |x| (x != 0 for
    ord 0) as it is; otherwise the reduction, computed in the result's dtype."""
    dims = meta_reduction.reduced_dims(self, [] if dim is None else list(dim))
    if all(self._sizes[d] == 1 for d in dims):
        source = self if dtype is None else at._to_copy(self, dtype, None, None, None, False, None)
        if not keepdim:
            source = at.squeeze_dims(source, dims)
        if float(ord) != 0:
            at.abs_out(source, out)
        else:
            at.ne_Scalar_out(source, 0, out)
        return
    compute = accumulate_dtype(meta.compute_dtype)
    if self.dtype.is_complex:
        compute = accumulate_dtype(dtype) if dtype is not None else None
    store(out, _vector_norm(_values(self, compute), float(ord), tuple(dims), keepdim))


def norm_Scalar(self, p):  # noqa: N802
    return at.norm_ScalarOpt_dim(self, p, [], False)


def norm_ScalarOpt_dtype(self, p, dtype):  # noqa: N802
    return at.norm_ScalarOpt_dim_dtype(self, p, [], False, dtype)


# -- logsumexp ------------------------------------------------------------------


def logsumexp(self, dim, keepdim):
    """log(sum(exp(x))) computed stably around the maximum; integers give the default dtype."""
    dtype = self.dtype
    if not (dtype.is_floating_point or dtype.is_complex):
        dtype = dtypes.get_default_dtype()
    dims = meta_reduction.reduced_dims(self, dim)
    sizes = meta_reduction.reduction_shape(self, dims, keepdim)
    out = empty_tensor(sizes, dtype, self.device)
    if self.device.type == "meta":
        return out
    values = _values(self, accumulate_dtype(dtype))
    axes = tuple(dims)
    if values.size == 0:
        store(out, np.log(np.sum(np.exp(values), axis=axes, keepdims=keepdim)))
        return out
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        # Around the largest REAL part, as ReduceOps.cpp does for complex inputs: the imaginary
        # part stays log's principal value (a complex maximum would shift it by 2*pi*k).
        peak = np.max(values.real, axis=axes, keepdims=True)
        peak = np.where(np.isinf(peak), 0, peak)
        total = np.sum(np.exp(values - peak), axis=axes, keepdims=True)
        result = np.log(total) + peak
    if not keepdim:
        result = result.reshape(sizes)
    store(out, result)
    return out


# -- the `unbiased` overloads: correction 1 (unbiased) or 0 ----------------------------


def var(self, unbiased):
    return at.var_correction(self, None, int(unbiased), False)


def var_dim(self, dim, unbiased, keepdim):
    return at.var_correction(self, dim, int(unbiased), keepdim)


def var_out(self, dim, unbiased, keepdim, out):
    return at.var_correction_out(self, dim, int(unbiased), keepdim, out)


def std(self, unbiased):
    return at.std_correction(self, None, int(unbiased), False)


def std_dim(self, dim, unbiased, keepdim):
    return at.std_correction(self, dim, int(unbiased), keepdim)


def std_out(self, dim, unbiased, keepdim, out):
    return at.std_correction_out(self, dim, int(unbiased), keepdim, out)
