"""Meta functions of the binary elementwise ops: atan2, hypot, copysign, fmod, heaviside,
xlogy / xlog1py, zeta, logaddexp(2), nextafter, gcd / lcm, fmax / fmin, igamma(c),
clamp_min / clamp_max.

Layer: aten/meta. In: the functional arguments (tensors, possibly meta; Python numbers for
clamp_min / clamp_max's Scalar bound). Out: a StructuredMeta. Mirrors the TORCH_META_FUNC
entries of ATen/native/BinaryOps.cpp (build_borrowing_binary_op, ..._binary_float_op) and
TORCH_META_FUNC(clamp_min) / (clamp_max) of TensorCompare.cpp.
"""

from __future__ import annotations

from ember.aten.meta.pointwise import binary_float_op, binary_op, clamp
from ember.aten.structured import StructuredMeta

__all__ = [
    "atan2",
    "hypot",
    "copysign_Tensor",
    "fmod_Tensor",
    "heaviside",
    "xlogy_Tensor",
    "special_xlog1py",
    "special_zeta",
    "logaddexp",
    "logaddexp2",
    "nextafter",
    "gcd",
    "lcm",
    "fmax",
    "fmin",
    "igamma",
    "igammac",
    "clamp_min",
    "clamp_max",
    "clamp_min_Tensor",
    "clamp_max_Tensor",
]

atan2 = copysign_Tensor = xlogy_Tensor = special_xlog1py = special_zeta = binary_float_op
hypot = igamma = igammac = fmod_Tensor = logaddexp = logaddexp2 = nextafter = gcd = lcm = binary_op
clamp_min_Tensor = clamp_max_Tensor = binary_op


def heaviside(self, values) -> StructuredMeta:
    if self.dtype.is_complex or values.dtype.is_complex:
        raise RuntimeError("heaviside is not yet implemented for complex tensors.")
    if self.dtype is not values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    return binary_op(self, values)


def _no_complex(name: str):
    def meta(self, other) -> StructuredMeta:
        if self.dtype.is_complex or other.dtype.is_complex:
            raise RuntimeError(f"{name} not implemented for complex tensors.")
        return binary_op(self, other)

    meta.__name__ = name
    return meta


fmax = _no_complex("fmax")
fmin = _no_complex("fmin")


def clamp_min(self, min) -> StructuredMeta:  # noqa: A002 (the schema's name)
    return clamp(self, min, None)


def clamp_max(self, max) -> StructuredMeta:  # noqa: A002 (the schema's name)
    return clamp(self, None, max)
