"""The derivatives of native_dropout.

Layer: autograd. In: the gradient, the mask (native_dropout's second result), p and train.
Out: the input's gradient. Mirrors derivatives.yaml's native_dropout entry: the scale
1 / (1 - p) when train is True (0 when p is 1), else 1, then
GradMode::is_enabled() ? infinitely_differentiable_native_dropout_backward (grad * (mask *
scale), differentiable ops) : native_dropout_backward.
"""

from __future__ import annotations

from ember._c10.grad_mode import is_grad_enabled
from ember.aten.native import at

__all__ = ["native_dropout_input_backward", "native_dropout_double_backward"]


def _scale(p, train) -> float:
    """As derivatives.yaml writes it: 1 unless train is given and True (so a train=None
    forward, which drops like training, back-propagates with scale 1, as in PyTorch)."""
    if train is None or not train:
        return 1.0
    return 0.0 if p == 1 else 1.0 / (1.0 - p)


def native_dropout_input_backward(grad, mask, p, train):
    scale = _scale(p, train)
    if is_grad_enabled():
        return at.mul_Tensor(
            grad, at.mul_Scalar(at.to_dtype(mask, grad.dtype, False, False, None), scale)
        )
    return at.native_dropout_backward(grad, mask, scale)


def native_dropout_double_backward(grad, grad_output, mask, scale):
    """FunctionsManual.cpp's native_dropout_double_backward: grad * mask * scale."""
    return at.mul_Tensor(
        grad, at.mul_Scalar(at.to_dtype(mask, grad.dtype, False, False, None), scale)
    )
