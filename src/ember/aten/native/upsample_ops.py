"""The upsample operators themselves, in schema order: each names its mode and dims and
hands over to upsample.py (the arithmetic and the checks).

Layer: aten/native. The .vec overloads are CompositeImplicitAutograd (output size from
compute_output_size, then the base operator), as in PyTorch. Mirrors
ATen/native/UpSampleNearest{1,2,3}d.cpp, UpSampleLinear1d.cpp, UpSampleBilinear2d.cpp,
UpSampleBicubic2d.cpp.
"""

from __future__ import annotations

from ember.aten.native import at
from ember.aten.native.upsample import _backward, _forward, _scales_of, compute_output_size

__all__ = [
    "upsample_nearest1d", "upsample_nearest2d", "upsample_nearest3d",
    "upsample_nearest1d_backward", "upsample_nearest2d_backward", "upsample_nearest3d_backward",
    "upsample_nearest1d_vec", "upsample_nearest2d_vec", "upsample_nearest3d_vec",
    "_upsample_nearest_exact1d", "_upsample_nearest_exact2d", "_upsample_nearest_exact3d",
    "_upsample_nearest_exact1d_backward", "_upsample_nearest_exact2d_backward",
    "_upsample_nearest_exact3d_backward", "_upsample_nearest_exact1d_vec",
    "_upsample_nearest_exact2d_vec", "_upsample_nearest_exact3d_vec",
    "upsample_linear1d", "upsample_linear1d_backward", "upsample_linear1d_vec",
    "upsample_bilinear2d", "upsample_bilinear2d_backward", "upsample_bilinear2d_vec",
    "upsample_bicubic2d", "upsample_bicubic2d_backward", "upsample_bicubic2d_vec",
    "upsample_trilinear3d", "upsample_trilinear3d_backward", "upsample_trilinear3d_vec",
]  # fmt: skip


# -- nearest ----------------------------------------------------------------------------


def upsample_nearest1d(self, output_size, scales):
    return _forward(
        "nearest", "compute_indices_weights_nearest", self, output_size, False, [scales]
    )


def upsample_nearest2d(self, output_size, scales_h, scales_w):
    return _forward(
        "nearest",
        "upsample_nearest2d_channels_last",
        self,
        output_size,
        False,
        [scales_h, scales_w],
    )  # noqa: E501


def upsample_nearest3d(self, output_size, scales_d, scales_h, scales_w):
    return _forward(
        "nearest",
        "compute_indices_weights_nearest",
        self,
        output_size,
        False,
        [scales_d, scales_h, scales_w],
    )  # noqa: E501


def upsample_nearest1d_backward(grad_output, output_size, input_size, scales):
    return _backward("nearest", grad_output, output_size, input_size, False, [scales])


def upsample_nearest2d_backward(grad_output, output_size, input_size, scales_h, scales_w):
    return _backward("nearest", grad_output, output_size, input_size, False, [scales_h, scales_w])  # noqa: E501


def upsample_nearest3d_backward(grad_output, output_size, input_size, scales_d, scales_h, scales_w):  # noqa: E501
    return _backward(
        "nearest", grad_output, output_size, input_size, False, [scales_d, scales_h, scales_w]
    )  # noqa: E501


def upsample_nearest1d_vec(input, output_size, scale_factors):  # noqa: A002
    size = compute_output_size(input._sizes, output_size, scale_factors)
    return at.upsample_nearest1d(input, size, *_scales_of(scale_factors, 1))


def upsample_nearest2d_vec(input, output_size, scale_factors):  # noqa: A002
    size = compute_output_size(input._sizes, output_size, scale_factors)
    return at.upsample_nearest2d(input, size, *_scales_of(scale_factors, 2))


def upsample_nearest3d_vec(input, output_size, scale_factors):  # noqa: A002
    size = compute_output_size(input._sizes, output_size, scale_factors)
    return at.upsample_nearest3d(input, size, *_scales_of(scale_factors, 3))


# -- nearest-exact ----------------------------------------------------------------------


def _upsample_nearest_exact1d(self, output_size, scales):
    return _forward(
        "nearest-exact", "compute_indices_weights_nearest", self, output_size, False, [scales]
    )  # noqa: E501


def _upsample_nearest_exact2d(self, output_size, scales_h, scales_w):
    return _forward(
        "nearest-exact",
        "upsample_nearest2d_channels_last",
        self,
        output_size,
        False,
        [scales_h, scales_w],
    )  # noqa: E501


def _upsample_nearest_exact3d(self, output_size, scales_d, scales_h, scales_w):
    return _forward(
        "nearest-exact",
        "compute_indices_weights_nearest",
        self,
        output_size,
        False,
        [scales_d, scales_h, scales_w],
    )  # noqa: E501


