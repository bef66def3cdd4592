"""parameters_to_vector and vector_to_parameters.

Layer: nn. In: parameters (and a flat vector). Out: one vector of every parameter's
values (``cat`` of their views), or the parameters' data replaced by consecutive slices
of the vector. Mirrors torch/nn/utils/convert_parameters.py.
"""

from __future__ import annotations

from ember._tensor import Tensor
from ember._type_helpers import typename
from ember.aten._generated import python_functions as _functions

__all__ = ["parameters_to_vector", "vector_to_parameters"]

_DEVICE_TYPES = ("cuda", "privateuseone")


def _check_param_device(param, old_param_device):
    if old_param_device is None:
        return param.get_device() if param.device.type in _DEVICE_TYPES else -1
    if param.device.type in _DEVICE_TYPES:
        warn = param.get_device() != old_param_device
    else:
        warn = old_param_device != -1
    if warn:
        raise TypeError(
            "Found two parameters on different devices, this is currently not supported."
        )
    return old_param_device


def parameters_to_vector(parameters):
    param_device = None
    vec = []
    for param in parameters:
        param_device = _check_param_device(param, param_device)
        vec.append(param.view(-1))
    return _functions.cat(vec)


def vector_to_parameters(vec, parameters) -> None:
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {typename(vec)}")
    param_device = None
    pointer = 0
    for param in parameters:
        param_device = _check_param_device(param, param_device)
        num_param = param.numel()
        param.data = vec[pointer : pointer + num_param].view_as(param).data
        pointer += num_param
