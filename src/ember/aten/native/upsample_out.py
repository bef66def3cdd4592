"""The out= overloads of the upsample operators (PyTorch's structured `.out` kernels).

Layer: aten/native. In: the functional operator's arguments and `out`. Out: `out`, of
the input's dtype (structured set_output's check), resized as resize_output does and
filled with the functional kernel's result. Mirrors the out= half of
ATen/native/UpSample*.cpp's TORCH_IMPL_FUNCs.
"""

from __future__ import annotations

from ember.aten.native import at
from ember.aten.native import upsample_ops as ops
from ember.aten.native.common import type_meta_name
from ember.aten.native.resize import resize_output

_NAMES = (
    "upsample_nearest1d", "upsample_nearest2d", "upsample_nearest3d",
    "_upsample_nearest_exact1d", "_upsample_nearest_exact2d", "_upsample_nearest_exact3d",
    "upsample_linear1d", "upsample_bilinear2d", "upsample_bicubic2d", "upsample_trilinear3d",
)  # fmt: skip

__all__ = [f"{name}_out" for name in _NAMES]


def _out_kernel(functional):
    def kernel(self, *args):
        *args, out = args
        result = functional(self, *args)
        if out.dtype != self.dtype:
            raise RuntimeError(
                f"Expected out tensor to have dtype {type_meta_name(self.dtype)}, but got "
                f"{type_meta_name(out.dtype)} instead"
            )
        resize_output(out, result._sizes)
        if out.device.type != "meta":
            at.copy_(out, result, False)
        return out

    kernel.__name__ = f"{functional.__name__}_out"
    return kernel


upsample_nearest1d_out = _out_kernel(ops.upsample_nearest1d)
upsample_nearest2d_out = _out_kernel(ops.upsample_nearest2d)
upsample_nearest3d_out = _out_kernel(ops.upsample_nearest3d)
_upsample_nearest_exact1d_out = _out_kernel(ops._upsample_nearest_exact1d)
_upsample_nearest_exact2d_out = _out_kernel(ops._upsample_nearest_exact2d)
_upsample_nearest_exact3d_out = _out_kernel(ops._upsample_nearest_exact3d)
upsample_linear1d_out = _out_kernel(ops.upsample_linear1d)
upsample_bilinear2d_out = _out_kernel(ops.upsample_bilinear2d)
upsample_bicubic2d_out = _out_kernel(ops.upsample_bicubic2d)
upsample_trilinear3d_out = _out_kernel(ops.upsample_trilinear3d)