def _upsample_nearest_exact1d_backward(grad_output, output_size, input_size, scales):
    return _backward("nearest-exact", grad_output, output_size, input_size, False, [scales])


def _upsample_nearest_exact2d_backward(grad_output, output_size, input_size, scales_h, scales_w):
    return _backward(
        "nearest-exact", grad_output, output_size, input_size, False, [scales_h, scales_w]
    )  # noqa: E501


def _upsample_nearest_exact3d_backward(
    grad_output, output_size, input_size, scales_d, scales_h, scales_w
):  # noqa: E501
    return _backward(
        "nearest-exact", grad_output, output_size, input_size, False, [scales_d, scales_h, scales_w]
    )  # noqa: E501


def _upsample_nearest_exact1d_vec(input, output_size, scale_factors):  # noqa: A002
    size = compute_output_size(input._sizes, output_size, scale_factors)
    return at._upsample_nearest_exact1d(input, size, *_scales_of(scale_factors, 1))


def _upsample_nearest_exact2d_vec(input, output_size, scale_factors):  # noqa: A002
    size = compute_output_size(input._sizes, output_size, scale_factors)
    return at._upsample_nearest_exact2d(input, size, *_scales_of(scale_factors, 2))


def _upsample_nearest_exact3d_vec(input, output_size, scale_factors):  # noqa: A002
    size = compute_output_size(input._sizes, output_size, scale_factors)
    return at._upsample_nearest_exact3d(input, size, *_scales_of(scale_factors, 3))


# -- linear, bilinear, bicubic --------------------------------------------------------------


def upsample_linear1d(self, output_size, align_corners, scales):
    return _forward(
        "linear", "compute_indices_weights_linear", self, output_size, align_corners, [scales]
    )


def upsample_linear1d_backward(grad_output, output_size, input_size, align_corners, scales):
    return _backward("linear", grad_output, output_size, input_size, align_corners, [scales])


def upsample_linear1d_vec(input, output_size, align_corners, scale_factors):  # noqa: A002
    size = compute_output_size(input._sizes, output_size, scale_factors)
    return at.upsample_linear1d(input, size, align_corners, *_scales_of(scale_factors, 1))


def upsample_bilinear2d(self, output_size, align_corners, scales_h, scales_w):
    return _forward(
        "linear",
        "upsample_bilinear2d_channels_last",
        self,
        output_size,
        align_corners,
        [scales_h, scales_w],
    )  # noqa: E501


def upsample_bilinear2d_backward(
    grad_output, output_size, input_size, align_corners, scales_h, scales_w
):  # noqa: E501
    return _backward(
        "linear", grad_output, output_size, input_size, align_corners, [scales_h, scales_w]
    )  # noqa: E501


def upsample_bilinear2d_vec(input, output_size, align_corners, scale_factors):  # noqa: A002
    size = compute_output_size(input._sizes, output_size, scale_factors)
    return at.upsample_bilinear2d(input, size, align_corners, *_scales_of(scale_factors, 2))


def upsample_bicubic2d(self, output_size, align_corners, scales_h, scales_w):
    return _forward(
        "cubic",
        "compute_indices_weights_cubic",
        self,
        output_size,
        align_corners,
        [scales_h, scales_w],
    )  # noqa: E501


def upsample_bicubic2d_backward(
    grad_output, output_size, input_size, align_corners, scales_h, scales_w
):  # noqa: E501
    return _backward(
        "cubic", grad_output, output_size, input_size, align_corners, [scales_h, scales_w]
    )  # noqa: E501


def upsample_bicubic2d_vec(input, output_size, align_corners, scale_factors):  # noqa: A002
    size = compute_output_size(input._sizes, output_size, scale_factors)
    return at.upsample_bicubic2d(input, size, align_corners, *_scales_of(scale_factors, 2))


def upsample_trilinear3d(self, output_size, align_corners, scales_d, scales_h, scales_w):
    scales = [scales_d, scales_h, scales_w]
    return _forward(
        "linear", "upsample_trilinear3d_channels_last", self, output_size, align_corners, scales
    )  # noqa: E501


def upsample_trilinear3d_backward(
    grad_output, output_size, input_size, align_corners, scales_d, scales_h, scales_w
):  # noqa: E501
    scales = [scales_d, scales_h, scales_w]
    return _backward("linear", grad_output, output_size, input_size, align_corners, scales)


def upsample_trilinear3d_vec(input, output_size, align_corners, scale_factors):  # noqa: A002
    size = compute_output_size(input._sizes, output_size, scale_factors)
    return at.upsample_trilinear3d(input, size, align_corners, *_scales_of(scale_factors, 3))
