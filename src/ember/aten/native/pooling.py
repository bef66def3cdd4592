"""The CPU / Meta kernels of max_pool{2,3}d_with_indices, avg_pool{2,3}d and their
backward ops: PyTorch's argument and shape checks, then pool_numpy's arithmetic.

Layer: aten/native. In: the schema's arguments. Out: fresh tensors (shapes only on
meta). Mirrors ATen/native/DilatedMaxPool2d.cpp, DilatedMaxPool3d.cpp,
AveragePool2d.cpp, AveragePool3d.cpp and Pool.h (pooling_output_shape,
pool2d_shape_check, pool3d_shape_check).
"""

from __future__ import annotations

import numpy as np

from ember._c10 import dtypes
from ember._tensor import wrap_array
from ember.aten.native import at
from ember.aten.native import pool_reduced as reduced
from ember.aten.native.common import wrap_dim
from ember.aten.native.pool_numpy import (
    _avg_divisors,
    avg_pool,
    avg_pool_backward,
    max_pool,
    max_pool_backward,
    pooling_output_shape,
)
from ember.aten.native.views import fmt_ints, scalar_type_name_of

__all__ = [
    "max_pool2d_with_indices", "max_pool2d_with_indices_backward",
    "max_pool3d_with_indices", "max_pool3d_with_indices_backward",
    "avg_pool2d", "avg_pool2d_backward", "avg_pool3d", "avg_pool3d_backward",
]  # fmt: skip

_WORDS = {2: "two", 3: "three"}


def _expand(name, what, values, dims, allow_empty=False, default=None):
    """A 1- or `dims`-element list (or empty: the default), else PyTorch's message."""
    values = [int(v) for v in values]
    if allow_empty and not values:
        return list(default)
    if len(values) == 1:
        return values * dims
    if len(values) != dims:
        raise RuntimeError(f"{name}: {what}")
    return values


def _output_size(size, kernel, pad, stride, dilation, ceil_mode):
    """pooling_output_shape with its checks."""
    if stride == 0:
        raise RuntimeError("stride should not be zero")
    if pad < 0:
        raise RuntimeError(f"pad must be non-negative, but got pad: {pad}")
    if pad > ((kernel - 1) * dilation + 1) // 2:
        raise RuntimeError(
            f"pad should be at most half of effective kernel size, but got pad={pad}, "
            f"kernel_size={kernel} and dilation={dilation}"
        )
    return pooling_output_shape(size, kernel, pad, stride, dilation, ceil_mode)


