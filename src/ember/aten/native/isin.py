"""isin: which elements occur among the test elements (the CPU kernels of its three
structured overloads).

Layer: aten/native. In: a StructuredMeta (the common dtype), the operands (a Python
number for the Scalar overloads), the flags and the bool output. Out: the membership
mask. Mirrors isin_default_kernel_cpu and the TORCH_IMPL_FUNC(isin_*_out) of
ATen/native/TensorCompare.cpp: both sides compared in the common dtype (NaN is in
nothing, -0.0 equals 0.0), inverted when invert is set; assume_unique changes no result.
"""

from __future__ import annotations

import numpy as np

from ember.aten.ufunc_loops import quiet
from ember.aten.ufunc_special import operand

__all__ = ["isin_Tensor_Tensor_out", "isin_Tensor_Scalar_out", "isin_Scalar_Tensor_out"]


@quiet
def isin_Tensor_Tensor_out(meta, elements, test_elements, assume_unique, invert, out):  # noqa: N802
    common = meta.compute_dtype.np_dtype
    a = np.asarray(operand(elements)).astype(common)
    b = np.asarray(operand(test_elements)).astype(common).ravel()
    np.copyto(out.ndarray(), np.isin(a, b, invert=invert))


isin_Tensor_Scalar_out = isin_Scalar_Tensor_out = isin_Tensor_Tensor_out
