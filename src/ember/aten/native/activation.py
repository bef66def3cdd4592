"""CPU kernels of the activations (elu, leaky_relu, hardtanh, softplus, silu, mish,
hardswish, hardsigmoid, the shrinks, threshold, glu, log_sigmoid, prelu, gelu_backward)
and of their backward operators, plus the composites celu / selu / relu6 / log_sigmoid /
prelu.

Layer: aten/native. In: a StructuredMeta and the out tensor (structured ops) or the full
schema arguments. Out: tensors. Each formula runs in the opmath dtype (float32 for
float16 / bfloat16) with the Scalars converted to it first, as the CPU kernels of
ATen/native/cpu/Activation.cpp do. Mirrors ATen/native/Activation.cpp,
GatedLinearUnit.cpp, Softplus, LogSigmoid and the prelu kernels.
"""

from __future__ import annotations

import math

import numpy as np

from ember._c10 import dtypes
from ember._tensor import empty_tensor
from ember.aten.native import at
from ember.aten.native.common import wrap_dim
from ember.aten.native.factories import checked_value
from ember.aten.tensor_iterator import broadcast_shapes
from ember.aten.ufunc_loops import compute_np, quiet, store
from ember.aten.ufunc_special import erf, not_implemented_for, operand, opmath

__all__ = [
    "elu_out",
    "elu_backward_out",
    "celu",
    "celu_",
    "selu",
    "selu_",
    "leaky_relu_out",
    "leaky_relu_backward_out",
    "hardtanh",
    "hardtanh_",
    "hardtanh_out",
    "hardtanh_backward",
    "hardtanh_backward_out",
    "relu6",
    "relu6_",
    "softplus_out",
    "softplus_backward_out",
    "silu_out",
    "silu_backward_out",
    "mish_out",
    "mish_backward",
    "hardswish",
    "hardswish_",
    "hardswish_out",
    "hardswish_backward",
    "hardsigmoid_out",
    "hardsigmoid_backward_out",
    "softshrink_out",
    "softshrink_backward_out",
    "hardshrink_out",
    "hardshrink_backward_out",
    "threshold_out",
    "glu_out",
    "glu_backward_cpu",
    "glu_backward_cpu_out",
    "log_sigmoid",
    "log_sigmoid_forward_cpu",
    "log_sigmoid_backward_cpu",
    "_prelu_kernel",
    "_prelu_kernel_backward",
    "prelu",
    "gelu_backward_out",
]

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _values(kernel: str, meta, *operands, complex_ok: bool = False):
    """The operands' values in the opmath dtype of the meta's compute dtype (or the
    AT_DISPATCH error of ``kernel``), and that dtype's scalar type."""
    compute = meta.compute_dtype
    if not (compute.is_floating_point or (complex_ok and compute.is_complex)):
        not_implemented_for(kernel, compute)
    np_type = opmath(compute_np(meta))
    return [operand(t).astype(np_type, copy=False) for t in operands], np_type.type


# -- elu, celu, selu ---------------------------------------------------------------------


@quiet
def elu_out(meta, self, alpha, scale, input_scale, out) -> None:
    (x,), scalar = _values("elu_cpu", meta, self)
    negcoef = scalar(alpha) * scalar(scale)
    poscoef, negiptcoef = scalar(scale), scalar(input_scale)
    store(out, np.where(x <= 0, np.expm1(x * negiptcoef) * negcoef, x * poscoef), meta)


@quiet
def elu_backward_out(meta, grad_output, alpha, scale, input_scale, is_result, self_or_result, out):
    (grad, y), scalar = _values("elu_backward_cpu", meta, grad_output, self_or_result)
    negcoef = scalar(alpha) * scalar(scale)
    poscoef, negiptcoef = scalar(scale), scalar(input_scale)
    if is_result:
        negative = grad * negiptcoef * (y + negcoef)
    else:
        negative = grad * negiptcoef * negcoef * np.exp(y * negiptcoef)
    store(out, np.where(y <= 0, negative, grad * poscoef), meta)


def _celu_coefficient(alpha) -> float:
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError")
    return 1.0 / float(alpha)


def celu(self, alpha):
    return at.elu(self, alpha, 1.0, _celu_coefficient(alpha))


def celu_(self, alpha):
    return at.elu_(self, alpha, 1.0, _celu_coefficient(alpha))


def selu(self):
    return at.elu(self, SELU_ALPHA, SELU_SCALE, 1)


def selu_(self):
    return at.elu_(self, SELU_ALPHA, SELU_SCALE, 1)


# -- leaky_relu, hardtanh, relu6 ---------------------------------------------------------


@quiet
def leaky_relu_out(meta, self, negative_slope, out) -> None:
    (x,), scalar = _values("leaky_relu_cpu", meta, self)
    store(out, np.where(x > 0, x, x * scalar(negative_slope)), meta)


