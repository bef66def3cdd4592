"""The 3-d adaptive pools (adaptive_avg_pool3d, _adaptive_avg_pool3d and its backward,
adaptive_max_pool3d and its backward) and max_unpool2d / max_unpool3d.

Layer: aten/native. In: the schema's arguments. Out: fresh tensors. Adaptive windows are
PyTorch's [floor(o * I / O), ceil((o + 1) * I / O)); averages are separable matrix
products, maxima gathered windows (the first max, NaN wins), unpooling a scatter of
each plane's values at their flat indices into zeros (a later element wins a repeated
index, as the sequential CPU loop). Mirrors ATen/native/AdaptiveAveragePooling3d.cpp,
AdaptiveMaxPooling3d.cpp and MaxUnpooling.cpp (with cpu/MaxUnpoolKernel.cpp).
"""

from __future__ import annotations

import numpy as np

from ember._c10 import dtypes
from ember._c10.memory_format import channels_last
from ember._tensor import wrap_array
from ember.aten.native import at
from ember.aten.native import pool_reduced as reduced
from ember.aten.native.pool_numpy import _pick, adaptive_windows, max_pool_backward
from ember.aten.native.views import fmt_ints, scalar_type_name_of
from ember.aten.ufunc_special import opmath

__all__ = [
    "adaptive_avg_pool3d", "adaptive_avg_pool3d_cpu", "adaptive_avg_pool3d_backward_cpu",
    "adaptive_max_pool3d_cpu", "adaptive_max_pool3d_backward_cpu",
    "max_unpooling2d_forward_cpu", "max_unpooling3d_forward_cpu",
]  # fmt: skip

_POOL_DTYPES = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64)


def _floating_only(name, dtype):
    if dtype not in _POOL_DTYPES:
        raise NotImplementedError(f"\"{name}\" not implemented for '{scalar_type_name_of(dtype)}'")


def _non_empty(name, self, what="input", tail=""):
    for i in range(1, self.dim()):
        if self._sizes[i] <= 0:
            raise RuntimeError(
                f"{name}: Expected {what} to have non-zero size for non-batch dimensions, but "
                f"{what} has sizes {fmt_ints(self._sizes)} with dimension {i} being empty{tail}"
            )


def _window_matrix(size, out, dtype):
    """(out, size): 1 where input element i lies in output element o's window."""
    start, end = adaptive_windows(size, out)
    i = np.arange(size)
    return ((i[None, :] >= start[:, None]) & (i[None, :] < end[:, None])).astype(dtype)


def _window_counts(in_spatial, out_spatial, dtype):
    """The number of elements of each output element's window, (Od, Oh, Ow)."""
    counts = [np.diff(np.stack(adaptive_windows(i, o)), axis=0)[0]
              for i, o in zip(in_spatial, out_spatial, strict=True)]  # fmt: skip
    return (counts[0][:, None, None] * counts[1][None, :, None] * counts[2][None, None, :]).astype(
        dtype
    )


def _separable(x, matrices, contract_axis):
    """Apply one matrix per trailing spatial dim (axis `contract_axis` of each matrix)."""
    dims = len(matrices)
    result = x
    for axis, matrix in enumerate(matrices):
        position = x.ndim - dims + axis
        result = np.moveaxis(
            np.tensordot(result, matrix, axes=([position], [contract_axis])), -1, position
        )
    return np.ascontiguousarray(result)


# -- adaptive average ----------------------------------------------------------------------


def _windows3d(x, out):
    """Each output element's window over the last three dims, (..., Od, Oh, Ow, K), its
    indices clamped to the window's end, with the mask of the elements truly inside."""
    gathers, masks, widths = [], [], []
    for size, o in zip(x.shape[-3:], out, strict=True):
        start, end = adaptive_windows(size, o)
        width = int((end - start).max()) if o else 1
        raw = start[:, None] + np.arange(width)[None, :]
        gathers.append(np.minimum(raw, end[:, None] - 1))
        masks.append(raw < end[:, None])
        widths.append(width)
    d, h, w = gathers
    windows = x[..., d[:, None, None, :, None, None], h[None, :, None, None, :, None],
                w[None, None, :, None, None, :]]  # fmt: skip
    md, mh, mw = masks
    inside = (md[:, None, None, :, None, None] & mh[None, :, None, None, :, None]
              & mw[None, None, :, None, None, :])  # fmt: skip
    k = int(np.prod(widths))
    return windows.reshape(windows.shape[:-3] + (k,)), inside.reshape(inside.shape[:-3] + (k,))


