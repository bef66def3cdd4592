"""The arithmetic of max / average / adaptive pooling on NumPy arrays, in 1-3 spatial dims.

Layer: aten/native (pure NumPy). In: arrays laid out (..., *spatial), already
checked. Out: fresh arrays. Windows come from `sliding_window_view` (fixed windows)
or from one gather with clamped index arrays (adaptive windows); gradients scatter
with `np.bincount` over flat indices (max) or one strided add per kernel offset
(average): no Python loop over output elements. Mirrors the CPU kernels of
ATen/native/cpu/MaxPoolKernel.cpp, AvgPoolKernel.cpp, AdaptiveAvgPoolKernel.cpp and
AdaptiveMaxPoolKernel.cpp (NaN wins a max; ties keep the first index).
"""

from __future__ import annotations

import itertools

import ml_dtypes
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

__all__ = [
    "pooling_output_shape", "max_pool", "max_pool_backward", "avg_pool", "avg_pool_backward",
    "adaptive_windows", "adaptive_avg", "adaptive_avg_backward", "adaptive_max",
]  # fmt: skip


def pooling_output_shape(size, kernel, pad, stride, dilation, ceil_mode) -> int:
    """Pool.h's pooling_output_shape (without its checks)."""
    numerator = size + 2 * pad - dilation * (kernel - 1) - 1 + (stride - 1 if ceil_mode else 0)
    out = numerator // stride + 1
    if ceil_mode and (out - 1) * stride >= size + pad:
        out -= 1
    return out


def _is_float(dtype) -> bool:
    return dtype.kind == "f" or dtype == ml_dtypes.bfloat16


def _lowest(dtype):
    return -np.inf if _is_float(dtype) else np.iinfo(dtype).min


def _windows(x, kernel, stride, padding, dilation, out, fill):
    """(..., *O, prod(K)) windows of x padded with `fill` (extra right padding for ceil)."""
    dims = len(kernel)
    pads = []
    for i, k, s, p, d, o in zip(
        x.shape[-dims:], kernel, stride, padding, dilation, out, strict=True
    ):
        right = max(p, (o - 1) * s + d * (k - 1) + 1 - i - p)
        pads.append((p, right))
    x = np.pad(x, [(0, 0)] * (x.ndim - dims) + pads, constant_values=fill)
    span = [d * (k - 1) + 1 for k, d in zip(kernel, dilation, strict=True)]
    windows = sliding_window_view(x, span, axis=tuple(range(x.ndim - dims, x.ndim)))
    index = (Ellipsis,) + tuple(
        slice(0, s * (o - 1) + 1, s) for s, o in zip(stride, out, strict=True)
    )
    index += tuple(slice(None, None, d) for d in dilation)
    windows = windows[index]
    return windows.reshape(windows.shape[:-dims] + (int(np.prod(kernel)),))


def _pick(windows):
    """Per window: the position of its max (the last NaN if any; else the first max)."""
    position = np.argmax(windows, axis=-1)
    if _is_float(windows.dtype):
        nans = np.isnan(windows)
        if nans.any():
            last = windows.shape[-1] - 1 - np.argmax(nans[..., ::-1], axis=-1)
            position = np.where(nans.any(axis=-1), last, position)
    return position


