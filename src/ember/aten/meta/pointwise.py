"""Meta functions of the binary pointwise (TensorIterator) operators, and their shared helpers.

Layer: aten/meta. In: the functional arguments (tensors, possibly meta;
Python numbers for Scalar overloads). Out: a StructuredMeta: output shape,
dtype, strides, and the dtype the formula computes in. Mirrors
TORCH_META_FUNC2(add, Tensor) and friends in ATen/native/BinaryOps.cpp,
Pow.cpp, TensorCompare.cpp (clamp), and the TensorIterator configurations
of ATen/TensorIterator.cpp (binary_op, binary_float_op, unary_op).
Unary operators and comparisons live in meta/pointwise_unary.py.
"""

from __future__ import annotations

from ember._c10 import dtypes
from ember._c10.dtypes import scalar_type_name
from ember._c10.tensor_impl import shape_text
from ember._tensor import empty_tensor
from ember.aten.meta.out_wrapper import copy_out
from ember.aten.meta.python_inplace import broadcast_shapes_ref, check_same_device
from ember.aten.native.common import type_meta_name
from ember.aten.structured import StructuredMeta, resize_output
from ember.aten.tensor_iterator import OutputSpec, output_strides, pointwise_spec

__all__ = [
    "add_Tensor",
    "sub_Tensor",
    "mul_Tensor",
    "div_Tensor",
    "div_Tensor_mode",
    "remainder_Tensor",
    "pow_Tensor_Tensor",
    "pow_Tensor_Scalar",
    "pow_Scalar",
    "maximum",
    "minimum",
    "clamp",
    "threshold_backward",
    "tanh_backward",
    "sigmoid_backward",
    "clamp_Tensor",
]


# -- helpers shared by the pointwise meta functions ----------------------------


class PointwiseMeta(StructuredMeta):
    """A TensorIterator op. Its kernels check memory overlap before the meta function runs
    (Note [Memory overlap checks]); an out= that is also an input is never resized."""

    __slots__ = ()

    def check_read_write(self, out, index: int = 0) -> None:
        """mark_resize_outputs: a read-write output must already have the broadcast shape.
        (PyTorch's meta kernels resize it: a meta `out` is not checked.)"""
        sizes = self.specs[index].sizes
        if out._sizes != sizes and out.device.type != "meta":
            raise RuntimeError(
                f"output with shape {shape_text(out._sizes)} doesn't match the broadcast shape "
                f"{shape_text(sizes)}"
            )


class SameDtypeMeta(PointwiseMeta):
    """TensorIterator with check_all_same_dtype: an out= tensor must have the exact dtype."""

    __slots__ = ()

    def resize_outputs(self, *outs) -> None:
        for out, spec in zip(outs, self.specs):
            if out.dtype is not spec.dtype:
                raise RuntimeError(
                    f"Found dtype {scalar_type_name(out.dtype)} but expected "
                    f"{scalar_type_name(spec.dtype)}"
                )
        PointwiseMeta.resize_outputs(self, *outs)


class OutDtypeMeta(StructuredMeta):
    """A meta function that adopts the out= tensor's dtype (pow.Scalar): resize only."""

    __slots__ = ()

    def resize_outputs(self, *outs) -> None:
        for out, spec in zip(outs, self.specs):
            resize_output(out, spec.sizes, spec.strides)


def unary_spec(self, dtype) -> OutputSpec:
    """The output of a TensorIterator over ``self`` alone: its shape and memory layout."""
    sizes = self._sizes
    return OutputSpec(sizes, output_strides((self,), sizes), dtype, self.device)


def binary_op(self, other) -> StructuredMeta:
    spec, common = pointwise_spec((self, other))
    return PointwiseMeta(spec, common)


def binary_float_op(self, other) -> StructuredMeta:
    spec, common = pointwise_spec((self, other), promote_integer_inputs_to_float=True)
    return PointwiseMeta(spec, common)


def is_integral(dtype, include_bool: bool) -> bool:
    if dtype is dtypes.bool:
        return include_bool
    return not (dtype.is_floating_point or dtype.is_complex)


# -- add, sub, mul, div, remainder ----------------------------------------------


def _alpha_check(dtype, alpha) -> None:
    """alpha_check (BinaryOps.h), against the common dtype."""
    if isinstance(alpha, bool) and dtype is not dtypes.bool:
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if not (dtype.is_floating_point or dtype.is_complex) and not isinstance(alpha, int):
        raise RuntimeError(
            "For integral input tensors, argument alpha must not be a floating point number."
        )
    if not dtype.is_complex and isinstance(alpha, complex):
        raise RuntimeError(
            "For non-complex input tensors, argument alpha must not be a complex number."
        )
    from ember.aten.native.factories import checked_value

    checked_value(alpha, dtype)  # the kernel's alpha.to<scalar_t>(): 2**63 is no int64


