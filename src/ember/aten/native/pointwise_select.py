"""Pointwise selection kernels: where (all overloads) and masked_fill.

Layer: aten/native. In: the full schema-ordered arguments. Out: tensors.
`where.self`, `where.self_out` and `masked_fill_` are registered for CPU and
Meta (shapes and dtypes always, data only off meta); the Scalar overloads
and the functional masked_fill compose other operators through `at`.
Mirrors ATen/native/TensorCompare.cpp (where) and Indexing.cpp (masked_fill).
"""

from __future__ import annotations

import warnings

import numpy as np

from ember._c10 import dtypes
from ember._c10.device import META
from ember._c10.dtypes import scalar_type_name
from ember._c10.layout import strided
from ember._c10.warning import torch_warn
from ember._tensor import empty_tensor, wrap_array
from ember.aten.memory_overlap import (
    YES,
    assert_no_partial_overlap,
    check_tensor_iterator,
    has_internal_overlap,
)
from ember.aten.meta.pointwise import PointwiseMeta
from ember.aten.meta.python_inplace import (
    check_inplace_broadcast,
    masked_fill_inplace,
    masked_fill_ref,
)
from ember.aten.native import at
from ember.aten.native.common import type_meta_name
from ember.aten.native.factories import checked_value, scalar_fill_value
from ember.aten.structured import resize_output
from ember.aten.tensor_iterator import broadcast_all, pointwise_spec

__all__ = [
    "where_self",
    "where_self_out",
    "where_ScalarSelf",
    "where_ScalarOther",
    "where_Scalar",
    "where",
    "masked_fill__Scalar",
    "masked_fill__Tensor",
    "masked_fill_Scalar",
    "masked_fill_Tensor",
]

_warned_uint8_condition = [False]


def _out_device(*tensors):
    """The first device that is not a CPU 0-dim tensor's (a CPU scalar may join any device)."""
    for t in tensors:
        if t.device.type != "cpu" or t._sizes:
            return t.device
    return tensors[0].device


# -- where ------------------------------------------------------------------------------


def where_self(condition, self, other):
    result_type = dtypes.result_type(self, other)
    _check_condition(condition)
    spec, _ = pointwise_spec((condition, self, other))
    device = _out_device(condition, self, other)
    out = empty_tensor(spec.sizes, result_type, device, spec.strides)
    return at.where_self_out(condition, self, other, out)


def _check_condition(condition) -> None:
    if condition.dtype not in (dtypes.bool, dtypes.uint8):
        raise RuntimeError(
            "where expected condition to be a boolean tensor, but got a tensor with dtype "
            f"{scalar_type_name(condition.dtype)}"
        )


def where_self_out(condition, self, other, out):
    result_type = dtypes.result_type(self, other)
    if out.dtype is not result_type:
        raise RuntimeError(
            f"Expected out type to be {scalar_type_name(result_type)} but got "
            f"{scalar_type_name(out.dtype)}"
        )
    if condition.dtype is dtypes.uint8 and not _warned_uint8_condition[0]:
        _warned_uint8_condition[0] = True
        warnings.warn(
            "where received a uint8 condition tensor. This behavior is deprecated and will be "
            "removed in a future version of PyTorch. Use a boolean condition instead.",
            UserWarning,
            stacklevel=2,
        )
    _check_condition(condition)
    # TensorIterator's overlap check (Note [Memory overlap checks]) sees the operands after
    # their conversion to the result dtype; a converted one is a fresh copy
    operands = [t for t in (self, other) if t.dtype is result_type]
    if condition.dtype is dtypes.bool:
        operands.append(condition)
    check_tensor_iterator(out, *operands)
    spec, _ = pointwise_spec((condition, self, other))
    if any(out is t for t in operands):
        PointwiseMeta(spec).check_read_write(out)
    resize_output(out, spec.sizes, spec.strides)
    if out.device.type != "meta":
        chosen = np.where(
            condition.ndarray().astype(np.bool_, copy=False),
            self.ndarray().astype(result_type.np_dtype, copy=False),
            other.ndarray().astype(result_type.np_dtype, copy=False),
        )
        np.copyto(out.ndarray(), chosen)
    return out


def _scalar_tensor(value, dtype, device):
    """at::scalar_tensor: a 0-dim tensor holding ``value`` in ``dtype`` (scalar_fill's
    conversion: a half or bfloat16 overflows to inf instead of raising)."""
    return at.scalar_tensor(scalar_fill_value(value, dtype).item(), dtype, strided, device, None)


def where_ScalarSelf(condition, self, other):  # noqa: N802 (kernel names follow overloads)
    result_type = dtypes.result_type(other, self)
    self_t = _scalar_tensor(self, result_type, other.device)
    return at.where_self(condition, self_t, other)


