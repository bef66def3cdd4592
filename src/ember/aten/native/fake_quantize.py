"""fake_quantize_per_tensor_affine: quantize to integers and back in the input's dtype, with
the mask of the elements that stayed inside [quant_min, quant_max] (the backward passes
the gradient there only).

Layer: aten/native. In: the schema's arguments. Out: fresh tensors. The CPU kernel
(fake_quantize_per_tensor_affine_cachemask) computes as QuantizedOpKernels.cpp's
fake_quantize_tensor_cachemask_kernel: inv_scale = 1 / scale in float32, the product and
nearbyint (ties to even) in the input's arithmetic (float32 for float32 / half /
bfloat16), the zero point added there, clamped, shifted back and scaled in float64;
autograd records FakeQuantizePerTensorAffineCachemaskBackward0, whose backward is
grad * mask. Mirrors ATen/native/quantized/FakeQuantPerTensorAffine.cpp.
"""

from __future__ import annotations

import numpy as np

from ember._c10 import dtypes
from ember._tensor import wrap_array
from ember.aten.native import at
from ember.aten.native.views import scalar_type_name_of

__all__ = [
    "fake_quantize_per_tensor_affine",
    "fake_quantize_per_tensor_affine_cachemask",
    "fake_quantize_per_tensor_affine_cachemask_backward",
]

_FLOATING = (dtypes.float32, dtypes.float64, dtypes.float16, dtypes.bfloat16)


def fake_quantize_per_tensor_affine(self, scale, zero_point, quant_min, quant_max):
    return at.fake_quantize_per_tensor_affine_cachemask(
        self, scale, zero_point, quant_min, quant_max
    )[0]


def fake_quantize_per_tensor_affine_cachemask(self, scale, zero_point, quant_min, quant_max):
    if quant_min > quant_max:
        raise RuntimeError("`quant_min` should be less than or         equal to `quant_max`.")
    if not quant_min <= zero_point <= quant_max:
        raise RuntimeError("`zero_point` must be between `quant_min` and `quant_max`.")
    if self.dtype not in _FLOATING:
        raise NotImplementedError(
            '"fake_quantize_tensor_cachemask_kernel_type_handling" not implemented for '
            f"'{scalar_type_name_of(self.dtype)}'"
        )
    x = self.ndarray()
    compute = np.float64 if self.dtype is dtypes.float64 else np.float32
    sc = np.float32(scale)
    inv_scale = np.float32(1.0) / sc
    with np.errstate(all="ignore"):
        scaled = np.rint(x.astype(compute) * compute(inv_scale))
        qval = (compute(zero_point) + scaled).astype(np.int64)
        out = (np.clip(qval, quant_min, quant_max).astype(np.float64) - zero_point) * float(sc)
    mask = (qval >= quant_min) & (qval <= quant_max)
    return (
        wrap_array(np.ascontiguousarray(out.astype(self.dtype.np_dtype)), self.dtype),
        wrap_array(np.ascontiguousarray(mask), dtypes.bool),
    )


def fake_quantize_per_tensor_affine_cachemask_backward(grad, mask):
    if mask.dtype is not dtypes.bool:
        raise RuntimeError(
            "Expected mask.scalar_type() == ScalarType::Bool to be true, but got false.  "
            "(Could this error message be improved?  If so, please report an enhancement "
            "request to PyTorch.)"
        )
    if mask.numel() != grad.numel():
        raise RuntimeError(
            f"`mask` and `dY` are not the same size: `mask` is size {mask.numel()} and `dY` "
            f"is size {grad.numel()}"
        )
    return at.mul_Tensor(grad, mask)
