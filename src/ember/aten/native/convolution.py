"""aten::convolution and aten::convolution_backward: argument checks, shapes, the arithmetic.

Layer: aten/native. In: the schema's arguments (Note [Dispatcher calling convention]).
Out: fresh tensors (meta tensors of the right shape on the meta device). Both are
CompositeExplicitAutograd as in PyTorch; the autograd node is ConvolutionBackward0
and backward dispatches convolution_backward with PyTorch's output_mask. The checks
and their messages follow ATen/native/Convolution.cpp (_convolution,
check_shape_forward, expand_param_if_needed); the arithmetic is conv_numpy's (bfloat16
through float32, rounded once, as oneDNN) and conv_reduced's (the float16 forward, and
the transposed bfloat16 one oneDNN refuses, rounded as cpublas does).
"""

from __future__ import annotations

import numpy as np

from ember._c10 import dtypes
from ember._tensor import wrap_array
from ember.aten.native import at
from ember.aten.native.conv_numpy import conv_forward, conv_input_grad, conv_weight_grad
from ember.aten.native.conv_reduced import conv_forward_half, conv_transpose_half
from ember.aten.native.views import fmt_ints, type_string

__all__ = ["convolution", "convolution_backward"]

# the dtypes whose products NumPy computes as PyTorch's CPU kernels do (same element type;
# bfloat16 as float32 rounded once, float16 by conv_reduced's forward)
_COMPUTED = frozenset(
    {dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64, dtypes.bfloat16, dtypes.float16}
)


def expand_param(values, name: str, dims: int) -> list[int]:
    """expand_param_if_needed: one value repeated, or exactly `dims` of them."""
    values = [int(v) for v in values]
    if len(values) == 1:
        return values * dims
    if len(values) != dims:
        raise RuntimeError(
            f"expected {name} to be a single integer value or a list of {dims} values to match "
            f"the convolution dimensions, but got {name}={fmt_ints(values)}"
        )
    return values


def _check_shape(
    input, weight, bias, padding, stride, dilation, transposed, output_padding, groups
):
    """check_shape_forward."""
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(p < 0 for p in output_padding):
        raise RuntimeError("negative output_padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d < 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero")
    w = weight._sizes
    k = input.dim()
    if len(w) != k:
        raise RuntimeError(
            f"Expected {len(w)}-dimensional input for {len(w)}-dimensional weight {fmt_ints(w)}, "
            f"but got {k}-dimensional input of size {fmt_ints(input._sizes)} instead"
        )
    if w[0] < groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, "
            f"but got weight of size {fmt_ints(w)} instead"
        )
    if w[0] % groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
            f"but got weight of size [{fmt_ints(w)}] instead"
        )
    bias_bad = bias is not None and (
        bias.dim() != 1 or bias._sizes[0] != _bias_len(w, transposed, groups)
    )
    if not transposed:
        if input._sizes[1] != w[1] * groups:
            raise RuntimeError(
                f"Given groups={groups}, weight of size {fmt_ints(w)}, expected "
                f"input{fmt_ints(input._sizes)} to have {w[1] * groups} channels, but got "
                f"{input._sizes[1]} channels instead"
            )
        if bias_bad:
            raise RuntimeError(
                f"Given weight of size {fmt_ints(w)}, expected bias to be 1-dimensional with "
                f"{w[0]} elements, but got bias of size {fmt_ints(bias._sizes)} instead"
            )
        padded = [input._sizes[i] + 2 * padding[i - 2] for i in range(2, k)]
        spans = [dilation[i - 2] * (w[i] - 1) + 1 for i in range(2, k)]
        if any(p < s for p, s in zip(padded, spans, strict=True)):
            raise RuntimeError(
                f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). "
                f"Kernel size: ({' x '.join(map(str, spans))}). Kernel size can't be greater "
                "than actual input size"
            )
    else:
        if input._sizes[1] != w[0]:
            raise RuntimeError(
                f"Given transposed=1, weight of size {fmt_ints(w)}, expected "
                f"input{fmt_ints(input._sizes)} to have {w[0]} channels, but got "
                f"{input._sizes[1]} channels instead"
            )
        if bias_bad:
            raise RuntimeError(
                f"Given transposed=1, weight of size {fmt_ints(w)}, expected bias to be "
                f"1-dimensional with {w[1] * groups} elements, but got bias of size "
                f"{fmt_ints(bias._sizes)} instead"
            )


