"""CPU kernels of the reduction operators, computed by NumPy into the outputs' views.

Layer: aten/native. In: a StructuredMeta (from aten/meta/reduction.py), the
schema's arguments and the already-shaped out tensors. Out: values written
into `out.ndarray()`. Half and bfloat16 accumulate in float32, as PyTorch's
CPU reductions do. Mirrors ATen/native/ReduceOps.cpp (TORCH_IMPL_FUNCs) and
the composite full reductions `sum(self, dtype)` / `mean(self, dtype)`.
"""

from __future__ import annotations

import numpy as np

from ember._c10 import dtypes
from ember._tensor import empty_tensor
from ember.aten.memory_overlap import (
    assert_no_internal_overlap,
    check_tensor_iterator,
    refuse_unordered_read,
)
from ember.aten.meta import reduction as meta_reduction
from ember.aten.meta.out_wrapper import copy_out
from ember.aten.native import at
from ember.aten.native.resize import resize_output
from ember.aten.structured import StructuredMeta, _can_cast
from ember.aten.tensor_iterator import OutputSpec
from ember.aten.ufunc_special import not_implemented_for

__all__ = [
    "sum",
    "sum_IntList_out",
    "mean",
    "mean_out",
    "prod",
    "prod_int_out",
    "amax_out",
    "amin_out",
    "argmax_out",
    "argmin_out",
    "max",
    "min",
    "max_unary_out",
    "min_unary_out",
    "mean_dtype_out",
    "max_dim_max",
    "min_dim_min",
    "max_other",
    "min_other",
    "max_out",
    "min_out",
    "all_all_out",
    "all_out",
    "all_dims_out",
    "any_all_out",
    "any_out",
    "any_dims_out",
    "accumulate_dtype",
    "reduced_axes",
    "store",
]

_LOW_PRECISION = (dtypes.float16, dtypes.bfloat16)


_REDUCTION = "the reduction writes its result while it reads its input"


def accumulate_dtype(dtype):
    """The NumPy dtype a reduction computes in: float32 for half and bfloat16."""
    if dtype in _LOW_PRECISION:
        return np.dtype(np.float32)
    return dtype.np_dtype


def reduced_axes(self, dim, allow_empty_dims: bool = False) -> tuple:
    return tuple(meta_reduction.reduced_dims(self, dim, allow_empty_dims))


def store(out, values) -> None:
    """Write a NumPy result into an out tensor's view (casting to its dtype)."""
    target = out.ndarray()
    if values.__class__ is np.ndarray and values.shape == target.shape:
        np.copyto(target, values, casting="unsafe")  # the common case: no temporary
        return
    target[...] = np.asarray(values).astype(target.dtype, copy=False).reshape(target.shape)


def _input(self, dtype):
    """The input's values in the dtype the reduction computes in."""
    values = self.ndarray()
    compute = accumulate_dtype(dtype)
    if values.dtype != compute:
        values = values.astype(compute)
    return values


# -- sum, mean, prod ----------------------------------------------------------


def sum(self, dtype):  # noqa: A001 (aten's name)
    """sum(self, *, dtype): the full reduction, as `sum.dim_IntList` over every dim."""
    return at.sum_dim_IntList(self, [], False, dtype)


def sum_IntList_out(meta, self, dim, keepdim, dtype, out) -> None:  # noqa: N802
    refuse_unordered_read(out, self, why=_REDUCTION)
    axes = reduced_axes(self, dim)
    # add.reduce is np.sum without its Python wrapper (the input is already in the
    # compute dtype, so no small-int upcast is lost)
    values = np.add.reduce(_input(self, meta.compute_dtype), axis=axes, keepdims=keepdim)
    store(out, values)


def mean(self, dtype):
    return at.mean_dim(self, [], False, dtype)


def mean_dtype_out(self, dtype, out):
    """mean.dtype_out: mean.out over every dim."""
    return at.mean_out(self, [], False, dtype, out)


