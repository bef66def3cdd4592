"""Gradient clipping: clip_grad_norm_ and clip_grad_value_.

Layer: nn. In: parameters (a tensor or an iterable), the bound, norm_type,
error_if_nonfinite, foreach. Out: the gradients scaled in place by
min(1, max_norm / (total_norm + 1e-6)) (or clamped to +-clip_value), and the total norm
as PyTorch computes it: the vector norm of the per-gradient norms (grouped by device and
dtype), all under no_grad. PyTorch's CPU path calls the _foreach_ operators
(_foreach_norm, _foreach_mul_, _foreach_clamp_min_/max_), which ember does not have: it
makes the per-tensor calls their CPU kernels make (the same numbers; a dispatch mode sees
linalg_vector_norm / mul_ / clamp_ per gradient instead). foreach=True is refused, with
PyTorch's message, on the devices PyTorch refuses it on. Mirrors torch/nn/utils/clip_grad.py.
"""

from __future__ import annotations

import functools
import types
import warnings

from ember import linalg
from ember._tensor import Tensor
from ember._tensor_ctors import tensor as _tensor
from ember.aten._generated import python_functions as _functions
from ember.autograd.grad_mode import no_grad

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_"]


def _no_grad(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with no_grad():
            return func(*args, **kwargs)

    return wrapper


def _group_by_device_and_dtype(tensors) -> dict:
    """torch.utils._foreach_utils._group_tensors_by_device_and_dtype for one list."""
    groups: dict = {}
    for tensor in tensors:
        groups.setdefault((tensor.device, tensor.dtype), []).append(tensor)
    return groups


# torch.utils._foreach_utils._device_has_foreach_support: the kernels' devices, and cpu
_FOREACH_DEVICE_TYPES = ("cuda", "xpu", "mtia", "privateuseone", "cpu")


def _check_foreach(device) -> None:
    if device.type in _FOREACH_DEVICE_TYPES:
        return
    raise RuntimeError(
        f"foreach=True was passed, but can't use the foreach API on {device.type} tensors"
    )


@_no_grad
def _get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    norm_type = float(norm_type)
    if len(tensors) == 0:
        return _tensor(0.0)
    first_device = tensors[0].device
    norms = []
    for (device, _dtype), group in _group_by_device_and_dtype(tensors).items():
        if foreach:
            _check_foreach(device)
        norms.extend(linalg.vector_norm(g, norm_type) for g in group)
    total_norm = linalg.vector_norm(
        _functions.stack([norm.to(first_device) for norm in norms]), norm_type
    )
    if error_if_nonfinite and _functions.logical_or(total_norm.isnan(), total_norm.isinf()):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the "
            "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`"
        )
    return total_norm


@_no_grad
def _clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None) -> None:
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    grads = [p.grad for p in parameters if p.grad is not None]
    max_norm = float(max_norm)
    if len(grads) == 0:
        return
    clip_coef = max_norm / (total_norm + 1e-6)
    clip_coef_clamped = _functions.clamp(clip_coef, max=1.0)
    for (device, _dtype), group in _group_by_device_and_dtype(grads).items():
        if foreach:
            _check_foreach(device)
        coef = clip_coef_clamped.to(device)
        for g in group:
            g.mul_(coef)


@_no_grad
def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scale the gradients of ``parameters`` so that their total norm is at most max_norm;
    return the total norm (before clipping)."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if is_generator and len(parameters) == 0:
            warnings.warn(
                "`parameters` is an empty generator, no gradient clipping will occur.",
                stacklevel=3,
            )
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = _get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    _clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Deprecated spelling of clip_grad_norm_."""
    warnings.warn(
        "`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
        "`torch.nn.utils.clip_grad_norm_`.",
        FutureWarning,
        stacklevel=2,
    )
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


@_no_grad
def clip_grad_value_(parameters, clip_value, foreach=None) -> None:
    """Clamp the gradients of ``parameters`` to [-clip_value, clip_value] in place."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    clip_value = float(clip_value)
    grads = [p.grad for p in parameters if p.grad is not None]
    for (device, _dtype), group in _group_by_device_and_dtype(grads).items():
        if foreach:
            _check_foreach(device)
        for grad in group:
            grad.clamp_(min=-clip_value, max=clip_value)
