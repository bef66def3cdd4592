"""A correctly rounded fused multiply-add on NumPy arrays: what the CPU kernels' FMA computes.

Layer: aten (CPU backend; a helper of the pointwise formulas and kernels). In: NumPy float32 or
float64 arrays. Out: round(a * b + c), rounded once, as the FMA instruction does.

Note [Fused multiply-add in PyTorch's CPU kernels]
--------------------------------------------------
PyTorch's vectorized CPU kernels of addcmul (``self + value * t1 * t2``) and
lerp (``vec::fmadd``) are compiled to FMA instructions, and so is their scalar
tail: the product is not rounded before the addition. NumPy has no FMA, so
computing ``a * b + c`` there rounds twice and differs from PyTorch in the last
bit of roughly one element in five. This module computes the FMA exactly with
error-free transformations: float32 through float64 with one rounding to odd
(exact, as 53 >= 2 * 24 + 2); float64 through Dekker's product, a TwoSum and a
sum rounded to odd (Boldo and Melquiond, "Emulation of FMA and correctly rounded
sums: proved algorithms using rounding to odd", 2008). addcdiv divides, so its
kernel has no FMA and computes ``self + (value * t1) / t2`` plainly.
"""

from __future__ import annotations

import numpy as np

__all__ = ["fma"]

_SPLITTER = np.float64(134217729.0)  # 2**27 + 1: Veltkamp's split of a double
_FLOAT32 = np.dtype(np.float32)


def _two_sum(a, b):
    """s + err == a + b exactly (Knuth's TwoSum)."""
    s = a + b
    b_virtual = s - a
    err = (a - (s - b_virtual)) + (b - b_virtual)
    return s, err


def _split(a):
    t = _SPLITTER * a
    high = t - (t - a)
    return high, a - high


def _two_product(a, b):
    """p + err == a * b exactly (Dekker's product)."""
    p = a * b
    a_high, a_low = _split(a)
    b_high, b_low = _split(b)
    err = ((a_high * b_high - p) + a_high * b_low + a_low * b_high) + a_low * b_low
    return p, err


def _sum_rounded_to_odd(a, b):
    """a + b rounded to odd: an inexact sum keeps the neighbour whose last bit is one."""
    s, err = _two_sum(a, b)
    inexact_even = (err != 0) & np.isfinite(s) & ((s.view(np.int64) & 1) == 0)
    if inexact_even.any():
        s = np.where(inexact_even, np.nextafter(s, np.where(err > 0, np.inf, -np.inf)), s)
    return s


# a float64 whose low 29 mantissa bits are 1000...0 lies halfway between two float32s
_HALFWAY_MASK = np.int64((1 << 29) - 1)
_HALFWAY = np.int64(1 << 28)
_FLOAT32_TINY = np.finfo(np.float32).tiny


def _same_float32_arrays(a, b, c) -> bool:
    """a and c float32 arrays of one shape (at least one dim), b a float32 scalar."""
    return (
        a.__class__ is np.ndarray
        and c.__class__ is np.ndarray
        and a.dtype == _FLOAT32
        and c.dtype == _FLOAT32
        and b.__class__ is np.float32
        and a.shape == c.shape
        and a.ndim > 0
    )


def _fma32(a, b, c):
    """float32: a * b is exact in float64, so only the sum rounds before the cast to float32;
    that double rounding is wrong only where the float64 sum is inexact and lands halfway
    between two float32s (or in float32's subnormal range): there the sum is rounded to odd."""
    if _same_float32_arrays(a, b, c):  # the commonest call (add's alpha): fewer passes
        total = a.astype(np.float64)
        total *= b  # exact, as below
        total += c
    else:
        a, b, c = (np.asarray(x).astype(np.float64) for x in (a, b, c))
        total = a * b
        total = total + c  # (not in place: c may broadcast a * b to a larger shape)
    low_bits = np.bitwise_and(total.view(np.int64), _HALFWAY_MASK)
    result = total.astype(np.float32)
    suspect = np.count_nonzero(low_bits == _HALFWAY)  # (count_nonzero: no Python frame)
    if not suspect and result.size:
        magnitude = np.abs(result)
        small = magnitude < _FLOAT32_TINY
        if np.count_nonzero(small):  # zeros are small too: look closer
            suspect = np.count_nonzero(small & (magnitude != 0))
    if suspect:
        a, b, c = (np.asarray(x).astype(np.float64) for x in (a, b, c))
        exact = _sum_rounded_to_odd(a * b, np.broadcast_to(c, total.shape))
        result = np.where(np.isfinite(exact), exact, total).astype(np.float32)
    return result


def fma(a, b, c, dtype):
    """round(a * b + c) in ``dtype`` (float32 or float64), rounded once. See the Note above."""
    if np.dtype(dtype) == _FLOAT32:
        return np.asarray(_fma32(a, b, c))
    a, b, c = np.broadcast_arrays(*(np.asarray(x, dtype=np.float64) for x in (a, b, c)))
    high, low = _two_product(a, b)
    total_high, total_low = _two_sum(c, high)
    result = total_high + _sum_rounded_to_odd(total_low, low)
    # infinities and NaNs (and the rare split overflow) break the error terms, and a zero
    # result loses its sign there (-0.0 * 0.0 + -0.0 is -0.0): the plain result is the
    # FMA's in both cases (a sum that cancels exactly has no rounding error)
    plain = np.isfinite(result) & (result != 0)
    if not plain.all():
        result = np.where(plain, result, a * b + c)
    return result
