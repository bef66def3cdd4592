"""Binary elementwise operators: atan2, hypot, copysign, fmod, heaviside, xlogy, xlog1py,
zeta, logaddexp, logaddexp2, nextafter, gcd, lcm, fmax, fmin, igamma, igammac,
clamp_min / clamp_max, and their Scalar overloads.

Layer: aten/native (structured CPU kernels take (meta, self, other, out); the Scalar
overloads are composites that wrap the number). Out: tensors. Mirrors
ATen/native/cpu/BinaryOpsKernel.cpp (atan2_kernel, hypot_kernel, copysign_kernel,
fmod_kernel, heaviside_kernel, xlogy_kernel, xlog1py_kernel, zeta_kernel,
logaddexp_kernel, logaddexp2_kernel, nextafter_kernel, gcd_kernel, lcm_kernel,
fmax_kernel, fmin_kernel, igamma_kernel, igammac_kernel) and the formulas of
ATen/native/Math.h (calc_igamma's and zeta's special cases, applied on top of SciPy).
"""

from __future__ import annotations

import numpy as np
import scipy.special as sp

from ember._c10 import dtypes
from ember.aten import ufunc
from ember.aten.binding import scalar_to_tensor
from ember.aten.native import at
from ember.aten.native.unary_math import binary_float_kernel, check_dtype, operand_values
from ember.aten.ufunc_loops import quiet, store
from ember.aten.ufunc_minmax import has_zero
from ember.aten.ufunc_special import check_integer_divisor, not_implemented_for

__all__ = [
    "atan2_out",
    "hypot_out",
    "copysign_out",
    "fmod_Tensor_out",
    "heaviside_out",
    "xlogy_OutTensor",
    "special_xlog1py_out",
    "special_zeta_out",
    "logaddexp_out",
    "logaddexp2_out",
    "nextafter_out",
    "gcd_out",
    "lcm_out",
    "fmax_out",
    "fmin_out",
    "igamma_out",
    "igammac_out",
    "clamp_min_out",
    "clamp_max_out",
    "clamp_min_Tensor_out",
    "clamp_max_Tensor_out",
]

atan2_out = binary_float_kernel("atan2_cpu", np.arctan2)
hypot_out = binary_float_kernel("hypot_cpu", np.hypot)
copysign_out = binary_float_kernel("copysign_cpu", np.copysign)


def _xlogy(x, y):
    """xlogy_kernel: NaN where y is NaN, 0 where x is 0, else x log y."""
    return np.where(np.isnan(y), np.nan, np.where(x == 0, 0, x * np.log(y)))


def _xlog1py(x, y):
    return np.where(np.isnan(y), np.nan, np.where(x == 0, 0, x * np.log1p(y)))


def _zeta(x, q):
    """Math.h's zeta: inf at x == 1, NaN below; at q <= 0, inf on integers, NaN for a
    non-integer x; SciPy's Hurwitz zeta elsewhere."""
    value = sp.zeta(x, q)
    pole = (q <= 0) & (q == np.floor(q))
    value = np.where((q <= 0) & (x != np.floor(x)), np.nan, value)
    value = np.where(pole, np.inf, value)
    return np.where(x == 1, np.inf, np.where(x < 1, np.nan, value))


xlogy_OutTensor = binary_float_kernel("xlogy_cpu", _xlogy)
special_xlog1py_out = binary_float_kernel("xlog1py_cpu", _xlog1py)
special_zeta_out = binary_float_kernel("zeta_cpu", _zeta, reduced=False)


def _real_only(a, name: str) -> None:
    if a.dtype.kind == "c":  # PyTorch computes these; ember has no complex formula yet
        raise NotImplementedError(f"ember: {name} of complex tensors is not implemented")


def _logaddexp(a, b):
    _real_only(a, "logaddexp")
    m = np.maximum(a, b)
    result = m + np.log1p(np.exp(-np.abs(a - b)))
    return np.where(np.isinf(a) & (a == b), a, result)


def _logaddexp2(a, b):
    m = np.maximum(a, b)
    result = m + np.log1p(np.exp2(-np.abs(a - b))) / a.dtype.type(np.log(2))
    return np.where(np.isinf(a) & (a == b), a, result)


