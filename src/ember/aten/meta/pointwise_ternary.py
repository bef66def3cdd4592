"""Meta functions of the ternary pointwise (TensorIterator) operators: addcmul, addcdiv, lerp.

Layer: aten/meta. In: the functional arguments (tensors; a Python number for
`value` / a Scalar `weight`). Out: a PointwiseMeta: broadcast shape, common
dtype, strides. Mirrors TORCH_META_FUNC(addcmul) / (addcdiv) of
ATen/native/PointwiseOps.cpp (build_ternary_op) and TORCH_META_FUNC(lerp_Scalar)
/ (lerp_Tensor) of ATen/native/Lerp.cpp.
"""

from __future__ import annotations

from ember.aten.meta.pointwise import PointwiseMeta
from ember.aten.native.common import type_meta_name
from ember.aten.tensor_iterator import pointwise_spec

__all__ = ["addcmul", "addcdiv", "lerp_Scalar", "lerp_Tensor"]


_INTEGER_ADDCDIV = (
    "Integer division with addcdiv is no longer supported, and in a future  release addcdiv "
    "will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be "
    "implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer "
    "inputs and as (input + value * tensor1 / tensor2) for float inputs. The future addcdiv "
    "behavior is just the latter implementation: (input + value * tensor1 / tensor2), for all "
    "dtypes."
)


def _is_integral(dtype) -> bool:
    """isIntegralType(t, /*includeBool=*/true)."""
    return not (dtype.is_floating_point or dtype.is_complex)


def _ternary_op(a, b, c) -> PointwiseMeta:
    """build_ternary_op: inputs promoted to their common dtype, safely cast to the output."""
    spec, common = pointwise_spec((a, b, c))
    return PointwiseMeta(spec, common)


def addcmul(self, tensor1, tensor2, value) -> PointwiseMeta:
    return _ternary_op(self, tensor1, tensor2)


def addcdiv(self, tensor1, tensor2, value) -> PointwiseMeta:
    if _is_integral(tensor1.dtype) and _is_integral(tensor2.dtype):
        raise RuntimeError(_INTEGER_ADDCDIV)
    return _ternary_op(self, tensor1, tensor2)


def _check_dtype(self, other, name: str) -> None:
    if self.dtype is not other.dtype:
        raise RuntimeError(
            f"expected dtype {type_meta_name(self.dtype)} for `{name}` but got dtype "
            f"{type_meta_name(other.dtype)}"
        )


def lerp_Scalar(self, end, weight) -> PointwiseMeta:  # noqa: N802 (kernel name)
    _check_dtype(self, end, "end")
    spec, common = pointwise_spec((self, end))
    return PointwiseMeta(spec, common)


def lerp_Tensor(self, end, weight) -> PointwiseMeta:  # noqa: N802 (kernel name)
    """A 0-dim weight may have another dtype (it joins the promotion as a scalar does)."""
    _check_dtype(self, end, "end")
    if weight.dim() != 0:
        _check_dtype(self, weight, "weight")
    return _ternary_op(self, end, weight)
