"""The numerics where PyTorch and NumPy differ, for the ufunc formulas (aten/ufunc.py).

Layer: aten (CPU backend). In: NumPy arrays and Python numbers. Out: NumPy
arrays computed with PyTorch's semantics: Python-style `remainder` that keeps
fmod's signed zero, integer division that raises instead of returning 0,
integer powers with negative exponents, erf (NumPy has none), and the
checked Scalar conversion of c10/core/Scalar.h. Mirrors
ATen/native/cpu/BinaryOpsKernel.cpp, ATen/native/Pow.h and
c10/util/TypeCast.h (checked_convert).
"""

from __future__ import annotations

import numpy as np

from ember._c10 import dtypes

_NUMBERS = (bool, int, float, complex)
_REDUCED = {np.dtype(np.float16), dtypes.bfloat16.np_dtype}
_FLOAT32 = np.dtype(np.float32)


def operand(value):
    """A tensor's NumPy view, or a Python number as a 0-d array of its own type.

    A Python number becomes an array so that NumPy casts it into the compute
    dtype the way C++ does (300 into uint8 wraps to 44) instead of raising.
    """
    if value.__class__ in _NUMBERS:
        return np.asarray(value)
    return value.ndarray()


def opmath(np_dtype):
    """at::opmath_type: float16 and bfloat16 compute in float32."""
    return _FLOAT32 if np_dtype in _REDUCED else np_dtype


def not_implemented_for(kernel: str, dtype) -> None:
    """AT_DISPATCH's error for a dtype the kernel does not handle."""
    raise NotImplementedError(
        f"\"{kernel}\" not implemented for '{dtypes.scalar_type_name(dtype)}'"
    )


def check_integer_divisor(divisor, out) -> None:
    """Integer division and remainder by zero raise, as in PyTorch's CPU kernels.

    Every divisor element reaches a non-empty output; an empty one computes nothing.
    """
    if out.numel() and not np.all(divisor):
        raise RuntimeError("ZeroDivisionError")


def div_trunc(a, b):
    """Division rounded toward zero."""
    if a.dtype.kind in "fc":
        return np.trunc(a / b)
    quotient = np.floor_divide(a, b)
    inexact = np.remainder(a, b) != 0
    return quotient + (inexact & ((a < 0) != (b < 0))).astype(quotient.dtype)


def div_floor(a, b):
    """Python's floor division; NumPy's algorithm is PyTorch's div_floor_floating."""
    return np.floor_divide(a, b)


def remainder_float(a, b, storage=None):
    """fmod, moved into the divisor's sign; a zero result keeps fmod's sign as in PyTorch.

    ``storage`` is the reduced dtype (float16, bfloat16) the kernel's scalar_t
    rounds to: PyTorch stores fmod's result in it before adding the divisor.
    """
    mod = np.fmod(a, b)
    if storage is not None:
        mod = mod.astype(storage).astype(mod.dtype)
    wrong_sign = (mod != 0) & ((b < 0) != (mod < 0))
    return np.where(wrong_sign, mod + b, mod)


def pow_integer(base, power):
    """powi: integer powers; a negative exponent gives 1, -1 or 0 as PyTorch does."""
    negative = power < 0
    if not np.any(negative):
        return np.power(base, power)
    result = np.power(base, np.where(negative, 0, power).astype(power.dtype))
    odd = np.remainder(power, 2) != 0
    minus_one = np.where(odd, -1, 1)
    inverse = np.where(base == 1, 1, np.where(base == -1, minus_one, 0))
    return np.where(negative, inverse, result).astype(result.dtype)


# -- erf (W. J. Cody, "Rational Chebyshev approximations for the error function", 1969) --

_ERF_A = (3.16112374387056560e00, 1.13864154151050156e02, 3.77485237685302021e02,
          3.20937758913846947e03, 1.85777706184603153e-1)  # fmt: skip
_ERF_B = (2.36012909523441209e01, 2.44024637934444173e02, 1.28261652607737228e03,
          2.84423683343917062e03)  # fmt: skip
_ERF_C = (5.64188496988670089e-1, 8.88314979438837594e00, 6.61191906371416295e01,
          2.98635138197400131e02, 8.81952221241769090e02, 1.71204761263407058e03,
          2.05107837782607147e03, 1.23033935479799725e03, 2.15311535474403846e-8)  # fmt: skip
_ERF_D = (1.57449261107098347e01, 1.17693950891312499e02, 5.37181101862009858e02,
          1.62138957456669019e03, 3.29079923573345963e03, 4.36261909014324716e03,
          3.43936767414372164e03, 1.23033935480374942e03)  # fmt: skip
_ERF_P = (3.05326634961232344e-1, 3.60344899949804439e-1, 1.25781726111229246e-1,
          1.60837851487422766e-2, 6.58749161529837803e-4, 1.63153871373020978e-2)  # fmt: skip
_ERF_Q = (2.56852019228982242e00, 1.87295284992346725e00, 5.27905102951428412e-1,
          6.05183413124413191e-2, 2.33520497626869185e-3)  # fmt: skip
_INV_SQRT_PI = 5.6418958354775628695e-1


def _erf_small(x):
    """|x| <= 0.5."""
    z = x * x
    num = _ERF_A[4] * z
    den = z
    for i in range(3):
        num = (num + _ERF_A[i]) * z
        den = (den + _ERF_B[i]) * z
    return x * (num + _ERF_A[3]) / (den + _ERF_B[3])


def _erfc_medium(y):
    """0.5 < y <= 4."""
    num = _ERF_C[8] * y
    den = y
    for i in range(7):
        num = (num + _ERF_C[i]) * y
        den = (den + _ERF_D[i]) * y
    return np.exp(-y * y) * (num + _ERF_C[7]) / (den + _ERF_D[7])


def _erfc_large(y):
    """y > 4."""
    z = 1 / (y * y)
    num = _ERF_P[5] * z
    den = z
    for i in range(4):
        num = (num + _ERF_P[i]) * z
        den = (den + _ERF_Q[i]) * z
    ratio = z * (num + _ERF_P[4]) / (den + _ERF_Q[4])
    return np.exp(-y * y) / y * (_INV_SQRT_PI - ratio)


def erf(x):
    """The error function of a float array, to float64 accuracy (NumPy has no erf)."""
    x64 = np.asarray(x, dtype=np.float64)
    y = np.abs(x64)
    with np.errstate(all="ignore"):
        small = _erf_small(x64)
        medium = 1 - _erfc_medium(y)
        large = 1 - np.where(y > 26.6, 0.0, _erfc_large(np.maximum(y, 4.0)))
    tail = np.copysign(np.where(y <= 4.0, medium, large), x64)
    result = np.where(y <= 0.5, small, tail)
    return result.astype(np.asarray(x).dtype, copy=False)