class AlphaMeta(PointwiseMeta):
    """add / sub with an alpha: alpha_check follows the TensorIterator's build, so the
    written-to tensor's checks (in-place, out=) come first."""

    __slots__ = ("alpha",)

    def __init__(self, spec, common, alpha) -> None:
        PointwiseMeta.__init__(self, spec, common)
        self.alpha = alpha

    def allocate(self):
        _alpha_check(self.compute_dtype, self.alpha)
        return PointwiseMeta.allocate(self)

    def check_inplace(self, self_tensor) -> None:
        PointwiseMeta.check_inplace(self, self_tensor)
        _alpha_check(self.compute_dtype, self.alpha)

    def resize_outputs(self, *outs) -> None:
        PointwiseMeta.resize_outputs(self, *outs)
        _alpha_check(self.compute_dtype, self.alpha)


def _with_alpha(meta, alpha) -> StructuredMeta:
    if alpha == 1 and alpha.__class__ is int:
        return meta
    return AlphaMeta(meta.specs[0], meta.compute_dtype, alpha)


def add_Tensor(self, other, alpha) -> StructuredMeta:  # noqa: N802 (kernel names follow overloads)
    return _with_alpha(binary_op(self, other), alpha)


def _sub_check(self, other) -> None:
    """sub_check (BinaryOps.h)."""
    self_bool = self.dtype is dtypes.bool
    other_bool = other.dtype is dtypes.bool
    if self_bool and other_bool:
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. "
            "Use the `^` or `logical_xor()` operator instead."
        )
    if self_bool or other_bool:
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. "
            "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )


def sub_Tensor(self, other, alpha) -> StructuredMeta:  # noqa: N802
    _sub_check(self, other)
    return _with_alpha(binary_op(self, other), alpha)


def mul_Tensor(self, other) -> StructuredMeta:  # noqa: N802
    return binary_op(self, other)


def div_Tensor(self, other) -> StructuredMeta:  # noqa: N802
    return binary_float_op(self, other)


def _floor_divide_devices(self, other):
    """torch._refs.floor_divide (the Meta kernel of a floor division): a divisor on another
    device than a cpu dividend is refused, anything else is put on the dividend's device."""
    if self.device.type == "cpu":
        raise RuntimeError(
            f"Expected divisor (b) to be on the same device ({self.device}) as dividend (a), but "
            f"it is found on {other.device}!"
        )
    moved = empty_tensor(other._sizes, other.dtype, self.device)
    moved._is_wrapped_number = getattr(other, "_is_wrapped_number", False)
    return moved


def div_Tensor_mode(self, other, rounding_mode) -> StructuredMeta:  # noqa: N802
    if rounding_mode is None:
        return binary_float_op(self, other)
    if rounding_mode == "floor" and self.device != other.device:
        if "meta" in (self.device.type, other.device.type):
            other = _floor_divide_devices(self, other)
    if rounding_mode in ("trunc", "floor"):
        return binary_op(self, other)
    if "meta" in (self.device.type, other.device.type):  # PyTorch's Python reference (div)
        raise ValueError(
            "div expected rounding_mode to be one of None, 'trunc', or 'floor' "
            f"but found {rounding_mode}."
        )
    raise RuntimeError(
        "div expected rounding_mode to be one of None, 'trunc', or 'floor' "
        f"but found '{rounding_mode}'"
    )


def remainder_Tensor(self, other) -> StructuredMeta:  # noqa: N802
    return binary_op(self, other)


# -- pow -------------------------------------------------------------------------


def pow_Tensor_Tensor(self, exponent) -> StructuredMeta:  # noqa: N802
    return binary_op(self, exponent)


def pow_Tensor_Scalar(self, exponent) -> StructuredMeta:  # noqa: N802
    integer = isinstance(exponent, int) and not isinstance(exponent, bool)
    if integer and is_integral(self.dtype, include_bool=True):
        if exponent >= dtypes.UINT64_SCALARS_FROM:  # exp.toLong(): Note [uint64 Scalars]
            raise RuntimeError("value cannot be converted to type int64_t without overflow")
        if exponent < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
    common = dtypes.result_type(self, exponent)
    return PointwiseMeta(unary_spec(self, common), common)


def pow_Scalar(self, exponent) -> StructuredMeta:  # noqa: N802
    """pow(Scalar, Tensor): a contiguous output; out= keeps its own dtype."""
    common = dtypes.result_type(self, exponent)
    spec = OutputSpec(exponent._sizes, None, common, exponent.device)
    return OutDtypeMeta(spec, common)


# -- maximum, minimum, clamp -----------------------------------------------------


