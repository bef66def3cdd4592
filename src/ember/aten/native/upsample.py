"""Upsampling: upsample_nearest{1,2,3}d, _upsample_nearest_exact{1,2,3}d, upsample_linear1d,
upsample_bilinear2d and upsample_bicubic2d, their .vec overloads and backward ops.

Layer: aten/native. In: the schema's arguments. Out: fresh tensors. Every mode is
separable: each spatial dim gets an (out x in) matrix of source weights (one-hot for
nearest, two taps for linear, four clamped taps for cubic), applied dim by dim with
tensordot; backward applies the transposed matrices. Index and weight arithmetic
follows ATen/native/UpSample.h (nearest_idx in float, area_pixel_compute_scale /
_source_index, guard_index_and_lambda, the cubic coefficients with A = -0.75); the
checks are upsample_{1,2,3}d_common_check and compute_output_size's. Mirrors
ATen/native/UpSample*.cpp.
"""

from __future__ import annotations

import math

import numpy as np

from ember._tensor import wrap_array
from ember.aten.native import at
from ember.aten.native.views import fmt_ints, scalar_type_name_of

_LETTERS = {1: ("W",), 2: ("H", "W"), 3: ("D", "H", "W")}


def _scale(scale, size, out, dtype):
    """compute_scales_value: 1 / scale when given (and positive), else in / out."""
    if scale is not None and scale > 0:
        return dtype(1.0 / scale)
    return dtype(size) / dtype(out)


def _nearest_matrix(size, out, scale, exact, dtype):
    o = np.arange(out)
    if exact:
        s = _scale(scale, size, out, np.float32)
        index = np.minimum(np.floor((o.astype(np.float32) + np.float32(0.5)) * s), size - 1)
    elif out == size:
        index = o
    elif out == 2 * size:
        index = o >> 1
    else:
        s = _scale(scale, size, out, np.float32)
        index = np.minimum(np.floor(o.astype(np.float32) * s), size - 1)
    matrix = np.zeros((out, size), dtype=dtype)
    matrix[o, index.astype(np.int64)] = 1
    return matrix


def _source_index(size, out, align_corners, scale, cubic, opmath):
    if align_corners:
        s = opmath(size - 1) / opmath(out - 1) if out > 1 else opmath(0)
    else:
        s = _scale(scale, size, out, opmath)
    o = np.arange(out, dtype=opmath)
    if align_corners:
        return s * o
    real = s * (o + opmath(0.5)) - opmath(0.5)
    return real if cubic else np.maximum(real, opmath(0))


def _linear_matrix(size, out, align_corners, scale, dtype):
    opmath = np.float64 if dtype == np.float64 else np.float32
    real = _source_index(size, out, align_corners, scale, False, opmath)
    index = np.minimum(np.floor(real).astype(np.int64), size - 1)
    lam = np.clip(real - index, 0, 1).astype(opmath)
    offset = (index < size - 1).astype(np.int64)
    matrix = np.zeros((out, size), dtype=opmath)
    rows = np.arange(out)
    np.add.at(matrix, (rows, index), 1 - lam)
    np.add.at(matrix, (rows, index + offset), lam)
    return matrix.astype(dtype)


def _cubic_matrix(size, out, align_corners, scale, dtype):
    opmath = np.float64 if dtype == np.float64 else np.float32
    a = opmath(-0.75)
    real = _source_index(size, out, align_corners, scale, True, opmath)
    index = np.floor(real).astype(np.int64)
    t = (real - index).astype(opmath)

    def cc1(x):
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def cc2(x):
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    weights = [cc2(t + 1), cc1(t), cc1(1 - t), cc2(2 - t)]
    matrix = np.zeros((out, size), dtype=opmath)
    rows = np.arange(out)
    for k, w in enumerate(weights):
        np.add.at(matrix, (rows, np.clip(index - 1 + k, 0, size - 1)), w)
    return matrix.astype(dtype)


def _matrices(kind, in_spatial, out_spatial, align_corners, scales, dtype):
    result = []
    for size, out, scale in zip(in_spatial, out_spatial, scales, strict=True):
        if kind in ("nearest", "nearest-exact"):
            result.append(_nearest_matrix(size, out, scale, kind == "nearest-exact", dtype))
        elif kind == "linear":
            result.append(_linear_matrix(size, out, align_corners, scale, dtype))
        else:
            result.append(_cubic_matrix(size, out, align_corners, scale, dtype))
    return result


def _apply(values, matrices, transpose):
    dims = len(matrices)
    for axis, matrix in enumerate(matrices):
        position = values.ndim - dims + axis
        m = matrix.T if transpose else matrix
        values = np.moveaxis(np.tensordot(values, m, axes=([position], [1])), -1, position)
    return np.ascontiguousarray(values)