@quiet
def leaky_relu_backward_out(meta, grad_output, self, negative_slope, self_is_result, out):
    (grad, x), scalar = _values("leaky_relu_backward_cpu", meta, grad_output, self)
    store(out, np.where(x > 0, grad, grad * scalar(negative_slope)), meta)


def _bounds(self, min_val, max_val):
    """hardtanh_out: integral inputs take the bounds as integers (toLong), so that they do
    not promote ("preserve legacy behavior of boundaries not causing type promotion")."""
    if self.dtype is dtypes.bool:
        raise RuntimeError("Bool inputs not supported for hardtanh")
    if self.dtype.is_floating_point or self.dtype.is_complex:
        return min_val, max_val
    low, high = int(min_val), int(max_val)
    if self.dtype is dtypes.uint8 and (low < 0 or high < 0):
        raise RuntimeError("cannot do hardtanh on an unsigned type with negative limits")
    return low, high


def hardtanh_out(self, min_val, max_val, out):
    low, high = _bounds(self, min_val, max_val)
    return at.clamp_out(self, low, high, out)


def hardtanh(self, min_val, max_val):
    return hardtanh_out(self, min_val, max_val, at.empty_like(self, None, None, None, None, None))


def hardtanh_(self, min_val, max_val):
    return hardtanh_out(self, min_val, max_val, self)


def _hardtanh_grad(grad_output, self, min_val, max_val):
    common = dtypes.promote_types(grad_output.dtype, self.dtype)
    if not common.is_floating_point:
        not_implemented_for("hardshrink_backward_cpu", common)
    np_type = opmath(common.np_dtype)
    grad = operand(grad_output).astype(np_type, copy=False)
    x = operand(self).astype(np_type, copy=False)
    low, high = np_type.type(min_val), np_type.type(max_val)
    return common, np.where((x <= low) | (x >= high), np_type.type(0), grad)


def hardtanh_backward(grad_output, self, min_val, max_val):
    common, values = _hardtanh_grad(grad_output, self, min_val, max_val)
    out = empty_tensor(values.shape, common, self.device)
    np.copyto(out.ndarray(), values, casting="unsafe")
    return out


def hardtanh_backward_out(grad_output, self, min_val, max_val, grad_input):
    common, values = _hardtanh_grad(grad_output, self, min_val, max_val)
    at.resize_(grad_input, list(values.shape), None)
    np.copyto(grad_input.ndarray(), values, casting="unsafe")
    return grad_input


def relu6(self):
    return at.hardtanh(self, 0, 6)


def relu6_(self):
    return at.hardtanh_(self, 0, 6)


# -- softplus, silu, mish ----------------------------------------------------------------


@quiet
def softplus_out(meta, self, beta, threshold, out) -> None:
    (x,), scalar = _values("softplus_cpu", meta, self)
    beta, threshold = scalar(beta), scalar(threshold)
    scaled = x * beta
    store(out, np.where(scaled > threshold, x, np.log1p(np.exp(scaled)) / beta), meta)


@quiet
def softplus_backward_out(meta, grad_output, self, beta, threshold, out) -> None:
    (grad, x), scalar = _values("softplus_backward_cpu", meta, grad_output, self)
    beta, threshold = scalar(beta), scalar(threshold)
    z = np.exp(x * beta)
    store(out, np.where(x * beta > threshold, grad, grad * z / (z + 1)), meta)


@quiet
def silu_out(meta, self, out) -> None:
    (x,), _ = _values("silu_cpu", meta, self, complex_ok=True)
    store(out, x / (1 + np.exp(-x)), meta)


@quiet
def silu_backward_out(meta, grad_output, self, out) -> None:
    (grad, x), _ = _values("silu_backward_cpu", meta, grad_output, self, complex_ok=True)
    sigmoid = 1 / (1 + np.exp(-x))
    store(out, grad * sigmoid * (1 + x * (1 - sigmoid)), meta)


@quiet
def mish_out(meta, self, out) -> None:
    (x,), _ = _values("mish_cpu", meta, self)
    store(out, x * np.tanh(np.log1p(np.exp(x))), meta)


class _Common:
    """The compute dtype of a kernel that is no TensorIterator: the promoted input dtype."""

    __slots__ = ("compute_dtype",)

    def __init__(self, *tensors) -> None:
        sizes = tensors[0]._sizes
        for t in tensors[1:]:
            sizes = broadcast_shapes(sizes, t._sizes)  # TensorIterator's broadcast error
        dtype = tensors[0].dtype
        for t in tensors[1:]:
            dtype = dtypes.promote_types(dtype, t.dtype)
        self.compute_dtype = dtype


