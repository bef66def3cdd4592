"""Helpers of the derivative formulas of addcmul, addcdiv and lerp (derivatives.yaml).

Layer: autograd. In: the gradient and the saved inputs of AddcmulBackward0,
AddcdivBackward0, LerpBackward0 / LerpBackward1. Out: the input gradients,
computed with the operators PyTorch's formulas call (tools/autograd/derivatives.yaml;
C++'s ``Scalar / Tensor`` and ``Scalar - Tensor`` are ``empty_like(t).fill_(s)``
then ``div_`` / ``sub_``, as ATen/TensorOperators.h spells them).
"""

from __future__ import annotations

from ember._c10.memory_format import preserve_format
from ember.aten.native import at
from ember.autograd.formulas_pointwise import _conj, conj_scalar, handle_r_to_c

__all__ = [
    "addcmul_tensor_backward",
    "addcdiv_tensor1_backward",
    "addcdiv_tensor2_backward",
    "lerp_scalar_self_backward",
    "lerp_tensor_self_backward",
    "conj_tensor",
]


def conj_tensor(tensor):
    """Tensor.conj() in a formula: a real tensor is its own conjugate."""
    return _conj(tensor)


def _scalar_like(tensor, value):
    """C++'s Scalar operand on the left: ``at::empty_like(t, Preserve).fill_(value)``."""
    return at.fill__Scalar(at.empty_like(tensor, None, None, None, None, preserve_format), value)


def addcmul_tensor_backward(grad, other, value, dtype):
    """tensor1: handle_r_to_c(tensor1, grad * (tensor2 * value).conj()) (and symmetrically)."""
    return handle_r_to_c(dtype, grad * _conj(at.mul_Scalar(other, value)))


def addcdiv_tensor1_backward(grad, tensor2, value, dtype):
    """handle_r_to_c(tensor1, grad * (value / tensor2).conj())."""
    quotient = at.div__Tensor(_scalar_like(tensor2, value), tensor2)
    return handle_r_to_c(dtype, grad * _conj(quotient))


def addcdiv_tensor2_backward(grad, tensor1, tensor2, value):
    """handle_r_to_c(tensor2, -grad * (value * tensor1 / (tensor2 * tensor2)).conj())."""
    quotient = at.mul_Scalar(tensor1, value) / (tensor2 * tensor2)
    return handle_r_to_c(tensor2, -grad * _conj(quotient))


def lerp_scalar_self_backward(grad, weight):
    """grad * (1 - weight): the factor is a C++ double (or complex double), not a tensor."""
    if isinstance(weight, complex):
        return at.mul_Scalar(grad, 1 - conj_scalar(weight))
    return at.mul_Scalar(grad, 1 - float(weight))


def lerp_tensor_self_backward(grad, weight):
    """grad * (1 - weight).conj()."""
    return grad * _conj(at.sub__Tensor(_scalar_like(weight, 1), weight, 1))
