"""Fast paths of the kernels a training step runs besides arithmetic: relu's clamp,
threshold_backward, log_softmax and its backward, nll_loss and its backward.

Layer: aten (CPU backend). In: the inputs of clamp / clamp_ (relu and relu_ call
them), threshold_backward, _log_softmax, _log_softmax_backward_data,
nll_loss_forward and nll_loss_backward, as the generated CPU kernels receive
them. Out: the result (a tensor, or nll_loss_forward's pair), or None when the
call is not the common case below and the generated kernel goes on to the
meta function, allocation and the kernel proper.

The common case is the one Note [Arithmetic fast paths] describes: contiguous
float32 / float64 CPU tensors of one dtype and matching shapes, with the
defaults a model uses (relu's bound 0, no class weights, targets in range,
reduction mean or sum). Everything the meta function would compute is then
known: the output is a fresh contiguous tensor of the input's shape and dtype
(nll_loss: a 0-dim loss and total weight). The arithmetic is the kernels' own
(`zero_where`, `shift_by_peak`, `log_sum_exp`, `log_softmax_grad`,
`plain_loss`, `backward_plain`), so both paths give the same bits. Errors
and every other case take the general path.
"""

from __future__ import annotations

import numpy as np

from ember._c10.device import CPU
from ember._c10.tensor_impl import contiguous_strides
from ember._tensor import Tensor
from ember.aten.meta.loss import REDUCTION_MEAN, REDUCTION_SUM
from ember.aten.native.loss import backward_plain, plain_loss, plain_targets
from ember.aten.native.pointwise import zero_where
from ember.aten.native.softmax import log_softmax_grad, log_sum_exp, shift_by_peak
from ember.aten.ufunc import SILENT_ERRORS as _SILENT
from ember.aten.ufunc import error_state as _errors
from ember.aten.ufunc_fast import FLOATING

# Python ints that every float32 (and float64) holds exactly: converting one needs no
# overflow check and no rounding.
_EXACT_INT = 2**24


def _plain(tensor) -> bool:
    """A contiguous float32 / float64 CPU tensor of at least one element and one dim."""
    sizes = tensor._sizes
    return (
        tensor.dtype in FLOATING
        and tensor.device is CPU
        and len(sizes) > 0
        and tensor._strides == contiguous_strides(sizes)
        and 0 not in sizes
    )


def _small_int(value) -> bool:
    return value.__class__ is int and -_EXACT_INT <= value <= _EXACT_INT


def clamp(self, min, max, into=None):  # noqa: A002 (schema names)
    """relu's case: clamp(x, min=<small int>) with no upper bound."""
    if max is not None or not _small_int(min) or not _plain(self):
        return None
    values = self.ndarray()
    # the bound first: on ties np.maximum returns its second operand, the value
    # (relu(-0.0) is -0.0, as the clamp kernel keeps it)
    if into is None:
        return Tensor._wrap_fresh(np.maximum(self.dtype.np_dtype.type(min), values), self.dtype)
    np.maximum(self.dtype.np_dtype.type(min), values, out=values)
    return into


def threshold_backward(grad_output, self, threshold):
    if (
        not _small_int(threshold)
        or not _plain(self)
        or grad_output.dtype is not self.dtype
        or grad_output.device is not CPU
        or grad_output._sizes != self._sizes
        or grad_output._strides != self._strides
    ):
        return None
    compute = self.dtype.np_dtype
    result = np.empty(self._sizes, compute)
    zero_where(grad_output.ndarray(), self.ndarray() <= threshold, result, compute)
    return Tensor._wrap_fresh(result, self.dtype)


def _axis(dim, ndim):
    if dim.__class__ is not int or not -ndim <= dim < ndim:
        return None  # the general path words the error
    return dim + ndim if dim < 0 else dim


def log_softmax(self, dim, half_to_float):
    if half_to_float or not _plain(self):
        return None
    axis = _axis(dim, len(self._sizes))
    if axis is None:
        return None
    token = _errors.set(_SILENT)  # Note [Quiet floating point], inline
    try:
        shifted = shift_by_peak(self.ndarray(), axis)
        np.subtract(shifted, log_sum_exp(shifted, axis), out=shifted)
    finally:
        _errors.reset(token)
    return Tensor._wrap_fresh(shifted, self.dtype)


def log_softmax_backward(grad_output, output, dim, input_dtype):
    if (
        input_dtype is not grad_output.dtype
        or output.dtype is not grad_output.dtype
        or not _plain(grad_output)
        or output.device is not CPU
        or output._sizes != grad_output._sizes
        or output._strides != grad_output._strides
    ):
        return None
    axis = _axis(dim, len(grad_output._sizes))
    if axis is None:
        return None
    token = _errors.set(_SILENT)
    try:
        result = log_softmax_grad(grad_output.ndarray(), output.ndarray(), axis)
    finally:
        _errors.reset(token)
    return Tensor._wrap_fresh(result, grad_output.dtype)


def _plain_nll(self, target, weight, reduction, ignore_index):
    """The flat targets of a (N, C) input with N targets (plain_targets), or None."""
    if (
        weight is not None
        or (reduction != REDUCTION_MEAN and reduction != REDUCTION_SUM)
        or ignore_index.__class__ is not int
        or len(self._sizes) != 2
        or not _plain(self)
        or target.device is not CPU
        or target._sizes != self._sizes[:1]
    ):
        return None
    return plain_targets(self, target, weight, ignore_index)


def nll_loss_forward(self, target, weight, reduction, ignore_index):
    targets = _plain_nll(self, target, weight, reduction, ignore_index)
    if targets is None:
        return None
    token = _errors.set(_SILENT)
    try:
        loss, total = plain_loss(self, targets, reduction)
    finally:
        _errors.reset(token)
    dtype = self.dtype  # float32 / float64: its own compute dtype
    return Tensor._wrap_fresh(np.asarray(loss), dtype), Tensor._wrap_fresh(np.asarray(total), dtype)


def nll_loss_backward(grad_output, self, target, weight, reduction, ignore_index, total_weight):
    if (
        grad_output._sizes != ()
        or total_weight._sizes != ()
        or grad_output.device is not CPU
        or total_weight.device is not CPU
    ):
        return None
    targets = _plain_nll(self, target, weight, reduction, ignore_index)
    if targets is None:
        return None
    token = _errors.set(_SILENT)
    try:
        result = backward_plain(grad_output, self, targets, reduction, total_weight)
    finally:
        _errors.reset(token)
    return Tensor._wrap_fresh(result, self.dtype)
