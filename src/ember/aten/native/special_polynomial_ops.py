"""The CPU kernels of torch.special's orthogonal polynomials and airy_ai, and the
polynomials' Scalar overloads.

Layer: aten/native (structured CPU kernels take (meta, x, n, out); the x_scalar /
n_scalar overloads are composites that wrap the number). Out: tensors. Mirrors
chebyshev_polynomial_t_kernel & co. of ATen/native/cpu/UnaryOpsKernel.cpp /
BinaryOpsKernel.cpp (AT_DISPATCH_FLOATING_TYPES: no half types) and the
special_*_polynomial_* wrappers of ATen/native/BinaryOps.cpp; the formulas are in
native/polynomials.py and native/bessel.py.
"""

from __future__ import annotations

from ember.aten.binding import scalar_to_tensor
from ember.aten.native import at, bessel, polynomials
from ember.aten.native.unary_math import binary_float_kernel, float_kernel

__all__ = ["special_airy_ai_out"]

special_airy_ai_out = float_kernel("airy_ai_cpu", bessel.airy_ai, reduced=False)

_POLYNOMIALS = {
    "chebyshev_polynomial_t": polynomials.chebyshev_t,
    "chebyshev_polynomial_u": polynomials.chebyshev_u,
    "chebyshev_polynomial_v": polynomials.chebyshev_v,
    "chebyshev_polynomial_w": polynomials.chebyshev_w,
    "hermite_polynomial_h": polynomials.hermite_h,
    "hermite_polynomial_he": polynomials.hermite_he,
    "laguerre_polynomial_l": polynomials.laguerre_l,
    "legendre_polynomial_p": polynomials.legendre_p,
}


def _wrapping(name: str, target: str, position: int):
    def kernel(*args):
        args = list(args)
        args[position] = scalar_to_tensor(args[position])
        return getattr(at, target)(*args)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


for _name, _formula in _POLYNOMIALS.items():
    _base = "special_" + _name
    globals()[_base + "_out"] = binary_float_kernel(_name + "_cpu", _formula, reduced=False)
    __all__.append(_base + "_out")
    for _suffix, _position in (("x_scalar", 0), ("n_scalar", 1)):
        for _out in ("", "_out"):
            _kernel = f"{_base}_{_suffix}{_out}"
            globals()[_kernel] = _wrapping(_kernel, _base + _out, _position)
            __all__.append(_kernel)
