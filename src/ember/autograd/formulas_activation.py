"""The derivative helpers of the activations: their backward operators and the
double-backward formulas of FunctionsManual.cpp (elu, softplus, log_sigmoid, gelu, glu).

Layer: autograd. In: tensors saved by the nodes and the operators' Scalars. Out:
gradients, computed through operators (`at`), so a dispatch mode sees PyTorch's
operators. Mirrors torch/csrc/autograd/FunctionsManual.cpp.
"""

from __future__ import annotations

import math

from ember._c10.grad_mode import is_grad_enabled
from ember.aten.native import at

__all__ = [
    "elu_backward",
    "elu_double_backward",
    "leaky_relu_backward",
    "hardtanh_backward",
    "softplus_backward",
    "softplus_double_backward",
    "silu_backward",
    "mish_backward",
    "hardswish_backward",
    "hardswish_double_backward",
    "hardsigmoid_backward",
    "softshrink_backward",
    "hardshrink_backward",
    "glu_backward",
    "glu_double_backward",
    "glu_double_backward_grad_output",
    "log_sigmoid_backward",
    "log_sigmoid_double_backward",
    "prelu_kernel_backward",
    "prelu_backward_grad_output",
    "prelu_backward_self",
    "prelu_backward_weight",
    "gelu_backward",
    "gelu_double_backward",
    "infinitely_differentiable_silu_backward",
    "infinitely_differentiable_mish_backward",
]


# C++'s Tensor/Scalar operators (ATen/core/TensorOperators.h): `t * s` is mul.Scalar and
# `s - t` is empty_like(t).fill_(s).sub_(t), which a dispatch mode sees as such.


def _mul(t, s):
    return at.mul_Scalar(t, s)


def _add(t, s):
    return at.add_Scalar(t, s, 1)


def _sub(t, s):
    return at.sub_Scalar(t, s, 1)


def _div(t, s):
    return at.div_Scalar(t, s)


def _filled(s, t):
    return at.fill__Scalar(at.empty_like(t, None, None, None, None, None), s)


def _rsub(s, t):
    return at.sub__Tensor(_filled(s, t), t, 1)


def _rdiv(s, t):
    return at.div__Tensor(_filled(s, t), t)


def elu_backward(grad, alpha, scale, input_scale, is_result, self_or_result):
    return at.elu_backward(grad, alpha, scale, input_scale, is_result, self_or_result)


def elu_double_backward(grad, grad_output, alpha, scale, input_scale, is_result, self_or_result):
    negative = (self_or_result < 0).to(grad.dtype)
    scaled = _mul(grad * grad_output, input_scale)
    if is_result:
        return scaled * negative
    return at.elu_backward(scaled, alpha, scale, input_scale, is_result, self_or_result) * negative


def leaky_relu_backward(grad, self, negative_slope, self_is_result):
    return at.leaky_relu_backward(grad, self, negative_slope, self_is_result)


def hardtanh_backward(grad, self, min_val, max_val):
    return at.hardtanh_backward(grad, self, min_val, max_val)


def softplus_backward(grad, self, beta, threshold):
    return at.softplus_backward(grad, self, beta, threshold)


def softplus_double_backward(grad, input, beta, threshold):  # noqa: A002
    x = _mul(input, beta)
    below = (x < threshold).to(grad.dtype)
    return _mul(at.sigmoid_backward(grad, x.sigmoid()) * below, beta)


def silu_backward(grad, self):
    """GradMode::is_enabled() ? infinitely_differentiable_silu_backward : silu_backward."""
    if is_grad_enabled():
        return infinitely_differentiable_silu_backward(grad, self)
    return at.silu_backward(grad, self)


def infinitely_differentiable_silu_backward(grad_output, input):  # noqa: A002
    sigmoid = input.sigmoid()
    derivative = _add(input * _rsub(1, sigmoid), 1)
    return grad_output * sigmoid * derivative


def mish_backward(grad, self):
    """GradMode::is_enabled() ? infinitely_differentiable_mish_backward : mish_backward."""
    if is_grad_enabled():
        return infinitely_differentiable_mish_backward(grad, self)
    return at.mish_backward(grad, self)


def infinitely_differentiable_mish_backward(grad_output, input):  # noqa: A002
    sigmoid = input.sigmoid()
    tanh_softplus = input.exp().log1p().tanh()
    derivative = _rsub(1, tanh_softplus * tanh_softplus)
    return grad_output * (tanh_softplus + input * sigmoid * derivative)


def hardswish_backward(grad, self):
    return at.hardswish_backward(grad, self)


def hardswish_double_backward(grad, grad_output, self):
    zero = at.zeros([], self.dtype, None, self.device, None)
    value = _div(grad * grad_output, 3.0)
    below = at.lt_Scalar(self, 3.0)
    inside = at.logical_and(at.gt_Scalar(self, -3.0), below)
    return at.where_self(inside, value, zero)


def hardsigmoid_backward(grad, self):
    return at.hardsigmoid_backward(grad, self)


