"""Derivative helpers of the arithmetic, elementwise and matrix-product operators.

Layer: autograd. In: gradients and saved values; out: input gradients, built
from dispatched ember operators (so create_graph records them). Mirrors the
corresponding functions of torch/csrc/autograd/FunctionsManual.cpp, in their
order of computation (so the last bits and the signs of zeros agree) and with
their complex conventions: the gradient of a holomorphic function is grad
times the conjugate of its derivative, and a real input receives the real
part of a complex gradient (handle_r_to_c). `.conj()` is PyTorch's lazy
conjugate (a view with the Conjugate key; the tensor itself when real).
formulas.py re-exports these for derivatives.yaml.
"""

from __future__ import annotations

import cmath
import math
import warnings

from ember._c10 import dtypes
from ember._c10.grad_mode import is_grad_enabled
from ember._c10.layout import strided
from ember._tensor import Tensor
from ember._tensor_ctors import contiguous_format
from ember.aten._generated.python_functions import cat, where
from ember.aten.native import at
from ember.aten.tensor_subclass_like import are_any_tensor_subclass_like

# Note [Formulas call operators as PyTorch's C++ does]
# ----------------------------------------------------
# A dispatch mode logging a backward pass sees the calls FunctionsManual.cpp makes,
# so the helpers make the same ones: `tensor * 2` in C++ is mul.Scalar (a Python
# `*` with a number is mul.Tensor), `zeros_like(grad)` passes no options (the
# Python binding passes pin_memory=False), C++'s in-place steps (masked_fill_,
# logical_or_) stay in place, and where C++ evaluates an operator's right operand
# first (GCC does, for overloaded operators and call arguments) so do these.


def zeros_like(self, memory_format=None):
    """at::zeros_like(self[, memory_format]), with no tensor options."""
    return at.zeros_like(self, None, None, None, None, memory_format)


def mul_scalar(tensor, value):
    """``tensor * value`` for a C++ Scalar value: aten::mul.Scalar."""
    return at.mul_Scalar(tensor, value)


def div_scalar(tensor, value):
    return at.div_Scalar(tensor, value)


def add_scalar(tensor, value):
    return at.add_Scalar(tensor, value, 1)


def sub_scalar(tensor, value):
    return at.sub_Scalar(tensor, value, 1)


def conj_scalar(value):
    """Scalar::conj(): a Python number's conjugate."""
    return value.conjugate() if isinstance(value, complex) else value


def _conj(tensor):
    return at.conj(tensor)


def handle_r_to_c(self, grad):
    """The real part of ``grad`` when the input (a tensor or a dtype) is real and the
    gradient complex: PyTorch's at::real, cast without copy_'s warning."""
    dtype = self if isinstance(self, dtypes.dtype) else self.dtype
    if dtype.is_complex or not grad.dtype.is_complex:
        return grad
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return grad.to(grad.dtype.to_real())


def sgn(self):
    """self.sgn(), the operator (sign for real tensors, z / |z| for complex ones)."""
    return at.sgn(self)


def maybe_multiply(tensor, factor):
    return tensor if factor == 1 else at.mul_Scalar(tensor, factor)


def mul_tensor_backward(grad, other, self_dtype):
    """d (self * other) / d self: grad * other.conj(), real for a real self."""
    if not isinstance(other, Tensor):
        return handle_r_to_c(self_dtype, at.mul_Scalar(grad, conj_scalar(other)))
    return handle_r_to_c(self_dtype, grad * _conj(other))


def div_tensor_self_backward(grad, other, self_dtype, rounding_mode=None):
    if rounding_mode is not None:  # zeros_like(grad, grad.options().dtype(self_dtype))
        return at.zeros_like(grad, self_dtype, strided, grad.device, None, None)
    divisor = conj_scalar(other) if not isinstance(other, Tensor) else _conj(other)
    return handle_r_to_c(self_dtype, grad / divisor)


def div_tensor_other_backward(grad, self, other, rounding_mode=None):
    if rounding_mode is not None:  # zeros_like(grad, grad.options().dtype(other's dtype))
        return at.zeros_like(grad, other.dtype, strided, grad.device, None, None)
    quotient = _conj((self / other) / other)  # the right operand first, as PyTorch
    return handle_r_to_c(other, -grad * quotient)


def rsqrt_backward(grad, result):
    """-0.5 * grad * result.pow(3).conj()."""
    cubed = _conj(result.pow(3))
    return at.mul_Scalar(grad, -0.5) * cubed


def reciprocal_backward(grad, result):
    """-grad * (result * result).conj()."""
    squared = _conj(result * result)
    return -grad * squared


def remainder_other_backward(grad, self, other):
    """-grad * self.div(other, rounding_mode="floor")."""
    quotient = self.div(other, rounding_mode="floor")
    return -grad * quotient


def to_copy_backward(grad, self_dtype, self_device):
    """_to_copy_backward: a real source receives the real part, without a warning; then
    grad.to(self.options()), a _to_copy with dtype= and device= when either differs."""
    grad = handle_r_to_c(self_dtype, grad)
    if grad.dtype is self_dtype and grad.device == self_device:
        return grad
    return at._to_copy(grad, self_dtype, strided, self_device, None, False, None)


def sigmoid_backward(grad, result):
    """at::sigmoid_backward: one operator call, as a dispatch mode sees it in PyTorch."""
    return at.sigmoid_backward(grad, result)


def sigmoid_backward_output_backward(grad, grad_output, output):
    """grad.conj() * grad_output * (-2 * output.conj() + 1), the operands in the order
    PyTorch's compiled formula evaluates them (the right factor first)."""
    factor = at.add_Scalar(at.mul_Scalar(_conj(output), -2), 1, 1)
    return at.mul_Tensor(at.mul_Tensor(_conj(grad), grad_output), factor)