def maximum(self, other) -> StructuredMeta:
    if self.dtype.is_complex or other.dtype.is_complex:
        raise RuntimeError("maximum not implemented for complex tensors.")
    return binary_op(self, other)


def minimum(self, other) -> StructuredMeta:
    if self.dtype.is_complex or other.dtype.is_complex:
        raise RuntimeError("minimum not implemented for complex tensors.")
    return binary_op(self, other)


class ClampMeta(SameDtypeMeta):
    """clamp(Scalar): an in-place clamp must not promote (its own error text)."""

    __slots__ = ()

    def check_inplace(self, self_tensor) -> None:
        result = self.specs[0].dtype
        if result is not self_tensor.dtype:
            target = type_meta_name(self_tensor.dtype)
            raise RuntimeError(
                f"result type {scalar_type_name(result)} can't be cast to the desired "
                f"output type {target}"
            )
        PointwiseMeta.check_inplace(self, self_tensor)


def _no_bounds_error():
    return RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")


class ReferenceMeta(StructuredMeta):
    """The result of a Python reference (PyTorch's Meta kernel of the op). An in-place call
    is the reference with out=self (_make_inplace): `self` is resized to the result, with
    out_wrapper's warning, and the result must cast to it safely."""

    __slots__ = ()

    def check_inplace(self, self_tensor) -> None:
        copy_out(self, self_tensor)


def _on_meta(*operands) -> bool:
    return any(getattr(t, "device", None) is not None and t.device.type == "meta" for t in operands)


def _clamp_reference(self, min, max) -> StructuredMeta:  # noqa: A002 (schema names)
    """torch._refs.clamp, PyTorch's Meta kernel of clamp (a meta operand takes a call there):
    no complex check, the devices (cpu scalars aside) and broadcast in the references' words,
    the bounds promoting with `self` (elementwise_type_promotion_wrapper, DEFAULT)."""
    if min is None and max is None:
        raise ValueError("clamp called but both min and max are none!")
    operands = [self] + [bound for bound in (min, max) if bound is not None]
    tensors = [t for t in operands if hasattr(t, "_sizes")]
    shape = self._sizes
    for bound in tensors[1:]:  # ge(a, min) then le(a, max): broadcast, then the devices
        shape = tuple(broadcast_shapes_ref(shape, bound._sizes))
        check_same_device(self, bound)
    device = next((t.device for t in tensors if t._sizes or t.device.type != "cpu"), self.device)
    result = dtypes.result_type(*operands)
    spec = OutputSpec(shape, output_strides(tensors, shape), result, device)
    return ReferenceMeta(spec, result)


def clamp(self, min, max) -> StructuredMeta:  # noqa: A002 (schema names)
    if self.device.type == "meta":
        return _clamp_reference(self, min, max)
    if min is None and max is None:
        raise _no_bounds_error()
    result = self.dtype
    if result.is_complex:
        raise NotImplementedError("clamp is not supported for complex types")
    if not result.is_floating_point:
        bounds = [bound for bound in (min, max) if bound is not None]
        result = dtypes.result_type(self, *bounds)
    if result.is_complex:  # a complex bound: clamp_ first refuses the promotion itself
        return _ComplexBoundsMeta(unary_spec(self, result), result)
    return ClampMeta(unary_spec(self, result), result)


class _ComplexBoundsMeta(ClampMeta):
    """clamp's meta for an integer self with a complex Scalar bound: an in-place clamp
    refuses the promotion (ClampMeta.check_inplace), any other "is not supported"."""

    __slots__ = ()

    def allocate(self):
        raise NotImplementedError("clamp is not supported for complex types")

    def resize_outputs(self, *outs) -> None:
        raise NotImplementedError("clamp is not supported for complex types")


def clamp_Tensor(self, min, max) -> StructuredMeta:  # noqa: N802, A002
    if _on_meta(self, min, max):
        return _clamp_reference(self, min, max)
    if min is None and max is None:
        raise _no_bounds_error()
    if self.dtype.is_complex:
        raise NotImplementedError("clamp is not supported for complex types")
    operands = (self,) + tuple(bound for bound in (min, max) if bound is not None)
    spec, common = pointwise_spec(operands)
    return PointwiseMeta(spec, common)


def threshold_backward(grad_output, self, threshold) -> StructuredMeta:
    """TORCH_META_FUNC(threshold_backward): a binary TensorIterator over (grad, self)."""
    return binary_op(grad_output, self)


def tanh_backward(grad_output, output) -> StructuredMeta:
    """TORCH_META_FUNC(tanh_backward): a binary TensorIterator over (grad, output)."""
    return binary_op(grad_output, output)


def sigmoid_backward(grad_output, output) -> StructuredMeta:
    """TORCH_META_FUNC(sigmoid_backward): a binary TensorIterator over (grad, output)."""
    return binary_op(grad_output, output)