def _shape_check(self, kernel, stride, padding, dilation, out, fn3d=None, check_size=False):
    """pool2d_shape_check / pool3d_shape_check (contiguous layout; `fn3d` names the 3-d
    kernel in its messages, `check_size` is the average pool's input-size check)."""
    dims = len(kernel)
    letters = "HW" if dims == 2 else "THW"
    if any(k <= 0 for k in kernel):
        parts = " ".join(f"k{c}: {k}" for c, k in zip(letters, kernel, strict=True))
        raise RuntimeError(f"kernel size should be greater than zero, but got {parts}")
    if any(s <= 0 for s in stride):
        parts = " ".join(f"d{c}: {s}" for c, s in zip(letters, stride, strict=True))
        raise RuntimeError(f"stride should be greater than zero, but got {parts}")
    if any(d <= 0 for d in dilation):
        parts = " ".join(f"dilation{c}: {d}" for c, d in zip(letters, dilation, strict=True))
        raise RuntimeError(f"dilation should be greater than zero, but got {parts}")
    sizes = self._sizes
    batched = self.dim() == dims + 2
    if dims == 3 and 0 in sizes[1 if batched else 0 :]:
        raise RuntimeError(
            f"{fn3d}(): Expected input's non-batch dimensions to have positive length, but input "
            f"has a shape of {fmt_ints(sizes)} and non-batch dimension 0 has length zero!"
        )
    if 0 in sizes[1 if batched else 0 :]:
        raise RuntimeError(
            f"Expected {dims + 1}D or {dims + 2}D (batch mode) tensor with optional 0 dim batch "
            f"size for input, but got:{fmt_ints(sizes)}"
        )
    if any(k // 2 < p for k, p in zip(kernel, padding, strict=True)):
        pads = ", ".join(
            f"pad{c} = {p}" for c, p in reversed(list(zip(letters, padding, strict=True)))
        )
        ks = ", ".join(f"k{c} = {k}" for c, k in reversed(list(zip(letters, kernel, strict=True))))
        raise RuntimeError(
            f"pad should be smaller than or equal to half of kernel size, but got {pads}, {ks}"
        )
    if check_size and dims == 3 and any(i < k for i, k in zip(sizes[-3:], kernel, strict=True)):
        t, h, w = sizes[-3:]
        raise RuntimeError(
            f"input image (T: {t} H: {h} W: {w}) smaller than kernel size (kT: {kernel[0]} "
            f"kH: {kernel[1]} kW: {kernel[2]})"
        )
    if any(o < 1 for o in out):
        planes = sizes[-dims - 1]
        given = "x".join(str(v) for v in (planes, *sizes[-dims:]))
        calculated = "x".join(str(v) for v in (planes, *out))
        raise RuntimeError(
            f"Given input size: ({given}). Calculated output size: ({calculated}). "
            "Output size is too small"
        )


def _params(op, self, kernel_size, stride, padding, dilation, ceil_mode, dims):
    word = _WORDS[dims]
    either = "" if op == "avg_pool3d" else "either "  # AveragePool3d.cpp's wording
    kernel = _expand(
        op,
        f"kernel_size must {either}be a single int, or a tuple of {word} ints",
        kernel_size,
        dims,
    )
    stride = _expand(
        op,
        f"stride must {either}be omitted, a single int, or a tuple of {word} ints",
        stride,
        dims,
        True,
        kernel,
    )
    padding = _expand(
        op, f"padding must {either}be a single int, or a tuple of {word} ints", padding, dims
    )
    if dilation is not None:
        dilation = _expand(
            op, f"dilation must be either a single int, or a tuple of {word} ints", dilation, dims
        )
    return kernel, stride, padding, dilation


def _not_implemented(name, dtype):
    raise NotImplementedError(f"\"{name}\" not implemented for '{scalar_type_name_of(dtype)}'")


def _max_pool(op, self, kernel_size, stride, padding, dilation, ceil_mode, dims):
    kernel, stride, padding, dilation = _params(
        op, self, kernel_size, stride, padding, dilation, ceil_mode, dims
    )
    if self.dim() not in (dims + 1, dims + 2):
        raise RuntimeError(
            f"non-empty {dims + 1}D or {dims + 2}D (batch mode) tensor expected for input"
        )
    spatial = self._sizes[-dims:]
    out = [
        _output_size(i, k, p, s, d, ceil_mode)
        for i, k, p, s, d in zip(spatial, kernel, padding, stride, dilation, strict=True)
    ]
    _shape_check(
        self, kernel, stride, padding, dilation, out, "max_pool3d_with_indices_out_cpu_template"
    )
    if self.dtype == dtypes.bool or self.dtype.is_complex:
        _not_implemented(op, self.dtype)
    shape = list(self._sizes[:-dims]) + out
    if self.device.type == "meta":
        values = at.empty_memory_format(shape, self.dtype, None, self.device, None, None)
        indices = at.empty_memory_format(shape, dtypes.int64, None, self.device, None, None)
        return values, indices
    values, indices = max_pool(self.ndarray(), kernel, stride, padding, dilation, out)
    return wrap_array(values, self.dtype), wrap_array(indices, dtypes.int64)


def max_pool2d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode):
    return _max_pool("max_pool2d", self, kernel_size, stride, padding, dilation, ceil_mode, 2)


def max_pool3d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode):
    return _max_pool("max_pool3d", self, kernel_size, stride, padding, dilation, ceil_mode, 3)


def _max_pool_backward(grad_output, self, indices, dims):
    if grad_output.device.type == "meta" or self.device.type == "meta":
        return at.empty_memory_format(list(self._sizes), self.dtype, None, self.device, None, None)
    g = grad_output.ndarray()
    backward = reduced.max_pool_backward if reduced.is_reduced(g.dtype) else max_pool_backward
    return wrap_array(backward(g, indices.ndarray(), self._sizes, dims), self.dtype)


def max_pool2d_with_indices_backward(
    grad_output, self, kernel_size, stride, padding, dilation, ceil_mode, indices
):  # noqa: E501
    return _max_pool_backward(grad_output, self, indices, 2)


