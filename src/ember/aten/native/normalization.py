"""CPU kernels of the normalisations: native_layer_norm, native_batch_norm,
native_group_norm and their backward operators, and the composites that reach them
(layer_norm, batch_norm, instance_norm, group_norm, rms_norm).

Layer: aten/native. In: the full schema arguments. Out: the tensors of the schema; a
backward operator returns None (an undefined tensor) where `output_mask` says a gradient
is not wanted. Statistics are computed in the opmath dtype (float32 for float16 /
bfloat16); batch_norm's running statistics are updated in place with the momentum and
the unbiased variance. Mirrors ATen/native/layer_norm.cpp, Normalization.cpp,
group_norm.cpp and their CPU kernels.
"""

from __future__ import annotations

import math

import numpy as np

from ember._c10 import dtypes
from ember._c10.geometry import shape_text
from ember._tensor import empty_tensor
from ember.aten.native import at
from ember.aten.ufunc_special import not_implemented_for, opmath

__all__ = [
    "layer_norm_cpu",
    "layer_norm_backward_cpu",
    "layer_norm_symint",
    "batch_norm_cpu",
    "batch_norm_backward_cpu",
    "batch_norm",
    "instance_norm",
    "native_group_norm",
    "native_group_norm_backward",
    "group_norm",
    "rms_norm_symint",
]


def _compute(tensor, kernel: str):
    if not tensor.dtype.is_floating_point:
        not_implemented_for(kernel, tensor.dtype)
    return opmath(tensor.dtype.np_dtype)


def _values(tensor, compute):
    return None if tensor is None else tensor.ndarray().astype(compute, copy=False)


def _wrap(values, dtype, device):
    out = empty_tensor(tuple(values.shape), dtype, device)
    np.copyto(out.ndarray(), values, casting="unsafe")
    return out


# -- layer_norm ------------------------------------------------------------------------


def _check_layer_norm_inputs(input, normalized_shape, weight, bias, rms=False) -> int:  # noqa: A002
    """_check_layer_norm_inputs (_check_rms_norm_inputs_symint with ``rms``, whose message
    lists the sizes without a leading comma): returns the number of leading dims."""
    shape = tuple(normalized_shape)
    if len(shape) < 1:
        raise RuntimeError(
            "Expected normalized_shape to be at least 1-dimensional, i.e., containing at "
            f"least one element, but got normalized_shape = {shape_text(shape)}"
        )
    for name, tensor in (("weight", weight), ("bias", bias)):
        if tensor is not None and tensor._sizes != shape:
            raise RuntimeError(
                f"Expected {name} to be of same shape as normalized_shape, but got {name} of "
                f"shape {shape_text(tensor._sizes)} and normalized_shape = {shape_text(shape)}"
            )
    sizes = input._sizes
    axis = len(sizes) - len(shape)
    if axis < 0 or sizes[axis:] != shape:
        expected = ", ".join(map(str, shape)) if rms else "".join(f", {s}" for s in shape)
        raise RuntimeError(
            f"Given normalized_shape={shape_text(shape)}, expected input with shape "
            f"[*{expected}], but got input of size{shape_text(sizes)}"
        )
    return axis


def layer_norm_cpu(input, normalized_shape, weight, bias, eps):  # noqa: A002
    axis = _check_layer_norm_inputs(input, normalized_shape, weight, bias)
    compute = _compute(input, "LayerNormKernelImpl")
    x = _values(input, compute)
    reduce = tuple(range(axis, x.ndim))
    with np.errstate(all="ignore"):
        mean = (
            x.mean(axis=reduce, keepdims=True)
            if x.size
            else np.zeros(x.shape[:axis] + (1,) * len(reduce), compute)
        )
        var = ((x - mean) ** 2).mean(axis=reduce, keepdims=True) if x.size else mean
        rstd = 1 / np.sqrt(var + compute.type(eps))
        y = (x - mean) * rstd
        if weight is not None:
            y = y * _values(weight, compute)
        if bias is not None:
            y = y + _values(bias, compute)
    stats_dtype = input.dtype
    return (
        _wrap(y, input.dtype, input.device),
        _wrap(mean, stats_dtype, input.device),
        _wrap(rstd, stats_dtype, input.device),
    )


