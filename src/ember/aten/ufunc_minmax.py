"""maximum, minimum and clamp: NumPy's comparisons, with PyTorch's choice between two zeros.

Layer: aten (CPU backend). In: a StructuredMeta, the operands (tensors or Python
numbers for clamp's bounds) and the output tensor. Out: the selected values in
the output's NumPy view. Reached as U.maximum / U.minimum / U.clamp through
aten/ufunc.py, which the generated CPU kernels call.

Note [Signed zeros on ties]
---------------------------
When two compared values are equal zeros of opposite signs, which zero comes
out is not NumPy's to decide: NumPy returns the first or the second operand
depending on the dtype and the length (float16 the first, float32 the second,
fmax's SIMD loop either). PyTorch's CPU kernels compute `std::max(a, b)` /
`std::min(a, b)`, which keep `a` on a tie: maximum / minimum keep `self`, clamp
(Scalar or Tensor bounds) keeps the clamped value, and amax / amin keep the
first zero met along the reduced dims (the accumulator), so
`minimum(-0.0, 0.0)` and `amax([-0.0, 0.0])` are -0.0. ember computes with
NumPy and, only when two zeros can meet, settles the zero results with
std::max / std::min's rule (`settle_zero_ties`; the reductions' `first_zeros`
in aten/native/reduction.py). max() / min() of a whole tensor
reduce with PyTorch's vector maximum / minimum even for a few elements: the
later zero wins, and a NaN comes out as the all-ones NaN of the vector
compare. PyTorch's vectorized loops, which it takes for longer contiguous
inputs, keep whichever zero their lane tournament (the x86 max/min
instructions return their second operand on a tie; the lane count is the
CPU's) leaves; ember does not emulate that, so short tensors, and every tie
that is not between zeros, agree exactly.
"""

from __future__ import annotations

import numpy as np

from ember._c10 import dtypes
from ember.aten.ufunc_loops import apply, quiet
from ember.aten.ufunc_special import not_implemented_for, operand


def has_zero(array) -> bool:
    """Whether a NumPy array (or scalar) holds a zero of either sign (one cheap C call)."""
    return np.count_nonzero(array) != np.size(array)


def settle_zero_ties(result, exact) -> None:
    """Where ``result`` is a zero, ``exact``'s (std::max / std::min, which keep their first
    operand on a tie). No NaN reaches a zero result, so ``exact`` is right there. See Note
    [Signed zeros on ties]."""
    np.copyto(result, exact, where=result == 0, casting="unsafe")


def _first_on_ties(ufunc, meta, self, other, out) -> None:
    """maximum / minimum: NumPy's ufunc (NaN propagates, as in PyTorch); a tie of two zeros,
    possible only when both operands hold one, keeps ``self``'s zero."""
    compute = meta.compute_dtype.np_dtype
    a, b = operand(self), operand(other)
    target = out.ndarray()
    if meta.compute_dtype.is_floating_point and has_zero(a) and has_zero(b):
        a = np.asarray(a).astype(compute, copy=False)
        b = np.asarray(b).astype(compute, copy=False)
        result = np.asarray(apply(ufunc, compute, (a, b), dtype=compute))
        later = (a < b) if ufunc is np.maximum else (b < a)
        settle_zero_ties(result, np.where(later, b, a))
        np.copyto(target, result, casting="unsafe")
    elif a.dtype is compute and b.dtype is compute and target.dtype is compute:
        ufunc(a, b, out=target)
    else:
        apply(ufunc, compute, (a, b), target, dtype=compute)


@quiet
def maximum(meta, self, other, out) -> None:
    _first_on_ties(np.maximum, meta, self, other, out)


@quiet
def minimum(meta, self, other, out) -> None:
    _first_on_ties(np.minimum, meta, self, other, out)


@quiet
def clamp(meta, self, low, high, out) -> None:
    """clamp.out (Python-number bounds) and clamp.Tensor_out (tensor bounds)."""
    dtype = meta.compute_dtype
    compute = dtype.np_dtype
    scalar_bounds = low.__class__ in _NUMBERS or high.__class__ in _NUMBERS
    if scalar_bounds:
        if dtype is dtypes.bool or dtype in dtypes.BAREBONES_UNSIGNED:
            not_implemented_for(_clamp_scalar_kernel(low, high), dtype)
        low = None if low is None else _checked_bound(low, dtype)
        high = None if high is None else _checked_bound(high, dtype)
    else:
        if low is not None and high is not None and dtype is dtypes.bool:
            not_implemented_for("clamp_cpu", dtype)
        low = None if low is None else low.ndarray()
        high = None if high is None else high.ndarray()
    values = self.ndarray()
    target = out.ndarray()
    if dtype.is_floating_point and _zeros_can_meet(values, low, high):
        _clamp_keeping_zeros(compute, values, low, high, target)
        return

    def bound(ufunc, source, limit, into=None):
        return apply(ufunc, compute, (source, limit), into, dtype=compute)

    if low is not None and high is not None:
        bound(np.minimum, bound(np.maximum, values, low), high, target)
    elif low is not None:
        bound(np.maximum, values, low, target)
    else:
        bound(np.minimum, values, high, target)


def _zeros_can_meet(*arrays) -> bool:
    """Whether two of the (present) operands hold a zero: a tie of zeros needs two."""
    found = 0
    for array in arrays:
        if array is not None and has_zero(array):
            found += 1
            if found == 2:
                return True
    return False


def _clamp_keeping_zeros(compute, values, low, high, target) -> None:
    """std::min(std::max(x, low), high): each step keeps its first operand on a tie."""
    result = np.asarray(values).astype(compute)
    exact = result.copy()
    if low is not None:
        low = np.asarray(low).astype(compute, copy=False)
        result = np.maximum(result, low)
        exact = np.where(exact < low, low, exact)
    if high is not None:
        high = np.asarray(high).astype(compute, copy=False)
        result = np.minimum(result, high)
        exact = np.where(high < exact, high, exact)
    result = np.asarray(result)
    settle_zero_ties(result, exact)
    np.copyto(target, result, casting="unsafe")


_NUMBERS = (bool, int, float, complex)


def _clamp_scalar_kernel(low, high) -> str:
    if low is not None and high is not None:
        return "clamp_scalar_cpu"
    return "clamp_min_scalar_cpu" if high is None else "clamp_max_scalar_cpu"


def _checked_bound(value, dtype):
    """Scalar::to<scalar_t>(): clamp's bounds convert with the overflow check; a floating
    clamp reads them as doubles first (a complex bound fails there, naming double)."""
    from ember.aten.native.factories import checked_value

    if dtype.is_floating_point and value.__class__ is complex:
        checked_value(value, dtypes.float64)
    return np.asarray(checked_value(value, dtype))