def mean_out(meta, self, dim, keepdim, dtype, out) -> None:
    if out.dtype not in (dtypes.float16, dtypes.bfloat16):
        assert_no_internal_overlap(out)  # PyTorch's sum_out(...).div_(n) divides in place
    refuse_unordered_read(out, self, why=_REDUCTION)
    axes = reduced_axes(self, dim)
    with np.errstate(invalid="ignore", divide="ignore"):
        values = np.mean(_input(self, meta.compute_dtype), axis=axes, keepdims=keepdim)
    store(out, values)


def prod(self, dtype):
    """prod(self, *, dtype): CPU and Meta; the product of every element."""
    meta = meta_reduction.sum_dim_IntList(self, [], False, dtype)
    spec = meta.spec
    out = empty_tensor(spec.sizes, spec.dtype, spec.device)
    if self.device.type != "meta":
        store(out, np.prod(_input(self, spec.dtype)))
    return out


def prod_int_out(meta, self, dim, keepdim, dtype, out) -> None:
    refuse_unordered_read(out, self, why=_REDUCTION)
    axes = reduced_axes(self, [dim])
    values = np.prod(_input(self, meta.compute_dtype), axis=axes, keepdims=keepdim)
    store(out, values)


# -- amax, amin, argmax, argmin, max, min ---------------------------------------


def _extreme(reducer, self, axes, keepdim):
    values = self.ndarray()
    if values.size == 0:  # reducing only over non-empty dims of an empty tensor
        shape = meta_reduction.reduction_shape(self, axes, keepdim)
        return np.empty(shape, values.dtype)
    result = reducer(values, axis=axes, keepdims=keepdim)
    if self.dtype.is_floating_point:
        result = first_zeros(values, result, axes)
    return result


def first_zeros(values, result, axes, last=False):
    """Where the extreme is a zero, the first (``last``) zero met along ``axes`` in memory
    order, as TensorIterator walks them: the one PyTorch's accumulator keeps on a tie
    with the other zero. See Note [Signed zeros on ties] in aten/ufunc.py."""
    if np.count_nonzero(result) == np.size(result):
        return result
    zero = result == 0
    axes = axes if axes else tuple(range(values.ndim))
    walked = sorted(axes, key=lambda d: -abs(values.strides[d]))
    kept = [d for d in range(values.ndim) if d not in axes]
    moved = values.transpose(kept + walked).reshape([values.shape[d] for d in kept] + [-1])
    if last:
        moved = moved[..., ::-1]
    where = np.argmax(moved == 0, axis=-1)[..., None]
    first = np.take_along_axis(moved, where, axis=-1).reshape(np.shape(result))
    return np.where(zero, first, result)


def _check_not_complex(self, kernel: str) -> None:
    """Complex, and the barebones unsigned types (Note [Barebones unsigned types])."""
    if self.dtype.is_complex or self.dtype in dtypes.BAREBONES_UNSIGNED:
        not_implemented_for(kernel, self.dtype)


def _refuse_barebones(self, kernel: str) -> None:
    """Note [Barebones unsigned types]."""
    if self.dtype in dtypes.BAREBONES_UNSIGNED:
        not_implemented_for(kernel, self.dtype)


def _refuse_complex(self, name: str) -> None:
    if self.dtype.is_complex:
        raise RuntimeError(f"{name}(): does not support complex input")


def amax_out(meta, self, dim, keepdim, out) -> None:
    refuse_unordered_read(out, self, why=_REDUCTION)
    _check_not_complex(self, "max_values_cpu")
    store(out, _extreme(np.max, self, reduced_axes(self, dim), keepdim))


def amin_out(meta, self, dim, keepdim, out) -> None:
    refuse_unordered_read(out, self, why=_REDUCTION)
    _check_not_complex(self, "min_values_cpu")
    store(out, _extreme(np.min, self, reduced_axes(self, dim), keepdim))


