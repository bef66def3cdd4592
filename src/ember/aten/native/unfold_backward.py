"""aten::unfold_backward: the gradient of unfold, each window's gradient added back.

Layer: aten (CPU via NumPy; on meta, only the result's geometry). In: the gradient of
unfold's output, the input's sizes and unfold's arguments. Out: a fresh contiguous
tensor of the input's sizes, where overlapping windows (step < size) accumulate.
Mirrors ATen/native/UnfoldBackward.cpp.
"""

from __future__ import annotations

import numpy as np

from ember.aten.native import at
from ember.aten.native.common import wrap_dim

__all__ = ["unfold_backward"]


def unfold_backward(grad_in, input_sizes, dim, size, step):
    sizes = [int(s) for s in input_sizes]
    ndim = len(sizes)
    d = wrap_dim(dim, max(ndim, 1))
    result = at.zeros(sizes, grad_in.dtype, None, grad_in.device, None)
    if result.device.type == "meta" or not result.numel() or not grad_in.numel():
        return result
    grad = grad_in.ndarray()
    out = result.ndarray()
    if ndim == 0:  # unfold of a 0-dim tensor made one window of its one element
        out[...] = grad.sum()
        return result
    windows = np.moveaxis(grad, d, -2)  # [..., window, element of the window]
    target = np.moveaxis(out, d, -1)  # a view of the result, the unfolded dim last
    starts = np.arange(windows.shape[-2]) * step
    for k in range(windows.shape[-1]):
        target[..., starts + k] += windows[..., k]  # distinct positions for one k
    return result
