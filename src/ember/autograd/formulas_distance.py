"""Derivative helpers of the distance entries of derivatives.yaml (_euclidean_dist).

Layer: autograd. In: gradients and saved values. Out: input gradients, built from
dispatched operators. Mirrors _euclidean_dist_backward of
torch/csrc/autograd/FunctionsManual.cpp.
"""

from __future__ import annotations

from ember.aten.native import at

__all__ = ["euclidean_dist_backward"]


def euclidean_dist_backward(grad, x1, x2, res, grad_input_mask=None):
    """The subgradient 0 where the distance is 0; else x1 * sum(ratio) - ratio @ x2 and
    its transpose for x2, ratio = grad / res."""
    ratio = at.div_Tensor(grad, res)
    at.masked_fill__Scalar(ratio, at.eq_Scalar(res, 0), 0)
    # C++ evaluates the right operand of each `-` first (the order a dispatch mode sees)
    product1 = at.matmul(ratio, x2)
    grad_x1 = at.sub_Tensor(at.mul_Tensor(x1, at.sum_dim_IntList(ratio, [-1], True, None)),
                            product1, 1)  # fmt: skip
    product2 = at.matmul(at.transpose_int(ratio, -2, -1), x1)
    summed = at.unsqueeze(at.sum_dim_IntList(ratio, [-2], False, None), -1)
    grad_x2 = at.sub_Tensor(at.mul_Tensor(x2, summed), product2, 1)
    return grad_x1, grad_x2
