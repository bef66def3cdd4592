"""Meta functions of the rounding, sign-bit, special-function and inverse-hyperbolic ops.

Layer: aten/meta. In: the functional arguments (tensors, possibly meta). Out: a
StructuredMeta. Mirrors TORCH_META_FUNC(floor), (ceil), (trunc), (round),
(round, decimals), (frac), (sgn), (signbit), (isposinf), (isneginf), (polygamma) and the
CREATE_UNARY_FLOAT_META_FUNC entries (erf, erfc, erfinv, lgamma, digamma, i0, exp2,
sinc, asinh, acosh, atanh, special_*) of ATen/native/UnaryOps.cpp, and the
binary float meta functions of the orthogonal polynomials (BinaryOps.cpp).
"""

from __future__ import annotations

from ember._c10 import dtypes
from ember.aten.meta.pointwise import PointwiseMeta, binary_float_op, unary_spec
from ember.aten.meta.pointwise_unary import unary_float_op, unary_op
from ember.aten.structured import StructuredMeta

__all__ = [
    "floor",
    "ceil",
    "trunc",
    "round",
    "round_decimals",
    "frac",
    "sgn",
    "signbit",
    "isposinf",
    "isneginf",
    "polygamma",
    "erf",
    "erfc",
    "erfinv",
    "lgamma",
    "digamma",
    "i0",
    "exp2",
    "sinc",
    "asinh",
    "acosh",
    "atanh",
    "special_erfcx",
    "special_i0e",
    "special_i1",
    "special_i1e",
    "special_ndtri",
    "special_log_ndtr",
    "special_entr",
    "special_bessel_j0",
    "special_bessel_j1",
    "special_bessel_y0",
    "special_bessel_y1",
    "special_modified_bessel_i0",
    "special_modified_bessel_i1",
    "special_modified_bessel_k0",
    "special_modified_bessel_k1",
    "special_scaled_modified_bessel_k0",
    "special_scaled_modified_bessel_k1",
    "special_spherical_bessel_j0",
    "special_airy_ai",
    "special_chebyshev_polynomial_t",
    "special_chebyshev_polynomial_u",
    "special_chebyshev_polynomial_v",
    "special_chebyshev_polynomial_w",
    "special_hermite_polynomial_h",
    "special_hermite_polynomial_he",
    "special_laguerre_polynomial_l",
    "special_legendre_polynomial_p",
    "special_shifted_chebyshev_polynomial_t",
    "special_shifted_chebyshev_polynomial_u",
    "special_shifted_chebyshev_polynomial_v",
    "special_shifted_chebyshev_polynomial_w",
]


def _no_complex(name: str):
    def meta(self) -> StructuredMeta:
        if self.dtype.is_complex:
            raise NotImplementedError(f"{name} is not supported for complex inputs")
        return unary_op(self)

    meta.__name__ = name
    return meta


floor = _no_complex("floor")
ceil = _no_complex("ceil")
trunc = _no_complex("trunc")


def round(self) -> StructuredMeta:  # noqa: A001 (the operator's name)
    return unary_op(self)


def round_decimals(self, decimals) -> StructuredMeta:
    return unary_op(self)


def frac(self) -> StructuredMeta:
    return unary_op(self)


def sgn(self) -> StructuredMeta:
    return unary_op(self)


class _BoolOutMeta(PointwiseMeta):
    """build_borrowing_unary_force_boolean_op: a bool output, computed in self's dtype; the
    meta function refuses an out= tensor of another dtype."""

    __slots__ = ("name",)

    def resize_outputs(self, *outs) -> None:
        if outs[0].dtype is not dtypes.bool:
            raise RuntimeError(f"{self.name} does not support non-boolean outputs.")
        PointwiseMeta.resize_outputs(self, *outs)


def _force_boolean(self, name: str) -> StructuredMeta:
    meta = _BoolOutMeta(unary_spec(self, dtypes.bool), self.dtype)
    meta.name = name
    return meta


def signbit(self) -> StructuredMeta:
    if self.dtype.is_complex:
        raise NotImplementedError("signbit is not implemented for complex tensors.")
    return _force_boolean(self, "signbit")


def _infinity_check(name: str):
    def meta(self) -> StructuredMeta:
        if self.dtype.is_complex:
            raise RuntimeError(f"{name} does not support complex inputs.")
        return _force_boolean(self, name)

    meta.__name__ = name
    return meta


isposinf = _infinity_check("isposinf")
isneginf = _infinity_check("isneginf")


def polygamma(n, self) -> StructuredMeta:
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return unary_float_op(self)


erf = erfc = erfinv = lgamma = digamma = i0 = exp2 = sinc = unary_float_op
asinh = acosh = atanh = unary_float_op
special_erfcx = special_i0e = special_i1 = special_i1e = unary_float_op
special_ndtri = special_log_ndtr = special_entr = unary_float_op
special_bessel_j0 = special_bessel_j1 = special_bessel_y0 = special_bessel_y1 = unary_float_op
special_modified_bessel_i0 = special_modified_bessel_i1 = unary_float_op
special_modified_bessel_k0 = special_modified_bessel_k1 = unary_float_op
special_scaled_modified_bessel_k0 = special_scaled_modified_bessel_k1 = unary_float_op
special_spherical_bessel_j0 = special_airy_ai = unary_float_op
special_chebyshev_polynomial_t = special_chebyshev_polynomial_u = binary_float_op
special_chebyshev_polynomial_v = special_chebyshev_polynomial_w = binary_float_op
special_hermite_polynomial_h = special_hermite_polynomial_he = binary_float_op
special_laguerre_polynomial_l = special_legendre_polynomial_p = binary_float_op
special_shifted_chebyshev_polynomial_t = special_shifted_chebyshev_polynomial_u = binary_float_op
special_shifted_chebyshev_polynomial_v = special_shifted_chebyshev_polynomial_w = binary_float_op
