"""CPU kernels of _softmax / _log_softmax, their backward ops, and the softmax.int /
log_softmax.int composites.

Layer: aten/native. In: StructuredMeta + out tensor (the structured kernels),
or (self, dim, dtype) for the composites, which convert the dtype through
`at._to_copy` and call the structured op through `at`. Out: tensors.
Mirrors ATen/native/SoftMax.cpp (softmax, log_softmax and their backward
kernels, the CPU kernels' "not implemented for" errors on integer inputs).
"""

from __future__ import annotations

import numpy as np

from ember._c10 import dtypes
from ember.aten.native import at
from ember.aten.native.common import as_dtype, wrap_dim
from ember.aten.native.reduction import accumulate_dtype, store
from ember.aten.ufunc import quiet

__all__ = [
    "_softmax_out",
    "_log_softmax_out",
    "softmax_backward_cpu_out",
    "log_softmax_backward_cpu_out",
    "softmax_int",
    "log_softmax_int",
]


def _check_floating(kernel: str, self, dim: int) -> None:
    if self.numel() != 0 and not self.dtype.is_floating_point:
        last = self.dim() == 0 or dim == self.dim() - 1
        name = f"{kernel}_lastdim_kernel_impl" if last else f"{kernel}_kernel_impl"
        raise NotImplementedError(
            f"\"{name}\" not implemented for '{dtypes.scalar_type_name(self.dtype)}'"
        )


def _shifted(self, dim):
    """(x - max along dim, axis), in the compute dtype; 0-dim inputs act as 1 element."""
    values = self.ndarray()
    compute = accumulate_dtype(self.dtype)
    if values.dtype != compute:
        values = values.astype(compute)
    if self.dim() == 0:
        values = values.reshape(1)
    axis = wrap_dim(dim, self.dim())
    if values.size == 0:
        return values, axis
    return shift_by_peak(values, axis), axis


@quiet
def _softmax_out(meta, self, dim, half_to_float, out) -> None:
    _check_floating("softmax", self, wrap_dim(dim, self.dim()))
    values = self.ndarray()
    target = out.ndarray()
    if self.dim() and values.size and target.dtype == values.dtype == accumulate_dtype(self.dtype):
        # Each step written straight into the output; like the vectorised kernel
        # (_vec_softmax), the exponentials are scaled by the reciprocal of their sum.
        axis = wrap_dim(dim, self.dim())
        np.subtract(values, along(np.maximum, values, axis), out=target)
        np.exp(target, out=target)
        np.multiply(target, np.reciprocal(along(np.add, target, axis)), out=target)
        return
    shifted, axis = _shifted(self, dim)
    exps = np.exp(shifted)
    store(out, exps / along(np.add, exps, axis))


@quiet
def _log_softmax_out(meta, self, dim, half_to_float, out) -> None:
    _check_floating("log_softmax", self, wrap_dim(dim, self.dim()))
    values = self.ndarray()
    target = out.ndarray()
    if self.dim() and values.size and target.dtype == values.dtype == accumulate_dtype(self.dtype):
        axis = wrap_dim(dim, self.dim())  # the steps below, written straight into the output
        np.subtract(values, along(np.maximum, values, axis), out=target)
        np.subtract(target, log_sum_exp(target, axis), out=target)
        return
    shifted, axis = _shifted(self, dim)
    total = log_sum_exp(shifted, axis)
    target = out.ndarray()
    if target.dtype == shifted.dtype == total.dtype and target.shape == shifted.shape:
        np.subtract(shifted, total, out=target)  # straight into the output
    else:
        store(out, shifted - total)


# Rows this short along the last axis reduce faster transposed (see `along`).
_SHORT_ROW = 32


def along(ufunc, values, axis):
    """``ufunc.reduce`` over ``axis``, keeping it as a size-1 dim.

    NumPy reduces a short last axis one row at a time, paying a call per row
    (128 rows of 10 classes: ~8 µs for a max). For such rows the values are
    copied transposed and reduced along the leading axis, which is one
    elementwise pass per class (~3 µs). Both paths of every kernel here call
    this, so they round alike.
    """
    ndim = values.ndim
    if axis == ndim - 1 and 1 < values.shape[-1] <= _SHORT_ROW and values.size >= 8 * _SHORT_ROW:
        rows = values.T.copy()  # the last axis first, contiguous
        return ufunc.reduce(rows, axis=0).T[..., None]
    return ufunc.reduce(values, axis=axis, keepdims=True)


def shift_by_peak(values, axis):
    """values - max along axis, a fresh array. A row holding +inf, or only -inf, becomes
    all NaN, as in the vectorised kernel (inf - inf)."""
    return values - along(np.maximum, values, axis)


def log_sum_exp(shifted, axis):
    return np.log(along(np.add, np.exp(shifted), axis))


def log_softmax_grad(grad, values, axis):
    """grad - exp(output) * sum(grad, dim), a fresh array."""
    total = along(np.add, grad, axis)
    return grad - np.exp(values) * total


def _backward_operands(grad_output, output, dim, grad_input):
    """(grad, output, axis) in the compute dtype; the three tensors must share one dtype."""
    for other in (output, grad_input):
        if other.dtype is not grad_output.dtype:
            raise RuntimeError(
                f"expected scalar type {dtypes.scalar_type_name(grad_output.dtype)} but found "
                f"{dtypes.scalar_type_name(other.dtype)}"
            )
    compute = accumulate_dtype(grad_output.dtype)
    grad = grad_output.ndarray().astype(compute, copy=False)
    values = output.ndarray().astype(compute, copy=False)
    if grad_output.dim() == 0:
        grad, values = grad.reshape(1), values.reshape(1)
    return grad, values, wrap_dim(dim, grad_output.dim())


@quiet
def softmax_backward_cpu_out(meta, grad_output, output, dim, input_dtype, grad_input) -> None:
    """output * (grad - sum(grad * output, dim))."""
    grad, values, axis = _backward_operands(grad_output, output, dim, grad_input)
    dot = along(np.add, grad * values, axis)
    store(grad_input, values * (grad - dot))


@quiet
def log_softmax_backward_cpu_out(meta, grad_output, output, dim, input_dtype, out) -> None:
    """grad - exp(output) * sum(grad, dim)."""
    grad, values, axis = _backward_operands(grad_output, output, dim, out)
    store(out, log_softmax_grad(grad, values, axis))


def _converted(self, dtype):
    dtype = as_dtype(dtype)
    if dtype is None or dtype is self.dtype:  # Tensor.to(dtype): no copy when it matches
        return self
    return at._to_copy(self, dtype, None, None, None, False, None)


def softmax_int(self, dim, dtype):
    return at._softmax(_converted(self, dtype), dim, False)


def log_softmax_int(self, dim, dtype):
    return at._log_softmax(_converted(self, dtype), dim, False)