def _bias_len(w, transposed, groups):
    return w[1] * groups if transposed else w[0]


def _check_output_padding(output_padding, stride, dilation):
    """slow_conv_transpose's shape check (its 2-d wording, one pair per dim)."""
    names = (
        ("height", "width") if len(stride) == 2 else ("depth", "height", "width")[-len(stride) :]
    )
    for op, s, d in zip(output_padding, stride, dilation, strict=True):
        if op >= s and op >= d:
            parts = [f"output_padding_{n}: {v}" for n, v in zip(names, output_padding, strict=True)]
            parts += [f"stride_{n}: {v}" for n, v in zip(names, stride, strict=True)]
            parts += [f"dilation_{n}: {v}" for n, v in zip(names, dilation, strict=True)]
            raise RuntimeError(
                "output padding must be smaller than either stride or dilation, but got "
                + " ".join(parts)
            )


def _check_types(input, weight, bias):
    """check_input_same_type_as_parameters."""
    if input.dtype != weight.dtype:
        raise RuntimeError(
            f"Input type ({type_string(input)}) and weight type ({type_string(weight)}) should "
            "be the same or input should be a MKLDNN tensor and weight is a dense tensor"
        )
    if bias is not None and bias.dtype != input.dtype:
        raise RuntimeError(
            f"Input type ({type_string(input)}) and bias type ({type_string(bias)}) should be "
            "the same"
        )
    if input.dtype not in _COMPUTED:
        raise NotImplementedError(
            f"ember computes convolution for float32, float64, bfloat16, float16, int32 and "
            f"int64 only, not {input.dtype}"
        )


def _params(weight, stride, padding, dilation, output_padding, groups):
    dims = weight.dim() - 2
    if dims <= 0:
        raise RuntimeError("weight should have at least three dimensions")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    return (
        expand_param(stride, "stride", dims),
        expand_param(padding, "padding", dims),
        expand_param(dilation, "dilation", dims),
        expand_param(output_padding, "output_padding", dims),
    )


def transposed_size(spatial, kernel, stride, padding, dilation, output_padding):
    return tuple(
        (i - 1) * s - 2 * p + d * (k - 1) + op + 1
        for i, k, s, p, d, op in zip(
            spatial, kernel, stride, padding, dilation, output_padding, strict=True
        )
    )


def _output_shape(input, weight, stride, padding, dilation, transposed, output_padding, groups):
    kernel = weight._sizes[2:]
    spatial = input._sizes[2:]
    if transposed:
        sizes = transposed_size(spatial, kernel, stride, padding, dilation, output_padding)
        return (input._sizes[0], weight._sizes[1] * groups) + sizes
    sizes = tuple(
        (i + 2 * p - d * (k - 1) - 1) // s + 1
        for i, k, s, p, d in zip(spatial, kernel, stride, padding, dilation, strict=True)
    )
    return (input._sizes[0], weight._sizes[0]) + sizes


def _empty(sizes, like):
    return at.empty_memory_format(list(sizes), like.dtype, None, like.device, None, None)


def _wrap(array, dtype):
    return wrap_array(np.ascontiguousarray(array.astype(dtype.np_dtype, copy=False)), dtype)


def _channels_bias(bias, dims):
    return bias.ndarray().reshape((1, -1) + (1,) * dims)


