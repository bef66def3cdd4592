"""The derivative helpers of torch.polar.

Layer: autograd. In: the gradient of the complex result and the result. Out: the
gradients of the magnitudes and the angles. Mirrors polar_backward of
torch/csrc/autograd/FunctionsManual.cpp: grad_abs = re(conj(g) sgn(z)), grad_angle =
re(conj(g) i z).
"""

from __future__ import annotations

from ember.aten.native import at

__all__ = ["polar_backward"]


def polar_backward(grad, result):
    if grad is None:
        return None, None
    grad_conj = grad.conj()
    grad_abs = at.real(at.mul_Tensor(grad_conj, at.sgn(result)))
    result_mul_1_j = at.mul_Scalar(result, 1j)
    grad_angle = at.real(at.mul_Tensor(grad_conj, result_mul_1_j))
    return grad_abs, grad_angle