logaddexp_out = binary_float_kernel("logaddexp_cpu", _logaddexp, complex_ok=True)
logaddexp2_out = binary_float_kernel("logaddexp2_cpu", _logaddexp2)


def _gamma_edges(a, x, value, *, upper: bool):
    """calc_igamma / calc_igammac's special cases (Math.h)."""
    nan = (a < 0) | (x < 0) | ((a == 0) & (x == 0)) | (np.isinf(a) & np.isinf(x))
    low, high = (1.0, 0.0) if upper else (0.0, 1.0)
    value = np.where((a == 0) & (x > 0), high, value)
    value = np.where(x == 0, low, value)
    value = np.where(np.isinf(a) & ~np.isinf(x), low, value)
    value = np.where(np.isinf(x) & ~np.isinf(a), high, value)
    return np.where(nan | np.isnan(a) | np.isnan(x), np.nan, value)


igamma_out = binary_float_kernel(
    "igamma_cpu", lambda a, x: _gamma_edges(a, x, sp.gammainc(a, x), upper=False)
)
igammac_out = binary_float_kernel(
    "igammac_cpu", lambda a, x: _gamma_edges(a, x, sp.gammaincc(a, x), upper=True)
)


@quiet
def fmod_Tensor_out(meta, self, other, out) -> None:  # noqa: N802
    dtype = meta.compute_dtype
    check_dtype("fmod_cpu", dtype, integral=True)
    if dtype in dtypes.BAREBONES_UNSIGNED:
        not_implemented_for("fmod_cpu", dtype)
    a = operand_values(meta, self)
    b = operand_values(meta, other)
    if not dtype.is_floating_point:
        check_integer_divisor(b, out)
    store(out, np.fmod(a, b), meta)


@quiet
def heaviside_out(meta, self, values, out) -> None:
    dtype = meta.compute_dtype
    if dtype in dtypes.BAREBONES_UNSIGNED:
        not_implemented_for("heaviside_cpu", dtype)
    a = np.asarray(self.ndarray()).astype(dtype.np_dtype, copy=False)
    b = np.asarray(values.ndarray()).astype(dtype.np_dtype, copy=False)
    np.copyto(out.ndarray(), np.where(a == 0, b, (a > 0).astype(dtype.np_dtype)), casting="unsafe")


@quiet
def nextafter_out(meta, self, other, out) -> None:
    dtype = meta.compute_dtype
    check_dtype("nextafter_cpu", dtype)
    if dtype is dtypes.bfloat16:  # one step of bfloat16's 16-bit pattern
        a = self.ndarray().astype(np.float32)
        b = other.ndarray().astype(np.float32)
        bits = self.ndarray().astype(dtype.np_dtype).view(np.uint16).astype(np.int32)
        bits = np.broadcast_to(bits, np.broadcast_shapes(a.shape, b.shape))
        negative = np.signbit(a)
        up = (b > a) != negative
        stepped = np.where(a == 0, np.where(b > 0, 1, 0x8001), bits + np.where(up, 1, -1))
        result = stepped.astype(np.uint16).view(dtype.np_dtype).astype(np.float32)
        result = np.where(a == b, b, np.where(np.isnan(a) | np.isnan(b), np.nan, result))
        np.copyto(out.ndarray(), result.astype(dtype.np_dtype), casting="unsafe")
        return
    a = np.asarray(self.ndarray()).astype(dtype.np_dtype, copy=False)
    b = np.asarray(other.ndarray()).astype(dtype.np_dtype, copy=False)
    np.copyto(out.ndarray(), np.nextafter(a, b), casting="unsafe")


def _integer_kernel(kernel: str, formula):
    @quiet
    def run(meta, self, other, out) -> None:
        dtype = meta.compute_dtype
        if dtype is dtypes.bool or dtype in dtypes.BAREBONES_UNSIGNED:
            not_implemented_for(kernel, dtype)
        if dtype.is_floating_point or dtype.is_complex:
            not_implemented_for(kernel, dtype)
        a = np.asarray(self.ndarray()).astype(dtype.np_dtype, copy=False)
        b = np.asarray(other.ndarray()).astype(dtype.np_dtype, copy=False)
        np.copyto(out.ndarray(), formula(a, b), casting="unsafe")

    return run