def layer_norm_backward_cpu(grad_out, input, normalized_shape, mean, rstd, weight, bias,  # noqa: A002
                            output_mask):  # fmt: skip
    axis = _check_layer_norm_inputs(input, normalized_shape, weight, bias)
    compute = _compute(input, "LayerNormBackwardKernelImpl")
    x, dy = _values(input, compute), _values(grad_out, compute)
    mu, r = _values(mean, compute), _values(rstd, compute)
    reduce = tuple(range(axis, x.ndim))
    batch = tuple(range(axis))
    x_hat = (x - mu.reshape(mu.shape[:axis] + (1,) * len(reduce))) * r.reshape(
        r.shape[:axis] + (1,) * len(reduce)
    )
    results = [None, None, None]
    if output_mask[0]:
        dy_w = dy if weight is None else dy * _values(weight, compute)
        if x.size:
            first = dy_w.mean(axis=reduce, keepdims=True)
            second = (dy_w * x_hat).mean(axis=reduce, keepdims=True)
            dx = (dy_w - first - x_hat * second) * r.reshape(r.shape[:axis] + (1,) * len(reduce))
        else:
            dx = dy_w
        results[0] = _wrap(dx, input.dtype, input.device)
    if output_mask[1] and weight is not None:
        results[1] = _wrap((dy * x_hat).sum(axis=batch), weight.dtype, input.device)
    if output_mask[2] and bias is not None:
        results[2] = _wrap(dy.sum(axis=batch), bias.dtype, input.device)
    return tuple(results)


def layer_norm_symint(input, normalized_shape, weight, bias, eps, cudnn_enable):  # noqa: A002
    return at.native_layer_norm(input, normalized_shape, weight, bias, eps)[0]


# -- batch_norm ------------------------------------------------------------------------


def _channel_view(values, ndim: int):
    """A per-channel vector shaped to broadcast over (N, C, *)."""
    return values.reshape((1, -1) + (1,) * (ndim - 2))


def _check_batch_norm_inputs(input, weight, bias, running_mean, running_var, training):  # noqa: A002
    """_batch_norm_impl_index's checks, in its order."""
    channels = input._sizes[1] if input.dim() > 1 else 1
    for name, tensor in (("running_mean", running_mean), ("running_var", running_var)):
        if tensor is not None:
            if tensor.numel() != channels:
                raise RuntimeError(
                    f"{name} should contain {channels} elements not {tensor.numel()}"
                )
        elif not training:
            raise RuntimeError(f"{name} must be defined in evaluation mode")
    for name, tensor in (("weight", weight), ("bias", bias)):
        if tensor is not None and tensor.numel() != channels:
            raise RuntimeError(f"{name} should contain {channels} elements not {tensor.numel()}")


def batch_norm_cpu(input, weight, bias, running_mean, running_var, training, momentum, eps):  # noqa: A002
    _check_batch_norm_inputs(input, weight, bias, running_mean, running_var, training)
    compute = _compute(input, "batch_norm")
    channels = input._sizes[1] if input.dim() > 1 else 1
    x = _values(input, compute)
    ndim = x.ndim
    reduce = (0,) + tuple(range(2, ndim))
    with np.errstate(all="ignore"):
        if training:
            count = x.size // max(channels, 1)
            mean = x.mean(axis=reduce)
            var = ((x - _channel_view(mean, ndim)) ** 2).mean(axis=reduce)
            invstd = 1 / np.sqrt(var + compute.type(eps))
            if running_mean is not None:
                _update(running_mean, mean, momentum)
            if running_var is not None:
                unbiased = var * count / (count - 1) if count > 1 else var * np.inf
                _update(running_var, unbiased, momentum)
            save_mean, save_invstd = mean, invstd
        else:
            mean = _values(running_mean, compute)
            invstd = 1 / np.sqrt(_values(running_var, compute) + compute.type(eps))
            save_mean = save_invstd = np.zeros(0, compute)
        y = (x - _channel_view(mean, ndim)) * _channel_view(invstd, ndim)
        if weight is not None:
            y = y * _channel_view(_values(weight, compute), ndim)
        if bias is not None:
            y = y + _channel_view(_values(bias, compute), ndim)
    stats = input.dtype if weight is None else weight.dtype
    return (
        _wrap(y, input.dtype, input.device),
        _wrap(save_mean, stats, input.device),
        _wrap(save_invstd, stats, input.device),
    )


def _update(running, batch_value, momentum) -> None:
    """running = momentum * batch + (1 - momentum) * running, in place."""
    target = running.ndarray()
    compute = opmath(target.dtype)
    old = target.astype(compute, copy=False)
    new = compute.type(momentum) * batch_value.astype(compute) + compute.type(1 - momentum) * old
    np.copyto(target, new, casting="unsafe")


