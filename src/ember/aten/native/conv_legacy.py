"""The older convolution entry points: _convolution (and its .deprecated overload) and
conv_tbc with its backward.

Layer: aten/native. In: the schema's arguments. Out: fresh tensors. _convolution is
CompositeExplicitAutograd as in PyTorch (its node is ConvolutionBackward1): it computes
what convolution computes, with the backend flags (benchmark, deterministic, cudnn,
tf32) meaning nothing on CPU. conv_tbc (CompositeExplicitAutograd, node ConvTbcBackward0) and
conv_tbc_backward (CompositeImplicitAutograd) convolve (time, batch, channel) inputs
with one addmm_ per kernel offset, as ATen/native/ConvolutionTBC.cpp does. Mirrors
Convolution.cpp (_convolution, the deprecated overload) and ConvolutionTBC.cpp.
"""

from __future__ import annotations

from ember.aten.native import at
from ember.aten.native.convolution import convolution

__all__ = ["_convolution", "_convolution_deprecated", "conv_tbc", "conv_tbc_backward"]


def _convolution(input, weight, bias, stride, padding, dilation, transposed,  # noqa: A002
                 output_padding, groups, benchmark, deterministic, cudnn_enabled,
                 allow_tf32):  # fmt: skip
    return convolution(
        input, weight, bias, stride, padding, dilation, transposed, output_padding, groups
    )


def _convolution_deprecated(input, weight, bias, stride, padding, dilation,  # noqa: A002
                            transposed, output_padding, groups, benchmark, deterministic,
                            cudnn_enabled):  # fmt: skip
    return at._convolution(
        input, weight, bias, stride, padding, dilation, transposed, output_padding, groups,
        benchmark, deterministic, cudnn_enabled, True,
    )  # fmt: skip


def _tbc_checks(self, weight, bias):
    if self.dim() != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if weight.dim() != 3:
        raise RuntimeError(
            "Weight tensor must have 3 dims: kernel_width, in_channels, out_channels."
        )
    if bias.dim() != 1:
        raise RuntimeError("Bias must be 1-D")


def _shifts(ilen, kw, pad):
    """(input shift, output shift, length) of each kernel offset's product, as the kernel."""
    olen = ilen - kw + 1 + pad * 2
    real_pad = (olen - ilen + kw - 1) // 2
    for k in range(kw):
        i_shift = max(0, k - real_pad)
        o_shift = max(0, real_pad - k)
        yield k, i_shift, o_shift, min(ilen + real_pad - k, olen) - o_shift


def conv_tbc(self, weight, bias, pad):
    _tbc_checks(self, weight, bias)
    ilen, batch, planes = self._sizes
    kw, _, out_planes = weight._sizes
    olen = ilen - kw + 1 + pad * 2
    if planes != weight._sizes[1]:
        raise RuntimeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    if out_planes != bias._sizes[0]:
        raise RuntimeError("Bias size must equal dim 2 in the weight tensor (output channels).")
    shape = [olen, batch, out_planes]
    output = at.empty_memory_format(shape, self.dtype, None, self.device, None, None)
    at.copy_(output, at.expand(bias, shape, False), False)
    for k, i_shift, o_shift, t in _shifts(ilen, kw, pad):
        if t > 0:
            rows = at.view(at.narrow(self, 0, i_shift, t), [t * batch, planes])
            out = at.view(at.narrow(output, 0, o_shift, t), [t * batch, out_planes])
            at.addmm_(out, rows, at.select_int(weight, 0, k), 1, 1)
    return output


def conv_tbc_backward(self, input, weight, bias, pad):  # noqa: A002
    ilen, batch, planes = input._sizes
    kw, _, out_planes = weight._sizes
    d_input = at.zeros_like(input, None, None, None, None, None)
    shifts = [s for s in _shifts(ilen, kw, pad) if s[3] > 0]
    for k, i_shift, o_shift, t in shifts:
        grads = at.view(at.narrow(self, 0, o_shift, t), [t * batch, out_planes])
        d_rows = at.view(at.narrow(d_input, 0, i_shift, t), [t * batch, planes])
        at.addmm_(d_rows, grads, at.t(at.select_int(weight, 0, k)), 1, 1)
    d_weight = at.zeros_like(weight, None, None, None, None, None)
    for k, i_shift, o_shift, t in shifts:
        grads = at.view(at.narrow(self, 0, o_shift, t), [t * batch, out_planes])
        rows = at.t(at.view(at.narrow(input, 0, i_shift, t), [t * batch, planes]))
        at.addmm_(at.select_int(d_weight, 0, k), rows, grads, 1, 1)
    d_bias = at.zeros_like(bias, None, None, None, None, None)
    summed = at.sum_dim_IntList(self, [0], False, None)
    at.copy_(d_bias, at.sum_dim_IntList(summed, [0], False, None), False)
    return d_input, d_weight, d_bias