gcd_out = _integer_kernel("gcd_cpu", np.gcd)
lcm_out = _integer_kernel("lcm_cpu", np.lcm)


def _nan_ignoring(kernel: str, formula, fallback):
    """fmax / fmin: NumPy's NaN-ignoring ufunc, with PyTorch's zero on a tie of two zeros.
    fmax_kernel has no vector loop: every element is ``std::fmax(a, b)``, which keeps ``a``
    on a tie for float16, float32 and float64 and ``b`` for bfloat16 (c10::BFloat16's
    comparison-based fmax), whatever the length -- where NumPy's SIMD loop keeps either."""

    @quiet
    def run(meta, self, other, out) -> None:
        dtype = meta.compute_dtype
        if not dtype.is_floating_point:  # fmax_kernel: integral types are maximum / minimum
            fallback(meta, self, other, out)
            return
        a, b = operand_values(meta, self), operand_values(meta, other)
        result = formula(a, b)
        if has_zero(a) and has_zero(b):  # only two zeros can tie with different bits
            kept = b if dtype is dtypes.bfloat16 else a
            result = np.where(np.equal(a, b), kept, result)
        store(out, result, meta)

    return run


fmax_out = _nan_ignoring("fmax_cpu", np.fmax, ufunc.maximum)
fmin_out = _nan_ignoring("fmin_cpu", np.fmin, ufunc.minimum)


def clamp_min_out(meta, self, min, out) -> None:  # noqa: A002 (the schema's name)
    ufunc.clamp(meta, self, min, None, out)


def clamp_max_out(meta, self, max, out) -> None:  # noqa: A002 (the schema's name)
    ufunc.clamp(meta, self, None, max, out)


def clamp_min_Tensor_out(meta, self, min, out) -> None:  # noqa: A002,N802
    if meta.compute_dtype.is_complex:  # maximum_stub's dispatch list
        not_implemented_for("maximum_cpu", meta.compute_dtype)
    ufunc.maximum(meta, self, min, out)


def clamp_max_Tensor_out(meta, self, max, out) -> None:  # noqa: A002,N802
    if meta.compute_dtype.is_complex:
        not_implemented_for("minimum_cpu", meta.compute_dtype)
    ufunc.minimum(meta, self, max, out)


# -- Scalar overloads and composites ---------------------------------------------------------

_SCALAR_OVERLOADS = {
    # kernel: (target kernel, which argument is the number: 0 self, 1 other)
    "copysign_Scalar": ("copysign_Tensor", 1), "copysign__Scalar": ("copysign__Tensor", 1),
    "copysign_Scalar_out": ("copysign_out", 1),
    "fmod_Scalar": ("fmod_Tensor", 1), "fmod__Scalar": ("fmod__Tensor", 1),
    "fmod_Scalar_out": ("fmod_Tensor_out", 1),
    "xlogy_Scalar_Self": ("xlogy_Tensor", 0), "xlogy_Scalar_Other": ("xlogy_Tensor", 1),
    "xlogy__Scalar_Other": ("xlogy__Tensor", 1), "xlogy_OutScalar_Self": ("xlogy_OutTensor", 0),
    "xlogy_OutScalar_Other": ("xlogy_OutTensor", 1),
    "special_xlog1py_self_scalar": ("special_xlog1py", 0),
    "special_xlog1py_other_scalar": ("special_xlog1py", 1),
    "special_xlog1py_self_scalar_out": ("special_xlog1py_out", 0),
    "special_xlog1py_other_scalar_out": ("special_xlog1py_out", 1),
    "special_zeta_self_scalar": ("special_zeta", 0),
    "special_zeta_other_scalar": ("special_zeta", 1),
    "special_zeta_self_scalar_out": ("special_zeta_out", 0),
    "special_zeta_other_scalar_out": ("special_zeta_out", 1),
}  # fmt: skip


def _scalar_overload(name: str, target: str, position: int):
    def kernel(*args):
        args = list(args)
        args[position] = scalar_to_tensor(args[position])
        return getattr(at, target)(*args)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


for _name, (_target, _position) in _SCALAR_OVERLOADS.items():
    globals()[_name] = _scalar_overload(_name, _target, _position)
    __all__.append(_name)
