"""Tensor.real and Tensor.imag: properties with setters, as python_variable.cpp has them.

Layer: aten (installed on ember.Tensor by tensor_api). In: a tensor (and, to set, a tensor
or a Python number). Out: aten::real / aten::imag of it, views sharing its storage;
setting writes through the view with copy_. Mirrors THPVariable_get_real / _set_real /
_get_imag / _set_imag (the value converted by valueToTensor to the part's dtype, a number lifted).
"""

from __future__ import annotations

from ember._tensor import Tensor
from ember.aten.binding import handle
from ember.aten.indexing import _value_to_tensor

__all__ = ["real_property", "imag_property"]

_REAL = handle("real")
_IMAG = handle("imag")
_COPY = handle("copy_")
_LIFT_FRESH = handle("lift_fresh")


def _value(part, value):
    """valueToTensor: a tensor as is; a number as a 0-dim tensor of the part's dtype,
    lifted (aten::lift_fresh) on the cpu."""
    if isinstance(value, Tensor):
        return value
    number = _value_to_tensor(part, value)
    return _LIFT_FRESH.call(number) if part.device.type == "cpu" else number


def _get_real(self):
    return _REAL.call(self)


def _set_real(self, value):
    part = _REAL.call(self)
    _COPY.call(part, _value(part, value), False)


def _get_imag(self):
    return _IMAG.call(self)


def _set_imag(self, value):
    part = _IMAG.call(self)
    _COPY.call(part, _value(part, value), False)


real_property = property(_get_real, _set_real)
imag_property = property(_get_imag, _set_imag)
