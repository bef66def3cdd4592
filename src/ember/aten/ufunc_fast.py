"""Fast paths of the arithmetic ufuncs (mm, sum) for operands that need no TensorIterator.

Layer: aten (CPU backend). In: the inputs of add / sub / mul / div (and their
in-place forms), of mm and of sum.dim_IntList, as the generated CPU kernels
receive them. Out: the result tensor, or None when the call is not one of the
cases below, and the generated kernel goes on to the meta function,
allocation and the formula (see Note [Structured kernels] and Note
[Arithmetic fast paths]).

Note [Arithmetic fast paths]
----------------------------
Most arithmetic in a model is two tensors with one dtype and one contiguous
layout (`a + b`), a contiguous tensor and a bias whose shape is a suffix of
its own (`x @ w + b`), or a tensor and a Python number (`grad * lr`, wrapped
into a 0-dim tensor as PyTorch does). For those, everything the meta
function works out is known in advance: the broadcast shape is the tensor's;
the output is contiguous (exactly contiguous operands never make
TensorIterator reorder dims); the common dtype is the tensor's (a Python
number never lifts a floating tensor's dtype, nor an int one's when it is an
int or a bool); and NumPy computes in exactly that dtype once the number is
cast to it (as c10 casts the Scalar). The fast path checks those conditions
in a handful of attribute reads and calls the NumPy ufunc directly; anything
else (other dtypes, other broadcasts, strides, meta tensors, a rounding mode,
the number or the smaller tensor on the left) takes the general path, so
errors and corner cases stay where they are written. add / sub with an alpha
other than 1 take it only for two float32 or float64 tensors of one contiguous
layout and an int or float alpha the dtype holds: the kernel's FMA straight
from their arrays (`_fused`). mm of
two float32 or float64 matrices that fit is np.matmul straight into a fresh
contiguous result, and sum over distinct, in-range dims (or all of them) of a
contiguous float32 or float64 tensor of at least one dim, with no dtype, is
one np.add.reduce.
"""

from __future__ import annotations

import numpy as np

from ember._c10 import dtypes
from ember._c10.device import CPU
from ember._c10.tensor_impl import contiguous_strides
from ember._tensor import Tensor
from ember.aten.ufunc import SILENT_ERRORS as _SILENT
from ember.aten.ufunc import error_state as _errors
from ember.aten.ufunc_fma import fma

# float32 and float64: the dtypes NumPy computes in natively (nn_fast uses them too)
FLOATING = frozenset({dtypes.float32, dtypes.float64})
_ARITHMETIC = FLOATING | {dtypes.int64, dtypes.int32}
# Python numbers that keep the tensor's dtype: bool, int and float ones for a floating
# tensor; bool and int ones for an integer tensor.
_KEEPS = {dtypes.float32: (dtypes.bool, dtypes.int64, dtypes.float64),
          dtypes.float64: (dtypes.bool, dtypes.int64, dtypes.float64),
          dtypes.int64: (dtypes.bool, dtypes.int64),
          dtypes.int32: (dtypes.bool, dtypes.int64)}  # fmt: skip


_wrap_fresh = Tensor._wrap_fresh  # bound once: the fast paths' results are plain tensors
_FAST_STRIDES: dict = {}


def _fast_strides(sizes: tuple):
    """contiguous_strides(sizes), or None for a shape with a size-0 dim (cached): an empty
    contiguous tensor's strides tie, and TensorIterator may then swap dims, giving a number
    or a bias added to a (0, 1) tensor strides (1, 0); the general path computes those."""
    found = _FAST_STRIDES.get(sizes, False)
    if found is False:
        found = None if 0 in sizes else contiguous_strides(sizes)
        if len(_FAST_STRIDES) > 4096:
            _FAST_STRIDES.clear()
        _FAST_STRIDES[sizes] = found
    return found


def _other_operand(self, other, bool_ok):
    """`other` as NumPy computes it against `self`, or None when the general path is needed."""
    if other._is_wrapped_number:
        if other.dtype not in _KEEPS[self.dtype] or (other.dtype is dtypes.bool and not bool_ok):
            return None
        token = _errors.set(_SILENT)  # a number out of the dtype's range casts to inf quietly
        try:
            return other.ndarray().astype(self.dtype.np_dtype)  # c10 casts the Scalar
        finally:
            _errors.reset(token)
    if other.dtype is not self.dtype or other.device is not CPU:
        return None
    sizes, other_sizes = self._sizes, other._sizes
    if other_sizes == sizes:
        return other.ndarray() if other._strides == self._strides else None
    # a bias: a contiguous `other` whose shape is a suffix of self's broadcasts along
    # the leading dims, and the (contiguous) output keeps self's shape
    n = len(other_sizes)
    if (
        n < len(sizes)
        and sizes[len(sizes) - n :] == other_sizes
        and other._strides == contiguous_strides(other_sizes)
    ):
        return other.ndarray()
    return None


