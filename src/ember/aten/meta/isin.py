"""Meta functions of isin: a bool result of the elements' shape.

Layer: aten/meta. In: elements and test_elements (tensors or, for the Scalar overloads,
Python numbers) and the flags. Out: a StructuredMeta whose compute dtype is the two
operands' common dtype. Mirrors TORCH_META_FUNC2(isin, Tensor_Tensor), (isin,
Tensor_Scalar) and (isin, Scalar_Tensor) of ATen/native/TensorCompare.cpp with
check_for_unsupported_isin_dtype.
"""

from __future__ import annotations

from ember._c10 import dtypes
from ember.aten.meta.pointwise import unary_spec
from ember.aten.structured import StructuredMeta
from ember.aten.tensor_iterator import OutputSpec

__all__ = ["isin_Tensor_Tensor", "isin_Tensor_Scalar", "isin_Scalar_Tensor"]

_UNSUPPORTED = (dtypes.bool, dtypes.complex64, dtypes.complex128)


def _check(dtype) -> None:
    if dtype in _UNSUPPORTED:
        raise RuntimeError(
            f"Unsupported input type encountered for isin(): {dtypes.scalar_type_name(dtype)}"
        )


_SCALAR_TYPES = {
    bool: dtypes.bool,
    int: dtypes.int64,
    float: dtypes.float64,
    complex: dtypes.complex128,
}  # fmt: skip  (Scalar::type())


def _meta(spec, elements, test_elements) -> StructuredMeta:
    for operand in (elements, test_elements):
        _check(_SCALAR_TYPES[type(operand)] if type(operand) in _SCALAR_TYPES else operand.dtype)
    common = dtypes.result_type(elements, test_elements)
    return StructuredMeta(spec, common, exact_out=True)


def isin_Tensor_Tensor(elements, test_elements, assume_unique, invert) -> StructuredMeta:  # noqa: N802
    return _meta(unary_spec(elements, dtypes.bool), elements, test_elements)


def isin_Tensor_Scalar(elements, test_element, assume_unique, invert) -> StructuredMeta:  # noqa: N802
    return _meta(unary_spec(elements, dtypes.bool), elements, test_element)


def isin_Scalar_Tensor(element, test_elements, assume_unique, invert) -> StructuredMeta:  # noqa: N802
    """A 0-dim result: the element is wrapped into a scalar tensor on test_elements' device."""
    spec = OutputSpec((), (), dtypes.bool, test_elements.device)
    return _meta(spec, element, test_elements)
