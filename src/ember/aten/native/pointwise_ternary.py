"""CPU kernels of the ternary pointwise operators: addcmul, addcdiv, lerp (Scalar and Tensor weight).

Layer: aten/native. In: the meta result (its compute dtype), the inputs and the
`out` tensor the meta function shaped (Note [Structured kernels]). Out: the values
in `out`. Mirrors ATen/native/cpu/PointwiseOpsKernel.cpp (addcmul_cpu_kernel,
addcdiv_cpu_kernel) and ATen/native/cpu/LerpKernel.cpp with ATen/native/Lerp.h
(lerp_kernel_scalar / lerp_kernel_tensor): floating types compute in opmath
(float32 for float16 and bfloat16); addcmul and lerp round as the FMA their
kernels compile to (Note [Fused multiply-add in PyTorch's CPU kernels]); complex types
compute the same formulas plainly (PyTorch's complex kernels may round the last bit
differently).
"""

from __future__ import annotations

import numpy as np

from ember._c10 import dtypes
from ember.aten.native.factories import checked_value
from ember.aten.ufunc_fma import fma
from ember.aten.ufunc_loops import quiet, store
from ember.aten.ufunc_special import not_implemented_for, operand, opmath

__all__ = ["addcmul_out", "addcdiv_out", "lerp_Scalar", "lerp_Tensor"]


def _values(tensor, np_dtype):
    return np.asarray(operand(tensor)).astype(np_dtype, copy=False)


@quiet
def addcmul_out(meta, self, tensor1, tensor2, value, out) -> None:
    """self + value * tensor1 * tensor2: fma(value * tensor1, tensor2, self) for floats."""
    compute = meta.compute_dtype
    if compute is dtypes.bool or compute in dtypes.BAREBONES_UNSIGNED:
        not_implemented_for("addcmul_cpu_out", compute)
    if compute.is_floating_point:
        math = opmath(compute.np_dtype)
        scale = math.type(value)
        product = scale * _values(tensor1, math)
        store(out, fma(product, _values(tensor2, math), _values(self, math), math), meta)
        return
    np_dtype = compute.np_dtype
    if compute.is_complex:  # std::complex arithmetic: no FMA, may differ in the last bit
        scale = np_dtype.type(value)
        product = scale * _values(tensor1, np_dtype) * _values(tensor2, np_dtype)
        store(out, _values(self, np_dtype) + product, meta)
        return
    scale = checked_value(value, compute)
    result = _values(self, np_dtype) + scale * _values(tensor1, np_dtype) * _values(
        tensor2, np_dtype
    )
    store(out, np.asarray(result, dtype=np_dtype), meta)


@quiet
def addcdiv_out(meta, self, tensor1, tensor2, value, out) -> None:
    """self + value * tensor1 / tensor2, the product first (the meta refused integer division)."""
    compute = meta.compute_dtype
    math = opmath(compute.np_dtype)
    scale = math.type(value)
    quotient = (scale * _values(tensor1, math)) / _values(tensor2, math)
    store(out, _values(self, math) + quotient, meta)


def _lerp(start, end, weight, math):
    """Lerp.h's lerp: weight * (end - start) from start for |weight| < 0.5, else from end."""
    difference = end - start
    small = np.abs(weight) < 0.5
    if math.kind == "c":
        return np.where(small, start + weight * difference, end - difference * (1 - weight))
    low = fma(weight, difference, start, math)
    if np.all(small):
        return low
    high = fma(weight - math.type(1), difference, end, math)
    return np.where(small, low, high)


def _check_lerp_dtype(kernel: str, dtype) -> None:
    if not (dtype.is_floating_point or dtype.is_complex):
        not_implemented_for(kernel, dtype)


@quiet
def lerp_Scalar(meta, self, end, weight, out) -> None:  # noqa: N802 (PyTorch's kernel name)
    compute = meta.compute_dtype
    _check_lerp_dtype("lerp_kernel_scalar", compute)
    math = opmath(compute.np_dtype)
    scale = np.asarray(weight).astype(math)
    store(out, np.asarray(_lerp(_values(self, math), _values(end, math), scale, math)), meta)


@quiet
def lerp_Tensor(meta, self, end, weight, out) -> None:  # noqa: N802 (PyTorch's kernel name)
    compute = meta.compute_dtype
    _check_lerp_dtype("lerp_kernel_tensor", compute)
    math = opmath(compute.np_dtype)
    values = _lerp(_values(self, math), _values(end, math), _values(weight, math), math)
    store(out, np.asarray(values), meta)