def _fresh(meta, values, device):
    out = empty_tensor(values.shape, meta.compute_dtype, device)
    store(out, values, meta)
    return out


@quiet
def mish_backward(grad_output, self):
    meta = _Common(grad_output, self)
    (grad, x), _ = _values("mish_backward_cpu", meta, grad_output, self)
    sigmoid = 1 / (1 + np.exp(-x))
    tanh_softplus = np.tanh(np.log1p(np.exp(x)))
    values = grad * (tanh_softplus + x * sigmoid * (1 - tanh_softplus * tanh_softplus))
    return _fresh(meta, values, self.device)


# -- hardswish, hardsigmoid --------------------------------------------------------------


def _hardswish(x):
    return x * np.minimum(np.maximum(x + 3, 0), 6) / 6


@quiet
def hardswish(self):
    meta = _Common(self)
    (x,), _ = _values("hardswish_cpu", meta, self)
    return _fresh(meta, _hardswish(x), self.device)


@quiet
def hardswish_(self):
    meta = _Common(self)
    (x,), _ = _values("hardswish_cpu", meta, self)
    store(self, _hardswish(x), meta)
    return self


@quiet
def hardswish_out(self, out):
    meta = _Common(self)
    (x,), _ = _values("hardswish_cpu", meta, self)
    at.resize_(out, list(self._sizes), None)
    store(out, _hardswish(x), meta)
    return out


@quiet
def hardswish_backward(grad_output, self):
    meta = _Common(grad_output, self)
    (grad, x), _ = _values("hardswish_backward_cpu", meta, grad_output, self)
    values = np.where(x < -3, 0, np.where(x <= 3, grad * (x / 3 + 0.5), grad))
    return _fresh(meta, values.astype(grad.dtype, copy=False), self.device)


@quiet
def hardsigmoid_out(meta, self, out) -> None:
    (x,), _ = _values("hardsigmoid_cpu", meta, self)
    store(out, np.minimum(np.maximum(x + 3, 0), 6) / 6, meta)


@quiet
def hardsigmoid_backward_out(meta, grad_output, self, out) -> None:
    (grad, x), _ = _values("hardsigmoid_backward", meta, grad_output, self)
    store(out, np.where((x > -3) & (x < 3), grad / 6, 0).astype(grad.dtype, copy=False), meta)


# -- softshrink, hardshrink, threshold ---------------------------------------------------


@quiet
def softshrink_out(meta, self, lambd, out) -> None:
    (x,), scalar = _values("softshrink_check", meta, self)
    lambd = scalar(lambd)
    values = np.where(x > lambd, x - lambd, np.where(x < -lambd, x + lambd, x * 0))
    store(out, values, meta)


def _shrink_backward(meta, grad_output, self, lambd, out) -> None:
    (grad, x), scalar = _values("shrink_backward_cpu", meta, grad_output, self)
    lambd = scalar(lambd)
    store(out, np.where((x >= -lambd) & (x <= lambd), scalar(0), grad), meta)


softshrink_backward_out = quiet(_shrink_backward)
hardshrink_backward_out = quiet(_shrink_backward)


@quiet
def hardshrink_out(meta, self, lambd, out) -> None:
    (x,), scalar = _values("hardshrink_cpu", meta, self)
    lambd = scalar(lambd)
    store(out, np.where((x >= -lambd) & (x <= lambd), scalar(0), x), meta)


@quiet
def threshold_out(meta, self, threshold, value, out) -> None:
    """x <= threshold ? value : x, with both Scalars in the compute dtype (threshold_kernel)."""
    compute = meta.compute_dtype
    if compute is dtypes.bool:
        not_implemented_for("threshold_cpu", compute)
    x = operand(self)
    limit = checked_value(threshold, compute)
    replacement = checked_value(value, compute)
    store(out, np.where(x <= limit, replacement, x).astype(x.dtype, copy=False), meta)


# -- glu --------------------------------------------------------------------------------


def _halves(values, dim: int):
    half = values.shape[dim] // 2
    index = [slice(None)] * values.ndim
    first, second = list(index), list(index)
    first[dim], second[dim] = slice(0, half), slice(half, None)
    return values[tuple(first)], values[tuple(second)]


@quiet
def glu_out(meta, self, dim, out) -> None:
    (x,), _ = _values("glu_cpu", meta, self)
    a, b = _halves(x, wrap_dim(dim, self.dim()))
    store(out, a * (1 / (1 + np.exp(-b))), meta)


def _glu_grad(grad_output, self, dim):
    if self.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    dim = wrap_dim(dim, self.dim())
    size = self._sizes[dim]
    if size % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {dim} is size {size}")
    meta = _Common(self)
    (x, grad), _ = _values("glu_backward_cpu", meta, self, grad_output)
    a, b = _halves(x, dim)
    sigmoid = 1 / (1 + np.exp(-b))
    values = np.concatenate([sigmoid * grad, a * sigmoid * (1 - sigmoid) * grad], axis=dim)
    return meta, values


