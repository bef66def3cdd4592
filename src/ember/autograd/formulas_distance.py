"""Derivative helpers of the distance entries of derivatives.yaml (_euclidean_dist,
_cdist_forward's x2).

Layer: autograd. In: gradients and saved values. Out: input gradients, built from
dispatched operators. Mirrors _euclidean_dist_backward of
torch/csrc/autograd/FunctionsManual.cpp.
"""

from __future__ import annotations

from ember._c10.memory_format import contiguous_format
from ember.aten.native import at

__all__ = ["cdist_backward_x2", "euclidean_dist_backward"]


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


def cdist_backward_x2(grad, x1, x2, p, result):
    """`_cdist_backward(grad.mT().contiguous(), x2, x1, p, result.mT().contiguous())`, its
    arguments evaluated last to first as the compiled formula does (what a dispatch mode
    sees: result's transpose and copy before grad's)."""
    cdist_t = at.contiguous(at.transpose_int(result, -2, -1), contiguous_format)
    grad_t = at.contiguous(at.transpose_int(grad, -2, -1), contiguous_format)
    return at._cdist_backward(grad_t, x2, x1, p, cdist_t)
