"""Meta functions of the activations and their backward operators.

Layer: aten/meta. In: the functional arguments (tensors, Python numbers for the
Scalars). Out: a StructuredMeta. Forward activations are unary TensorIterators over
`self` with one dtype (build_unary_op); backward ones are binary TensorIterators over
(grad, self) (build_borrowing_binary_op). Mirrors the TORCH_META_FUNCs of
ATen/native/Activation.cpp, GatedLinearUnit.cpp and TensorCompare.cpp (threshold).
"""

from __future__ import annotations

from ember._c10 import dtypes
from ember.aten.meta.pointwise import PointwiseMeta, binary_op, unary_spec
from ember.aten.meta.pointwise_unary import unary_op
from ember.aten.native.common import wrap_dim
from ember.aten.structured import StructuredMeta
from ember.aten.tensor_iterator import OutputSpec

__all__ = [
    "elu",
    "elu_backward",
    "leaky_relu",
    "leaky_relu_backward",
    "softplus",
    "softplus_backward",
    "silu",
    "silu_backward",
    "mish",
    "hardsigmoid",
    "hardsigmoid_backward",
    "softshrink",
    "softshrink_backward",
    "hardshrink",
    "hardshrink_backward",
    "threshold",
    "glu",
    "gelu_backward",
]

_NEGATIVE_SLOPE_INPLACE = (
    "In-place {op} backward calculation is triggered with a negative slope which is not "
    "supported. This is caused by calling in-place forward function with a negative slope, "
    "please call out-of-place version instead."
)


def elu(self, alpha, scale, input_scale) -> StructuredMeta:
    return unary_op(self)


def elu_backward(grad_output, alpha, scale, input_scale, is_result, self_or_result):
    if is_result and alpha < 0:
        raise RuntimeError(_NEGATIVE_SLOPE_INPLACE.format(op="elu"))
    return binary_op(grad_output, self_or_result)


def leaky_relu(self, negative_slope) -> StructuredMeta:
    return unary_op(self)


def leaky_relu_backward(grad_output, self, negative_slope, self_is_result):
    if self_is_result and negative_slope < 0:
        raise RuntimeError(
            _NEGATIVE_SLOPE_INPLACE.format(op="leakyReLu")
            + " File an issue at https://github.com/pytorch/pytorch if you do require "
            "supporting in-place leakRelu backward calculation with negative slope"
        )
    return binary_op(grad_output, self)


def softplus(self, beta, threshold) -> StructuredMeta:
    return unary_op(self)


def softplus_backward(grad_output, self, beta, threshold) -> StructuredMeta:
    return binary_op(grad_output, self)


def silu(self) -> StructuredMeta:
    return unary_op(self)


def silu_backward(grad_output, self) -> StructuredMeta:
    return binary_op(grad_output, self)


def mish(self) -> StructuredMeta:
    return unary_op(self)


def hardsigmoid(self) -> StructuredMeta:
    return unary_op(self)


def hardsigmoid_backward(grad_output, self) -> StructuredMeta:
    return binary_op(grad_output, self)


# std::numeric_limits<T>::max() as C++'s ostream prints it (6 significant digits)
_MAX_TEXT = {
    dtypes.float64: "1.79769e+308",
    dtypes.float32: "3.40282e+38",
    dtypes.float16: "65504",
    dtypes.bfloat16: "3.38953e+38",
}
_MAX_VALUE = {
    dtypes.float64: 1.7976931348623157e308,
    dtypes.float32: 3.4028234663852886e38,
    dtypes.float16: 65504.0,
    dtypes.bfloat16: 3.3895313892515355e38,
}


def _number_text(value) -> str:
    """A C++ double as `<<` prints it: 6 significant digits, no trailing zeros."""
    return f"{float(value):g}"


def softshrink(self, lambd) -> StructuredMeta:
    """TORCH_META_FUNC(softshrink): lambd within [0, max of the input's dtype]."""
    if self.dtype in _MAX_VALUE:
        limit = _MAX_VALUE[self.dtype]
        if not (0 <= lambd <= limit):
            raise RuntimeError(
                f"lambda must be in range [0, {_MAX_TEXT[self.dtype]}] for input dtype "
                f"{dtypes.scalar_type_name(self.dtype)}, but found {_number_text(lambd)}"
            )
    return unary_op(self)


def softshrink_backward(grad_output, self, lambd) -> StructuredMeta:
    return binary_op(grad_output, self)


def hardshrink(self, lambd) -> StructuredMeta:
    return unary_op(self)


def hardshrink_backward(grad_out, self, lambd) -> StructuredMeta:
    return binary_op(grad_out, self)


def threshold(self, threshold, value) -> StructuredMeta:
    """A TensorIterator over (self, self) that promotes and casts to the output."""
    return PointwiseMeta(unary_spec(self, self.dtype), self.dtype)


def glu(self, dim) -> StructuredMeta:
    """TORCH_META_FUNC(glu): a binary TensorIterator over the two halves along ``dim``."""
    if self.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    wrapped = wrap_dim(dim, self.dim())
    size = self._sizes[wrapped]
    if size % 2:
        raise RuntimeError(
            f"Halving dimension must be even, but dimension {wrapped} is size {size}"
        )
    sizes = list(self._sizes)
    sizes[wrapped] = size // 2
    return PointwiseMeta(OutputSpec(tuple(sizes), None, self.dtype, self.device), self.dtype)


def gelu_backward(grad_output, self, approximate) -> StructuredMeta:
    return binary_op(grad_output, self)