def batch_norm_backward_cpu(grad_out, input, weight, running_mean, running_var, save_mean,  # noqa: A002
                            save_invstd, train, eps, output_mask):  # fmt: skip
    compute = _compute(input, "batch_norm_backward_cpu")
    x, dy = _values(input, compute), _values(grad_out, compute)
    ndim = x.ndim
    reduce = (0,) + tuple(range(2, ndim))
    channels = x.shape[1] if ndim > 1 else 1
    count = x.size // max(channels, 1)
    with np.errstate(all="ignore"):
        if train:
            mean, invstd = _values(save_mean, compute), _values(save_invstd, compute)
        else:
            mean = _values(running_mean, compute)
            invstd = 1 / np.sqrt(_values(running_var, compute) + compute.type(eps))
        w = np.ones(channels, compute) if weight is None else _values(weight, compute)
        centered = x - _channel_view(mean, ndim)
        grad_sum = dy.sum(axis=reduce)
        dotp = (dy * centered).sum(axis=reduce)
        results = [None, None, None]
        if output_mask[0]:
            if train:
                k = dotp * invstd * invstd / count
                dx = centered * _channel_view(k, ndim)
                grad_mean = grad_sum / count
                dx = (dy - _channel_view(grad_mean, ndim) - dx) * _channel_view(invstd * w, ndim)
            else:
                dx = dy * _channel_view(invstd * w, ndim)
            results[0] = _wrap(dx, input.dtype, input.device)
        stats = input.dtype if weight is None else weight.dtype
        if output_mask[1]:
            results[1] = _wrap(dotp * invstd, stats, input.device)
        if output_mask[2]:
            results[2] = _wrap(grad_sum, stats, input.device)
    return tuple(results)


def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,  # noqa: A002
               cudnn_enabled):  # fmt: skip
    """batch_norm -> _batch_norm_impl_index: its checks and empty `reserve`, then
    native_batch_norm."""
    _check_batch_norm_inputs(input, weight, bias, running_mean, running_var, training)
    at.empty_memory_format([0], dtypes.uint8, None, input.device, None, None)
    return at.native_batch_norm(
        input, weight, bias, running_mean, running_var, training, momentum, eps
    )[0]


def _repeat(tensor, times: int):
    """tensor.repeat(times): aten::repeat where this build has it, else the same values by
    expand and reshape (a dispatch mode then sees those)."""
    if tensor is None:
        return None
    if tensor.dim() > 1:
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions "
            "of tensor"
        )
    try:
        repeat = at.repeat
    except AttributeError:
        expanded = at.expand(at.unsqueeze(tensor, 0), [times, *tensor._sizes], False)
        return at.reshape(expanded, [times * tensor.numel()])
    return repeat(tensor, [times])


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum,  # noqa: A002
                  eps, cudnn_enabled):  # fmt: skip
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError(
            "Expected running_mean and running_var to be defined when use_input_stats is false"
        )
    sizes = list(input._sizes)
    b, c = sizes[0], sizes[1]
    shape = [1, b * c] + sizes[2:]
    reshaped = at.view(at.contiguous(input, None), shape)
    stats = (weight, bias, running_mean, running_var)
    weight, bias, mean_, var_ = (_repeat(t, b) for t in stats)
    out = batch_norm(reshaped, weight, bias, mean_, var_, use_input_stats, momentum, eps,
                     cudnn_enabled)  # fmt: skip
    for running, repeated in ((running_mean, mean_), (running_var, var_)):
        if running is not None:
            at.copy_(at.alias(running), at.mean_dim(at.view(repeated, [b, c]), [0], False, None),
                     False)  # fmt: skip
    return at.view(out, sizes)


# -- group_norm ------------------------------------------------------------------------


def native_group_norm(input, weight, bias, N, C, HxW, group, eps):  # noqa: A002, N803
    _check_group_norm_inputs(input, weight, bias, C, group)
    if input.numel() != N * C * HxW:
        raise RuntimeError(
            "Expected X.numel() == N * C * HxW to be true, but got false.  (Could this error "
            "message be improved?  If so, please report an enhancement request to PyTorch.)"
        )
    compute = _compute(input, "GroupNormKernelImpl")
    x = _values(input, compute).reshape(N, group, -1)
    with np.errstate(all="ignore"):
        if x.size:
            mean = x.mean(axis=2)
            var = ((x - mean[..., None]) ** 2).mean(axis=2)
        else:
            mean = var = np.zeros((N, group), compute)
        rstd = 1 / np.sqrt(var + compute.type(eps))
        y = ((x - mean[..., None]) * rstd[..., None]).reshape(N, C, -1)
        if weight is not None:
            y = y * _values(weight, compute)[None, :, None]
        if bias is not None:
            y = y + _values(bias, compute)[None, :, None]
    return (
        _wrap(y.reshape(input._sizes), input.dtype, input.device),
        _wrap(mean, input.dtype, input.device),
        _wrap(rstd, input.dtype, input.device),
    )