def softshrink_backward(grad, self, lambd):
    return at.softshrink_backward(grad, self, lambd)


def hardshrink_backward(grad, self, lambd):
    return at.hardshrink_backward(grad, self, lambd)


def glu_backward(grad, self, dim):
    return at.glu_backward(grad, self, dim)


def _halves(t, dim: int, size: int):
    return at.narrow(t, dim, 0, size), at.narrow(t, dim, size, size)


def glu_double_backward(grad, grad_output, input, dim):  # noqa: A002
    size = input._sizes[dim] // 2
    first_half, second_half = _halves(input, dim, size)
    sig_second_half = second_half.sigmoid()
    one_sub_sig_second_half = _rsub(1, sig_second_half)
    sig_one_sub_sig = sig_second_half * one_sub_sig_second_half
    ggi_first_half, ggi_second_half = _halves(grad, dim, size)
    ggi_second_half_times_first_half = ggi_second_half * first_half
    gi_first_half = ggi_second_half * grad_output * sig_one_sub_sig
    second_order_sh = sig_one_sub_sig * one_sub_sig_second_half - sig_second_half * sig_one_sub_sig
    gi_second_half = (
        ggi_second_half_times_first_half * grad_output * second_order_sh
        + ggi_first_half * grad_output * sig_one_sub_sig
    )
    return at.cat([gi_first_half, gi_second_half], dim)


def glu_double_backward_grad_output(grad, input, dim):  # noqa: A002
    if dim < 0:
        dim += input.dim()
    sizes = list(input._sizes)
    sizes[dim] //= 2
    ones = at.ones(sizes, input.dtype, None, input.device, None)
    tmp = grad * at.glu_backward(ones, input, dim)
    return at.narrow(tmp, dim, 0, sizes[dim]) + at.narrow(tmp, dim, sizes[dim], sizes[dim])


def log_sigmoid_backward(grad, self, buffer):
    return at.log_sigmoid_backward(grad, self, buffer)


def log_sigmoid_double_backward(grad, input):  # noqa: A002
    z = input.sigmoid()
    return grad * _sub(z, 1) * z


def prelu_kernel_backward(grad, self, weight, grad_input_mask):
    if grad is None:
        return None, None
    return at._prelu_kernel_backward(grad, self, weight)


def _zero(like):
    return at.zeros([], like.dtype, None, like.device, None)


# The at::where calls of derivatives.yaml's _prelu_kernel_backward entry; their arguments
# are computed right to left, as the C++ calls evaluate them.


def prelu_backward_grad_output(grads, self, weight, grad_output):
    grad_self, grad_weight = grads
    if grad_self is not None:
        if grad_weight is not None:
            second = grad_weight * self
            other = grad_self * weight + second
        else:
            other = grad_self * weight
        return at.where_self(self >= 0, grad_self, other)
    other = grad_weight * self
    zero = _zero(grad_output)
    return at.where_self(self >= 0, zero, other)


def prelu_backward_self(grads, self, grad_output):
    if grads[1] is not None:
        other = grad_output * grads[1]
        zero = _zero(self)
        return at.where_self(self >= 0, zero, other)
    return at.zeros_like(self, None, None, None, None, None)


def prelu_backward_weight(grads, self, weight, grad_output):
    if grads[0] is not None:
        other = grad_output * grads[0]
        zero = _zero(weight)
        return at.where_self(self >= 0, zero, other)
    return at.zeros_like(self, None, None, None, None, None)


def gelu_backward(grad, self, approximate: str):
    return at.gelu_backward(grad, self, approximate)


_KBETA_TANH = math.sqrt(2) * 2 / math.sqrt(math.pi) * 0.5
_KBETA_ERF = 2 / math.sqrt(math.pi) * math.sqrt(0.5) * 0.5
_KAPPA = 0.044715


def gelu_double_backward(ggi, go, input, approximate: str):  # noqa: A002
    """FunctionsManual.cpp's gelu_double_backward, in its operators' order."""
    if approximate == "tanh":
        inner = _mul(input + _mul(input.pow(3), _KAPPA), _KBETA_TANH)
        tanh_inner = inner.tanh()
        sech_inner = _rdiv(1, inner.cosh())
        f = _mul(input, 0.5)
        g = _rsub(1, tanh_inner * tanh_inner)
        h = _mul(_add(_mul(input, 3 * _KAPPA) * input, 1), _KBETA_TANH)
        f_prime_gh = _mul(g, 0.5) * h
        slope = -sech_inner * tanh_inner
        g_prime = _mul(sech_inner, 2) * slope * h
        g_prime_fh = f * h * g_prime
        h_prime = _mul(_mul(input, 6 * _KAPPA), _KBETA_TANH)
        h_prime_fg = f * g * h_prime
        derivative = _mul(f_prime_gh, 2) + g_prime_fh + h_prime_fg
        return ggi * go * derivative
    input_sq = input * input
    pdf = _mul(_mul(input_sq, -0.5).exp(), _KBETA_ERF)
    second = input_sq * pdf
    derivative = _mul(pdf, 2) - second
    return ggi * go * derivative