def _adaptive_avg3d(x, out):
    """The CPU kernel's numbers: each window summed in order (d, h, w) in the tensor's own
    dtype (half sums in half), then divided by its element count in float."""
    windows, inside = _windows3d(x, out)
    total = np.zeros(windows.shape[:-1], dtype=x.dtype)
    for k in range(windows.shape[-1]):
        total = (total + np.where(inside[..., k], windows[..., k], 0)).astype(x.dtype)
    count = inside.sum(axis=-1)
    division = np.float64 if x.dtype == np.float64 else np.float32
    return np.ascontiguousarray((total.astype(division) / count.astype(division)).astype(x.dtype))


def adaptive_avg_pool3d(self, output_size):
    if len(output_size) != 3:
        raise RuntimeError("adaptive_avg_pool3d: output_size must be 3")
    if any(o < 0 for o in output_size):
        o = output_size
        raise RuntimeError(
            "adaptive_avg_pool3d: elements of output_size must be greater than or equal to 0 "
            f"but received {{{o[0]}, {o[1]},{o[2]}}}"
        )
    if all(o == 1 for o in output_size):
        return at.mean_dim(self, [-1, -2, -3], True, None)
    return at._adaptive_avg_pool3d(self, output_size)


def adaptive_avg_pool3d_cpu(self, output_size):
    if len(output_size) != 3:
        raise RuntimeError("adaptive_avg_pool3d: output_size must be 3")
    _non_empty("adaptive_avg_pool3d()", self)
    if self.dim() not in (4, 5):
        raise RuntimeError(
            f"adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got {fmt_ints(self._sizes)}"
        )
    _floating_only("adaptive_avg_pool3d_cpu", self.dtype)
    out = [int(o) for o in output_size]
    x = self.ndarray()
    average = reduced.adaptive_avg if reduced.is_reduced(x.dtype) else _adaptive_avg3d
    return wrap_array(average(x, out), self.dtype)


def adaptive_avg_pool3d_backward_cpu(grad_output, self):
    _non_empty("adaptive_avg_pool3d_backward()", grad_output, "grad_output")
    _floating_only("adaptive_avg_pool3d_backward_cpu", self.dtype)
    g = grad_output.ndarray()
    if reduced.is_reduced(g.dtype):
        return wrap_array(reduced.adaptive_avg_backward(g, self._sizes, 3), self.dtype)
    compute = opmath(g.dtype)  # each output's gradient over its window's count, spread
    matrices = [_window_matrix(self._sizes[-3 + i], g.shape[-3 + i], compute)
                for i in range(3)]  # fmt: skip
    shares = g.astype(compute) / _window_counts(self._sizes[-3:], g.shape[-3:], compute)
    result = _separable(shares, matrices, 0)
    return wrap_array(result.astype(self.dtype.np_dtype, copy=False), self.dtype)


# -- adaptive max --------------------------------------------------------------------------


def _adaptive_max3d(x, out):
    """(values, flat indices over the last three dims) of each adaptive window."""
    spatial = x.shape[-3:]
    gathers, widths = [], []
    for size, o in zip(spatial, out, strict=True):
        start, end = adaptive_windows(size, o)
        width = int((end - start).max()) if o else 1
        gathers.append(np.minimum(start[:, None] + np.arange(width)[None, :], end[:, None] - 1))
        widths.append(width)
    d, h, w = gathers
    windows = x[..., d[:, None, None, :, None, None], h[None, :, None, None, :, None],
                w[None, None, :, None, None, :]]  # (..., Od, Oh, Ow, Kd, Kh, Kw)  # fmt: skip
    windows = windows.reshape(windows.shape[:-3] + (int(np.prod(widths)),))
    position = _pick(windows)
    values = np.take_along_axis(windows, position[..., None], axis=-1)[..., 0]
    kd, kh, kw = np.unravel_index(position, widths)
    od = np.arange(out[0])[:, None, None]
    oh = np.arange(out[1])[None, :, None]
    ow = np.arange(out[2])[None, None, :]
    flat = (d[od, kd] * spatial[1] + h[oh, kh]) * spatial[2] + w[ow, kw]
    return np.ascontiguousarray(values), np.ascontiguousarray(flat.astype(np.int64))


def adaptive_max_pool3d_cpu(self, output_size):
    ndim = self.dim()
    if ndim not in (4, 5):
        raise RuntimeError(
            f"adaptive_max_pool3d(): Expected 4D or 5D tensor, but got: {fmt_ints(self._sizes)}"
        )
    _non_empty("adaptive_max_pool3d()", self)
    if len(output_size) != 3:
        raise RuntimeError("adaptive_max_pool3d(): internal error: output_size.size() must be 3")
    shape = list(self._sizes[:-3]) + [int(o) for o in output_size]
    negative = [s for s in shape if s < 0]
    if negative:
        raise RuntimeError(
            f"Trying to create tensor with negative dimension {negative[0]}: {fmt_ints(shape)}"
        )
    _floating_only("adaptive_max_pool3d_cpu", self.dtype)
    values, indices = _adaptive_max3d(self.ndarray(), [int(o) for o in output_size])
    return wrap_array(values, self.dtype), wrap_array(indices, dtypes.int64)


