"""Pooling in float16 / bfloat16 with the CPU kernels' rounding, on NumPy arrays.

Layer: aten/native (pure NumPy). In: arrays of a reduced floating dtype laid out
(..., *spatial), already checked. Out: fresh arrays of the same dtype. Mirrors how the
reduced-precision instantiations of ATen/native/cpu/AvgPoolKernel.cpp,
AdaptiveAvgPoolKernel.cpp, MaxPoolKernel.cpp and AdaptiveMaxPoolKernel.cpp round:

* a forward average sums its window in float32, in (d, h, w) order, divides in float32
  (the adaptive kernel by each window length in turn) and rounds once; the 3-d adaptive
  kernel does each of those steps in the tensor's own dtype;
* a backward scatters in output order and rounds after every addition (the gradient
  buffer is the tensor's own dtype); an average's share is rounded before it is added
  (the adaptive kernels round after each division by a window length).

Float32 / float64 stay on pool_numpy's paths.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

from ember.aten.native.pool_numpy import _windows, adaptive_windows

__all__ = [
    "is_reduced", "max_pool_backward", "avg_pool", "avg_pool_backward", "adaptive_avg",
    "adaptive_avg_backward",
]  # fmt: skip

_REDUCED = (np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16))


def is_reduced(dtype) -> bool:
    return np.dtype(dtype) in _REDUCED


def _round(values, dtype):
    return values.astype(dtype).astype(np.float32)


def _scatter(size, targets, values, dtype):
    """out[targets[i]] += values[i] for i in order, rounding to `dtype` after each step."""
    order = np.argsort(targets, kind="stable")
    targets, values = targets[order], values[order]
    acc = np.zeros(size, dtype=np.float32)
    if targets.size:
        first = np.flatnonzero(np.r_[True, targets[1:] != targets[:-1]])
        rank = np.arange(targets.size) - np.repeat(first, np.diff(np.r_[first, targets.size]))
        for r in range(int(rank.max()) + 1):
            chosen = rank == r  # at most one element per target at each rank
            where = targets[chosen]
            acc[where] = _round(acc[where] + values[chosen], dtype)
    return acc.astype(dtype)


def max_pool_backward(grad, indices, in_shape, dims):
    lead = int(np.prod(in_shape[:-dims]))
    plane = int(np.prod(in_shape[-dims:]))
    flat = indices.reshape(lead, -1) + (np.arange(lead, dtype=np.int64) * plane)[:, None]
    values = grad.reshape(-1).astype(np.float32)
    # a window wholly in the padding carries an index past its plane: kept, as the kernel
    size = max(lead * plane, int(flat.max()) + 1 if flat.size else 0)
    return _scatter(size, flat.ravel(), values, grad.dtype)[: lead * plane].reshape(in_shape)


def avg_pool(x, kernel, stride, padding, out, divisor_of):
    windows = _windows(x.astype(np.float32), kernel, stride, padding, (1,) * len(kernel), out, 0)
    total = np.zeros(windows.shape[:-1], dtype=np.float32)
    for k in range(windows.shape[-1]):
        total = total + windows[..., k]
    return np.ascontiguousarray((total / np.asarray(divisor_of, dtype=np.float32)).astype(x.dtype))


def _window_targets(in_spatial, kernel, stride, padding, out):
    """(flat input index, valid) per (output element, kernel offset), output-major."""
    dims = len(kernel)
    flat = np.zeros(tuple(out) + tuple(kernel), dtype=np.int64)
    valid = np.ones(flat.shape, dtype=bool)
    for axis in range(dims):
        shape = [1] * (2 * dims)
        shape[axis] = out[axis]
        o = np.arange(out[axis]).reshape(shape)
        shape = [1] * (2 * dims)
        shape[dims + axis] = kernel[axis]
        k = np.arange(kernel[axis]).reshape(shape)
        coordinate = o * stride[axis] - padding[axis] + k
        valid = valid & (coordinate >= 0) & (coordinate < in_spatial[axis])
        flat = flat * in_spatial[axis] + coordinate
    return flat.reshape(-1), valid.reshape(-1)


def _spread(shares, in_shape, flat, valid, per_output, dtype):
    """Scatter each plane's shares (repeated per_output times) to `flat` where valid."""
    lead = shares.shape[0]
    plane = int(np.prod(in_shape)) // lead
    values = np.repeat(shares.astype(np.float32), per_output, axis=1)[:, valid]
    targets = flat[valid][None, :] + (np.arange(lead, dtype=np.int64) * plane)[:, None]
    return _scatter(lead * plane, targets.ravel(), values.ravel(), dtype).reshape(in_shape)