def _arg_extreme(finder, self, dim, keepdim):
    """argmax/argmin: NaN counts as the extreme, the first occurrence wins."""
    values = self.ndarray()
    if dim is None:
        index = finder(values.reshape(-1))
        shape = (1,) * self.dim() if keepdim else ()
        return np.full(shape, index, dtype=np.int64)
    axis = meta_reduction.reduced_dims(self, [dim])
    if not axis:  # a 0-dim tensor
        return np.zeros((), dtype=np.int64)
    if values.size == 0:
        shape = meta_reduction.reduction_shape(self, axis, keepdim)
        return np.empty(shape, np.int64)
    return finder(values, axis=axis[0], keepdims=keepdim)


def argmax_out(meta, self, dim, keepdim, out) -> None:
    refuse_unordered_read(out, self, why=_REDUCTION)
    _refuse_complex(self, "argmax")
    _refuse_barebones(self, "argmax_cpu")
    store(out, _arg_extreme(np.argmax, self, dim, keepdim))


def argmin_out(meta, self, dim, keepdim, out) -> None:
    refuse_unordered_read(out, self, why=_REDUCTION)
    _refuse_complex(self, "argmin")
    _refuse_barebones(self, "argmin_cpu")
    store(out, _arg_extreme(np.argmin, self, dim, keepdim))


def _full_extreme(name: str, reducer, self):
    """max(self) / min(self): CPU and Meta; a 0-dim tensor of self's dtype."""
    meta_reduction.zero_numel_check_dims(self, [], f"{name}()")
    out = empty_tensor((), self.dtype, self.device)
    if self.device.type != "meta":
        _check_not_complex(self, f"{name}_all")
        values = self.ndarray()
        result = reducer(values)
        if self.dtype.is_floating_point and values.size > 1:
            result = _vectorized_extreme(self.dtype, values, result)
        store(out, result)
    return out


# The NaN that PyTorch's vectorized max / min (the all-ones NaN mask, narrowed for half;
# bfloat16 rounds to its canonical NaN) leave when two or more elements meet a NaN.
_VECTOR_NAN_BITS = {
    dtypes.float16: np.array(0xFE00, np.uint16),
    dtypes.float32: np.array(0xFFFFFFFF, np.uint32),
    dtypes.float64: np.array(0xFFFFFFFFFFFFFFFF, np.uint64),
}


def _vectorized_extreme(dtype, values, result):
    """max(self) / min(self) reduce with PyTorch's vector maximum / minimum, which keeps
    the later of two equal zeros and returns an all-ones NaN; see Note [Signed zeros on
    ties] in aten/ufunc.py."""
    if result != result:  # NaN
        bits = _VECTOR_NAN_BITS.get(dtype)
        return result if bits is None else bits.view(values.dtype)
    if result == 0:
        return first_zeros(values, result, (), last=True)
    return result


def max(self):  # noqa: A001
    return _full_extreme("max", np.max, self)


def min(self):  # noqa: A001
    return _full_extreme("min", np.min, self)


_CAN_CAST_CHECK = (
    "Expected canCast( typeMetaToScalarType(self.dtype()), typeMetaToScalarType(out.dtype())) "
    "to be true, but got false.  (Could this error message be improved?  If so, please "
    "report an enhancement request to PyTorch.)"
)


def _identity(dtype, largest: bool):
    """What max_all / min_all give for no elements: the lowest (highest) value of the type."""
    if dtype is dtypes.bool:
        return not largest
    if dtype.is_floating_point:
        return -np.inf if largest else np.inf
    info = np.iinfo(dtype.np_dtype)
    return info.min if largest else info.max


