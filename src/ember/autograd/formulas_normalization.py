"""The derivative helpers of the normalisations: native_layer_norm, native_batch_norm and
native_group_norm call their backward operators once for all their inputs (told which
gradients are wanted by `grad_input_mask`), as derivatives.yaml's joint entries do.

Layer: autograd. In: saved tensors and arguments. Out: gradients. Mirrors
derivatives.yaml's entries and the group norm helper of FunctionsManual.cpp.
"""

from __future__ import annotations

from ember._c10.grad_mode import is_grad_enabled
from ember.aten.native import at

__all__ = [
    "native_layer_norm_backward",
    "native_batch_norm_backward",
    "native_group_norm_backward_formula",
    "not_implemented",
    "undefined",
    "flash_attention_cpu_backward",
]


def not_implemented(name: str):
    """derivatives.yaml's not_implemented(name)."""
    raise NotImplementedError(f"the derivative for '{name}' is not implemented.")


def undefined():
    """Tensor(): no gradient."""
    return None


def native_layer_norm_backward(grad, input, normalized_shape, mean, rstd, weight, bias, mask):  # noqa: A002
    return at.native_layer_norm_backward(
        grad, input, normalized_shape, mean, rstd, weight, bias, list(mask)
    )


def native_batch_norm_backward(grad, input, weight, running_mean, running_var, save_mean,  # noqa: A002
                               save_invstd, training, eps, mask):  # fmt: skip
    return at.native_batch_norm_backward(
        grad, input, weight, running_mean, running_var, save_mean, save_invstd, training, eps,
        list(mask),
    )  # fmt: skip


def _contiguous(t):
    return at.contiguous(t, None)


def native_group_norm_backward_formula(grads, input, mean, rstd, weight, n, c, hxw, group,  # noqa: A002
                                       eps, mask):  # fmt: skip
    """GradMode on, or a gradient for mean / rstd: a formula of operators, itself
    differentiable; otherwise native_group_norm_backward on contiguous operands."""
    grad_y, grad_mean, grad_rstd = grads
    if not is_grad_enabled() and grad_mean is None and grad_rstd is None:
        if grad_y is None:
            return None, None, None
        return at.native_group_norm_backward(
            _contiguous(grad_y), _contiguous(input), mean, rstd, weight, n, c, hxw, group,
            list(mask),
        )  # fmt: skip
    return _differentiable_group_norm_backward(grads, input, mean, rstd, weight, n, c, group, mask)


def _differentiable_group_norm_backward(grads, input, mean, rstd, weight, n, c, group, mask):  # noqa: A002
    grad_y, grad_mean, grad_rstd = grads
    per_group = c // group
    x = at.reshape(input, [n, group, -1])
    count = x._sizes[2]
    mean_ = at.unsqueeze(mean, -1)
    rstd_ = at.unsqueeze(rstd, -1)
    x_hat = (x - mean_) * rstd_
    grad_input = grad_weight = grad_bias = None
    if grad_y is not None:
        dy = at.reshape(grad_y, [n, c, -1])
        if weight is not None:
            dy_w = dy * at.reshape(weight, [1, c, 1])
        else:
            dy_w = dy
        dy_w = at.reshape(dy_w, [n, group, -1])
        if mask[0]:
            first = at.mean_dim(dy_w, [2], True, None)
            second = at.mean_dim(dy_w * x_hat, [2], True, None)
            grad_input = (dy_w - first - x_hat * second) * rstd_
        hat = at.reshape(x_hat, [n, c, -1])
        if mask[1] and weight is not None:
            grad_weight = at.sum_dim_IntList(dy * hat, [0, 2], False, None)
        if mask[2]:
            grad_bias = at.sum_dim_IntList(dy, [0, 2], False, None)
    if mask[0]:
        extra = None
        if grad_mean is not None:
            extra = at.unsqueeze(grad_mean, -1) / count
        if grad_rstd is not None:
            term = -at.unsqueeze(grad_rstd, -1) * rstd_ * rstd_ * rstd_ * (x - mean_) / count
            extra = term if extra is None else extra + term
        if extra is not None:
            grad_input = extra if grad_input is None else grad_input + extra
        if grad_input is not None:
            grad_input = at.reshape(grad_input, list(input._sizes))
    del per_group
    return grad_input, grad_weight, grad_bias


def flash_attention_cpu_backward(grad, query, key, value, output, logsumexp, dropout_p,
                                 is_causal, attn_mask, scale):  # fmt: skip
    return at._scaled_dot_product_flash_attention_for_cpu_backward(
        grad, query, key, value, output, logsumexp, dropout_p, is_causal, attn_mask, scale
    )