def avg_pool_backward(grad, in_shape, kernel, stride, padding, divisor_of):
    dims = len(kernel)
    out = grad.shape[-dims:]
    lead = int(np.prod(in_shape[:-dims]))
    share = _round(grad.astype(np.float32) / np.asarray(divisor_of, dtype=np.float32), grad.dtype)
    flat, valid = _window_targets(in_shape[-dims:], kernel, stride, padding, out)
    shares = share.reshape(lead, -1)
    return _spread(shares, tuple(in_shape), flat, valid, int(np.prod(kernel)), grad.dtype)


def _adaptive_targets(in_spatial, out):
    """(flat input index, valid, per-dim window lengths) per (output, window offset)."""
    dims = len(out)
    starts, lengths, widths = [], [], []
    for size, o in zip(in_spatial, out, strict=True):
        start, end = adaptive_windows(size, o)
        starts.append(start)
        lengths.append(end - start)
        widths.append(int((end - start).max()) if o else 1)
    flat = np.zeros(tuple(out) + tuple(widths), dtype=np.int64)
    valid = np.ones(flat.shape, dtype=bool)
    for axis in range(dims):
        shape = [1] * (2 * dims)
        shape[axis] = out[axis]
        start = starts[axis].reshape(shape)
        length = lengths[axis].reshape(shape)
        shape = [1] * (2 * dims)
        shape[dims + axis] = widths[axis]
        k = np.arange(widths[axis]).reshape(shape)
        valid = valid & (k < length)
        flat = flat * in_spatial[axis] + np.minimum(start + k, in_spatial[axis] - 1)
    return flat.reshape(-1), valid.reshape(-1), lengths, int(np.prod(widths))


def _divide_by_lengths(values, lengths, dtype, round_each):
    dims = len(lengths)
    for axis, length in enumerate(lengths):
        shape = [1] * dims
        shape[axis] = length.size
        values = values / length.reshape(shape).astype(np.float32)
        if round_each:
            values = _round(values, dtype)
    return values


def adaptive_avg(x, out):
    """2-d: a float32 sum and float32 divisions; 3-d: every step in the tensor's dtype."""
    dims = len(out)
    own = dims == 3
    flat, valid, lengths, per_output = _adaptive_targets(x.shape[-dims:], out)
    lead_shape = x.shape[:-dims]
    planes = x.astype(np.float32).reshape((-1, int(np.prod(x.shape[-dims:]))))
    gathered = np.where(valid, planes[:, flat], 0).reshape((planes.shape[0], -1, per_output))
    total = np.zeros(gathered.shape[:-1], dtype=np.float32)
    for k in range(per_output):
        total = total + gathered[..., k]
        if own:
            total = _round(total, x.dtype)
    total = total.reshape(tuple(lead_shape) + tuple(out))
    return np.ascontiguousarray(_divide_by_lengths(total, lengths, x.dtype, own).astype(x.dtype))


def adaptive_avg_backward(grad, in_shape, dims):
    in_shape = tuple(in_shape)
    out = grad.shape[-dims:]
    flat, valid, lengths, per_output = _adaptive_targets(in_shape[-dims:], out)
    share = _divide_by_lengths(grad.astype(np.float32), lengths, grad.dtype, True)
    lead = int(np.prod(in_shape[:-dims]))
    return _spread(share.reshape(lead, -1), in_shape, flat, valid, per_output, grad.dtype)