@quiet
def glu_backward_cpu(grad_output, self, dim):
    meta, values = _glu_grad(grad_output, self, dim)
    return _fresh(meta, values, self.device)


@quiet
def glu_backward_cpu_out(grad_output, self, dim, grad_input):
    meta, values = _glu_grad(grad_output, self, dim)
    at.resize_(grad_input, list(self._sizes), None)
    store(grad_input, values, meta)
    return grad_input


# -- log_sigmoid ------------------------------------------------------------------------


def log_sigmoid(self):
    return at.log_sigmoid_forward(self)[0]


@quiet
def log_sigmoid_forward_cpu(self):
    meta = _Common(self)
    (x,), _ = _values("log_sigmoid_cpu", meta, self)
    z = np.exp(-np.abs(x))
    output = np.minimum(x, 0) - np.log1p(z)
    return _fresh(meta, output, self.device), _fresh(meta, z, self.device)


@quiet
def log_sigmoid_backward_cpu(grad_output, self, buffer):
    meta = _Common(grad_output, self)
    (grad, x, z), scalar = _values("log_sigmoid_backward_cpu", meta, grad_output, self, buffer)
    negative = x < 0
    max_deriv = np.where(negative, scalar(1), scalar(0))
    sign = np.where(negative, scalar(1), scalar(-1))
    return _fresh(meta, grad * (max_deriv - sign * (z / (1 + z))), self.device)


# -- prelu ------------------------------------------------------------------------------


@quiet
def _prelu_kernel(self, weight):
    meta = _Common(self, weight)
    (x, w), _ = _values("prelu_cpu", meta, self, weight)
    return _fresh(meta, np.where(x > 0, x, w * x), self.device)


@quiet
def _prelu_kernel_backward(grad_output, self, weight):
    meta = _Common(grad_output, self, weight)
    (grad, x, w), _ = _values("prelu_backward_cpu", meta, grad_output, self, weight)
    positive = x > 0
    grad_input = np.where(positive, grad, w * grad)
    grad_weight = np.where(positive, 0, x * grad).astype(grad_input.dtype, copy=False)
    shape = np.broadcast_shapes(grad_input.shape, grad_weight.shape)
    return (
        _fresh(meta, np.broadcast_to(grad_input, shape), self.device),
        _fresh(meta, np.broadcast_to(grad_weight, shape), self.device),
    )


def prelu(self, weight):
    if self.dtype is not weight.dtype:
        raise RuntimeError(
            f"prelu: Type promoting not supported. Got {dtypes.scalar_type_name(self.dtype)} "
            f"and {dtypes.scalar_type_name(weight.dtype)}"
        )
    ndim = self.dim()
    if weight.numel() != 1:
        if ndim == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = self._sizes[1] if ndim > 1 else 1
        if channels != weight.numel():
            raise RuntimeError(
                "Mismatch of parameter numbers and input channel size. Found parameter "
                f"numbers = {weight.numel()} and channel size = {channels}."
            )
    if weight.dim() > 1:
        raise RuntimeError(
            f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.dim()}"
        )
    if ndim != weight.dim():
        shape = [1] * ndim
        if ndim > 1:
            shape[1] = weight.numel()
        weight = at.reshape(weight, shape)
    return at._prelu_kernel(self, weight)


# -- gelu_backward ----------------------------------------------------------------------

_SQRT1_2 = math.sqrt(0.5)
_KBETA_ERF = 2 / math.sqrt(math.pi) * _SQRT1_2 * 0.5
_KBETA_TANH = math.sqrt(2) * 2 / math.sqrt(math.pi) * 0.5
_KAPPA = 0.044715


@quiet
def gelu_backward_out(meta, grad_output, self, approximate, out) -> None:
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    (grad, x), scalar = _values("GeluBackwardKernelImpl", meta, grad_output, self)
    if approximate == "tanh":
        inner = scalar(_KBETA_TANH) * (x + scalar(_KAPPA) * x * x * x)
        tanh_inner = np.tanh(inner)
        left_derivative = 0.5 * (1 + tanh_inner)
        right_derivative = (
            (1 - tanh_inner * tanh_inner) * scalar(_KBETA_TANH) * (1 + 3 * scalar(_KAPPA) * x * x)
        )
        store(out, grad * (left_derivative + 0.5 * x * right_derivative), meta)
        return
    cdf = 0.5 * (1 + erf(x * scalar(_SQRT1_2)))
    pdf = scalar(_KBETA_ERF) * np.exp(x * x * -0.5)
    store(out, grad * (cdf + x * pdf), meta)
