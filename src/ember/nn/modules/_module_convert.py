"""A Module's conversions: _apply and the casts and moves built on it (to, float, double,
half, bfloat16, cpu, type, to_empty).

Layer: nn. In: a module tree and a function from tensor to tensor. Out: each parameter,
its gradient and each buffer converted under no_grad; a parameter keeps its identity
(``param.data = converted``) when the two have compatible TensorImpl types, as
torch._has_compatible_shallow_copy_type says, else a new Parameter takes its place.
Mirrors the conversion half of torch/nn/modules/module.py; module.py installs these
functions as Module's methods.
"""

from __future__ import annotations

import warnings

from ember.aten._generated import python_functions as _functions
from ember.aten.python_arg_parser import PythonArgParser
from ember.autograd.grad_mode import no_grad
from ember.autograd.variable import has_compatible_shallow_copy_type
from ember.nn.parameter import Parameter

# torch._C._nn._parse_to: Module.to's arguments, as Tensor.to takes them
_parse_to_parser = PythonArgParser(
    [
        "to(Device device=None, ScalarType dtype=None, bool non_blocking=False, bool copy=False, "
        "*, MemoryFormat? memory_format=None)",
        "to(ScalarType dtype, bool non_blocking=False, bool copy=False, *, "
        "MemoryFormat? memory_format=None)",
        "to(Tensor tensor, bool non_blocking=False, bool copy=False, *, "
        "MemoryFormat? memory_format=None)",
    ]
)


def _parse_to(*args, **kwargs):
    """(device, dtype, non_blocking, memory_format) of a ``to(...)`` call."""
    index, values = _parse_to_parser.parse(args, kwargs)
    if index == 0:
        device, dtype, non_blocking, _copy, memory_format = values
    elif index == 1:
        dtype, non_blocking, _copy, memory_format = values
        device = None
    else:
        other, non_blocking, _copy, memory_format = values
        device, dtype = other.device, other.dtype
    return device, dtype, non_blocking, memory_format


def _apply(self, fn, recurse=True):
    if recurse:
        for module in self.children():
            module._apply(fn)
    for key, param in self._parameters.items():
        if param is None:
            continue
        with no_grad():
            param_applied = fn(param)
        param_grad = param.grad
        if has_compatible_shallow_copy_type(param, param_applied):
            param.data = param_applied
            out_param = param
        else:
            out_param = Parameter(param_applied, param.requires_grad)
            self._parameters[key] = out_param
        if param_grad is not None:
            with no_grad():
                grad_applied = fn(param_grad)
            if has_compatible_shallow_copy_type(param_grad, grad_applied):
                out_param.grad.data = grad_applied
            else:
                out_param.grad = grad_applied.requires_grad_(param_grad.requires_grad)
    for key, buf in self._buffers.items():
        if buf is not None:
            self._buffers[key] = fn(buf)
    return self


def to_cpu(self):
    return self._apply(lambda t: t.cpu())


def to_type(self, dst_type):
    return self._apply(lambda t: t.type(dst_type))


def to_float(self):
    return self._apply(lambda t: t.float() if t.is_floating_point() else t)


def to_double(self):
    return self._apply(lambda t: t.double() if t.is_floating_point() else t)


def to_half(self):
    return self._apply(lambda t: t.half() if t.is_floating_point() else t)


def to_bfloat16(self):
    return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)


def to_empty(self, *, device, recurse: bool = True):
    return self._apply(lambda t: _functions.empty_like(t, device=device), recurse=recurse)


def to(self, *args, **kwargs):
    device, dtype, non_blocking, convert_to_format = _parse_to(*args, **kwargs)
    if dtype is not None and not (dtype.is_floating_point or dtype.is_complex):
        raise TypeError(
            "nn.Module.to only accepts floating point or complex "
            f"dtypes, but got desired dtype={dtype}"
        )
    if dtype is not None and dtype.is_complex:
        warnings.warn(
            "Complex modules are a new feature under active development whose design may "
            "change, and some modules might not work as expected when using complex "
            "tensors as parameters or buffers. Please file an issue at "
            "https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml "
            "if a complex module does not work as expected.",
            stacklevel=2,
        )

    def convert(t):
        cast = dtype if t.is_floating_point() or t.is_complex() else None
        if convert_to_format is not None and t.dim() in (4, 5):
            return t.to(device, cast, non_blocking, memory_format=convert_to_format)
        return t.to(device, cast, non_blocking)

    return self._apply(convert)
