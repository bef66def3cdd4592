"""Convolution in float16 / bfloat16 with the rounding of PyTorch's CPU slow paths.

Layer: aten/native (pure NumPy). In: reduced-precision arrays (N, C, *spatial), weights
(C_out, C_in / groups, *kernel) or, transposed, (C_in, C_out / groups, *kernel). Out:
fresh arrays of the input's dtype. Where oneDNN does not take a call (every float16
call without AVX512-FP16; a transposed bfloat16 one with output_padding >= stride),
PyTorch's CPU computes it in
cpublas (ATen/native/cpu/BlasKernel.cpp) over im2col / col2im (ConvolutionMM2d.cpp,
NaiveConvolutionTranspose2d.cpp and their 3-d forms); the numbers depend on its order:

* a convolution is, per output element, a float32 dot product over (c, *k) kept in four
  interleaved partial sums (cpublas' `sum`, element l into sum l % 4, the remainder into
  the first, the four added in order), plus float32 bias, rounded once;
* a transposed convolution first forms the columns (weight^T @ input, a float32
  accumulation over the input channels in order), rounds them to float16, scatters
  them onto the output one kernel offset at a time in (d, h, w) order rounding after
  each addition (col2im in the tensor's dtype), then adds the bias in that dtype.

Every other bfloat16 call goes through oneDNN (a CPU with AVX512-BF16): float32
arithmetic rounded once, which convolution.py computes with conv_numpy.
"""

from __future__ import annotations

import itertools

import numpy as np

from ember.aten.native.conv_numpy import _columns, output_size

__all__ = ["conv_forward_half", "conv_transpose_half"]


def _round(values, dtype=np.float16):
    return values.astype(dtype).astype(np.float32)


def conv_forward_half(x, weight, bias, stride, padding, dilation, groups):
    n = x.shape[0]
    c_out = weight.shape[0]
    kernel = weight.shape[2:]
    out_spatial = output_size(x.shape[2:], kernel, stride, padding, dilation)
    cols = _columns(x.astype(np.float32), kernel, stride, padding, dilation, groups, out_spatial)
    w = weight.astype(np.float32).reshape(groups, c_out // groups, -1)  # (G, Cog, Cg*K)
    a = cols[:, :, :, None, :]  # (N, G, O, 1, Cg*K)
    b = w[None, :, None, :, :]  # (1, G, 1, Cog, Cg*K)
    depth = w.shape[-1]
    quads = depth // 4
    partial = np.zeros((n, groups, cols.shape[2], c_out // groups, 4), dtype=np.float32)
    for i in range(quads):
        partial += a[..., 4 * i : 4 * i + 4] * b[..., 4 * i : 4 * i + 4]
    for tail in range(4 * quads, depth):
        partial[..., 0] += a[..., tail] * b[..., tail]
    total = partial[..., 0]
    for k in range(1, 4):
        total = total + partial[..., k]
    y = total.transpose(0, 1, 3, 2).reshape((n, c_out) + tuple(out_spatial))
    if bias is not None:
        y = bias.astype(np.float32).reshape((1, -1) + (1,) * len(kernel)) + y
    return np.ascontiguousarray(y.astype(np.float16))


def conv_transpose_half(x, weight, bias, out_spatial, stride, padding, dilation, groups):
    n, c_in = x.shape[:2]
    in_spatial = x.shape[2:]
    kernel = weight.shape[2:]
    dims = len(kernel)
    cg = c_in // groups
    cog = weight.shape[1]
    xs = x.astype(np.float32).reshape((n, groups, cg) + tuple(in_spatial))
    ws = weight.astype(np.float32).reshape((groups, cg, cog) + tuple(kernel))
    lone = (None,) * dims
    cols = np.zeros((n, groups, cog) + tuple(kernel) + tuple(in_spatial), dtype=np.float32)
    for channel in range(cg):
        w_c = ws[(None, slice(None), channel, Ellipsis) + lone]  # (1, G, Cog, *K, 1...)
        x_c = xs[(slice(None), slice(None), channel) + (None,) * (1 + dims)]  # (N, G, 1.., *I)
        cols += w_c * x_c
    cols = _round(cols, x.dtype)
    padded = [o + 2 * p + s for o, p, s in zip(out_spatial, padding, stride, strict=True)]
    out = np.zeros((n, groups, cog) + tuple(padded), dtype=np.float32)
    for offset in itertools.product(*(range(k) for k in kernel)):
        target = (slice(None),) * 3 + tuple(
            slice(k * d, k * d + s * (i - 1) + 1, s)
            for k, d, s, i in zip(offset, dilation, stride, in_spatial, strict=True)
        )
        out[target] = _round(out[target] + cols[(slice(None),) * 3 + offset], x.dtype)
    crop = (slice(None),) * 3 + tuple(
        slice(p, p + o) for p, o in zip(padding, out_spatial, strict=True)
    )
    out = out[crop].reshape((n, groups * cog) + tuple(out_spatial))
    if bias is not None:
        out = _round(out + bias.astype(np.float32).reshape((1, -1) + (1,) * dims), x.dtype)
    return np.ascontiguousarray(out.astype(x.dtype))
