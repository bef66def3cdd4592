"""Composite binary operators: float_power, ldexp, arctan2, special_xlogy and
special_gammainc / special_gammaincc (aliases of xlogy and igamma / igammac).

Layer: aten/native (CompositeImplicitAutograd kernels). In: the full schema-ordered
arguments. Out: tensors. Mirrors float_power, ldexp and the special_* / arctan2 aliases
of ATen/native/Pow.cpp, BinaryOps.cpp and UnaryOps.cpp: float_power computes pow in
float64 (complex128 when an operand is complex), ldexp is self * 2 ** other.
"""

from __future__ import annotations

from ember._c10 import dtypes
from ember.aten.native import at

__all__ = [
    "float_power_Tensor_Tensor",
    "float_power_Tensor_Tensor_out",
    "float_power_Scalar",
    "float_power_Scalar_out",
    "float_power_Tensor_Scalar",
    "float_power_Tensor_Scalar_out",
    "float_power__Scalar",
    "float_power__Tensor",
    "ldexp_Tensor",
    "ldexp_",
    "ldexp_out",
]


def _to(tensor, dtype):
    if tensor.dtype is dtype:
        return tensor
    return at._to_copy(tensor, dtype, None, None, None, False, None)


def _wide(*complex_flags) -> object:
    return dtypes.complex128 if any(complex_flags) else dtypes.float64


def _scalar_value(value):
    return complex(value) if isinstance(value, complex) else float(value)


def _check(tensor, dtype, what: str) -> None:
    if tensor.dtype is not dtype:
        raise RuntimeError(
            f"the {what} has dtype {dtypes.scalar_type_name(tensor.dtype)} but the "
            f"operation's result requires dtype {dtypes.scalar_type_name(dtype)}"
        )


def float_power_Tensor_Tensor(self, exponent):  # noqa: N802
    dtype = _wide(self.dtype.is_complex, exponent.dtype.is_complex)
    return at.pow_Tensor_Tensor(_to(self, dtype), _to(exponent, dtype))


def float_power_Tensor_Tensor_out(self, exponent, out):  # noqa: N802
    dtype = _wide(self.dtype.is_complex, exponent.dtype.is_complex)
    _check(out, dtype, "output given to float_power")
    return at.pow_Tensor_Tensor_out(_to(self, dtype), _to(exponent, dtype), out)


def float_power_Scalar(self, exponent):  # noqa: N802
    dtype = _wide(isinstance(self, complex), exponent.dtype.is_complex)
    return at.pow_Scalar(_scalar_value(self), _to(exponent, dtype))


def float_power_Scalar_out(self, exponent, out):  # noqa: N802
    dtype = _wide(isinstance(self, complex), exponent.dtype.is_complex)
    _check(out, dtype, "output given to float_power")
    return at.pow_Scalar_out(_scalar_value(self), _to(exponent, dtype), out)


def float_power_Tensor_Scalar(self, exponent):  # noqa: N802
    dtype = _wide(self.dtype.is_complex, isinstance(exponent, complex))
    return at.pow_Tensor_Scalar(_to(self, dtype), _scalar_value(exponent))


def float_power_Tensor_Scalar_out(self, exponent, out):  # noqa: N802
    dtype = _wide(self.dtype.is_complex, isinstance(exponent, complex))
    _check(out, dtype, "output given to float_power")
    return at.pow_Tensor_Scalar_out(_to(self, dtype), _scalar_value(exponent), out)


def float_power__Scalar(self, exponent):  # noqa: N802
    dtype = _wide(self.dtype.is_complex, isinstance(exponent, complex))
    _check(self, dtype, "base given to float_power_")
    return at.pow__Scalar(self, _scalar_value(exponent))


def float_power__Tensor(self, exponent):  # noqa: N802
    dtype = _wide(self.dtype.is_complex, exponent.dtype.is_complex)
    _check(self, dtype, "base given to float_power_")
    return at.pow__Tensor(self, _to(exponent, dtype))


def ldexp_Tensor(self, other):  # noqa: N802
    return at.mul_Tensor(self, at.pow_Scalar(2.0, other))


def ldexp_(self, other):
    if not (self.dtype.is_floating_point or self.dtype.is_complex):
        raise RuntimeError(
            f"ldexp can't be cast to the desired output type {dtypes.scalar_type_name(self.dtype)}"
        )
    return at.mul_out(self, at.pow_Scalar(2.0, other), self)


def ldexp_out(self, other, out):
    return at.mul_out(self, at.pow_Scalar(2.0, other), out)


# alias kernel -> target kernel (same arguments)
_ALIASES = {
    "arctan2": "atan2", "arctan2_": "atan2_", "arctan2_out": "atan2_out",
    "special_xlogy": "xlogy_Tensor", "special_xlogy_self_scalar": "xlogy_Scalar_Self",
    "special_xlogy_other_scalar": "xlogy_Scalar_Other", "special_xlogy_out": "xlogy_OutTensor",
    "special_xlogy_self_scalar_out": "xlogy_OutScalar_Self",
    "special_xlogy_other_scalar_out": "xlogy_OutScalar_Other",
    "special_gammainc": "igamma", "special_gammainc_out": "igamma_out",
    "special_gammaincc": "igammac", "special_gammaincc_out": "igammac_out",
}  # fmt: skip


def _alias(name: str, target: str):
    def kernel(*args):
        return getattr(at, target)(*args)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


for _name, _target in _ALIASES.items():
    globals()[_name] = _alias(_name, _target)
    __all__.append(_name)