def native_group_norm_backward(grad_out, input, mean, rstd, weight, N, C, HxW, group,  # noqa: A002, N803
                               output_mask):  # fmt: skip
    compute = _compute(input, "GroupNormBackwardKernelImpl")
    x = _values(input, compute).reshape(N, C, -1)
    dy = _values(grad_out, compute).reshape(N, C, -1)
    mu = _values(mean, compute).reshape(N, group, 1, 1)
    r = _values(rstd, compute).reshape(N, group, 1, 1)
    per_group = C // group if group else 0
    x_hat = ((x.reshape(N, group, per_group, -1) - mu) * r).reshape(N, C, -1)
    results = [None, None, None]
    if output_mask[0]:
        w = np.ones(C, compute) if weight is None else _values(weight, compute)
        dy_w = (dy * w[None, :, None]).reshape(N, group, per_group, -1)
        grouped = x_hat.reshape(N, group, per_group, -1)
        if dy_w.size:
            first = dy_w.mean(axis=(2, 3), keepdims=True)
            second = (dy_w * grouped).mean(axis=(2, 3), keepdims=True)
            dx = (dy_w - first - grouped * second) * r
        else:
            dx = dy_w
        results[0] = _wrap(dx.reshape(input._sizes), input.dtype, input.device)
    if output_mask[1] and weight is not None:
        results[1] = _wrap((dy * x_hat).sum(axis=(0, 2)), weight.dtype, input.device)
    if output_mask[2]:
        dtype = input.dtype if weight is None else weight.dtype
        results[2] = _wrap(dy.sum(axis=(0, 2)), dtype, input.device)
    return tuple(results)


def _check_group_norm_inputs(input, weight, bias, channels: int, num_groups: int) -> None:  # noqa: A002
    if num_groups <= 0:
        raise RuntimeError(f"Expected num groups to be greater than 0, got {num_groups}")
    if channels % num_groups:
        raise RuntimeError(
            "Expected number of channels in input to be divisible by num_groups, but got input "
            f"of shape {shape_text(input._sizes)} and num_groups={num_groups}"
        )
    for name, tensor in (("weight", weight), ("bias", bias)):
        if tensor is not None and (tensor.dim() != 1 or tensor.numel() != channels):
            raise RuntimeError(
                f"Expected {name} to be a vector of size equal to the number of channels in "
                f"input, but got {name} of shape {shape_text(tensor._sizes)} and input of shape "
                f"{shape_text(input._sizes)}"
            )


def group_norm(input, num_groups, weight, bias, eps, cudnn_enabled):  # noqa: A002
    sizes = input._sizes
    n, c = sizes[0], sizes[1]
    _check_group_norm_inputs(input, weight, bias, c, num_groups)
    hxw = math.prod(sizes[2:])
    x = at.contiguous(input, None)
    gamma = None if weight is None else at.contiguous(weight, None)
    beta = None if bias is None else at.contiguous(bias, None)
    return at.native_group_norm(x, gamma, beta, n, c, hxw, num_groups, eps)[0]


# -- rms_norm --------------------------------------------------------------------------

_EPSILON = {dtypes.float64: 2.220446049250313e-16, dtypes.complex128: 2.220446049250313e-16}
_FLOAT_EPSILON = 1.1920928955078125e-07


def rms_norm_symint(input, normalized_shape, weight, eps):  # noqa: A002
    axis = _check_layer_norm_inputs(input, normalized_shape, weight, None, rms=True)
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        not_implemented_for("rms_norm", input.dtype)
    if eps is None:
        eps = _EPSILON.get(input.dtype, _FLOAT_EPSILON)
    dims = list(range(axis, input.dim()))
    variance = at.mean_dim(at.pow_Tensor_Scalar(input, 2), dims, True, None)
    result = at.mul_Tensor(input, at.rsqrt(at.add__Scalar(variance, eps, 1)))
    if weight is not None:
        result = at.mul_Tensor(result, weight)
    return result