def _check(dims, input_sizes, output_size):
    """upsample_{1,2,3}d_common_check."""
    if len(output_size) != dims:
        raise RuntimeError(
            f"It is expected output_size equals to {dims}, but got size {len(output_size)}"
        )
    if len(input_sizes) != dims + 2:
        raise RuntimeError(
            f"It is expected input_size equals to {dims + 2}, but got size {len(input_sizes)}"
        )
    letters = _LETTERS[dims]
    spatial = input_sizes[2:]
    if any(s <= 0 for s in spatial) or any(o <= 0 for o in output_size):
        given = ", ".join(f"{c}: {v}" for c, v in zip(letters, spatial, strict=True))
        wanted = ", ".join(f"{c}: {v}" for c, v in zip(letters, output_size, strict=True))
        joiner = " and output" if dims == 1 else " output"
        raise RuntimeError(
            f"Input and output sizes should be greater than 0, but got input ({given}){joiner} "
            f"({wanted})"
        )


def _forward(kind, name, self, output_size, align_corners, scales):
    dims = len(scales)
    if self.numel() == 0 and not all(self._sizes[1:]):
        raise RuntimeError(
            f"Non-empty {dims + 2}D data tensor expected but got a tensor with sizes "
            f"{fmt_ints(self._sizes)}"
        )
    _check(dims, self._sizes, output_size)
    floating = self.dtype.is_floating_point
    if not floating and not (kind.startswith("nearest") and self.dtype.name == "uint8"):
        raise NotImplementedError(
            f"\"{name}\" not implemented for '{scalar_type_name_of(self.dtype)}'"
        )
    shape = list(self._sizes[:2]) + [int(o) for o in output_size]
    if self.device.type == "meta":
        return at.empty_memory_format(shape, self.dtype, None, self.device, None, None)
    values = self.ndarray()
    if kind.startswith("nearest"):
        matrices = _matrices(kind, self._sizes[2:], output_size, align_corners, scales, np.float64)
        for axis, matrix in enumerate(matrices):
            values = np.take(values, matrix.argmax(axis=1), axis=2 + axis)
        return wrap_array(np.ascontiguousarray(values), self.dtype)
    dtype = values.dtype
    matrices = _matrices(kind, self._sizes[2:], output_size, align_corners, scales, dtype)
    return wrap_array(_apply(values, matrices, False).astype(dtype, copy=False), self.dtype)


def _backward(kind, grad_output, output_size, input_size, align_corners, scales):
    dims = len(scales)
    _check(dims, input_size, output_size)
    expected = list(input_size[:2]) + [int(o) for o in output_size]
    if list(grad_output._sizes) != expected:
        for i in range(len(expected)):
            if grad_output._sizes[i] != expected[i]:
                raise RuntimeError(
                    f"Expected grad_output to have the same shape as output; output.size({i}) = "
                    f"{expected[i]} but got grad_output.size({i}) = {grad_output._sizes[i]}"
                )
    if grad_output.device.type == "meta":
        return at.empty_memory_format(
            list(input_size), grad_output.dtype, None, grad_output.device, None, None
        )  # noqa: E501
    grad = grad_output.ndarray()
    matrices = _matrices(kind, input_size[2:], output_size, align_corners, scales, grad.dtype)
    result = _apply(grad, matrices, True).astype(grad.dtype, copy=False)
    return wrap_array(result, grad_output.dtype)


def compute_output_size(input_sizes, output_size, scale_factors):
    """UpSample.cpp's compute_output_size (the .vec overloads)."""
    spatial = len(input_sizes) - 2
    if output_size is not None:
        if scale_factors is not None:
            raise RuntimeError("Must specify exactly one of output_size and scale_factors")
        if len(output_size) != spatial:
            raise RuntimeError(
                "Expected static_cast<int64_t>(output_size->size()) == spatial_dimensions to be "
                "true, but got false.  (Could this error message be improved?  If so, please "
                "report an enhancement request to PyTorch.)"
            )
        return [int(o) for o in output_size]
    if scale_factors is not None:
        if len(scale_factors) != spatial:
            raise RuntimeError(
                "Expected static_cast<int64_t>(scale_factors->size()) == spatial_dimensions to "
                "be true, but got false.  (Could this error message be improved?  If so, please "
                "report an enhancement request to PyTorch.)"
            )
        return [int(math.trunc(input_sizes[i + 2] * scale_factors[i])) for i in range(spatial)]
    raise RuntimeError("Must specify exactly one of output_size and scale_factors")


def _scales_of(scale_factors, dims):
    return [None if scale_factors is None else scale_factors[i] for i in range(dims)]
