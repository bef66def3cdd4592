"""float16 / bfloat16 add, mul and div by a CPU scalar (the scalar in float32) and add /
sub with an alpha (alpha * other in float32).

Layer: aten (CPU backend). In: the meta, the operands and the output of add (alpha 1),
mul and div (true division). Out: True when the call was one of these, its values
written; False to leave it to the general formula. Mirrors the reduced-floating cases
of add_kernel, mul_kernel and div_true_kernel (ATen/native/cpu/BinaryOpsKernel.cpp).

Note [Reduced-precision arithmetic with a CPU scalar]
-----------------------------------------------------
TensorIterator casts every operand to the common dtype, so ``x.bfloat16() * 0.37``
would multiply by 0.37 rounded to bfloat16 (0.369140625). PyTorch's CPU kernels of
add, mul and true div special-case a second operand that is a 0-dim CPU tensor (a
wrapped Python number or a 0-dim tensor) for float16 / bfloat16: they read its
original value as float (``original_scalar_value<opmath_t>``), drop it from the
iterator and compute ``opmath(a) op b`` in float32, rounding the result once. Other
operators (sub, rsub, fmod, pow, add with an alpha, a scalar on the left) keep
TensorIterator's casts, and ember's general formulas with them.
"""

from __future__ import annotations

import numpy as np

from ember._c10 import dtypes
from ember._c10.device import CPU
from ember._c10.tensor_impl import resolved_array
from ember.aten.ufunc_fma import fma
from ember.aten.ufunc_loops import store

__all__ = ["reduced_fused_add", "with_cpu_scalar"]

_REDUCED = frozenset({dtypes.float16, dtypes.bfloat16})


def with_cpu_scalar(ufunc, meta, self, other, out) -> bool:
    """``ufunc(self, other)`` into ``out`` with ``other``'s original value in float32, when
    the common dtype is float16 / bfloat16 and ``other`` is a 0-dim CPU tensor."""
    common = meta.compute_dtype
    if common not in _REDUCED or other._sizes != () or other.device is not CPU:
        return False
    if other.dtype.is_complex:  # (the common dtype would be complex)
        return False
    a = np.asarray(resolved_array(self)).astype(common.np_dtype, copy=False)
    b = np.float32(np.asarray(resolved_array(other)).astype(np.float64).item())
    store(out, ufunc(a.astype(np.float32), b), meta)
    return True


def reduced_fused_add(meta, self, other, alpha, out) -> bool:
    """add / sub with an alpha for float16 / bfloat16, as add_kernel's vectorized loop
    (contiguous operands of the result's shape, or a CPU scalar ``other``): ``a + alpha *
    b`` with the operands and alpha in the common dtype (``alpha.to<scalar_t>()``) and the
    arithmetic in float32 (where ``alpha * b`` is exact), rounded once. False otherwise:
    PyTorch's scalar loop, as the general formula, rounds ``alpha * b`` first."""
    common = meta.compute_dtype
    if common not in _REDUCED or isinstance(alpha, complex):
        return False
    if not (other._sizes == () or (_dense(self, out) and _dense(other, out))):
        return False  # PyTorch's scalar loop (broadcasts): alpha * b in the low precision
    a = np.asarray(resolved_array(self)).astype(common.np_dtype, copy=False)
    b = np.asarray(resolved_array(other)).astype(common.np_dtype, copy=False)
    a, b = a.astype(np.float32), b.astype(np.float32)
    factor = np.asarray(alpha, dtype=np.float64).astype(common.np_dtype).astype(np.float32)
    store(out, fma(b, factor, a, np.dtype(np.float32)), meta)
    return True


def _dense(tensor, out) -> bool:
    """``tensor`` covers ``out`` element for element, contiguous: the vectorized loop's case."""
    return tensor._sizes == out._sizes and tensor.is_contiguous()
