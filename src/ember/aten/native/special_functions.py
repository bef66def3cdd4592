"""The special functions of the torch and torch.special namespaces, on SciPy's routines.

Layer: aten/native (CPU kernels of structured groups). In: a StructuredMeta, self (and n
for polygamma), out. Out: the function's values. Mirrors the kernels of
ATen/native/cpu/UnaryOpsKernel.cpp and UnarySpecialOpsKernels.cpp and the formulas of
ATen/native/Math.h. SciPy computes what PyTorch computes except where this file says
otherwise and corrects it: lgamma(-inf) is inf (std::lgamma), erfinv keeps a zero's sign, trigamma is Math.h's series with its reflection (large
finite values at the poles), polygamma of order >= 2 is NaN at +inf (Math.h's zeta); J0, J1, Y0 and Y1 are
PyTorch's own Cephes variants (native/bessel.py).
Half and bfloat16 compute in float32 where the kernel's dispatch list has them.
"""

from __future__ import annotations

import numpy as np
import scipy.special as sp

from ember.aten.native import bessel
from ember.aten.native.unary_math import check_dtype, float_kernel, operand_values
from ember.aten.ufunc_loops import quiet, store

__all__ = [
    "erf_out",
    "erfc_out",
    "erfinv_out",
    "lgamma_out",
    "digamma_out",
    "polygamma_out",
    "i0_out",
    "special_erfcx_out",
    "special_i0e_out",
    "special_i1_out",
    "special_i1e_out",
    "special_ndtri_out",
    "special_log_ndtr_out",
    "special_entr_out",
    "special_bessel_j0_out",
    "special_bessel_j1_out",
    "special_bessel_y0_out",
    "special_bessel_y1_out",
    "special_modified_bessel_i0_out",
    "special_modified_bessel_i1_out",
    "special_modified_bessel_k0_out",
    "special_modified_bessel_k1_out",
    "special_scaled_modified_bessel_k0_out",
    "special_scaled_modified_bessel_k1_out",
    "special_spherical_bessel_j0_out",
    "trigamma",
    "digamma",
]


def _lgamma(x):
    return np.where(x == -np.inf, np.inf, sp.gammaln(x))


def _erfinv(x):
    return np.where(x == 0, x, sp.erfinv(x))


def trigamma(x):
    """Math.h's trigamma: the reflection below 0.5, six recurrence steps, the asymptotic sum."""
    x = np.asarray(x)
    pi = x.dtype.type(np.pi)
    reflect = x < 0.5
    sin_pi_x = np.sin(pi * x)
    result = np.where(reflect, -(pi * pi) / (sin_pi_x * sin_pi_x), x.dtype.type(0))
    sign = np.where(reflect, x.dtype.type(-1), x.dtype.type(1))
    x = np.where(reflect, 1 - x, x)
    for _ in range(6):
        result = result + 1 / (x * x)
        x = x + 1
    ixx = 1 / (x * x)
    one = x.dtype.type(1)
    tail = (one + 1 / (2 * x) + ixx * (one / 6 - ixx * (one / 30 - ixx * (one / 42)))) / x
    return sign * (result + tail)


_PSI_10 = 2.25175258906672110764
_DIGAMMA_A = (8.33333333333333333333e-2, -2.10927960927960927961e-2, 7.57575757575757575758e-3,
              -4.16666666666666666667e-3, 3.96825396825396825397e-3, -8.33333333333333333333e-3,
              8.33333333333333333333e-2)  # fmt: skip


def digamma(x):
    """Math.h's calc_digamma in x's own precision: -copysign(inf, x) at zero, NaN at the
    negative integers, the reflection pi / tan(pi frac(x)) (in double) below zero, the recurrence up to
    10 and the asymptotic series."""
    x = np.asarray(x)
    t = x.dtype.type
    with np.errstate(all="ignore"):
        negative = x < 0
        fraction = x - np.trunc(x)
        wide = fraction.astype(np.float64)  # the reflection term is computed in double
        reflection = np.where(negative, np.pi / np.tan(np.pi * wide), 0).astype(x.dtype)
        y = np.where(negative, t(1) - x, x)
        result = np.zeros_like(y)
        for _ in range(10):
            below = y < 10
            if not below.any():
                break
            result = np.where(below, result - t(1) / y, result)
            y = np.where(below, y + t(1), y)
        z = t(1) / (y * y)
        series = np.zeros_like(y)
        for c in _DIGAMMA_A:
            series = series * z + t(c)
        tail = np.where(y < t(1e17), z * series, t(0))
        value = np.where(y == 10, result + t(_PSI_10), result + np.log(y) - t(0.5) / y - tail)
        value = value - reflection
        value = np.where(negative & (x == np.trunc(x)), t(np.nan), value)
        return np.where(x == 0, np.copysign(t(np.inf), -x), value).astype(x.dtype)


def _polygamma(n: int, x):
    if n == 0:
        return digamma(x)
    if n == 1:
        return trigamma(x)
    return np.where(x == np.inf, np.nan, sp.polygamma(n, x)).astype(x.dtype)


erf_out = float_kernel("erf_vml_cpu", sp.erf)
erfc_out = float_kernel("erfc_vml_cpu", sp.erfc)
erfinv_out = float_kernel("erfinv_vml_cpu", _erfinv)
lgamma_out = float_kernel("lgamma_vml_cpu", _lgamma)
digamma_out = float_kernel("digamma", digamma)
i0_out = float_kernel("i0_vml_cpu", sp.i0)


@quiet
def polygamma_out(meta, n, self, out) -> None:
    check_dtype("polygamma", meta.compute_dtype)
    store(out, np.asarray(_polygamma(n, operand_values(meta, self))), meta)


special_erfcx_out = float_kernel("erfcx_cpu", sp.erfcx, reduced=False)
special_i0e_out = float_kernel("i0e_cpu", sp.i0e)
special_i1_out = float_kernel("i1_cpu", sp.i1)
special_i1e_out = float_kernel("i1e_cpu", sp.i1e)
special_ndtri_out = float_kernel("ndtri_cpu", sp.ndtri, reduced=False)
special_log_ndtr_out = float_kernel("log_ndtr_cpu", sp.log_ndtr, reduced=False)
special_entr_out = float_kernel("entr_cpu", sp.entr)
special_bessel_j0_out = float_kernel("bessel_j0_cpu", bessel.bessel_j0, reduced=False)
special_bessel_j1_out = float_kernel("bessel_j1_cpu", bessel.bessel_j1, reduced=False)
special_bessel_y0_out = float_kernel("bessel_y0_cpu", bessel.bessel_y0, reduced=False)
special_bessel_y1_out = float_kernel("bessel_y1_cpu", bessel.bessel_y1, reduced=False)
special_modified_bessel_i0_out = float_kernel("modified_bessel_i0_cpu", sp.i0, reduced=False)
special_modified_bessel_i1_out = float_kernel("modified_bessel_i1_cpu", sp.i1, reduced=False)
special_modified_bessel_k0_out = float_kernel("modified_bessel_k0_cpu", sp.k0, reduced=False)
special_modified_bessel_k1_out = float_kernel("modified_bessel_k1_cpu", sp.k1, reduced=False)
special_scaled_modified_bessel_k0_out = float_kernel(
    "scaled_modified_bessel_k0_cpu", sp.k0e, reduced=False
)
special_scaled_modified_bessel_k1_out = float_kernel(
    "scaled_modified_bessel_k1_cpu", sp.k1e, reduced=False
)
special_spherical_bessel_j0_out = float_kernel(
    "spherical_bessel_j0_cpu", lambda x: sp.spherical_jn(0, x), reduced=False
)