def _binary(ufunc, allowed, self, other, into, bool_ok=True):
    dtype, sizes, strides = self.dtype, self._sizes, self._strides
    if dtype not in allowed or self.device is not CPU or self._is_wrapped_number:
        return None
    fast = _FAST_STRIDES.get(sizes, False)
    if strides != (_fast_strides(sizes) if fast is False else fast):
        return None
    # the commonest operand inline (_other_operand's same-layout case); the rest there
    if (
        other.dtype is dtype
        and other._sizes == sizes
        and other._strides == strides
        and other.device is CPU
        and not other._is_wrapped_number
    ):
        operand = other._array
        if operand is None:
            operand = other.ndarray()
    else:
        operand = _other_operand(self, other, bool_ok)
        if operand is None:
            return None
    values = self._array
    if values is None:
        values = self.ndarray()
    token = _errors.set(_SILENT)  # Note [Quiet floating point], inline
    try:
        if into is None:
            return _wrap_fresh(ufunc(values, operand), dtype)
        ufunc(values, operand, out=values)
        return into
    finally:
        _errors.reset(token)


def add(self, other, alpha, into=None):
    if alpha.__class__ is not int or alpha != 1:
        return _fused(self, other, alpha, into)
    return _binary(np.add, _ARITHMETIC, self, other, into)


def sub(self, other, alpha, into=None):
    if alpha.__class__ is not int or alpha != 1:
        return _fused(self, other, -alpha if alpha.__class__ is not bool else alpha, into)
    return _binary(np.subtract, _ARITHMETIC, self, other, into, bool_ok=False)  # sub_check


# the largest alpha each floating dtype holds (alpha.to<scalar_t>() refuses a larger one)
_ALPHA_LIMIT = {dtypes.float32: float(np.finfo(np.float32).max),
                dtypes.float64: float(np.finfo(np.float64).max)}  # fmt: skip


def _fused(self, other, alpha, into):
    """add / sub with an alpha (See Note [Fused multiply-add in PyTorch's CPU kernels]): two
    float32 or float64 tensors of one contiguous layout (not sharing storage when written in
    place) and an int or float alpha the dtype holds compute fma(other, alpha, self), as
    the general path does; anything else (bool, complex or out-of-range alpha, other
    layouts, a number operand) goes there."""
    dtype, sizes, strides = self.dtype, self._sizes, self._strides
    limit = _ALPHA_LIMIT.get(dtype)
    if (
        limit is None
        or (alpha.__class__ is not float and alpha.__class__ is not int)
        or not -limit <= alpha <= limit
        or other.dtype is not dtype
        or other._sizes != sizes
        or other._strides != strides
        or self.device is not CPU
        or other.device is not CPU
        or self._is_wrapped_number
        or other._is_wrapped_number
        or (into is not None and other._storage is self._storage is not None)
    ):
        return None
    fast = _FAST_STRIDES.get(sizes, False)
    if strides != (_fast_strides(sizes) if fast is False else fast):
        return None
    compute = dtype.np_dtype
    token = _errors.set(_SILENT)  # Note [Quiet floating point], inline
    try:
        values = fma(other.ndarray(), compute.type(alpha), self.ndarray(), compute)
    finally:
        _errors.reset(token)
    if into is None:
        return _wrap_fresh(values, dtype)
    np.copyto(into.ndarray(), values)
    return into


def mul(self, other, into=None):
    return _binary(np.multiply, _ARITHMETIC, self, other, into)


def div(self, other, rounding_mode=None, into=None):
    if rounding_mode is not None:
        return None
    return _binary(np.true_divide, FLOATING, self, other, into)


def mm(self, mat2):
    sizes, other = self._sizes, mat2._sizes
    if (
        len(sizes) != 2
        or len(other) != 2
        or sizes[1] != other[0]
        or self.dtype is not mat2.dtype
        or self.dtype not in FLOATING
        or self.device is not CPU
        or mat2.device is not CPU
    ):
        return None
    return _wrap_fresh(np.matmul(self.ndarray(), mat2.ndarray()), self.dtype)


def sum_dim(self, dim, keepdim, dtype):
    ndim = len(self._sizes)
    if (
        dtype is not None
        or ndim == 0
        or self.dtype not in FLOATING
        or self.device is not CPU
        or self._strides != contiguous_strides(self._sizes)
    ):
        return None
    axes = []
    for d in dim if dim else range(ndim):  # None or [] reduce every dim
        if d.__class__ is not int or not -ndim <= d < ndim:
            return None  # the meta function words the error
        axes.append(d + ndim if d < 0 else d)
    if len(set(axes)) != len(axes):
        return None
    token = _errors.set(_SILENT)  # an overflow to inf stays quiet, as in PyTorch
    try:
        total = np.add.reduce(self.ndarray(), axis=tuple(axes), keepdims=keepdim)
    finally:
        _errors.reset(token)
    return _wrap_fresh(np.asarray(total), self.dtype)
