"""The derivative of renorm.

Layer: autograd. In: the gradient, self and renorm's arguments. Out: self's gradient.
Mirrors renorm_backward of torch/csrc/autograd/FunctionsManual.cpp: the slices' norms
(in the cpu's accumulate type), the norm's backward of sum(conj(self) * grad), then
maxnorm / (norm + 1e-7) * (grad - nb / (norm + 1e-7)) where the norm exceeds maxnorm.
"""

from __future__ import annotations

from ember.aten.native import at
from ember.aten.native.renorm import renorm_accumulate_type, renorm_reduce_dims

__all__ = ["renorm_backward"]


def renorm_backward(grad, self, p, dim, maxnorm):
    from ember.autograd.formulas import norm_backward  # formulas.py imports this module

    reduce_dims = renorm_reduce_dims(self, dim)
    acc = renorm_accumulate_type(self.dtype, cuda=False)
    norm = at.linalg_vector_norm(self, p, reduce_dims, True, acc)
    real_acc = acc.to_real()
    grad_output = at.mul_Tensor(self.conj(), grad)
    if real_acc is not acc:
        grad_output = at.real(grad_output)
    grad_output = at.sum_dim_IntList(grad_output, reduce_dims, True, real_acc)
    nb = norm_backward(grad_output, self, p, norm, reduce_dims, True)
    invnorm = at.reciprocal(at.add_Scalar(norm, 1e-7, 1))
    # maxnorm * invnorm * (grad - invnorm * nb), the right operand first (as compiled)
    difference = at.sub_Tensor(grad, at.mul_Tensor(invnorm, nb), 1)
    grad_norm = at.mul_Tensor(at.mul_Scalar(invnorm, maxnorm), difference)
    chosen = grad_norm.to(grad.dtype)
    return at.where_self(at.gt_Scalar(norm, maxnorm), chosen, grad)