def tanh_backward(grad, result):
    """at::tanh_backward: one operator call, as a dispatch mode sees it in PyTorch."""
    return at.tanh_backward(grad, result)


def tanh_backward_output_backward(grad, grad_output, output):
    """grad.conj() * (-2 * output.conj() * grad_output).conj(), evaluated as PyTorch does."""
    factor = _conj(at.mul_Tensor(at.mul_Scalar(_conj(output), -2), grad_output))
    return at.mul_Tensor(_conj(grad), factor)


def _column_major(sizes, strides) -> bool:
    return strides[0] == 1 and strides[1] == sizes[0]


def mm_mat1_backward(grad, mat2, mat1_sizes, mat1_strides, alpha=1):
    """grad @ mat2^H, laid out column-major when mat1 was (as PyTorch, for efficiency)."""
    if _column_major(mat1_sizes, mat1_strides):
        return maybe_multiply(at.t(at.mm(_conj(mat2), at.t(grad))), conj_scalar(alpha))
    return maybe_multiply(at.mm(grad, _conj(at.t(mat2))), conj_scalar(alpha))


def mm_mat2_backward(grad, mat1, mat2_sizes, mat2_strides, alpha=1):
    """mat1^H @ grad, laid out column-major when mat2 was."""
    if _column_major(mat2_sizes, mat2_strides):
        return maybe_multiply(at.t(at.mm(at.t(grad), _conj(mat1))), conj_scalar(alpha))
    return maybe_multiply(at.mm(_conj(at.t(mat1)), grad), conj_scalar(alpha))


def pow_backward(grad, self, exponent):
    """grad * (p * x^(p-1)).conj(); zeros for p == 0."""
    if exponent == 0:
        return zeros_like(self, contiguous_format)
    # exponent.toDouble() (toComplexDouble()), then exp * self.pow(exp - 1): mul.Scalar
    exponent = complex(exponent) if isinstance(exponent, complex) else float(exponent)
    return handle_r_to_c(self, grad * _conj(at.mul_Scalar(self.pow(exponent - 1), exponent)))


def pow_backward_self(grad, self, exponent):
    derivative = grad * _conj(exponent * self.pow(exponent - 1))
    return handle_r_to_c(self, where(exponent == 0, zeros_like(derivative), derivative))


def pow_backward_exponent(grad, self, exponent, result):
    """grad * where(x == 0 and p >= 0, 0, (result * log x).conj()); x may be a number."""
    if not isinstance(self, Tensor):
        if self == 0:
            logs = _conj(result * -math.inf)
            chosen = where(_real_nonnegative(exponent), zeros_like(logs), logs)
        else:
            chosen = _conj(at.mul_Scalar(result, _log(self, exponent.dtype.is_complex)))
        return handle_r_to_c(exponent, grad * chosen)
    zero = (self == 0).logical_and(_real_nonnegative(exponent))
    logs = _conj(result * self.to(result.dtype).log())
    return handle_r_to_c(exponent, grad * where(zero, zeros_like(logs), logs))


def _real_nonnegative(exponent):
    """exponent >= 0; for a complex exponent, imag == 0 and real >= 0."""
    if not exponent.dtype.is_complex:
        return exponent >= 0
    real = handle_r_to_c(exponent.dtype.to_real(), exponent)
    return (exponent == real).logical_and(real >= 0)


def _log(base, complex_exponent: bool):
    """Scalar::log: of a complex base (or a real one under a complex exponent) the complex
    logarithm; of a negative real base NaN, as std::log."""
    if complex_exponent or isinstance(base, complex):
        return cmath.log(complex(base))
    return math.log(base) if base > 0 else math.nan


def prod_backward(grad, self, result, dim=None, keepdim: bool = False):
    """d prod / d x_i, as FunctionsManual's prod_backward computes it (so the signs of
    zero gradients match): grad * (result / x) when no input is zero, else the products
    of the elements before and after each one (prod_safe_zeros_backward); a meta or
    subclass-like input always takes the latter."""
    if self.dim() == 0:
        return grad
    safe_only = self.device.type == "meta" or are_any_tensor_subclass_like(self)
    if dim is None:
        if not safe_only:
            zeros = int((self == 0).sum())
            if zeros == 0:
                return grad * _conj(result / self)
            if zeros > 1 and not is_grad_enabled():
                return zeros_like(self)
        flat = self.contiguous().view(-1)
        return _prod_safe_zeros_backward(grad, flat, 0).view_as(self)
    dim = dim % self.dim()
    if not keepdim:
        grad, result = grad.unsqueeze(dim), result.unsqueeze(dim)
    if not safe_only and not bool((self == 0).any()):
        return grad * _conj(result / self)
    return _prod_safe_zeros_backward(grad, self, dim)


def _prod_safe_zeros_backward(grad, inp, dim: int):
    """grad * (exclusive cumprod forward * exclusive cumprod backward), both cumprods."""
    if inp.numel() == 0:
        return grad.expand_as(inp)
    length = inp.shape[dim]
    sizes = list(inp.shape)
    sizes[dim] = 1
    unit = at.ones(sizes, grad.dtype, strided, grad.device, None)
    exclusive_normal = cat([unit, inp.narrow(dim, 0, length - 1)], dim).cumprod(dim)
    narrow_reverse = inp.narrow(dim, 1, length - 1).flip([dim])
    exclusive_reverse = cat([unit, narrow_reverse], dim).cumprod(dim).flip([dim])
    return grad * _conj(exclusive_normal * exclusive_reverse)
