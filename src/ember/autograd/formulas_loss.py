"""The derivative helpers of the losses: their backward operators, the with-logits
gradients and the double-backward formulas of FunctionsManual.cpp.

Layer: autograd. In: saved tensors and the losses' arguments (`reduction` is
at::Reduction's number). Out: gradients through operators. Mirrors
torch/csrc/autograd/FunctionsManual.cpp.
"""

from __future__ import annotations

from ember.aten.native import at
from ember.aten.tensor_subclass_like import are_any_tensor_subclass_like

__all__ = [
    "smooth_l1_loss_backward",
    "smooth_l1_loss_double_backward",
    "huber_loss_backward",
    "huber_loss_double_backward",
    "huber_loss_double_backward_grad_output",
    "soft_margin_loss_backward",
    "soft_margin_loss_double_backward",
    "soft_margin_loss_double_backward_grad_output",
    "binary_cross_entropy_backward",
    "binary_cross_entropy_target_backward",
    "binary_cross_entropy_double_backward",
    "binary_cross_entropy_double_backward_grad_output",
    "binary_cross_entropy_double_backward_target",
    "binary_cross_entropy_with_logits_backward",
    "binary_cross_entropy_with_logits_target_backward",
]

_MEAN = 1
_NONE = 0


def smooth_l1_loss_backward(grad, self, target, reduction, beta):
    return at.smooth_l1_loss_backward(grad, self, target, reduction, beta)


def smooth_l1_loss_double_backward(grad, input, target, reduction, beta):  # noqa: A002
    if beta == 0:
        return at.zeros(list(grad._sizes), grad.dtype, None, grad.device, None)
    d = (input - target).abs()
    grad_input = at.div_Scalar(grad * (d < beta).to(grad.dtype), beta)
    if reduction == _MEAN:
        grad_input = at.div__Scalar(grad_input, input.numel())
    return grad_input


def huber_loss_backward(grad, self, target, reduction, delta):
    return at.huber_loss_backward(grad, self, target, reduction, delta)


def huber_loss_double_backward(grad, input, target, reduction, delta):  # noqa: A002
    d = (input - target).abs()
    grad_input = grad * (d < delta)
    if reduction == _MEAN:
        grad_input = at.div__Scalar(grad_input, input.numel())
    return grad_input


def huber_loss_double_backward_grad_output(grad, grad_output, input, target, reduction, delta):  # noqa: A002
    if reduction == _NONE:
        return at.huber_loss_backward(grad, input, target, reduction, delta)
    ones = at.ones_like(grad_output, None, None, None, None, None)
    return (at.huber_loss_backward(ones, input, target, reduction, delta) * grad).sum()


def soft_margin_loss_backward(grad, self, target, reduction):
    return at.soft_margin_loss_backward(grad, self, target, reduction)


def soft_margin_loss_double_backward(grad, input, target, reduction):  # noqa: A002
    z = (input * -target).exp()
    zplus1 = at.add_Scalar(z, 1, 1)
    grad_input = grad * (target * target) * z / (zplus1 * zplus1)
    if reduction == _MEAN:
        grad_input = at.div__Scalar(grad_input, input.numel())
    return grad_input


def soft_margin_loss_double_backward_grad_output(grad, grad_output, input, target, reduction):  # noqa: A002
    if reduction == _NONE:
        return at.soft_margin_loss_backward(grad, input, target, reduction)
    ones = at.ones_like(grad_output, None, None, None, None, None)
    return (at.soft_margin_loss_backward(ones, input, target, reduction) * grad).sum()


def binary_cross_entropy_backward(grad, self, target, weight, reduction):
    return at.binary_cross_entropy_backward(grad, self, target, weight, reduction)


def binary_cross_entropy_target_backward(grad, self, target, weight, reduction):
    """FunctionsManual's: in place where no argument is subclass-like (a mode counts)."""
    grad_target = at.neg_(at.logit(self, None))
    if not are_any_tensor_subclass_like(grad):
        at.mul__Tensor(grad_target, grad)
    else:
        grad_target = grad_target * grad
    if weight is not None:
        if not are_any_tensor_subclass_like(weight):
            at.mul__Tensor(grad_target, weight)
        else:
            grad_target = grad_target * weight
    if reduction == _MEAN:
        at.div__Scalar(grad_target, target.numel())
    return grad_target


def binary_cross_entropy_double_backward(grad_output, grad, input, target, weight, reduction):  # noqa: A002
    eps = 1e-12
    inp_pl_eps = input + eps
    one_m_inp_pl_eps = 1 - input + eps
    gi = (input * input - 2 * input * target + target) / (
        inp_pl_eps.pow(2) * one_m_inp_pl_eps.pow(2)
    )
    gi = gi * (grad * grad_output)
    if weight is not None:
        gi = gi * weight
    if reduction == _MEAN:
        return gi / input.numel()
    return gi


def binary_cross_entropy_double_backward_grad_output(grad, input, target, weight, reduction):  # noqa: A002
    eps = 1e-12
    ggo = (input - target) / ((input + eps) * (1 - input + eps))
    if weight is not None:
        ggo = ggo * weight
    if reduction == _NONE:
        return ggo * grad
    if reduction == _MEAN:
        ggo = ggo / input.numel()
    return (ggo * grad).sum()


def binary_cross_entropy_double_backward_target(grad, grad_output, self, target, weight, reduction):
    res = -grad * grad_output
    if weight is not None:
        res = res * weight
    denom = (1 - self) * self
    denom = at.clamp(denom.detach(), 1e-12, None) + (denom - denom.detach())
    res = res / denom
    if reduction == _MEAN:
        res = res / target.numel()
    return res


def binary_cross_entropy_with_logits_backward(grad, input, target, weight, pos_weight, reduction):  # noqa: A002
    """PyTorch's formula; out of place under a dispatch mode or grad mode, where its
    in-place spelling would be seen (isTensorSubclassLike / GradMode::is_enabled)."""
    if pos_weight is not None:
        t = at.mul_Tensor(pos_weight, target)
        grad_input = at.sub_Tensor(
            at.mul_Tensor(at.sub_Tensor(at.add_Scalar(t, 1, 1), target, 1), input.sigmoid()),
            t, 1,
        )  # fmt: skip
    else:
        grad_input = at.sub_Tensor(input.sigmoid(), target, 1)
    grad_input = at.mul_Tensor(grad_input, grad)
    if weight is not None:
        grad_input = at.mul_Tensor(grad_input, weight)
    if reduction == _MEAN:
        grad_input = at.div__Scalar(grad_input, input.numel())
    return grad_input


def binary_cross_entropy_with_logits_target_backward(grad, self, target, weight, pos_weight,
                                                     reduction):  # fmt: skip
    if pos_weight is not None:
        negative = at.log_sigmoid(-self)
        positive = at.mul_Tensor(at.log_sigmoid(self), pos_weight)
        grad_target = at.mul_Tensor(at.sub_Tensor(negative, positive, 1), grad)
    else:
        grad_target = -self * grad
    if weight is not None:
        grad_target = at.mul_Tensor(grad_target, weight)
    if reduction == _MEAN:
        grad_target = at.div__Scalar(grad_target, target.numel())
    return grad_target