def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):  # noqa: A002
    stride, padding, dilation, output_padding = _params(
        weight, stride, padding, dilation, output_padding, groups
    )
    _check_shape(input, weight, bias, padding, stride, dilation, transposed, output_padding, groups)
    if any(d == 0 for d in dilation):  # the CPU backends' own check (a zero passes the above)
        raise RuntimeError("non-positive dilation is not supported")
    _check_types(input, weight, bias)
    if transposed:
        _check_output_padding(output_padding, stride, dilation)
    shape = _output_shape(
        input, weight, stride, padding, dilation, transposed, output_padding, groups
    )
    if input.device.type == "meta":
        return _empty(shape, input)
    x, w = input.ndarray(), weight.ndarray()
    slow = transposed and any(o >= s for o, s in zip(output_padding, stride, strict=True))
    if input.dtype is dtypes.float16 or (slow and input.dtype is dtypes.bfloat16):
        # no oneDNN path (float16; output_padding >= stride): cpublas' rounding
        b = None if bias is None else bias.ndarray()
        if transposed:
            y = conv_transpose_half(x, w, b, shape[2:], stride, padding, dilation, groups)
        else:
            y = conv_forward_half(x, w, b, stride, padding, dilation, groups)
        return wrap_array(y, input.dtype)
    if input.dtype is dtypes.bfloat16:  # oneDNN's: float32 arithmetic, rounded once
        x, w = x.astype("float32"), w.astype("float32")
    if transposed:
        y = conv_input_grad(x, w, shape[2:], stride, padding, dilation, groups)
    else:
        y = conv_forward(x, w, stride, padding, dilation, groups)
    if bias is not None:
        y += _channels_bias(bias, len(stride)).astype(y.dtype, copy=False)
    return wrap_array(y.astype(input.dtype.np_dtype, copy=False), input.dtype)


def convolution_backward(
    grad_output, input, weight, bias_sizes, stride, padding, dilation, transposed,  # noqa: A002
    output_padding, groups, output_mask,
):  # fmt: skip
    stride, padding, dilation, output_padding = _params(
        weight, stride, padding, dilation, output_padding, groups
    )
    meta = input.device.type == "meta" or grad_output.device.type == "meta"
    grad_input = grad_weight = grad_bias = None
    if output_mask[0]:
        grad_input = _empty(input._sizes, input) if meta else None
    if output_mask[1]:
        grad_weight = _empty(weight._sizes, weight) if meta else None
    if output_mask[2]:
        grad_bias = _empty([grad_output._sizes[1]], grad_output) if meta else None
    if meta:
        return grad_input, grad_weight, grad_bias
    go, x, w = grad_output.ndarray(), input.ndarray(), weight.ndarray()
    slow = transposed and any(o >= s for o, s in zip(output_padding, stride, strict=True))
    if input.dtype is dtypes.float16 or (slow and input.dtype is dtypes.bfloat16):
        raise NotImplementedError(
            f"ember does not compute convolution_backward in {input.dtype} where PyTorch's CPU "
            "takes its slow path (float16; bfloat16 transposed with output_padding >= "
            "stride): it rounds in cpublas' accumulation order, which ember does not "
            "reproduce; use float32 or float64"
        )
    if input.dtype is dtypes.bfloat16:  # oneDNN's: float32 arithmetic, each gradient rounded once
        go, x, w = go.astype("float32"), x.astype("float32"), w.astype("float32")
    kernel = weight._sizes[2:]
    if output_mask[0]:
        if transposed:
            full = conv_forward(go, w, stride, padding, dilation, groups)
            crop = (slice(None), slice(None)) + tuple(slice(0, i) for i in input._sizes[2:])
            grad_input = _wrap(full[crop], input.dtype)
        else:
            gi = conv_input_grad(go, w, input._sizes[2:], stride, padding, dilation, groups)
            grad_input = _wrap(gi, input.dtype)
    if output_mask[1]:
        if transposed:
            gw = conv_weight_grad(go, x, kernel, stride, padding, dilation, groups)
        else:
            gw = conv_weight_grad(x, go, kernel, stride, padding, dilation, groups)
        grad_weight = _wrap(gw, weight.dtype)
    if output_mask[2]:
        axes = (0,) + tuple(range(2, go.ndim))
        grad_bias = _wrap(go.sum(axis=axes), grad_output.dtype)
    return grad_input, grad_weight, grad_bias
