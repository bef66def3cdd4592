"""The arithmetic of N-d convolution on NumPy arrays: im2col, col2im and the products.

Layer: aten/native (pure NumPy, no tensors). In: C-ordered arrays laid out as
PyTorch's (N, C, *spatial) and weights (C_out, C_in / groups, *kernel). Out: fresh
arrays. Each product is one matmul over an im2col view built with
`sliding_window_view` (one copy); col2im accumulates one strided slice per kernel
offset (prod(kernel) vectorised adds, never np.add.at). Mirrors the im2col/col2im
scheme of ATen/native/ConvolutionMM2d.cpp (slow_conv2d), in any number of dims.
"""

from __future__ import annotations

import itertools

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

__all__ = ["output_size", "conv_forward", "conv_input_grad", "conv_weight_grad"]


def output_size(spatial, kernel, stride, padding, dilation):
    """(I + 2p - d(k - 1) - 1) // s + 1 per dim."""
    return tuple(
        (i + 2 * p - d * (k - 1) - 1) // s + 1
        for i, k, s, p, d in zip(spatial, kernel, stride, padding, dilation, strict=True)
    )


def _prod(values) -> int:
    result = 1
    for v in values:
        result *= int(v)
    return result


def _padded(x, padding):
    if not any(padding):
        return x
    return np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in padding])


def _columns(x, kernel, stride, padding, dilation, groups, out_spatial):
    """im2col: (N, G, prod(O), Cg * prod(K)), one contiguous copy of the windows."""
    n, c = x.shape[:2]
    dims = len(kernel)
    x = _padded(x, padding)
    span = [d * (k - 1) + 1 for k, d in zip(kernel, dilation, strict=True)]
    axes = tuple(range(2, 2 + dims))
    windows = sliding_window_view(x, span, axis=axes)
    index = (slice(None), slice(None))
    index += tuple(slice(0, s * (o - 1) + 1, s) for s, o in zip(stride, out_spatial, strict=True))
    index += tuple(slice(None, None, d) for d in dilation)
    windows = windows[index]  # (N, C, *O, *K)
    windows = windows.reshape((n, groups, c // groups) + windows.shape[2:])
    # (N, G, *O, Cg, *K)
    order = (0, 1) + tuple(range(3, 3 + dims)) + (2,) + tuple(range(3 + dims, 3 + 2 * dims))
    cols = np.ascontiguousarray(windows.transpose(order))
    return cols.reshape(n, groups, _prod(out_spatial), (c // groups) * _prod(kernel))


def conv_forward(x, weight, stride, padding, dilation, groups):
    """y[n, o] = sum over the window of x * weight: (N, C_out, *O)."""
    n = x.shape[0]
    c_out = weight.shape[0]
    kernel = weight.shape[2:]
    out_spatial = output_size(x.shape[2:], kernel, stride, padding, dilation)
    cols = _columns(x, kernel, stride, padding, dilation, groups, out_spatial)
    w = weight.reshape(groups, c_out // groups, _prod(weight.shape[1:]))  # (G, Cog, Cg*K)
    y = np.matmul(cols, w.transpose(0, 2, 1))  # (N, G, O, Cog)
    y = y.transpose(0, 1, 3, 2).reshape((n, c_out) + tuple(out_spatial))
    return np.ascontiguousarray(y)


def conv_input_grad(grad, weight, in_spatial, stride, padding, dilation, groups):
    """The adjoint of conv_forward in x (col2im): (N, C_in, *in_spatial).

    Also the forward of a transposed convolution; `in_spatial` may be longer than the
    window positions reach (output_padding): those elements stay zero."""
    n = grad.shape[0]
    c_out = weight.shape[0]
    cg = weight.shape[1]
    kernel = weight.shape[2:]
    dims = len(kernel)
    out_spatial = grad.shape[2:]
    cog = c_out // groups
    g = grad.reshape(n, groups, cog, _prod(out_spatial))  # (N, G, Cog, O)
    w = weight.reshape(groups, cog, _prod(weight.shape[1:]))  # (G, Cog, Cg*K)
    cols = np.matmul(g.transpose(0, 1, 3, 2), w)  # (N, G, O, Cg*K)
    cols = cols.reshape((n, groups) + tuple(out_spatial) + (cg,) + tuple(kernel))
    # (N, G, Cg, *O, *K)
    order = (0, 1, 2 + dims) + tuple(range(2, 2 + dims)) + tuple(range(3 + dims, 3 + 2 * dims))
    cols = cols.transpose(order)
    padded_shape = tuple(i + 2 * p for i, p in zip(in_spatial, padding, strict=True))
    result = np.zeros((n, groups, cg) + padded_shape, dtype=grad.dtype)
    for offset in itertools.product(*(range(k) for k in kernel)):
        target = (slice(None),) * 3 + tuple(
            slice(k * d, k * d + s * (o - 1) + 1, s)
            for k, d, s, o in zip(offset, dilation, stride, out_spatial, strict=True)
        )
        result[target] += cols[(Ellipsis,) + offset]
    crop = (slice(None),) * 3 + tuple(
        slice(p, p + i) for p, i in zip(padding, in_spatial, strict=True)
    )
    result = result[crop].reshape((n, groups * cg) + tuple(in_spatial))
    return np.ascontiguousarray(result)


def conv_weight_grad(x, grad, kernel, stride, padding, dilation, groups):
    """The adjoint of conv_forward in the weight: (C_out, C_in / groups, *kernel)."""
    n, c = x.shape[:2]
    c_out = grad.shape[1]
    out_spatial = grad.shape[2:]
    cols = _columns(x, kernel, stride, padding, dilation, groups, out_spatial)
    # (G, Cg*K, N*O) @ ... : sum over batch and positions in one product per group
    positions = _prod(out_spatial)
    g = grad.reshape(n, groups, c_out // groups, positions).transpose(1, 2, 0, 3)  # (G, Cog, N, O)
    g = g.reshape(groups, c_out // groups, n * positions)
    cols = cols.transpose(1, 0, 2, 3).reshape(
        groups, n * positions, cols.shape[3]
    )  # (G, N*O, Cg*K)
    w = np.matmul(g, cols)  # (G, Cog, Cg*K)
    return w.reshape((c_out, c // groups) + tuple(kernel))