def adaptive_max_pool3d_backward_cpu(grad_output, self, indices):
    _floating_only("adaptive_max_pool3d_backward_cpu", self.dtype)
    g = grad_output.ndarray()
    backward = reduced.max_pool_backward if reduced.is_reduced(g.dtype) else max_pool_backward
    return wrap_array(backward(g, indices.ndarray(), self._sizes, 3), self.dtype)


# -- max_unpool ----------------------------------------------------------------------------


def _unpool_indices_dtype(indices, dims):
    if indices.dtype is dtypes.int64:
        return
    if dims == 2:
        raise RuntimeError(
            "elements in indices should be type int64 but got: "
            f"{scalar_type_name_of(indices.dtype)}"
        )
    raise RuntimeError("elements in indices should be type int64")


def _unpool_shape_checks(name, self, indices):
    if self._sizes != indices._sizes:
        raise RuntimeError(
            "Expected shape of indices to be same as that of the input tensor "
            f"({fmt_ints(self._sizes)}) but got indices tensor with shape: "
            f"{fmt_ints(indices._sizes)}"
        )
    for i in range(1, self.dim()):
        if self._sizes[i] <= 0:
            raise RuntimeError(
                f"{name}: Expected input to have non-zero size for non-batch dimensions, but "
                f"got {fmt_ints(self._sizes)} with dimension {i} being empty."
            )


def _unpool(self, indices, out_spatial, dims):
    _floating_only(f"max_unpool{dims}d", self.dtype)
    lead = self._sizes[:-dims]
    plane = int(np.prod(out_spatial))
    planes = int(np.prod(lead))
    values = self.ndarray().reshape(planes, int(np.prod(self._sizes[-dims:])))
    where = indices.ndarray().reshape(values.shape)
    bad = (where < 0) | (where >= plane)
    if bad.any():
        size = "x".join(str(int(s)) for s in out_spatial)
        raise RuntimeError(
            f"Found an invalid max index: {int(where[bad][0])} (output volumes are of size {size})"
        )
    output = np.zeros((planes, plane), dtype=values.dtype)
    rows = np.broadcast_to(np.arange(planes)[:, None], where.shape)
    output[rows.ravel(), where.ravel()] = values.ravel()
    return wrap_array(output.reshape(tuple(lead) + tuple(int(s) for s in out_spatial)),
                      self.dtype)  # fmt: skip


def max_unpooling2d_forward_cpu(self, indices, output_size):
    _unpool_indices_dtype(indices, 2)
    if len(output_size) != 2:
        raise RuntimeError(
            "There should be exactly two elements (height, width) in output_size, but got "
            f"{len(output_size)} elements."
        )
    if self.dim() not in (3, 4):
        raise RuntimeError(
            "Input to max_unpooling2d should be a 3d or 4d Tensor, but got a tensor with "
            f"{self.dim()} dimensions."
        )
    _unpool_shape_checks("max_unpooling2d_forward_out_cpu()", self, indices)
    output = _unpool(self, indices, output_size, 2)
    if (
        self.dim() == 4
        and not self.is_contiguous()
        and self.is_contiguous(memory_format=channels_last)
    ):  # the input's suggested memory format
        return at.clone(output, channels_last)
    return output


def max_unpooling3d_forward_cpu(self, indices, output_size, stride, padding):
    _unpool_indices_dtype(indices, 3)
    if self.dim() not in (4, 5):
        raise RuntimeError(
            "Input to max_unpooling3d should be a 4d or 5d Tensor, but got a tensor with "
            f"{self.dim()} dimensions."
        )
    for what, values in (("output_size", output_size), ("stride", stride),
                         ("padding", padding)):  # fmt: skip
        if len(values) != 3:
            joint = ", but got " if what == "output_size" else ", but got: "
            raise RuntimeError(
                f"There should be exactly three elements (depth, height, width) in {what}"
                f"{joint}{len(values)} elements."
            )
    _unpool_shape_checks("max_unpooling3d_forward_out_cpu()", self, indices)
    if not all(s > 0 for s in stride):
        raise RuntimeError(
            f"strides should be greater than zero, but got stride: {fmt_ints(stride)}"
        )
    return _unpool(self, indices, output_size, 3)
