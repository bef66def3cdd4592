"""`torch.nn.functional`'s normalisations: batch_norm, instance_norm, layer_norm,
group_norm, rms_norm, local_response_norm, normalize.

Layer: the Python face, above aten. In: tensors and PyTorch's keyword arguments. Out:
tensors. Each checks what torch/nn/functional.py checks in Python (_verify_batch_size,
_verify_spatial_size) and calls the same binding (torch.batch_norm, torch.layer_norm, ...).
Mirrors the normalisation section of torch/nn/functional.py.
"""

from __future__ import annotations

import math

from ember._tensor import Tensor
from ember._torch_function import handle_torch_function, has_torch_function
from ember._torch_function import state as _tf_state
from ember.aten._generated import python_functions as _functions

__all__ = [
    "batch_norm",
    "instance_norm",
    "layer_norm",
    "group_norm",
    "rms_norm",
    "local_response_norm",
    "normalize",
]


def _overridden(*tensors) -> bool:
    """has_torch_function_variadic: class tests for plain tensors (and None)."""
    if _tf_state.anywhere or any(t is not None and t.__class__ is not Tensor for t in tensors):
        return has_torch_function(tuple(t for t in tensors if t is not None))
    return False


def _verify_batch_size(size) -> None:
    if size[0] * math.prod(size[2:]) == 1:
        raise ValueError(
            f"Expected more than 1 value per channel when training, got input size {size}"
        )


def _verify_spatial_size(size) -> None:
    if math.prod(size[2:]) == 1:
        raise ValueError(
            f"Expected more than 1 spatial element when training, got input size {size}"
        )


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,  # noqa: A002
               momentum=0.1, eps=1e-5):  # fmt: skip
    if _overridden(input, running_mean, running_var, weight, bias):
        return handle_torch_function(
            batch_norm, (input, running_mean, running_var, weight, bias), input, running_mean,
            running_var, weight=weight, bias=bias, training=training, momentum=momentum, eps=eps,
        )  # fmt: skip
    if training:
        _verify_batch_size(input.size())
    return _functions.batch_norm(
        input, weight, bias, running_mean, running_var, training, momentum, eps, False
    )


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,  # noqa: A002
                  use_input_stats=True, momentum=0.1, eps=1e-5):  # fmt: skip
    if _overridden(input, running_mean, running_var, weight, bias):
        return handle_torch_function(
            instance_norm, (input, running_mean, running_var, weight, bias), input,
            running_mean=running_mean, running_var=running_var, weight=weight, bias=bias,
            use_input_stats=use_input_stats, momentum=momentum, eps=eps,
        )  # fmt: skip
    if use_input_stats:
        _verify_spatial_size(input.size())
    return _functions.instance_norm(
        input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, False
    )


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):  # noqa: A002
    if _overridden(input, weight, bias):
        return handle_torch_function(
            layer_norm, (input, weight, bias), input, normalized_shape, weight=weight,
            bias=bias, eps=eps,
        )  # fmt: skip
    return _functions.layer_norm(input, normalized_shape, weight, bias, eps, False)


def rms_norm(input, normalized_shape, weight=None, eps=None):  # noqa: A002
    if _overridden(input, weight):
        return handle_torch_function(
            rms_norm, (input, weight), input, normalized_shape, weight=weight, eps=eps
        )
    return _functions.rms_norm(input, normalized_shape, weight, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):  # noqa: A002
    if _overridden(input, weight, bias):
        return handle_torch_function(
            group_norm, (input, weight, bias), input, num_groups, weight=weight, bias=bias,
            eps=eps,
        )  # fmt: skip
    if input.dim() < 2:
        raise RuntimeError(
            f"Expected at least 2 dimensions for input tensor but received {input.dim()}"
        )
    _verify_batch_size(
        [input.size(0) * input.size(1) // num_groups, num_groups] + list(input.size()[2:])
    )
    return _functions.group_norm(input, num_groups, weight, bias, eps, False)


def local_response_norm(input, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0):  # noqa: A002
    """Through F.pad and F.avg_pool2d / avg_pool3d, as PyTorch."""
    if _overridden(input):
        return handle_torch_function(
            local_response_norm, (input,), input, size, alpha=alpha, beta=beta, k=k
        )
    from ember.nn import functional as F  # noqa: N812 (pad and the pools, from the face above)

    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    div = input.mul(input)
    if dim == 3:
        div = div.unsqueeze(1)
        div = F.pad(div, (0, 0, size // 2, (size - 1) // 2))
        div = F.avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        sizes = input.size()
        div = div.view(sizes[0], 1, sizes[1], sizes[2], -1)
        div = F.pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = F.avg_pool3d(div, (size, 1, 1), stride=1).squeeze(1)
        div = div.view(sizes)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div


def normalize(input, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out=None):  # noqa: A002
    if _overridden(input, out):
        return handle_torch_function(normalize, (input, out), input, p=p, dim=dim, eps=eps, out=out)
    if out is None:
        denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
        return input / denom
    denom = input.norm(p, dim, keepdim=True).clamp_min_(eps).expand_as(input)
    return _functions.div(input, denom, out=out)