def max_pool3d_with_indices_backward(
    grad_output, self, kernel_size, stride, padding, dilation, ceil_mode, indices
):  # noqa: E501
    return _max_pool_backward(grad_output, self, indices, 3)


def _avg_params(op, self, kernel_size, stride, padding, ceil_mode, divisor_override, dims):
    kernel, stride, padding, _ = _params(
        op, self, kernel_size, stride, padding, None, ceil_mode, dims
    )
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    if dims == 3 and self.dim() not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    wrap_dim(-dims - 1, self.dim())  # the plane dim: PyTorch's IndexError for too few dims
    spatial = self._sizes[-dims:]
    ones = [1] * dims
    out = [
        _output_size(i, k, p, s, 1, ceil_mode)
        for i, k, p, s in zip(spatial, kernel, padding, stride, strict=True)
    ]
    _shape_check(self, kernel, stride, padding, ones, out, "avg_pool3d", check_size=True)
    return kernel, stride, padding, out


def _avg_pool(
    op, self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, dims
):  # noqa: E501
    kernel, stride, padding, out = _avg_params(
        op, self, kernel_size, stride, padding, ceil_mode, divisor_override, dims
    )
    if (
        self.dtype == dtypes.bool
        or self.dtype.is_complex
        or (dims == 3 and self.dtype in (dtypes.float16, dtypes.bfloat16))
    ):
        _not_implemented("avg_pool3d_out_frame" if dims == 3 else op, self.dtype)
    shape = list(self._sizes[:-dims]) + out
    if self.device.type == "meta":
        return at.empty_memory_format(shape, self.dtype, None, self.device, None, None)
    x = self.ndarray()
    if reduced.is_reduced(x.dtype):
        divisor = divisor_override or _avg_divisors(
            x.shape[-dims:], kernel, stride, padding, out, count_include_pad
        )
        values = reduced.avg_pool(x, kernel, stride, padding, out, divisor)
    else:
        values = avg_pool(x, kernel, stride, padding, out, count_include_pad, divisor_override)
    return wrap_array(values, self.dtype)


def avg_pool2d(self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    return _avg_pool(
        "avg_pool2d",
        self,
        kernel_size,
        stride,
        padding,
        ceil_mode,
        count_include_pad,
        divisor_override,
        2,
    )  # noqa: E501


def avg_pool3d(self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    return _avg_pool(
        "avg_pool3d",
        self,
        kernel_size,
        stride,
        padding,
        ceil_mode,
        count_include_pad,
        divisor_override,
        3,
    )  # noqa: E501


def _avg_pool_backward(
    op,
    grad_output,
    self,
    kernel_size,
    stride,
    padding,
    ceil_mode,
    count_include_pad,
    divisor_override,
    dims,
):  # noqa: E501
    kernel, stride, padding, out = _avg_params(
        op, self, kernel_size, stride, padding, ceil_mode, divisor_override, dims
    )
    if grad_output.device.type == "meta" or self.device.type == "meta":
        return at.empty_memory_format(list(self._sizes), self.dtype, None, self.device, None, None)
    g = grad_output.ndarray()
    if reduced.is_reduced(g.dtype):
        divisor = divisor_override or _avg_divisors(
            self._sizes[-dims:], kernel, stride, padding, g.shape[-dims:], count_include_pad
        )
        grad = reduced.avg_pool_backward(g, self._sizes, kernel, stride, padding, divisor)
    else:
        grad = avg_pool_backward(
            g, self._sizes, kernel, stride, padding, count_include_pad, divisor_override
        )
    return wrap_array(np.ascontiguousarray(grad), self.dtype)


def avg_pool2d_backward(
    grad_output, self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override
):  # noqa: E501
    return _avg_pool_backward(
        "avg_pool2d",
        grad_output,
        self,
        kernel_size,
        stride,
        padding,
        ceil_mode,
        count_include_pad,
        divisor_override,
        2,
    )  # noqa: E501


def avg_pool3d_backward(
    grad_output, self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override
):  # noqa: E501
    return _avg_pool_backward(
        "avg_pool3d",
        grad_output,
        self,
        kernel_size,
        stride,
        padding,
        ceil_mode,
        count_include_pad,
        divisor_override,
        3,
    )  # noqa: E501