def _flat_index(position, in_spatial, kernel, stride, padding, dilation, out):
    """The flat input index (row-major over the spatial dims) of each window's element."""
    dims = len(kernel)
    offsets = np.unravel_index(position, kernel)
    flat = np.zeros(position.shape, dtype=np.int64)
    valid = np.ones(position.shape, dtype=bool)
    first = np.zeros(position.shape, dtype=np.int64)
    for axis in range(dims):
        shape = [1] * position.ndim
        shape[position.ndim - dims + axis] = out[axis]
        starts = (np.arange(out[axis]) * stride[axis] - padding[axis]).reshape(shape)
        coordinate = starts + offsets[axis] * dilation[axis]
        valid &= (coordinate >= 0) & (coordinate < in_spatial[axis])
        # PyTorch's index before any update: the first in-range element of the window
        start = (
            starts
            + ((np.maximum(-starts, 0) + dilation[axis] - 1) // dilation[axis]) * dilation[axis]
        )
        flat = flat * in_spatial[axis] + coordinate
        first = first * in_spatial[axis] + start
    return np.where(valid, flat, first)


def max_pool(x, kernel, stride, padding, dilation, out):
    """(values, int64 flat indices) of a max pool over the last len(kernel) dims."""
    dims = len(kernel)
    windows = _windows(x, kernel, stride, padding, dilation, out, _lowest(x.dtype))
    position = _pick(windows)
    values = np.take_along_axis(windows, position[..., None], axis=-1)[..., 0]
    indices = _flat_index(position, x.shape[-dims:], kernel, stride, padding, dilation, out)
    return np.ascontiguousarray(values), indices


def max_pool_backward(grad, indices, in_shape, dims):
    """Scatter-add grad into the input's shape at the flat spatial indices."""
    lead = int(np.prod(in_shape[:-dims]))
    plane = int(np.prod(in_shape[-dims:]))
    flat = indices.reshape(lead, -1) + (np.arange(lead, dtype=np.int64) * plane)[:, None]
    # a window wholly in the padding keeps PyTorch's index past its row; the CPU kernel
    # adds at that flat offset too (the next plane's first elements)
    summed = np.bincount(flat.ravel(), weights=grad.reshape(-1), minlength=lead * plane)
    return summed[: lead * plane].astype(grad.dtype, copy=False).reshape(in_shape)


def _avg_divisors(in_spatial, kernel, stride, padding, out, count_include_pad):
    """The divisor of each output element: the product of per-dim window lengths."""
    result = np.ones((), dtype=np.int64)
    for i, k, s, p, o in zip(in_spatial, kernel, stride, padding, out, strict=True):
        start = np.arange(o) * s - p
        end = np.minimum(start + k, i + p)
        length = end - start if count_include_pad else np.minimum(end, i) - np.maximum(start, 0)
        result = np.multiply.outer(result, length)
    return result


def avg_pool(x, kernel, stride, padding, out, count_include_pad, divisor):
    dims = len(kernel)
    ones = (1,) * dims
    windows = _windows(x, kernel, stride, padding, ones, out, 0)
    sums = windows.sum(axis=-1, dtype=x.dtype)
    if divisor is None:
        divisor = _avg_divisors(x.shape[-dims:], kernel, stride, padding, out, count_include_pad)
    if x.dtype.kind == "f":
        return np.ascontiguousarray(sums / np.asarray(divisor, dtype=x.dtype))
    quotient = np.abs(sums) // divisor  # C++ integer division truncates toward zero
    return np.ascontiguousarray(np.where(sums < 0, -quotient, quotient)).astype(x.dtype)


def avg_pool_backward(grad, in_shape, kernel, stride, padding, count_include_pad, divisor):
    dims = len(kernel)
    out = grad.shape[-dims:]
    if divisor is None:
        divisor = _avg_divisors(in_shape[-dims:], kernel, stride, padding, out, count_include_pad)
    share = grad / np.asarray(divisor, dtype=grad.dtype)
    padded = [
        i + p + max(p, (o - 1) * s + k - i - p)
        for i, k, s, p, o in zip(in_shape[-dims:], kernel, stride, padding, out, strict=True)
    ]
    result = np.zeros(tuple(in_shape[:-dims]) + tuple(padded), dtype=grad.dtype)
    for offset in itertools.product(*(range(k) for k in kernel)):
        target = (Ellipsis,) + tuple(
            slice(k, k + s * (o - 1) + 1, s) for k, s, o in zip(offset, stride, out, strict=True)
        )
        result[target] += share
    crop = (Ellipsis,) + tuple(
        slice(p, p + i) for p, i in zip(padding, in_shape[-dims:], strict=True)
    )
    return np.ascontiguousarray(result[crop])


def adaptive_windows(size: int, out: int):
    """(start, end) per output element: floor(o * I / O), ceil((o + 1) * I / O)."""
    o = np.arange(out)
    return (o * size) // out, -((-(o + 1) * size) // out)


def _averaging_matrix(size, out, dtype):
    start, end = adaptive_windows(size, out)
    i = np.arange(size)
    inside = (i[None, :] >= start[:, None]) & (i[None, :] < end[:, None])
    return inside / (end - start)[:, None].astype(dtype)


def adaptive_avg(x, out):
    """Separable: the mean of a rectangle is the mean over each dim in turn."""
    result = x
    dims = len(out)
    for axis, o in enumerate(out):
        a = _averaging_matrix(x.shape[x.ndim - dims + axis], o, x.dtype).astype(x.dtype)
        result = np.moveaxis(
            np.tensordot(result, a, axes=([x.ndim - dims + axis], [1])), -1, x.ndim - dims + axis
        )
    return np.ascontiguousarray(result)


def adaptive_avg_backward(grad, in_shape):
    result = grad
    dims = 2
    for axis in range(dims):
        position = grad.ndim - dims + axis
        a = _averaging_matrix(in_shape[position], grad.shape[position], grad.dtype).astype(
            grad.dtype
        )
        result = np.moveaxis(np.tensordot(result, a, axes=([position], [0])), -1, position)
    return np.ascontiguousarray(result)


def adaptive_max(x, out):
    """(values, flat indices): windows gathered with indices clamped to the window's end
    (a repeated last element changes neither the max nor the first index of it)."""
    dims = len(out)
    spatial = x.shape[-dims:]
    gathers, widths = [], []
    for size, o in zip(spatial, out, strict=True):
        start, end = adaptive_windows(size, o)
        width = int((end - start).max()) if o else 1
        index = np.minimum(start[:, None] + np.arange(width)[None, :], end[:, None] - 1)
        gathers.append(index)
        widths.append(width)
    h, w = gathers
    windows = x[..., h[:, None, :, None], w[None, :, None, :]]  # (..., Oh, Ow, Kh, Kw)
    windows = windows.reshape(windows.shape[:-2] + (widths[0] * widths[1],))
    position = _pick(windows)
    values = np.take_along_axis(windows, position[..., None], axis=-1)[..., 0]
    kh, kw = np.unravel_index(position, widths)
    oh = np.arange(out[0])[:, None]
    ow = np.arange(out[1])[None, :]
    rows = h[oh, kh]
    cols = w[ow, kw]
    return np.ascontiguousarray(values), rows * spatial[1] + cols