def where_ScalarOther(condition, self, other):  # noqa: N802
    result_type = dtypes.result_type(self, other)
    other_t = _scalar_tensor(other, result_type, self.device)
    return at.where_self(condition, self, other_t)


def where_Scalar(condition, self, other):  # noqa: N802
    result_type = dtypes.result_type(self, other)
    self_t = _scalar_tensor(self, result_type, condition.device)
    other_t = _scalar_tensor(other, result_type, condition.device)
    return at.where_self(condition, self_t, other_t)


def where(condition):
    """where(condition) is nonzero(condition, as_tuple=True): one index tensor per dimension."""
    if condition.device.type == "meta":
        raise NotImplementedError(
            "The register_meta function for torch.nonzero() raises unimplemented by default, "
            "as a correct data-independent implementation does not exist. This implementation "
            "returns a fake value, assuming all elements of the tensor are non-zero. To enable "
            "this registration, please set "
            "'torch.fx.experimental._config.meta_nonzero_assume_all_nonzero' to True."
        )
    values = np.atleast_1d(condition.ndarray())
    return tuple(wrap_array(index.astype(np.int64)) for index in np.nonzero(values))


# -- masked_fill --------------------------------------------------------------------------


def _masked_fill_checks(self, mask) -> None:
    if mask.dtype is not dtypes.bool:
        name = type_meta_name(mask.dtype)
        raise RuntimeError(
            f"masked_fill_ only supports boolean masks, but got mask with dtype {name}"
        )
    warn_masked_fill_expanded(self)
    assert_no_partial_overlap(self, mask)  # Note [Memory overlap checks]
    shape = broadcast_all((self._sizes, mask._sizes))
    if shape != self._sizes:
        raise RuntimeError(
            f"output with shape [{', '.join(map(str, self._sizes))}] doesn't match the "
            f"broadcast shape [{', '.join(map(str, shape))}]"
        )


def warn_masked_fill_expanded(self) -> None:
    """masked_fill_ on a tensor with internal overlap: deprecated, but allowed."""
    if self.device.type != "meta" and has_internal_overlap(self) is YES:
        torch_warn(
            "Use of masked_fill_ on expanded tensors is deprecated. Please clone() the tensor "
            "before performing this operation. This also applies to advanced indexing e.g. "
            "tensor[mask] = scalar",
            "aten/src/ATen/native/TensorAdvancedIndexing.cpp:2450",
        )


def _meta_involved(*tensors) -> bool:
    return any(getattr(t, "device", None) is not None and t.device.type == "meta" for t in tensors)


def masked_fill__Scalar(self, mask, value):  # noqa: N802
    if self.device.type == "meta":  # PyTorch's Python meta kernel, meta_masked_fill_
        return masked_fill_inplace(self, mask, value)
    _masked_fill_checks(self, mask)
    if self.device.type != "meta":
        fill = checked_value(value, self.dtype)
        target = self.ndarray()
        np.copyto(target, fill, where=np.broadcast_to(mask.ndarray(), target.shape))
    return self


def masked_fill__Tensor(self, mask, value):  # noqa: N802
    if self.device.type == "meta":  # torch._refs.masked_fill_: masked_fill, then copy_
        check_inplace_broadcast(self._sizes, masked_fill_ref(self, mask, value))
        return self
    if value.dim() != 0:
        raise RuntimeError(
            "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
            f"{value.dim()} dimension(s)."
        )
    _masked_fill_checks(self, mask)
    if self.device.type != "meta":
        masked_fill__Scalar(self, mask, at._local_scalar_dense(value))
    return self


def _expanded_clone(self, mask):
    """expand_outplace(mask, self), then self.clone(contiguous_format)."""
    shape = broadcast_all((mask._sizes, self._sizes))
    expanded = self if self._sizes == shape else at.expand(self, list(shape), False)
    return at.clone(expanded, 0), mask


def _meta_masked_fill(self, mask, value):
    """On the Meta backend PyTorch's kernel is torch._refs.masked_fill (a fresh contiguous
    result of the broadcast shape), with its own checks."""
    return empty_tensor(masked_fill_ref(self, mask, value), self.dtype, META)


def masked_fill_Scalar(self, mask, value):  # noqa: N802
    if _meta_involved(self, mask):
        return _meta_masked_fill(self, mask, value)
    result, mask = _expanded_clone(self, mask)
    return at.masked_fill__Scalar(result, mask, value)


def masked_fill_Tensor(self, mask, value):  # noqa: N802
    if _meta_involved(self, mask, value):
        return _meta_masked_fill(self, mask, value)
    result, mask = _expanded_clone(self, mask)
    return at.masked_fill__Tensor(result, mask, value)
