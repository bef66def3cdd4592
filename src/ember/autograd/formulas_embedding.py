"""The derivative helpers of embedding and _trilinear (derivatives.yaml calls them).

Layer: autograd. In: the gradient and the saved inputs. Out: input gradients, built from
dispatched operators (so that a mode sees PyTorch's backward operators and double
backward records a graph). Mirrors embedding_dense_double_backward_symint and
_trilinear_backward of torch/csrc/autograd/FunctionsManual.cpp.
"""

from __future__ import annotations

from ember.aten.native import at

__all__ = ["embedding_dense_double_backward", "trilinear_backward"]


def embedding_dense_double_backward(grad, indices, padding_idx):
    """The gradient of embedding_dense_backward: the rows of ``grad`` the indices pick
    (the padding index's rows zero), shaped like the indices plus the row."""
    gg_weight = at.index_select(grad, 0, at.reshape(indices, [-1]))
    if padding_idx >= 0:
        padded = at.reshape(at.eq_Scalar(indices, padding_idx), [-1, 1])
        gg_weight = at.masked_fill__Scalar(gg_weight, padded, 0)
    return at.view(gg_weight, [*indices.size(), -1])


def trilinear_backward(grad, i1, i2, i3, expand1, expand2, expand3, sumdim, which: int):
    """One input's gradient: _trilinear again, with that input's place taken by grad and
    its expand dims by sumdim."""
    if which == 0:
        return at._trilinear(grad, i2, i3, sumdim, expand2, expand3, expand1, 1)
    if which == 1:
        return at._trilinear(i1, grad, i3, expand1, sumdim, expand3, expand2, 1)
    return at._trilinear(i1, i2, grad, expand1, expand2, sumdim, expand3, 1)
