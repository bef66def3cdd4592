"""im2col / col2im (F.unfold / F.fold) and pixel_shuffle / pixel_unshuffle.

Layer: aten/native. In: the schema's arguments. Out: fresh tensors. im2col is one
`sliding_window_view` copy; col2im adds one strided slice per kernel offset; the
pixel shuffles are one reshape-transpose-copy each. Checks and messages follow
ATen/native/Im2Col.cpp, Col2Im.cpp, im2col_shape_check.h and PixelShuffle.cpp.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ember._c10 import dtypes
from ember._tensor import wrap_array
from ember.aten.native import at
from ember.aten.native.common import wrap_dim
from ember.aten.native.views import fmt_ints, scalar_type_name_of

__all__ = ["im2col", "col2im", "pixel_shuffle", "pixel_unshuffle"]


def _lists(kernel_size, dilation, padding, stride):
    for name, values in (
        ("kernel_size", kernel_size),
        ("dilation", dilation),
        ("padding", padding),
        ("stride", stride),
    ):  # noqa: E501
        if len(values) != 2:
            raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(values)}")


def _common(kernel, dilation, padding, stride, order):
    checks = {
        "kernel": (
            all(k > 0 for k in kernel),
            f"kernel size should be greater than zero, but got kernel_height: {kernel[0]} kernel_width: {kernel[1]}",
        ),  # noqa: E501
        "dilation": (
            all(d > 0 for d in dilation),
            f"dilation should be greater than zero, but got dilation_height: {dilation[0]} dilation_width: {dilation[1]}",
        ),  # noqa: E501
        "padding": (
            all(p >= 0 for p in padding),
            f"padding should be non-negative, but got pad_height: {padding[0]} pad_width: {padding[1]}",
        ),  # noqa: E501
        "stride": (
            all(s > 0 for s in stride),
            f"stride should be greater than zero, but got stride_height: {stride[0]} stride_width: {stride[1]}",
        ),  # noqa: E501
    }
    for name in order:
        ok, message = checks[name]
        if not ok:
            raise RuntimeError(message)


def _floating_or_complex(name, dtype, bool_too=False):
    if not (dtype.is_floating_point or dtype.is_complex or (bool_too and dtype == dtypes.bool)):
        raise NotImplementedError(f"\"{name}\" not implemented for '{scalar_type_name_of(dtype)}'")


def _blocks(size, kernel, dilation, padding, stride):
    return [
        (s + 2 * p - (d * (k - 1) + 1)) // st + 1
        for s, k, d, p, st in zip(size, kernel, dilation, padding, stride, strict=True)
    ]


def im2col(self, kernel_size, dilation, padding, stride):
    _lists(kernel_size, dilation, padding, stride)
    _common(kernel_size, dilation, padding, stride, ("kernel", "dilation", "padding", "stride"))
    sizes = self._sizes
    ndim = self.dim()
    wrap_dim(2, ndim)  # im2col_shape_check reads input.size(2) first: IndexError below 3-d
    valid = ndim in (3, 4) and sizes[1] != 0 and sizes[2] != 0
    if not ((ndim == 3 and sizes[0] != 0 and valid) or (ndim == 4 and valid and sizes[3] != 0)):
        raise RuntimeError(
            "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
            f"dimensions for input, but got: {fmt_ints(sizes)}"
        )
    height, width = sizes[-2:]
    out = _blocks((height, width), kernel_size, dilation, padding, stride)
    if out[0] < 1 or out[1] < 1:
        raise RuntimeError(
            f"Given input with spatial size ({height}, {height}), kernel_size=({kernel_size[0]}, "
            f"{kernel_size[1]}), dilation=({dilation[0]}, {dilation[1]}), padding=({padding[0]}, "
            f"{padding[1]}), calculated shape of the array of sliding blocks as ({out[0]}, "
            f"{out[1]}), but its components must be at least one."
        )
    _floating_or_complex("im2col_out_cpu", self.dtype, bool_too=True)
    channels = sizes[-3]
    shape = list(sizes[:-3]) + [channels * kernel_size[0] * kernel_size[1], out[0] * out[1]]
    if self.device.type == "meta":
        return at.empty_memory_format(shape, self.dtype, None, self.device, None, None)
    x = self.ndarray()
    pads = [(0, 0)] * (x.ndim - 2) + [(p, p) for p in padding]
    x = np.pad(x, pads)
    span = [d * (k - 1) + 1 for k, d in zip(kernel_size, dilation, strict=True)]
    windows = sliding_window_view(x, span, axis=(-2, -1))
    windows = windows[..., :: stride[0], :: stride[1], :: dilation[0], :: dilation[1]]
    windows = windows[..., : out[0], : out[1], :, :]  # (..., C, oh, ow, kh, kw)
    lead = windows.ndim - 5
    order = tuple(range(lead)) + (lead, lead + 3, lead + 4, lead + 1, lead + 2)
    cols = np.ascontiguousarray(windows.transpose(order)).reshape(shape)
    return wrap_array(cols, self.dtype)


def col2im(self, output_size, kernel_size, dilation, padding, stride):
    if len(output_size) != 2:
        raise RuntimeError(
            f"It is expected output_size equals to 2, but got size {len(output_size)}"
        )  # noqa: E501
    _lists(kernel_size, dilation, padding, stride)
    _common(kernel_size, dilation, padding, stride, ("kernel", "stride", "dilation", "padding"))
    sizes = self._sizes
    ndim = self.dim()
    if not (
        (ndim == 2 and sizes[0] != 0 and sizes[1] != 0)
        or (ndim == 3 and sizes[1] != 0 and sizes[2] != 0)
    ):  # noqa: E501
        raise RuntimeError(
            "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and "
            f"non-zero dimensions for input, but got: {fmt_ints(sizes)}"
        )
    planes, length = sizes[-2:]
    kh, kw = kernel_size
    if planes % (kh * kw):
        raise RuntimeError(
            "Expected size of input's dimension 1 to be divisible by the product of kernel_size, "
            f"but got input.size(1)={planes} and kernel_size=({kh}, {kw})."
        )
    blocks = _blocks(output_size, kernel_size, dilation, padding, stride)
    described = (
        f"Given output_size=({output_size[0]}, {output_size[1]}), kernel_size=({kh}, {kw}), "
        f"dilation=({dilation[0]}, {dilation[1]}), padding=({padding[0]}, {padding[1]}), "
        f"stride=({stride[0]}, {stride[1]}), "
    )
    if length != blocks[0] * blocks[1]:
        raise RuntimeError(
            f"{described}expected size of input's dimension 2 to match the calculated number of "
            f"sliding blocks {blocks[0]} * {blocks[1]} = {blocks[0] * blocks[1]}, but got "
            f"input.size(2)={length}."
        )
    if blocks[0] < 1 or blocks[1] < 1:
        raise RuntimeError(
            f"{described}calculated shape of the array of sliding blocks as ({blocks[0]}, "
            f"{blocks[1]}), which is too small (non-positive)"
        )
    _floating_or_complex("col2im_out_cpu", self.dtype)
    channels = planes // (kh * kw)
    shape = list(sizes[:-2]) + [channels, int(output_size[0]), int(output_size[1])]
    if self.device.type == "meta":
        return at.empty_memory_format(shape, self.dtype, None, self.device, None, None)
    cols = self.ndarray().reshape(tuple(sizes[:-2]) + (channels, kh, kw, blocks[0], blocks[1]))
    padded = tuple(sizes[:-2]) + (
        channels,
        output_size[0] + 2 * padding[0],
        output_size[1] + 2 * padding[1],
    )  # noqa: E501
    result = np.zeros(padded, dtype=cols.dtype)
    for i in range(kh):
        for j in range(kw):
            rows = slice(
                i * dilation[0], i * dilation[0] + stride[0] * (blocks[0] - 1) + 1, stride[0]
            )  # noqa: E501
            columns = slice(
                j * dilation[1], j * dilation[1] + stride[1] * (blocks[1] - 1) + 1, stride[1]
            )  # noqa: E501
            result[..., rows, columns] += cols[..., i, j, :, :]
    result = result[
        ..., padding[0] : padding[0] + output_size[0], padding[1] : padding[1] + output_size[1]
    ]  # noqa: E501
    return wrap_array(np.ascontiguousarray(result), self.dtype)


def pixel_shuffle(self, upscale_factor):
    if self.dim() < 3:
        raise RuntimeError(
            "pixel_shuffle expects input to have at least 3 dimensions, but got input with "
            f"{self.dim()} dimension(s)"
        )
    r = upscale_factor
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    c, h, w = self._sizes[-3:]
    if c % (r * r):
        raise RuntimeError(
            "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square "
            f"of upscale_factor, but input.size(-3)={c} is not divisible by {r * r}"
        )
    lead = list(self._sizes[:-3])
    shape = lead + [c // (r * r), h * r, w * r]
    if self.device.type == "meta":
        return at.empty_memory_format(shape, self.dtype, None, self.device, None, None)
    x = self.ndarray().reshape(tuple(lead) + (c // (r * r), r, r, h, w))
    n = len(lead)
    order = tuple(range(n)) + (n, n + 3, n + 1, n + 4, n + 2)
    return wrap_array(np.ascontiguousarray(x.transpose(order)).reshape(shape), self.dtype)


def pixel_unshuffle(self, downscale_factor):
    if self.dim() < 3:
        raise RuntimeError(
            "pixel_unshuffle expects input to have at least 3 dimensions, but got input with "
            f"{self.dim()} dimension(s)"
        )
    r = downscale_factor
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    c, h, w = self._sizes[-3:]
    if h % r:
        raise RuntimeError(
            "pixel_unshuffle expects height to be divisible by downscale_factor, but "
            f"input.size(-2)={h} is not divisible by {r}"
        )
    if w % r:
        raise RuntimeError(
            "pixel_unshuffle expects width to be divisible by downscale_factor, but "
            f"input.size(-1)={w} is not divisible by {r}"
        )
    lead = list(self._sizes[:-3])
    shape = lead + [c * r * r, h // r, w // r]
    if self.device.type == "meta":
        return at.empty_memory_format(shape, self.dtype, None, self.device, None, None)
    x = self.ndarray().reshape(tuple(lead) + (c, h // r, r, w // r, r))
    n = len(lead)
    order = tuple(range(n)) + (n, n + 2, n + 4, n + 1, n + 3)
    return wrap_array(np.ascontiguousarray(x.transpose(order)).reshape(shape), self.dtype)