def _unary_extreme_out(name: str, reducer, largest: bool, self, out):
    """max_unary_out / min_unary_out (ReduceOps.cpp) on the CPU; on the Meta backend
    PyTorch's Python reference, under out_wrapper (aten/meta/out_wrapper.py). The value is
    reduced whole before the one write (max_all_kernel), so out may share self's memory."""
    if "meta" in (self.device.type, out.device.type):
        meta_reduction.zero_numel_check_dims(self, [], f"{name}()")
        meta = StructuredMeta(OutputSpec((), None, self.dtype, self.device))
        copy_out(meta, out)
        return out
    if not _can_cast(self.dtype, out.dtype):
        raise RuntimeError(_CAN_CAST_CHECK)
    resize_output(out, ())
    if self.dtype.is_complex or self.dtype in dtypes.BAREBONES_UNSIGNED:
        raise NotImplementedError(
            f"\"{name}_all\" not implemented for '{dtypes.scalar_type_name(self.dtype)}'"
        )
    values = self.ndarray()
    store(out, reducer(values) if values.size else np.array(_identity(self.dtype, largest)))
    return out


def max_unary_out(self, out):
    return _unary_extreme_out("max", np.max, True, self, out)


def min_unary_out(self, out):
    return _unary_extreme_out("min", np.min, False, self, out)


def _dim_extreme(finder, self, dim, keepdim, values, indices) -> None:
    numel = self.numel()
    if numel > 0 and not (numel == 1 and self.dim() == 0):
        # the TensorIterator of compare_base_kernel (Note [Memory overlap checks])
        check_tensor_iterator(values, self)
        check_tensor_iterator(indices, self)
    index = _arg_extreme(finder, self, dim, keepdim)
    store(indices, index)
    source = self.ndarray()
    if self.dim() == 0:
        store(values, source)
        return
    axis = meta_reduction.reduced_dims(self, [dim])[0]
    expanded = index if keepdim else np.expand_dims(index, axis)
    store(values, np.take_along_axis(source, expanded, axis=axis))


def max_dim_max(meta, self, dim, keepdim, max, max_values) -> None:  # noqa: A002
    _refuse_complex(self, "max")
    _refuse_barebones(self, "max_cpu")
    _dim_extreme(np.argmax, self, dim, keepdim, max, max_values)


def min_dim_min(meta, self, dim, keepdim, min, min_indices) -> None:  # noqa: A002
    _refuse_complex(self, "min")
    _refuse_barebones(self, "min_cpu")
    _dim_extreme(np.argmin, self, dim, keepdim, min, min_indices)


def max_other(self, other):
    return at.maximum(self, other)


def min_other(self, other):
    return at.minimum(self, other)


def max_out(self, other, out):
    return at.maximum_out(self, other, out)


def min_out(self, other, out):
    return at.minimum_out(self, other, out)


# -- all, any -------------------------------------------------------------------


def _allany(reducer, self, axes, keepdim, out) -> None:
    values = self.ndarray()
    store(out, reducer(values != 0, axis=axes, keepdims=keepdim))


def all_all_out(meta, self, out) -> None:
    refuse_unordered_read(out, self, why=_REDUCTION)
    _allany(np.all, self, reduced_axes(self, None), False, out)


def all_out(meta, self, dim, keepdim, out) -> None:
    refuse_unordered_read(out, self, why=_REDUCTION)
    _allany(np.all, self, reduced_axes(self, [dim]), keepdim, out)


def all_dims_out(meta, self, dim, keepdim, out) -> None:
    refuse_unordered_read(out, self, why=_REDUCTION)
    _allany(np.all, self, reduced_axes(self, dim, allow_empty_dims=True), keepdim, out)


def any_all_out(meta, self, out) -> None:
    refuse_unordered_read(out, self, why=_REDUCTION)
    _allany(np.any, self, reduced_axes(self, None), False, out)


def any_out(meta, self, dim, keepdim, out) -> None:
    refuse_unordered_read(out, self, why=_REDUCTION)
    _allany(np.any, self, reduced_axes(self, [dim]), keepdim, out)


def any_dims_out(meta, self, dim, keepdim, out) -> None:
    refuse_unordered_read(out, self, why=_REDUCTION)
    _allany(np.any, self, reduced_axes(self, dim, allow_empty_dims=True), keepdim, out)
