"""`F.interpolate`: size / scale_factor handling as torch/nn/functional.py does, then the
torch._C._nn.upsample_* binding of the mode (or an adaptive average pool for 'area').

Layer: the Python face, above aten. Modes: nearest, nearest-exact, linear, bilinear,
bicubic, trilinear, area (1-2d). ember has no antialiased or lanczos kernels and no 3-d
adaptive average pool: those raise NotImplementedError saying so. The deprecated
upsample / upsample_nearest / upsample_bilinear warn and call interpolate. Mirrors torch/nn/functional.py's interpolate.
"""

from __future__ import annotations

import math
import warnings

from ember._torch_function import handle_torch_function, has_torch_function
from ember.aten._generated import python_nn_functions as _nn
from ember.nn._functional.pooling import adaptive_avg_pool1d, adaptive_avg_pool2d

__all__ = ["interpolate", "upsample", "upsample_nearest", "upsample_bilinear"]

_NEAREST = {
    ("nearest", 3): _nn.upsample_nearest1d, ("nearest", 4): _nn.upsample_nearest2d,
    ("nearest", 5): _nn.upsample_nearest3d, ("nearest-exact", 3): _nn._upsample_nearest_exact1d,
    ("nearest-exact", 4): _nn._upsample_nearest_exact2d,
    ("nearest-exact", 5): _nn._upsample_nearest_exact3d,
}  # fmt: skip
_INTERPOLATING = {
    ("linear", 3): _nn.upsample_linear1d, ("bilinear", 4): _nn.upsample_bilinear2d,
    ("bicubic", 4): _nn.upsample_bicubic2d, ("trilinear", 5): _nn.upsample_trilinear3d,
}  # fmt: skip
_WRONG_DIMS = {
    (3, "bilinear"): "Got 3D input, but bilinear mode needs 4D input",
    (3, "trilinear"): "Got 3D input, but trilinear mode needs 5D input",
    (4, "linear"): "Got 4D input, but linear mode needs 3D input",
    (4, "trilinear"): "Got 4D input, but trilinear mode needs 5D input",
    (5, "linear"): "Got 5D input, but linear mode needs 3D input",
    (5, "bilinear"): "Got 5D input, but bilinear mode needs 4D input",
}


def _sizes(input, size, scale_factor, dim):  # noqa: A002
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got "
                    f"input with spatial dimensions of {list(input.shape[2:])} and output size of "
                    f"{size}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                    "output size in (o1, o2, ...,oK) format."
                )
            if not all(isinstance(x, int) for x in size):
                raise TypeError(
                    "expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                    f"Tuple[int, int, int], but got size with types {[type(x) for x in size]}"
                )
            return list(size), None
        return [size for _ in range(dim)], None
    if scale_factor is not None:
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, but "
                    f"got input with spatial dimensions of {list(input.shape[2:])} and "
                    f"scale_factor of shape {scale_factor}. Please provide input tensor in (N, C, "
                    "d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format."
                )
            return None, list(scale_factor)
        return None, [scale_factor for _ in range(dim)]
    raise ValueError("either size or scale_factor should be defined")


def interpolate(
    input,
    size=None,
    scale_factor=None,
    mode="nearest",
    align_corners=None,
    recompute_scale_factor=None,
    antialias=False,
):  # noqa: A002,E501
    if has_torch_function((input,)):
        return handle_torch_function(
            interpolate, (input,), input, size=size, scale_factor=scale_factor, mode=mode,
            align_corners=align_corners, recompute_scale_factor=recompute_scale_factor,
            antialias=antialias,
        )  # fmt: skip
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError(
                "align_corners option can only be set with the interpolating modes: "
                "linear | bilinear | bicubic | trilinear"
            )
    elif align_corners is None:
        align_corners = False
    dim = input.dim() - 2
    output_size, scale_factors = _sizes(input, size, scale_factor, dim)
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor:
        output_size = [math.floor(input.size(i + 2) * scale_factors[i]) for i in range(dim)]
        scale_factors = None
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.ndim == 4):
        raise ValueError(
            "Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires "
            "a 4-D tensor as input"
        )
    ndim = input.dim()
    if (mode, ndim) in _NEAREST:
        return _NEAREST[(mode, ndim)](input, output_size, scale_factors)
    if mode == "area" and ndim in (3, 4):
        pool = adaptive_avg_pool1d if ndim == 3 else adaptive_avg_pool2d
        return pool(input, output_size)
    if (mode, ndim) in _INTERPOLATING:
        if antialias:
            raise NotImplementedError(f"ember has no antialiased {mode} interpolation")
        return _INTERPOLATING[(mode, ndim)](input, output_size, align_corners, scale_factors)
    if (ndim, mode) in _WRONG_DIMS:
        raise NotImplementedError(_WRONG_DIMS[(ndim, mode)])
    if (mode, ndim) in (("area", 5), ("lanczos", 4)):
        raise NotImplementedError(f"ember has no {mode} interpolation of {ndim}D inputs")
    raise NotImplementedError(
        f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {ndim}D) for the modes: "
        "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact "
        f"(got {mode})"
    )


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):  # noqa: A002
    warnings.warn(
        "`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):  # noqa: A002
    warnings.warn(
        "`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):  # noqa: A002
    warnings.warn(
        "`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
